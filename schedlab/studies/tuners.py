"""Tuners people use, run under this chapter's rules: Kernel Tuner strategies and Optuna samplers.

Each tuner here is a strategy like those of :mod:`schedlab.studies.search`: a function of
``(shape, budget, seed, noise, hw)`` that returns a :class:`~schedlab.studies.search.SearchTrace`,
under the same rules:

- the same budget of *unique launchable* measurements;
- the same noise stream: configuration ``i`` measured with seed ``s`` takes the value
  :class:`~schedlab.studies.search.Measurer` returns for it (one lognormal factor per config);
- unlaunchable configurations cost nothing: they are pruned before measuring.

**Kernel Tuner** (:data:`KERNEL_TUNER_STRATEGIES`) runs in simulation mode: the shape's
landscape, with seed ``s``'s measured times, is written as a Kernel Tuner cache file
(:func:`schedlab.studies.export.cache_document`) and ``kernel_tuner.tune_cache`` replays the
strategy on it with ``max_fevals = budget``. Kernel Tuner counts unique evaluations of
configurations that pass its restrictions -- the same count -- and the cache marks the
unlaunchable ones ``InvalidConfig``, which it prunes. Every strategy runs with its
default options except where the rules need one (:func:`kernel_tuner_options`): ``bayes_opt``
starts from :data:`~schedlab.studies.search.INITIAL_SAMPLES` samples (its default ``popsize``,
stated), and ``simulated_annealing`` is given ``max_fevals`` large enough that its schedule ends
when the budget is spent: it sizes its cooling as if it started at ``T = 1`` (``max_iter = log
T_min / log alpha``) while it starts at ``T = 0.1``, so with ``max_fevals = 300`` it cooled below
``T_min`` after 225 evaluations in every run; it is stopped at the budget by the Measurer.

**Optuna** (:data:`OPTUNA_SAMPLERS`: TPE and CMA-ES) runs ask-and-tell: each knob is an
integer position in its ``SPACE`` values (``suggest_int``, so a sampler can use the order;
CMA-ES needs it), the objective is log(measured time). A proposal that cannot launch is
told as failed (no measurement, no information); one measured before is told its cached
value for free. TPE starts from :data:`TPE_STARTUP_TRIALS` random proposals: the rules'
:data:`~schedlab.studies.search.INITIAL_SAMPLES`, not Optuna's default ``n_startup_trials = 10``.
Optuna samplers propose repeats freely (a converged CMA-ES or TPE proposes the same few
configurations again and again), so a run stops after
``OPTUNA_ASKS_PER_MEASUREMENT * budget`` proposals even if the budget is not spent: how many
measurements each run used is part of its record (:meth:`TunerRuns.used`).
(Optuna's GP sampler needs PyTorch, not a dependency here.)

Seeds: both libraries draw from global or sampler RNGs seeded from
``numpy.random.SeedSequence([1, seed])`` -- the stream :mod:`schedlab.studies.search`'s strategies
use for their own choices; the global ``random`` / ``numpy.random`` states are restored
afterwards, and scipy's Latin hypercube, which two Kernel Tuner strategies build
unseeded, draws from the same seed while they run. The same seed gives the same trace.

A tuner that broke the rules (a config measured twice, an unlaunchable one, the budget
overrun) raises instead of being reported: :func:`tuner_order` replays its order through a
:class:`~schedlab.studies.search.Measurer`, and :func:`tuner_core` -- the entry for compare's
strategy registry (``cores={**CORES, name: tuner_core(name)}``) -- is checked by
:func:`schedlab.studies.search.run_seeds`. :func:`recorded_cores` replays runs recorded once
(:func:`record_runs`), since a page build cannot afford the tuners' minutes.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random
import tempfile
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType, SimpleNamespace

import numpy as np
from threadpoolctl import threadpool_limits

from schedlab.core.files import write_atomically
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.landscape import landscape
from schedlab.core.space import SPACE, TRITON_NAMES, GemmConfig, as_mnk
from schedlab.studies.export import cache_from_times, measured_times_s, write_json
from schedlab.studies.search import (
    DEFAULT_BUDGET,
    DEFAULT_NOISE,
    INITIAL_SAMPLES,
    Measurer,
    SearchTrace,
    measurements_used,
    noise_factors,
    run_strategy,
)

__all__ = [
    "KERNEL_TUNER_STRATEGIES",
    "OPTUNA_SAMPLERS",
    "OPTUNA_ASKS_PER_MEASUREMENT",
    "TUNERS",
    "kt_annealing_stop",
    "kernel_tuner_options",
    "optuna_sampler_options",
    "TPE_STARTUP_TRIALS",
    "rules_record",
    "tuner_order",
    "kernel_tuner_order",
    "optuna_order",
    "versions",
    "run_tuner",
    "TunerRuns",
    "record_runs",
    "update_runs",
    "load_runs",
    "tuner_core",
    "recorded_cores",
    "recorded_options",
    "hardware_fields",
    "versions",
    "BOOK_DATA",
    "book_runs",
]

#: Kernel Tuner strategies run here (their names in ``kernel_tuner``'s strategy map).
KERNEL_TUNER_STRATEGIES = (
    "bayes_opt",
    "diff_evo",
    "simulated_annealing",
    "genetic_algorithm",
    "greedy_ils",
    "random_sample",
)
#: Optuna samplers run here.
OPTUNA_SAMPLERS = ("tpe", "cmaes")
#: An Optuna run stops after this many proposals per unit of budget (repeats and unlaunchable ones are free).
OPTUNA_ASKS_PER_MEASUREMENT = 4
#: Tuner name -> (library, strategy) in the order the comparison reports them.
TUNERS = MappingProxyType(
    {
        **{f"kt_{s}": ("kernel_tuner", s) for s in KERNEL_TUNER_STRATEGIES},
        **{f"optuna_{s}": ("optuna", s) for s in OPTUNA_SAMPLERS},
    }
)

_STRATEGY_STREAM = 1  # as schedlab.studies.search: stream 1 seeds a strategy's own choices
#: Where the book's recorded runs live: ``schedlab/data``, inside the package, so the wheel and a
#: downloaded notebook carry them.
BOOK_DATA = Path(__file__).resolve().parents[1] / "data"


def _seed32(seed: int) -> int:
    return int(np.random.SeedSequence([_STRATEGY_STREAM, seed]).generate_state(1)[0])


def _check_name(name) -> tuple[str, str]:
    if name not in TUNERS:
        raise ValueError(f"tuner must be one of {tuple(TUNERS)}, got {name!r}")
    return TUNERS[name]


@contextmanager
def _steady_clock():
    """Give Kernel Tuner's ``bayes_opt`` a clock that advances one tick per reading while it runs.

    Its default method (``multi-ultrafast``) refits its Gaussian process only when the last
    evaluation took at least 5 times as long as the last prediction, or after 5 evaluations without
    a refit, both timed with ``time.perf_counter``: in simulation mode the same seed then took other
    paths when the machine was busy (a fresh clone's ``make test`` saw seed 5 differ at its 24th
    pick). With one tick per reading a prediction and an evaluation each last one tick, the regime of
    simulation mode, where a cache lookup is far quicker than a prediction: it refits every sixth
    evaluation, whatever the load.
    """
    from kernel_tuner.strategies import bayes_opt

    ticks = itertools.count()
    clock = SimpleNamespace(perf_counter=lambda: float(next(ticks)), perf_counter_ns=lambda: next(ticks))
    wall = bayes_opt.time
    bayes_opt.time = clock
    try:
        yield
    finally:
        bayes_opt.time = wall


@contextmanager
def _seeded_latin_hypercube(seed: int):
    """Make scipy's ``LatinHypercube`` draw from one seeded generator while Kernel Tuner runs.

    ``bayes_opt`` (its initial sample) and ``diff_evo`` (its initial population, through
    ``Searchspace.get_LHS_sample``) build a ``LatinHypercube`` without a seed, which
    draws fresh OS entropy: the only source of randomness in the strategies run here
    that the global ``random`` / ``numpy.random`` seeds do not reach.
    """
    import scipy.stats.qmc
    from kernel_tuner.strategies import bayes_opt

    rng = np.random.default_rng(seed)
    unseeded = scipy.stats.qmc.LatinHypercube

    def seeded(d, **kwargs):
        return unseeded(d, rng=rng, **kwargs)

    scipy.stats.qmc.LatinHypercube = bayes_opt.LatinHypercube = seeded
    try:
        yield
    finally:
        scipy.stats.qmc.LatinHypercube = bayes_opt.LatinHypercube = unseeded


#: Kernel Tuner's simulated annealing: its default start and end temperatures (``T``, ``T_min``).
_KT_SA_T, _KT_SA_T_MIN = 0.1, 1e-4


def kt_annealing_stop(max_fevals: int) -> float:
    """Evaluations after which Kernel Tuner's simulated annealing has cooled below ``T_min`` and stops.

    It sets ``T = T0 * alpha ** (max_iter / max_fevals * c)`` after ``c`` evaluations with
    ``max_iter = log(T_min) / log(alpha)`` (the schedule's length as if ``T0`` were 1), so ``T``
    reaches ``T_min`` at ``c = max_fevals * log(T_min / T0) / log(T_min)``, whatever ``alpha``.

    Examples
    --------
    >>> round(kt_annealing_stop(300), 6)  # its defaults T0 = 0.1, T_min = 1e-4: three quarters of max_fevals
    225.0
    """
    return max_fevals * math.log(_KT_SA_T_MIN / _KT_SA_T) / math.log(_KT_SA_T_MIN)


def kernel_tuner_options(strategy: str, budget: int) -> dict:
    """The ``strategy_options`` a Kernel Tuner strategy runs with under the rules, for ``budget`` measurements.

    ``max_fevals = budget``, and two stated exceptions: ``bayes_opt`` gets ``popsize =``
    :data:`~schedlab.studies.search.INITIAL_SAMPLES` (its own default, written down so the rule
    cannot drift); ``simulated_annealing`` cools from ``T`` to ``T_min`` over
    ``max_fevals * log(T / T_min) / log(1 / T_min)`` evaluations (it computes its schedule length
    as ``log T_min / log alpha``, as if it started at ``T = 1``), so it is given the ``max_fevals``
    whose schedule ends at ``budget`` and the Measurer stops it there.

    Examples
    --------
    >>> kernel_tuner_options("simulated_annealing", 300)  # 300 * log(1e-4) / log(1e-3) = 400
    {'max_fevals': 400}
    >>> kernel_tuner_options("bayes_opt", 300)
    {'max_fevals': 300, 'popsize': 20}
    """
    if strategy not in KERNEL_TUNER_STRATEGIES:
        raise ValueError(f"strategy must be one of {KERNEL_TUNER_STRATEGIES}, got {strategy!r}")
    if strategy == "simulated_annealing":
        return {"max_fevals": math.ceil(budget * budget / kt_annealing_stop(budget) - 1e-9)}
    if strategy == "bayes_opt":
        return {"max_fevals": budget, "popsize": INITIAL_SAMPLES}
    return {"max_fevals": budget}


#: Optuna TPE's random starting proposals: the rules' ``INITIAL_SAMPLES`` like every tuner that starts
#: from random samples (Optuna's own default, ``n_startup_trials = 10``, would give it half as many).
TPE_STARTUP_TRIALS = INITIAL_SAMPLES


def optuna_sampler_options(sampler: str) -> dict:
    """Keyword arguments of an Optuna sampler as run here (its seed aside).

    Examples
    --------
    >>> optuna_sampler_options("tpe"), optuna_sampler_options("cmaes")
    ({'n_startup_trials': 20}, {})
    """
    if sampler not in OPTUNA_SAMPLERS:
        raise ValueError(f"sampler must be one of {OPTUNA_SAMPLERS}, got {sampler!r}")
    return {"n_startup_trials": TPE_STARTUP_TRIALS} if sampler == "tpe" else {}


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


def kernel_tuner_order(
    strategy: str, cache: dict, index_of, budget: int, seed: int, options: dict | None = None
) -> list[int]:
    """Indices a Kernel Tuner ``strategy`` measures, each once, replaying the cache document ``cache``.

    ``kernel_tuner.tune_cache`` runs with ``strategy_options = options`` (default
    :func:`kernel_tuner_options`, the rules) and seed ``seed``'s RNGs (see the module's "Seeds"); ``index_of(result)`` maps each
    evaluated configuration (a result dict with one field per knob) to its index. The model's
    landscapes and measured ones (:mod:`schedlab.studies.measured`) both run through here.
    """
    from kernel_tuner import tune_cache

    with tempfile.TemporaryDirectory() as folder:
        path = write_json(cache, Path(folder) / "cache.json")
        saved = random.getstate(), np.random.get_state()
        random.seed(_seed32(seed))
        np.random.seed(_seed32(seed))
        try:
            with _seeded_latin_hypercube(_seed32(seed)), _steady_clock(), warnings.catch_warnings():
                # scikit-learn's GP (bayes_opt) warns when a kernel length scale hits its bound
                warnings.filterwarnings("ignore", module="sklearn")
                # a matmul's knobs are not CUDA thread-block dimensions: nothing to warn about
                warnings.filterwarnings("ignore", message="None of the tunable parameters specify thread block")
                results, _ = tune_cache(
                    str(path),
                    strategy=strategy,
                    strategy_options=kernel_tuner_options(strategy, budget) if options is None else options,
                    quiet=True,
                    verbose=False,
                )
        finally:
            random.setstate(saved[0])
            np.random.set_state(saved[1])
    order, seen = [], set()
    for r in results:  # every evaluation in order, repeats (served from Kernel Tuner's cache) included
        if "__error__" in r:
            raise RuntimeError(f"Kernel Tuner {strategy} measured a config that cannot launch: {r}")
        i = index_of(r)
        if i not in seen:
            seen.add(i)
            order.append(i)
    return order[:budget]  # simulated annealing runs past the budget (kernel_tuner_options): stopped there


def _kernel_tuner_order(strategy: str, mnk, budget: int, seed: int, measured_s: np.ndarray, hw: Hardware) -> list[int]:
    land = landscape(mnk, hw)
    keys = [TRITON_NAMES[k] for k in SPACE]
    return kernel_tuner_order(
        strategy,
        cache_from_times(mnk, measured_s, hw),
        lambda r: land.index[GemmConfig(*(r[k] for k in keys))],
        budget,
        seed,
    )


def optuna_order(
    sampler_name: str, sizes: dict, index_of, objective: np.ndarray, budget: int, seed: int, options: dict | None = None
) -> list[int]:
    """Indices an Optuna sampler measures, each once, asking for a position on each knob (``sizes``: name -> values).

    ``index_of(positions)`` gives a configuration's index or ``-1`` if it cannot be measured (told
    as failed: no measurement); ``objective[i]`` is what measuring ``i`` tells (log time). A run
    stops after :data:`OPTUNA_ASKS_PER_MEASUREMENT` ``* budget`` proposals. ``options`` are the
    sampler's keyword arguments besides its seed (default: :func:`optuna_sampler_options`, the rules).
    """
    import optuna

    samplers = {"tpe": optuna.samplers.TPESampler, "cmaes": optuna.samplers.CmaEsSampler}
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        sampler=samplers[sampler_name](
            seed=_seed32(seed), **(optuna_sampler_options(sampler_name) if options is None else options)
        )
    )
    order, seen = [], set()
    for _ in range(OPTUNA_ASKS_PER_MEASUREMENT * budget):
        if len(order) == budget:
            break
        trial = study.ask()
        i = index_of([trial.suggest_int(knob, 0, size - 1) for knob, size in sizes.items()])
        if i < 0:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            continue
        if i not in seen:
            seen.add(i)
            order.append(i)
        study.tell(trial, float(objective[i]))
    return order


def _optuna_order(sampler_name: str, mnk, budget: int, seed: int, measured_s: np.ndarray, hw: Hardware) -> list[int]:
    land = landscape(mnk, hw)
    values = list(SPACE.values())

    def index_of(positions):
        return land.index.get(GemmConfig(*(v[p] for v, p in zip(values, positions))), -1)

    sizes = {knob: len(v) for knob, v in SPACE.items()}
    return optuna_order(sampler_name, sizes, index_of, np.log(measured_s), budget, seed)


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
        As in :func:`schedlab.studies.search.random_search`.

    Returns
    -------
    ndarray of int
        Indices into ``landscape(shape, hw).configs``, replayed through a Measurer.
    """
    library, strategy = _check_name(name)
    mnk = as_mnk(shape)
    hw = check_hardware(hw)
    m = Measurer(mnk, budget=budget, seed=seed, noise=noise, hw=hw)  # validates the arguments
    runner = _kernel_tuner_order if library == "kernel_tuner" else _optuna_order
    # one BLAS thread: a threaded sum may round differently from run to run, and bayes_opt's
    # acquisition ties may then break differently (seen once: seed 5 gave two orders under pytest-xdist)
    with threadpool_limits(limits=1):
        order = runner(strategy, mnk, m.budget, m.seed, measured_times_s(mnk, m.noise, m.seed, hw), hw)
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
    """One run of a real tuner as a :class:`~schedlab.studies.search.SearchTrace`.

    :func:`schedlab.studies.search.run_strategy` with this tuner's :func:`tuner_core`: the same trace
    the chapter's own strategies give, its order checked against the measuring rules.

    Examples
    --------
    >>> t = run_tuner("kt_greedy_ils", (4096, 4096, 4096), budget=40, seed=0)
    >>> len(t), len(set(t.configs)), t == run_tuner("kt_greedy_ils", (4096, 4096, 4096), budget=40, seed=0)
    (40, 40, True)
    """
    _check_name(name)
    return run_strategy(name, shape, budget, seed, noise, hw, cores={name: tuner_core(name)})


