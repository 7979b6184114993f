"""Tables of the four demos (the space, the landscape, shapes, one knob at a time) and of
:func:`schedlab.core.model.explain` (where one configuration's time goes).
"""

from __future__ import annotations

import math

from schedlab.core.landscape import Landscape, TieGroup
from schedlab.core.model import TERMS, Breakdown
from schedlab.core.space import SPACE
from schedlab.render.labels import CONFIG_HEADER, KNOB_LABELS, KNOB_SHORT, fmt_shape, shape_name, shape_short
from schedlab.render.table import MISSING, Table, fmt_config, fmt_percent, fmt_ratio, fmt_tflops, fmt_time
from schedlab.studies.sensitivity import Sensitivity
from schedlab.studies.shapes import Transfer
from schedlab.studies.space import SpaceSummary

__all__ = [
    "knob_table",
    "reasons_table",
    "fmt_ties",
    "top_table",
    "quantiles_table",
    "optima_table",
    "transfer_table",
    "sensitivity_table",
    "sensitivity_grid",
    "breakdown_table",
    "breakdown_summary_table",
]


# --- demo 1: the space --------------------------------------------------------------------

_KNOB_ROWS = (  # (label, knobs, meaning, what it corresponds to in the course)
    ("BLOCK_M × BLOCK_N", ("bm", "bn"), "每个程序实例（线程块）算 C 的多大一块", "第 10 讲 §6、§8"),
    ("BLOCK_K", ("bk",), "每一步沿 K 读多少", "共享内存、流水线每级的大小"),
    ("num_warps", ("warps",), "每个块几个 warp（warp 排成网格，各算一个子块）", "warp 分块、Tensor Core 的利用"),
    ("num_stages", ("stages",), "共享内存里几级流水线", "第 10 讲 §8.4 的 Little 定律"),
    ("GROUP_M", ("group",), "块的启动顺序（L2 分组）", "第 10 讲 §10.2"),
)


def _values(knob: str) -> str:
    return " / ".join(map(str, SPACE[knob]))


def knob_table() -> Table:
    """The knobs of a Triton-style matmul kernel and their values (read from ``SPACE``).

    Examples
    --------
    >>> t = knob_table()
    >>> t.headers
    ('参数', '含义', '取值', '对应')
    >>> t.rows[0][2]
    '16 / 32 / 64 / 128 / 256（两维各取）'
    >>> t.column("取值")[3]
    '1 / 2 / 3 / 4 / 5'
    """
    rows = []
    for label, knobs, meaning, where in _KNOB_ROWS:
        if len(knobs) == 1:
            values = _values(knobs[0])
        elif all(SPACE[k] == SPACE[knobs[0]] for k in knobs):
            values = _values(knobs[0]) + "（两维各取）"
        else:
            values = "；".join(f"{KNOB_LABELS[k]}: {_values(k)}" for k in knobs)
        rows.append((label, meaning, values, where))
    return Table("调度的旋钮（Triton 的元参数）", ("参数", "含义", "取值", "对应"), rows)


def reasons_table(summary: SpaceSummary) -> Table:
    """Why configurations cannot launch, most frequent reason first.

    Examples
    --------
    >>> from schedlab import space_summary
    >>> reasons_table(space_summary()).rows[0]
    ('每线程寄存器超过 255', '1200')
    """
    rows = [(reason.message, str(n)) for reason, n in summary.reason_counts]
    return Table("不能启动的原因（一个配置可能有几个）", ("原因", "配置数"), rows)


# --- demo 2: the landscape ----------------------------------------------------------------


def fmt_ties(group: TieGroup) -> str:
    """The configurations tied in one group: how many, and the knob values they take.

    ``"—"`` for a group of one. Knobs that combine freely get one ``∈ {…}`` each; knobs tied only
    in some combinations are listed together as value tuples.

    Examples
    --------
    >>> from schedlab import landscape
    >>> fmt_ties(landscape((4096, 4096, 4096)).tie_groups(1)[0])
    '15 个：(BK, stages) ∈ {(32, 4), (32, 5), (64, 3), (64, 4), (128, 2)}；GROUP_M ∈ {1, 4, 8}'
    """
    if len(group.configs) == 1:
        return MISSING
    parts = []
    for knobs, values in group.varying():
        if len(knobs) == 1:
            parts.append(f"{KNOB_SHORT[knobs[0]]} ∈ {{{', '.join(str(v[0]) for v in values)}}}")
        else:
            names = ", ".join(KNOB_SHORT[k] for k in knobs)
            parts.append(f"({names}) ∈ {{{', '.join(str(v) for v in values)}}}")
    return f"{len(group.configs)} 个：" + "；".join(parts)


