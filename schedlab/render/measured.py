"""Tables of the measured-landscape page (:mod:`schedlab.studies.measured`): structure, and trials to the goal."""

from __future__ import annotations

from schedlab.core.stats import Interval
from schedlab.render.labels import strategy_label
from schedlab.render.table import MISSING, Table, fmt_interval, fmt_percent, fmt_whole
from schedlab.studies.measured import FLAT, MeasuredComparison, Structure

__all__ = ["TRIALS_COLUMNS", "device_label", "structure_table", "measured_trials_table"]


def device_label(device: str) -> str:
    """A GPU's name as the page writes it: no vendor and brand prefix, a laptop part marked.

    Examples
    --------
    >>> device_label("NVIDIA GeForce RTX 3060 Laptop GPU"), device_label("Synthetic GPU")
    ('RTX 3060 笔记本', 'Synthetic GPU')
    """
    return device.removeprefix("NVIDIA ").removeprefix("GeForce ").replace(" Laptop GPU", " 笔记本")


def structure_table(structures) -> Table:
    """One row per landscape: what it offers a search (:class:`~schedlab.studies.measured.Structure`).

    Examples
    --------
    >>> s = Structure("x", 100, 3, 2, 0.25, 4, True, 2, 0.8)
    >>> structure_table([s]).rows
    (('x', '100', '3', '2 (2.00%)', '25%', '4 (4.0%)', '是', '2/3', '0.80'),)
    """
    rows = []
    for s in structures:
        if not isinstance(s, Structure):
            raise ValueError(f"structures must hold Structure records, got {type(s).__name__}")
        rows.append(
            (
                s.name,
                fmt_whole(s.n_configs),
                fmt_whole(s.n_knobs),
                f"{s.within} ({fmt_percent(s.within_share, 2)})",
                fmt_percent(s.flat_share),
                f"{s.local_minima} ({fmt_percent(s.local_minima / s.n_configs, 1)})",
                "是" if s.corner else "否",
                f"{s.knobs_at_end}/{s.n_knobs}",
                f"{s.neighbour_rho:.2f}",
            )
        )
    title = (
        f"地形的结构：能测的配置、旋钮、离最快 5% 以内的、相差不到 {fmt_percent(FLAT - 1)} 的一档邻居对（平台）、"
        "一档之内没有更快邻居的配置（局部最小）、最优是否在盒子角上、最优处取端点值的旋钮、"
        "配置与一档邻居时间的秩相关"
    )
    headers = ("地形", "配置", "旋钮", "5% 以内", "平台", "局部最小", "角上", "端点旋钮", "邻居秩相关")
    return Table(title, headers, rows)


#: What :func:`measured_trials_table` can show per landscape, and the title's words for it.
TRIALS_COLUMNS = {
    "median": "测多少次的中位数 [95% 次序统计量区间]（{missing}：那个名次的种子预算内没到）",
    "reach": "预算内到达的种子比例 [95% 精确区间（Clopper–Pearson）]",
}


def measured_trials_table(comparisons, labels=None, column: str = "median") -> Table:
    """Median trials to the goal, or reach, each [95 % interval]: one row per strategy, a column per landscape.

    ``column="median"``: the median's order-statistic interval; ``"reach"``: the share of seeds that
    got there, with the exact Clopper--Pearson interval (:func:`~schedlab.core.stats.trials_interval`
    gives both): with ten seeds, 10 of 10 still allows 69 %. One quantity per table keeps it as narrow
    as its landscapes.

    ``comparisons`` is one :class:`~schedlab.studies.measured.MeasuredComparison` or several over the
    same landscapes (say, this package's strategies over many seeds and the recorded real tuners
    over fewer): their rows follow one another, each with its number of seeds. ``labels``
    (landscape name -> column label) shortens the column headers.

    Examples
    --------
    Ten seeds that all got there leave the reach anywhere from 0.025 ** (1 / 10) = 69 % up:

    >>> import numpy as np
    >>> trials = np.array([[[20.0] * 10, [30.0] * 5 + [np.inf] * 5]])
    >>> c = MeasuredComparison(("gpu",), ("random", "descent"), tuple(range(10)), 300, 1.05, trials, np.ones((1, 2, 300)))
    >>> measured_trials_table(c).rows[0][2:], measured_trials_table(c, column="reach").rows[0][2:]
    (('20\xa0[20,\xa020]',), ('100%\xa0[69,\xa0100]',))
    >>> measured_trials_table(c, column="reach").rows[1][2]
    '50%\xa0[19,\xa081]'
    """
    if column not in TRIALS_COLUMNS:
        raise ValueError(f"column must be one of {tuple(TRIALS_COLUMNS)}, got {column!r}")
    if isinstance(comparisons, MeasuredComparison):
        comparisons = [comparisons]
    comparisons = list(comparisons)
    if not comparisons or not all(isinstance(c, MeasuredComparison) for c in comparisons):
        raise ValueError("comparisons must be MeasuredComparison records")
    first = comparisons[0]
    if any((c.names, c.budget, c.factor) != (first.names, first.budget, first.factor) for c in comparisons):
        raise ValueError("comparisons must share their landscapes, budget and goal")
    labels = labels or {}
    rows = []
    for c in comparisons:
        for s in c.strategies:
            cells = []
            for name in c.names:
                iv = c.cell(name, s)
                if column == "median":
                    cells.append(fmt_interval(iv))
                else:
                    cells.append(fmt_interval(Interval(iv.reached, iv.reached_low, iv.reached_high), percent=True))
            rows.append((strategy_label(s), fmt_whole(len(c.seeds)), *cells))
    headers = ("策略", "种子") + tuple(labels.get(name, name) for name in first.names)
    title = (
        f"测多少次，相信的最优才真的在 {fmt_percent(first.factor - 1)} 以内（预算 {first.budget}）："
        + TRIALS_COLUMNS[column].format(missing=MISSING)
    )
    return Table(title, headers, rows)
