"""Tuners people use, run under this chapter's rules: Kernel Tuner strategies and Optuna samplers.

Each tuner here is a strategy like those of :mod:`schedlab.tuning.strategies`: a core (the contract
of :func:`schedlab.tuning.harness.run_seeds`), :func:`tuner_core`, that runs on any search context --
one of the model's landscapes (:func:`schedlab.tuning.measurer.search_context`) or a measured one
(:func:`schedlab.tuning.measured.measured_context`) -- under the same rules:

- the same budget of *unique launchable* measurements;
- the same noise stream: seed row ``s`` meets ``context.times * factors[s]`` (on the model, the value
  a :class:`~schedlab.tuning.measurer.Measurer` returns; on a measured landscape, one recorded repeat
  per configuration);
- unlaunchable configurations cost nothing: they are pruned before measuring.

The libraries' own adapters are :mod:`schedlab.tuning.kernel_tuner_adapter` (simulation mode on a
cache file) and :mod:`schedlab.tuning.optuna_adapter` (ask-and-tell); :data:`TUNERS` names both
libraries' tuners, :func:`rules_record` writes every tuner's options under the rules (recorded with
runs, checked on replay: :mod:`schedlab.tuning.records`). Every run uses one BLAS thread: a threaded
sum may round differently from run to run, and ``bayes_opt``'s acquisition ties may then break
differently (seen once: seed 5 gave two orders under pytest-xdist).

A tuner that broke the rules (a config measured twice, an unlaunchable one, the budget overrun)
raises instead of being reported: :func:`tuner_order` replays its order through a Measurer, and
:func:`tuner_core` -- the entry for compare's strategy registry (``cores={**CORES, name:
tuner_core(name)}``) -- is checked by :func:`schedlab.tuning.harness.run_seeds`. The same seed gives
the same trace.
"""

from __future__ import annotations

import json
from types import MappingProxyType

import numpy as np
from threadpoolctl import threadpool_limits

from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import SPACE, TRITON_NAMES, GemmConfig
from schedlab.core.measured import MeasuredLandscape
from schedlab.core.shapes import as_mnk
from schedlab.tuning.cache import cache_from_times, to_cache
from schedlab.tuning.export import measured_times_s
from schedlab.tuning.harness import SearchTrace, run_strategy
from schedlab.tuning.kernel_tuner_adapter import KERNEL_TUNER_STRATEGIES, kernel_tuner_options, kernel_tuner_order
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE, Measurer, SearchContext, search_context
from schedlab.tuning.optuna_adapter import (
    OPTUNA_ASKS_PER_MEASUREMENT,
    OPTUNA_SAMPLERS,
    optuna_order,
    optuna_sampler_options,
)

__all__ = [
    "TUNERS",
    "check_tuner",
    "rules_record",
    "recorded_options",
    "versions",
    "tuner_core",
    "tuner_order",
    "run_tuner",
]

#: Tuner name -> (library, strategy) in the order the comparison reports them.
TUNERS = MappingProxyType(
    {
        **{f"kt_{s}": ("kernel_tuner", s) for s in KERNEL_TUNER_STRATEGIES},
        **{f"optuna_{s}": ("optuna", s) for s in OPTUNA_SAMPLERS},
    }
)


def check_tuner(name) -> tuple[str, str]:
    """``(library, strategy)`` of tuner ``name`` (a key of :data:`TUNERS`); else ``ValueError``."""
    if name not in TUNERS:
        raise ValueError(f"tuner must be one of {tuple(TUNERS)}, got {name!r}")
    return TUNERS[name]


def rules_record(budget: int) -> str:
    """Every tuner's options under the rules for ``budget``, as JSON: recorded with the runs, checked on replay."""
    return json.dumps(
        {
            "kernel_tuner": {s: kernel_tuner_options(s, budget) for s in KERNEL_TUNER_STRATEGIES},
            "optuna": {s: optuna_sampler_options(s) for s in OPTUNA_SAMPLERS},
            "optuna_asks_per_measurement": OPTUNA_ASKS_PER_MEASUREMENT,
        },
        sort_keys=True,
    )


def tuner_order(
    name: str,
    shape,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    noise: float = DEFAULT_NOISE,
    hw: Hardware | None = None,
) -> np.ndarray:
    """Launchable-config indices a tuner measures, in order, each once (at most ``budget``).

    Parameters
    ----------
    name : str
        A key of :data:`TUNERS` (``"kt_bayes_opt"``, ``"optuna_tpe"``, ...).
    shape, budget, seed, noise, hw
        As in :func:`schedlab.tuning.strategies.random_search.random_search`.

    Returns
    -------
    ndarray of int
        Indices into ``landscape(shape, hw).configs``, replayed through a Measurer.
    """
    check_tuner(name)
    mnk = as_mnk(shape)
    hw = check_hardware(hw)
    m = Measurer(mnk, budget=budget, seed=seed, noise=noise, hw=hw)  # validates the arguments
    context = search_context(mnk, hw)
    order = _order(name, context, m.budget, m.seed, measured_times_s(mnk, m.noise, m.seed, hw))
    for i in order:  # the rules, enforced: raises on a repeat charged twice or a budget overrun
        m.measure(i)
    return np.array(m.order, dtype=np.int64)


