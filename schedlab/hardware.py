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
import numbers
from collections.abc import Iterator
from dataclasses import dataclass, fields

__all__ = ["Hardware", "H100_TC", "H100_SOURCES", "KiB", "MiB", "check_hardware", "default", "using"]

KiB = 1024
MiB = 1024 * KiB


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

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"Hardware.name must be a str, got {type(self.name).__name__}")
        for f in fields(self):
            if f.name == "name":
                continue
            value = getattr(self, f.name)
            counts = f.type == "int"  # a count of things (SMs, bytes, registers): an integer
            kind = numbers.Integral if counts else numbers.Real
            if isinstance(value, bool) or not isinstance(value, kind):
                noun = "a positive integer" if counts else "a positive finite number"
                raise ValueError(f"Hardware.{f.name} must be {noun}, got {value!r} ({type(value).__name__})")
            value = int(value) if counts else float(value)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"Hardware.{f.name} must be positive and finite, got {value!r}")
            object.__setattr__(self, f.name, value)
        if self.smem_limit > self.smem_per_sm:
            raise ValueError(f"Hardware.smem_limit ({self.smem_limit}) exceeds smem_per_sm ({self.smem_per_sm})")

    @property
    def peak_flops(self) -> float:
        """Dense FP16 tensor-core peak of the chip in FLOP/s: ``n_sm * tc_flop_per_clk_per_sm * clock_hz``."""
        return self.n_sm * self.tc_flop_per_clk_per_sm * self.clock_hz

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
    "smem_per_sm": "CUDA C++ Programming Guide, compute capability 9.0: 228 KB shared memory per SM",
    "smem_limit": "CUDA C++ Programming Guide, compute capability 9.0: 227 KB per block (opt-in)",
    "smem_reserved_per_block": "CUDA C++ Programming Guide: 1 KB of shared memory reserved by the system per block",
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
}

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
