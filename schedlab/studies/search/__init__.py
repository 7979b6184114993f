"""Search strategies over the schedule space, with the cost model standing in for the hardware.

A tuner spends a budget of measurements; one measurement is one model evaluation of one
launchable configuration on one shape, times seeded lognormal noise. The package is in
three parts, and this module re-exports the public names of all three:

:mod:`~schedlab.studies.search.harness`
    The rules of measuring (:class:`Measurer`, :class:`BudgetExhausted`), the tables one
    shape offers (:class:`SearchContext`, :func:`search_context`), the noise
    (:func:`noise_factors`), the traces (:class:`SearchTrace`, :class:`Descent`,
    :func:`trials_to_within`, :func:`first_within`), running a strategy for one seed or many
    (:func:`run_strategy`, :func:`run_seeds`), the defaults and the argument checks.
:mod:`~schedlab.studies.search.features`
    What a strategy may know before measuring: the one-knob neighbours
    (:class:`NeighbourTables`) and the static features model-guided search learns from
    (:func:`feature_names`).
:mod:`~schedlab.studies.search.strategies`
    One module per strategy -- :func:`exhaustive`, :func:`random_search`,
    :func:`coordinate_descent`, :func:`simulated_annealing`, :func:`evolutionary`,
    :func:`model_guided` -- each a function ``(shape, budget, seed, noise=..., hw=...) ->
    SearchTrace`` beside its *core*, which runs many seeds at once; one registry gives
    :data:`CORES` (name -> core) and :data:`STRATEGIES` (name -> function), in the order the
    comparison reports them.

The same seed gives the same trace; the seed fixes both the strategy's own choices and
the noise. The comparison study over shapes, strategies and seeds is
:mod:`schedlab.studies.compare`.

The strategy modules load on first use: importing this package loads the harness and the
registry, and a strategy's function or tuning constant (``SA_T0``, ``EVO_POPULATION``,
``MG_INITIAL``, ...) is read from its module when first asked for (PEP 562).
"""

from __future__ import annotations

from schedlab.studies.search import strategies
from schedlab.studies.search.features import NeighbourTables, feature_names
from schedlab.studies.search.harness import (
    DEFAULT_BUDGET,
    DEFAULT_NOISE,
    DEFAULT_SHAPES,
    INITIAL_SAMPLES,
    MAX_NOISE,
    BudgetExhausted,
    Core,
    Descent,
    Measurer,
    SearchContext,
    SearchTrace,
    check_factor,
    check_noise,
    check_seeds,
    first_within,
    measurements_used,
    noise_factors,
    run_seeds,
    run_strategy,
    search_context,
    trials_to_within,
)
from schedlab.studies.search.strategies import CORES, STRATEGIES

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_NOISE",
    "DEFAULT_SHAPES",
    "INITIAL_SAMPLES",
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
    *strategies.MODULES,  # each strategy's public function is named like its module
    "run_strategy",
    "run_seeds",
    "search_context",
    "noise_factors",
    "trials_to_within",
    "first_within",
    "measurements_used",
    "feature_names",
    "check_seeds",
    "check_noise",
    "check_factor",
]


def __getattr__(name: str):
    """A strategy's public name (its function or a tuning constant), from its module on first use."""
    if not name.startswith("__"):
        for module in strategies.modules().values():
            if name in module.__all__:
                value = globals()[name] = getattr(module, name)
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {n for m in strategies.modules().values() for n in m.__all__})
