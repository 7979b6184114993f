"""The search chapter on real, measured landscapes: their structure, and every model-free tuner run on them.

A :class:`~schedlab.core.measured.MeasuredLandscape` (any Kernel Tuner cache file, read by
:func:`schedlab.core.measured.read_cache`) becomes a search context (:func:`measured_context`):
the configurations with a recorded time are the ones a tuner may measure, on the grid of the
knobs that take more than one value; every other grid point (one that failed to compile or
run, or was never recorded) is pruned before measuring, free, as unlaunchable configurations
are on the model.

The measuring rules are the harness's (:mod:`schedlab.studies.search.harness`): a budget of
unique measurements, cached repeats free, common random numbers per seed. Only the noise is
the landscape's own: seed ``s`` measures configuration ``i`` as one of its recorded repeats,
drawn uniformly by ``numpy.random.default_rng([0, s])`` (:func:`repeat_factors`); the truth a run
is scored against is the recorded mean.

:func:`structure` measures what a search can exploit (the share within 5 %, flat neighbour
pairs, one-knob local minima, whether the optimum sits on a corner of the knob box, the rank
correlation of a configuration's time with its neighbours'), for a measured landscape and the
model's alike; :func:`compare_measured` runs strategies over seeds on many landscapes.
The real tuners (:mod:`schedlab.studies.tuners`) take minutes here: :func:`record_runs` runs them
once (``python -m schedlab measured-tuners``) and :func:`recorded_cores` replays them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from threadpoolctl import threadpool_limits

from schedlab.core.checks import check_int
from schedlab.core.landscape import TIE_RTOL, landscape
from schedlab.core.measured import MeasuredLandscape, load_compact, read_cache, save_compact, to_cache
from schedlab.core.stats import Interval, trials_interval
from schedlab.studies.search import (
    CORES,
    DEFAULT_BUDGET,
    SearchContext,
    check_factor,
    check_seeds,
    first_within,
    run_seeds,
    search_context,
)
from schedlab.studies.search.features import grid_tables
from schedlab.studies.tuners import (
    BOOK_DATA,
    TUNERS,
    kernel_tuner_order,
    optuna_order,
    recorded_options,
    rules_record,
    versions,
)

__all__ = [
    "BOOK_MEASURED",
    "MODEL_FREE",
    "MEASURED_BUDGET",
    "FLAT",
    "measured_context",
    "repeat_factors",
    "Structure",
    "structure",
    "model_structure",
    "MeasuredComparison",
    "compare_measured",
    "measured_tuner_core",
    "MeasuredRuns",
    "record_runs",
    "load_runs",
    "recorded_cores",
    "book_landscapes",
    "book_tuner_cores",
    "write_compact",
]

#: Where the book's measured landscapes (compact ``.npz``) and their recorded tuner runs live.
BOOK_MEASURED = BOOK_DATA / "measured"
#: This package's strategies that need no model (model-guided search learns from the model's features).
MODEL_FREE = ("random", "descent", "annealing", "evolutionary")
#: Measurements per run on the measured landscapes: the search page's budget.
MEASURED_BUDGET = DEFAULT_BUDGET
#: Two neighbours whose times differ by less than this factor count as one flat step (a plateau).
FLAT = 1.01


def measured_context(measured: MeasuredLandscape) -> SearchContext:
    """The search context of a measured landscape: its configurations on the grid of its varying knobs.

    ``times`` are the recorded mean times in seconds; ``features`` is ``None`` (there is no model).

    Examples
    --------
    >>> from schedlab.core.measured import MeasuredLandscape
    >>> from types import MappingProxyType
    >>> m = MeasuredLandscape("gpu", "k", (64,), MappingProxyType({"a": (1, 2), "b": (7,)}),
    ...                       np.array([[0, 0], [1, 0]]), np.array([2.0, 1.0]), None, np.zeros((0, 2), int))
    >>> c = measured_context(m)
    >>> c.n_configs, c.neighbours.sizes, c.optimum
    (2, (2,), 0.001)
    """
    varying = measured.varying()
    if not varying:
        raise ValueError(f"{measured.source}: every knob takes one value; there is nothing to search")
    sizes = tuple(len(v) for v in measured.tune_params.values())
    tables = grid_tables(measured.knobs[:, varying], [sizes[j] for j in varying])
    times = measured.time_ms / 1e3
    times.flags.writeable = False
    return SearchContext(
        mnk=measured.problem_size,
        land=measured,
        neighbours=tables,
        times=times,
        optimum=float(times.min()),
        features=None,
    )


def repeat_factors(measured: MeasuredLandscape, seed: int) -> np.ndarray:
    """Seed ``seed``'s measurement of each configuration over its recorded mean: one recorded repeat each.

    Notes
    -----
    ``factor[i] = repeats_ms[i, r_i] / time_ms[i]`` with ``r_i`` uniform over the repeats in
    ascending order (so the order they were recorded in does not matter), drawn by
    ``numpy.random.default_rng([0, seed])`` (the harness's noise stream): every strategy run
    with one seed meets the same "machine", and the spread of a configuration's measurements is
    the spread it really had.

    Examples
    --------
    >>> from schedlab.core.measured import MeasuredLandscape
    >>> from types import MappingProxyType
    >>> m = MeasuredLandscape("gpu", "k", (), MappingProxyType({"a": (1, 2)}), np.array([[0], [1]]),
    ...                       np.array([2.0, 1.0]), np.array([[1.8, 2.2], [1.0, 1.0]]), np.zeros((0, 1), int))
    >>> f = repeat_factors(m, 0)
    >>> bool(f[0] in (0.9, 1.1)), float(f[1])
    (True, 1.0)
    """
    seed = check_int("seed", seed, minimum=0)
    if measured.repeats_ms is None:
        raise ValueError(f"{measured.source} records no repeats (times) to draw measurements from")
    repeats = np.sort(measured.repeats_ms, axis=1)  # a multiset: the cache file and its compact copy agree
    n, r = repeats.shape
    pick = np.random.default_rng([0, seed]).integers(r, size=n)
    return repeats[np.arange(n), pick] / measured.time_ms


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
        return not any(
            0 < v[j] < ends[j] and tables.line[j, i, v[j] - 1] >= 0 and tables.line[j, i, v[j] + 1] >= 0
            for j in range(tables.n_knobs)
        )

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
    """Trials-to-within-``factor`` per (landscape, strategy, seed), as :class:`schedlab.studies.compare.Comparison`.

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
    (:func:`repeat_factors` for a measured landscape; :func:`schedlab.studies.search.noise_factors`
    for the model). ``cores[name]`` is the strategy registry (strategy -> core) used on landscape
    ``name`` (default :data:`~schedlab.studies.search.CORES` on every one): recorded tuner runs
    replay per landscape (:func:`recorded_cores`).

    Examples
    --------
    >>> from schedlab.studies.search import noise_factors
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


# --- the real tuners -----------------------------------------------------------------------------


def _grid_index(context: SearchContext):
    """Map a configuration's positions on the varying knobs to its index (``-1``: cannot be measured)."""
    tables = context.neighbours
    return lambda positions: int(tables.full_to_launch[int(np.dot(positions, tables.strides))])


def measured_tuner_core(name: str):
    """A strategy core (:func:`schedlab.studies.search.run_seeds`) running real tuner ``name`` on a measured context.

    Kernel Tuner replays a cache holding seed ``s``'s measurements (:func:`~schedlab.core.measured.to_cache`;
    unlaunchable entries ``InvalidConfig``, unrecorded grid points absent, both pruned);
    Optuna asks for a position on each varying knob.
    """
    if name not in TUNERS:
        raise ValueError(f"tuner must be one of {tuple(TUNERS)}, got {name!r}")
    library, strategy = TUNERS[name]

    def run(context: SearchContext, budget: int, seed: int, times_ms: np.ndarray) -> list[int]:
        measured: MeasuredLandscape = context.land
        index_of = _grid_index(context)
        varying, names = measured.varying(), measured.knob_names
        if library == "optuna":
            sizes = {names[j]: size for j, size in zip(varying, context.neighbours.sizes)}
            return optuna_order(strategy, sizes, index_of, np.log(times_ms), budget, seed)
        position = [{str(v): p for p, v in enumerate(values)} for values in measured.tune_params.values()]

        def lookup(result):
            return index_of([position[j][str(result[names[j]])] for j in varying])

        return kernel_tuner_order(strategy, to_cache(measured, times_ms), lookup, budget, seed)

    def core(context, seeds, budget, factors, **_):
        order = np.full((len(seeds), budget), -1, dtype=np.int64)
        for row, (seed, fac) in enumerate(zip(seeds, factors)):
            with threadpool_limits(limits=1):  # as schedlab.studies.tuners.tuner_order: one BLAS thread
                o = run(context, budget, int(seed), context.land.time_ms * fac)
            order[row, : len(o)] = o
        return order, None

    core.__name__ = core.__qualname__ = f"measured_tuner_core_{name}"
    return core


def _digest(measured: MeasuredLandscape) -> str:
    """A fingerprint of what a tuner meets: the knobs, the configurations and their repeats."""
    h = hashlib.sha256(json.dumps({k: list(map(str, v)) for k, v in measured.tune_params.items()}).encode())
    repeats = np.round(np.sort(measured.repeats_ms, axis=1), 9)  # to the picosecond: a cache and its compact copy agree
    for a in (measured.knobs, measured.time_ms, repeats):
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True, eq=False)
class MeasuredRuns:
    """Recorded real-tuner runs on one measured landscape: the order each (tuner, seed) measured, ``-1`` padded."""

    landscape: str  # the landscape's source file
    digest: str  # its fingerprint: the runs hold only for these configurations and repeats
    names: tuple[str, ...]
    seeds: tuple[int, ...]
    budget: int
    versions: str
    orders: np.ndarray = field(repr=False)
    rules: str = ""  # every tuner's options under the rules (tuners.rules_record); "" in runs recorded before it was

    def save(self, path) -> Path:
        """Write the runs as an ``.npz`` to ``path``, whole or not at all."""
        from schedlab.core.files import write_atomically

        fields = {k: getattr(self, k) for k in ("landscape", "digest", "budget", "versions", "orders", "rules")}
        return write_atomically(
            path, lambda f: np.savez_compressed(f, names=np.array(self.names), seeds=np.array(self.seeds), **fields)
        )