@dataclass(frozen=True, eq=False)
class TunerRuns:
    """Recorded tuner runs on one shape: the order each (tuner, seed) measured, ``-1`` padded.

    The real tuners take seconds per run (Kernel Tuner's ``bayes_opt`` about 4 s, Optuna's
    TPE about 5 s), too slow for a page build; :func:`record_runs` runs them once and
    :meth:`save` / :func:`load_runs` keep the orders in a small ``.npz`` file. An order
    replays to the same :class:`~schedlab.studies.search.SearchTrace` the live run gives.
    """

    shape: tuple[int, int, int]
    names: tuple[str, ...]
    seeds: tuple[int, ...]
    budget: int
    noise: float
    hw_name: str
    hw_fields: str  # every field of the machine, as JSON: the runs hold only for this machine
    versions: str
    rules: str  # every tuner's options under the rules (rules_record): replays check them
    orders: np.ndarray = field(repr=False)  # (names, seeds, budget) launchable indices, -1 padded

    def used(self, name: str) -> np.ndarray:
        """Measurements each seed's run of ``name`` used (fewer than the budget: it stopped on its own)."""
        if name not in self.names:
            raise ValueError(f"name must be one of {self.names}, got {name!r}")
        return measurements_used(self.orders[self.names.index(name)])

    def order(self, name: str, seed: int) -> np.ndarray:
        """The recorded order of ``name`` with ``seed`` (padding dropped)."""
        if name not in self.names:
            raise ValueError(f"name must be one of {self.names}, got {name!r}")
        if seed not in self.seeds:
            raise ValueError(f"seed {seed!r} was not recorded (seeds {self.seeds[0]}..{self.seeds[-1]})")
        row = self.orders[self.names.index(name), self.seeds.index(seed)]
        return row[row >= 0]

    def save(self, path) -> Path:
        """Write the runs to ``path`` as an ``.npz`` archive, under exactly that name, whole or not at all.

        Returns the path (see :func:`~schedlab.core.files.write_atomically`).
        """
        return write_atomically(path, self._write)

    def _write(self, f) -> None:
        np.savez_compressed(  # to an open file: numpy appends no ".npz" to the name
            f,
            shape=np.array(self.shape),
            names=np.array(self.names),
            seeds=np.array(self.seeds),
            budget=self.budget,
            noise=self.noise,
            hw_name=self.hw_name,
            hw_fields=self.hw_fields,
            versions=self.versions,
            rules=self.rules,
            orders=self.orders,
        )


