"""Real tuners (Kernel Tuner, Optuna) under the chapter's rules, and their recorded runs.

Each tuner's order is replayed through a Measurer inside ``tuner_order`` (a repeat or an
overrun raises there); here the traces are checked against the landscape and the noise
stream directly, seeds are checked to reproduce, and the recorded runs in schedlab/data are
checked by regenerating a sample.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from schedlab.core.knobs import SPACE, TRITON_NAMES
from schedlab.core.landscape import landscape
from schedlab.tuning.export import measured_times_s
from schedlab.tuning.records import BOOK_DATA, load_runs, record_runs
from schedlab.tuning.tuners import TUNERS, run_tuner, tuner_order

SQUARE = (4096, 4096, 4096)
DATA = BOOK_DATA


@pytest.mark.parametrize("name", list(TUNERS))
def test_every_tuner_measures_launchable_configs_once_within_budget(name):
    budget = 30
    trace = run_tuner(name, (2048, 2048, 512), budget=budget, seed=3)
    land = landscape((2048, 2048, 512))
    assert 0 < len(trace) <= budget
    assert len(set(trace.configs)) == len(trace)
    assert all(c in land.index for c in trace.configs)
    # same noise stream as the chapter's strategies: config i measured with seed 3
    measured = measured_times_s((2048, 2048, 512), seed=3)
    assert np.array_equal(trace.measured_s, measured[trace.indices])
    # the belief is the best measured so far, scored by its true time
    k = len(trace) // 2
    best = trace.indices[int(np.argmin(trace.measured_s[: k + 1]))]
    assert trace.best_so_far_s[k] == land.time_s[best]


@pytest.mark.parametrize("name", list(TUNERS))
def test_same_seed_same_order_and_global_rng_untouched(name):
    random.seed(123)
    np.random.seed(123)
    before = random.random(), np.random.random()
    random.seed(123)
    np.random.seed(123)
    a = tuner_order(name, SQUARE, budget=25, seed=5)
    after = random.random(), np.random.random()
    assert before == after  # the caller's global random states are restored
    b = tuner_order(name, SQUARE, budget=25, seed=5)
    c = tuner_order(name, SQUARE, budget=25, seed=6)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_unknown_tuner_and_bad_budget_are_named():
    with pytest.raises(ValueError, match="tuner must be one of"):
        tuner_order("kt_nelder_mead", SQUARE)
    with pytest.raises(ValueError, match="budget"):
        tuner_order("kt_random_sample", SQUARE, budget=0)


def test_recorded_runs_round_trip(tmp_path):
    runs = record_runs((16, 4096, 4096), names=["kt_random_sample", "kt_greedy_ils"], seeds=[0, 1], budget=12)
    again = load_runs(runs.save(tmp_path / "runs.npz"))
    assert again.names == runs.names and again.seeds == runs.seeds and again.landscape == "16x4096x4096"
    assert np.array_equal(again.order("kt_greedy_ils", 1), tuner_order("kt_greedy_ils", (16, 4096, 4096), 12, 1))
    with pytest.raises(ValueError, match="was not recorded"):
        again.order("kt_greedy_ils", 2)


#: The recorded runs the search page reads (book/searching.md), one file per shape.
RECORDED = ("tuner-runs-4096x4096x4096.npz", "tuner-runs-256x4096x4096.npz", "tuner-runs-16x4096x4096.npz")


def test_the_recorded_runs_are_all_there():
    assert sorted(p.name for p in DATA.glob("tuner-runs-*.npz")) == sorted(RECORDED)


@pytest.mark.regen
@pytest.mark.parametrize("path", [DATA / name for name in RECORDED], ids=lambda p: p.stem)
def test_book_data_regenerates(path):
    """A sample of the recorded runs the page reads is what the tuners do today (same library versions)."""
    runs = load_runs(path)
    for name in ("kt_diff_evo", "kt_simulated_annealing", "optuna_cmaes"):
        seed = runs.seeds[-1]
        shape = tuple(int(x) for x in runs.landscape.split("x"))
        live = tuner_order(name, shape, runs.budget, seed, runs.noise)
        assert np.array_equal(runs.order(name, seed), live), (
            f"{name} seed {seed} differs from {path.name} (recorded with {runs.versions}): regenerate it"
        )


def test_saving_runs_that_fails_midway_leaves_the_old_file_whole(tmp_path):
    import resource
    import signal
    import subprocess
    import sys

    source = next(BOOK_DATA.glob("tuner-runs-*.npz"))
    target = tmp_path / "runs.npz"
    target.write_bytes(source.read_bytes())

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    code = f"from schedlab.tuning.records import load_runs; load_runs({str(source)!r}).save('runs.npz')"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120, preexec_fn=limit
    )
    assert proc.returncode == 1 and "File too large" in proc.stderr
    assert target.read_bytes() == source.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["runs.npz"]


@pytest.mark.parametrize("name", ["runs.dat", "runs"])
def test_runs_are_saved_under_the_name_given(tmp_path, name):
    runs = load_runs(next(BOOK_DATA.glob("tuner-runs-*.npz")))
    assert runs.save(tmp_path / name) == tmp_path / name
    assert [p.name for p in tmp_path.iterdir()] == [name]
    again = load_runs(tmp_path / name)
    assert again.names == runs.names and np.array_equal(again.orders, runs.orders)


# --- the rules, through Kernel Tuner's own public interface ------------------------------------------


def _kt_run(entry, strategy, budget, seed, **kwargs):
    """Run a Kernel Tuner strategy through its public interface on the exported 4096^3 landscape (seeded)."""
    import tempfile
    import warnings
    from pathlib import Path

    from schedlab.tuning.cache import write_json
    from schedlab.tuning.export import cache_document

    doc = cache_document(SQUARE, noise=0.03, seed=seed)
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = write_json(doc, Path(folder) / "cache.json")
        random.seed(seed)
        np.random.seed(seed)
        if entry == "tune_cache":
            from kernel_tuner import tune_cache

            results, _ = tune_cache(str(path), strategy=strategy, strategy_options={"max_fevals": budget}, quiet=True)
        else:
            from kernel_tuner import tune_kernel

            tune_params = {k: list(v) for k, v in doc["tune_params"].items()}
            results, _ = tune_kernel(
                doc["kernel_name"],
                "void f(){}",
                doc["problem_size"],
                [],
                tune_params,
                simulation_mode=True,
                cache=str(path),
                strategy=strategy,
                strategy_options={"max_fevals": budget},
                quiet=True,
                **kwargs,
            )
    return results


def _charged(results):
    """(distinct configs evaluated, how many of them cannot launch) in Kernel Tuner's results."""
    keys = [TRITON_NAMES[k] for k in SPACE]
    distinct = {tuple(r[k] for k in keys): r for r in results}
    unlaunchable = sum(1 for r in distinct.values() if "__error__" in r or not isinstance(r["time"], float))
    return len(distinct), unlaunchable


