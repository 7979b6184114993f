"""The measuring harness every strategy runs in: the rules, the noise, the traces, the seeds.

A tuner spends a *budget of measurements*. Here one measurement is one model
evaluation of one configuration on one shape -- looked up in the precomputed
:func:`schedlab.core.landscape.landscape`, which *is* the model, vectorised ahead of time --
times optional multiplicative noise, as a real timing would carry. :class:`Measurer`
spells out the rules for one shape and one seed; every strategy obeys them (the tests
replay each trace through a Measurer):

- only launchable configurations are proposed (pruning is free and comes first, as in
  Triton and TVM), so nothing is ever charged for a configuration that cannot launch;
- a configuration already measured is never charged again (the tuner caches results);
- measurement ``k`` is refused once ``k`` exceeds the budget;
- a tuner that fits a model to its measurements starts from :data:`INITIAL_SAMPLES` random ones:
  Kernel Tuner's ``bayes_opt``, Optuna's TPE (:data:`schedlab.studies.tuners.TPE_STARTUP_TRIALS`,
  not its default of 10) and model-guided search (whose own default, ``MG_INITIAL``, is shown
  beside it where the page compares);
- a run that stops before its budget is spent (a tuner's own stopping rule) is reported with
  the measurements it used (:func:`measurements_used`), never silently as a shorter budget.

A strategy is a *core* that runs many seeds of one shape at once (the contract:
:func:`run_seeds`); :func:`run_strategy` turns one seed's run into a :class:`SearchTrace`.
The cores themselves live in :mod:`schedlab.studies.search.strategies`.

Randomness: seed ``s`` drives two independent numpy streams, ``default_rng([0, s])``
for the noise (:func:`noise_factors`: one lognormal factor per configuration, so every
strategy run with seed ``s`` meets the same "machine": common random numbers) and
``default_rng([1, s])`` for the strategy's own choices (:func:`strategy_rng`). A
strategy's result for seed ``s`` never depends on which other seeds run beside it.

This module is a little over 500 lines on purpose: the measurer, the trace and the runner
are one contract -- :func:`run_strategy` builds the :class:`SearchTrace` that the tests
replay through a :class:`Measurer`, under the checks of :func:`run_seeds` -- and read best
in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_int, check_number
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.landscape import Landscape, landscape
from schedlab.core.measured import MeasuredLandscape
from schedlab.core.shapes import study_shapes
from schedlab.core.space import GemmConfig, as_mnk
from schedlab.studies.search.features import NeighbourTables, feature_matrix, neighbour_tables
from schedlab.studies.search.strategies import CORES  # the registry only: its strategy modules load on first use

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_NOISE",
    "DEFAULT_SHAPES",
    "INITIAL_SAMPLES",
    "MAX_NOISE",
    "Core",
    "BudgetExhausted",
    "Measurer",
    "SearchContext",
    "SearchTrace",
    "Descent",
    "run_strategy",
    "run_seeds",
    "search_context",
    "noise_factors",
    "strategy_rng",
    "strategy_seed_sequence",
    "trials_to_within",
    "first_within",
    "measurements_used",
    "check_seeds",
    "check_noise",
    "check_factor",
]

#: Measurements a strategy may spend by default (about 8 % of the 3744 launchable configs).
DEFAULT_BUDGET = 300
#: Default measurement noise: sigma of a lognormal factor, 3 % (a typical autotuning timing spread).
DEFAULT_NOISE = 0.03
#: The shapes :func:`schedlab.studies.compare.compare` uses by default:
#: :func:`schedlab.core.shapes.study_shapes` (22 distinct).
DEFAULT_SHAPES = study_shapes()
#: Random starting measurements of a tuner that fits a model to its measurements, under the rules:
#: Kernel Tuner's ``bayes_opt`` default (``popsize``), given to model-guided search (``initial``) when
#: the search page compares them.
INITIAL_SAMPLES = 20
#: Largest noise sigma accepted: a lognormal factor of e = 2.7x per sigma is already far beyond any
#: real timing spread, and much larger sigmas overflow the measured times.
MAX_NOISE = 1.0

_NOISE_STREAM, _STRATEGY_STREAM = 0, 1


# --- validation -------------------------------------------------------------------------


def check_seeds(seeds) -> tuple[int, ...]:
    """``seeds`` as a non-empty tuple of integers ``>= 0``; else ``ValueError`` naming ``seed`` or ``seeds``."""
    seeds = tuple(check_int("seed", s, minimum=0) for s in seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    return seeds


def check_noise(noise) -> float:
    """``noise`` as a float if it is a noise sigma in ``[0, MAX_NOISE]``; else ``ValueError``."""
    return check_number("noise", noise, minimum=0, maximum=MAX_NOISE)


def check_factor(factor) -> float:
    """``factor`` as a float if it is a finite "good enough" factor ``>= 1``; else ``ValueError``."""
    return check_number("factor", factor, minimum=1)


@dataclass(frozen=True, eq=False)
class SearchContext:
    """Everything a strategy core may read about one shape on one machine (:func:`search_context`).

    A measured landscape gives one too (:func:`schedlab.studies.measured.measured_context`): its
    ``land`` is the :class:`~schedlab.core.measured.MeasuredLandscape`, its ``times`` the recorded
    mean times and its ``features`` ``None`` (no model to compute them from), so every strategy
    but model-guided search runs on it unchanged.

    Attributes
    ----------
    mnk : tuple of int
        ``(M, N, K)`` (a measured landscape: its recorded problem size).
    land : Landscape or MeasuredLandscape
        The shape's landscape; ``land.configs[i]`` is launchable config ``i``.
    neighbours : NeighbourTables
        The one-knob-step tables over the same launchable configs.
    times : ndarray
        True (noise-free) model time of each launchable config, in seconds.
    optimum : float
        The shortest of ``times``.
    features : ndarray (n_configs, len(feature_names())) or None
        The learned model's standardised static features
        (:func:`schedlab.studies.search.features.feature_matrix`); ``None`` on a measured landscape.
    """

    mnk: tuple
    land: Landscape | MeasuredLandscape
    neighbours: NeighbourTables
    times: np.ndarray
    optimum: float
    features: np.ndarray | None

    @property
    def n_configs(self) -> int:
        """Number of launchable configurations (indices ``0 .. n_configs - 1``)."""
        return self.neighbours.n


@memoised(maxsize=64)
def _context(mnk: tuple[int, int, int], hw: Hardware) -> SearchContext:
    land = landscape(mnk, hw)
    neighbours = neighbour_tables(hw)
    if len(land.configs) != neighbours.n:
        raise RuntimeError("landscape and search tables disagree on the launchable configs")
    X = feature_matrix(neighbours.values, mnk, hw)
    X.flags.writeable = False
    return SearchContext(
        mnk=mnk, land=land, neighbours=neighbours, times=land.time_s, optimum=land.best_time_s, features=X
    )


def search_context(shape, hw: Hardware | None = None) -> SearchContext:
    """The tables every strategy reads for ``shape`` on ``hw``, built once and cached (by :func:`_context`).

    Examples
    --------
    >>> context = search_context((4096, 4096, 4096))
    >>> context.n_configs, context.land.configs[int(context.times.argmin())].as_tuple()
    (3744, (256, 128, 32, 8, 4, 1))
    """
    return _context(as_mnk(shape), check_hardware(hw))


def noise_factors(seed: int, noise: float, n: int) -> np.ndarray:
    """One lognormal factor per launchable config for ``seed``: ``exp(noise * z)``, z standard normal.

    Seed ``s`` measures config ``i`` as ``times[i] * noise_factors(s, noise, n)[i]``, whichever
    strategy asks: every strategy run with seed ``s`` meets the same "machine".
    """
    if noise == 0:
        return np.ones(n)
    z = np.random.default_rng([_NOISE_STREAM, seed]).standard_normal(n)
    return np.exp(noise * z)


def strategy_seed_sequence(seed: int) -> np.random.SeedSequence:
    """The entropy of a strategy's own choices for ``seed``: ``numpy.random.SeedSequence([1, seed])``, shared
    by this package's strategies and the real tuners (:mod:`schedlab.studies.tuners`)."""
    return np.random.SeedSequence([_STRATEGY_STREAM, seed])


