"""Search strategies over the schedule space, with the cost model standing in for the hardware.

A tuner spends a *budget of measurements*. Here one measurement is one model
evaluation of one configuration on one shape -- looked up in the precomputed
:func:`schedlab.core.landscape.landscape`, which *is* the model, vectorised ahead of time --
times optional multiplicative noise, as a real timing would carry. :class:`Measurer`
spells out the rules for one shape and one seed; every strategy obeys them (the tests
replay each trace through a Measurer):

- only launchable configurations are proposed (pruning is free and comes first, as in
  Triton and TVM), so nothing is ever charged for a configuration that cannot launch;
- a configuration already measured is never charged again (the tuner caches results);
- measurement ``k`` is refused once ``k`` exceeds the budget.

Six strategies, each a function ``(shape, budget, seed, noise=..., hw=...) -> SearchTrace``
followed by its *core*, which runs many seeds at once (the contract: :func:`run_seeds`):
:func:`exhaustive`, :func:`random_search`, :func:`coordinate_descent`,
:func:`simulated_annealing`, :func:`evolutionary` and :func:`model_guided`, registered by
name in :data:`STRATEGIES` (functions) and :data:`CORES` (cores). The same seed gives the
same trace; the seed fixes both the strategy's own choices and the noise. The comparison
study over shapes, strategies and seeds is :mod:`schedlab.studies.compare`.

Randomness: seed ``s`` drives two independent numpy streams, ``default_rng([0, s])``
for the noise (one lognormal factor per configuration, so every strategy run with seed
``s`` meets the same "machine": common random numbers) and ``default_rng([1, s])`` for
the strategy's own choices. A strategy's result for seed ``s`` never depends on which
other seeds run beside it.

This module is longer than ~500 lines on purpose: the six cores sit beside the public
functions that document them, and they share the tables, the measuring rules and the
trace defined above them; split into files, each strategy would be a docstring in one
place and its code in another again.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from schedlab.core.landscape import Landscape, landscape
from schedlab.core.space import as_mnk
from schedlab.core.shapes import study_shapes
from schedlab.core.caching import memoised
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.model import tiling
from schedlab.core.space import SPACE, GemmConfig, all_configs, launchable

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_NOISE",
    "DEFAULT_SHAPES",
    "MAX_NOISE",
    "CORES",
    "STRATEGIES",
    "Core",
    "BudgetExhausted",
    "Measurer",
    "NeighbourTables",
    "SearchContext",
    "SearchTrace",
    "Descent",
    "exhaustive",
    "random_search",
    "coordinate_descent",
    "simulated_annealing",
    "evolutionary",
    "model_guided",
    "run_strategy",
    "run_seeds",
    "search_context",
    "noise_factors",
    "trials_to_within",
    "first_within",
    "feature_names",
    "check_count",
    "check_seeds",
    "check_noise",
    "check_factor",
]

#: Measurements a strategy may spend by default (about 8 % of the 3744 launchable configs).
DEFAULT_BUDGET = 300
#: Default measurement noise: sigma of a lognormal factor, 3 % (a typical autotuning timing spread).
DEFAULT_NOISE = 0.03
#: The shapes :func:`schedlab.studies.compare.compare` uses by default: :func:`schedlab.core.shapes.study_shapes` (22 distinct).
DEFAULT_SHAPES = study_shapes()

_NOISE_STREAM, _STRATEGY_STREAM = 0, 1
_N_KNOBS = len(SPACE)
_SIZES = tuple(len(v) for v in SPACE.values())
_STRIDES = np.array([int(np.prod(_SIZES[j + 1:])) for j in range(_N_KNOBS)], dtype=np.int64)
_WIDTH = max(_SIZES)


# --- validation -------------------------------------------------------------------------


def check_count(name: str, value, minimum: int) -> int:
    """``value`` as an int if it is an integer ``>= minimum``; else ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_seeds(seeds) -> tuple[int, ...]:
    """``seeds`` as a non-empty tuple of integers ``>= 0``; else ``ValueError`` naming ``seed`` or ``seeds``."""
    seeds = tuple(check_count("seed", s, 0) for s in seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    return seeds


#: Largest noise sigma accepted: a lognormal factor of e = 2.7x per sigma is already far beyond any
#: real timing spread, and much larger sigmas overflow the measured times.
MAX_NOISE = 1.0


def check_noise(noise) -> float:
    """``noise`` as a float if it is a noise sigma in ``[0, MAX_NOISE]``; else ``ValueError``."""
    if isinstance(noise, bool) or not isinstance(noise, (int, float, np.floating, np.integer)):
        raise ValueError(f"noise must be a non-negative number, got {noise!r}")
    if not (math.isfinite(noise) and 0 <= noise <= MAX_NOISE):
        raise ValueError(f"noise must be a finite number in [0, MAX_NOISE = {MAX_NOISE:g}], got {noise!r}")
    return float(noise)


def check_factor(factor) -> float:
    """``factor`` as a float if it is a finite "good enough" factor ``>= 1``; else ``ValueError``."""
    if isinstance(factor, bool) or not isinstance(factor, (int, float, np.floating, np.integer)):
        raise ValueError(f"factor must be a number >= 1, got {factor!r}")
    if not (math.isfinite(factor) and factor >= 1):
        raise ValueError(f"factor must be a finite number >= 1, got {factor!r}")
    return float(factor)


# --- precomputed tables -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class NeighbourTables:
    """Shape-independent tables over the launchable configurations of one machine.

    ``knobs[i, j]`` is the index of config ``i``'s value of knob ``j`` in ``SPACE``;
    ``adjacent[i]`` lists (``-1`` padded) the launchable configs one knob one step away;
    ``line[j, i, v]`` is the launchable config equal to ``i`` except knob ``j = SPACE[j][v]``
    (``-1`` where that cannot launch or ``v`` is out of range);
    ``full_to_launch`` maps a flat index of the whole 6000-point grid to a launchable index or ``-1``.
    """

    n: int
    knobs: np.ndarray
    values: np.ndarray
    adjacent: np.ndarray
    line: np.ndarray
    full_to_launch: np.ndarray
    lines_py: tuple  # lines_py[j][i]: tuple of launchable indices along knob j through i (i included)
    adjacent_py: tuple  # adjacent_py[i]: tuple of launchable one-step neighbours of i


@memoised(maxsize=8)
def _neighbour_tables(hw: Hardware) -> NeighbourTables:
    space = launchable(hw)
    ok = np.array([c in space.index for c in all_configs()])  # both in SPACE order
    values = space.array
    n = len(values)
    knobs = np.stack([np.searchsorted(SPACE[k], values[:, j]) for j, k in enumerate(SPACE)], axis=1)
    full_to_launch = np.full(len(ok), -1, dtype=np.int64)
    full_to_launch[np.flatnonzero(ok)] = np.arange(n)
    flat = knobs @ _STRIDES
    line = np.full((_N_KNOBS, n, _WIDTH), -1, dtype=np.int64)
    adjacent = np.full((n, 2 * _N_KNOBS), -1, dtype=np.int64)
    for j in range(_N_KNOBS):
        base = flat - knobs[:, j] * _STRIDES[j]
        for v in range(_SIZES[j]):
            line[j, :, v] = full_to_launch[base + v * _STRIDES[j]]
        for d, step in enumerate((-1, 1)):
            v = knobs[:, j] + step
            inside = (v >= 0) & (v < _SIZES[j])
            adjacent[inside, 2 * j + d] = full_to_launch[base[inside] + v[inside] * _STRIDES[j]]
    # compact the adjacency rows: valid neighbours first
    order = np.argsort(adjacent < 0, axis=1, kind="stable")
    adjacent = np.take_along_axis(adjacent, order, axis=1)
    lines_py = tuple(tuple(tuple(int(c) for c in row if c >= 0) for row in line[j].tolist())
                     for j in range(_N_KNOBS))
    adjacent_py = tuple(tuple(c for c in row if c >= 0) for row in adjacent.tolist())
    for a in (knobs, adjacent, line, full_to_launch):
        a.flags.writeable = False
    return NeighbourTables(n=n, knobs=knobs, values=values, adjacent=adjacent, line=line, full_to_launch=full_to_launch,
                  lines_py=lines_py, adjacent_py=adjacent_py)


#: Names of the learned model's features, in column order (see :func:`model_guided`).
_KNOB_LOGS = tuple(f"log2 {k}" for k in SPACE)
_FEATURES = (
    _KNOB_LOGS
    + ("log2 warp_m", "log2 warp_n", "stages == 1", "log2 blocks/SM", "log2 waves", "wave fill",
       "log2 k_steps", "log2 pad_m", "log2 pad_n", "log2 smem")
    + tuple(f"{a} * {b}" for i, a in enumerate(_KNOB_LOGS) for b in _KNOB_LOGS[i:])
)


def feature_names() -> tuple[str, ...]:
    """Column names of the learned cost model's feature matrix (see :func:`model_guided`).

    Examples
    --------
    >>> names = feature_names()
    >>> len(names), names[:3], names[-1]
    (37, ('log2 bm', 'log2 bn', 'log2 bk'), 'log2 group * log2 group')
    """
    return _FEATURES


def _features(values: np.ndarray, mnk: tuple[int, int, int], hw: Hardware) -> np.ndarray:
    """Static features of launchable configs on one shape, standardised over the space."""
    t = tiling(values, *mnk, hw)
    bm, bn, stages = (values[:, j].astype(np.float64) for j in (0, 1, 4))
    logs = np.log2(values.astype(np.float64))
    r, blocks, waves = (x.astype(np.float64) for x in (np.maximum(t.blocks_per_sm, 1), t.blocks, t.waves))
    fill = blocks / (waves * t.per_wave)  # how full the waves are on average (1 = no idle tail)
    cols = [logs[:, j] for j in range(6)] + [
        np.log2(t.warp_rows), np.log2(t.warp_cols), (stages == 1).astype(np.float64), np.log2(r), np.log2(waves), fill,
        np.log2(t.k_steps), np.log2(t.rows / bm), np.log2(t.cols / bn), np.log2(t.smem_bytes),
    ]
    cols += [logs[:, i] * logs[:, j] for i in range(6) for j in range(i, 6)]
    X = np.stack(cols, axis=1)
    sd = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return X


@dataclass(frozen=True, eq=False)
class SearchContext:
    """Everything a strategy core may read about one shape on one machine (:func:`search_context`).

    Attributes
    ----------
    mnk : tuple of int
        ``(M, N, K)``.
    land : Landscape
        The shape's landscape; ``land.configs[i]`` is launchable config ``i``.
    neighbours : NeighbourTables
        The one-knob-step tables over the same launchable configs.
    times : ndarray
        True (noise-free) model time of each launchable config, in seconds.
    optimum : float
        The shortest of ``times``.
    features : ndarray (n_configs, len(feature_names()))
        The learned model's standardised static features (:func:`model_guided`).
    """

    mnk: tuple[int, int, int]
    land: Landscape
    neighbours: NeighbourTables
    times: np.ndarray
    optimum: float
    features: np.ndarray

    @property
    def n_configs(self) -> int:
        """Number of launchable configurations (indices ``0 .. n_configs - 1``)."""
        return self.neighbours.n


@memoised(maxsize=64)
def _context(mnk: tuple[int, int, int], hw: Hardware) -> SearchContext:
    land = landscape(mnk, hw)
    neighbours = _neighbour_tables(hw)
    if len(land.configs) != neighbours.n:
        raise RuntimeError("landscape and search tables disagree on the launchable configs")
    X = _features(neighbours.values, mnk, hw)
    X.flags.writeable = False
    return SearchContext(mnk=mnk, land=land, neighbours=neighbours, times=land.time_s, optimum=land.best_time_s,
                         features=X)


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


def _strategy_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng([_STRATEGY_STREAM, seed])


# --- the measurer -------------------------------------------------------------------------


class BudgetExhausted(RuntimeError):
    """Raised by :meth:`Measurer.measure` when a new measurement would exceed the budget."""


class Measurer:
    """The rules of measuring, one measurement at a time: the reference every strategy's trace replays through.

    No strategy calls a Measurer: the cores run many seeds at once on arrays
    (:data:`CORES`). A Measurer spells out, for one shape and one seed, what those arrays
    must amount to -- the cost model as "the hardware", a budget of measurements, noise
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
    schedlab.studies.search.BudgetExhausted: budget of 2 measurements spent
    >>> m.measure_config(GemmConfig(256, 256, 128, 8, 5, 1))
    Traceback (most recent call last):
    ...
    ValueError: config (256, 256, 128, 8, 5, 1) cannot launch; a tuner prunes it before measuring
    """

    def __init__(self, shape, budget: int, seed: int = 0, noise: float = DEFAULT_NOISE, hw: Hardware | None = None):
        self._context = search_context(shape, hw)
        self.shape = self._context.mnk
        self.seed = check_count("seed", seed, 0)
        self.noise = check_noise(noise)
        self.budget = min(check_count("budget", budget, 1), self._context.n_configs)
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
    """One descent of :func:`coordinate_descent`: where it started and stopped.

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
            other.strategy, other.shape, other.seed, other.budget, other.noise, other.configs, other.optimum_s)
        return same and all(np.array_equal(getattr(self, a), getattr(other, a))
                            for a in ("indices", "measured_s", "true_s", "best_so_far_s"))

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

    The contract of a core, which every entry of :data:`CORES` keeps (and which a strategy
    registered by another module must keep too):

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


def run_strategy(name: str, shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE,
                 hw: Hardware | None = None, cores: Mapping[str, Core] | None = None, **options) -> SearchTrace:
    """One run of the strategy ``name`` (a key of ``cores``, default :data:`CORES`) as a :class:`SearchTrace`.

    The six public strategy functions are this with their own name; a strategy another
    module adds to a copy of :data:`CORES` gets its single runs here. ``options`` go to the core.

    Examples
    --------
    >>> run_strategy("random", (4096, 4096, 4096), budget=50, seed=1) == random_search((4096, 4096, 4096), 50, 1)
    True
    """
    cores = CORES if cores is None else cores
    if name not in cores:
        raise ValueError(f"strategy must be one of {tuple(cores)}, got {name!r}")
    context = search_context(shape, hw)
    seed = check_count("seed", seed, 0)
    budget_in = check_count("budget", budget, 1)
    noise = check_noise(noise)
    budget = min(budget_in, context.n_configs)
    fac = noise_factors(seed, noise, context.n_configs)
    order, believed, infos = run_seeds(cores[name], context, (seed,), budget, fac[None, :], **options)
    idx = order[0][order[0] >= 0]
    believed = believed[0][:len(idx)]
    measured = context.times[idx] * fac[idx]
    configs = context.land.configs
    info = dict(infos[0]) if infos else {}
    if "descents" in info:
        descents = tuple(Descent(configs[a], configs[b], local, float(context.times[b] / context.optimum))
                         for a, b, local in info["descents"])
        info["descents"] = descents
        info["local_optimum"] = descents[0].end if descents and descents[0].local else None
    for a in (idx, measured):
        a.flags.writeable = False
    true = context.times[idx]
    best = context.times[believed]
    true.flags.writeable = best.flags.writeable = False
    return SearchTrace(strategy=name, shape=context.mnk, seed=seed, budget=budget_in, noise=noise,
                       configs=tuple(configs[i] for i in idx), indices=idx, measured_s=measured, true_s=true,
                       best_so_far_s=best, optimum_s=context.optimum, info=MappingProxyType(info))


# --- the strategies: each public function, then its core --------------------------------------


def exhaustive(shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE,
               hw: Hardware | None = None) -> SearchTrace:
    """Measure the launchable configs in ``SPACE`` order until the budget is spent.

    This is what ``@triton.autotune`` does with its list of configs: no strategy, just the
    list in the order written (here the whole pruned space, smallest ``BLOCK_M`` first).

    Parameters
    ----------
    shape : (M, N, K) or Shape
    budget : int
        Most measurements (a budget above 3744 measures every launchable config).
    seed : int
        Seeds only the measurement noise; the order never changes.
    noise : float
        Sigma of the lognormal measurement noise (``0``: exact model times).
    hw : Hardware

    Returns
    -------
    SearchTrace

    Examples
    --------
    >>> t = exhaustive((4096, 4096, 4096), budget=5000, seed=0, noise=0)
    >>> len(t), t.best.as_tuple(), float(t.ratio[-1])
    (3744, (256, 128, 32, 8, 4, 1), 1.0)
    """
    return run_strategy("exhaustive", shape, budget, seed, noise, hw)


def _core_exhaustive(context, seeds, budget, factors, **_):
    """@triton.autotune over its config list: every launchable config in ``SPACE`` order."""
    order = np.full((len(seeds), budget), -1, dtype=np.int64)
    order[:, :] = np.arange(budget)
    return order, None


def random_search(shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE,
                  hw: Hardware | None = None) -> SearchTrace:
    """Measure launchable configs drawn uniformly without replacement.

    Parameters are those of :func:`exhaustive`; the seed also fixes the draw order.

    Examples
    --------
    >>> t = random_search((4096, 4096, 4096), budget=50, seed=1)
    >>> len(t), len(set(t.configs))
    (50, 50)
    >>> bool((t.ratio[1:] <= t.ratio[:-1]).all() or t.noise > 0)  # with noise, belief can get worse
    True
    """
    return run_strategy("random", shape, budget, seed, noise, hw)


def _core_random(context, seeds, budget, factors, **_):
    n = context.n_configs
    order = np.stack([_strategy_rng(s).permutation(n)[:budget] for s in seeds])
    return order, None


def coordinate_descent(shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE,
                       hw: Hardware | None = None, restarts: bool = True) -> SearchTrace:
    """Tune one knob at a time, from a random launchable start, until no single-knob move helps.

    For the current config, knob ``j`` (cycling through ``SPACE`` order) is swept over every
    value whose config can launch; the walker moves to the best-measured of them if it
    beats the current config strictly. When all six knobs in a row bring no move, no
    single-knob change improves the measured time: the descent has stopped in a local
    optimum. With ``restarts`` the remaining budget goes to a new descent from a fresh
    random unmeasured start (cached measurements stay free).

    Parameters
    ----------
    shape, budget, seed, noise, hw
        As in :func:`exhaustive`; the seed also fixes the start points.
    restarts : bool
        Start again after a local optimum while budget is left (default). ``False`` stops
        the run at the first local optimum, so the trace may be shorter than the budget.

    Returns
    -------
    SearchTrace
        ``info["descents"]`` lists every :class:`Descent` (start, end, whether it ended in a
        local optimum or ran out of budget, end/optimum); ``info["local_optimum"]`` is the
        first descent's end if it was a local optimum, else None.

    Examples
    --------
    >>> t = coordinate_descent((4096, 4096, 4096), budget=3744, seed=3, noise=0, restarts=False)
    >>> d = t.info["descents"][0]
    >>> d.local, d.end == t.info["local_optimum"] == t.best
    (True, True)
    """
    return run_strategy("descent", shape, budget, seed, noise, hw, restarts=bool(restarts))


def _core_descent(context, seeds, budget, factors, restarts=True, **_):
    tables = context.neighbours
    lines = tables.lines_py
    n = tables.n
    order = np.full((len(seeds), budget), -1, dtype=np.int64)
    infos = []
    for row, (seed, fac) in enumerate(zip(seeds, factors)):
        tm = (context.times * fac).tolist()
        seen = bytearray(n)
        out: list[int] = []
        starts = _strategy_rng(seed).permutation(n).tolist()
        p = 0
        descents = []
        while len(out) < budget:
            while p < n and seen[starts[p]]:
                p += 1
            if p == n:
                break
            cur = starts[p]
            start = cur
            seen[cur] = 1
            out.append(cur)
            stall, j, spent = 0, 0, False
            while stall < _N_KNOBS:
                best, bt = cur, tm[cur]
                for c in lines[j][cur]:
                    if not seen[c]:
                        if len(out) >= budget:
                            spent = True
                            break
                        seen[c] = 1
                        out.append(c)
                    if tm[c] < bt:
                        best, bt = c, tm[c]
                if spent:
                    break
                if best != cur:
                    cur, stall = best, 1
                else:
                    stall += 1
                j = (j + 1) % _N_KNOBS
            descents.append((start, cur, not spent))
            if not restarts:
                break
        order[row, :len(out)] = out
        infos.append({"descents": descents})
    return order, infos


def simulated_annealing(shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE,
                        hw: Hardware | None = None) -> SearchTrace:
    """A random walk over one-knob-adjacent configs that accepts worse ones less and less often.

    Each step proposes a uniformly chosen launchable neighbour: one knob moved to the next
    smaller or larger value. Measuring it costs one measurement unless it was measured
    before. The move is accepted if it is not slower, else with probability
    ``exp(-(log t_new - log t_cur) / T)``.

    Notes
    -----
    Temperature schedule: geometric in the measurements spent,
    ``T = T0 * (T_end / T0) ** (used / budget)`` with ``T0 = 0.2`` and ``T_end = 0.02`` in
    units of log(time): a 20 % slower neighbour (``log 1.2 = 0.18``) is accepted with
    probability 0.40 at the start and 0.0001 at the end; a 5 % slower one with 0.78 and
    0.09. When ``30`` proposals in a row hit only measured configs (the walker is frozen in
    a region it has fully measured), it restarts at a fresh random config; ``info["restarts"]`` counts those. A run also stops after
    ``40 * budget + 100`` proposals.

    Examples
    --------
    >>> t = simulated_annealing((2048, 2048, 512), budget=200, seed=0)
    >>> len(t), len(set(t.configs))
    (200, 200)
    """
    return run_strategy("annealing", shape, budget, seed, noise, hw)


#: Simulated annealing's temperature, in units of log(time): geometric from T0 to T_END over the budget.
SA_T0, SA_T_END, SA_PATIENCE = 0.2, 0.02, 30


_SA_CHUNK = 256


def _core_annealing(context, seeds, budget, factors, **_):
    """Lock step over seeds; each seed draws its own uniforms, 256 proposals at a time."""
    tables = context.neighbours
    n = tables.n
    S = len(seeds)
    rows = np.arange(S)
    rngs = [_strategy_rng(s) for s in seeds]
    starts = np.stack([g.permutation(n) for g in rngs])
    logm = np.log(context.times[None, :] * np.asarray(factors))
    degree = (tables.adjacent >= 0).sum(axis=1)
    order = np.full((S, budget), -1, dtype=np.int64)
    seen = np.zeros((S, n), dtype=bool)
    cur = starts[:, 0].copy()
    seen[rows, cur] = True
    order[:, 0] = cur
    count = np.ones(S, dtype=np.int64)
    pointer = np.ones(S, dtype=np.int64)  # next candidate restart point in starts
    since = np.zeros(S, dtype=np.int64)
    restarts = np.zeros(S, dtype=np.int64)
    active = count < budget
    decay = math.log(SA_T_END / SA_T0)
    cap = 40 * budget + 100
    t = 0
    while active.any() and t < cap:
        if t % _SA_CHUNK == 0:
            draws = np.stack([g.random((_SA_CHUNK, 2)) for g in rngs], axis=1)  # (chunk, S, 2)
        u = draws[t % _SA_CHUNK]
        t += 1
        c = tables.adjacent[cur, (u[:, 0] * degree[cur]).astype(np.int64)]
        new = active & ~seen[rows, c]
        r = rows[new]
        order[r, count[r]] = c[new]
        seen[r, c[new]] = True
        count += new
        since = np.where(new, 0, since + 1)
        d = logm[rows, c] - logm[rows, cur]
        temp = SA_T0 * np.exp(decay * count / budget)
        accept = active & ((d <= 0) | (u[:, 1] < np.exp(-np.maximum(d, 0) / temp)))
        cur = np.where(accept, c, cur)
        stuck = active & (since >= SA_PATIENCE) & (count < budget)
        for s in np.flatnonzero(stuck):  # frozen: every nearby config measured; restart somewhere fresh
            p = pointer[s]
            while p < n and seen[s, starts[s, p]]:
                p += 1
            pointer[s] = p
            if p == n:
                active[s] = False
                continue
            cur[s] = starts[s, p]
            seen[s, cur[s]] = True
            order[s, count[s]] = cur[s]
            count[s] += 1
            since[s] = 0
            restarts[s] += 1
        active &= count < budget
    return order, [{"restarts": int(k)} for k in restarts]


def evolutionary(shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE,
                 hw: Hardware | None = None) -> SearchTrace:
    """Evolve a population of configs, in the style of TVM's Ansor / MetaSchedule search.

    A population of 16 random configs is measured. Each generation draws 64 candidate
    children: two parents by tournament (the better-measured of two random members),
    uniform crossover (each knob from either parent), then a mutation of one random knob
    to the next smaller or larger value. Candidates that cannot launch
    are pruned for free; measured ones and repeats are dropped; up to 16 fresh children are
    measured (random unmeasured immigrants fill a short batch). The best 16 of parents and
    children by measured time survive (elitism: the best is never lost).

    Examples
    --------
    >>> t = evolutionary((512, 14336, 4096), budget=100, seed=0)
    >>> len(t), len(set(t.configs))
    (100, 100)
    """
    return run_strategy("evolutionary", shape, budget, seed, noise, hw)


#: Evolutionary search: population size, candidate children drawn per generation.
EVO_POPULATION, EVO_CANDIDATES = 16, 64


def _core_evolutionary(context, seeds, budget, factors, **_):
    """Lock step over seeds: every generation each seed measures the same number of children."""
    tables = context.neighbours
    n = tables.n
    S = len(seeds)
    C = EVO_CANDIDATES
    sizes = np.array(_SIZES)
    rows = np.arange(S)[:, None]
    P = min(EVO_POPULATION, budget)
    rngs = [_strategy_rng(s) for s in seeds]
    perm = np.stack([g.permutation(n) for g in rngs])  # initial population, then immigrants in this order
    pointer = np.full(S, P)
    tm = context.times[None, :] * np.asarray(factors)
    order = np.full((S, budget), -1, dtype=np.int64)
    seen = np.zeros((S, n), dtype=bool)
    pop = perm[:, :P].copy()
    order[:, :P] = pop
    seen[rows, pop] = True
    count = P
    while count < budget:
        want = min(P, budget - count)
        u = np.stack([g.random((C, 12)) for g in rngs])  # (S, C, 12): all of a generation's dice
        ranked = np.take_along_axis(pop, np.argsort(np.take_along_axis(tm, pop, axis=1), axis=1, kind="stable"),
                                    axis=1)
        # tournament of two: the better-ranked of two random members, for each parent
        pick = (u[:, :, :4] * P).astype(np.int64)
        a = np.take_along_axis(ranked, np.minimum(pick[:, :, 0], pick[:, :, 1]), axis=1)
        b = np.take_along_axis(ranked, np.minimum(pick[:, :, 2], pick[:, :, 3]), axis=1)
        child = np.where(u[:, :, 4:10] < 0.5, tables.knobs[a], tables.knobs[b])  # uniform crossover
        # mutation: one random knob one step up or down (down at the top, up at the bottom)
        j = (u[:, :, 10] * _N_KNOBS).astype(np.int64)
        step = np.where(u[:, :, 11] < 0.5, -1, 1)
        v = np.take_along_axis(child, j[:, :, None], axis=2)[:, :, 0] + step
        v = np.where((v < 0) | (v >= sizes[j]), v - 2 * step, v)
        np.put_along_axis(child, j[:, :, None], v[:, :, None], axis=2)
        idx = tables.full_to_launch[child @ _STRIDES]  # pruning: -1 cannot launch
        fresh = (idx >= 0) & ~seen[rows, np.maximum(idx, 0)]
        # drop repeats within a generation: keep each config's first occurrence
        key = np.where(fresh, idx, n + np.arange(C))
        srt = np.argsort(key, axis=1, kind="stable")
        ks = np.take_along_axis(key, srt, axis=1)
        dup_sorted = np.concatenate([np.zeros((S, 1), bool), ks[:, 1:] == ks[:, :-1]], axis=1)
        dup = np.empty_like(dup_sorted)
        np.put_along_axis(dup, srt, dup_sorted, axis=1)
        fresh &= ~dup
        rank = np.cumsum(fresh, axis=1) - 1
        take = fresh & (rank < want)
        new = np.full((S, want), -1, dtype=np.int64)
        r, c = np.nonzero(take)
        new[r, rank[r, c]] = idx[r, c]
        seen[r, idx[r, c]] = True
        for s in np.flatnonzero(new[:, -1] < 0):  # too few fresh children: immigrants fill the batch
            for slot in np.flatnonzero(new[s] < 0):
                p = pointer[s]
                while seen[s, perm[s, p]]:
                    p += 1
                new[s, slot] = perm[s, p]
                seen[s, perm[s, p]] = True
                pointer[s] = p + 1
        order[:, count:count + want] = new
        count += want
        both = np.concatenate([pop, new], axis=1)  # elitism: the best P of parents and children survive
        keep = np.argsort(np.take_along_axis(tm, both, axis=1), axis=1, kind="stable")[:, :P]
        pop = np.take_along_axis(both, keep, axis=1)
    return order, None


def model_guided(shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE,
                 hw: Hardware | None = None) -> SearchTrace:
    """Fit a cheap learned cost model to the measurements so far and measure its favourites.

    After 16 random configs, repeat: fit ridge regression (numpy, closed form) of
    log(measured time) on the features below, over every config measured so far; predict
    all unmeasured launchable configs; measure the 8 with the lowest prediction.

    Notes
    -----
    Features (:func:`feature_names`, standardised over the 3744 launchable configs): log2
    of each of the six knobs; log2 of the warp tile (rows and columns of C per warp); a
    one-stage indicator (no load/compute overlap); log2 resident blocks per SM; log2
    waves; how full the waves are (blocks / (waves * blocks per wave)); log2 k-steps;
    log2 of the real/padded fraction of a block's rows and columns; log2 shared-memory
    bytes; and the 21 products (squares included) of the six log-knobs. Each is a static
    property of the config and shape -- what a compiler knows before running anything --
    not a model time. Ridge strength 1.0 (intercept not penalised).

    Examples
    --------
    >>> t = model_guided((4096, 4096, 4096), budget=64, seed=0)
    >>> len(t), len(set(t.configs))
    (64, 64)
    """
    return run_strategy("model", shape, budget, seed, noise, hw)


#: Model-guided search: random configs measured first, configs measured per refit, ridge strength.
MG_INITIAL, MG_BATCH, MG_RIDGE = 16, 8, 1.0


def _predict(W: np.ndarray, XT: np.ndarray) -> np.ndarray:
    """``W @ XT`` in column blocks small enough that OpenBLAS runs each on one thread.

    On a small, busy machine a threaded (100 x 38) @ (38 x 3744) product is ten times
    slower than the same product in single-threaded blocks.
    """
    S, d = W.shape
    n = XT.shape[1]
    cols = max(16, (9216 if S == 1 else 262144 // S) // d)
    out = np.empty((S, n))
    for a in range(0, n, cols):
        np.matmul(W, XT[:, a:a + cols], out=out[:, a:a + cols])
    return out


def _core_model_guided(context, seeds, budget, factors, **_):
    """Lock step over seeds: every seed measures the same number of configs per round."""
    X = context.features
    n, d = X.shape
    S = len(seeds)
    Xa = np.concatenate([X, np.ones((n, 1))], axis=1)  # intercept column (not penalised)
    XT = np.ascontiguousarray(Xa.T)
    pen = np.eye(d + 1) * MG_RIDGE
    pen[d, d] = 0.0
    order = np.full((S, budget), -1, dtype=np.int64)
    n0 = min(MG_INITIAL, budget)
    order[:, :n0] = [_strategy_rng(s).permutation(n)[:n0] for s in seeds]
    logm = np.log(context.times[None, :] * np.asarray(factors))  # (S, n)
    rows = np.arange(S)
    blocked = np.zeros((S, n))  # +inf where measured: never proposed again
    blocked[rows[:, None], order[:, :n0]] = np.inf
    Xm = Xa[order[:, :n0]]  # (S, n0, d+1)
    G = Xm.transpose(0, 2, 1) @ Xm  # normal equations, updated as measurements arrive
    r = (logm[rows[:, None], order[:, :n0]][:, None, :] @ Xm)[:, 0]
    count = n0
    while count < budget:
        w = np.linalg.solve(G + pen, r[:, :, None])[:, :, 0]  # (S, d+1)
        pred = _predict(w, XT)
        pred += blocked
        k = min(MG_BATCH, budget - count)
        for step in range(k):  # the k lowest predictions, lowest first
            best = np.argmin(pred, axis=1)
            order[:, count + step] = best
            pred[rows, best] = np.inf
        top = order[:, count:count + k]
        blocked[rows[:, None], top] = np.inf
        Xn = Xa[top]
        G += Xn.transpose(0, 2, 1) @ Xn
        r += (logm[rows[:, None], top][:, None, :] @ Xn)[:, 0]
        count += k
    return order, None


#: Strategy name -> core (the contract: :func:`run_seeds`), in the order the comparison reports them.
#: Read-only; a module adding a strategy passes ``{**CORES, name: core}`` to
#: :func:`run_strategy` and :func:`schedlab.studies.compare.compare` (``cores=``).
CORES: Mapping[str, Core] = MappingProxyType({
    "exhaustive": _core_exhaustive,
    "random": _core_random,
    "descent": _core_descent,
    "annealing": _core_annealing,
    "evolutionary": _core_evolutionary,
    "model": _core_model_guided,
})

#: Strategy name -> public function, the same names in the same order as :data:`CORES`.
STRATEGIES = MappingProxyType({
    "exhaustive": exhaustive,
    "random": random_search,
    "descent": coordinate_descent,
    "annealing": simulated_annealing,
    "evolutionary": evolutionary,
    "model": model_guided,
})