def top_table(land: Landscape, k: int = 6) -> Table:
    """The ``k`` fastest distinct times of a landscape, one row per group of exact ties.

    A row names the group's first configuration in ``SPACE`` order (the one ``argmin`` picks)
    and, in 并列, every other configuration with the same model time (:func:`fmt_ties`).

    Examples
    --------
    >>> from schedlab import landscape
    >>> t = top_table(landscape((16, 4096, 4096)), k=1)
    >>> t.title
    '16×4096×4096 上最快的 1 个时间（共 3744 个能启动的配置；同一时间的并列配置合成一行）'
    >>> t.rows[0][0], t.rows[0][2:]
    ('(16, 16, 128, 1, 4, 1)', ('10.9 µs', '49', '1.000'))
    """
    groups = land.tie_groups(k)
    rows = [
        (fmt_config(g.first), fmt_ties(g), fmt_time(g.time_s), fmt_tflops(g.tflops), fmt_ratio(g.ratio, 3))
        for g in groups
    ]
    title = (
        f"{fmt_shape(land.shape)} 上最快的 {len(rows)} 个时间（共 {len(land.configs)} 个能启动的配置；"
        "同一时间的并列配置合成一行）"
    )
    return Table(title, (CONFIG_HEADER, "并列", "时间", "TFLOPS", "相对最快"), rows)


def quantiles_table(land: Landscape) -> Table:
    """Percentiles of time/best over a landscape's launchable configurations.

    Examples
    --------
    >>> from schedlab import landscape
    >>> quantiles_table(landscape((4096, 4096, 4096))).headers
    ('分位数', '10%', '25%', '50%', '75%', '90%')
    """
    q = land.quantiles()
    return Table(
        f"{fmt_shape(land.shape)}：时间 / 最快 的分位数",
        ("分位数",) + tuple(f"{p}%" for p in q),
        [("相对最快",) + tuple(fmt_ratio(v) for v in q.values())],
    )


# --- demo 3: shapes -----------------------------------------------------------------------


def optima_table(tr: Transfer) -> Table:
    """Each shape's optimum with its time and TFLOP/s.

    Examples
    --------
    >>> from schedlab import transfer
    >>> t = optima_table(transfer())
    >>> t.headers
    ('形状', 'M×N×K', '最优配置', '时间', 'TFLOPS')
    >>> t.rows[3][:3]
    ('decode 批 16 × 4096² 的投影', '16×4096×4096', '(16, 16, 128, 1, 4, 1)')
    """
    rows = [
        (shape_name(s), fmt_shape(s), fmt_config(c), fmt_time(t), fmt_tflops(tf))
        for s, c, t, tf in zip(tr.shapes, tr.optima, tr.best_time_s, tr.best_tflops)
    ]
    return Table("每种形状各自的最优配置", ("形状", "M×N×K", "最优配置", "时间", "TFLOPS"), rows)


def transfer_table(tr: Transfer) -> Table:
    """Row ``i``'s optimum used on column ``j``'s shape, relative to column ``j``'s own best.

    Examples
    --------
    >>> from schedlab import transfer
    >>> t = transfer_table(transfer())
    >>> t.headers
    ('最优配置来自 \\\\ 用在', '方阵 4096³', 'prefill 512', '小方阵 K=512', 'decode 16')
    >>> t.rows[0]
    ('方阵 4096³', '1.00', '1.00', '1.00', '3.37')
    """
    names = [shape_short(s) for s in tr.shapes]
    rows = [(name,) + tuple(fmt_ratio(r) for r in row) for name, row in zip(names, tr.matrix)]
    return Table(
        "把每一行形状的最优配置用在每一列的形状上（相对那一列自己的最优）", ("最优配置来自 \\ 用在", *names), rows
    )


# --- demo 4: one knob at a time -----------------------------------------------------------


def sensitivity_table(sens: Sensitivity) -> Table:
    """Time/base for each value of each knob, the others held at the base configuration.

    A cell is ``value:ratio``; ``—`` means the changed configuration cannot launch and
    ``*`` marks the base configuration's own value.

    Examples
    --------
    >>> from schedlab import sensitivity
    >>> t = sensitivity_table(sensitivity((4096, 4096, 4096)))
    >>> t.rows[0]
    ('BLOCK_M', '16:—  32:—  64:2.52  128:1.48  256:1.00*')
    """
    base = dict(zip(SPACE, sens.base.as_tuple()))
    rows = []
    for knob, cells in sens.ratios.items():
        text = "  ".join(f"{v}:{fmt_ratio(r)}" + ("*" if v == base[knob] else "") for v, r in cells)
        rows.append((KNOB_LABELS.get(knob, knob), text))
    title = (
        f"{fmt_shape(sens.shape)}：在 {fmt_config(sens.base)}（{fmt_time(sens.base_time_s)}）附近一次只改一个参数；"
        f"每格是\u201c取值:相对的时间\u201d，{MISSING} 表示不能启动，* 是原配置的取值"
    )
    return Table(title, ("参数", "取值 : 时间比"), rows)


