"""Optuna's samplers under the measuring rules, run ask-and-tell.

Optuna (:data:`OPTUNA_SAMPLERS`: TPE and CMA-ES) runs ask-and-tell (:func:`optuna_order`): each
knob is an integer position in its values (``suggest_int``, so a sampler can use the order;
CMA-ES needs it), the objective is log(measured time). A proposal that cannot launch is told as
failed (no measurement, no information); one measured before is told its cached value for free.
TPE starts from :data:`TPE_STARTUP_TRIALS` random proposals: the rules'
:data:`~schedlab.tuning.measurer.INITIAL_SAMPLES`, not Optuna's default ``n_startup_trials = 10``.
Optuna samplers propose repeats freely (a converged CMA-ES or TPE proposes the same few
configurations again and again), so a run stops after ``OPTUNA_ASKS_PER_MEASUREMENT * budget``
proposals even if the budget is not spent: how many measurements each run used is part of its
record (:meth:`schedlab.tuning.records.Runs.used`). (Optuna's GP sampler needs PyTorch, not a
dependency here.) A sampler is seeded from :func:`~schedlab.tuning.measurer.library_seed`.
"""

from __future__ import annotations

import numpy as np

from schedlab.tuning.measurer import INITIAL_SAMPLES, library_seed

__all__ = [
    "OPTUNA_SAMPLERS",
    "OPTUNA_ASKS_PER_MEASUREMENT",
    "TPE_STARTUP_TRIALS",
    "optuna_sampler_options",
    "optuna_order",
]

#: Optuna samplers run here.
OPTUNA_SAMPLERS = ("tpe", "cmaes")
#: An Optuna run stops after this many proposals per unit of budget (repeats and unlaunchable ones are free).
OPTUNA_ASKS_PER_MEASUREMENT = 4


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
            seed=library_seed(seed), **(optuna_sampler_options(sampler_name) if options is None else options)
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
