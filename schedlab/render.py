"""Tables of the lecture's analyses: every number is formatted here, once.

Each function takes what :mod:`schedlab.analysis` (or :func:`schedlab.model.explain`)
returns and gives a :class:`Table` of strings. The console edition prints these
tables (:func:`schedlab.console.print_render_table`) and the book renders them with
:meth:`Table.to_html`, so both show the same digits.

Examples
--------
>>> from schedlab import landscape
>>> t = top_table(landscape((4096, 4096, 4096)), k=2)
>>> t.headers
('(BM, BN, BK, warps, stages, GROUP_M)', '并列', '时间', 'TFLOPS', '相对最快')
>>> t.rows[0][0], t.rows[0][2:]
('(256, 128, 32, 8, 4, 1)', ('149.0 µs', '922', '1.000'))
"""

from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass, fields

from .analysis import LECTURE_SHAPES, Landscape, Sensitivity, Shape, SpaceSummary, TieGroup, Transfer, as_mnk
from .hardware import H100_SOURCES, H100_TC, Hardware, KiB, MiB
from .model import TERMS, Breakdown
from .compare import CellSummary, Comparison, LocalOptima
from .space import SPACE, GemmConfig

__all__ = [
    "Table",
    "KNOB_LABELS",
    "fmt_time",
    "fmt_config",
    "fmt_shape",
    "fmt_tflops",
    "fmt_ratio",
    "fmt_percent",
    "shape_name",
    "shape_short",
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
    "hardware_table",
    "claims_table",
    "STRATEGY_LABELS",
    "fmt_trials",
    "search_table",
    "search_shape_table",
    "search_summary_table",
    "local_optima_table",
    "descent_table",
]

#: Knob key of ``SPACE`` -> the name a Triton user knows it by.
KNOB_LABELS = {
    "bm": "BLOCK_M",
    "bn": "BLOCK_N",
    "bk": "BLOCK_K",
    "warps": "num_warps",
    "stages": "num_stages",
    "group": "GROUP_M",
}

#: Placeholder for "no number": a configuration that cannot launch, an infinite time.
MISSING = "—"

_CONFIG_HEADER = "(BM, BN, BK, warps, stages, GROUP_M)"


# --- the record ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A formatted table: a title, column headers and rows, all strings.

    Parameters
    ----------
    title : str
        One line saying what the table shows (may be empty).
    headers : tuple of str
        Column headers.
    rows : tuple of tuple of str
        Cells; every row has one cell per header. Lists are converted to tuples.

    Raises
    ------
    ValueError
        If a cell or header is not a ``str`` or a row's length differs from the headers'.

    Examples
    --------
    >>> t = Table("例子", ("a", "b"), [("1", "<2>")])
    >>> t.rows
    (('1', '<2>'),)
    >>> Table("bad", ("a", "b"), [("1",)])
    Traceback (most recent call last):
    ...
    ValueError: row 0 has 1 cells, expected 2 (one per header)
    """

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def __post_init__(self):
        if not isinstance(self.title, str):
            raise ValueError(f"title must be a str, got {type(self.title).__name__}")
        headers = tuple(self.headers)
        rows = tuple(tuple(row) for row in self.rows)
        for h in headers:
            if not isinstance(h, str):
                raise ValueError(f"headers must be str, got {h!r}")
        for i, row in enumerate(rows):
            if len(row) != len(headers):
                raise ValueError(f"row {i} has {len(row)} cells, expected {len(headers)} (one per header)")
            for cell in row:
                if not isinstance(cell, str):
                    raise ValueError(f"row {i}: cells must be str (format them in schedlab.render), got {cell!r}")
        object.__setattr__(self, "headers", headers)
        object.__setattr__(self, "rows", rows)

    def column(self, header: str) -> tuple[str, ...]:
        """The cells under ``header``.

        Examples
        --------
        >>> Table("", ("a", "b"), [("1", "2"), ("3", "4")]).column("b")
        ('2', '4')
        """
        j = self.headers.index(header)
        return tuple(row[j] for row in self.rows)

    def to_html(self) -> str:
        """A plain ``<table>`` (title as ``<caption>``), every string HTML-escaped.

        Examples
        --------
        >>> print(Table("x<y", ("a",), [("&",)]).to_html())
        <table>
        <caption>x&lt;y</caption>
        <thead><tr><th>a</th></tr></thead>
        <tbody>
        <tr><td>&amp;</td></tr>
        </tbody>
        </table>
        """
        esc = html.escape
        lines = ["<table>"]
        if self.title:
            lines.append(f"<caption>{esc(self.title)}</caption>")
        lines.append("<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in self.headers) + "</tr></thead>")
        lines.append("<tbody>")
        lines.extend("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in self.rows)
        lines.append("</tbody>")
        lines.append("</table>")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """Jupyter shows a Table left as a cell's last expression as :meth:`to_html`."""
        return self.to_html()


