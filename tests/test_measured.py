"""Measured landscapes: reading Kernel Tuner caches, the compact copies the book ships, and search on them.

The reader is checked against ``schedlab export`` (its inverse) and the model landscape it was
written from; the compact copies against the original cache files when ``../shared`` holds them,
and otherwise against a small synthetic cache written here (so the test never passes by skipping).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from schedlab.cli.main import main
from schedlab.core.knobs import SPACE, TRITON_NAMES
from schedlab.core.landscape import landscape
from schedlab.core.measured import REPEAT_RTOL, MeasuredLandscape, load_compact, save_compact
from schedlab.studies.landscapes import optimum_at_box_corner
from schedlab.studies.measured import (
    MODEL_FREE,
    book_landscapes,
    compare_measured,
    model_structure,
    structure,
    write_compact,
)
from schedlab.tuning.cache import INVALID, read_cache, to_cache, write_json
from schedlab.tuning.export import cache_document
from schedlab.tuning.harness import run_seeds
from schedlab.tuning.measured import measured_context, repeat_factors
from schedlab.tuning.records import BOOK_MEASURED, load_runs, machine_identity, record_measured_runs, recorded_cores
from schedlab.tuning.strategies import CORES
from schedlab.tuning.tuners import tuner_core

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "data" / "benchmark_hub"
SHAPE = (4096, 4096, 4096)


def synthetic_cache(seed: int = 0) -> dict:
    """A small Kernel Tuner cache: 3 x 4 x 2 grid plus a constant knob, one failed entry, two never recorded.

    Repeats are whole multiples of 32 ns (as CUDA events give), with JSON's decimal rounding.
    """
    rng = np.random.default_rng(seed)
    params = {"X": [1, 2, 4], "Y": [8, 16, 32, 64], "Z": ["a", "b"], "C": [3.5]}
    cache = {}
    for x in params["X"]:
        for y in params["Y"]:
            for z in params["Z"]:
                key = f"{x},{y},{z},3.5"
                if (x, y, z) in ((4, 64, "a"), (4, 64, "b")):
                    continue  # never recorded
                entry = {"X": x, "Y": y, "Z": z, "C": 3.5}
                if (x, y, z) == (1, 8, "b"):
                    entry["time"] = "CompilationFailedConfig"
                else:
                    ticks = rng.integers(30_000, 400_000, size=1) + rng.integers(0, 500, size=5)
                    times = [float(t * 32 / 1e6) for t in ticks]
                    entry.update(time=float(np.mean(times)), times=times, compile_time=1.0)
                cache[key] = entry
    return {
        "device_name": "Synthetic GPU",
        "kernel_name": "k",
        "problem_size": [64, 64],
        "tune_params_keys": list(params),
        "tune_params": params,
        "objective": "time",
        "cache": cache,
    }


def write_cache(doc: dict, path: Path, compress: bool = False) -> Path:
    data = json.dumps(doc).encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


# --- the reader ---------------------------------------------------------------------------------


@pytest.mark.parametrize("compress", [False, True])
def test_reads_schedlab_export_back_as_the_model_landscape(tmp_path, compress):
    doc = cache_document(SHAPE, noise=0)
    path = write_cache(doc, tmp_path / ("c.json.gz" if compress else "c.json"), compress)
    m = read_cache(path)
    land = landscape(SHAPE)
    assert m.n_configs == len(land.configs)
    assert len(m.unlaunchable) == np.prod([len(v) for v in SPACE.values()]) - len(land.configs)
    assert m.knob_names == tuple(TRITON_NAMES[k] for k in SPACE)
    got = {tuple(m.config(i).values()): m.time_ms[i] for i in range(m.n_configs)}
    want = {c.as_tuple(): t * 1e3 for c, t in zip(land.configs, land.time_s)}
    assert got.keys() == want.keys()
    assert all(got[k] == pytest.approx(want[k], rel=1e-12) for k in want)
    assert m.repeats_ms.shape == (m.n_configs, 1)  # export writes the one measurement


def test_the_cli_export_reads_back(tmp_path, capsys):
    out = tmp_path / "cache.json"
    assert main(["export", "16", "4096", "4096", "--noise", "0", "-o", str(out)]) == 0
    m = read_cache(out)
    assert m.problem_size == (16, 4096, 4096)
    assert m.best_time_ms == pytest.approx(landscape((16, 4096, 4096)).best_time_s * 1e3, rel=1e-12)


def test_to_cache_is_the_inverse_of_read_cache(tmp_path):
    m = read_cache(write_cache(synthetic_cache(), tmp_path / "s.json"))
    back = read_cache(write_json(to_cache(m), tmp_path / "back.json"))
    for a in ("knobs", "time_ms", "repeats_ms", "unlaunchable"):
        assert np.array_equal(getattr(back, a), getattr(m, a)), a
    assert back.tune_params == m.tune_params


def test_synthetic_cache_reads_as_written(tmp_path):
    doc = synthetic_cache()
    m = read_cache(write_cache(doc, tmp_path / "s.json"))
    assert m.n_configs == 3 * 4 * 2 - 2 - 1 and len(m.unlaunchable) == 1
    assert m.unlaunchable.tolist() == [[0, 0, 1, 0]]  # X=1, Y=8, Z="b": failed to compile
    assert m.varying() == (0, 1, 2)  # C is a constant
    assert m.grid_size == 24
    for i in range(m.n_configs):
        c = m.config(i)
        entry = doc["cache"][f"{c['X']},{c['Y']},{c['Z']},{c['C']}"]
        assert m.time_ms[i] == entry["time"] and m.repeats_ms[i].tolist() == entry["times"]


def _broken(**change):
    doc = synthetic_cache()
    for k, v in change.items():
        if v is None:
            del doc[k]
        else:
            doc[k] = v
    return doc


def _first_entry(doc, **fields):
    key = next(iter(doc["cache"]))
    doc["cache"][key] = {**doc["cache"][key], **fields}
    return doc


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: b"{not json", "not JSON"),
        (lambda: b"\x1f\x8b\x08broken", "broken gzip"),
        (lambda: [1, 2], "top level is a list"),
        (lambda: _broken(cache=None), "missing field(s) cache"),
        (lambda: _broken(tune_params_keys=["Y", "X", "Z", "C"]), "must list the knobs of tune_params in order"),
        (lambda: _broken(tune_params={"X": [1, 2, 4], "Y": [8, 16, 32, 64], "Z": [], "C": [3.5]}), "non-empty list"),
        (lambda: _first_entry(synthetic_cache(), X=3), "value '3' that is not in tune_params"),
        (lambda: _first_entry(synthetic_cache(), times=[1.0, "x"]), "times must be a non-empty list"),
        (lambda: _first_entry(synthetic_cache(), times=[1.0]), "different numbers of repeats"),
        (lambda: _broken(cache={"1,8,a,3.5": {"times": [1.0]}}), "has no time"),
        (lambda: _broken(cache={"1,8,a,3.5": {"time": "InvalidConfig"}}), "no entry has a valid time"),
        (lambda: _broken(cache={"1,8,a": {"time": 1.0}}), "does not hold one value per knob"),
        (
            lambda: _broken(cache={"1,8,a,3.5": {"time": 1.0}, "x": {"X": 1, "Y": 8, "Z": "a", "C": 3.5, "time": 2.0}}),
            "repeats a configuration",
        ),
        (
            lambda: _broken(cache={"1,8,a,3.5": {"time": 1.0, "times": [1.0]}, "1,8,b,3.5": {"time": 2.0}}),
            "some entries record their repeats",
        ),
    ],
)
def test_malformed_caches_raise_naming_the_file_and_the_fault(tmp_path, make, message):
    doc = make()
    path = tmp_path / "bad.json"
    path.write_bytes(doc if isinstance(doc, bytes) else json.dumps(doc).encode())
    with pytest.raises(ValueError, match="bad.json") as e:
        read_cache(path)
    assert message in str(e.value)


def test_missing_file_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read .*nowhere.json: No such file"):
        read_cache(tmp_path / "nowhere.json")


# --- the compact copies -----------------------------------------------------------------------------


def assert_compact_matches(compact: MeasuredLandscape, source: MeasuredLandscape):
    """Same configurations and mean times exactly; the same repeats as a multiset, to the JSON's rounding."""
    assert compact.tune_params == source.tune_params
    assert (compact.device, compact.kernel, compact.problem_size) == (source.device, source.kernel, source.problem_size)
    assert np.array_equal(compact.knobs, source.knobs)
    assert np.array_equal(compact.time_ms, source.time_ms)
    assert np.array_equal(compact.unlaunchable, source.unlaunchable)
    np.testing.assert_allclose(compact.repeats_ms, np.sort(source.repeats_ms, axis=1), rtol=REPEAT_RTOL, atol=0)


