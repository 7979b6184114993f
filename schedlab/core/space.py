"""The schedule space: knobs, configurations, and static pruning with reasons.

A configuration is one choice per knob of a Triton-style matmul kernel.
Pruning needs no measurement: a configuration cannot launch when its
pipeline overflows shared memory, when a warp's tile is smaller than one
tensor-core instruction, or when its accumulator overflows the registers.
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
from schedlab.core.hardware import Hardware, KiB, check_hardware, default

__all__ = [
    "SPACE",
    "KNOB_NAMES",
    "TRITON_NAMES",
    "WARP_GRID",
    "warp_grid",
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
    "MAX_TILES",
    "check_sequence",
    "MAX_K",
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
        """Shared memory of the pipeline on the default machine (:func:`schedlab.core.hardware.default`), in bytes.

        See :func:`pipeline_smem_bytes`.
        """
        return int(pipeline_smem_bytes(self.bm, self.bn, self.bk, self.stages, default()))


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


#: Most 16 x 16 output tiles, ``ceil(M / 16) * ceil(N / 16)``, of a shape the model prices: the HBM
#: replay walks every wave, so this bounds its time and memory (benchmarks/bench_limits.py times
#: all 3744 configs at the limit). 2**21 admits 16384 x 32768, or a 4096-token prefill through a 128256-word LM head.
MAX_TILES = 2**21
#: Largest K the model prices: with :data:`MAX_TILES` it keeps every byte count below 2**53 for
#: 2-byte elements, exact in int64 and in float64.
MAX_K = 2**24


def check_sequence(value, name: str, what: str) -> tuple:
    """``value`` as a tuple when it is an iterable (not a string); otherwise a TypeError naming ``name``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence of {what}, got {value!r} ({type(value).__name__})")
    return tuple(value)


def check_shape(M, N, K) -> tuple[int, int, int]:
    """Validate a GEMM shape: each of M, N, K a positive integer (not a bool), within the model's limits.

    Raises
    ------
    ValueError
        Naming the dimension, or the limit (:data:`MAX_TILES`, :data:`MAX_K`) the shape exceeds.

    Examples
    --------
    >>> check_shape(4096, 4096, 4096)
    (4096, 4096, 4096)
    >>> check_shape(2**20, 2**20, 4096)
    Traceback (most recent call last):
    ...
    ValueError: M x N = 1048576 x 1048576 has 4294967296 output tiles of 16 x 16, more than MAX_TILES = 2**21 (2097152) the model prices
    """
    out = []
    for name, value in (("M", M), ("N", N), ("K", K)):
        if not is_integer(value):
            raise ValueError(f"{name} must be a positive integer, got {value!r} ({type(value).__name__})")
        if value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value}")
        out.append(int(value))
    M, N, K = out
    if K > MAX_K:
        raise ValueError(f"K = {K} is more than MAX_K = 2**24 ({MAX_K}) the model prices")
    tiles = -(-M // 16) * -(-N // 16)
    if tiles > MAX_TILES:
        raise ValueError(
            f"M x N = {M} x {N} has {tiles} output tiles of 16 x 16, more than MAX_TILES = 2**21 "
            f"({MAX_TILES}) the model prices"
        )
    return M, N, K


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


def pipeline_smem_bytes(bm, bn, bk, stages, hw: Hardware):
    """Shared memory a block's pipeline allocates: ``stages * (bm + bn) * bk * bytes_per_element`` bytes.

    ``stages`` buffers, each holding an A tile (``bm x bk``) and a B tile (``bk x bn``). Arguments
    broadcast (ints or integer arrays); the runtime's per-block reservation is not included.

    Examples
    --------
    >>> from schedlab.core.hardware import H100_TC
    >>> pipeline_smem_bytes(256, 128, 32, 4, H100_TC) // 1024  # KiB
    96
    """
    return stages * (bm + bn) * bk * hw.bytes_per_element


def occupancy(arr: np.ndarray, hw: Hardware) -> tuple[np.ndarray, ...]:
    """(wy, wx, registers per thread, pipeline bytes, resident blocks per SM) of an ``(n, 5+)`` config array."""
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    wy, wx = warp_grid(warps)
    threads = warps * hw.warp_size
    regs = (bm // wy) * (bn // wx) // hw.warp_size + hw.base_regs_per_thread
    regs = -(-regs // hw.reg_alloc_unit) * hw.reg_alloc_unit
    smem = pipeline_smem_bytes(bm, bn, bk, stages, hw)
    by_smem = hw.smem_per_sm // (smem + hw.smem_reserved_per_block)
    by_regs = hw.regs_per_sm // (regs * threads)
    by_threads = hw.max_threads_per_sm // threads
    r = np.minimum.reduce([by_smem, by_regs, by_threads, np.full_like(bm, hw.max_blocks_per_sm)])
    return wy, wx, regs, smem, r


def launch_checks(arr: np.ndarray, hw: Hardware | None = None) -> dict[str, np.ndarray]:
    """Vectorised pruning: for an ``(n, 6)`` config array, one boolean array per failure code.

    Notes
    -----
    With the warp grid ``(wy, wx)`` and warp tile ``wm = bm / wy``, ``wn = bn / wx``:

    - ``smem``: :func:`pipeline_smem_bytes` ``> smem_limit``;
    - ``mma``: ``wm < 16`` or ``wn < 8`` (the warp tile is smaller than one m16n8 mma);
    - ``registers`` (only when the mma check passes): ``wm * wn / 32 + 40 > 255``,
      one FP32 accumulator register per output element per thread plus the rest;
    - ``occupancy`` (only when the others pass): one block needs more registers, threads or shared
      memory than one SM has (:func:`occupancy` gives 0 resident blocks). Never on the four profiles.
    """
    hw = check_hardware(hw)
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    wy, wx = warp_grid(warps)
    wm, wn = bm // wy, bn // wx
    smem = pipeline_smem_bytes(bm, bn, bk, stages, hw) > hw.smem_limit
    mma = (wm < hw.mma_m) | (wn < hw.mma_n)
    regs = ~mma & (wm * wn // hw.warp_size + hw.base_regs_per_thread > hw.max_regs_per_thread)
    fits_no_sm = ~(smem | mma | regs) & (occupancy(arr, hw)[-1] == 0)
    return {"smem": smem, "mma": mma, "registers": regs, "occupancy": fits_no_sm}


def _messages(hw: Hardware) -> dict[str, str]:
    return {
        "smem": f"共享内存超过 {hw.smem_limit // KiB} KiB",
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
