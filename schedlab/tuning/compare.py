"""The comparison study: every strategy, many seeds, many shapes -- how many measurements until good enough.

:func:`compare` runs the strategy cores of :mod:`schedlab.tuning` for many seeds at once,
in lock step where a strategy allows it, so the full comparison (22 shapes x 6 strategies
x 100 seeds) takes seconds, not minutes, and summarises each (shape, strategy) cell as a
:class:`~schedlab.core.stats.Interval` in a :class:`Comparison`. :func:`descent_local_optima` is the study
of where single coordinate descents get stuck (:class:`LocalOptima`). Both are data in,
data out.

Strategies come from a registry, name -> core (default :data:`schedlab.tuning.strategies.CORES`):
another module adds a tuner without editing this file by writing a core that keeps the
contract of :func:`schedlab.tuning.harness.run_seeds` and passing ``cores={**CORES, name: core}``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from schedlab.core.checks import check_int, check_sequence, is_integer
from schedlab.core.hardware import Hardware
from schedlab.core.knobs import GemmConfig
from schedlab.core.shapes import as_mnk
from schedlab.core.stats import Interval, order_statistic, trials_interval
from schedlab.tuning.harness import Core, first_within, measurements_used, run_seeds
from schedlab.tuning.measurer import (
    DEFAULT_BUDGET,
    DEFAULT_NOISE,
    DEFAULT_SHAPES,
    INITIAL_SAMPLES,
    check_factor,
    check_noise,
    check_seeds,
    noise_factors,
    search_context,
)
from schedlab.tuning.strategies import CORES, STRATEGIES

__all__ = ["MODEL_OWN_START", "Comparison", "LocalOptima", "compare", "ruled_cores", "descent_local_optima"]

#: Registry name of model-guided search from its own default start (``MG_INITIAL`` random
#: measurements) beside ``"model"`` under the rules (:data:`~schedlab.tuning.measurer.INITIAL_SAMPLES`).
MODEL_OWN_START = "model-own-start"

_NAME_OF = {f: name for name, f in STRATEGIES.items()}


@dataclass(frozen=True, eq=False)
class Comparison:
    """Trials-to-within-``factor`` and best-so-far curves, per (shape, strategy), over seeds.

    Arrays are indexed ``[shape, strategy]`` (then ``[seed]`` or ``[measurement]``).

    Attributes
    ----------
    shapes : tuple
        The shapes as given (``Shape`` or ``(M, N, K)``).
    strategies : tuple of str
    seeds : tuple of int
    budget : int
        Measurements per run (capped at the launchable configs).
    noise, factor : float
    trials : ndarray (shapes, strategies, seeds)
        Measurements until the believed best is truly within ``factor``; ``inf`` if never.
    median, p90 : ndarray (shapes, strategies)
        Order statistics of ``trials`` over the seeds (``inf`` when too few seeds reach it).
    reached : ndarray (shapes, strategies)
        Fraction of seeds that reach ``factor`` within the budget.
    curve_median, curve_p10, curve_p90 : ndarray (shapes, strategies, budget)
        Best-so-far true time over the optimum after ``k + 1`` measurements: median and
        the 10 / 90 % band over seeds.
    used : ndarray (shapes, strategies, seeds)
        Measurements each run actually used (fewer than ``budget``: the tuner stopped on its own).
    """

    shapes: tuple
    strategies: tuple[str, ...]
    seeds: tuple[int, ...]
    budget: int
    noise: float
    factor: float
    trials: np.ndarray = field(repr=False)
    median: np.ndarray = field(repr=False)
    p90: np.ndarray = field(repr=False)
    reached: np.ndarray = field(repr=False)
    curve_median: np.ndarray = field(repr=False)
    curve_p10: np.ndarray = field(repr=False)
    curve_p90: np.ndarray = field(repr=False)
    used: np.ndarray = field(repr=False)

    def shape_index(self, shape) -> int:
        """Position of ``shape`` (a shape, or its index) in :attr:`shapes`.

        Raises
        ------
        ValueError
            If the shape is not in this comparison or the index is out of range.
        """
        if is_integer(shape):
            if not 0 <= shape < len(self.shapes):
                raise ValueError(f"shape index out of range: {shape}")
            return int(shape)
        mnk = as_mnk(shape)
        for i, s in enumerate(self.shapes):
            if as_mnk(s) == mnk:
                return i
        raise ValueError(f"shape {mnk} is not in this comparison")

    def strategy_index(self, strategy) -> int:
        """Position of ``strategy`` (a name or a function of ``STRATEGIES``) in :attr:`strategies`."""
        if isinstance(strategy, str):
            name = strategy
        else:
            name = _NAME_OF.get(strategy, getattr(strategy, "__name__", None))
        if name not in self.strategies:
            raise ValueError(f"strategy must be one of {self.strategies}, got {strategy!r}")
        return self.strategies.index(name)

    def cell(self, shape, strategy) -> Interval:
        """Trials of ``strategy`` on ``shape`` (a shape or its index): :func:`~schedlab.core.stats.trials_interval`."""
        return trials_interval(self.trials[self.shape_index(shape), self.strategy_index(strategy)])

    def summary(self, strategy, shapes=None) -> Interval:
        """Median over ``shapes`` (default all) of the per-shape medians and p90s, and the mean reach.

        A median over shapes is not resampled: ``low`` and ``high`` are ``nan``.
        """
        idx = range(len(self.shapes)) if shapes is None else [self.shape_index(s) for s in shapes]
        idx = list(idx)
        j = self.strategy_index(strategy)
        return Interval(
            float(order_statistic(self.median[idx, j], 0.5)),
            math.nan,
            math.nan,
            p90=float(order_statistic(self.p90[idx, j], 0.5)),
            reached=float(self.reached[idx, j].mean()),
        )


def _strategy_name(strategy, cores: Mapping[str, Core]) -> str:
    """The registry name of ``strategy``: a key of ``cores``, or a function of ``STRATEGIES`` named there."""
    name = strategy if isinstance(strategy, str) else _NAME_OF.get(strategy)
    if name is None:
        raise ValueError(f"strategy must be a name in the registry or a function from STRATEGIES, got {strategy!r}")
    if name not in cores:
        raise ValueError(f"strategy must be one of {tuple(cores)}, got {strategy!r}")
    return name


def compare(
    shapes=DEFAULT_SHAPES,
    strategies=None,
    seeds=range(100),
    budget: int = DEFAULT_BUDGET,
    noise: float = DEFAULT_NOISE,
    factor: float = 1.05,
    hw: Hardware | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    cores: Mapping[str, Core] = CORES,
) -> Comparison:
    """Run every strategy for every seed on every shape and summarise trials-to-within-``factor``.

    Parameters
    ----------
    shapes : iterable of Shape or (M, N, K)
        Default: the four lecture shapes and the twenty Llama-3-8B shapes.
    strategies : iterable of str or strategy functions, optional
        Names from ``cores``, or functions of :data:`~schedlab.tuning.strategies.STRATEGIES`
        (default: every strategy of ``cores``, in its order).
    seeds : iterable of int
        One run per seed (default ``range(100)``).
    budget : int
        Measurements per run.
    noise : float
        Measurement noise (sigma of the lognormal factor).
    factor : float
        "Good enough": within ``factor`` of the true optimum (``1.05``: 5 %).
    hw : Hardware
    progress : callable, optional
        Called as ``progress(done, total, label)`` after each (shape, strategy) cell.
    cores : mapping of str to core, optional
        The strategy registry, name -> core (default :data:`~schedlab.tuning.strategies.CORES`, the six).
        A tuner from another module joins the comparison as ``cores={**CORES, name: core}``;
        its core keeps the contract of :func:`schedlab.tuning.harness.run_seeds`.

    Returns
    -------
    Comparison

    Notes
    -----
    Equal to running each strategy function seed by seed (the tests check it), only
    faster: the noise is drawn once per seed and shared by every strategy and shape.

    Examples
    --------
    >>> c = compare([(4096, 4096, 4096)], ["exhaustive", "model"], seeds=range(5), budget=200)
    >>> c.trials.shape, c.curve_median.shape
    ((1, 2, 5), (1, 2, 200))
    >>> c.cell((4096, 4096, 4096), "exhaustive").reached  # the best configs come last in SPACE order
    0.0
    >>> bool(c.cell(0, "model").estimate < 200)
    True
    """
    shapes = check_sequence(shapes, "shapes", "(M, N, K)")
    if not shapes:
        raise ValueError("shapes must name at least one (M, N, K)")
    if not isinstance(cores, Mapping) or not all(isinstance(k, str) and callable(c) for k, c in cores.items()):
        raise ValueError(f"cores must map strategy names to core functions, got {cores!r}")
    names = tuple(_strategy_name(s, cores) for s in (cores if strategies is None else strategies))
    if not names:
        raise ValueError("strategies must name at least one strategy")
    seeds = check_seeds(seeds)
    noise = check_noise(noise)
    factor = check_factor(factor)
    budget_in = check_int("budget", budget, minimum=1)
    contexts = [search_context(s, hw) for s in shapes]
    n = contexts[0].n_configs
    budget = min(budget_in, n)
    factors = np.stack([noise_factors(s, noise, n) for s in seeds])
    S, T = len(shapes), len(names)
    trials = np.empty((S, T, len(seeds)))
    used = np.empty((S, T, len(seeds)), dtype=np.int64)
    curves = np.empty((3, S, T, budget))
    total, done = S * T, 0
    for i, context in enumerate(contexts):
        for j, name in enumerate(names):
            order, believed, _ = run_seeds(cores[name], context, seeds, budget, factors)
            used[i, j] = measurements_used(order)
            best = context.times[believed]
            trials[i, j] = first_within(best, context.optimum, factor)
            curves[:, i, j] = np.percentile(best / context.optimum, [50, 10, 90], axis=0)
            done += 1
            if progress is not None:
                progress(done, total, f"{name} {'×'.join(map(str, context.mnk))}")
    return Comparison(
        shapes=shapes,
        strategies=names,
        seeds=seeds,
        budget=budget,
        noise=noise,
        factor=factor,
        trials=trials,
        median=order_statistic(trials, 0.5),
        p90=order_statistic(trials, 0.9),
        reached=np.isfinite(trials).mean(axis=-1),
        curve_median=curves[0],
        curve_p10=curves[1],
        curve_p90=curves[2],
        used=used,
    )


def ruled_cores(cores: Mapping[str, Core] = CORES) -> dict:
    """``cores`` under the search page's rules: model-guided search from the common start.

    ``"model"`` starts from :data:`~schedlab.tuning.measurer.INITIAL_SAMPLES` random measurements, as
    Kernel Tuner's ``bayes_opt`` and Optuna's TPE do under the rules; :data:`MODEL_OWN_START` is the
    same search from its own default, ``MG_INITIAL``, so both settings can be shown side by side.

    Examples
    --------
    >>> c = compare([(4096, 4096, 4096)], ["model", MODEL_OWN_START], seeds=range(3), budget=30, cores=ruled_cores())
    >>> c.used[0].tolist()
    [[30, 30, 30], [30, 30, 30]]
    """
    model = cores["model"]
    return {**cores, "model": functools.partial(model, initial=INITIAL_SAMPLES), MODEL_OWN_START: model}


@dataclass(frozen=True)
class LocalOptima:
    """Where single coordinate descents (no restarts, unlimited budget) stop on one shape.

    ``bad`` counts the runs that stopped in a local optimum more than ``factor`` slower
    than the true optimum; ``where`` lists those end points as ``(config, time/optimum,
    runs)``, most frequent first (ties: faster first).
    """

    shape: tuple[int, int, int]
    runs: int
    bad: int
    factor: float
    noise: float
    where: tuple[tuple[GemmConfig, float, int], ...]
    mean_measurements: float  # measurements one descent spends on average

    @property
    def rate(self) -> float:
        """Fraction of descents stuck in a local optimum outside ``factor``."""
        return self.bad / self.runs


def descent_local_optima(
    shape, seeds=range(100), noise: float = 0.0, factor: float = 1.05, hw: Hardware | None = None
) -> LocalOptima:
    """How often one coordinate descent from a random start gets stuck, and where.

    Each seed runs :func:`~schedlab.tuning.strategies.coordinate_descent.coordinate_descent` with ``restarts=False`` and an unlimited
    budget, so every run ends in a local optimum of the measured times (no single-knob move
    improves it). With ``noise=0`` (the default) that is a local optimum of the model
    itself.

    Examples
    --------
    >>> lo = descent_local_optima((4096, 4096, 4096), seeds=range(20))
    >>> lo.runs, 0 <= lo.bad <= 20, sum(k for _, _, k in lo.where) == lo.bad
    (20, True, True)
    >>> all(r > 1.05 for _, r, _ in lo.where)
    True
    """
    context = search_context(shape, hw)
    noise = check_noise(noise)
    factor = check_factor(factor)
    seeds = check_seeds(seeds)
    n = context.n_configs
    factors = np.stack([noise_factors(s, noise, n) for s in seeds])
    order, _, infos = run_seeds(CORES["descent"], context, seeds, n, factors, restarts=False)
    ends = np.array([info["descents"][0][1] for info in infos])
    ratio = context.times[ends] / context.optimum
    bad = ratio > factor * (1 + 1e-12)
    uniq, counts = np.unique(ends[bad], return_counts=True)
    where = sorted(
        ((context.land.configs[i], float(context.times[i] / context.optimum), int(k)) for i, k in zip(uniq, counts)),
        key=lambda w: (-w[2], w[1]),
    )
    return LocalOptima(
        shape=context.mnk,
        runs=len(seeds),
        bad=int(bad.sum()),
        factor=factor,
        noise=noise,
        where=tuple(where),
        mean_measurements=float((order >= 0).sum(axis=1).mean()),
    )