def test_compact_round_trip_stores_ticks_and_decodes_the_repeats(tmp_path):
    source = read_cache(write_cache(synthetic_cache(1), tmp_path / "s.json.gz", compress=True))
    path = save_compact(source, tmp_path / "s.npz")
    with np.load(path) as f:
        assert int(f["tick_ns"]) % 32 == 0 and "repeats_ms" not in f.files
    assert_compact_matches(load_compact(path), source)


def test_compact_keeps_repeats_that_are_not_whole_nanoseconds_as_floats(tmp_path):
    doc = synthetic_cache()
    for entry in doc["cache"].values():
        if "times" in entry:
            entry["times"] = [t + 1e-9 / 3 for t in entry["times"]]
    source = read_cache(write_cache(doc, tmp_path / "s.json"))
    path = save_compact(source, tmp_path / "s.npz")
    with np.load(path) as f:
        assert "repeats_ms" in f.files
    assert np.array_equal(load_compact(path).repeats_ms, np.sort(source.repeats_ms, axis=1))


def test_load_compact_refuses_other_files(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.zeros(2))
    with pytest.raises(ValueError, match="missing device"):
        load_compact(tmp_path / "x.npz")
    (tmp_path / "y.npz").write_text("no")
    with pytest.raises(ValueError, match="not a compact measured landscape"):
        load_compact(tmp_path / "y.npz")