def hardware_fields(hw: Hardware | None = None) -> str:
    """Every field of ``hw`` (default: the lecture's machine) as JSON, to tell machines apart.

    A field at its declared default is left out: such a field was added with a default that keeps
    the model's numbers (``l2_partitions=1``), so runs recorded before it existed still match.
    """
    hw = check_hardware(hw)
    values = {
        f.name: getattr(hw, f.name)
        for f in dataclasses.fields(hw)
        if f.default is dataclasses.MISSING or getattr(hw, f.name) != f.default
    }
    return json.dumps(values, sort_keys=True, default=str)


def versions() -> str:
    """The versions of the real tuners' libraries, as recorded with their runs."""
    from importlib.metadata import version

    return f"kernel_tuner {version('kernel_tuner')}, optuna {version('optuna')}"


def record_runs(
    shape,
    names=tuple(TUNERS),
    seeds=range(50),
    budget: int = DEFAULT_BUDGET,
    noise: float = DEFAULT_NOISE,
    hw: Hardware | None = None,
    progress=None,
) -> TunerRuns:
    """Run every tuner in ``names`` for every seed on ``shape`` and keep the orders.

    ``progress(done, total, label)``, if given, is called after each run.
    """
    names = tuple(names)
    for name in names:
        _check_name(name)
    seeds = tuple(int(s) for s in seeds)
    if not names or not seeds:
        raise ValueError("names and seeds must each hold at least one entry")
    mnk = as_mnk(shape)
    hw = check_hardware(hw)
    orders = np.full((len(names), len(seeds), budget), -1, dtype=np.int16)
    total, done = len(names) * len(seeds), 0
    for j, name in enumerate(names):
        for k, seed in enumerate(seeds):
            o = tuner_order(name, mnk, budget, seed, noise, hw)
            orders[j, k, : len(o)] = o
            done += 1
            if progress is not None:
                progress(done, total, f"{name} seed {seed}")
    return TunerRuns(
        shape=mnk,
        names=names,
        seeds=seeds,
        budget=budget,
        noise=float(noise),
        hw_name=hw.name,
        hw_fields=hardware_fields(hw),
        versions=versions(),
        rules=rules_record(budget),
        orders=orders,
    )


