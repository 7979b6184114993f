"""Real tuners as entries of compare's strategy registry: live cores and recorded replays agree, and refuse what was not recorded."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from schedlab.core.hardware import H100_TC
from schedlab.tuning.compare import compare
from schedlab.tuning.records import record_runs, recorded_cores
from schedlab.tuning.strategies import CORES
from schedlab.tuning.tuners import run_tuner, tuner_core, tuner_order

DECODE = (16, 4096, 4096)


@pytest.fixture(scope="module")
def runs():
    return record_runs(DECODE, names=["kt_greedy_ils", "optuna_cmaes"], seeds=[0, 1, 2], budget=15)


def test_recorded_cores_replay_what_the_live_cores_measure(runs):
    live = {**CORES, **{n: tuner_core(n) for n in runs.names}}
    replay = {**CORES, **recorded_cores([runs])}
    a = compare([DECODE], ["random", *runs.names], seeds=[0, 1, 2], budget=15, cores=live)
    b = compare([DECODE], ["random", *runs.names], seeds=[0, 1, 2], budget=15, cores=replay)
    assert np.array_equal(a.trials, b.trials) and np.array_equal(a.curve_median, b.curve_median)


def test_the_core_path_and_the_measurer_path_agree(runs):
    """run_tuner (a core checked by run_seeds) and tuner_order (replayed through a Measurer) measure the same."""
    for name in runs.names:
        trace = run_tuner(name, DECODE, budget=15, seed=2)
        assert np.array_equal(trace.indices, tuner_order(name, DECODE, 15, 2))
        assert np.array_equal(trace.indices, runs.order(name, 2))


def test_recorded_cores_refuse_what_was_not_recorded(runs):
    cores = {**CORES, **recorded_cores([runs])}
    with pytest.raises(ValueError, match="was not recorded"):
        compare([DECODE], ["kt_greedy_ils"], seeds=[0, 5], budget=15, cores=cores)
    with pytest.raises(ValueError, match="was not recorded"):
        compare([(4096, 4096, 4096)], ["kt_greedy_ils"], seeds=[0], budget=15, cores=cores)
    with pytest.raises(ValueError, match="recorded with noise"):
        compare([DECODE], ["kt_greedy_ils"], seeds=[0], budget=15, noise=0.1, cores=cores)
    faster = dataclasses.replace(H100_TC, clock_hz=H100_TC.clock_hz * 1.1)
    with pytest.raises(ValueError, match="other parameters"):
        compare([DECODE], ["kt_greedy_ils"], seeds=[0], budget=15, hw=faster, cores=cores)
    warned = {**CORES, **recorded_cores([runs], other_machine="warn")}
    with pytest.warns(RuntimeWarning, match="other parameters"):
        c = compare([DECODE], ["kt_greedy_ils"], seeds=[0], budget=15, hw=faster, cores=warned)
    assert c.trials.shape == (1, 1, 1)
    with pytest.raises(ValueError, match="other_machine"):
        recorded_cores([runs], other_machine="ignore")