# --- numbers ------------------------------------------------------------------------------

# (unit, seconds per unit, decimals), smallest first
_TIME_UNITS = (("ns", 1e-9, 0), ("µs", 1e-6, 1), ("ms", 1e-3, 2), ("s", 1.0, 2))


def _real(x, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise ValueError(f"{what} must be a real number, got {x!r} ({type(x).__name__})")
    return float(x)


def fmt_time(seconds) -> str:
    """A duration for people: ns without decimals, µs with one, ms and s with two.

    ``inf`` (a configuration that cannot launch) and NaN give ``"—"``.

    Parameters
    ----------
    seconds : float
        Time in seconds (numpy scalars are fine).

    Examples
    --------
    >>> fmt_time(149.04e-6), fmt_time(1.2345e-3), fmt_time(850e-9), fmt_time(float("inf"))
    ('149.0 µs', '1.23 ms', '850 ns', '—')
    >>> fmt_time(0.99996e-3), fmt_time(2.5), fmt_time(0)
    ('1.00 ms', '2.50 s', '0 ns')
    """
    s = _real(seconds, "seconds")
    if not math.isfinite(s):
        return MISSING
    for i, (unit, scale, decimals) in enumerate(_TIME_UNITS):
        value = round(abs(s) / scale, decimals)
        if value < 1000 or i == len(_TIME_UNITS) - 1:  # rounding up to 1000 moves to the next unit
            return f"{math.copysign(value, s) if s < 0 else value:.{decimals}f} {unit}"
    raise AssertionError("unreachable")


def fmt_tflops(tflops) -> str:
    """TFLOP/s without decimals (the model's absolute numbers deserve no more).

    Examples
    --------
    >>> fmt_tflops(922.108), fmt_tflops(float("nan"))
    ('922', '—')
    """
    x = _real(tflops, "tflops")
    return f"{x:.0f}" if math.isfinite(x) else MISSING


def fmt_ratio(ratio, decimals: int = 2) -> str:
    """A time ratio such as ``3.37``; ``"—"`` for ``inf`` (cannot launch).

    Examples
    --------
    >>> fmt_ratio(3.3714), fmt_ratio(1.0, 3), fmt_ratio(float("inf"))
    ('3.37', '1.000', '—')
    """
    x = _real(ratio, "ratio")
    return f"{x:.{decimals}f}" if math.isfinite(x) else MISSING


def fmt_percent(fraction, decimals: int = 0) -> str:
    """A fraction as a percentage.

    Examples
    --------
    >>> fmt_percent(0.624), fmt_percent(0.9321, 1)
    ('62%', '93.2%')
    """
    x = _real(fraction, "fraction")
    return f"{100 * x:.{decimals}f}%" if math.isfinite(x) else MISSING


def fmt_config(cfg: GemmConfig) -> str:
    """A configuration as its knob tuple, in ``SPACE`` order.

    Examples
    --------
    >>> fmt_config(GemmConfig(256, 128, 32, 8, 4, 1))
    '(256, 128, 32, 8, 4, 1)'
    """
    if not isinstance(cfg, GemmConfig):
        raise ValueError(f"cfg must be a GemmConfig, got {type(cfg).__name__}")
    return str(cfg.as_tuple())


def fmt_shape(shape) -> str:
    """``M×N×K`` of a :class:`~schedlab.analysis.Shape` or an ``(M, N, K)`` tuple.

    Examples
    --------
    >>> fmt_shape((512, 14336, 4096))
    '512×14336×4096'
    """
    return "×".join(map(str, as_mnk(shape)))


def shape_name(shape) -> str:
    """The long Chinese description of a lecture shape, else ``M×N×K``.

    Examples
    --------
    >>> from schedlab import LECTURE_SHAPES
    >>> shape_name(LECTURE_SHAPES[3]), shape_name((8, 8, 8))
    ('decode 批 16 × 4096² 的投影', '8×8×8')
    """
    return shape.name if isinstance(shape, Shape) else fmt_shape(shape)


def shape_short(shape) -> str:
    """The short name of a lecture shape (for column headers), else ``M×N×K``.

    Examples
    --------
    >>> from schedlab import LECTURE_SHAPES
    >>> [shape_short(s) for s in LECTURE_SHAPES]
    ['方阵 4096³', 'prefill 512', '小方阵 K=512', 'decode 16']
    """
    return shape.short if isinstance(shape, Shape) else fmt_shape(shape)


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


#: Short knob names, as in the configuration header ``(BM, BN, BK, warps, stages, GROUP_M)``.
_KNOB_SHORT = dict(zip(SPACE, ("BM", "BN", "BK", "warps", "stages", "GROUP_M")))


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
            parts.append(f"{_KNOB_SHORT[knobs[0]]} ∈ {{{', '.join(str(v[0]) for v in values)}}}")
        else:
            names = ", ".join(_KNOB_SHORT[k] for k in knobs)
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
    rows = [(fmt_config(g.first), fmt_ties(g), fmt_time(g.time_s), fmt_tflops(g.tflops), fmt_ratio(g.ratio, 3))
            for g in groups]
    title = (f"{fmt_shape(land.shape)} 上最快的 {len(rows)} 个时间（共 {len(land.configs)} 个能启动的配置；"
             "同一时间的并列配置合成一行）")
    return Table(title, (_CONFIG_HEADER, "并列", "时间", "TFLOPS", "相对最快"), rows)


def quantiles_table(land: Landscape) -> Table:
    """Percentiles of time/best over a landscape's launchable configurations.

    Examples
    --------
    >>> from schedlab import landscape
    >>> quantiles_table(landscape((4096, 4096, 4096))).headers
    ('分位数', '10%', '25%', '50%', '75%', '90%')
    """
    q = land.quantiles()
    return Table(f"{fmt_shape(land.shape)}：时间 / 最快 的分位数", ("分位数",) + tuple(f"{p}%" for p in q),
                 [("相对最快",) + tuple(fmt_ratio(v) for v in q.values())])


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
    rows = [(shape_name(s), fmt_shape(s), fmt_config(c), fmt_time(t), fmt_tflops(tf))
            for s, c, t, tf in zip(tr.shapes, tr.optima, tr.best_time_s, tr.best_tflops)]
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
    return Table("把每一行形状的最优配置用在每一列的形状上（相对那一列自己的最优）",
                 ("最优配置来自 \\ 用在", *names), rows)


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
    title = (f"{fmt_shape(sens.shape)}：在 {fmt_config(sens.base)}（{fmt_time(sens.base_time_s)}）附近一次只改一个参数；"
             f"每格是\u201c取值:相对的时间\u201d，{MISSING} 表示不能启动，* 是原配置的取值")
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
    title = (f"{fmt_shape(sens.shape)}：在 {fmt_config(sens.base)}（{fmt_time(sens.base_time_s)}）附近一次只改一个参数，"
             f"时间相对原配置；{MISSING} 表示不能启动，* 是原配置的取值，空格是这个参数没有的取值")
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
    >>> t = breakdown_table(explain(GemmConfig(256, 128, 32, 8, 4, 1), 4096, 4096, 4096))
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
    title = (f"{fmt_config(bd.config)} 在 {fmt_shape(bd.shape)} 上：每个 k 步 {fmt_time(bd.t_step_s)}，"
             f"瓶颈是\u201c{TERMS[bd.bottleneck]}\u201d")
    return Table(title, ("项", "含义", "每步时间", "占一步", ""), rows)


def breakdown_summary_table(bd: Breakdown) -> Table:
    """Grid, occupancy, waves and the whole time of one configuration on one shape.

    Examples
    --------
    >>> from schedlab import explain, GemmConfig
    >>> t = breakdown_summary_table(explain(GemmConfig(256, 128, 32, 8, 4, 1), 4096, 4096, 4096))
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


# --- the book's appendix --------------------------------------------------------------------


#: Each hardware field: its Chinese name, its unit, and the unit's size (value / size is shown).
_HW_FIELDS = {
    "n_sm": ("SM 数", "个", 1),
    "clock_hz": ("时钟", "GHz", 1e9),
    "tc_flop_per_clk_per_sm": ("每 SM 的 Tensor Core 速率（稠密 FP16）", "FLOP 每拍", 1),
    "tensor_cores_per_sm": ("每 SM 的 Tensor Core 数", "个", 1),
    "smem_bytes_per_clk_per_sm": ("每 SM 的共享内存带宽", "B 每拍", 1),
    "l2_port_bytes_per_clk_per_sm": ("每 SM 到 L2 的端口带宽", "B 每拍", 1),
    "l2_bw_bytes_per_s": ("L2 总带宽", "TB/s", 1e12),
    "hbm_bw_bytes_per_s": ("HBM 带宽", "TB/s", 1e12),
    "l2_bytes": ("L2 容量", "MiB", MiB),
    "smem_per_sm": ("每 SM 的共享内存", "KiB", KiB),
    "smem_limit": ("每块最多的共享内存", "KiB", KiB),
    "smem_reserved_per_block": ("每块保留的共享内存", "KiB", KiB),
    "regs_per_sm": ("每 SM 的寄存器", "个", 1),
    "max_regs_per_thread": ("每线程最多的寄存器", "个", 1),
    "reg_alloc_unit": ("寄存器分配粒度（每线程）", "个", 1),
    "base_regs_per_thread": ("累加器之外的寄存器（每线程）", "个", 1),
    "max_threads_per_sm": ("每 SM 最多的线程", "个", 1),
    "max_blocks_per_sm": ("每 SM 最多的块", "个", 1),
    "warp_size": ("一个 warp 的线程数", "个", 1),
    "mma_m": ("mma 指令的 M", "行", 1),
    "mma_n": ("mma 指令的 N", "列", 1),
    "bytes_per_element": ("每个元素（FP16）", "B", 1),
    "mem_latency_s": ("访存延迟", "ns", 1e-9),
}


def _fmt_hw_value(name: str, value) -> str:
    """A hardware field's value in the unit of :data:`_HW_FIELDS` (without the unit)."""
    _label, _unit, size = _HW_FIELDS[name]
    shown = value / size
    return str(int(shown)) if float(shown).is_integer() else f"{shown:.4g}"


def hardware_table(hw: Hardware = H100_TC, sources=None) -> Table:
    """Every parameter of ``hw``: its Chinese name, value, unit, source, and the field's identifier.

    ``sources`` maps field names to a source (default :data:`~schedlab.hardware.H100_SOURCES`);
    a field whose value differs from :data:`~schedlab.hardware.H100_TC` is marked as changed.

    Examples
    --------
    >>> t = hardware_table()
    >>> t.headers
    ('参数', '值', '单位', '来源', '标识符')
    >>> rows = {r[4]: r for r in t.rows}
    >>> rows["l2_bytes"][:3], rows["mem_latency_s"][:3]
    (('L2 容量', '50', 'MiB'), ('访存延迟', '750', 'ns'))
    >>> import dataclasses
    >>> {r[4]: r[3] for r in hardware_table(dataclasses.replace(H100_TC, n_sm=114)).rows}["n_sm"]
    '改动过（H100：132 个）'
    """
    if not isinstance(hw, Hardware):
        raise ValueError(f"hw must be a Hardware, got {type(hw).__name__}")
    sources = H100_SOURCES if sources is None else sources
    rows = []
    for f in fields(hw):
        if f.name == "name":
            continue
        label, unit, _size = _HW_FIELDS[f.name]
        value, h100 = getattr(hw, f.name), getattr(H100_TC, f.name)
        if value != h100:
            source = f"改动过（H100：{_fmt_hw_value(f.name, h100)} {unit}）"
        else:
            source = sources.get(f.name, "")
        rows.append((label, _fmt_hw_value(f.name, value), unit, source, f.name))
    return Table(f"{hw.name}：模型的参数（稠密 FP16 峰值 {fmt_tflops(hw.peak_flops / 1e12)} TFLOPS）",
                 ("参数", "值", "单位", "来源", "标识符"), rows)


def claims_table(claims) -> Table:
    """The seed's claims, each with the accepted range, the model's value and whether it holds.

    ``claims`` is a sequence of records with ``id``, ``statement``, ``target``, ``value`` and
    ``holds`` (:class:`schedlab.claims.Claim`).

    Examples
    --------
    >>> from types import SimpleNamespace as C
    >>> claims_table([C(id="C1", statement="s", target="t", value="v", holds=False)]).rows
    (('C1', 's', 't', 'v', '✗ 不成立'),)
    """
    rows = [(c.id, c.statement, c.target, c.value, "✓ 成立" if c.holds else "✗ 不成立") for c in claims]
    held = sum(bool(c.holds) for c in claims)
    return Table(f"种子脚本的结论：{held} / {len(rows)} 条在模型上成立",
                 ("编号", "种子脚本说", "接受的范围", "模型给出", "是否成立"), rows)


# --- search: tuning strategies compared -------------------------------------------------------

#: Strategy name in :data:`schedlab.search.STRATEGIES` -> its name in the lecture.
STRATEGY_LABELS = {
    "exhaustive": "按列表穷举",
    "random": "随机搜索",
    "descent": "坐标下降",
    "annealing": "模拟退火",
    "evolutionary": "进化搜索",
    "model": "代价模型引导",
}


def fmt_trials(trials) -> str:
    """A number of measurements; ``"—"`` for ``inf`` (the goal was not reached in the budget).

    Examples
    --------
    >>> fmt_trials(18.0), fmt_trials(float("inf"))
    ('18', '—')
    """
    x = _real(trials, "trials")
    return f"{x:.0f}" if math.isfinite(x) else MISSING


def _fmt_reach(fraction) -> str:
    """A share of seeds as a whole percentage, never rounded up to 100 % or down to 0 %."""
    x = _real(fraction, "fraction")
    text = fmt_percent(x)
    if (text == "100%" and x < 1) or (text == "0%" and x > 0):
        text = fmt_percent(x, 1)
    return text


def _trials_cell(cell: CellSummary) -> str:
    """``median / p90 (reached)``, joined by no-break spaces so a narrow HTML column keeps it on one line."""
    return "\u00a0".join((fmt_trials(cell.median), "/", fmt_trials(cell.p90), f"({_fmt_reach(cell.reached)})"))


def _label(strategy: str) -> str:
    return STRATEGY_LABELS.get(strategy, strategy)


def _pct(fraction: float) -> str:
    """``0.05`` -> ``"5%"``, ``0.025`` -> ``"2.5%"``: a setting, shown as given."""
    return f"{100 * fraction:.6g}%"


def _goal(comparison: Comparison) -> str:
    return _pct(comparison.factor - 1)


def _setting(comparison: Comparison) -> str:
    return (f"{len(comparison.seeds)} 个种子，每次预算 {comparison.budget} 次测量，"
            f"测量噪声 {_pct(comparison.noise)}")


def _check_comparison(comparison) -> Comparison:
    if not isinstance(comparison, Comparison):
        raise ValueError(f"comparison must be a schedlab.compare.Comparison, got {type(comparison).__name__}")
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
    >>> from schedlab.compare import compare
    >>> c = compare([(4096, 4096, 4096)], ["exhaustive", "model"], seeds=range(10), budget=100)
    >>> t = search_table(c)
    >>> t.headers
    ('策略', '4096×4096×4096')
    >>> t.rows
    (('按列表穷举', '—\xa0/\xa0—\xa0(0%)'), ('代价模型引导', '18\xa0/\xa021\xa0(100%)'))
    """
    comparison = _check_comparison(comparison)
    # as the comparison names them (a Shape's short name), whether given as Shape, (M, N, K) or index
    shapes = comparison.shapes if shapes is None else tuple(comparison.shapes[comparison.shape_index(s)]
                                                              for s in shapes)
    rows = [(_label(name),) + tuple(_trials_cell(comparison.cell(s, name)) for s in shapes)
            for name in comparison.strategies]
    title = (f"测多少次，相信的最优配置才真的在最优的 {_goal(comparison)} 以内（{_setting(comparison)}）。"
             f"每格：中位数 / 90% 分位数 (预算内到达的种子比例)；{MISSING} 表示到达的种子不到一半或不到九成")
    return Table(title, ("策略",) + tuple(shape_short(s) for s in shapes), rows)


def search_shape_table(comparison: Comparison, shape) -> Table:
    """:func:`search_table` for one shape, one column per statistic.

    Examples
    --------
    >>> from schedlab.compare import compare
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
        rows.append((_label(name), fmt_trials(cell.median), fmt_trials(cell.p90), _fmt_reach(cell.reached)))
    title = (f"{fmt_shape(shape)}：测多少次才到最优的 {_goal(comparison)} 以内（{_setting(comparison)}）；"
             f"{MISSING} 表示到达的种子不到一半（中位数）或不到九成（90% 分位数）")
    return Table(title, ("策略", "中位数", "90% 分位数", "预算内到达"), rows)


def search_summary_table(comparison: Comparison, groups) -> Table:
    """:func:`search_table` summarised over groups of shapes (:meth:`Comparison.summary`).

    ``groups`` maps a column label to the shapes it summarises. A cell is the median over
    the group's shapes of the per-shape medians, the same of the per-shape p90s, and (in
    brackets) the mean share of seeds that got there.

    Examples
    --------
    >>> from schedlab.compare import compare
    >>> shapes = [(16, 4096, 4096), (1, 4096, 4096)]
    >>> c = compare(shapes, ["exhaustive"], seeds=range(5), budget=100)
    >>> search_summary_table(c, {"decode": shapes}).rows
    (('按列表穷举', '100\xa0/\xa0100\xa0(100%)'),)
    """
    comparison = _check_comparison(comparison)
    groups = {str(label): tuple(shapes) for label, shapes in dict(groups).items()}
    if not groups or not all(groups.values()):
        raise ValueError("groups must map each label to at least one shape")
    rows = [(_label(name),) + tuple(_trials_cell(comparison.summary(name, shapes)) for shapes in groups.values())
            for name in comparison.strategies]
    title = (f"各组形状上的汇总（{_setting(comparison)}）。每格：各形状中位数的中位数 / "
             f"各形状 90% 分位数的中位数 (平均到达比例)；{MISSING} 表示过半的形状没到")
    return Table(title, ("策略",) + tuple(groups), rows)


def local_optima_table(local_optima: LocalOptima, k: int = 5) -> Table:
    """The ``k`` local optima where most single coordinate descents stopped, most frequent first.

    Examples
    --------
    >>> from schedlab.compare import descent_local_optima
    >>> t = local_optima_table(descent_local_optima((4096, 4096, 4096), seeds=range(100)), k=1)
    >>> t.headers
    ('局部最优 (BM, BN, BK, warps, stages, GROUP_M)', '时间 / 最优', '停在这里的次数')
    >>> t.rows
    (('(256, 32, 32, 2, 3, 8)', '2.74', '6'),)
    """
    if not isinstance(local_optima, LocalOptima):
        raise ValueError(f"local_optima must be a schedlab.compare.LocalOptima, got {type(local_optima).__name__}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    lo = local_optima
    rows = [(fmt_config(cfg), fmt_ratio(r), str(n)) for cfg, r, n in lo.where[:k]]
    title = (f"{fmt_shape(lo.shape)}：{lo.runs} 次坐标下降（随机起点、不重启）里 {lo.bad} 次停在离最优超过 "
             f"{_pct(lo.factor - 1)} 的局部最优，共 {len(lo.where)} 个不同的点；最常见的 {len(rows)} 个")
    return Table(title, (f"局部最优 {_CONFIG_HEADER}", "时间 / 最优", "停在这里的次数"), rows)


def _lecture_short(mnk) -> str:
    """The lecture's short name of ``(M, N, K)`` if it is one of the lecture's shapes, else ``M×N×K``."""
    return next((s.short for s in LECTURE_SHAPES if s.mnk == tuple(mnk)), fmt_shape(mnk))


def descent_table(local_optima) -> Table:
    """Per shape: how often a single coordinate descent gets stuck, at how many points, at what cost.

    ``local_optima`` is a sequence of :class:`~schedlab.compare.LocalOptima`, one per shape.

    Examples
    --------
    >>> from schedlab.compare import descent_local_optima
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
            raise ValueError(f"local_optima must hold schedlab.compare.LocalOptima, got {type(lo).__name__}")
    rows = [(_lecture_short(lo.shape), fmt_percent(lo.rate), str(len(lo.where)), f"{lo.mean_measurements:.1f}")
            for lo in records]
    factor = _pct(records[0].factor - 1) if records else ""
    title = (f"一次坐标下降（随机起点、不重启、不限预算）停在离最优超过 {factor} 的局部最优的比例，"
             "那些局部最优有几个，一次下降平均花几次测量")
    return Table(title, ("形状", "卡住的比例", "不同的局部最优", "一次下降的测量"), rows)


# --- learned cost model and buckets ---------------------------------------------------------
# (appended section: tables of schedlab.learned and schedlab.buckets)

from .buckets import BucketStudy, Cover  # noqa: E402
from .learned import FEATURE_SETS, METHODS, TOP_K, CrossValidation  # noqa: E402

__all__ += [
    "METHOD_LABELS",
    "FEATURE_SET_LABELS",
    "SPLIT_LABELS",
    "COVER_LABELS",
    "fmt_m_range",
    "regret_table",
    "hit_rate_table",
    "feature_set_table",
    "bucket_table",
    "cover_table",
]

#: Method of :data:`schedlab.learned.METHODS` -> its name in the lecture.
METHOD_LABELS = {
    "model": "学到的代价模型",
    "fixed": "固定一个配置",
    "nearest": "最近形状的最优",
}
#: Feature set of :data:`schedlab.learned.FEATURE_SETS` -> what it holds.
FEATURE_SET_LABELS = {
    "knobs": "只有旋钮和形状",
    "knobs+pairs": "旋钮、形状和它们的两两乘积",
    "tile": "旋钮、形状和块的算术",
}
#: Split of :data:`schedlab.learned.SPLITS` -> what one fold holds out.
SPLIT_LABELS = {
    "projection": "每次留出一整个投影 (N, K)",
    "tokens": "每次留出一个 token 数 M",
    "both": "每次留出一个形状，并去掉和它同投影或同 M 的训练形状",
}

#: :attr:`schedlab.buckets.Cover.method` -> its name in the lecture.
COVER_LABELS = {
    "greedy": "集合覆盖（贪心）",
    "exact": "集合覆盖（最少）",
    "intervals": "连续区间",
    "power-of-two": "2 的幂，向下取",
    "power-of-two-up": "2 的幂，向上取",
}


def _check_cv(cv) -> CrossValidation:
    if not isinstance(cv, CrossValidation):
        raise ValueError(f"cv must be a schedlab.learned.CrossValidation, got {type(cv).__name__}")
    return cv


def _check_k(k) -> int:
    if k not in TOP_K or isinstance(k, bool):
        raise ValueError(f"k must be one of {TOP_K}, got {k!r}")
    return k


def _pick_words(k: int) -> str:
    return "第一选择" if k == 1 else f"前 {k} 个选择里最好的一个"


def regret_table(cv: CrossValidation, k: int = 1) -> Table:
    """Per method: geometric mean and worst regret over the held-out shapes, and where the worst is.

    A regret is the true time of the method's choice (the best of its first ``k``) over the
    held-out shape's optimum (:meth:`CrossValidation.regrets`); ``1.000`` is a perfect pick.

    Examples
    --------
    >>> from schedlab.learned import cross_validate
    >>> t = regret_table(cross_validate("tokens"))
    >>> t.headers
    ('做法', '几何平均', '最坏', '最坏的形状')
    >>> t.column("做法")
    ('学到的代价模型', '固定一个配置', '最近形状的最优')
    >>> t.rows[0][1]
    '1.000'
    """
    cv, k = _check_cv(cv), _check_k(k)
    rows = []
    for method in METHODS:
        regrets = cv.regrets(method, k)
        worst = int(regrets.argmax())
        where = cv.results[worst].name if regrets[worst] > 1.0 else MISSING
        rows.append((METHOD_LABELS[method], fmt_ratio(cv.geomean_regret(method, k), 3),
                     fmt_ratio(cv.worst_regret(method, k), 3), where))
    title = (f"{SPLIT_LABELS.get(cv.split, cv.split)}，{len(cv.results)} 个留出形状上{_pick_words(k)}的时间 / "
             f"该形状的最优（{FEATURE_SET_LABELS.get(cv.feature_set, cv.feature_set)}）")
    return Table(title, ("做法", "几何平均", "最坏", "最坏的形状"), rows)


def hit_rate_table(cv: CrossValidation, tol: float = 0.05) -> Table:
    """Per method and ``k`` in :data:`~schedlab.learned.TOP_K`: the share of held-out shapes whose
    first ``k`` picks hold one within ``tol`` of the optimum (:meth:`CrossValidation.hit_rate`).

    Examples
    --------
    >>> from schedlab.learned import cross_validate
    >>> t = hit_rate_table(cross_validate("tokens"))
    >>> t.headers
    ('做法', '前 1 个', '前 5 个', '前 10 个')
    >>> t.rows[0]
    ('学到的代价模型', '100%', '100%', '100%')
    """
    cv = _check_cv(cv)
    tol = _real(tol, "tol")
    rows = [(METHOD_LABELS[m],) + tuple(fmt_percent(cv.hit_rate(m, k, tol)) for k in TOP_K) for m in METHODS]
    title = (f"{len(cv.results)} 个留出形状里，前 k 个选择中至少有一个在最优的 {_pct(tol)} 以内的比例"
             f"（{SPLIT_LABELS.get(cv.split, cv.split)}）")
    return Table(title, ("做法",) + tuple(f"前 {k} 个" for k in TOP_K), rows)


def feature_set_table(cvs, tol: float = 0.05) -> Table:
    """The learned model with different features, one row per cross-validation (same split).

    Columns: the features, how many, the RMSE of predicted ``log(time)`` over every
    configuration of every held-out shape, the first pick's geometric-mean and worst regret,
    and the share of held-out shapes where the first pick is within ``tol``.

    Examples
    --------
    >>> from schedlab.learned import cross_validate
    >>> t = feature_set_table([cross_validate("tokens", "knobs")])
    >>> t.headers
    ('特征', '个数', '留出形状上 log 时间的 RMSE', '几何平均', '最坏', '第一选择在 5% 以内')
    >>> t.rows[0][:2]
    ('只有旋钮和形状', '10')
    """
    records = tuple(_check_cv(cv) for cv in cvs)
    if not records:
        raise ValueError("feature_set_table needs at least one cross-validation")
    tol = _real(tol, "tol")
    rows = []
    for cv in records:
        rmse = math.sqrt(sum(r.log_rmse ** 2 for r in cv.results) / len(cv.results))  # every shape: same rows
        rows.append((FEATURE_SET_LABELS.get(cv.feature_set, cv.feature_set), str(len(FEATURE_SETS[cv.feature_set])),
                     f"{rmse:.2f}", fmt_ratio(cv.geomean_regret("model"), 3), fmt_ratio(cv.worst_regret("model"), 3),
                     fmt_percent(cv.hit_rate("model", 1, tol))))
    splits = {cv.split for cv in records}
    title = (f"同一个岭回归，换一套特征（{SPLIT_LABELS.get(records[0].split, records[0].split)}）"
             if len(splits) == 1 else "同一个岭回归，换一套特征")
    return Table(title, ("特征", "个数", "留出形状上 log 时间的 RMSE", "几何平均", "最坏",
                         f"第一选择在 {_pct(tol)} 以内"), rows)


def fmt_m_range(first: int, last: int) -> str:
    """``"17"`` or ``"17–32"``: a run of grid token counts.

    Examples
    --------
    >>> fmt_m_range(17, 17), fmt_m_range(1, 16)
    ('17', '1–16')
    """
    return str(first) if first == last else f"{first}–{last}"


def _check_cover(cover) -> Cover:
    if not isinstance(cover, Cover):
        raise ValueError(f"cover must be a schedlab.buckets.Cover, got {type(cover).__name__}")
    return cover


def _cover_label(study: BucketStudy) -> str:
    if study.greedy_optimal is None:
        return "集合覆盖（贪心；精确搜索放弃）"
    if study.greedy_optimal:
        return "集合覆盖（贪心 = 最少）"
    return f"集合覆盖（贪心；最少 {study.exact.n_configs} 个）"


def bucket_table(studies) -> Table:
    """Per projection: how many configurations keep every ``M`` within tolerance, against power-of-two buckets.

    Three rows per :class:`~schedlab.buckets.BucketStudy`: the greedy set cover (marked
    where :func:`~schedlab.buckets.exact_cover` proves it minimal), power-of-two bucketing
    rounding ``M`` down and rounding it up. Columns: distinct configurations, the worst and
    the mean slowdown (time / that ``M``'s optimum) over the grid, and whether every ``M``
    stays within tolerance. A study whose ``power_of_two_up`` is ``None`` has no up row.

    Examples
    --------
    >>> from schedlab.buckets import bucket_study
    >>> t = bucket_table(bucket_study([("O", 4096, 4096)], Ms=(1, 16, 17, 32, 33, 64)))
    >>> t.headers
    ('投影', 'N×K', '做法', '配置数', '最坏', '平均', '每个 M 都在 5% 以内')
    >>> t.rows[0][2:]
    ('集合覆盖（贪心 = 最少）', '1', '1.000', '1.000', '✓')
    >>> t.rows[1][2:]  # M = 17 and 33 reuse the optimum of 16 and 32
    ('2 的幂，向下取', '3', '1.221', '1.054', '✗')
    """
    records = tuple(studies)
    for s in records:
        if not isinstance(s, BucketStudy):
            raise ValueError(f"studies must hold schedlab.buckets.BucketStudy, got {type(s).__name__}")
    if not records:
        raise ValueError("bucket_table needs at least one study")
    tol = records[0].greedy.tol
    rows = []
    for s in records:
        covers = [(_cover_label(s), s.greedy), (COVER_LABELS[s.power_of_two.method], s.power_of_two)]
        if s.power_of_two_up is not None:
            covers.append((COVER_LABELS[s.power_of_two_up.method], s.power_of_two_up))
        for label, c in covers:
            rows.append((s.name, f"{s.sweep.N}×{s.sweep.K}", label, str(c.n_configs), fmt_ratio(c.worst, 3),
                         fmt_ratio(c.mean, 3), "✓" if c.keeps_all else "✗"))
    Ms = records[0].sweep.Ms
    title = (f"M = {Ms[0]} … {Ms[-1]} 的 {len(Ms)} 个 M 上：每个 M 都要在自己最优的 {_pct(tol)} 以内，"
             "要几个配置；和按 2 的幂分桶比（时间 / 该 M 的最优）")
    return Table(title, ("投影", "N×K", "做法", "配置数", "最坏", "平均", f"每个 M 都在 {_pct(tol)} 以内"), rows)


def cover_table(cover: Cover) -> Table:
    """A cover as a lookup table: each run of grid ``M`` (:attr:`Cover.buckets`), its configuration,
    and the worst slowdown over the run.

    Examples
    --------
    >>> from schedlab.buckets import greedy_cover, sweep
    >>> t = cover_table(greedy_cover(sweep(4096, 4096, Ms=(1, 16, 17, 32, 33, 64, 65, 128))))
    >>> t.headers
    ('M', '(BM, BN, BK, warps, stages, GROUP_M)', '最坏（时间 / 该 M 的最优）')
    >>> t.rows  # doctest: +NORMALIZE_WHITESPACE
    (('1', '(64, 64, 128, 2, 4, 1)', '1.000'), ('16–65', '(128, 32, 128, 2, 4, 1)', '1.000'),
     ('128', '(64, 64, 128, 2, 4, 1)', '1.000'))
    """
    cover = _check_cover(cover)
    rows, i = [], 0
    for first, last, cfg in cover.buckets:
        j = cover.Ms.index(last) + 1
        rows.append((fmt_m_range(first, last), fmt_config(cfg), fmt_ratio(float(cover.slowdown[i:j].max()), 3)))
        i = j
    title = f"{COVER_LABELS.get(cover.method, cover.method)}：{cover.n_configs} 个配置，按 M 查表（网格上 {len(cover.Ms)} 个 M）"
    return Table(title, ("M", _CONFIG_HEADER, "最坏（时间 / 该 M 的最优）"), rows)
