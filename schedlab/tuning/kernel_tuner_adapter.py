"""Kernel Tuner's strategies under the measuring rules, replaying a cache file in simulation mode.

Kernel Tuner (:data:`KERNEL_TUNER_STRATEGIES`) runs in simulation mode: a landscape, with seed
``s``'s measured times, is written as a Kernel Tuner cache file (:mod:`schedlab.tuning.cache`) and
``kernel_tuner.tune_cache`` replays the strategy on it with ``max_fevals = budget``
(:func:`kernel_tuner_order`). Kernel Tuner counts unique evaluations of configurations that pass
its restrictions -- the measuring rules' count -- and the cache marks the unlaunchable ones
``InvalidConfig``, which it prunes. Every strategy runs with its default options except where the
rules need one (:func:`kernel_tuner_options`): ``bayes_opt`` starts from
:data:`~schedlab.tuning.measurer.INITIAL_SAMPLES` samples (its default ``popsize``, stated), and
``simulated_annealing`` is given ``max_fevals`` large enough that its schedule ends when the budget
is spent: it sizes its cooling as if it started at ``T = 1`` (``max_iter = log T_min / log alpha``)
while it starts at ``T = 0.1``, so with ``max_fevals = 300`` it cooled below ``T_min`` after 225
evaluations in every run; it is stopped at the budget.

Seeds: the global ``random`` / ``numpy.random`` states are seeded from
:func:`~schedlab.tuning.measurer.library_seed` while a strategy runs and restored afterwards, and
scipy's Latin hypercube, which two strategies build unseeded, draws from the same seed; Kernel
Tuner's ``bayes_opt`` reads a steady clock (:func:`_steady_clock`). The same seed gives the same order.
"""

from __future__ import annotations

import itertools
import math
import random
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import SPACE, TRITON_NAMES
from schedlab.core.launch import launchable
from schedlab.tuning.cache import write_json
from schedlab.tuning.measurer import INITIAL_SAMPLES, library_seed

__all__ = [
    "KERNEL_TUNER_STRATEGIES",
    "kt_annealing_stop",
    "kernel_tuner_options",
    "kernel_tuner_order",
    "launchable_restriction",
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
    :data:`~schedlab.tuning.measurer.INITIAL_SAMPLES` (its own default, written down so the rule
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


def kernel_tuner_order(
    strategy: str, cache: dict, index_of, budget: int, seed: int, options: dict | None = None
) -> list[int]:
    """Indices a Kernel Tuner ``strategy`` measures, each once, replaying the cache document ``cache``.

    ``kernel_tuner.tune_cache`` runs with ``strategy_options = options`` (default
    :func:`kernel_tuner_options`, the rules) and seed ``seed``'s RNGs (see the module's "Seeds"); ``index_of(result)`` maps each
    evaluated configuration (a result dict with one field per knob) to its index. The model's
    landscapes and measured ones (:mod:`schedlab.tuning.measured`) both run through here.
    """
    from kernel_tuner import tune_cache

    with tempfile.TemporaryDirectory() as folder:
        path = write_json(cache, Path(folder) / "cache.json")
        saved = random.getstate(), np.random.get_state()
        random.seed(library_seed(seed))
        np.random.seed(library_seed(seed))
        try:
            with _seeded_latin_hypercube(library_seed(seed)), _steady_clock(), warnings.catch_warnings():
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


def launchable_restriction(hw: Hardware | None = None):
    """A Kernel Tuner restriction that passes exactly the configurations that can launch on ``hw``.

    Kernel Tuner calls it with a dict of one configuration's values under the Triton names of
    :data:`~schedlab.core.knobs.TRITON_NAMES`; with it, ``tune_kernel`` in simulation mode prunes
    what ``tune_cache`` prunes, and spends no evaluation on a configuration that cannot launch.
    (A plain function, not a lambda: Kernel Tuner rewrites lambdas into strings it parses.)

    Examples
    --------
    >>> ok = launchable_restriction()
    >>> ok(dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=32, num_warps=8, num_stages=4, GROUP_M=1))
    True
    >>> ok(dict(BLOCK_M=256, BLOCK_N=256, BLOCK_K=128, num_warps=8, num_stages=5, GROUP_M=1))  # too much smem
    False
    """
    hw = check_hardware(hw)
    ok = frozenset(c.as_tuple() for c in launchable(hw).configs)
    keys = tuple(TRITON_NAMES[k] for k in SPACE)

    def can_launch(params) -> bool:
        return tuple(params[k] for k in keys) in ok

    return can_launch
