"""Tables of the chapter 换一块 GPU: the profiles side by side with their sources, the hardware-transfer
matrix, and published H100 measurements beside the model."""

from __future__ import annotations

import math

from schedlab.core.hardware import PROFILES, KiB, MiB, profile, resolve_gpu
from schedlab.core.profile_sources import PROFILE_SOURCES
from schedlab.render.appendix import hardware_field, hardware_table
from schedlab.render.labels import TIME_PART_LABELS, fmt_shape
from schedlab.render.table import MISSING, Table, fmt_config, fmt_ratio, fmt_tflops
from schedlab.studies.gpus import HardwareTransfer
from schedlab.studies.published import TIME_PARTS, PublishedComparison, RangeComparison

__all__ = [
    "profiles_table",
    "profile_sources_table",
    "hardware_transfer_table",
    "published_table",
    "range_table",
    "time_parts_table",
]

#: The numbers that tell the GPUs apart that no single field holds: (Chinese label, unit, a machine's value as a string).
_COMBINED_NUMBERS = (
    ("Tensor Core 峰值（稠密 FP16）", "TFLOPS", lambda hw: fmt_tflops(hw.peak_flops / 1e12)),
    ("每 SM 的共享内存 / 每块最多", "KiB", lambda hw: f"{hw.smem_per_sm // KiB} / {hw.smem_limit // KiB}"),
    ("L2 容量（分几段）", "MiB", lambda hw: f"{hw.l2_bytes / MiB:g}（{hw.l2_partitions} 段）"),
)
#: Single fields, labelled and formatted as the parameter tables show them (:func:`~schedlab.render.appendix.hardware_field`).
_KEY_FIELDS_BEFORE = ("n_sm", "clock_hz")
_KEY_FIELDS_AFTER = (
    "l2_bw_bytes_per_s",
    "hbm_bw_bytes_per_s",
    "mem_latency_s",
    "t_launch_s",
    "t_k_step_clk",
    "pipeline_overlap",
)


def profiles_table(gpus=tuple(PROFILES)) -> Table:
    """The numbers that tell the GPUs apart, one column per profile.

    Examples
    --------
    >>> t = profiles_table()
    >>> t.headers
    ('参数', '单位', 'h100-lecture', 'h100-sxm', 'a100-sxm4', 'h200-sxm')
    >>> t.rows[2]
    ('Tensor Core 峰值（稠密 FP16）', 'TFLOPS', '989', '794', '271', '794')
    """
    machines = [resolve_gpu(g) for g in gpus]

    def field_row(name):
        shown = [hardware_field(hw, name) for hw in machines]
        return (shown[0][0], shown[0][2], *(value for _label, value, _unit in shown))

    rows = [field_row(name) for name in _KEY_FIELDS_BEFORE]
    rows += [(label, unit, *(value(hw) for hw in machines)) for label, unit, value in _COMBINED_NUMBERS]
    rows += [field_row(name) for name in _KEY_FIELDS_AFTER]
    return Table("四块 GPU 的主要参数", ("参数", "单位", *(hw.label for hw in machines)), rows)


def profile_sources_table(name: str) -> Table:
    """Every field of profile ``name`` whose source differs from the lecture's, with its value and source.

    Examples
    --------
    >>> t = profile_sources_table("a100-sxm4")
    >>> {r[4]: r[1] for r in t.rows}["smem_limit"]
    '163'
    >>> profile_sources_table("h100-lecture").rows
    ()
    """
    hw, sources, lecture = profile(name), PROFILE_SOURCES[name], PROFILE_SOURCES["h100-lecture"]
    full = hardware_table(hw, sources)
    rows = [row for row in full.rows if sources[row[4]] != lecture[row[4]]]
    return Table(f"{name}（{hw.name}）：与讲义的 H100 来源不同的参数", full.headers, rows)


def hardware_transfer_table(transfer: HardwareTransfer) -> Table:
    """Each GPU's optimum (a row) run on every GPU (a column), time over that GPU's own best.

    Examples
    --------
    >>> from schedlab.studies.gpus import hardware_transfer
    >>> t = hardware_transfer_table(hardware_transfer((4096, 4096, 4096), ["h100-lecture", "a100-sxm4"]))
    >>> t.rows[1]
    ('a100-sxm4', '(128, 256, 128, 8, 2, 1)', '205', '1.24', '1.00')
    """
    rows = []
    for i, (gpu, cfg) in enumerate(zip(transfer.gpus, transfer.optima)):
        cells = tuple(fmt_ratio(x) if math.isfinite(x) else "不能启动" for x in transfer.matrix[i])
        rows.append((gpu, fmt_config(cfg), fmt_tflops(transfer.best_tflops[i]), *cells))
    headers = ("最优来自", "配置", "自己的 TFLOPS", *(f"用在 {g}" for g in transfer.gpus))
    return Table(f"{fmt_shape(transfer.shape)}：一块 GPU 的最优配置用在另一块上，相对那块自己的最优", headers, rows)