def update_runs(old: TunerRuns, new: TunerRuns) -> TunerRuns:
    """``old`` with the tuners of ``new`` replaced (or added), under ``new``'s rules.

    For re-recording only the tuners whose options changed (``python -m schedlab tuners ... --tuner
    NAME --update``): both must hold the same shape, seeds, budget, noise and machine, and a tuner
    kept from ``old`` must run with the same options under both rules (:func:`rules_record`), so the
    result is what recording everything again would give.
    """
    same = ("shape", "seeds", "budget", "noise", "hw_fields")
    differ = [a for a in same if getattr(old, a) != getattr(new, a)]
    if differ:
        raise ValueError(f"runs to update must agree on {', '.join(differ)}; record all of them again")
    kept = [name for name in old.names if name not in new.names]
    changed = [
        name
        for name in kept
        if recorded_options(old.rules, old.budget, name) != recorded_options(new.rules, new.budget, name)
    ]
    if changed:
        raise ValueError(f"{', '.join(changed)} ran under other options in the old runs; record them again too")
    names = tuple(name for name in TUNERS if name in kept or name in new.names)
    source = {name: new if name in new.names else old for name in names}
    orders = np.stack([source[name].orders[source[name].names.index(name)] for name in names])
    return dataclasses.replace(new, names=names, orders=orders)