SOURCES = sorted(SOURCE.glob("*.json.gz"))


@pytest.mark.parametrize("name", [p.name for p in SOURCES] or ["synthetic"])
def test_shipped_compact_data_matches_the_source_files(tmp_path, name):
    """With ``../shared`` present: the book's copies against the originals. Without: the same path on a synthetic cache."""
    if SOURCES:
        source = read_cache(SOURCE / name)
        compact = load_compact(BOOK_MEASURED / name.replace(".json.gz", ".npz"))
    else:
        cache = write_cache(synthetic_cache(2), tmp_path / "synthetic.json.gz", compress=True)
        (tmp_path / "out").mkdir()
        (path,) = write_compact([cache], tmp_path / "out")
        assert path.name == "synthetic.npz"
        source, compact = read_cache(cache), load_compact(path)
    assert_compact_matches(compact, source)


def test_the_book_ships_three_landscapes_a_few_mb_with_licence_and_attribution():
    lands = book_landscapes()
    assert sorted(m.n_configs for m in lands.values()) == [10_000, 17_956, 17_956]  # the README's counts
    assert all(m.repeats_ms.shape[1] == 32 for m in lands.values())
    total = sum(p.stat().st_size for p in BOOK_MEASURED.glob("*.npz"))
    assert total < 5e6
    assert "MIT License" in (BOOK_MEASURED / "LICENSE").read_text()
    readme = (BOOK_MEASURED / "README.md").read_text()
    assert "8eeb99e7179e6838af95d392ac6c60cebfd8c434" in readme and "10.5281/zenodo.15364124" in readme


# --- the study ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return read_cache(write_cache(synthetic_cache(3), tmp_path_factory.mktemp("m") / "s.json"))


def test_measured_context_searches_the_varying_knobs(synthetic):
    c = measured_context(synthetic)
    assert c.neighbours.sizes == (3, 4, 2) and c.n_configs == synthetic.n_configs
    assert c.optimum == synthetic.best_time_ms / 1e3
    # a neighbour differs in exactly one knob by one step
    for i, row in enumerate(c.neighbours.adjacent_py):
        for j in row:
            d = np.abs(c.neighbours.knobs[i] - c.neighbours.knobs[j])
            assert d.sum() == 1


