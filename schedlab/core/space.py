"""The schedule space: knobs, configurations, and static pruning with reasons.

A configuration is one choice per knob of a Triton-style matmul kernel.
Pruning needs no measurement. Which rules apply is part of the machine
(:attr:`~schedlab.core.hardware.Hardware.launch_rules`). Under the seed lecture's
rules a configuration cannot launch when its pipeline overflows shared memory,
when a warp's tile is smaller than one tensor-core instruction, or when its
accumulator overflows the registers. Under Triton's (read from its compiler) only
shared memory refuses: the compiler lays out any number of warps on any tile and
spills registers it lacks.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import is_integer
from schedlab.core.hardware import Hardware, KiB, check_hardware

__all__ = [
    "SPACE",
    "KNOB_NAMES",
    "TRITON_NAMES",
    "WARP_GRID",
    "warp_grid",
    "uses_wgmma",
    "triton_warps_per_tile",
    "pipeline_buffers",
    "accumulator_registers",
    "spilled_registers",
    "GemmConfig",
    "Reason",
    "all_configs",
    "config_array",
    "check_knob",
    "pipeline_smem_bytes",
    "launch_checks",
    "occupancy",
    "Launchable",
    "launchable",
    "reasons",
    "static_valid",
    "check_shape",
    "as_mnk",
    "MAX_COUNT",
    "shape_bytes_bound",
    "check_sequence",
]

#: Knob name -> allowed values, ascending. Key order is the order of :meth:`GemmConfig.as_tuple`.
SPACE = MappingProxyType(
    {
        "bm": (16, 32, 64, 128, 256),  # BLOCK_M: rows of C per program instance
        "bn": (16, 32, 64, 128, 256),  # BLOCK_N: columns of C per program instance
        "bk": (16, 32, 64, 128),  # BLOCK_K: depth of one k-step
        "warps": (1, 2, 4, 8),  # num_warps
        "stages": (1, 2, 3, 4, 5),  # num_stages: shared-memory pipeline depth
        "group": (1, 4, 8),  # GROUP_M: launch-order grouping along M (L2 reuse)
    }
)
KNOB_NAMES = tuple(SPACE)
#: Each knob's name in Triton: the ``triton.Config`` keyword (the tile sizes and ``GROUP_M``, as the
#: tutorial-style kernels and Inductor spell them) or attribute (``num_warps``, ``num_stages``).
TRITON_NAMES = MappingProxyType(
    {
        "bm": "BLOCK_M",
        "bn": "BLOCK_N",
        "bk": "BLOCK_K",
        "warps": "num_warps",
        "stages": "num_stages",
        "group": "GROUP_M",
    }
)

#: num_warps -> (warps along M, warps along N): how a block's warps tile its BM x BN output.
WARP_GRID = MappingProxyType({1: (1, 1), 2: (1, 2), 4: (2, 2), 8: (4, 2)})


def check_knob(name: str, value) -> int:
    """``value`` as an int when it is one of ``SPACE[name]``; otherwise a ValueError naming the knob."""
    if not is_integer(value):
        raise ValueError(f"{name} must be an integer from {SPACE[name]}, got {value!r} ({type(value).__name__})")
    if value not in SPACE[name]:
        raise ValueError(f"{name} must be one of {SPACE[name]}, got {value!r}")
    return int(value)


@dataclass(frozen=True, slots=True)
class GemmConfig:
    """One point of the schedule space; immutable and hashable.

    Parameters
    ----------
    bm, bn, bk : int
        BLOCK_M, BLOCK_N, BLOCK_K.
    warps : int
        num_warps.
    stages : int
        num_stages.
    group : int
        GROUP_M.

    Raises
    ------
    ValueError
        If a value is not an integer from ``SPACE`` (the message names the knob).

    Examples
    --------
    >>> c = GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1)
    >>> c.as_tuple()
    (256, 128, 32, 8, 4, 1)
    >>> c.warp_tile
    (64, 64)
    """

    bm: int
    bn: int
    bk: int
    warps: int
    stages: int
    group: int

    def __post_init__(self):
        for name in KNOB_NAMES:
            object.__setattr__(self, name, check_knob(name, getattr(self, name)))

    def as_tuple(self) -> tuple[int, int, int, int, int, int]:
        """The knob values in ``SPACE`` order."""
        return (self.bm, self.bn, self.bk, self.warps, self.stages, self.group)

    @property
    def warp_tile(self) -> tuple[int, int]:
        """(rows, columns) of C that one warp computes: ``(bm / wy, bn / wx)``."""
        wy, wx = WARP_GRID[self.warps]
        return self.bm // wy, self.bn // wx

    @property
    def smem_bytes(self) -> int:
        """Shared memory of the pipeline on the lecture's machine (:data:`~schedlab.core.hardware.H100_TC`), in bytes.

        For another machine: :func:`pipeline_smem_bytes` with its ``hw``.
        """
        return int(pipeline_smem_bytes(self.bm, self.bn, self.bk, self.warps, self.stages, check_hardware(None)))


@memoised(maxsize=1)
def all_configs() -> tuple[GemmConfig, ...]:
    """Every combination of knob values, in ``SPACE`` order (the last knob varies fastest).

    Examples
    --------
    >>> len(all_configs())
    6000
    >>> all_configs()[0].as_tuple()
    (16, 16, 16, 1, 1, 1)
    """
    return tuple(GemmConfig(*values) for values in itertools.product(*SPACE.values()))


def config_array(configs) -> np.ndarray:
    """Configurations as an ``(n, 6)`` int64 array with columns in ``SPACE`` order.

    Accepts a sequence of :class:`GemmConfig` or an array-like of knob rows; rows are validated.
    """
    if isinstance(configs, GemmConfig):
        configs = [configs]
    if isinstance(configs, (str, bytes)) or not isinstance(configs, Iterable):
        raise TypeError(
            f"configs must be a sequence of GemmConfigs or an (n, {len(KNOB_NAMES)}) array of knob rows, "
            f"got {configs!r} ({type(configs).__name__})"
        )
    if isinstance(configs, np.ndarray) and configs.dtype != object:
        arr = configs
    elif all(isinstance(c, GemmConfig) for c in configs):  # validated when built
        return np.array([c.as_tuple() for c in configs], dtype=np.int64).reshape(-1, len(KNOB_NAMES))
    else:
        try:
            rows = [c.as_tuple() if isinstance(c, GemmConfig) else tuple(c) for c in configs]
        except TypeError:
            raise ValueError(
                f"configs must be GemmConfigs or rows with {len(KNOB_NAMES)} columns {KNOB_NAMES}, got {configs!r}"
            ) from None
        arr = np.array(rows, dtype=object).reshape(len(rows), -1) if rows else np.zeros((0, 6), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != len(KNOB_NAMES):
        raise ValueError(f"configs must have {len(KNOB_NAMES)} columns {KNOB_NAMES}, got shape {arr.shape}")
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        for row in arr:
            for name, value in zip(KNOB_NAMES, row):
                check_knob(name, value)
        return arr.astype(np.int64)
    for j, name in enumerate(KNOB_NAMES):
        bad = ~np.isin(arr[:, j], SPACE[name])
        if bad.any():
            raise ValueError(f"{name} must be one of {SPACE[name]}, got {arr[bad, j][0]!r}")
    return arr.astype(np.int64, copy=False)


#: The largest count the model holds: its counts (blocks, waves, the HBM bytes the launch order replay
#: sums) are int64, and :func:`shape_bytes_bound` bounds the largest of them.
MAX_COUNT = 2**63 - 1


def shape_bytes_bound(M: int, N: int, K: int, bytes_per_element: int = 2) -> int:
    """An upper bound on every byte count the model makes of an ``M x N x K`` GEMM (Python integers).

    The HBM replay sums, over the waves, the panels each wave touches: at most ``32 K`` operand
    elements per 16 x 16 output tile (a 16-row A panel and a 16-column B panel, ``K`` deep), plus
    ``M N`` for C; every other count (blocks, waves, k-steps, their products) is smaller.

    Examples
    --------
    >>> shape_bytes_bound(4096, 4096, 4096) == (256 * 256 * 32 * 4096 + 4096**2) * 2
    True
    """
    return (-(-M // 16) * -(-N // 16) * 32 * K + M * N) * bytes_per_element


def check_sequence(value, name: str, what: str) -> tuple:
    """``value`` as a tuple when it is an iterable (not a string); otherwise a TypeError naming ``name``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence of {what}, got {value!r} ({type(value).__name__})")
    return tuple(value)