#: The library defaults of the options the rules set (Kernel Tuner 1.5 ``bayes_opt``, Optuna 5 TPE).
_LIBRARY_DEFAULTS = {"kt_bayes_opt": {"popsize": 20}, "optuna_tpe": {"n_startup_trials": 10}}


def recorded_options(rules: str, budget: int, name: str) -> dict:
    """The options ``name`` effectively ran with under ``rules`` (a :func:`rules_record`): defaults, then the rules.

    Replays compare it with ``recorded_options(rules_record(budget), budget, name)``, the options the
    rules give today: runs made under other options must be recorded again.

    Runs recorded before the rules were (``rules == ""``) ran every tuner with its defaults and
    ``max_fevals = budget`` (Kernel Tuner).
    """
    library, strategy = _check_name(name)
    if rules:
        options = json.loads(rules)[library][strategy]
    else:
        options = {"max_fevals": budget} if library == "kernel_tuner" else {}
    return {**_LIBRARY_DEFAULTS.get(name, {}), **options}


def load_runs(path) -> TunerRuns:
    """Read runs written by :meth:`TunerRuns.save`."""
    with np.load(Path(path), allow_pickle=False) as f:
        return TunerRuns(
            shape=tuple(int(x) for x in f["shape"]),
            names=tuple(str(x) for x in f["names"]),
            seeds=tuple(int(x) for x in f["seeds"]),
            budget=int(f["budget"]),
            noise=float(f["noise"]),
            hw_name=str(f["hw_name"]),
            hw_fields=str(f["hw_fields"]),
            versions=str(f["versions"]),
            rules=str(f["rules"]) if "rules" in f else "",
            orders=f["orders"].astype(np.int64),
        )


