"""Why model-guided search wins: the same search with plainer surrogates, and the landscape that lets them.

:func:`schedlab.tuning.strategies.model_guided.model_guided` fits a ridge regression of log(measured time) to static
features and measures the predicted favourites. This module swaps its feature matrix and
nothing else (same 16 random starts, batch of 8, ridge strength, budget, noise, seeds):

``linear``     the six knobs' log2 (6 features): a plane in log-knob space
``quadratic``  those and their 21 pairwise products and squares (27)
``one-hot``    one indicator per knob value (26): no order between values, no interactions
``ours``       the chapter's 37 features (:func:`schedlab.tuning.features.feature_names`): the quadratic
               ones plus warp tile, occupancy, waves, wave fill, k-steps, padding, shared memory

Each matrix is standardised over the launchable configurations, as the chapter's is.

The landscape explains the table (:func:`hull_vertex_optimum`, :func:`plateau`): on most shapes the
optimum's plateau holds a vertex of the launchable set's convex hull in log2-knob space (largest
tiles and most warps for big shapes, smallest for decode), where a function linear in the
log-knobs is lowest, so a plane fitted to a few measurements already points there; and "within
5 %" of 4096^3 is one set of exact ties, so any surrogate that finds the vertex is done. (A hull
vertex is not the box corner of :func:`schedlab.studies.landscapes.optimum_at_box_corner`, which moves
one knob at a time and looks at exact ties only: 96 x 4096 x 4096 has no optimum at a box corner
but a hull vertex within 5 %.)

Like :mod:`schedlab.studies.guides`, this runs the search chapter's own core
(``schedlab.tuning.strategies.CORES["model"]`` through :func:`schedlab.tuning.harness.run_seeds`) on a
:class:`~schedlab.tuning.measurer.SearchContext` whose features alone are replaced.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_int, check_sequence
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.launch import launchable
from schedlab.core.shapes import as_mnk
from schedlab.core.stats import Interval, trials_interval
from schedlab.tuning.features import SURROGATES, surrogate_features
from schedlab.tuning.harness import first_within, run_seeds
from schedlab.tuning.measurer import (
    DEFAULT_BUDGET,
    DEFAULT_NOISE,
    check_factor,
    check_noise,
    check_seeds,
    noise_factors,
    search_context,
)
from schedlab.tuning.strategies import CORES

__all__ = ["Ablation", "ablation", "hull_vertex_optimum", "Plateau", "plateau"]


@dataclass(frozen=True, eq=False)
class Ablation:
    """Trials to within ``factor`` of model-guided search with each surrogate: ``trials[shape, surrogate, seed]``."""

    shapes: tuple[tuple[int, int, int], ...]
    surrogates: tuple[str, ...]
    seeds: tuple[int, ...]
    budget: int
    noise: float
    factor: float
    trials: np.ndarray = field(repr=False)

    def cell(self, shape, surrogate: str) -> Interval:
        """Trials to within ``factor`` of ``surrogate`` on ``shape``: :func:`~schedlab.core.stats.trials_interval`."""
        mnk = as_mnk(shape)
        if mnk not in self.shapes:
            raise ValueError(f"shape {mnk} is not in this ablation")
        if surrogate not in self.surrogates:
            raise ValueError(f"surrogate must be one of {self.surrogates}, got {surrogate!r}")
        return trials_interval(self.trials[self.shapes.index(mnk), self.surrogates.index(surrogate)])


def ablation(
    shapes,
    surrogates=SURROGATES,
    seeds=range(100),
    budget: int = DEFAULT_BUDGET,
    noise: float = DEFAULT_NOISE,
    factor: float = 1.05,
    hw: Hardware | None = None,
) -> Ablation:
    """Model-guided search with each surrogate's features, every seed, every shape.

    Examples
    --------
    >>> a = ablation([(4096, 4096, 4096)], ["linear", "ours"], seeds=range(10))
    >>> a.trials.shape, bool(a.cell((4096, 4096, 4096), "ours").estimate <= 24)
    ((1, 2, 10), True)
    """
    hw = check_hardware(hw)
    mnks = tuple(as_mnk(s) for s in check_sequence(shapes, "shapes", "(M, N, K)"))
    if not mnks:
        raise ValueError("shapes must name at least one (M, N, K)")
    surrogates = tuple(surrogates)
    bad = [s for s in surrogates if s not in SURROGATES]
    if not surrogates or bad:
        raise ValueError(f"surrogates must name some of {SURROGATES}, got {bad or surrogates!r}")
    seeds = check_seeds(seeds)
    noise, factor = check_noise(noise), check_factor(factor)
    budget = check_int("budget", budget, minimum=1)
    trials = np.empty((len(mnks), len(surrogates), len(seeds)))
    for i, mnk in enumerate(mnks):
        ctx = search_context(mnk, hw)
        n = ctx.n_configs
        factors = np.stack([noise_factors(s, noise, n) for s in seeds])
        for j, name in enumerate(surrogates):
            swapped = replace(ctx, features=surrogate_features(name, mnk, hw))
            _, believed, _ = run_seeds(CORES["model"], swapped, seeds, min(budget, n), factors)
            trials[i, j] = first_within(ctx.times[believed], ctx.optimum, factor)
    return Ablation(
        shapes=mnks, surrogates=surrogates, seeds=seeds, budget=budget, noise=noise, factor=factor, trials=trials
    )


@memoised(maxsize=4)
def _hull_candidates(hw: Hardware) -> frozenset:
    """Launchable indices qhull reports as vertices of the launchable set's hull in log2-knob space."""
    from scipy.spatial import ConvexHull  # scipy comes with the book extras (scikit-learn needs it)

    values = launchable(hw).array
    return frozenset(int(i) for i in ConvexHull(np.log2(values.astype(np.float64))).vertices)


