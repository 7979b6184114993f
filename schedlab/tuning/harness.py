"""Running a strategy: the core contract, the checks on what a core returns, and the traces.

A strategy is a *core* that runs many seeds of one shape at once (the contract:
:func:`run_seeds`); :func:`run_strategy` turns one seed's run into a :class:`SearchTrace`, which
the tests replay through a :class:`~schedlab.tuning.measurer.Measurer` (the rules of measuring).
The cores themselves live in :mod:`schedlab.tuning.strategies`, one module each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from schedlab.core.checks import check_int
from schedlab.core.hardware import Hardware
from schedlab.core.knobs import GemmConfig
from schedlab.tuning.measurer import (
    DEFAULT_BUDGET,
    DEFAULT_NOISE,
    SearchContext,
    check_factor,
    check_noise,
    noise_factors,
    search_context,
)
from schedlab.tuning.strategies import CORES  # the registry only: its strategy modules load on first use

__all__ = [
    "Core",
    "SearchTrace",
    "Descent",
    "run_strategy",
    "run_seeds",
    "trials_to_within",
    "first_within",
    "measurements_used",
]

# --- the trace ------------------------------------------------------------------------------


class Descent(NamedTuple):
    """One descent of :func:`~schedlab.tuning.strategies.coordinate_descent.coordinate_descent`: where it started and stopped.

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
    >>> from schedlab.tuning.strategies.exhaustive import exhaustive
    >>> from schedlab.tuning.strategies.random_search import random_search
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

    The contract of a core, which every entry of :data:`~schedlab.tuning.strategies.CORES` keeps (and
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
    """One run of the strategy ``name`` (a key of ``cores``, default :data:`~schedlab.tuning.strategies.CORES`).

    The six public strategy functions are this with their own name; a strategy another
    module adds to a copy of ``CORES`` gets its single runs here. ``options`` go to the core.

    Examples
    --------
    >>> from schedlab.tuning.strategies.random_search import random_search
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
