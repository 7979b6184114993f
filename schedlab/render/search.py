"""Tables of the search chapter: tuning strategies compared (:mod:`schedlab.tuning`)."""

from __future__ import annotations

from schedlab.core.checks import check_int, check_real
from schedlab.core.stats import Interval
from schedlab.render.labels import CONFIG_HEADER, fmt_shape, lecture_short, shape_short, strategy_label
from schedlab.render.table import MISSING, Table, fmt_config, fmt_percent, fmt_ratio, fmt_trials
from schedlab.tuning.compare import Comparison, LocalOptima

__all__ = [
    "fmt_reach",
    "search_table",
    "search_shape_table",
    "search_summary_table",
    "local_optima_table",
    "descent_table",
]


def fmt_reach(fraction) -> str:
    """A share of seeds as a whole percentage, never rounded up to 100 % or down to 0 %.

    Examples
    --------
    >>> fmt_reach(0.7), fmt_reach(0.9966), fmt_reach(0.004)
    ('70%', '99.7%', '0.4%')
    """
    x = check_real(fraction, "fraction")
    text = fmt_percent(x)
    if (text == "100%" and x < 1) or (text == "0%" and x > 0):
        text = fmt_percent(x, 1)
    return text


def _trials_cell(cell: Interval) -> str:
    """``median / p90 (reached)``, joined by no-break spaces so a narrow HTML column keeps it on one line."""
    return "\u00a0".join((fmt_trials(cell.estimate), "/", fmt_trials(cell.p90), f"({fmt_reach(cell.reached)})"))


def _goal(comparison: Comparison) -> str:
    return fmt_percent(comparison.factor - 1, None)


def _setting(comparison: Comparison) -> str:
    return f"{len(comparison.seeds)} 个种子，每次预算 {comparison.budget} 次测量，测量噪声 {fmt_percent(comparison.noise, None)}"


def _check_comparison(comparison) -> Comparison:
    if not isinstance(comparison, Comparison):
        raise ValueError(f"comparison must be a schedlab.tuning.compare.Comparison, got {type(comparison).__name__}")
    return comparison


def search_table(comparison: Comparison, shapes=None) -> Table:
    """Measurements until the believed-best config is within ``factor`` of the optimum.

    One row per strategy, one column per shape (default: every shape of the comparison).
    Shapes may be given as ``Shape``, ``(M, N, K)`` or an index into ``comparison.shapes``;
    the header names them as the comparison does.
    A cell is ``median / p90 (share reached)`` over the seeds: the median and the 90 %
    order statistic of the measurement count, and the share of seeds that get there
    within the budget. ``—`` means fewer than half (median) or fewer than nine in ten
    (p90) of the seeds got there.

    Examples
    --------
    >>> from schedlab.tuning.compare import compare
    >>> c = compare([(4096, 4096, 4096)], ["exhaustive", "model"], seeds=range(10), budget=100)
    >>> t = search_table(c)
    >>> t.headers
    ('策略', '4096×4096×4096')
    >>> t.rows
    (('按列表穷举', '—\xa0/\xa0—\xa0(0%)'), ('代价模型引导', '18\xa0/\xa021\xa0(100%)'))
    """
    comparison = _check_comparison(comparison)
    # as the comparison names them (a Shape's short name), whether given as Shape, (M, N, K) or index
    shapes = (
        comparison.shapes if shapes is None else tuple(comparison.shapes[comparison.shape_index(s)] for s in shapes)
    )
    rows = [
        (strategy_label(name),) + tuple(_trials_cell(comparison.cell(s, name)) for s in shapes)
        for name in comparison.strategies
    ]
    title = (
        f"测多少次，相信的最优配置才真的在最优的 {_goal(comparison)} 以内（{_setting(comparison)}）。"
        f"每格：中位数 / 90% 分位数 (预算内到达的种子比例)；{MISSING} 表示到达的种子不到一半或不到九成"
    )
    return Table(title, ("策略",) + tuple(shape_short(s) for s in shapes), rows)


def search_shape_table(comparison: Comparison, shape) -> Table:
    """:func:`search_table` for one shape, one column per statistic.

    Examples
    --------
    >>> from schedlab.tuning.compare import compare
    >>> c = compare([(16, 4096, 4096)], ["exhaustive", "random"], seeds=range(10), budget=100)
    >>> t = search_shape_table(c, (16, 4096, 4096))
    >>> t.headers
    ('策略', '中位数', '90% 分位数', '预算内到达')
    >>> t.rows[0]
    ('按列表穷举', '100', '100', '100%')
    """
    comparison = _check_comparison(comparison)
    rows = []
    for name in comparison.strategies:
        cell = comparison.cell(shape, name)
        rows.append((strategy_label(name), fmt_trials(cell.estimate), fmt_trials(cell.p90), fmt_reach(cell.reached)))
    title = (
        f"{fmt_shape(shape)}：测多少次才到最优的 {_goal(comparison)} 以内（{_setting(comparison)}）；"
        f"{MISSING} 表示到达的种子不到一半（中位数）或不到九成（90% 分位数）"
    )
    return Table(title, ("策略", "中位数", "90% 分位数", "预算内到达"), rows)


