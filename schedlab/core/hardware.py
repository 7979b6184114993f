"""Hardware parameter sets: frozen records, each field with its source.

The cost model never reads a device; it is handed one of these objects.
Change a value with :func:`dataclasses.replace`; the records are frozen and never mutated.

The machine is always an argument. ``hw=None`` means the lecture's machine,
``PROFILES[DEFAULT_PROFILE]`` (:data:`H100_TC`), and nothing else: no setting elsewhere changes what
it means. A command line or a page that works on another GPU resolves its name once, with
:func:`profile`, and passes the record down::

    landscape((4096, 4096, 4096), profile("a100-sxm4"))

The one exception is for the book's perturbation guards (``tests/test_book_guards.py``), which re-run
the pages' doctests on a changed lecture machine without editing the pages:
:func:`lecture_machine_replaced` swaps the record the name ``"h100-lecture"`` (and so ``hw=None``)
stands for, inside a ``with`` block. Nothing else uses it.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from types import MappingProxyType

from schedlab.core.checks import is_integer, is_number

__all__ = [
    "resolve_gpu",
    "Hardware",
    "H100_TC",
    "H100_SXM",
    "A100_SXM4",
    "H200_SXM",
    "PROFILES",
    "DEFAULT_PROFILE",
    "profile",
    "KiB",
    "MiB",
    "LAUNCH_RULES",
    "LAUNCH_MODES",
    "launched",
    "check_hardware",
    "lecture_machine_replaced",
]

KiB = 1024
#: Largest count field of a :class:`Hardware`: a C ``int``, as CUDA's device properties hold them
#: (larger values would overflow the model's int64 products of counts).
MAX_COUNT = 2**31 - 1
MiB = 1024 * KiB
#: The time terms a kernel may not pay at all (the lecture's machine pays none of them).
_MAY_BE_ZERO = frozenset(
    {
        "t_launch_s",
        "t_launch_graph_s",
        "t_k_step_clk",
        "pipeline_overlap",
        "epilogue_smem_passes",
        "resident_blocks_overlap",
    }
)
#: The rule sets that decide which configurations launch (:attr:`Hardware.launch_rules`); see
#: :func:`schedlab.core.launch.launch_checks`.
LAUNCH_RULES = ("seed", "triton-sm80", "triton-sm90")


@dataclass(frozen=True)
class Hardware:
    """A GPU as the analytical model sees it (all sizes in bytes, rates per second or per clock).

    Attributes
    ----------
    name : str
        Human-readable name.
    n_sm : int
        Streaming multiprocessors.
    clock_hz : float
        Tensor-core clock in Hz.
    tc_flop_per_clk_per_sm : int
        Dense FP16 tensor-core FLOP per clock per SM (all tensor cores of the SM together).
    tensor_cores_per_sm : int
        Tensor cores per SM, one per sub-partition; a warp runs on one of them.
    smem_bytes_per_clk_per_sm : int
        Shared-memory read bandwidth per SM.
    l2_port_bytes_per_clk_per_sm : int
        Bandwidth of one SM's port to L2.
    l2_bw_bytes_per_s : float
        Aggregate L2 bandwidth of the chip.
    hbm_bw_bytes_per_s : float
        HBM bandwidth.
    l2_bytes : int
        L2 capacity.
    smem_per_sm : int
        Shared memory per SM available to resident blocks.
    smem_limit : int
        Most shared memory one block may allocate.
    smem_reserved_per_block : int
        Shared memory the runtime reserves for every resident block.
    regs_per_sm : int
        32-bit registers per SM.
    max_regs_per_thread : int
        Most registers one thread may use.
    reg_alloc_unit : int
        Registers per thread are allocated in multiples of this.
    base_regs_per_thread : int
        Registers a matmul thread needs besides its accumulator.
    max_threads_per_sm : int
        Resident threads per SM.
    max_blocks_per_sm : int
        Resident blocks per SM.
    warp_size : int
        Threads per warp.
    mma_m, mma_n : int
        Shape of the smallest tensor-core instruction a warp issues (m16n8k16).
    bytes_per_element : int
        Bytes per operand element (FP16).
    mem_latency_s : float
        Latency of a global-memory load under load, in seconds.
    l2_partitions : int
        Sections the L2 is split into (default 1, one shared cache). The A100 and the H100 have
        two, and data that SMs on both sides read is kept in both, so a wave's shared panels
        survive in one section's capacity, :attr:`l2_bytes_shared`.
    t_launch_s : float
        Seconds every kernel pays once, whatever its size: launch and prologue, launched eagerly one
        kernel at a time (default 0, the lecture's kernel starts for free).
    t_launch_graph_s : float
        The same cost when the kernel is one node of a replayed CUDA graph (default 0); :func:`launched`
        gives the machine that pays it instead of ``t_launch_s``.
    t_k_step_clk : float
        Clocks every k-step of the main loop pays that no pipelining hides: the barrier, the wait for the
        stage's data, address arithmetic and loop control (default 0).
    pipeline_overlap : float
        Fraction, in [0, 1], of the terms other than the slowest that the pipeline hides (default 1, all
        of them: a k-step as long as its slowest term). With ``p < 1`` a k-step lasts
        ``p * max + (1 - p) * sum`` of its terms.
    mma_sync_fraction : float
        Fraction, in (0, 1], of ``tc_flop_per_clk_per_sm`` the tensor cores reach through ``mma.sync``
        (mma v2) where the chip's fastest path is another instruction (default 1: one path). On Hopper
        the rate is wgmma's, and configurations Triton lowers to ``mma.sync`` (:func:`~schedlab.core.resources.uses_wgmma`
        false) compute at this fraction of it.
    epilogue_smem_passes : int
        Times the epilogue moves the block's C tile through shared memory before storing it (default 0:
        the lecture's epilogue stores from registers). Triton converts the accumulator's MMA layout to a
        store layout through shared memory: one write and one read, 2.
    resident_blocks_overlap : float
        Fraction, in [0, 1], of the hideable fills and epilogues that run behind the other resident blocks'
        k-steps (default 0: the r blocks of a wave start and end together, every wave's fill and epilogue
        exposed). With ``r`` blocks resident per SM, ``(r - 1)/r`` of each later wave's fill and each earlier
        wave's epilogue is hideable: a block holds its ``1/r`` share of the SM, which idles while it fills or
        drains, and the other ``r - 1`` keep theirs busy (none with ``r = 1``). Each SM's first fill and its
        last wave's epilogue are always exposed; the hidden epilogues' work joins the k-steps
        (``pipeline_overlap`` of it hidden).
    launch_rules : str
        Which configurations launch, one of :data:`LAUNCH_RULES` (default ``"seed"``):
        ``"seed"``, the lecture's rules (a fixed warp grid whose warp tile must hold one mma, at
        most ``max_regs_per_thread`` registers, ``stages`` pipeline buffers); ``"triton-sm80"`` and
        ``"triton-sm90"``, the rules Triton's compiler applies for that compute capability (Ampere,
        Hopper): it lays out any warp count, spills registers rather than refusing, and allocates
        ``stages - 1`` buffers (``stages`` with Hopper's wgmma); only shared memory can refuse.
    """

    name: str
    n_sm: int
    clock_hz: float
    tc_flop_per_clk_per_sm: int
    tensor_cores_per_sm: int
    smem_bytes_per_clk_per_sm: int
    l2_port_bytes_per_clk_per_sm: int
    l2_bw_bytes_per_s: float
    hbm_bw_bytes_per_s: float
    l2_bytes: int
    smem_per_sm: int
    smem_limit: int
    smem_reserved_per_block: int
    regs_per_sm: int
    max_regs_per_thread: int
    reg_alloc_unit: int
    base_regs_per_thread: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    warp_size: int
    mma_m: int
    mma_n: int
    bytes_per_element: int
    mem_latency_s: float
    l2_partitions: int = 1
    t_launch_s: float = 0.0
    t_k_step_clk: float = 0.0
    pipeline_overlap: float = 1.0
    t_launch_graph_s: float = 0.0
    mma_sync_fraction: float = 1.0
    epilogue_smem_passes: int = 0
    resident_blocks_overlap: float = 0.0
    launch_rules: str = "seed"

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"Hardware.name must be a str, got {type(self.name).__name__}")
        if not (isinstance(self.launch_rules, str) and self.launch_rules in LAUNCH_RULES):
            raise ValueError(f"Hardware.launch_rules must be one of {LAUNCH_RULES}, got {self.launch_rules!r}")
        for f in fields(self):
            if f.name in ("name", "launch_rules"):
                continue
            value = getattr(self, f.name)
            counts = f.type == "int"  # a count of things (SMs, bytes, registers): an integer
            if not (is_integer(value) if counts else is_number(value)):
                noun = "a positive integer" if counts else "a positive finite number"
                raise ValueError(f"Hardware.{f.name} must be {noun}, got {value!r} ({type(value).__name__})")
            value = int(value) if counts else float(value)
            if f.name in _MAY_BE_ZERO:
                if not (math.isfinite(value) and value >= 0):
                    raise ValueError(f"Hardware.{f.name} must be zero or positive and finite, got {value!r}")
            elif not (math.isfinite(value) and value > 0):
                raise ValueError(f"Hardware.{f.name} must be positive and finite, got {value!r}")
            if counts and value > MAX_COUNT:
                raise ValueError(f"Hardware.{f.name} must be at most {MAX_COUNT} (a C int), got {value!r}")
            object.__setattr__(self, f.name, value)
        if self.resident_blocks_overlap > 1:
            raise ValueError(
                f"Hardware.resident_blocks_overlap must be at most 1, got {self.resident_blocks_overlap!r}"
            )
        if self.pipeline_overlap > 1:
            raise ValueError(f"Hardware.pipeline_overlap must be at most 1 (all hidden), got {self.pipeline_overlap!r}")
        if self.mma_sync_fraction > 1:
            raise ValueError(
                f"Hardware.mma_sync_fraction must be at most 1 (the fastest path's rate), got {self.mma_sync_fraction!r}"
            )
        if self.l2_partitions > self.l2_bytes:
            raise ValueError(f"Hardware.l2_partitions ({self.l2_partitions}) exceeds l2_bytes ({self.l2_bytes})")
        if self.smem_limit > self.smem_per_sm:
            raise ValueError(f"Hardware.smem_limit ({self.smem_limit}) exceeds smem_per_sm ({self.smem_per_sm})")

    @property
    def peak_flops(self) -> float:
        """Dense FP16 tensor-core peak of the chip in FLOP/s: ``n_sm * tc_flop_per_clk_per_sm * clock_hz``."""
        return self.n_sm * self.tc_flop_per_clk_per_sm * self.clock_hz

    @property
    def l2_bytes_shared(self) -> int:
        """L2 bytes that hold data every SM reads: one section's share, ``l2_bytes // l2_partitions``."""
        return self.l2_bytes // self.l2_partitions

    @property
    def flop_per_clk_per_tensor_core(self) -> float:
        """FLOP per clock of one tensor core."""
        return self.tc_flop_per_clk_per_sm / self.tensor_cores_per_sm

    @property
    def key(self) -> str:
        """The short name :data:`PROFILES` knows this machine by (``"a100-sxm4"``), or ``""`` for a machine of its own.

        A copy with one value changed (:func:`dataclasses.replace`) is another machine and has no key.
        """
        return next((key for key, hw in PROFILES.items() if hw == self), "")

    @property
    def label(self) -> str:
        """How tables, figures and the console name this machine: its :attr:`key`, or its :attr:`name` when it has none.

        Examples
        --------
        >>> H100_TC.label, replace(H100_TC, name="H100, 114 SMs", n_sm=114).label
        ('h100-lecture', 'H100, 114 SMs')
        """
        return self.key or self.name


def check_hardware(hw) -> Hardware:
    """``hw`` itself when it is a :class:`Hardware`, the lecture's machine when it is None; otherwise a TypeError naming ``hw``.

    The lecture's machine is ``PROFILES[DEFAULT_PROFILE]``: :data:`H100_TC`.

    Examples
    --------
    >>> check_hardware(None) is H100_TC
    True
    """
    if hw is None:
        return PROFILES[DEFAULT_PROFILE]
    if not isinstance(hw, Hardware):
        raise TypeError(f"hw must be a Hardware (e.g. schedlab.H100_TC), got {hw!r} ({type(hw).__name__})")
    return hw


#: The H100 SXM5 with FP16 tensor cores, the lecture's machine.
H100_TC = Hardware(
    name="H100 SXM5 (FP16 tensor cores)",
    n_sm=132,
    clock_hz=989.4e12 / (132 * 4096),
    tc_flop_per_clk_per_sm=4096,
    tensor_cores_per_sm=4,
    smem_bytes_per_clk_per_sm=128,
    l2_port_bytes_per_clk_per_sm=64,
    l2_bw_bytes_per_s=12e12,
    hbm_bw_bytes_per_s=3.35e12,
    l2_bytes=50 * MiB,
    smem_per_sm=228 * KiB,
    smem_limit=227 * KiB,
    smem_reserved_per_block=1 * KiB,
    regs_per_sm=64 * KiB,
    max_regs_per_thread=255,
    reg_alloc_unit=8,
    base_regs_per_thread=40,
    max_threads_per_sm=2048,
    max_blocks_per_sm=32,
    warp_size=32,
    mma_m=16,
    mma_n=8,
    bytes_per_element=2,
    mem_latency_s=750e-9,
)


#: L2 bandwidth, measured here as a lower bound on an H200 (GH100, 132 SMs, as the H100 SXM5): Triton
#: tutorial 03's fastest configuration of 1024 x 1024 x 16384 (schedlab/data/triton-timings/h200-run1;
#: 64 x 128 x 128, one wave of 128 tiles) loaded its tiles' A and B panels, 768 MiB, every byte through L2,
#: in 59.9 us, launch, fill and epilogue included (tests/test_gpus.py re-derives it). It is above what
#: gpu-l2-cache [BENCH-DATA] measured on an H200 with every block reading one data set (9.78 TB/s).
_GH100_L2_BW = 13.4e12
#: HBM read bandwidth [BENCH-DATA] measured on the H200: gpu-l2-cache's plateau for data sets far
#: beyond L2 (0.1 to 4.9 GB: 3888 GB/s in every row), 81 % of the datasheet's 4.8 TB/s.
_H200_HBM_BW = 3.888e12
#: L1 latency, clocks: [BENCH-DATA] gpu-latency's pointer chase on an H100 PCIe (GH100) reads 34 clocks
#: from L1 (and 658 clocks at 1755 MHz from HBM, data sets of 0.5 to 1.5 GB).
_GH100_L1_LATENCY_CLK = 34.2
#: Loaded memory latency of the GH100 profiles, fitted: of 375 ns (gpu-latency's unloaded pointer chase to
#: HBM [BENCH-DATA], 658 clocks at 1755 MHz) to 750 ns (the lecture's loaded latency) in 25-ns steps, the value
#: under which the model ranks Inductor's list on the H200's main timing run best (mean Spearman over its 61
#: shapes; schedlab.studies.triton_check.latency_fit, re-derived by tests/test_gpus.py). The held-out run
#: was not used.
_GH100_LOADED_LATENCY_S = 550e-9
#: The fraction of the other terms a Triton software pipeline hides (all profiles but the lecture's).
#: No measurement of it was found: 0.9 is an assumption, the one value here chosen by looking at
#: outcomes (with it the best configurations of large GEMMs land near the medians issue 15 reports
#: for measured Triton kernels, 595 TFLOPS on the H100 and 226 on the A100; one value for both GPUs).
_TRITON_PIPELINE_OVERLAP = 0.9
#: Launch and prologue of an eager launch, seconds (all profiles but the lecture's): the part of
#: [TRITON]'s cuBLAS time on 2048 x 512 x 512 (10.47 us, the smallest shape published there) that the
#: h100-sxm model does not explain without it (tests/test_gpus.py re-derives it). It bounds the
#: launch from above (the cuBLAS kernel may be slower than the model's best). Checked against
#: [TRITONBENCH]: on a GB200, cuLaunchKernel alone takes 3.0-3.3 us and Triton's launcher 4.7-5.6 us
#: of CPU time per launch, which back-to-back eager launches of short kernels cannot hide.
_KERNEL_LAUNCH_S = 6.60e-6
#: Launch as one node of a replayed CUDA graph, seconds: [GRAPH-PROBE] measured a replay of N no-op
#: kernels as about 15 us fixed plus 0.58 us per node (an RTX 5070 Ti Laptop GPU, CUDA 13); the
#: per-node cost carried over to the datacentre GPUs is an assumption, and the replay's fixed part is
#: paid once per graph (a whole decode step), not per kernel.
_GRAPH_NODE_LAUNCH_S = 0.58e-6
#: Synchronisations one k-step of Triton's software pipeline passes unhidden, each taken as long as an
#: L1 round trip (an assumption), counted in the SASS of tutorial 03's kernel as Triton 3.9 compiles it
#: (tests/test_triton_rules.py): for sm_90 one wait for the stage's asynchronous copy and two CTA
#: barriers (one before the stage is read, one before it is overwritten); for sm_80 a third barrier, before
#: the prefetch of the next k-step's first operand slice into registers.
_K_STEP_SYNCS_SM90 = 3
_K_STEP_SYNCS_SM80 = 4
#: Fraction of Hopper's wgmma rate that mma.sync reaches: [LUO-HOPPER] measured both paths on an
#: H800 (the H100's GH100 at the same tensor-core rate): FP16 mma.sync m16n8k16 about 494 TFLOPS
#: against about 757 for the best dense FP16 wgmma, read second-hand (the tables were not checked
#: here, see the source text).
_HOPPER_MMA_SYNC_FRACTION = 494 / 757
#: Passes of the C tile through shared memory in Triton's epilogue: the accumulator's MMA layout is
#: converted to the store layout through shared memory (written once, read once).
_TRITON_EPILOGUE_SMEM_PASSES = 2
#: Resident blocks out of phase: each Triton program ends when its own epilogue does and the next starts
#: in its slot at once (Triton's Gluon tutorial 07-persistence: the GPU issues new work only when a
#: program has exited), so with r >= 2 a block's fill and epilogue run beside the others' k-steps, which
#: keep (r - 1)/r of the SM busy meanwhile.
_TRITON_RESIDENT_BLOCKS_OVERLAP = 1.0


#: The H100 SXM5 as close to a real one as the published measurements found allow (see its sources).
H100_SXM = replace(
    H100_TC,
    name="H100 SXM5（实测校准）",
    tc_flop_per_clk_per_sm=3289,
    l2_bw_bytes_per_s=_GH100_L2_BW,
    hbm_bw_bytes_per_s=3.35e12 * (_H200_HBM_BW / 4.8e12),
    l2_partitions=2,
    mem_latency_s=_GH100_LOADED_LATENCY_S,
    t_launch_s=_KERNEL_LAUNCH_S,
    t_launch_graph_s=_GRAPH_NODE_LAUNCH_S,
    t_k_step_clk=_K_STEP_SYNCS_SM90 * _GH100_L1_LATENCY_CLK,
    pipeline_overlap=_TRITON_PIPELINE_OVERLAP,
    mma_sync_fraction=_HOPPER_MMA_SYNC_FRACTION,
    epilogue_smem_passes=_TRITON_EPILOGUE_SMEM_PASSES,
    resident_blocks_overlap=_TRITON_RESIDENT_BLOCKS_OVERLAP,
    launch_rules="triton-sm90",
)


#: The A100 SXM4 80 GB: counts from its whitepaper and datasheet, rates and latencies measured (see its sources).
A100_SXM4 = replace(
    H100_TC,
    name="A100 SXM4 80GB",
    n_sm=108,
    clock_hz=1.41e9,
    tc_flop_per_clk_per_sm=1781,
    l2_bw_bytes_per_s=5.40e12,
    hbm_bw_bytes_per_s=1.769e12,
    l2_bytes=40 * MiB,
    l2_partitions=2,
    smem_per_sm=164 * KiB,
    smem_limit=163 * KiB,
    mem_latency_s=571.8 / 1.41e9,
    t_launch_s=_KERNEL_LAUNCH_S,
    t_launch_graph_s=_GRAPH_NODE_LAUNCH_S,
    t_k_step_clk=_K_STEP_SYNCS_SM80 * 36.0,
    pipeline_overlap=_TRITON_PIPELINE_OVERLAP,
    epilogue_smem_passes=_TRITON_EPILOGUE_SMEM_PASSES,
    resident_blocks_overlap=_TRITON_RESIDENT_BLOCKS_OVERLAP,
    launch_rules="triton-sm80",
)


#: The H200 SXM: the calibrated H100 SXM5 with the H200's HBM3e (the chip is the same GH100).
H200_SXM = replace(H100_SXM, name="H200 SXM", hbm_bw_bytes_per_s=_H200_HBM_BW)

_PROFILE_TABLE = {
    "h100-lecture": H100_TC,
    "h100-sxm": H100_SXM,
    "a100-sxm4": A100_SXM4,
    "h200-sxm": H200_SXM,
}
#: Short name (:attr:`Hardware.key`) -> machine. ``"h100-lecture"`` is :data:`H100_TC`, the lecture's machine.
PROFILES = MappingProxyType(_PROFILE_TABLE)
#: The profile an ``hw=None`` argument means: the lecture's machine.
DEFAULT_PROFILE = "h100-lecture"


#: How kernels are launched (:func:`launched`): ``"eager"``, one launch call per kernel
#: (``t_launch_s``), or ``"graph"``, as nodes of a replayed CUDA graph (``t_launch_graph_s``), as decode
#: usually runs.
LAUNCH_MODES = ("eager", "graph")


def launched(hw: Hardware, mode: str) -> Hardware:
    """``hw`` with the launch cost of ``mode`` (one of :data:`LAUNCH_MODES`) as its per-kernel ``t_launch_s``.

    ``"eager"`` is ``hw`` itself; ``"graph"`` is a copy that pays ``t_launch_graph_s`` per kernel (a
    machine of its own: its :attr:`Hardware.label` is its name, which says so).

    Examples
    --------
    >>> graph = launched(H100_SXM, "graph")
    >>> round(graph.t_launch_s * 1e6, 2), graph.label
    (0.58, 'H100 SXM5（实测校准）, CUDA graph')
    >>> launched(H100_SXM, "eager") is H100_SXM
    True
    >>> launched(H100_SXM, "stream")
    Traceback (most recent call last):
    ...
    ValueError: mode must be one of ('eager', 'graph'), got 'stream'
    """
    hw = check_hardware(hw)
    if mode not in LAUNCH_MODES:
        raise ValueError(f"mode must be one of {LAUNCH_MODES}, got {mode!r}")
    if mode == "eager":
        return hw
    return replace(hw, name=f"{hw.name}, CUDA graph", t_launch_s=hw.t_launch_graph_s)


def profile(name) -> Hardware:
    """The machine :data:`PROFILES` names ``name``; a ValueError listing the known names otherwise.

    Examples
    --------
    >>> profile("a100-sxm4").n_sm
    108
    >>> profile("h100-lecture") is H100_TC
    True
    >>> profile("b200")
    Traceback (most recent call last):
    ...
    ValueError: unknown GPU 'b200'; known: h100-lecture, h100-sxm, a100-sxm4, h200-sxm
    """
    if not isinstance(name, str) or name not in PROFILES:
        raise ValueError(f"unknown GPU {name!r}; known: {', '.join(PROFILES)}")
    return PROFILES[name]


def resolve_gpu(gpu) -> Hardware:
    """The machine of a profile name (:func:`profile`) or a :class:`Hardware` itself; a TypeError otherwise.

    Examples
    --------
    >>> resolve_gpu("a100-sxm4").n_sm, resolve_gpu(A100_SXM4) is A100_SXM4
    (108, True)
    """
    if isinstance(gpu, Hardware):
        return gpu
    if isinstance(gpu, str):
        return profile(gpu)
    raise TypeError(f"gpus must hold profile names {tuple(PROFILES)} or Hardware, got {gpu!r} ({type(gpu).__name__})")


@contextlib.contextmanager
def lecture_machine_replaced(hw: Hardware) -> Iterator[Hardware]:
    """Let ``hw`` be the lecture's machine, ``PROFILES["h100-lecture"]``, inside the ``with`` block.

    For the book's perturbation guards alone (``tests/test_book_guards.py``): they re-run the pages'
    doctests on a changed lecture machine, and the pages reach it both through ``hw=None`` and
    through the name ``"h100-lecture"``. It changes the one table every name and every ``hw=None``
    is read from, so it is not for threads, pages or the console, which pass their machine.

    Examples
    --------
    >>> fewer = replace(H100_TC, n_sm=114)
    >>> with lecture_machine_replaced(fewer):
    ...     check_hardware(None).n_sm, profile("h100-lecture").n_sm
    (114, 114)
    >>> check_hardware(None) is H100_TC
    True
    """
    before = _PROFILE_TABLE[DEFAULT_PROFILE]
    _PROFILE_TABLE[DEFAULT_PROFILE] = check_hardware(hw)
    try:
        yield hw
    finally:
        _PROFILE_TABLE[DEFAULT_PROFILE] = before