def published_table(comparison: PublishedComparison) -> Table:
    """Published TFLOP/s beside the model's best on each profile, one row per shape.

    Examples
    --------
    >>> from schedlab.studies.published import published_comparison
    >>> t = published_table(published_comparison())
    >>> t.headers
    ('形状 M×N×K', 'cuBLAS 实测', 'Triton 实测', 'h100-lecture 模型', 'h100-sxm 模型')
    >>> t.rows[2][:3]
    ('2048×2048×2048', '515', '295')
    """
    rows = []
    for i, shape in enumerate(comparison.shapes):
        measured = tuple(fmt_tflops(x) if math.isfinite(x) else MISSING for x in comparison.measured_tflops[i])
        rows.append((fmt_shape(shape), *measured, *(fmt_tflops(x) for x in comparison.predicted_tflops[i])))
    headers = ("形状 M×N×K", *(f"{lib} 实测" for lib in comparison.libraries), *(f"{g} 模型" for g in comparison.gpus))
    return Table("H100 上发表的 GEMM 实测（TFLOPS）和两套参数的模型最优", headers, rows)


def range_table(comparison: RangeComparison) -> Table:
    """Each published summary (lowest, median, highest TFLOP/s) beside the model's on the same kind of shapes.

    Examples
    --------
    >>> from schedlab.studies.published import range_comparison
    >>> t = range_table(range_comparison(shapes=[(4096, 4096, 4096)]))
    >>> t.headers[:3], t.rows[0][:4]
    (('GPU（模型）', '实测', '形状'), ('h100-sxm', 'Triton', 'M, N, K ≥ 2048', '30'))
    """
    rows = []
    for i, r in enumerate(comparison.ranges):
        low, median, high = comparison.predicted_summary(i)
        rows.append(
            (
                r.profile,
                r.library,
                r.condition,
                str(r.shapes),
                f"{fmt_tflops(r.low)}–{fmt_tflops(r.high)}",
                fmt_tflops(r.median),
                str(len(comparison.shapes)),
                f"{fmt_tflops(low)}–{fmt_tflops(high)}",
                fmt_tflops(median),
            )
        )
    headers = (
        "GPU（模型）",
        "实测",
        "形状",
        "实测形状数",
        "实测范围",
        "实测中位数",
        "模型形状数",
        "模型范围",
        "模型中位数",
    )
    return Table("大 GEMM：实测最优配置的 TFLOPS 和模型最优的 TFLOPS", headers, rows)


def time_parts_table(cases) -> Table:
    """Where each predicted time goes: one row per ``(label, shape, config, parts)``, parts from
    :func:`schedlab.studies.published.time_parts`, in µs, with their sum.

    Cases on one GPU name it in the title instead of a column (a table per GPU fits the page).

    Examples
    --------
    >>> from schedlab.core.knobs import GemmConfig
    >>> parts = dict.fromkeys(TIME_PARTS, 1e-6)
    >>> t = time_parts_table([("h100-sxm", (16, 4096, 4096), GemmConfig(16, 16, 64, 1, 4, 1), parts)])
    >>> t.rows[0][-1], t.headers[0], "h100-sxm" in t.title
    ('6.00', '形状 M×N×K', True)
    """
    cases = list(cases)
    gpus = {label for label, *_ in cases}
    one_gpu = len(gpus) == 1
    rows = []
    for label, shape, cfg, parts in cases:
        cells = tuple(f"{parts[name] * 1e6:.2f}" for name in TIME_PARTS)
        row = (fmt_shape(shape), fmt_config(cfg), *cells, f"{sum(parts.values()) * 1e6:.2f}")
        rows.append(row if one_gpu else (label, *row))
    headers = (
        *(() if one_gpu else ("GPU",)),
        "形状 M×N×K",
        "最优配置",
        *(TIME_PART_LABELS[name] for name in TIME_PARTS),
        "合计",
    )
    where = f"{next(iter(gpus))} 上，" if one_gpu else ""
    return Table(f"{where}模型的时间花在哪里：各项依次加上去（µs）", headers, rows)