def test_repeat_factors_measure_one_recorded_repeat_per_config(synthetic):
    for seed in (0, 1):
        measured = synthetic.time_ms * repeat_factors(synthetic, seed)
        assert all(np.isclose(synthetic.repeats_ms[i], m, rtol=1e-12).any() for i, m in enumerate(measured))
    assert np.array_equal(repeat_factors(synthetic, 4), repeat_factors(synthetic, 4))
    assert not np.array_equal(repeat_factors(synthetic, 4), repeat_factors(synthetic, 5))


def test_structure_of_a_monotone_grid():
    """Times growing with every knob: one local minimum, at the (0, 0) corner, every neighbour ranked alike."""
    knobs = np.array([(a, b) for a in range(3) for b in range(4)])
    times = 1.0 + knobs[:, 0] + 2.0 * knobs[:, 1]
    m = MeasuredLandscape(
        "g", "k", (), MappingProxyType({"a": (1, 2, 3), "b": (1, 2, 3, 4)}), knobs, times, None, np.zeros((0, 2), int)
    )
    s = structure(measured_context(m), "g")
    assert (s.n_configs, s.n_knobs, s.within, s.local_minima, s.corner, s.knobs_at_end) == (12, 2, 1, 1, True, 2)
    assert s.flat_share == 0 and s.neighbour_rho > 0.5


def test_structure_of_the_model_agrees_with_the_landscape_chapter():
    s = model_structure(SHAPE)
    assert s.within == landscape(SHAPE).n_within(1.05)
    assert s.corner == optimum_at_box_corner(SHAPE)
    assert 0 < s.local_minima < s.n_configs and 0 < s.flat_share < 1


def test_model_free_strategies_keep_the_rules_and_all_reach_with_the_whole_budget(synthetic):
    c = measured_context(synthetic)
    seeds = (0, 1, 2)
    fac = np.stack([repeat_factors(synthetic, s) for s in seeds])
    for name in MODEL_FREE:
        order, _, _ = run_seeds(CORES[name], c, seeds, c.n_configs, fac)  # run_seeds checks the contract
        assert (order >= 0).all() or name in ("descent", "annealing")
    r = compare_measured(
        {"s": c}, {"s": lambda s: repeat_factors(synthetic, s)}, ["random"], seeds=seeds, budget=c.n_configs
    )
    assert np.isfinite(r.trials).all()  # measuring everything finds a config within 5 % (the optimum's repeats)
    with pytest.raises(ValueError, match="model-guided search"):
        run_seeds(CORES["model"], c, seeds, 5, fac)


@pytest.mark.parametrize("name", ["kt_random_sample", "kt_greedy_ils", "optuna_tpe"])
def test_real_tuners_run_under_the_rules_on_a_measured_landscape(synthetic, name):
    """Through Kernel Tuner's tune_cache and Optuna's ask-and-tell: no repeats, nothing unmeasurable, the budget kept."""
    c = measured_context(synthetic)
    budget = 12
    order, _, _ = run_seeds(tuner_core(name), c, (0,), budget, repeat_factors(synthetic, 0)[None, :])
    o = order[0][order[0] >= 0]
    assert 0 < len(o) <= budget and len(set(o.tolist())) == len(o)


def test_recorded_runs_replay_the_live_runs(tmp_path, synthetic):
    runs = record_measured_runs(synthetic, ["kt_random_sample"], seeds=range(2), budget=10)
    back = load_runs(runs.save(tmp_path / "runs.npz"))
    c = measured_context(synthetic)
    fac = np.stack([repeat_factors(synthetic, s) for s in (0, 1)])
    live, _, _ = run_seeds(tuner_core("kt_random_sample"), c, (0, 1), 10, fac)
    replay, _, _ = run_seeds(recorded_cores([back])["kt_random_sample"], c, (0, 1), 10, fac)
    assert np.array_equal(live, replay)
    with pytest.raises(ValueError, match="was not recorded"):
        run_seeds(recorded_cores([back])["kt_random_sample"], c, (0, 5), 10, fac[[0, 0]])
    other = MeasuredLandscape(**{**synthetic.__dict__, "time_ms": synthetic.time_ms * 2})
    with pytest.raises(ValueError, match="do not match"):
        run_seeds(recorded_cores([back])["kt_random_sample"], measured_context(other), (0, 1), 10, fac)