def check_shape(M, N, K) -> tuple[int, int, int]:
    """Validate a GEMM shape: each of M, N, K a positive integer (not a bool), its counts within int64.

    Any shape is priced whose :func:`shape_bytes_bound` (2-byte elements) is at most
    :data:`MAX_COUNT`: K up to 33,554,423 on 2**20 x 2**20 and 2,199,023,255,543 on 4096 x 4096;
    M and N up to 2**30 at K = 16.

    Raises
    ------
    ValueError
        Naming the dimension: one that is not a positive integer, or, when the counts would
        overflow, the largest of the three, with the most it could be with the other two as given.

    Examples
    --------
    >>> check_shape(4096, 4096, 4096)
    (4096, 4096, 4096)
    >>> check_shape(2**20, 2**20, 2**30)
    Traceback (most recent call last):
    ...
    ValueError: K = 1073741824 is more than 33554423, the largest K the model prices with M = 1048576 and N = 1048576 (its byte counts would overflow 64-bit integers)
    """
    out = []
    for name, value in (("M", M), ("N", N), ("K", K)):
        if not is_integer(value):
            raise ValueError(f"{name} must be a positive integer, got {value!r} ({type(value).__name__})")
        if value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value}")
        out.append(int(value))
    if shape_bytes_bound(*out) > MAX_COUNT:
        j = max(range(3), key=lambda i: out[i])  # the largest dimension, the first of equals
        lo, hi = 0, out[j]  # the largest value of dimension j that fits, with the other two as given
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if shape_bytes_bound(*(mid if i == j else out[i] for i in range(3))) <= MAX_COUNT:
                lo = mid
            else:
                hi = mid - 1
        names = "MNK"
        others = " and ".join(f"{names[i]} = {out[i]}" for i in range(3) if i != j)
        why = "its byte counts would overflow 64-bit integers"
        if not lo:
            raise ValueError(f"{names[j]} = {out[j]}: the model prices no {names[j]} with {others} ({why})")
        raise ValueError(
            f"{names[j]} = {out[j]} is more than {lo}, the largest {names[j]} the model prices with {others} ({why})"
        )
    return tuple(out)


