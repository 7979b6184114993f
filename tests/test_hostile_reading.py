"""Files from strangers (issue 27): reading is bounded, every refusal one line naming the path given."""

from __future__ import annotations

import gzip
import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.cli.main import main
from schedlab.core.files import InputFileError, read_input
from schedlab.core.measured import load_compact, save_compact
from schedlab.tuning.cache import read_cache
from schedlab.tuning.measured import measured_context


def cache(params, entries, **extra):
    return {"tune_params_keys": list(params), "tune_params": params, "cache": entries, **extra}


def write(tmp_path, doc, name="c.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def test_two_entries_on_a_huge_grid_build_tables_from_the_points_only(tmp_path):
    params = {f"k{j}": list(range(100)) for j in range(6)}  # 10^12 grid points
    entries = {"0,0,0,0,0,0": {"time": 1.0, "times": [1.0]}, "1,0,0,0,0,0": {"time": 2.0, "times": [2.0]}}
    c = measured_context(read_cache(write(tmp_path, cache(params, entries))))
    assert c.neighbours.adjacent_py == ((1,), (0,))


def test_64_two_valued_knobs_do_not_overflow(tmp_path):
    params = {f"k{j}": [0, 1] for j in range(64)}
    entries = {",".join(["0"] * 64): {"time": 1.0}, ",".join(["1"] + ["0"] * 63): {"time": 2.0}}
    c = measured_context(read_cache(write(tmp_path, cache(params, entries))))
    assert c.neighbours.index_of(np.zeros(64, int)) == 0 and c.neighbours.adjacent_py == ((1,), (0,))


@pytest.mark.parametrize("size, expected", [(4096, (4096,)), (None, ()), ([64, 32], (64, 32))])
def test_kernel_tuners_problem_size_spellings(tmp_path, size, expected):
    doc = cache({"a": [1, 2]}, {"1": {"time": 1.0}}, problem_size=size)
    assert read_cache(write(tmp_path, doc)).problem_size == expected


@pytest.mark.parametrize(
    "text, message",
    [
        (json.dumps(cache({"a": [1]}, {"1": {"time": 1.0}}, problem_size="4096x4096")), "problem_size"),
        ("[" * 100_000, "not JSON"),
        (
            '{"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": {"1": {"time": 1' + "0" * 400 + "}}}",
            "no entry has a valid time",
        ),
        (json.dumps(cache({"a": [1, 1]}, {"1": {"time": 1.0}})), "lists a value twice"),
    ],
)
def test_hostile_json_is_one_line_naming_the_file(tmp_path, text, message):
    path = write(tmp_path, text, "hostile.json")
    with pytest.raises(InputFileError, match=message) as e:
        read_cache(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_a_gzip_bomb_is_refused_at_the_cap(tmp_path):
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(b" " * 2_000_000))
    with pytest.raises(InputFileError, match=r"bomb.json.gz: decompresses to more than 1000000 bytes"):
        read_cache(path, max_bytes=1_000_000)


def test_devices_and_pipes_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path in ("/dev/zero", fifo):
        with pytest.raises(InputFileError, match="not a regular file"):
            read_cache(path)
        with pytest.raises(InputFileError, match="not a regular file"):
            load_compact(path)
    with pytest.raises(InputFileError):
        read_input(tmp_path)


def small_landscape(tmp_path):
    doc = cache(
        {"a": [1, 2, 4], "b": ["x", "y"]},
        {"1,x": {"time": 2.0, "times": [2.0, 2.0]}, "2,y": {"time": 1.0, "times": [1.0, 1.0]}},
    )
    return read_cache(write(tmp_path, doc))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.pop("time_ms"), "missing time_ms"),
        (lambda d: d.update(time_ms=np.array([np.nan, 1.0])), "positive finite"),
        (lambda d: d.update(time_ms=np.array([-1.0, 1.0])), "positive finite"),
        (lambda d: d.update(time_ms=np.array(["a", "b"])), "time_ms must be"),
        (lambda d: d.update(knobs=np.array([[0, 0], [0, 0]], np.uint8)), "recorded twice"),
        (lambda d: d.update(knobs=np.array([[7, 0], [1, 1]], np.uint8)), "outside"),
        (lambda d: d.update(tune_params_json=np.array(5)), "text scalar"),
    ],
)
def test_compact_files_are_checked_as_strictly_as_caches(tmp_path, change, message):
    good = save_compact(small_landscape(tmp_path), tmp_path / "good.npz")
    with np.load(good) as f:
        data = {k: f[k] for k in f.files}
    change(data)
    bad = tmp_path / "given.npz"
    np.savez(bad, **data)
    with pytest.raises(InputFileError, match=message) as e:
        load_compact(bad)
    assert str(bad) in str(e.value)


