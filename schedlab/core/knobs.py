"""The knobs of a Triton-style matmul kernel and the configurations they span.

A configuration is one choice per knob (:data:`SPACE`); :class:`GemmConfig` is one, validated
when built; :func:`config_array` is many as an int64 array, the form the model prices.
What a configuration costs in shared memory and registers is :mod:`schedlab.core.resources`;
whether it can launch, :mod:`schedlab.core.launch`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import is_integer
from schedlab.core.hardware import check_hardware

__all__ = [
    "SPACE",
    "knob_positions",
    "KNOB_NAMES",
    "TRITON_NAMES",
    "WARP_GRID",
    "check_knob",
    "GemmConfig",
    "all_configs",
    "config_array",
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

        For another machine: :func:`~schedlab.core.resources.pipeline_smem_bytes` with its ``hw``.
        """
        from schedlab.core.resources import pipeline_smem_bytes  # resources reads the knobs: imported here, not above

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


def knob_positions(arr: np.ndarray) -> np.ndarray:
    """``(n, 6)`` positions of each row's knob values in ``SPACE`` (rows of :func:`config_array`).

    Examples
    --------
    >>> knob_positions(config_array([GemmConfig(16, 16, 16, 1, 1, 1)])).tolist()
    [[0, 0, 0, 0, 0, 0]]
    """
    return np.stack([np.searchsorted(SPACE[k], arr[:, j]) for j, k in enumerate(SPACE)], axis=1)