def strategy_rng(seed: int) -> np.random.Generator:
    """The generator of a strategy's own choices for ``seed`` (from :func:`strategy_seed_sequence`)."""
    return np.random.default_rng(strategy_seed_sequence(seed))


# --- the measurer -------------------------------------------------------------------------


class BudgetExhausted(RuntimeError):
    """Raised by :meth:`Measurer.measure` when a new measurement would exceed the budget."""


class Measurer:
    """The rules of measuring, one measurement at a time: the reference every strategy's trace replays through.

    No strategy calls a Measurer: the cores run many seeds at once on arrays
    (:data:`schedlab.studies.search.CORES`). A Measurer spells out, for one shape and one
    seed, what those arrays must amount to -- the cost model as "the hardware", a budget of measurements, noise
    fixed by the seed, cached repeats free, unlaunchable configs refused -- and the tests
    replay every strategy's :class:`SearchTrace` through one to check that it charged
    exactly this. Use it to tune by hand, one measurement at a time (as the search page does).

    Parameters
    ----------
    shape : (M, N, K) or Shape
        The GEMM shape being tuned.
    budget : int
        Most measurements that may be charged (capped at the number of launchable configs).
    seed : int
        Seeds the noise: config ``i`` always measures ``true_i * exp(noise * z_i)``.
    noise : float
        Sigma of the multiplicative lognormal noise; ``0`` measures the model time exactly.
    hw : Hardware
        The machine.

    Notes
    -----
    Configurations are named by their index in ``landscape(shape).configs`` (the
    launchable configs in ``SPACE`` order), so an unlaunchable one cannot even be asked
    for; :meth:`measure_config` refuses one with ``ValueError``. A config measured
    before returns its cached result and costs nothing.

    Examples
    --------
    >>> m = Measurer((4096, 4096, 4096), budget=2, noise=0)
    >>> t = m.measure_config(GemmConfig(256, 128, 32, 8, 4, 1))
    >>> t == m.true_time(m.index_of(GemmConfig(256, 128, 32, 8, 4, 1)))
    True
    >>> m.measure_config(GemmConfig(256, 128, 32, 8, 4, 1)) == t, m.count  # cached: not charged again
    (True, 1)
    >>> m.measure(0) > t, m.count, m.remaining
    (True, 2, 0)
    >>> m.measure(1)
    Traceback (most recent call last):
    ...
    schedlab.studies.search.harness.BudgetExhausted: budget of 2 measurements spent
    >>> m.measure_config(GemmConfig(256, 256, 128, 8, 5, 1))
    Traceback (most recent call last):
    ...
    ValueError: config (256, 256, 128, 8, 5, 1) cannot launch; a tuner prunes it before measuring
    """

    def __init__(self, shape, budget: int, seed: int = 0, noise: float = DEFAULT_NOISE, hw: Hardware | None = None):
        self._context = search_context(shape, hw)
        self.shape = self._context.mnk
        self.seed = check_int("seed", seed, minimum=0)
        self.noise = check_noise(noise)
        self.budget = min(check_int("budget", budget, minimum=1), self._context.n_configs)
        self._measured = self._context.times * noise_factors(self.seed, self.noise, self._context.n_configs)
        self._measured_list = self._measured.tolist()
        self._seen = bytearray(self._context.n_configs)
        self.order: list[int] = []

    @property
    def n_configs(self) -> int:
        """Number of launchable configurations (the indices are ``0 .. n_configs - 1``)."""
        return self._context.n_configs

    @property
    def count(self) -> int:
        """Measurements charged so far."""
        return len(self.order)

    @property
    def remaining(self) -> int:
        return self.budget - len(self.order)

    def is_measured(self, i: int) -> bool:
        return bool(self._seen[i])

    def index_of(self, cfg: GemmConfig) -> int:
        """Index of a launchable ``cfg``; ``ValueError`` if it cannot launch."""
        i = self._context.land.index.get(cfg)
        if i is None:
            raise ValueError(f"config {cfg.as_tuple()} cannot launch; a tuner prunes it before measuring")
        return i

    def config(self, i: int) -> GemmConfig:
        return self._context.land.configs[i]

    def measure(self, i: int) -> float:
        """Measured time of launchable config ``i``, charging one measurement unless cached."""
        if not self._seen[i]:
            if len(self.order) >= self.budget:
                raise BudgetExhausted(f"budget of {self.budget} measurements spent")
            self._seen[i] = 1
            self.order.append(int(i))
        return self._measured_list[i]

    def measure_config(self, cfg: GemmConfig) -> float:
        return self.measure(self.index_of(cfg))

    def true_time(self, i: int) -> float:
        """The noise-free model time of config ``i`` (what the tuner cannot see)."""
        return float(self._context.times[i])