def load_runs(path) -> MeasuredRuns:
    """Read runs written by :meth:`MeasuredRuns.save`."""
    with np.load(Path(path), allow_pickle=False) as f:
        return MeasuredRuns(
            landscape=str(f["landscape"]),
            digest=str(f["digest"]),
            names=tuple(str(x) for x in f["names"]),
            seeds=tuple(int(x) for x in f["seeds"]),
            budget=int(f["budget"]),
            versions=str(f["versions"]),
            orders=f["orders"].astype(np.int64),
            rules=str(f["rules"]) if "rules" in f else "",
        )


def record_runs(
    measured: MeasuredLandscape,
    names=tuple(TUNERS),
    seeds=range(20),
    budget: int = MEASURED_BUDGET,
    progress=None,
) -> MeasuredRuns:
    """Run every tuner in ``names`` for every seed on ``measured``; ``progress(done, total, label)`` after each run."""
    names, seeds = tuple(names), check_seeds(seeds)
    budget = check_int("budget", budget, minimum=1)
    context = measured_context(measured)
    budget = min(budget, context.n_configs)
    orders = np.full((len(names), len(seeds), budget), -1, dtype=np.int32)
    for j, name in enumerate(names):
        core = measured_tuner_core(name)
        for k, seed in enumerate(seeds):
            order, _, _ = run_seeds(core, context, (seed,), budget, repeat_factors(measured, seed)[None, :])
            orders[j, k] = order[0]
            if progress is not None:
                progress(j * len(seeds) + k + 1, len(names) * len(seeds), f"{name} seed {seed}")
    return MeasuredRuns(
        measured.source, _digest(measured), names, seeds, budget, versions(), orders, rules_record(budget)
    )


