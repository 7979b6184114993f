"""Tables of the search chapter's statistics: intervals, paired tests, Triton's config lists.

Each function takes computed results (a comparison, sign tests, measured lists) and
returns a :class:`schedlab.render.table.Table` of short strings; the numbers come from
:mod:`schedlab.core.stats`, :mod:`schedlab.tuning.tuners` and :mod:`schedlab.triton.configs`.
"""

from __future__ import annotations

import numpy as np

from schedlab.core.landscape import landscape
from schedlab.core.stats import bootstrap_interval, holm, reach_interval, sign_test
from schedlab.render.labels import shape_short, strategy_label
from schedlab.render.table import MISSING, Table, fmt_config, fmt_interval, fmt_percent, fmt_ratio
from schedlab.studies.landscapes import good_set, optimum_at_box_corner
from schedlab.triton.configs import ListResult

__all__ = ["MISSING_NOTE", "interval_table", "median_table", "sign_table", "list_table", "landscape_table"]

#: What a missing number means in a trials interval, said once in every table that can show one.
MISSING_NOTE = (
    f"{MISSING} 表示无穷：中位数是 {MISSING}，过半的种子在预算内没到；区间上端是 {MISSING}，"
    "重抽的种子里有足够多次中位数没到（这时只能说“至少这么多”）"
)


def _trials(comparison, shape, strategy) -> np.ndarray:
    return comparison.trials[comparison.shape_index(shape), comparison.strategy_index(strategy)]


def _used(used: np.ndarray, budget: int) -> str:
    """Measurements the runs used: the budget if every run spent it, else ``median (min–max)``."""
    if (used == budget).all():
        return str(budget)
    return f"{int(np.median(used))}\u00a0({used.min()}–{used.max()})"


def interval_table(comparison, shape, strategies=None) -> Table:
    """Median and p90 of trials-to-goal with bootstrap 95 % intervals, reach with its exact interval, measurements used.

    Rows in the order given (default: the comparison's), sorted by nothing: the
    intervals, not the order of the rows, say which differences are real. The reach interval is
    Clopper--Pearson (:func:`~schedlab.core.stats.reach_interval`); the last column is the
    measurements each run used, so a tuner that stopped before its budget shows it.
    """
    names = comparison.strategies if strategies is None else tuple(strategies)
    i = comparison.shape_index(shape)
    rows = []
    for name in names:
        t = _trials(comparison, shape, name)
        rows.append(
            (
                strategy_label(name),
                fmt_interval(comparison.cell(shape, name)),
                fmt_interval(bootstrap_interval(t, "p90")),
                fmt_interval(reach_interval(t), percent=True),
                _used(comparison.used[i, comparison.strategy_index(name)], comparison.budget),
            )
        )
    goal = fmt_percent(comparison.factor - 1, None)
    title = (
        f"{shape_short(comparison.shapes[i])}：测多少次，相信的最优才真的在 {goal} 以内"
        f"（{len(comparison.seeds)} 个种子，预算 {comparison.budget}）。中位数和 90% 分位数：估计 [95% 自助法区间]；"
        f"到达比例：估计 [95% 精确区间（Clopper–Pearson）]；用掉的测量：每次都用满预算时就是预算，否则是"
        f"中位数（最少–最多）。{MISSING_NOTE}"
    )
    return Table(title, ("策略", "中位数", "90% 分位数", "到达比例", "用掉的测量"), rows)


def median_table(comparison, shapes, strategies=None) -> Table:
    """The median of trials-to-goal with its bootstrap 95 % interval: one row per strategy, one column per shape."""
    names = comparison.strategies if strategies is None else tuple(strategies)
    shapes = tuple(comparison.shapes[comparison.shape_index(s)] for s in shapes)
    rows = [(strategy_label(name),) + tuple(fmt_interval(comparison.cell(s, name)) for s in shapes) for name in names]
    title = f"中位数 [95% 自助法区间]（{len(comparison.seeds)} 个种子，预算 {comparison.budget}）。{MISSING_NOTE}"
    return Table(title, ("策略",) + tuple(shape_short(s) for s in shapes), rows)


def sign_table(comparison, shape, pairs, level: float = 0.05) -> Table:
    """Paired sign tests on the same seeds, with Holm-adjusted p-values over all of ``pairs``.

    For each ``(a, b)``: who needed fewer trials on how many seeds, the test's own p-value, and
    its p-value adjusted for every comparison in the table (:func:`~schedlab.core.stats.holm`):
    a difference is called real only where the adjusted p is below ``level``.
    """
    tests = [sign_test(_trials(comparison, shape, a), _trials(comparison, shape, b)) for a, b in pairs]
    adjusted = holm([st.p_value for st in tests])
    rows = []
    for (a, b), st, p in zip(pairs, tests, adjusted):
        rows.append(
            (
                strategy_label(a),
                strategy_label(b),
                str(st.wins),
                str(st.losses),
                str(st.ties),
                f"{st.p_value:.2g}",
                f"{p:.2g}",
                "是" if p < level else "否",
            )
        )
    title = (
        f"同一批种子上两两比较（符号检验，双侧）：各自用的次数更少的种子数，p 值，和按这 {len(pairs)} 个比较做 Holm "
        f"校正后的 p 值；校正后 p < {level:g} 才算真的有差别"
    )
    return Table(title, ("A", "B", "A 更少", "B 更少", "一样", "p", "p（Holm）", f"< {level:g}"), rows)


def list_table(results) -> Table:
    """Config lists measured whole: cost, the list's best, and what the tuner keeps over seeds.

    ``results`` maps a row label to a :class:`~schedlab.triton.configs.ListResult`.
    """
    rows = []
    for name, r in results.items():
        if not isinstance(r, ListResult):
            raise ValueError(f"results must map labels to ListResult, got {type(r).__name__} for {name!r}")
        med = float(np.median(r.ratios))
        rows.append(
            (
                name,
                str(r.n_listed),
                str(r.n_launchable),
                fmt_ratio(r.best_ratio),
                fmt_ratio(med),
                fmt_percent(r.reached()),
            )
        )
    return Table(
        "整张列表测一遍：列了几个、能启动几个（就是测量次数）、列表里最好的 / 最优，和噪声下留下的那个 / 最优",
        ("列表", "列出", "能启动（测量）", "列表最好", "留下的（中位数）", "在 5% 以内的种子"),
        rows,
    )


def landscape_table(groups) -> Table:
    """Groups of shapes sharing a good set (:func:`schedlab.studies.landscapes.distinct_landscapes`), one row each.

    Examples
    --------
    >>> from schedlab.core.shapes import LECTURE_SHAPES
    >>> from schedlab.studies.landscapes import distinct_landscapes
    >>> t = landscape_table(distinct_landscapes(LECTURE_SHAPES))
    >>> [row[1:] for row in t.rows]
    [('15', '(256, 128, 32, 8, 4, 1)', '是'), ('162', '(16, 16, 128, 1, 4, 1)', '是')]
    """
    rows = []
    for group in groups:
        best = landscape(group[0]).best
        rows.append(
            (
                "、".join(shape_short(s) for s in group),
                str(len(good_set(group[0]))),
                fmt_config(best),
                "是" if optimum_at_box_corner(group[0]) else "否",
            )
        )
    return Table(
        "好配置集合相同的形状算一种地形：每行一种（好配置 = 离最优 5% 以内）",
        ("形状", "好配置个数", "最优（之一）", "最优在角上"),
        rows,
    )