def search_summary_table(comparison: Comparison, groups) -> Table:
    """:func:`search_table` summarised over groups of shapes (:meth:`Comparison.summary`).

    ``groups`` maps a column label to the shapes it summarises. A cell is the median over
    the group's shapes of the per-shape medians, the same of the per-shape p90s, and (in
    brackets) the mean share of seeds that got there.

    Examples
    --------
    >>> from schedlab.tuning.compare import compare
    >>> shapes = [(16, 4096, 4096), (1, 4096, 4096)]
    >>> c = compare(shapes, ["exhaustive"], seeds=range(5), budget=100)
    >>> search_summary_table(c, {"decode": shapes}).rows
    (('按列表穷举', '100\xa0/\xa0100\xa0(100%)'),)
    """
    comparison = _check_comparison(comparison)
    groups = {str(label): tuple(shapes) for label, shapes in dict(groups).items()}
    if not groups or not all(groups.values()):
        raise ValueError("groups must map each label to at least one shape")
    rows = [
        (strategy_label(name),) + tuple(_trials_cell(comparison.summary(name, shapes)) for shapes in groups.values())
        for name in comparison.strategies
    ]
    title = (
        f"各组形状上的汇总（{_setting(comparison)}）。每格：各形状中位数的中位数 / "
        f"各形状 90% 分位数的中位数 (平均到达比例)；{MISSING} 表示过半的形状没到"
    )
    return Table(title, ("策略",) + tuple(groups), rows)


def local_optima_table(local_optima: LocalOptima, k: int = 5) -> Table:
    """The ``k`` local optima where most single coordinate descents stopped, most frequent first.

    Examples
    --------
    >>> from schedlab.tuning.compare import descent_local_optima
    >>> t = local_optima_table(descent_local_optima((4096, 4096, 4096), seeds=range(100)), k=1)
    >>> t.headers
    ('局部最优 (BM, BN, BK, warps, stages, GROUP_M)', '时间 / 最优', '停在这里的次数')
    >>> t.rows
    (('(256, 64, 16, 4, 5, 8)', '1.53', '4'),)
    """
    if not isinstance(local_optima, LocalOptima):
        raise ValueError(
            f"local_optima must be a schedlab.tuning.compare.LocalOptima, got {type(local_optima).__name__}"
        )
    check_int("k", k, minimum=1)
    lo = local_optima
    rows = [(fmt_config(cfg), fmt_ratio(r), str(n)) for cfg, r, n in lo.where[:k]]
    title = (
        f"{fmt_shape(lo.shape)}：{lo.runs} 次坐标下降（随机起点、不重启）里 {lo.bad} 次停在离最优超过 "
        f"{fmt_percent(lo.factor - 1, None)} 的局部最优，共 {len(lo.where)} 个不同的点；最常见的 {len(rows)} 个"
    )
    return Table(title, (f"局部最优 {CONFIG_HEADER}", "时间 / 最优", "停在这里的次数"), rows)


def descent_table(local_optima) -> Table:
    """Per shape: how often a single coordinate descent gets stuck, at how many points, at what cost.

    ``local_optima`` is a sequence of :class:`~schedlab.tuning.compare.LocalOptima`, one per shape.

    Examples
    --------
    >>> from schedlab.tuning.compare import descent_local_optima
    >>> t = descent_table([descent_local_optima(s, seeds=range(100)) for s in [(16, 4096, 4096), (8, 8, 8)]])
    >>> t.headers
    ('形状', '卡住的比例', '不同的局部最优', '一次下降的测量')
    >>> t.rows[0]
    ('decode 16', '6%', '4', '28.1')
    >>> t.rows[1][0]
    '8×8×8'
    """
    records = tuple(local_optima)
    for lo in records:
        if not isinstance(lo, LocalOptima):
            raise ValueError(f"local_optima must hold schedlab.tuning.compare.LocalOptima, got {type(lo).__name__}")
    rows = [
        (lecture_short(lo.shape), fmt_percent(lo.rate), str(len(lo.where)), f"{lo.mean_measurements:.1f}")
        for lo in records
    ]
    factor = fmt_percent(records[0].factor - 1, None) if records else ""
    title = (
        f"一次坐标下降（随机起点、不重启、不限预算）停在离最优超过 {factor} 的局部最优的比例，"
        "那些局部最优有几个，一次下降平均花几次测量"
    )
    return Table(title, ("形状", "卡住的比例", "不同的局部最优", "一次下降的测量"), rows)