def _runner(name: str):
    library, strategy = _check_name(name)
    run = _kernel_tuner_order if library == "kernel_tuner" else _optuna_order
    return lambda mnk, budget, seed, measured_s, hw: run(strategy, mnk, budget, seed, measured_s, hw)


def tuner_core(name: str):
    """A strategy core (the contract of :func:`schedlab.studies.search.run_seeds`) that runs tuner ``name`` live.

    Seed row ``s`` meets the machine ``context.times * factors[s]``: the tuner's cache
    file (Kernel Tuner) or objective (Optuna) holds exactly those times.
    """
    run = _runner(name)

    def core(context, seeds, budget, factors, **_):
        order = np.full((len(seeds), budget), -1, dtype=np.int64)
        for row, (seed, fac) in enumerate(zip(seeds, factors)):
            o = run(context.mnk, budget, int(seed), context.times * fac, context.land.hw)
            order[row, : len(o)] = o
        return order, None

    core.__name__ = core.__qualname__ = f"tuner_core_{name}"
    return core


def recorded_cores(runs, other_machine: str = "raise") -> dict:
    """Strategy cores that replay recorded runs instead of running the tuners (name -> core).

    ``runs`` is an iterable of :class:`TunerRuns` (one per shape). A core asked for a
    shape, seed, budget or noise that was not recorded raises ``ValueError`` naming it
    (and the command that records it) rather than silently running the tuner for minutes.

    ``other_machine`` says what happens when the machine a comparison runs on is not the one the runs
    were recorded on (any hardware field differs): ``"raise"`` (``ValueError``), or
    ``"warn"``: replay anyway with a ``RuntimeWarning`` saying the numbers do not hold --
    what a page does so that its build runs on to the doctest guards that catch it.
    """
    if other_machine not in ("raise", "warn"):
        raise ValueError(f"other_machine must be 'raise' or 'warn', got {other_machine!r}")
    by_shape = {}
    for r in runs:
        if not isinstance(r, TunerRuns):
            raise ValueError(f"runs must hold TunerRuns, got {type(r).__name__}")
        by_shape[r.shape] = r
    if not by_shape:
        raise ValueError("runs must hold at least one TunerRuns")
    names = set.intersection(*(set(r.names) for r in by_shape.values()))

    def make(name):
        def core(context, seeds, budget, factors, **_):
            r = by_shape.get(context.mnk)
            where = "x".join(map(str, context.mnk))
            if r is not None and r.hw_fields != hardware_fields(context.land.hw):
                message = (
                    f"{name} on {where}: runs were recorded on {r.hw_name} with other parameters than this "
                    f"machine's; they hold only for the machine they were recorded on (re-record them with: "
                    f"python -m schedlab tuners {' '.join(map(str, context.mnk))})"
                )
                if other_machine == "raise":
                    raise ValueError(message)
                warnings.warn(message, RuntimeWarning, stacklevel=2)
            if r is not None and recorded_options(r.rules, r.budget, name) != recorded_options(
                rules_record(budget), budget, name
            ):
                raise ValueError(
                    f"{name} on {where}: runs were recorded with other options than the rules give it now "
                    f"(schedlab.studies.tuners.rules_record); re-record them with: "
                    f"python -m schedlab tuners {' '.join(map(str, context.mnk))}"
                )
            if r is None or not set(seeds) <= set(r.seeds) or r.budget != budget:
                raise ValueError(
                    f"{name} on {where} with seeds {seeds[0]}..{seeds[-1]} and budget {budget} was not "
                    f"recorded; record it with: python -m schedlab tuners {' '.join(map(str, context.mnk))}"
                )
            order = np.full((len(seeds), budget), -1, dtype=np.int64)
            for row, (seed, fac) in enumerate(zip(seeds, factors)):
                if not np.array_equal(fac, noise_factors(seed, r.noise, context.n_configs)):
                    raise ValueError(f"{name} on {where}: runs were recorded with noise {r.noise:g}, not this noise")
                o = r.order(name, seed)
                order[row, : len(o)] = o
            return order, None

        core.__name__ = core.__qualname__ = f"recorded_core_{name}"
        return core

    return {name: make(name) for name in TUNERS if name in names}


def book_runs(folder=None) -> tuple[TunerRuns, ...]:
    """Every ``tuner-runs-*.npz`` in ``folder`` (default :data:`BOOK_DATA`), whatever the working directory.

    Examples
    --------
    >>> sorted(r.shape for r in book_runs())[-1]
    (4096, 4096, 4096)
    """
    folder = BOOK_DATA if folder is None else Path(folder)
    paths = sorted(folder.glob("tuner-runs-*.npz"))
    if not paths:
        raise ValueError(f"no recorded runs (tuner-runs-*.npz) in {folder}; record them with python -m schedlab tuners")
    return tuple(load_runs(p) for p in paths)
