"""Tables of the book's appendix: the hardware parameters and the seed script's claims."""

from __future__ import annotations

from dataclasses import fields

from schedlab.core.hardware import DEFAULT_PROFILE, H100_TC, Hardware, KiB, MiB
from schedlab.core.profile_sources import PROFILE_SOURCES
from schedlab.render.claims import claim_row
from schedlab.render.table import Table, fmt_tflops

__all__ = ["hardware_field", "hardware_table", "claims_table"]


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
    "l2_partitions": ("L2 分几段", "段", 1),
    "t_launch_s": ("启动和序幕（每个内核一次，逐个启动）", "µs", 1e-6),
    "t_launch_graph_s": ("启动（CUDA graph 里的一个节点）", "µs", 1e-6),
    "t_k_step_clk": ("每个 k 步藏不住的开销", "拍", 1),
    "pipeline_overlap": ("流水线藏住其余各项的比例", "比例", 1),
    "mma_sync_fraction": ("mma.sync 能达到的 Tensor Core 速率比例", "比例", 1),
    "epilogue_smem_passes": ("收尾时 C 块经共享内存的次数", "次", 1),
    "resident_blocks_overlap": ("驻留块错开时被藏住的填充与收尾", "比例", 1),
    "launch_rules": ("启动规则", "", None),
}


def _fmt_hw_value(name: str, value) -> str:
    """A hardware field's value in the unit of :data:`_HW_FIELDS` (without the unit)."""
    _label, _unit, size = _HW_FIELDS[name]
    if size is None:  # a name, not a quantity
        return str(value)
    shown = value / size
    return str(int(shown)) if float(shown).is_integer() else f"{shown:.4g}"


def hardware_field(hw: Hardware, name: str) -> tuple[str, str, str]:
    """Field ``name`` of ``hw`` as the parameter tables write it: its Chinese name, its value in its unit, the unit.

    Examples
    --------
    >>> from schedlab.core.hardware import PROFILES
    >>> hardware_field(PROFILES["h100-sxm"], "t_launch_s"), hardware_field(H100_TC, "mem_latency_s")
    (('启动和序幕（每个内核一次，逐个启动）', '6.6', 'µs'), ('访存延迟', '750', 'ns'))
    """
    label, unit, _size = _HW_FIELDS[name]
    return label, _fmt_hw_value(name, getattr(hw, name)), unit


def hardware_table(hw: Hardware = H100_TC, sources=None) -> Table:
    """Every parameter of ``hw``: its Chinese name, value, unit, source, and the field's identifier.

    ``sources`` maps field names to a source. Without it the lecture's sources are shown
    (:data:`~schedlab.core.hardware.H100_SOURCES`) and a field whose value differs from
    :data:`~schedlab.core.hardware.H100_TC` is marked as changed; with it (a profile's sources, e.g.
    ``PROFILE_SOURCES["a100-sxm4"]``) every field shows the source given.

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
    >>> from schedlab.core.hardware import PROFILES
    >>> from schedlab.core.profile_sources import PROFILE_SOURCES
    >>> a100 = {r[4]: r for r in hardware_table(PROFILES["a100-sxm4"], PROFILE_SOURCES["a100-sxm4"]).rows}
    >>> a100["n_sm"][1], a100["n_sm"][3]
    ('108', '[A100-WP] A100 SXM4: 108 SMs')
    """
    if not isinstance(hw, Hardware):
        raise ValueError(f"hw must be a Hardware, got {type(hw).__name__}")
    given = sources is not None
    sources = sources if given else PROFILE_SOURCES[DEFAULT_PROFILE]
    rows = []
    for f in fields(hw):
        if f.name == "name":
            continue
        label, shown, unit = hardware_field(hw, f.name)
        if getattr(hw, f.name) != getattr(H100_TC, f.name) and not given:
            source = f"改动过（H100：{hardware_field(H100_TC, f.name)[1]} {unit}）"
        else:
            source = sources.get(f.name, "")
        rows.append((label, shown, unit, source, f.name))
    return Table(
        f"{hw.name}：模型的参数（稠密 FP16 峰值 {fmt_tflops(hw.peak_flops / 1e12)} TFLOPS）",
        ("参数", "值", "单位", "来源", "标识符"),
        rows,
    )


def claims_table(claims) -> Table:
    """The seed's claims, each with the accepted range, the model's value and whether it holds.

    ``claims`` is a sequence of :class:`schedlab.studies.claims.Claim`; their text is
    :func:`schedlab.render.claims.claim_row`'s.

    Examples
    --------
    >>> from schedlab.studies.claims import seed_claims
    >>> claims_table(seed_claims()[:1]).rows
    (('C1', '6000 个组合里能启动 3744 个（62%）', '6000 / 3744', '6000 / 3744（62%）', '✓ 成立'),)
    """
    rows = [(*claim_row(c), "✓ 成立" if c.holds else "✗ 不成立") for c in claims]
    held = sum(bool(c.holds) for c in claims)
    return Table(
        f"原始讲义脚本的结论：{held} / {len(rows)} 条在模型上成立",
        ("编号", "原始讲义脚本说", "接受的范围", "模型给出", "是否成立"),
        rows,
    )
