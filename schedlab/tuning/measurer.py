"""The rules of measuring: the budget, the noise, and the tables one shape offers a strategy.

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
  Kernel Tuner's ``bayes_opt``, Optuna's TPE (:data:`schedlab.tuning.optuna_adapter.TPE_STARTUP_TRIALS`,
  not its default of 10) and model-guided search (whose own default, ``MG_INITIAL``, is shown
  beside it where the page compares);
- a run that stops before its budget is spent (a tuner's own stopping rule) is reported with
  the measurements it used (:func:`schedlab.tuning.harness.measurements_used`), never silently
  as a shorter budget.

Randomness: seed ``s`` drives two independent numpy streams, ``default_rng([0, s])``
for the noise (:func:`noise_factors`: one lognormal factor per configuration, so every
strategy run with seed ``s`` meets the same "machine": common random numbers) and
``default_rng([1, s])`` for the strategy's own choices (:func:`strategy_rng`). A
strategy's result for seed ``s`` never depends on which other seeds run beside it.

:func:`search_context` gathers what a strategy core may read about one shape; the cores and
the traces they give are :mod:`schedlab.tuning.harness`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_int, check_number
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import Landscape, landscape
from schedlab.core.measured import MeasuredLandscape
from schedlab.core.shapes import as_mnk, study_shapes
from schedlab.tuning.features import feature_matrix
from schedlab.tuning.neighbours import NeighbourTables, neighbour_tables

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_NOISE",
    "DEFAULT_SHAPES",
    "INITIAL_SAMPLES",
    "MAX_NOISE",
    "BudgetExhausted",
    "Measurer",
    "SearchContext",
    "search_context",
    "noise_factors",
    "strategy_rng",
    "strategy_seed_sequence",
    "library_seed",
    "check_seeds",
    "check_noise",
    "check_factor",
]

#: Measurements a strategy may spend by default (about 8 % of the 3744 launchable configs).
DEFAULT_BUDGET = 300
#: Default measurement noise: sigma of a lognormal factor, 3 % (a typical autotuning timing spread).
DEFAULT_NOISE = 0.03
#: The shapes :func:`schedlab.tuning.compare.compare` uses by default:
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

    A measured landscape gives one too (:func:`schedlab.tuning.measured.measured_context`): its
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
        (:func:`schedlab.tuning.features.feature_matrix`); ``None`` on a measured landscape.
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
    by this package's strategies and the real tuners (:mod:`schedlab.tuning.tuners`)."""
    return np.random.SeedSequence([_STRATEGY_STREAM, seed])


def strategy_rng(seed: int) -> np.random.Generator:
    """The generator of a strategy's own choices for ``seed`` (from :func:`strategy_seed_sequence`)."""
    return np.random.default_rng(strategy_seed_sequence(seed))


def library_seed(seed: int) -> int:
    """The 32-bit seed a tuning library's RNGs get for ``seed``: the first word of :func:`strategy_seed_sequence`.

    Examples
    --------
    >>> library_seed(0) == int(np.random.SeedSequence([1, 0]).generate_state(1)[0])
    True
    """
    return int(strategy_seed_sequence(seed).generate_state(1)[0])


# --- the measurer -------------------------------------------------------------------------


class BudgetExhausted(RuntimeError):
    """Raised by :meth:`Measurer.measure` when a new measurement would exceed the budget."""


class Measurer:
    """The rules of measuring, one measurement at a time: the reference every strategy's trace replays through.

    No strategy calls a Measurer: the cores run many seeds at once on arrays
    (:data:`schedlab.tuning.strategies.CORES`). A Measurer spells out, for one shape and one
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
    schedlab.tuning.measurer.BudgetExhausted: budget of 2 measurements spent
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
