"""The landscape record: every launchable configuration's model time on one shape, its ties and quantiles."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_int, is_number
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import SPACE, GemmConfig
from schedlab.core.launch import launchable
from schedlab.core.model import evaluate
from schedlab.core.shapes import as_mnk

#: Percentiles of time/best that :func:`landscape` reports.
QUANTILES = (10, 25, 50, 75, 90)


def tflops(flop: float, time_s):
    """Achieved TFLOP/s: ``flop / time_s / 1e12``."""
    return flop / np.asarray(time_s) / 1e12


#: Relative tolerance under which two model times are one tie: different knob values that give
#: the same time up to rounding (1 ulp apart when, say, BK doubles and the k-steps halve).
TIE_RTOL = 1e-9


@dataclass(frozen=True)
class TieGroup:
    """Configurations with the same model time on one shape (an exact tie, up to ``TIE_RTOL``).

    ``configs`` keep ``SPACE`` order, so ``configs[0]`` is the one ``np.argmin`` picks.
    """

    configs: tuple[GemmConfig, ...]
    time_s: float
    tflops: float
    ratio: float

    @property
    def first(self) -> GemmConfig:
        return self.configs[0]

    def varying(self) -> tuple[tuple[tuple[str, ...], tuple[tuple[int, ...], ...]], ...]:
        """The tied knob values, factored: ``((knobs, values), ...)`` for the knobs that vary.

        A knob whose values combine freely with the rest is its own factor (``(("group",),
        ((1,), (4,), (8,)))``); knobs that only tie in some combinations stay together as one
        factor of value tuples (``(("bk", "stages"), ((32, 4), (32, 5), ...))``). The product of the
        factors, with the constant knobs, is exactly ``configs``.

        Examples
        --------
        >>> g = landscape((4096, 4096, 4096)).tie_groups(1)[0]
        >>> len(g.configs)
        15
        >>> g.varying()
        ((('bk', 'stages'), ((32, 4), (32, 5), (64, 3), (64, 4), (128, 2))), (('group',), ((1,), (4,), (8,))))
        """
        rows = {c.as_tuple() for c in self.configs}
        knobs = tuple(SPACE)
        joint = [j for j in range(len(knobs)) if len({r[j] for r in rows}) > 1]
        factors = []
        changed = True
        while changed and len(joint) > 1:
            changed = False
            for j in joint:
                rest = [i for i in joint if i != j]
                rest_rows = {tuple(r[i] for i in rest) for r in rows}
                values = sorted({r[j] for r in rows})
                if len(values) * len(rest_rows) == len({tuple(r[i] for i in joint) for r in rows}):
                    factors.append(((j,), tuple((v,) for v in values)))
                    joint = rest
                    changed = True
                    break
        if joint:
            factors.append((tuple(joint), tuple(sorted({tuple(r[i] for i in joint) for r in rows}))))
        factors.sort(key=lambda f: f[0][0])
        return tuple((tuple(knobs[i] for i in idx), values) for idx, values in factors)


#: (BK, stages) pairs that hide the memory latency equally well on the square GEMM (seed claim C3).
LATENCY_PAIRS = ((32, 4), (32, 5), (64, 3), (128, 2))


class Ties(NamedTuple):
    """Knobs that do not move a landscape's time (see :meth:`Landscape.ties`)."""

    pair_ratios: tuple[tuple[tuple[int, int], float], ...]  # ((bk, stages), time / best) around the best
    group_spread: float  # the most GROUP_M changes a time: max over the other knobs of slowest / fastest
    n_tiles: int  # distinct settings of the five knobs other than GROUP_M

    @property
    def worst_pair(self) -> float:
        """The slowest of :attr:`pair_ratios`, over the best time."""
        return max(ratio for _, ratio in self.pair_ratios)