def recorded_cores(runs: MeasuredRuns, measured: MeasuredLandscape) -> dict:
    """Cores (name -> core) that replay ``runs`` on ``measured``; ``ValueError`` if they were recorded on another one.

    A core asked for a seed or a budget that was not recorded raises ``ValueError`` naming the
    command that records it.
    """
    if runs.digest != _digest(measured):
        raise ValueError(f"runs recorded on {runs.landscape} do not match {measured.source}: re-record them")

    def make(name):
        def core(context, seeds, budget, factors, **_):
            if recorded_options(runs.rules, runs.budget, name) != recorded_options(rules_record(budget), budget, name):
                raise ValueError(
                    f"{name} on {measured.source}: runs were recorded with other options than the rules give it now "
                    "(schedlab.studies.tuners.rules_record); re-record them with: python -m schedlab measured-tuners"
                )
            if not set(seeds) <= set(runs.seeds) or budget != runs.budget:
                raise ValueError(
                    f"{name} on {measured.source} with seeds {seeds[0]}..{seeds[-1]} and budget {budget} was not "
                    "recorded; record it with: python -m schedlab measured-tuners"
                )
            rows = [runs.seeds.index(s) for s in seeds]
            return runs.orders[runs.names.index(name), rows].copy(), None

        core.__name__ = core.__qualname__ = f"recorded_measured_core_{name}"
        return core

    return {name: make(name) for name in runs.names}


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

    Runs are matched to ``landscapes`` by the source file they were recorded on (and checked by
    :func:`recorded_cores`); a landscape with no recorded runs gets an empty registry.
    """
    folder = BOOK_MEASURED if folder is None else Path(folder)
    by_source = {m.source: name for name, m in landscapes.items()}
    cores: dict[str, dict] = {name: {} for name in landscapes}
    for path in sorted(folder.glob("runs-*.npz")):
        runs = load_runs(path)
        if runs.landscape not in by_source:
            raise ValueError(f"{path}: runs recorded on {runs.landscape}, which is not among the landscapes")
        name = by_source[runs.landscape]
        cores[name].update(recorded_cores(runs, landscapes[name]))
    return cores