# --- the trace ------------------------------------------------------------------------------


class Descent(NamedTuple):
    """One descent of :func:`~schedlab.studies.search.coordinate_descent`: where it started and stopped.

    ``local`` is True when it stopped because no single-knob move improved the measured
    time (a local optimum); False when the budget ran out first. ``ratio`` is the end
    point's true time over the shape's optimum.
    """

    start: GemmConfig
    end: GemmConfig
    local: bool
    ratio: float


@dataclass(frozen=True, eq=False)
class SearchTrace:
    """What one tuning run measured, in order, and what it believed after each measurement.

    Attributes
    ----------
    strategy : str
        Strategy name.
    shape : tuple of int
        ``(M, N, K)``.
    seed, budget : int
        The run's seed and budget.
    noise : float
        Sigma of the lognormal measurement noise.
    configs : tuple of GemmConfig
        The measured configurations, in order (all launchable, no repeats).
    measured_s : ndarray
        Measured (noisy) times.
    true_s : ndarray
        The model's noise-free times of the same configs.
    best_so_far_s : ndarray
        After each measurement, the TRUE time of the config the tuner believes best (best
        measured time so far); ``best_so_far_s[k - 1]`` is what ``k`` measurements buy.
    optimum_s : float
        The shape's true optimum over all launchable configs.
    info : mapping
        Strategy-specific details (e.g. ``descents`` for coordinate descent).
    """

    strategy: str
    shape: tuple[int, int, int]
    seed: int
    budget: int
    noise: float
    configs: tuple[GemmConfig, ...]
    indices: np.ndarray = field(repr=False)
    measured_s: np.ndarray = field(repr=False)
    true_s: np.ndarray = field(repr=False)
    best_so_far_s: np.ndarray = field(repr=False)
    optimum_s: float = field(repr=False)
    info: Mapping = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.configs)

    def __eq__(self, other):
        if not isinstance(other, SearchTrace):
            return NotImplemented
        same = (self.strategy, self.shape, self.seed, self.budget, self.noise, self.configs, self.optimum_s) == (
            other.strategy,
            other.shape,
            other.seed,
            other.budget,
            other.noise,
            other.configs,
            other.optimum_s,
        )
        return same and all(
            np.array_equal(getattr(self, a), getattr(other, a))
            for a in ("indices", "measured_s", "true_s", "best_so_far_s")
        )

    __hash__ = None

    @property
    def ratio(self) -> np.ndarray:
        """Best-so-far true time over the optimum, per measurement (1.0 = found the optimum)."""
        return self.best_so_far_s / self.optimum_s

    @property
    def best(self) -> GemmConfig:
        """The config the tuner ends up believing best (lowest measured time)."""
        return self.configs[int(np.argmin(self.measured_s))]