def _extreme(points: np.ndarray, i: int) -> bool:
    """Whether ``points[i]`` is no convex combination of the other points (a linear program)."""
    from scipy.optimize import linprog

    others = np.delete(points, i, axis=0)
    A = np.vstack([others.T, np.ones(len(others))])
    b = np.concatenate([points[i], [1.0]])
    return linprog(np.zeros(len(others)), A_eq=A, b_eq=b, bounds=(0, None), method="highs").status == 2


def hull_vertex_optimum(shape, factor: float = 1.05, hw: Hardware | None = None) -> GemmConfig | None:
    """The first configuration (``SPACE`` order) within ``factor`` of the optimum at a vertex of the launchable hull.

    A hull vertex is an extreme point of the launchable configurations in log2-knob space: some
    function linear in the six log-knobs is lowest there and nowhere else, so a surrogate
    linear in the log-knobs can rank it first. ``None`` if the optimum's plateau holds no vertex.
    Candidates come from qhull's hull vertices; each is confirmed by a linear program (qhull
    also lists points that only lie on a face of the degenerate, grid-like set).

    Examples
    --------
    >>> hull_vertex_optimum((4096, 4096, 4096)).as_tuple()
    (256, 128, 32, 8, 5, 1)
    >>> hull_vertex_optimum((64, 4096, 4096)) is None  # 32 x 32 tiles: the middle of the box
    True
    """
    hw = check_hardware(hw)
    land = landscape(as_mnk(shape), hw)
    points = np.log2(launchable(hw).array.astype(np.float64))
    candidates = _hull_candidates(hw)
    for i in np.flatnonzero(land.time_s <= check_factor(factor) * land.best_time_s):
        if int(i) in candidates and _extreme(points, int(i)):
            return land.configs[i]
    return None


class Plateau(NamedTuple):
    """The configurations within ``factor`` of the optimum: how many, how many distinct times, the next ratio."""

    n_within: int
    n_times: int  # distinct model times among them (1: all exact ties)
    next_ratio: float  # the fastest time outside, over the optimum


def plateau(shape, factor: float = 1.05, hw: Hardware | None = None) -> Plateau:
    """The optimum's plateau on ``shape``.

    Examples
    --------
    >>> p = plateau((4096, 4096, 4096))
    >>> p.n_within, p.n_times, round(p.next_ratio, 2)
    (15, 1, 1.23)
    """
    land = landscape(as_mnk(shape), check_hardware(hw))
    inside = land.tie_groups(within=check_factor(factor))
    nxt = land.tie_groups(len(inside) + 1)[-1]
    return Plateau(sum(len(g.configs) for g in inside), len(inside), float(nxt.ratio))