def sensitivity_grid(sens: Sensitivity) -> Table:
    """The one-knob sweep as a grid: a row per knob, a column per knob value (blank where a knob
    does not take that value), each cell the time over the base; ``*`` marks the base's own value.

    Examples
    --------
    >>> from schedlab import sensitivity
    >>> t = sensitivity_grid(sensitivity((4096, 4096, 4096)))
    >>> t.headers[:6]
    ('参数', '1', '2', '3', '4', '5')
    >>> dict(zip(t.headers, t.rows[3]))["8"]
    '1.00*'
    """
    base = dict(zip(SPACE, sens.base.as_tuple()))
    values = sorted({v for cells in sens.ratios.values() for v, _ in cells})
    rows = []
    for knob, cells in sens.ratios.items():
        by_value = {v: fmt_ratio(r) + ("*" if v == base[knob] else "") for v, r in cells}
        rows.append((KNOB_LABELS.get(knob, knob),) + tuple(by_value.get(v, "") for v in values))
    title = (
        f"{fmt_shape(sens.shape)}：在 {fmt_config(sens.base)}（{fmt_time(sens.base_time_s)}）附近一次只改一个参数，"
        f"时间相对原配置；{MISSING} 表示不能启动，* 是原配置的取值，空格是这个参数没有的取值"
    )
    return Table(title, ("参数",) + tuple(str(v) for v in values), rows)


# --- explain: where the time goes ---------------------------------------------------------


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)


def breakdown_table(bd: Breakdown) -> Table:
    """The six per-k-step terms of the first wave, their share of the step, and the bottleneck.

    The step is the largest term (or, with one stage, latency plus the largest other term),
    so a share is ``term / step``; terms equal to the bottleneck are marked as ties.

    Examples
    --------
    >>> from schedlab import explain, GemmConfig
    >>> best = GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1)
    >>> t = breakdown_table(explain(best, 4096, 4096, 4096))
    >>> t.headers
    ('项', '含义', '每步时间', '占一步', '')
    >>> t.rows[0]
    ('t_tc_s', 'Tensor Core 计算', '280 ns', '100%', '◀ 瓶颈')
    >>> t.rows[1][-1]
    '= 瓶颈（持平）'
    """
    terms = bd.terms()
    worst = terms[bd.bottleneck]
    rows = []
    for name, label in TERMS.items():
        t = terms[name]
        if name == bd.bottleneck:
            mark = "◀ 瓶颈"
        elif _same(t, worst):
            mark = "= 瓶颈（持平）"
        else:
            mark = ""
        rows.append((name, label, fmt_time(t), fmt_percent(t / bd.t_step_s), mark))
    title = (
        f"{fmt_config(bd.config)} 在 {fmt_shape(bd.shape)} 上：每个 k 步 {fmt_time(bd.t_step_s)}，"
        f"瓶颈是\u201c{TERMS[bd.bottleneck]}\u201d"
    )
    return Table(title, ("项", "含义", "每步时间", "占一步", ""), rows)


def breakdown_summary_table(bd: Breakdown) -> Table:
    """Grid, occupancy, waves and the whole time of one configuration on one shape.

    Examples
    --------
    >>> from schedlab import explain, GemmConfig
    >>> best = GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1)
    >>> t = breakdown_summary_table(explain(best, 4096, 4096, 4096))
    >>> dict(t.rows)["波数"], dict(t.rows)["总时间"], dict(t.rows)["TFLOPS"]
    ('4', '149.0 µs', '922')
    """
    rows = [
        ("块数（网格）", str(bd.blocks)),
        ("每个 SM 驻留的块", str(bd.blocks_per_sm)),
        ("波数", str(bd.waves)),
        ("k 步数", str(bd.k_steps)),
        ("每步时间（第一波）", fmt_time(bd.t_step_s)),
        ("流水线填充（各波合计）", fmt_time(bd.fill_s)),
        ("收尾写 C（各波合计）", fmt_time(bd.epilogue_s)),
        ("HBM 流量", f"{bd.bytes_hbm / 2**20:.1f} MiB"),
        ("总时间", fmt_time(bd.time_s)),
        ("TFLOPS", fmt_tflops(bd.tflops)),
    ]
    return Table(f"{fmt_config(bd.config)} 在 {fmt_shape(bd.shape)} 上", ("量", "值"), rows)