def _believed_best(order: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """Index (into the launchable configs) of the best-measured config after each measurement.

    ``order`` and ``measured`` are ``(S, B)``; ``measured`` is ``inf`` where ``order`` is
    ``-1`` padding, so padding never becomes the believed best and the last belief persists.
    """
    prev = np.minimum.accumulate(measured, axis=1)
    prev = np.concatenate([np.full((len(measured), 1), np.inf), prev[:, :-1]], axis=1)
    new = measured < prev
    pos = np.maximum.accumulate(np.where(new, np.arange(measured.shape[1]), 0), axis=1)
    return np.take_along_axis(order, pos, axis=1)


def first_within(best_true: np.ndarray, optimum: float, factor: float) -> np.ndarray:
    """Per row, measurements until ``best_true <= factor * optimum`` (1-based); inf if never."""
    hit = best_true <= factor * optimum * (1 + 1e-12)
    first = np.argmax(hit, axis=1).astype(np.float64) + 1
    first[~hit.any(axis=1)] = np.inf
    return first


def measurements_used(order: np.ndarray) -> np.ndarray:
    """Measurements each run actually charged: the non-padding entries of each row of an ``order``.

    A run that stops before its budget (a tuner's own stopping rule) pads its order with ``-1``.

    Examples
    --------
    >>> measurements_used(np.array([[4, 2, 7], [5, -1, -1]])).tolist()
    [3, 1]
    """
    order = np.asarray(order)
    if order.ndim != 2:
        raise ValueError(f"order must be a 2-d (runs, budget) array, got shape {order.shape}")
    return (order >= 0).sum(axis=1)


def trials_to_within(trace: SearchTrace, factor: float = 1.05) -> int | None:
    """Measurements until the believed-best config is truly within ``factor`` of the optimum.

    Parameters
    ----------
    trace : SearchTrace
    factor : float
        ``1.05`` asks for 5 % of the true optimum.

    Returns
    -------
    int or None
        The 1-based measurement count ``k`` at which ``best_so_far_s[k - 1] <= factor *
        optimum_s`` first holds; ``None`` if it never does within the trace.

    Examples
    --------
    >>> from schedlab.studies.search import exhaustive, random_search
    >>> trace = random_search((4096, 4096, 4096), budget=3744, seed=0, noise=0)
    >>> k = trials_to_within(trace)
    >>> bool(trace.ratio[k - 1] <= 1.05 < trace.ratio[k - 2])
    True
    >>> trials_to_within(exhaustive((4096, 4096, 4096), budget=10, seed=0)) is None
    True
    """
    if not isinstance(trace, SearchTrace):
        raise ValueError(f"trace must be a SearchTrace, got {type(trace).__name__}")
    factor = check_factor(factor)
    if not len(trace):
        return None
    k = first_within(trace.best_so_far_s[None, :], trace.optimum_s, factor)[0]
    return None if not np.isfinite(k) else int(k)


# --- running a strategy core ------------------------------------------------------------------

#: A strategy core: ``core(context, seeds, budget, factors, **options) -> (order, info)``.
Core = Callable[..., tuple]


def run_seeds(core: Core, context: SearchContext, seeds, budget: int, factors: np.ndarray, **options):
    """Run a strategy ``core`` for many seeds on one shape, under the measuring rules.

    The contract of a core, which every entry of :data:`~schedlab.studies.search.CORES` keeps (and
    which a strategy registered by another module must keep too):

    - it is called as ``core(context, seeds, budget, factors, **options)`` with ``context``
      a :class:`SearchContext`, ``seeds`` a tuple of ``S`` non-negative ints, ``budget``
      the most measurements per seed (at most ``context.n_configs``) and ``factors`` an
      ``(S, n_configs)`` array of each seed's noise factors (:func:`noise_factors`);
    - seed row ``s`` "measures" launchable config ``i`` as ``context.times[i] * factors[s, i]``
      and may use only the measured times of configs it has put in its order (never
      ``context.times`` of an unmeasured config, nor ``context.optimum``);
    - its own random choices come from ``numpy.random.default_rng([1, seed])``, so a
      seed's run never depends on which other seeds run beside it;
    - it returns ``(order, info)``: ``order`` an ``(S, budget)`` int array of launchable
      indices in the order measured, no index twice for one seed, ``-1`` padded after a run
      that stopped early; ``info`` a list of ``S`` dicts of strategy details, or None.

    Returns
    -------
    order : ndarray (S, budget)
        What the core measured, ``-1`` padded.
    believed : ndarray (S, budget)
        After each measurement, the index of the config with the lowest measured time so far.
    info : list of dict or None
        The core's details per seed.
    """
    order, info = core(context, seeds, budget, factors, **options)
    _check_order(core, order, len(seeds), budget, context.n_configs)
    valid = order >= 0
    safe = np.where(valid, order, 0)
    measured = np.where(valid, context.times[safe] * np.take_along_axis(factors, safe, axis=1), np.inf)
    return order, _believed_best(safe, measured), info


def _check_order(core, order, n_seeds: int, budget: int, n_configs: int) -> None:
    """``ValueError`` naming ``core`` if its order breaks the contract of :func:`run_seeds`."""
    name = getattr(core, "__name__", repr(core))
    if not isinstance(order, np.ndarray) or order.shape != (n_seeds, budget) or order.dtype.kind not in "iu":
        got = (getattr(order, "shape", None), getattr(order, "dtype", type(order).__name__))
        raise ValueError(f"core {name} must return an ({n_seeds}, {budget}) int array, got {got}")
    if ((order < -1) | (order >= n_configs)).any():
        raise ValueError(f"core {name} returned an index outside -1 .. {n_configs - 1}")
    valid = order >= 0
    if (valid[:, 1:] & ~valid[:, :-1]).any():
        raise ValueError(f"core {name} padded with -1 before the end of a run")
    ranked = np.sort(np.where(valid, order, -1 - np.arange(budget)), axis=1)  # padding: all distinct
    if (ranked[:, 1:] == ranked[:, :-1]).any():
        raise ValueError(f"core {name} measured a config twice for one seed")


def run_strategy(
    name: str,
    shape,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    noise: float = DEFAULT_NOISE,
    hw: Hardware | None = None,
    cores: Mapping[str, Core] | None = None,
    **options,
) -> SearchTrace:
    """One run of the strategy ``name`` (a key of ``cores``, default :data:`~schedlab.studies.search.CORES`).

    The six public strategy functions are this with their own name; a strategy another
    module adds to a copy of ``CORES`` gets its single runs here. ``options`` go to the core.

    Examples
    --------
    >>> from schedlab.studies.search import random_search
    >>> run_strategy("random", (4096, 4096, 4096), budget=50, seed=1) == random_search((4096, 4096, 4096), 50, 1)
    True
    """
    cores = CORES if cores is None else cores
    if name not in cores:
        raise ValueError(f"strategy must be one of {tuple(cores)}, got {name!r}")
    context = search_context(shape, hw)
    seed = check_int("seed", seed, minimum=0)
    budget_in = check_int("budget", budget, minimum=1)
    noise = check_noise(noise)
    budget = min(budget_in, context.n_configs)
    fac = noise_factors(seed, noise, context.n_configs)
    order, believed, infos = run_seeds(cores[name], context, (seed,), budget, fac[None, :], **options)
    idx = order[0][order[0] >= 0]
    believed = believed[0][: len(idx)]
    measured = context.times[idx] * fac[idx]
    configs = context.land.configs
    info = dict(infos[0]) if infos else {}
    if "descents" in info:
        descents = tuple(
            Descent(configs[a], configs[b], local, float(context.times[b] / context.optimum))
            for a, b, local in info["descents"]
        )
        info["descents"] = descents
        info["local_optimum"] = descents[0].end if descents and descents[0].local else None
    for a in (idx, measured):
        a.flags.writeable = False
    true = context.times[idx]
    best = context.times[believed]
    true.flags.writeable = best.flags.writeable = False
    return SearchTrace(
        strategy=name,
        shape=context.mnk,
        seed=seed,
        budget=budget_in,
        noise=noise,
        configs=tuple(configs[i] for i in idx),
        indices=idx,
        measured_s=measured,
        true_s=true,
        best_so_far_s=best,
        optimum_s=context.optimum,
        info=MappingProxyType(info),
    )