def as_mnk(shape) -> tuple[int, int, int]:
    """``(M, N, K)`` of a shape record with an ``mnk`` attribute or of a 3-sequence, validated by :func:`check_shape`."""
    try:
        M, N, K = getattr(shape, "mnk", shape)
    except (TypeError, ValueError):
        raise ValueError(f"shape must be (M, N, K), got {shape!r}") from None
    return check_shape(M, N, K)


class Reason(NamedTuple):
    """Why a configuration cannot launch: a short code and a Chinese message."""

    code: str
    message: str


def warp_grid(warps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :data:`WARP_GRID`: (warps along M, warps along N) for an array of num_warps."""
    wy = np.select([warps == w for w in WARP_GRID], [g[0] for g in WARP_GRID.values()])
    wx = np.select([warps == w for w in WARP_GRID], [g[1] for g in WARP_GRID.values()])
    return wy, wx


def uses_wgmma(bm, bn, warps, hw: Hardware):
    """Where Triton lowers the dot to Hopper's warp-group MMA (mma v3, ``wgmma``): a boolean array.

    Only under ``launch_rules == "triton-sm90"``, and there when ``warps % 4 == 0``, ``bm % 64 == 0``
    and ``bn % 8 == 0`` (the FP16 conditions of ``supportMMA(DotOp, 3)`` in
    ``lib/Analysis/Utility.cpp``); elsewhere ``getMMAVersionSafe``
    (``lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp``) falls back to mma v2 (``mma.sync``).

    Examples
    --------
    >>> from schedlab.core.hardware import H100_SXM
    >>> uses_wgmma(np.array([64, 32, 128]), 128, np.array([4, 4, 2]), H100_SXM).tolist()
    [True, False, False]
    """
    if hw.launch_rules != "triton-sm90":
        return np.zeros(np.broadcast_shapes(np.shape(bm), np.shape(bn), np.shape(warps)), dtype=bool)
    return (np.asarray(warps) % 4 == 0) & (np.asarray(bm) % 64 == 0) & (np.asarray(bn) % 8 == 0)


def triton_warps_per_tile(bm, bn, warps, hw: Hardware) -> tuple[np.ndarray, np.ndarray]:
    """(warps along M, warps along N) as Triton lays ``warps`` warps on a ``bm x bn`` tile (integer arrays).

    Notes
    -----
    A port of ``warpsPerTileV2`` and ``warpsPerTileV3`` in
    ``lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp`` (one dot, no chained dot), which
    never fail: surplus warps replicate the tile.

    - mma v2 (``mma.sync``, shape per warp 16 x 8): start from ``(1, 1)`` with ``reps = (ceil(bm / 16),
      ceil(bn / 8))``; until the product reaches ``warps``, double the M count when ``reps_M >= reps_N``
      (halving ``reps_M`` unless it is 1), else double the N count and halve ``reps_N``.
    - mma v3 (``wgmma``, where :func:`uses_wgmma`): start from ``(4, 1)``; double the M count while
      ``bm > 16 x`` it, then the N count, until the product reaches ``warps``.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_SXM
    >>> [tuple(int(v) for v in triton_warps_per_tile(bm, bn, w, A100_SXM4)) for bm, bn, w in [(16, 64, 4), (32, 64, 8)]]
    [(1, 4), (2, 4)]
    >>> tuple(int(v) for v in triton_warps_per_tile(64, 128, 8, H100_SXM))  # wgmma
    (4, 2)
    """
    bm, bn, warps = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (bm, bn, warps)))
    wgmma = uses_wgmma(bm, bn, warps, hw)
    wy, wx = np.ones_like(bm), np.ones_like(bm)
    reps_m, reps_n = -(-bm // 16), -(-bn // 8)
    for _ in range(int(np.log2(max(SPACE["warps"])))):  # each pass doubles one count where still short
        short = wy * wx < warps
        along_m = short & (reps_m >= reps_n)
        along_n = short & ~along_m
        wy, wx = np.where(along_m, 2 * wy, wy), np.where(along_n, 2 * wx, wx)
        reps_m = np.where(along_m & (reps_m != 1), reps_m // 2, reps_m)
        reps_n = np.where(along_n, reps_n // 2, reps_n)
    vy, vx = np.full_like(bm, 4), np.ones_like(bm)
    for _ in range(int(np.log2(max(SPACE["warps"])))):
        short = vy * vx < warps
        along_m = short & (bm > 16 * vy)
        vy, vx = np.where(along_m, 2 * vy, vy), np.where(short & ~along_m, 2 * vx, vx)
    return np.where(wgmma, vy, wy), np.where(wgmma, vx, wx)


def pipeline_buffers(bm, bn, warps, stages, hw: Hardware):
    """How many A and B tiles a block's pipeline holds in shared memory (integer array).

    Notes
    -----
    - ``"seed"`` rules: ``stages``.
    - Triton (``"triton-sm80"``, ``"triton-sm90"``): ``lowerLoads`` in
      ``lib/Dialect/TritonGPU/Transforms/Pipeliner/LowerLoops.cpp`` allocates, per pipelined load,
      its def-use stage distance, ``stages - 1`` (``AssignLatencies`` puts the loads ``stages - 1``
      stages before the dot), plus one where the tile feeds a ``WarpGroupDotOp``
      (``loadRequiresAdditionalBuffer``: wgmma keeps one MMA in flight). Without pipelining
      (``stages = 1``) each operand still passes through one shared buffer on its way to the MMA.
      So ``max(stages - 1, 1)``, or ``stages`` with wgmma (:func:`uses_wgmma`). Checked by compiling
      the tutorial kernel with Triton 3.9.0 for sm_80 and sm_90: e.g. 128 x 128 x 64 with 3 stages
      reports ``shared`` = 65536 and 98304 bytes.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_SXM, H100_TC
    >>> [int(pipeline_buffers(128, 128, 4, 3, hw)) for hw in (H100_TC, A100_SXM4, H100_SXM)]
    [3, 2, 3]
    """
    if hw.launch_rules == "seed":
        return stages
    return np.where(uses_wgmma(bm, bn, warps, hw), stages, np.maximum(np.asarray(stages) - 1, 1))


def pipeline_smem_bytes(bm, bn, bk, warps, stages, hw: Hardware):
    """Shared memory a block's pipeline allocates: ``buffers * (bm + bn) * bk * bytes_per_element`` bytes.

    :func:`pipeline_buffers` buffers, each holding an A tile (``bm x bk``) and a B tile (``bk x bn``).
    Arguments broadcast (ints or integer arrays); the runtime's per-block reservation is not
    included. (Under Triton the epilogue's layout conversion reuses the freed buffers; it needs at
    most the FP16 tile of C, ``256 x 256 x 2`` bytes = 128 KiB, under every profile's limit.)

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_TC
    >>> pipeline_smem_bytes(256, 128, 32, 8, 4, H100_TC) // 1024  # KiB
    96
    >>> int(pipeline_smem_bytes(64, 128, 128, 4, 4, A100_SXM4)) // 1024  # 3 buffers on Ampere
    144
    """
    return pipeline_buffers(bm, bn, warps, stages, hw) * (bm + bn) * bk * hw.bytes_per_element


def accumulator_registers(arr: np.ndarray, hw: Hardware) -> np.ndarray:
    """FP32 accumulator registers per thread of an ``(n, 5+)`` config array: its warp's tile over 32 threads.

    The seed's warp grid (:data:`WARP_GRID`) under ``"seed"`` rules; Triton's layout
    (:func:`triton_warps_per_tile`) otherwise, where a warp's tile is at least one instruction's
    (16 x 8; a replicated warp holds the same fragment).
    """
    bm, bn, warps = arr[:, 0], arr[:, 1], arr[:, 3]
    if hw.launch_rules == "seed":
        wy, wx = warp_grid(warps)
        return (bm // wy) * (bn // wx) // hw.warp_size
    wy, wx = triton_warps_per_tile(bm, bn, warps, hw)
    return np.maximum(bm // wy, hw.mma_m) * np.maximum(bn // wx, hw.mma_n) // hw.warp_size


def spilled_registers(arr: np.ndarray, hw: Hardware) -> np.ndarray:
    """Registers per thread that ptxas spills to local memory, for an ``(n, 5+)`` config array.

    ``max(0, accumulator + base_regs_per_thread - max_regs_per_thread)`` under Triton's rules,
    whose kernels spill rather than fail; 0 under the seed's, which refuse such configurations.
    Compiling the tutorial kernel with Triton 3.9.0 for sm_90 shows it: 256 x 256 with 8 warps
    (256 accumulator registers) reports 255 registers and a 1024-byte stack frame.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_TC
    >>> arr = config_array([GemmConfig(128, 256, 64, 4, 3, 8)])
    >>> int(spilled_registers(arr, A100_SXM4)[0]), int(spilled_registers(arr, H100_TC)[0])
    (41, 0)
    """
    if hw.launch_rules == "seed":
        return np.zeros(len(arr), dtype=np.int64)
    return np.maximum(accumulator_registers(arr, hw) + hw.base_regs_per_thread - hw.max_regs_per_thread, 0)


def occupancy(arr: np.ndarray, hw: Hardware) -> tuple[np.ndarray, ...]:
    """(wy, wx, registers per thread, pipeline bytes, resident blocks per SM) of an ``(n, 5+)`` config array.

    ``(wy, wx)`` is the seed's warp grid (:data:`WARP_GRID`), the one the model's shared-memory term
    reads. Registers are :func:`accumulator_registers` plus ``base_regs_per_thread``, rounded up to
    the allocation unit; under Triton's rules at most ``max_regs_per_thread`` (ptxas spills the rest).
    """
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    wy, wx = warp_grid(warps)
    threads = warps * hw.warp_size
    regs = accumulator_registers(arr, hw) + hw.base_regs_per_thread
    if hw.launch_rules != "seed":
        regs = np.minimum(regs, hw.max_regs_per_thread)
    regs = -(-regs // hw.reg_alloc_unit) * hw.reg_alloc_unit
    smem = pipeline_smem_bytes(bm, bn, bk, warps, stages, hw)
    by_smem = hw.smem_per_sm // (smem + hw.smem_reserved_per_block)
    by_regs = hw.regs_per_sm // (regs * threads)
    by_threads = hw.max_threads_per_sm // threads
    r = np.minimum.reduce([by_smem, by_regs, by_threads, np.full_like(bm, hw.max_blocks_per_sm)])
    return wy, wx, regs, smem, r


def launch_checks(arr: np.ndarray, hw: Hardware | None = None) -> dict[str, np.ndarray]:
    """Vectorised pruning: for an ``(n, 6)`` config array, one boolean array per failure code.

    Which codes apply is ``hw.launch_rules`` (:data:`~schedlab.core.hardware.LAUNCH_RULES`).

    Notes
    -----
    ``"seed"`` rules. With the warp grid ``(wy, wx)`` and warp tile ``wm = bm / wy``, ``wn = bn / wx``:

    - ``smem``: :func:`pipeline_smem_bytes` ``> smem_limit``;
    - ``mma``: ``wm < 16`` or ``wn < 8`` (the warp tile is smaller than one m16n8 mma);
    - ``registers`` (only when the mma check passes): ``wm * wn / 32 + 40 > 255``,
      one FP32 accumulator register per output element per thread plus the rest;
    - ``occupancy`` (only when the others pass): one block needs more registers, threads or shared
      memory than one SM has (:func:`occupancy` gives 0 resident blocks). Never on the four profiles.

    Triton's rules (``"triton-sm80"``, ``"triton-sm90"``), as its compiler decides:

    - ``smem``: :func:`pipeline_smem_bytes` (Triton's buffers, :func:`pipeline_buffers`)
      ``> smem_limit``: ``CompiledKernel._init_handles`` (``python/triton/compiler/compiler.py``)
      raises ``OutOfResources`` when the kernel's ``shared`` exceeds the device's opt-in maximum,
      and the autotuner (``Autotuner._bench``, ``python/triton/runtime/autotuner.py``) skips it;
    - no ``mma`` rule: ``warpsPerTileV2`` / ``warpsPerTileV3`` (:func:`triton_warps_per_tile`) lay
      out any warp count on any tile;
    - no ``registers`` rule: ptxas caps a thread at 255 registers and spills the rest to local
      memory, so the kernel runs, slowly (:func:`occupancy` counts the capped registers);
    - ``occupancy`` as above.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4
    >>> arr = config_array([GemmConfig(16, 64, 32, 4, 3, 8)])
    >>> {code: bool(m[0]) for code, m in launch_checks(arr).items()}
    {'smem': False, 'mma': True, 'registers': False, 'occupancy': False}
    >>> {code: bool(m[0]) for code, m in launch_checks(arr, A100_SXM4).items()}
    {'smem': False, 'occupancy': False}
    """
    hw = check_hardware(hw)
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    smem = pipeline_smem_bytes(bm, bn, bk, warps, stages, hw) > hw.smem_limit
    if hw.launch_rules == "seed":
        wy, wx = warp_grid(warps)
        wm, wn = bm // wy, bn // wx
        mma = (wm < hw.mma_m) | (wn < hw.mma_n)
        regs = ~mma & (accumulator_registers(arr, hw) + hw.base_regs_per_thread > hw.max_regs_per_thread)
        checks = {"smem": smem, "mma": mma, "registers": regs}
    else:
        checks = {"smem": smem}
    failed = np.any(np.stack(list(checks.values())), axis=0)
    return {**checks, "occupancy": ~failed & (occupancy(arr, hw)[-1] == 0)}


def _messages(hw: Hardware) -> dict[str, str]:
    buffers = "" if hw.launch_rules == "seed" else "（Triton 的流水线缓冲）"
    return {
        "smem": f"共享内存{buffers}超过 {hw.smem_limit // KiB} KiB",
        "mma": f"warp 的块小于一条 mma（{hw.mma_m}×{hw.mma_n}）",
        "registers": f"每线程寄存器超过 {hw.max_regs_per_thread}",
        "occupancy": "一个块要的寄存器、线程或共享内存超过一个 SM 所有",
    }


def reasons(cfg: GemmConfig, hw: Hardware | None = None) -> tuple[Reason, ...]:
    """Every reason ``cfg`` cannot launch on ``hw``; empty when it can.

    Examples
    --------
    >>> [r.code for r in reasons(GemmConfig(bm=256, bn=256, bk=128, warps=8, stages=5, group=1))]
    ['smem', 'registers']
    >>> reasons(GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1))
    ()
    """
    hw = check_hardware(hw)
    checks = launch_checks(config_array([cfg]), hw)
    messages = _messages(hw)
    return tuple(Reason(code, messages[code]) for code, failed in checks.items() if failed[0])


def static_valid(cfg: GemmConfig, hw: Hardware | None = None) -> bool:
    """True when ``cfg`` can launch on ``hw`` (no pruning reason applies)."""
    return not reasons(cfg, hw)


class Launchable(NamedTuple):
    """The configurations that can launch on one machine, in ``SPACE`` order.

    ``configs[i]`` is row ``i`` of ``array`` (read-only, ``(n, 6)`` int64) and ``index[configs[i]] == i``.
    """

    configs: tuple[GemmConfig, ...]
    array: np.ndarray
    index: MappingProxyType


def launchable(hw: Hardware | None = None) -> Launchable:
    """The launchable configurations on ``hw`` (computed once per machine).

    Examples
    --------
    >>> space = launchable()
    >>> len(space.configs), space.array.shape, space.index[space.configs[5]]
    (3744, (3744, 6), 5)
    """
    return _launchable(check_hardware(hw))


@memoised(maxsize=8)
def _launchable(hw: Hardware) -> Launchable:
    configs = all_configs()
    arr = config_array(configs)
    ok = ~np.any(np.stack(list(launch_checks(arr, hw).values())), axis=0)
    array = arr[ok]
    array.flags.writeable = False
    kept = tuple(c for c, good in zip(configs, ok) if good)
    return Launchable(kept, array, MappingProxyType({c: i for i, c in enumerate(kept)}))