def test_recorded_runs_keep_their_rules_and_are_refused_under_other_options(tmp_path, synthetic):
    """A run recorded when TPE started from Optuna's 10 samples is not replayed as if it started from 20."""
    import dataclasses
    import json

    from schedlab.tuning.tuners import rules_record

    runs = record_measured_runs(synthetic, ["kt_random_sample", "optuna_tpe"], seeds=range(1), budget=10)
    assert load_runs(runs.save(tmp_path / "runs.npz")).rules == rules_record(10)
    rules = json.loads(runs.rules)
    rules["optuna"]["tpe"]["n_startup_trials"] = 10
    older = dataclasses.replace(runs, rules=json.dumps(rules))
    c = measured_context(synthetic)
    fac = repeat_factors(synthetic, 0)[None, :]
    cores = recorded_cores([older])
    run_seeds(cores["kt_random_sample"], c, (0,), 10, fac)  # its options did not change
    with pytest.raises(ValueError, match="optuna_tpe .* other options than the rules give it now"):
        run_seeds(cores["optuna_tpe"], c, (0,), 10, fac)


def test_cli_measured_runs_the_study_on_any_cache_and_writes_the_compact_copy(tmp_path, capsys):
    cache = write_cache(synthetic_cache(4), tmp_path / "mine.json.gz", compress=True)
    assert main(["measured", str(cache), "--seeds", "4", "-o", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "mine" in out and "4096×4096×4096" in out and "随机搜索" in out
    assert_compact_matches(load_compact(tmp_path / "o" / "mine.npz"), read_cache(cache))
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert main(["measured", str(bad)]) != 0
    assert "not a Kernel Tuner cache file" in capsys.readouterr().err


def test_to_cache_marks_unlaunchable_entries_invalid(synthetic):
    doc = to_cache(synthetic)
    assert sum(e["time"] == INVALID for e in doc["cache"].values()) == len(synthetic.unlaunchable)


RUNS = sorted(BOOK_MEASURED.glob("runs-*.npz"))


def test_every_shipped_landscape_has_recorded_tuner_runs():
    sources = {m.source for m in book_landscapes().values()}
    assert {load_runs(p).landscape for p in RUNS if p.name.endswith("-fast.npz")} == sources


@pytest.mark.regen
@pytest.mark.parametrize(
    "path",
    # bayes_opt and TPE take about 30 s a run on 17,956 configs
    [pytest.param(p, marks=pytest.mark.slow) if p.name.endswith("-model.npz") else p for p in RUNS],
    ids=lambda p: p.stem,
)
def test_recorded_measured_runs_regenerate(path):
    """A sample of the recorded runs the page replays is what the tuners do today (same library versions)."""
    runs = load_runs(path)
    (land,) = [m for m in book_landscapes().values() if m.source == runs.landscape]
    cheap = [n for n in ("kt_diff_evo", "optuna_cmaes", "kt_random_sample", "kt_bayes_opt") if n in runs.names][0]
    seed = runs.seeds[-1]
    live, _, _ = run_seeds(
        tuner_core(cheap), measured_context(land), (seed,), runs.budget, repeat_factors(land, seed)[None, :]
    )
    recorded = runs.orders[0, runs.names.index(cheap), runs.seeds.index(seed)]
    assert np.array_equal(live[0], recorded), f"{cheap} seed {seed} differs from {path.name} ({runs.versions})"


def test_the_cache_file_and_its_compact_copy_meet_the_same_machine(tmp_path):
    """Repeats are a multiset: the order a cache records them in changes neither the measurements nor the fingerprint."""
    doc = synthetic_cache(5)
    source = read_cache(write_cache(doc, tmp_path / "s.json"))
    compact = load_compact(save_compact(source, tmp_path / "s.npz"))
    assert not np.array_equal(source.repeats_ms, compact.repeats_ms)  # the cache's order is not sorted
    for seed in (0, 3):
        np.testing.assert_allclose(repeat_factors(source, seed), repeat_factors(compact, seed), rtol=1e-12)
    assert machine_identity(source) == machine_identity(compact)
    runs = record_measured_runs(compact, ["kt_random_sample"], seeds=range(1), budget=5)
    fac = repeat_factors(source, 0)[None, :]
    replay, _, _ = run_seeds(recorded_cores([runs])["kt_random_sample"], measured_context(source), (0,), 5, fac)
    assert np.array_equal(replay, runs.orders[0, 0])