@dataclass(frozen=True)
class Landscape:
    """Model times of every launchable configuration on one shape.

    ``configs[i]`` takes ``time_s[i]``; ``ratio = time_s / best_time_s``.
    """

    shape: tuple[int, int, int]
    configs: tuple[GemmConfig, ...]
    time_s: np.ndarray
    hw: Hardware
    index: dict = field(repr=False, compare=False)  # config -> position in configs

    @property
    def best_index(self) -> int:
        """Index of the fastest config; the first in ``SPACE`` order on ties (as ``np.argmin``)."""
        return int(np.argmin(self.time_s))

    @property
    def best(self) -> GemmConfig:
        return self.configs[self.best_index]

    @property
    def best_time_s(self) -> float:
        return float(self.time_s[self.best_index])

    @property
    def best_tflops(self) -> float:
        return float(tflops(2 * np.prod(self.shape, dtype=float), self.best_time_s))

    @property
    def ratio(self) -> np.ndarray:
        return self.time_s / self.best_time_s

    def n_within(self, factor: float) -> int:
        """How many configs run within ``factor`` x the best time (``1.05`` for 5 %)."""
        return int((self.time_s <= factor * self.best_time_s).sum())

    def tie_groups(self, k: int | None = None, within: float | None = None) -> list[TieGroup]:
        """Distinct model times, fastest first, each with every configuration that takes it.

        Parameters
        ----------
        k : int, optional
            Return only the ``k`` fastest groups.
        within : float, optional
            Return only the groups within ``within`` x the best time (``1.05`` for 5 %).

        Notes
        -----
        Times within a relative ``TIE_RTOL`` of a group's fastest member join that group. The
        model takes a max of terms, so knobs that only change a term below the bottleneck give
        exactly the same time: ``n_within(1.05)`` configs may be far fewer distinct times.

        Examples
        --------
        >>> land = landscape((4096, 4096, 4096))
        >>> best, runner_up = land.tie_groups(2)
        >>> len(best.configs), round(runner_up.ratio, 2)
        (15, 1.23)
        >>> len(land.tie_groups(within=1.05))
        1
        """
        if k is not None:
            check_int("k", k, minimum=1)
        if within is not None and (not is_number(within) or not within >= 1):
            raise ValueError(f"within must be a factor >= 1 (1.05 for 5 %), got {within!r}")
        order = np.argsort(self.time_s, kind="stable")
        times = self.time_s[order]
        flop = 2 * np.prod(self.shape, dtype=float)
        groups: list[TieGroup] = []
        start = 0
        while start < len(order) and np.isfinite(times[start]):
            if k is not None and len(groups) == k:
                break
            if within is not None and times[start] > within * self.best_time_s:
                break
            stop = start + int(np.searchsorted(times[start:], times[start] * (1 + TIE_RTOL), side="right"))
            members = tuple(self.configs[i] for i in sorted(order[start:stop]))
            t = float(times[start])
            groups.append(
                TieGroup(configs=members, time_s=t, tflops=float(tflops(flop, t)), ratio=t / self.best_time_s)
            )
            start = stop
        return groups

    def ties(self, pairs=LATENCY_PAIRS) -> Ties:
        """The best configuration with each ``(bk, stages)`` of ``pairs``, and how much GROUP_M matters.

        Examples
        --------
        >>> t = landscape((4096, 4096, 4096)).ties()
        >>> round(t.worst_pair, 3), t.group_spread, t.n_tiles
        (1.0, 1.0, 1248)
        """
        best = self.best
        ratios = tuple(
            ((bk, st), self.time_of(GemmConfig(best.bm, best.bn, bk, best.warps, st, best.group)) / self.best_time_s)
            for bk, st in pairs
        )
        by_tile: dict[tuple, list[float]] = {}
        for c, t in zip(self.configs, self.time_s):
            by_tile.setdefault(c.as_tuple()[:5], []).append(t)
        spread = max(max(ts) / min(ts) for ts in by_tile.values())
        return Ties(pair_ratios=ratios, group_spread=float(spread), n_tiles=len(by_tile))

    def quantiles(self, q=QUANTILES) -> dict[int, float]:
        """Percentiles of time/best over the launchable configs."""
        return {int(p): float(v) for p, v in zip(q, np.percentile(self.ratio, q))}

    def top(self, k: int = 6) -> list[tuple[GemmConfig, float, float, float]]:
        """The ``k`` fastest as ``(config, time_s, tflops, time/best)``, fastest first (stable on ties)."""
        order = np.argsort(self.time_s, kind="stable")[: check_int("k", k, minimum=1)]
        flop = 2 * np.prod(self.shape, dtype=float)
        return [
            (self.configs[i], float(self.time_s[i]), float(tflops(flop, self.time_s[i])), float(self.ratio[i]))
            for i in order
        ]

    def time_of(self, cfg: GemmConfig) -> float:
        """Model time of ``cfg`` on this shape; ``inf`` if it cannot launch."""
        i = self.index.get(cfg)
        return np.inf if i is None else float(self.time_s[i])


def landscape(shape, hw: Hardware | None = None) -> Landscape:
    """Every launchable configuration's model time on ``shape`` (cached).

    The configurations are :func:`~schedlab.core.launch.launchable` ``(hw)``, those that launch on shapes
    whose ``N`` and ``K`` are multiples of 16. They launch on every shape: under Triton's rules an operand
    whose rows are not aligned keeps fewer shared buffers (:class:`~schedlab.core.shapes.RowAlignment`), so a
    few more configurations launch there too (``launchable(hw, row_alignment(*shape))``); a landscape leaves
    them out, so that every shape's landscape covers one space, the one the search strategies walk. The
    kernel is priced as :func:`~schedlab.core.model.evaluate` prices it by default, its strides passed as
    arguments (``strides="runtime"``, :data:`~schedlab.core.shapes.STRIDES`).

    Examples
    --------
    >>> land = landscape((4096, 4096, 4096))
    >>> len(land.configs), land.best.as_tuple()
    (3744, (256, 128, 32, 8, 4, 1))
    """
    return _landscape(as_mnk(shape), check_hardware(hw))


@memoised(maxsize=256)
def _landscape(mnk: tuple[int, int, int], hw: Hardware) -> Landscape:
    space = launchable(hw)
    if not space.configs:
        raise ValueError(f"no configuration can launch on {hw.name} (schedlab.space_summary(hw) says why)")
    time_s = evaluate(space.array, *mnk, hw).time_s
    time_s.flags.writeable = False
    return Landscape(shape=mnk, configs=space.configs, time_s=time_s, hw=hw, index=space.index)
