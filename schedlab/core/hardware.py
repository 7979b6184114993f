"""Hardware parameter sets: frozen records, each field with its source.

The cost model never reads a device; it is handed one of these objects.
Change a value with :func:`dataclasses.replace`; the records are frozen and never mutated.

Every ``hw=None`` argument of schedlab means the default machine, :func:`default`: ``H100_TC``,
or the machine of the innermost :func:`using` block. So a page that calls
``schedlab.landscape(shape)`` can be re-run on a perturbed machine without editing it
(the book's perturbation test does exactly that)::

    with using(dataclasses.replace(H100_TC, n_sm=114)):
        landscape((4096, 4096, 4096))  # priced on 114 SMs
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from types import MappingProxyType

from schedlab.core.checks import is_integer, is_number

__all__ = [
    "resolve_gpu",
    "Hardware",
    "H100_TC",
    "H100_SOURCES",
    "H100_SXM",
    "A100_SXM4",
    "H200_SXM",
    "PROFILES",
    "PROFILE_SOURCES",
    "SOURCE_KEYS",
    "DEFAULT_PROFILE",
    "profile",
    "KiB",
    "MiB",
    "LAUNCH_RULES",
    "check_hardware",
    "default",
    "using",
]

KiB = 1024
#: Largest count field of a :class:`Hardware`: a C ``int``, as CUDA's device properties hold them
#: (larger values would overflow the model's int64 products of counts).
MAX_COUNT = 2**31 - 1
MiB = 1024 * KiB
#: The time terms a kernel may not pay at all (the lecture's machine pays none of them).
_MAY_BE_ZERO = frozenset({"t_launch_s", "t_k_step_clk", "pipeline_overlap"})
#: The rule sets that decide which configurations launch (:attr:`Hardware.launch_rules`); see
#: :func:`schedlab.core.space.launch_checks`.
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
        Seconds every kernel pays once, whatever its size: launch and prologue (default 0, the lecture's
        kernel starts for free).
    t_k_step_clk : float
        Clocks every k-step of the main loop pays that no pipelining hides: the barrier, the wait for the
        stage's data, address arithmetic and loop control (default 0).
    pipeline_overlap : float
        Fraction, in [0, 1], of the terms other than the slowest that the pipeline hides (default 1, all
        of them: a k-step as long as its slowest term). With ``p < 1`` a k-step lasts
        ``p * max + (1 - p) * sum`` of its terms.
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
        if self.pipeline_overlap > 1:
            raise ValueError(f"Hardware.pipeline_overlap must be at most 1 (all hidden), got {self.pipeline_overlap!r}")
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


def check_hardware(hw) -> Hardware:
    """``hw`` itself when it is a :class:`Hardware`, :func:`default` when it is None; otherwise a TypeError naming ``hw``."""
    if hw is None:
        return default()
    if not isinstance(hw, Hardware):
        raise TypeError(f"hw must be a Hardware (e.g. schedlab.H100_TC), got {hw!r} ({type(hw).__name__})")
    return hw


#: Where each H100 number comes from. Keys are :class:`Hardware` field names.
H100_SOURCES = {
    "n_sm": "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), H100 SXM5: 132 SMs",
    "clock_hz": "Implied by the datasheet's 989.4 dense FP16 TFLOPS: 989.4e12 / (132 SM x 4096 FLOP/clk) = 1.83 GHz",
    "tc_flop_per_clk_per_sm": "Whitepaper: 4 fourth-generation tensor cores x 512 dense FP16 FMA/clk = 4096 FLOP/clk/SM",
    "tensor_cores_per_sm": "Whitepaper: one tensor core per SM sub-partition, 4 per SM",
    "smem_bytes_per_clk_per_sm": "32 banks x 4 B per clock (CUDA C++ Programming Guide, shared memory)",
    "l2_port_bytes_per_clk_per_sm": "Lecture 10 assumption: 64 B/clk per SM to L2 (one 64 B sector per clock)",
    "l2_bw_bytes_per_s": "Lecture 8 assumption: ~12 TB/s aggregate L2 (microbenchmark order); seed claims hold for about 11.6-15 TB/s",
    "hbm_bw_bytes_per_s": "H100 SXM5 datasheet: HBM3 3.35 TB/s",
    "l2_bytes": "Whitepaper: 50 MB L2 cache",
    "smem_per_sm": "CUDA C++ Programming Guide, compute capability 9.0: 228 KiB shared memory per SM",
    "smem_limit": "CUDA C++ Programming Guide, compute capability 9.0: 227 KiB per block (opt-in)",
    "smem_reserved_per_block": "CUDA C++ Programming Guide: 1 KiB of shared memory reserved by the system per block",
    "regs_per_sm": "CUDA C++ Programming Guide, compute capability 9.0: 64 K 32-bit registers per SM",
    "max_regs_per_thread": "CUDA C++ Programming Guide: at most 255 registers per thread",
    "reg_alloc_unit": "CUDA occupancy calculator: registers allocated 256 per warp, i.e. 8 per thread",
    "base_regs_per_thread": "Seed lecture's register account: ~40 registers for addresses, loop state and fragments",
    "max_threads_per_sm": "CUDA C++ Programming Guide, compute capability 9.0: 2048 resident threads per SM",
    "max_blocks_per_sm": "CUDA C++ Programming Guide, compute capability 9.0: 32 resident blocks per SM",
    "warp_size": "CUDA: 32 threads per warp",
    "mma_m": "PTX ISA: mma.sync.m16n8k16 for FP16, 16 rows",
    "mma_n": "PTX ISA: mma.sync.m16n8k16 for FP16, 8 columns",
    "bytes_per_element": "FP16 operands: 2 bytes",
    "mem_latency_s": "Lecture 10 section 8.4 assumption: ~750 ns loaded global-memory latency; seed claims hold for about 700-800 ns",
    "t_launch_s": "Lecture assumption: 0, the seed's kernel starts and ends for free",
    "t_k_step_clk": "Lecture assumption: 0, a k-step lasts exactly as long as its slowest term",
    "pipeline_overlap": "Lecture assumption: 1, the pipeline hides every term but the slowest",
    "launch_rules": "Seed lecture's pruning: a fixed warp grid whose warp tile holds one m16n8 mma, at most 255 "
    "registers per thread, stages x (BM + BN) x BK x 2 bytes of shared memory",
}

#: Source of ``launch_rules`` for a profile that Triton compiles for compute capability 9.0 (Hopper).
_TRITON_SM90_RULES = (
    "Triton's compiler for sm_90 (read from triton-lang/triton, checked by compiling with Triton 3.9.0): "
    "warpsPerTileV2/V3 lay out any warp count (AccelerateMatmul.cpp), ptxas spills past 255 registers, "
    "lowerLoads allocates stages buffers with wgmma, stages - 1 without (Pipeliner/LowerLoops.cpp); "
    "only CompiledKernel._init_handles's shared-memory check refuses (compiler.py)"
)

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

# --- more GPUs ----------------------------------------------------------------------------------
#: The short keys the profiles' sources (:data:`PROFILE_SOURCES`) cite, each -> its entry in the
#: book's bibliography (``book/references.bib``, where title, version and link are given). A test
#: checks that every key a source cites is here, every entry exists, and the GPU page lists them all.
SOURCE_KEYS = MappingProxyType(
    {
        "H100-WP": "nvidia2022h100whitepaper",  # NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022)
        "A100-WP": "nvidia2020a100whitepaper",  # NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)
        "H200-DS": "nvidiaH200datasheet",  # NVIDIA H200 Tensor Core GPU datasheet (2024)
        "A100-DS": "nvidiaA100datasheet",  # NVIDIA A100 Tensor Core GPU datasheet (80 GB SXM4)
        "CUDA-PG": "nvidiaCudaGuide",  # CUDA C++ Programming Guide, features per compute capability
        # S. Bekman, "Machine Learning Engineering", "Maximum Achievable Matmul FLOPS": BF16 torch.matmul
        # (cuBLAS), best shape of a search: H100 SXM 794.5 TFLOPS (torch 2.7.0+cu126), A100 SXM 271.2
        "MAMF": "bekman2024mamf",
        "BENCH": "ernst2023gpubenches",  # D. Ernst, gpu-benches README (stream table: H100 PCIe, CUDA 11.7)
        # gpu-benches raw results: gpu-l2-cache/h200.txt and a100_80.txt (3088b33), cuda-stream/a100_80.txt
        # (cdcc732), gpu-latency/h100_pcie.txt (a7dc559), cuda-latency/a100_80.txt (2f91588)
        "BENCH-DATA": "ernst2024gpubenchesdata",
        "C&C-H100": "chipsandcheese2023h100",  # Chips and Cheese, "Nvidia's H100: Funny L2, ..." (2023-07-02)
        # triton#2339 (2023): on H100 the tutorial "only uses GMMA" (wgmma); cuBLAS 102.6 TFLOPS on 2048x512x512
        "TRITON": "triton2339",
    }
)

#: L2 bandwidth [BENCH-DATA] measured on an H200 (GH100, 132 SMs, as the H100 SXM5): the median of
#: gpu-l2-cache's rows with data sets of 8 to 40 MB (21 rows, 9.48 to 10.25 TB/s), where every
#: read hits L2 (beyond 44 MB it falls towards HBM).
_GH100_L2_BW = 9.78e12
#: HBM read bandwidth [BENCH-DATA] measured on the H200: gpu-l2-cache's plateau for data sets far
#: beyond L2 (0.1 to 4.9 GB: 3888 GB/s in every row), 81 % of the datasheet's 4.8 TB/s.
_H200_HBM_BW = 3.888e12
#: Loaded latency, clocks: [BENCH-DATA] gpu-latency's pointer chase on an H100 PCIe (GH100) reads
#: 658 clocks at 1755 MHz from HBM (data sets of 0.5 to 1.5 GB) and 34 clocks from L1.
_GH100_HBM_LATENCY_CLK, _GH100_L1_LATENCY_CLK, _GH100_LATENCY_MHZ = 658.4, 34.2, 1755
#: The fraction of the other terms a Triton software pipeline hides (all profiles but the lecture's).
#: No measurement of it was found: 0.9 is an assumption, the one value here chosen by looking at
#: outcomes (with it the best configurations of large GEMMs land near the medians issue 15 reports
#: for measured Triton kernels, 595 TFLOPS on the H100 and 226 on the A100; one value for both GPUs).
_TRITON_PIPELINE_OVERLAP = 0.9
#: Launch and prologue, seconds (all profiles but the lecture's): the part of [TRITON]'s cuBLAS
#: time on 2048 x 512 x 512 (10.47 us, the smallest shape published there) that the h100-sxm
#: model does not explain without it (tests/test_gpus.py re-derives it). It bounds the launch from
#: above (the cuBLAS kernel may be slower than the model's best); a 2023 measurement, form factor
#: not stated: no newer GPU-side launch measurement was found.
_KERNEL_LAUNCH_S = 7.1e-6

_H100_SXM_SOURCES = {
    **H100_SOURCES,
    "clock_hz": "Nominal 1.83 GHz implied by the datasheet's 989.4 TFLOPS (as the lecture); the sustained clock "
    "under tensor load was not found in a published measurement, so the measured rate below folds it in",
    "tc_flop_per_clk_per_sm": "Measured, effective: [MAMF] H100 SXM 794.5 TFLOPS (cuBLAS, BF16, torch 2.7.0+cu126) "
    "/ (132 SM x 1.83 GHz) = 3289 FLOP/clk/SM, 80 % of the nominal 4096. Path: Triton lowers tl.dot to "
    "wgmma on Hopper [TRITON], as cuBLAS does",
    "smem_bytes_per_clk_per_sm": "Measured: [BENCH] gpu-cache, the L1 of V100, A100 and H100 transfers 'close to "
    "128B/cycle/SM' (shared memory is the same SRAM)",
    "l2_port_bytes_per_clk_per_sm": "Unsourced: the lecture's 64 B/clk per SM kept "
    "(no per-SM L2 port measurement found)",
    "l2_bw_bytes_per_s": "Measured: [BENCH-DATA] gpu-l2-cache on an H200 (the same GH100 chip, 132 SMs): "
    "9.78 TB/s, the median of the rows with 8-40 MB data sets (9.48-10.25 TB/s)",
    "hbm_bw_bytes_per_s": "3.35 TB/s (datasheet) x 0.81, the read efficiency [BENCH-DATA] measured on the H200 "
    "(3888 of 4800 GB/s, the same GH100 memory system) = 2.71 TB/s; the efficiency carried over is an assumption",
    "l2_partitions": "Measured: [BENCH] gpu-latency and gpu-cache, the H100's L2 is 2 x 25 MB; beyond 25 MB data "
    "read by all SMs 'cannot be replicated in both L2 cache sections'",
    "mem_latency_s": "Measured, unloaded: [BENCH-DATA] gpu-latency on an H100 PCIe (GH100), 658 clocks at "
    "1755 MHz from HBM = 375 ns (a lower bound for the loaded latency)",
    "t_launch_s": "Derived: 7.1 us, [TRITON]'s cuBLAS time on 2048 x 512 x 512 (10.47 us) less this model's "
    "3.4 us without it; an upper bound (2023, form factor not stated; no newer measurement found)",
    "t_k_step_clk": "Composed from a measurement: 2 x 34 clocks, the L1 latency [BENCH-DATA] measured on an H100 "
    "PCIe: per k-step one wait on the stage's data in shared memory and one barrier (taking a barrier "
    "as long as an L1 round trip is an assumption)",
    "pipeline_overlap": "Assumption, not measured: 0.9, chosen so that large GEMMs land near the medians of "
    "measured Triton kernels in a private held-out benchmark of production shapes (595 TFLOPS on the H100, "
    "226 on the A100; the model page, section 模型与实测)",
    "launch_rules": _TRITON_SM90_RULES,
}

#: The H100 SXM5 as close to a real one as the published measurements found allow (see its sources).
H100_SXM = replace(
    H100_TC,
    name="H100 SXM5（实测校准）",
    tc_flop_per_clk_per_sm=3289,
    l2_bw_bytes_per_s=_GH100_L2_BW,
    hbm_bw_bytes_per_s=3.35e12 * (_H200_HBM_BW / 4.8e12),
    l2_partitions=2,
    mem_latency_s=_GH100_HBM_LATENCY_CLK / (_GH100_LATENCY_MHZ * 1e6),
    t_launch_s=_KERNEL_LAUNCH_S,
    t_k_step_clk=2 * _GH100_L1_LATENCY_CLK,
    pipeline_overlap=_TRITON_PIPELINE_OVERLAP,
    launch_rules="triton-sm90",
)

_A100_SOURCES = {
    **{name: text for name, text in H100_SOURCES.items() if "compute capability 9.0" not in text},
    "n_sm": "[A100-WP] A100 SXM4: 108 SMs",
    "clock_hz": "[A100-WP] boost clock 1410 MHz; [C&C-H100] on an A100-SXM4-40GB: 'Core clocks went to 1410 MHz "
    "under load and stays there' (measured sustained clock)",
    "tc_flop_per_clk_per_sm": "Measured, effective: [MAMF] A100 SXM 271.2 TFLOPS (cuBLAS, BF16, torch 2.6.0+cu126) "
    "/ (108 SM x 1.41 GHz) = 1781 FLOP/clk/SM, 87 % of the nominal 2048 [A100-WP]. Path: mma.sync "
    "(the A100 has no wgmma), which Triton and cuBLAS both use",
    "tensor_cores_per_sm": "[A100-WP] one tensor core per SM sub-partition, 4 per SM",
    "smem_bytes_per_clk_per_sm": "Measured: [BENCH] gpu-cache, the L1 of V100, A100 and H100 transfers 'close to "
    "128B/cycle/SM' (shared memory is the same SRAM)",
    "l2_port_bytes_per_clk_per_sm": "Unsourced: the lecture's 64 B/clk per SM kept",
    "l2_bw_bytes_per_s": "Measured: [BENCH-DATA] gpu-l2-cache on an A100 80GB: 5.40 TB/s, the median of the rows "
    "with 8-26 MB data sets (5.26-5.45 TB/s)",
    "hbm_bw_bytes_per_s": "Measured: [BENCH-DATA] cuda-stream on an A100 80GB, read column at 100 % occupancy: "
    "1769 GB/s (87 % of the datasheet's 2039 GB/s [A100-DS])",
    "l2_bytes": "[A100-WP] 40 MB L2 cache",
    "l2_partitions": "Measured: [BENCH] gpu-latency and gpu-cache, the A100's L2 is 2 x 20 MB",
    "smem_per_sm": "[CUDA-PG] compute capability 8.0: 164 KiB shared memory per SM",
    "smem_limit": "[CUDA-PG] compute capability 8.0: 163 KiB per block (opt-in)",
    "regs_per_sm": "[CUDA-PG] compute capability 8.0: 64 K 32-bit registers per SM",
    "max_threads_per_sm": "[CUDA-PG] compute capability 8.0: 2048 resident threads per SM",
    "max_blocks_per_sm": "[CUDA-PG] compute capability 8.0: 32 resident blocks per SM",
    "mma_m": "PTX ISA: mma.sync.m16n8k16 for FP16 (sm_80 and later), 16 rows",
    "mma_n": "PTX ISA: mma.sync.m16n8k16 for FP16 (sm_80 and later), 8 columns",
    "mem_latency_s": "Measured, unloaded: [BENCH-DATA] cuda-latency on an A100 80GB, 572 clocks at 1410 MHz from "
    "HBM = 405 ns (a lower bound for the loaded latency)",
    "t_launch_s": "Carried over from h100-sxm (7.1 us, derived from [TRITON]'s cuBLAS time on 2048 x 512 x 512): "
    "an assumption, no A100 measurement of launch and prologue was found",
    "t_k_step_clk": "Composed from a measurement: 2 x 36 clocks, the L1 latency [BENCH-DATA] measured on an "
    "A100 80GB: per k-step one wait on the stage's data (cp.async) and one barrier (taking a barrier as "
    "long as an L1 round trip is an assumption)",
    "pipeline_overlap": _H100_SXM_SOURCES["pipeline_overlap"],
    "launch_rules": "Triton's compiler for sm_80 (read from triton-lang/triton, checked by compiling with Triton "
    "3.9.0): warpsPerTileV2 lays out any warp count (AccelerateMatmul.cpp), ptxas spills past 255 registers, "
    "lowerLoads allocates stages - 1 buffers (Pipeliner/LowerLoops.cpp); only CompiledKernel._init_handles's "
    "shared-memory check refuses (compiler.py)",
}

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
    t_k_step_clk=2 * 36.0,
    pipeline_overlap=_TRITON_PIPELINE_OVERLAP,
    launch_rules="triton-sm80",
)

_H200_SOURCES = {
    **_H100_SXM_SOURCES,
    "hbm_bw_bytes_per_s": "Measured: [BENCH-DATA] gpu-l2-cache on an H200, data sets of 0.1-4.9 GB far beyond L2: "
    "3888 GB/s (81 % of the datasheet's 4.8 TB/s [H200-DS])",
    "l2_bw_bytes_per_s": "Measured: [BENCH-DATA] gpu-l2-cache on this H200: 9.78 TB/s, the median of the rows with "
    "8-40 MB data sets (9.48-10.25 TB/s)",
}
_H200_SOURCES["n_sm"] = "[H200-DS] the same GH100 chip as the H100 SXM5: 132 SMs"
_H200_SOURCES["l2_bytes"] = "[H100-WP] 50 MB L2 cache (the H200 is the same GH100 chip)"

#: The H200 SXM: the calibrated H100 SXM5 with the H200's HBM3e (the chip is the same GH100).
H200_SXM = replace(H100_SXM, name="H200 SXM", hbm_bw_bytes_per_s=_H200_HBM_BW)

#: Short name -> machine. ``"h100-lecture"`` is :data:`H100_TC`, the lecture's machine and the default.
PROFILES = MappingProxyType(
    {
        "h100-lecture": H100_TC,
        "h100-sxm": H100_SXM,
        "a100-sxm4": A100_SXM4,
        "h200-sxm": H200_SXM,
    }
)
#: The profile every function uses when not given one.
DEFAULT_PROFILE = "h100-lecture"
#: Short name -> {field name -> where its value comes from}, one entry for every field of every profile.
PROFILE_SOURCES = MappingProxyType(
    {
        "h100-lecture": MappingProxyType({**H100_SOURCES, "l2_partitions": "Lecture assumption: one shared L2"}),
        "h100-sxm": MappingProxyType(_H100_SXM_SOURCES),
        "a100-sxm4": MappingProxyType(_A100_SOURCES),
        "h200-sxm": MappingProxyType(_H200_SOURCES),
    }
)


def profile(name) -> Hardware:
    """The machine :data:`PROFILES` names ``name``; a ValueError listing the known names otherwise.

    ``"h100-lecture"`` names the lecture's machine as the lecture uses it, :func:`default`:
    ``H100_TC``, or the machine :func:`using` made the default (so a perturbed lecture machine
    reaches every table that names it).

    Examples
    --------
    >>> profile("a100-sxm4").n_sm
    108
    >>> profile("b200")
    Traceback (most recent call last):
    ...
    ValueError: unknown GPU 'b200'; known: h100-lecture, h100-sxm, a100-sxm4, h200-sxm
    """
    if not isinstance(name, str) or name not in PROFILES:
        raise ValueError(f"unknown GPU {name!r}; known: {', '.join(PROFILES)}")
    return default() if name == DEFAULT_PROFILE else PROFILES[name]


_DEFAULT: contextvars.ContextVar[Hardware] = contextvars.ContextVar("schedlab_default_hardware", default=H100_TC)


def default() -> Hardware:
    """The machine an ``hw=None`` argument means: ``H100_TC`` unless inside :func:`using`.

    Examples
    --------
    >>> default() is H100_TC
    True
    """
    return _DEFAULT.get()


@contextlib.contextmanager
def using(hw: Hardware) -> Iterator[Hardware]:
    """Make ``hw`` the default machine inside the ``with`` block (per thread and task; blocks nest).

    Results are cached per machine, so nothing computed for one machine is served for another.

    Examples
    --------
    >>> import dataclasses
    >>> fewer = dataclasses.replace(H100_TC, n_sm=114)
    >>> with using(fewer):
    ...     default().n_sm
    114
    >>> default().n_sm
    132
    """
    token = _DEFAULT.set(check_hardware(hw))
    try:
        yield hw
    finally:
        _DEFAULT.reset(token)


def resolve_gpu(gpu) -> tuple[str, Hardware]:
    """``(label, machine)`` of a profile name (:func:`~schedlab.core.hardware.profile`) or a :class:`Hardware` (its name).

    Examples
    --------
    >>> resolve_gpu("a100-sxm4")[1].n_sm, resolve_gpu(PROFILES["a100-sxm4"])[0]
    (108, 'A100 SXM4 80GB')
    """
    if isinstance(gpu, Hardware):
        return gpu.name, gpu
    if isinstance(gpu, str):
        return gpu, profile(gpu)
    raise TypeError(f"gpus must hold profile names {tuple(PROFILES)} or Hardware, got {gpu!r} ({type(gpu).__name__})")