@pytest.mark.parametrize("strategy", ["random_sample", "greedy_ils"])
def test_kernel_tuners_tune_cache_runs_under_the_rules(strategy):
    # driven through kernel_tuner.tune_cache itself, not through this package's runner: the budget
    # is spent on launchable configs only, and exactly the budget
    distinct, unlaunchable = _charged(_kt_run("tune_cache", strategy, 120, seed=2))
    assert (distinct, unlaunchable) == (120, 0)


def test_kernel_tuners_tune_kernel_needs_the_launchable_restriction():
    from schedlab.tuning.kernel_tuner_adapter import launchable_restriction

    plain = _charged(_kt_run("tune_kernel", "random_sample", 300, seed=1))
    ruled = _charged(_kt_run("tune_kernel", "random_sample", 300, seed=1, restrictions=[launchable_restriction()]))
    # without it, Kernel Tuner charges unlaunchable entries as evaluations: about 2256 of the
    # 6000 grid points cannot launch, so a uniform draw of 300 hits one ~ 300 * 2256 / 6000 = 113 times
    assert plain[0] == 300 and 60 < plain[1] < 170
    assert ruled == (300, 0)


def test_real_tuners_spend_the_budget_unless_they_stop_on_their_own():
    # simulated annealing ran its schedule out after 225 of 300 evaluations with Kernel Tuner's
    # defaults; under the rules it is given the max_fevals whose schedule ends at the budget
    assert len(tuner_order("kt_simulated_annealing", SQUARE, budget=300, seed=3)) == 300


def test_update_runs_replaces_only_the_named_tuners_and_refuses_what_would_not_regenerate():
    import dataclasses

    from schedlab.tuning.records import update_runs
    from schedlab.tuning.tuners import rules_record

    old = record_runs((16, 4096, 4096), names=["kt_random_sample", "kt_greedy_ils"], seeds=[0, 1], budget=12)
    new = record_runs((16, 4096, 4096), names=["kt_greedy_ils"], seeds=[0, 1], budget=12)
    both = update_runs(old, new)
    assert both.names == ("kt_greedy_ils", "kt_random_sample")  # TUNERS order
    assert np.array_equal(both.order("kt_random_sample", 1), old.order("kt_random_sample", 1))
    with pytest.raises(ValueError, match="seeds"):
        update_runs(old, record_runs((16, 4096, 4096), names=["kt_greedy_ils"], seeds=[0], budget=12))
    # runs recorded before the rules ran simulated annealing with max_fevals = budget: keeping them is refused
    legacy = record_runs((16, 4096, 4096), names=["kt_simulated_annealing"], seeds=[0, 1], budget=12)
    legacy = dataclasses.replace(legacy, rules="")
    assert rules_record(12) != ""
    with pytest.raises(ValueError, match="kt_simulated_annealing ran under other options"):
        update_runs(legacy, new)


def test_the_recorded_guide_runs_hold_under_todays_rules():
    from schedlab.studies import guides
    from schedlab.tuning.tuners import rules_record

    runs = guides.load_guide_runs(DATA / "guide-runs-4096x4096x4096.npz")
    assert runs.rules == rules_record(runs.budget) and runs.names == guides.REAL
    assert ((runs.orders >= 0).sum(axis=-1) > 0).all()


def test_bayes_opt_takes_the_same_path_whatever_the_wall_clock_says(monkeypatch):
    """Kernel Tuner's bayes_opt refits its model by timing predictions against evaluations: a busy machine
    (here a wall clock whose readings jump by random amounts) must not change the configs it measures."""
    import time

    quiet = tuner_order("kt_bayes_opt", SQUARE, budget=40, seed=5)
    rng = np.random.default_rng(0)
    now = [0.0]

    def busy():
        now[0] += float(rng.exponential(1.0)) ** 3  # mostly short steps, now and then a very long one
        return now[0]

    monkeypatch.setattr(time, "perf_counter", busy)
    monkeypatch.setattr(time, "perf_counter_ns", lambda: int(busy() * 1e9))
    assert np.array_equal(tuner_order("kt_bayes_opt", SQUARE, budget=40, seed=5), quiet)
