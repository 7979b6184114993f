"""Buckets for changing shapes: which few configurations serve every token count ``M``.

In inference ``N`` and ``K`` are fixed by a layer's weights while ``M`` (the decode batch,
or the prefill length) changes from call to call. Tuning every ``M`` is impossible and one
configuration for all ``M`` is slow, so kernels are tuned per *bucket* of ``M`` and the
choice is cached. This chapter asks the model how few buckets are enough: :func:`bucket_study`
compares the covers of :mod:`schedlab.tuning.covers` (greedy, exact, contiguous ranges,
power-of-two bucketing) per Llama-3-8B projection; :func:`check_every_m` checks a cover at every
``M`` between the grid's points (a full evaluation per ``M``); :func:`optimal_tiles` maps the
optimal tile ``(BM, BN)`` over an ``(M, N)`` grid for a figure. :data:`PREFILL_MS` holds powers
of two, the ``2^k + 1`` just past them (where power-of-two bucketing pays most) and ``1.5 * 2^k``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import GemmConfig, config_array
from schedlab.core.launch import launchable
from schedlab.core.model import evaluate_many
from schedlab.core.shapes import LLAMA8B_PROJECTIONS, check_shape
from schedlab.tuning.covers import (
    DECODE_MS,
    TOLERANCE,
    Cover,
    Sweep,
    check_ms,
    exact_cover,
    greedy_cover,
    interval_cover,
    power_of_two_cover,
    readonly,
    sweep,
)

__all__ = [
    "PREFILL_MS",
    "TILE_MS",
    "TILE_NS",
    "BucketStudy",
    "bucket_study",
    "check_every_m",
    "TileMap",
    "optimal_tiles",
]

#: Prefill lengths 128 ... 8192: powers of two, one past each, and 1.5 times each.
PREFILL_MS = tuple(
    sorted({2**k for k in range(7, 14)} | {2**k + 1 for k in range(7, 13)} | {3 * 2**k for k in range(6, 12)})
)
#: Default (M, N) grid of :func:`optimal_tiles` (K = 4096).
TILE_MS = (1, 4, 16, 64, 256, 1024, 4096)
TILE_NS = (1024, 2048, 4096, 8192, 16384)


@dataclass(frozen=True)
class BucketStudy:
    """One projection's sweep and its covers: greedy, exact (``None`` past the search budget),
    contiguous ranges, and power-of-two bucketing rounding ``M`` down (the practice compared
    against) and up (``triton.next_power_of_2``)."""

    name: str
    sweep: Sweep
    greedy: Cover
    exact: Cover | None
    intervals: Cover
    power_of_two: Cover
    power_of_two_up: Cover

    @property
    def greedy_optimal(self) -> bool | None:
        """Whether greedy used the minimum number of configurations (``None`` if exact gave up)."""
        return None if self.exact is None else self.greedy.n_configs == self.exact.n_configs


def bucket_study(
    projections=LLAMA8B_PROJECTIONS, Ms=DECODE_MS, tol: float = TOLERANCE, hw: Hardware | None = None
) -> tuple[BucketStudy, ...]:
    """Sweep each ``(name, N, K)`` projection over ``Ms`` and compare the covers.

    Examples
    --------
    >>> (s,) = bucket_study([("O", 4096, 4096)], Ms=(1, 16, 17, 32, 33, 64))
    >>> s.exact.n_configs <= s.greedy.n_configs, s.greedy.keeps_all, s.exact.keeps_all
    (True, True, True)
    >>> s.power_of_two.keeps_all  # M = 17 and 33 reuse the optimum of 16 and 32
    False
    """
    out = []
    for name, N, K in projections:
        sw = sweep(N, K, Ms, hw)
        out.append(
            BucketStudy(
                name=name,
                sweep=sw,
                greedy=greedy_cover(sw, tol),
                exact=exact_cover(sw, tol),
                intervals=interval_cover(sw, tol),
                power_of_two=power_of_two_cover(sw, tol),
                power_of_two_up=power_of_two_cover(sw, tol, "up"),
            )
        )
    return tuple(out)


def check_every_m(cover: Cover, N: int, K: int, Ms=None, hw: Hardware | None = None) -> np.ndarray:
    """Slowdown of a set cover at every ``M`` in ``Ms`` (default: every integer of the cover's range).

    Each ``M`` uses the fastest of ``cover.configs`` there, as a lookup table would; this
    checks a cover found on a grid between the grid points. Costs one full evaluation per ``M``.

    Examples
    --------
    >>> g = greedy_cover(sweep(4096, 4096, Ms=(1, 16)))
    >>> bool(check_every_m(g, 4096, 4096).max() <= 1.05)
    True
    """
    Ms = check_ms(range(cover.Ms[0], cover.Ms[-1] + 1) if Ms is None else Ms)
    hw = check_hardware(hw)
    shapes = [(M, N, K) for M in Ms]
    best = evaluate_many(shapes, launchable(hw).array, hw)["time_s"].min(axis=1)
    return evaluate_many(shapes, config_array(cover.configs), hw)["time_s"].min(axis=1) / best


@dataclass(frozen=True)
class TileMap:
    """The optimum over an ``(M, N)`` grid at fixed ``K``: ``bm[i, j]``, ``bn[i, j]`` for ``Ms[i]``, ``Ns[j]``."""

    Ms: tuple[int, ...]
    Ns: tuple[int, ...]
    K: int
    configs: tuple[tuple[GemmConfig, ...], ...]
    bm: np.ndarray
    bn: np.ndarray
    best_time_s: np.ndarray
    tflops: np.ndarray

    @property
    def tiles(self) -> tuple[tuple[int, int], ...]:
        """The distinct ``(BM, BN)`` tiles on the map, ascending."""
        return tuple(sorted({(int(a), int(b)) for a, b in zip(self.bm.ravel(), self.bn.ravel())}))


def optimal_tiles(Ms=TILE_MS, Ns=TILE_NS, K: int = 4096, hw: Hardware | None = None) -> TileMap:
    """The optimal configuration, its tile ``(BM, BN)``, time and TFLOP/s at every ``(M, N)``.

    Examples
    --------
    >>> tm = optimal_tiles(Ms=(16, 4096), Ns=(4096,), K=4096)
    >>> tm.bm[:, 0].tolist(), tm.bn[:, 0].tolist()
    ([16, 256], [16, 128])
    """
    Ms, Ns = check_ms(Ms), check_ms(Ns)
    K = check_shape(1, 1, K)[2]
    space = launchable(hw)
    t = evaluate_many([(M, N, K) for M in Ms for N in Ns], space.array, hw)["time_s"]
    best = np.argmin(t, axis=1)  # the first in SPACE order on ties, as per shape
    times = t[np.arange(len(t)), best].reshape(len(Ms), len(Ns))
    rows = tuple(tuple(space.configs[b] for b in row) for row in best.reshape(len(Ms), len(Ns)).tolist())
    bm = np.array([[c.bm for c in row] for row in rows])
    bn = np.array([[c.bn for c in row] for row in rows])
    flop = 2.0 * np.array(Ms, dtype=float)[:, None] * np.array(Ns, dtype=float)[None, :] * K
    return TileMap(
        Ms=Ms,
        Ns=Ns,
        K=K,
        configs=rows,
        bm=readonly(bm),
        bn=readonly(bn),
        best_time_s=readonly(times),
        tflops=readonly(flop / times / 1e12),
    )