def test_compact_reads_only_known_arrays(tmp_path):
    good = save_compact(small_landscape(tmp_path), tmp_path / "good.npz")
    with np.load(good) as f:
        data = {k: f[k] for k in f.files}
    np.savez(tmp_path / "extra.npz", **data, extra=np.zeros(3, dtype=object).astype(str))
    assert load_compact(tmp_path / "extra.npz").n_configs == 2
    np.savez(tmp_path / "pickled.npz", **{**data, "knobs": np.array([None, None], dtype=object)})
    with pytest.raises(InputFileError, match="pickled.npz"):
        load_compact(tmp_path / "pickled.npz")


values = st.one_of(st.integers(-3, 3), st.text("ab,", max_size=2), st.none(), st.floats(allow_nan=True))
times = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-2, 10**30), st.text(max_size=3), st.none()
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    params=st.dictionaries(st.text("kxy", min_size=1, max_size=2), st.lists(values, max_size=3), max_size=3),
    entries=st.dictionaries(st.text("0123,abx", max_size=6), st.fixed_dictionaries({"time": times}), max_size=5),
    size=st.one_of(st.none(), st.integers(), st.lists(st.integers(), max_size=2), st.text(max_size=3)),
)
def test_random_small_caches_give_a_landscape_or_one_line(tmp_path, params, entries, size):
    path = write(tmp_path, cache(params, entries, problem_size=size), "random.json")
    try:
        m = read_cache(path)
    except InputFileError as e:
        assert str(path) in str(e) and "\n" not in str(e)
        return
    compact = save_compact(m, tmp_path / "random.npz")
    back = load_compact(compact)
    assert back.n_configs == m.n_configs and np.array_equal(back.time_ms, m.time_ms)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.dictionaries(
        st.sampled_from(["knobs", "time_ms", "unlaunchable", "repeat_steps", "tick_ns", "device"]),
        st.sampled_from(
            [
                np.zeros((2, 2), np.uint8),
                np.array([1.0, np.inf]),
                np.array(3),
                np.zeros((0,), np.int64),
                np.array("x"),
                np.ones((2, 1), np.int64),
            ]
        ),
    )
)
def test_random_compact_files_give_a_landscape_or_one_line(tmp_path, tmp_path_factory, changes):
    good = save_compact(small_landscape(tmp_path), tmp_path / "good.npz")
    with np.load(good) as f:
        data = {**{k: f[k] for k in f.files}, **changes}
    path = tmp_path / "random.npz"
    np.savez(path, **data)
    try:
        load_compact(path)
    except InputFileError as e:
        assert str(path) in str(e) and "\n" not in str(e)


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_measured_refuses_colliding_outputs_before_writing(capsys, tmp_path):
    a, b = tmp_path / "d1", tmp_path / "d2"
    a.mkdir(), b.mkdir()
    doc = cache({"a": [1, 2]}, {"1": {"time": 1.0, "times": [1.0]}, "2": {"time": 2.0, "times": [2.0]}})
    for d in (a, b):
        write(d, doc, "x.json")
    status, _, err = run(capsys, "measured", a / "x.json", b / "x.json", "-o", tmp_path / "out")
    assert status == 2 and "both be written as x.npz" in err and not (tmp_path / "out").exists()


def test_measured_checks_every_file_before_writing_any(capsys, tmp_path):
    good = write(
        tmp_path,
        cache({"a": [1, 2]}, {"1": {"time": 1.0, "times": [1.0]}, "2": {"time": 2.0, "times": [2.0]}}),
        "good.json",
    )
    bad = write(tmp_path, cache({"a": [1]}, {"1": {"time": 1.0, "times": [1.0]}}), "bad.json")  # nothing to search
    status, _, err = run(capsys, "measured", good, bad, "-o", tmp_path / "out")
    assert status == 2 and "bad.json" in err and not list((tmp_path / "out").glob("*.npz"))
