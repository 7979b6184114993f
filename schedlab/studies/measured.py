"""The measured chapter: real, measured landscapes, their structure, and every model-free tuner run on them.

A measured landscape (any Kernel Tuner cache file, :func:`schedlab.tuning.cache.read_cache`) is
searched through its search context (:func:`schedlab.tuning.measured.measured_context`), each seed
measuring its recorded repeats (:func:`schedlab.tuning.measured.repeat_factors`).

:func:`structure` measures what a search can exploit (the share within 5 %, flat neighbour
pairs, one-knob local minima, whether the optimum sits on a corner of the knob box, the rank
correlation of a configuration's time with its neighbours'), for a measured landscape and the
model's alike; :func:`compare_measured` runs strategies over seeds on many landscapes.
The real tuners (:mod:`schedlab.tuning.tuners`) take minutes here: they are recorded once
(``python -m schedlab measured-tuners``, :func:`schedlab.tuning.records.record_measured_runs`) and
replayed (:func:`book_tuner_cores`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from schedlab.core.checks import check_int
from schedlab.core.landscape import TIE_RTOL, landscape
from schedlab.core.measured import MeasuredLandscape, load_compact, save_compact
from schedlab.core.stats import Interval, trials_interval
from schedlab.tuning.cache import read_cache
from schedlab.tuning.harness import first_within, run_seeds
from schedlab.tuning.measurer import DEFAULT_BUDGET, SearchContext, check_factor, check_seeds, search_context
from schedlab.tuning.records import BOOK_MEASURED, book_measured_runs, recorded_cores
from schedlab.tuning.strategies import CORES

__all__ = [
    "MODEL_FREE",
    "MEASURED_BUDGET",
    "FLAT",
    "Structure",
    "structure",
    "model_structure",
    "MeasuredComparison",
    "compare_measured",
    "book_landscapes",
    "book_tuner_cores",
    "write_compact",
]

#: This package's strategies that need no model (model-guided search learns from the model's features).
MODEL_FREE = ("random", "descent", "annealing", "evolutionary")
#: Measurements per run on the measured landscapes: the search page's budget.
MEASURED_BUDGET = DEFAULT_BUDGET
#: Two neighbours whose times differ by less than this factor count as one flat step (a plateau).
FLAT = 1.01


@dataclass(frozen=True)
class Structure:
    """What a landscape offers a search (:func:`structure`).

    Attributes
    ----------
    n_configs : int
        Configurations a tuner may measure.
    n_knobs : int
        Knobs that take more than one value.
    within : int
        Configurations within 5 % of the best (``factor``).
    flat_share : float
        Share of one-knob neighbour pairs whose times differ by less than :data:`FLAT`.
    local_minima : int
        Configurations no one-knob neighbour beats (strict local minima of the time, the optimum included).
    corner : bool
        Whether an optimum (the fastest, or one tied with it up to
        :data:`~schedlab.core.landscape.TIE_RTOL`) sits on a corner of the knob box: no knob can
        move one step both ways (each is at an end of its values, or a step cannot be measured),
        as :func:`schedlab.studies.landscapes.optimum_at_box_corner` asks of the model.
    knobs_at_end : int
        Knobs whose value at the fastest configuration is the smallest or the largest of their values.
    neighbour_rho : float
        Spearman rank correlation of a configuration's time with its one-knob neighbours' (over
        every neighbour pair): how much a neighbour's time tells.
    """

    name: str
    n_configs: int
    n_knobs: int
    within: int
    flat_share: float
    local_minima: int
    corner: bool
    knobs_at_end: int
    neighbour_rho: float

    @property
    def within_share(self) -> float:
        return self.within / self.n_configs


def structure(context: SearchContext, name: str, factor: float = 1.05) -> Structure:
    """The structure of the landscape of ``context`` (a measured one or the model's): see :class:`Structure`.

    Examples
    --------
    >>> s = structure(search_context((4096, 4096, 4096)), "model")
    >>> s.n_configs, s.n_knobs, s.within, s.corner
    (3744, 6, 15, True)
    """
    factor = check_factor(factor)
    tables = context.neighbours
    t = context.times
    a = np.repeat(np.arange(tables.n), tables.adjacent.shape[1])
    b = tables.adjacent.ravel()
    a, b = a[b >= 0], b[b >= 0]
    flat = np.abs(np.log(t[a] / t[b])) < np.log(FLAT)
    better_neighbour = np.zeros(tables.n, dtype=bool)
    np.logical_or.at(better_neighbour, a, t[b] < t[a])
    best = int(np.argmin(t))
    ends = np.array(tables.sizes) - 1

    def at_corner(i: int) -> bool:  # no knob can move one step both ways
        v = tables.knobs[i]
        return not any(0 < v[j] < ends[j] and (tables.steps[i, j] >= 0).all() for j in range(tables.n_knobs))

    tied = np.flatnonzero(t <= t[best] * (1 + TIE_RTOL))
    rho = spearmanr(t[a], t[b]).statistic
    return Structure(
        name=name,
        n_configs=tables.n,
        n_knobs=tables.n_knobs,
        within=int((t <= factor * t[best] * (1 + 1e-12)).sum()),
        flat_share=float(flat.mean()),
        local_minima=int((~better_neighbour).sum()),
        corner=any(at_corner(int(i)) for i in tied),
        knobs_at_end=int(((tables.knobs[best] == 0) | (tables.knobs[best] == ends)).sum()),
        neighbour_rho=float(rho),
    )


def model_structure(shape=(4096, 4096, 4096), factor: float = 1.05) -> Structure:
    """:func:`structure` of the model's landscape on ``shape`` (the chapter's 4096³ by default)."""
    land = landscape(shape)
    return structure(search_context(land.shape), "×".join(map(str, land.shape)), factor)


@dataclass(frozen=True, eq=False)
class MeasuredComparison:
    """Trials-to-within-``factor`` per (landscape, strategy, seed), as :class:`schedlab.tuning.compare.Comparison`.

    ``trials[l, s, k]``: measurements until seed ``seeds[k]`` of strategy ``strategies[s]`` truly
    believes a configuration within ``factor`` of landscape ``names[l]``'s optimum (``inf``: never
    within the budget); ``curves[l, s]``: the median best-so-far time over the optimum.
    """

    names: tuple[str, ...]
    strategies: tuple[str, ...]
    seeds: tuple[int, ...]
    budget: int
    factor: float
    trials: np.ndarray = field(repr=False)
    curves: np.ndarray = field(repr=False)

    def cell(self, name: str, strategy: str) -> Interval:
        """Median trials with its interval, p90 and reach (:func:`~schedlab.core.stats.trials_interval`)."""
        for label, items in (("landscape", self.names), ("strategy", self.strategies)):
            key = name if label == "landscape" else strategy
            if key not in items:
                raise ValueError(f"{label} must be one of {items}, got {key!r}")
        return trials_interval(self.trials[self.names.index(name), self.strategies.index(strategy)])


def compare_measured(
    contexts: Mapping[str, SearchContext],
    factors: Mapping[str, Callable[[int], np.ndarray]],
    strategies: Sequence[str] = MODEL_FREE,
    seeds=range(50),
    budget: int = MEASURED_BUDGET,
    factor: float = 1.05,
    cores: Mapping[str, Mapping] | None = None,
) -> MeasuredComparison:
    """Run ``strategies`` for every seed on every landscape of ``contexts``.

    ``factors[name](seed)`` gives that landscape's measurement factors for a seed
    (:func:`repeat_factors` for a measured landscape; :func:`schedlab.tuning.measurer.noise_factors`
    for the model). ``cores[name]`` is the strategy registry (strategy -> core) used on landscape
    ``name`` (default :data:`~schedlab.tuning.strategies.CORES` on every one): recorded tuner runs
    replay per landscape (:func:`book_tuner_cores`).

    Examples
    --------
    >>> from schedlab.tuning.measurer import noise_factors
    >>> c = {"4096³": search_context((4096, 4096, 4096))}
    >>> f = {"4096³": lambda s: noise_factors(s, 0.03, 3744)}
    >>> r = compare_measured(c, f, ["random"], seeds=range(4), budget=100)
    >>> r.trials.shape, r.cell("4096³", "random").reached <= 1
    ((1, 1, 4), True)
    """
    seeds = check_seeds(seeds)
    factor = check_factor(factor)
    budget = check_int("budget", budget, minimum=1)
    names, strategies = tuple(contexts), tuple(strategies)
    registry = {name: CORES for name in names} if cores is None else cores
    for name in names:
        if name not in registry or name not in factors:
            raise ValueError(f"landscape {name!r} needs its factors and (if cores is given) its cores")
        for s in strategies:
            if s not in registry[name]:
                raise ValueError(f"strategy on {name} must be one of {tuple(registry[name])}, got {s!r}")
    trials = np.empty((len(names), len(strategies), len(seeds)))
    curves = np.empty((len(names), len(strategies), budget))
    for i, name in enumerate(names):
        context = contexts[name]
        fac = np.stack([factors[name](s) for s in seeds])
        for j, s in enumerate(strategies):
            _, believed, _ = run_seeds(registry[name][s], context, seeds, min(budget, context.n_configs), fac)
            best = context.times[believed]
            best = np.pad(best, ((0, 0), (0, budget - best.shape[1])), mode="edge")
            trials[i, j] = first_within(best, context.optimum, factor)
            curves[i, j] = np.median(best / context.optimum, axis=0)
    return MeasuredComparison(names, strategies, seeds, budget, factor, trials, curves)


def write_compact(cache_files, folder) -> list[Path]:
    """Read each Kernel Tuner cache of ``cache_files`` and write its compact ``.npz`` into ``folder``.

    The file keeps the cache's name, ``.json`` / ``.json.gz`` replaced by ``.npz``.
    """
    folder = Path(folder)
    out = []
    for path in map(Path, cache_files):
        stem = path.name.removesuffix(".gz").removesuffix(".json")
        out.append(save_compact(read_cache(path), folder / f"{stem}.npz"))
    return out


def book_landscapes(folder=None) -> dict[str, MeasuredLandscape]:
    """Every compact landscape (``*.npz`` other than ``runs-*``) in ``folder`` (default :data:`BOOK_MEASURED`), by device."""
    folder = BOOK_MEASURED if folder is None else Path(folder)
    paths = sorted(p for p in folder.glob("*.npz") if not p.name.startswith("runs-"))
    if not paths:
        raise ValueError(f"no measured landscapes (*.npz) in {folder}; write them with python -m schedlab measured")
    return {m.device: m for m in map(load_compact, paths)}


def book_tuner_cores(landscapes: Mapping[str, MeasuredLandscape], folder=None) -> dict[str, dict]:
    """Landscape name -> (tuner -> core replaying its recorded runs) from every ``runs-*.npz`` in ``folder``.

    Runs are matched to ``landscapes`` by the source file they were recorded on (and checked on replay by
    :func:`schedlab.tuning.records.recorded_cores`); a landscape with no recorded runs gets an empty registry.
    """
    runs = book_measured_runs(folder)
    sources = {m.source for m in landscapes.values()}
    for r in runs:
        if r.landscape not in sources:
            raise ValueError(f"runs recorded on {r.landscape}, which is not among the landscapes")
    return {
        name: recorded_cores(mine) if (mine := [r for r in runs if r.landscape == m.source]) else {}
        for name, m in landscapes.items()
    }