def run_tuner(
    name: str,
    shape,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    noise: float = DEFAULT_NOISE,
    hw: Hardware | None = None,
) -> SearchTrace:
    """One run of a real tuner as a :class:`~schedlab.tuning.harness.SearchTrace`.

    :func:`schedlab.tuning.harness.run_strategy` with this tuner's :func:`tuner_core`: the same trace
    the chapter's own strategies give, its order checked against the measuring rules.

    Examples
    --------
    >>> t = run_tuner("kt_greedy_ils", (4096, 4096, 4096), budget=40, seed=0)
    >>> len(t), len(set(t.configs)), t == run_tuner("kt_greedy_ils", (4096, 4096, 4096), budget=40, seed=0)
    (40, 40, True)
    """
    check_tuner(name)
    return run_strategy(name, shape, budget, seed, noise, hw, cores={name: tuner_core(name)})


def versions() -> str:
    """The versions of the real tuners' libraries, as recorded with their runs."""
    from importlib.metadata import version

    return f"kernel_tuner {version('kernel_tuner')}, optuna {version('optuna')}"


#: The library defaults of the options the rules set (Kernel Tuner 1.5 ``bayes_opt``, Optuna 5 TPE).
_LIBRARY_DEFAULTS = {"kt_bayes_opt": {"popsize": 20}, "optuna_tpe": {"n_startup_trials": 10}}


def recorded_options(rules: str, budget: int, name: str) -> dict:
    """The options ``name`` effectively ran with under ``rules`` (a :func:`rules_record`): defaults, then the rules.

    Replays compare it with ``recorded_options(rules_record(budget), budget, name)``, the options the
    rules give today: runs made under other options must be recorded again.

    Runs recorded before the rules were (``rules == ""``) ran every tuner with its defaults and
    ``max_fevals = budget`` (Kernel Tuner).
    """
    library, strategy = check_tuner(name)
    if rules:
        options = json.loads(rules)[library][strategy]
    else:
        options = {"max_fevals": budget} if library == "kernel_tuner" else {}
    return {**_LIBRARY_DEFAULTS.get(name, {}), **options}


def _model_order(library: str, strategy: str, context: SearchContext, budget: int, seed: int, times_s) -> list[int]:
    """The order a tuner measures on the model's landscape of ``context``, which measures ``times_s`` (seconds)."""
    land = context.land
    if library == "optuna":
        values = list(SPACE.values())

        def index_of(positions):
            return land.index.get(GemmConfig(*(v[p] for v, p in zip(values, positions))), -1)

        sizes = {knob: len(v) for knob, v in SPACE.items()}
        return optuna_order(strategy, sizes, index_of, np.log(times_s), budget, seed)
    keys = [TRITON_NAMES[k] for k in SPACE]
    return kernel_tuner_order(
        strategy,
        cache_from_times(context.mnk, times_s, land.hw),
        lambda r: land.index[GemmConfig(*(r[k] for k in keys))],
        budget,
        seed,
    )


def _measured_order(library: str, strategy: str, context: SearchContext, budget: int, seed: int, times_ms) -> list[int]:
    """The order a tuner measures on a measured landscape, which measures ``times_ms`` (milliseconds).

    Kernel Tuner replays a cache holding those times (:func:`~schedlab.tuning.cache.to_cache`:
    unlaunchable entries ``InvalidConfig``, unrecorded grid points absent, both pruned); Optuna asks
    for a position on each varying knob.
    """
    measured: MeasuredLandscape = context.land
    tables = context.neighbours

    def index_of(positions):  # positions on the varying knobs -> index, -1: cannot be measured
        return int(tables.index_of(positions))

    varying, names = measured.varying(), measured.knob_names
    if library == "optuna":
        sizes = {names[j]: size for j, size in zip(varying, tables.sizes)}
        return optuna_order(strategy, sizes, index_of, np.log(times_ms), budget, seed)
    position = [{str(v): p for p, v in enumerate(values)} for values in measured.tune_params.values()]

    def lookup(result):
        return index_of([position[j][str(result[names[j]])] for j in varying])

    return kernel_tuner_order(strategy, to_cache(measured, times_ms), lookup, budget, seed)


def _order(name: str, context: SearchContext, budget: int, seed: int, times: np.ndarray) -> list[int]:
    """The order tuner ``name`` measures on ``context`` with seed ``seed`` when configuration ``i`` measures ``times[i]``.

    ``times`` in seconds on the model's landscape, in milliseconds (the recorded unit) on a measured one.
    """
    library, strategy = check_tuner(name)
    with threadpool_limits(limits=1):
        if isinstance(context.land, MeasuredLandscape):
            return _measured_order(library, strategy, context, budget, seed, times)
        return _model_order(library, strategy, context, budget, seed, times)


def tuner_core(name: str):
    """A strategy core (the contract of :func:`schedlab.tuning.harness.run_seeds`) that runs tuner ``name`` live.

    Seed row ``s`` meets the machine ``context.times * factors[s]``: the tuner's cache
    file (Kernel Tuner) or objective (Optuna) holds exactly those times (a measured landscape's in
    milliseconds, as recorded: ``time_ms * factors[s]``).
    """
    check_tuner(name)

    def core(context, seeds, budget, factors, **_):
        order = np.full((len(seeds), budget), -1, dtype=np.int64)
        measured = isinstance(context.land, MeasuredLandscape)
        for row, (seed, fac) in enumerate(zip(seeds, factors)):
            times = context.land.time_ms * fac if measured else context.times * fac
            o = _order(name, context, budget, int(seed), times)
            order[row, : len(o)] = o
        return order, None

    core.__name__ = core.__qualname__ = f"tuner_core_{name}"
    return core
