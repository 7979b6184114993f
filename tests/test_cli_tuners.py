"""``python -m schedlab export`` and ``tuners``: files that Kernel Tuner and the page read back."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from kernel_tuner import util

from schedlab.cli import tuners as cli_tuners
from schedlab.cli.main import main
from schedlab.tuning.export import cache_document
from schedlab.tuning.records import BOOK_DATA, load_runs
from schedlab.tuning.tuners import tuner_order


def test_export_writes_what_cache_document_holds_and_t4(tmp_path, capsys):
    out, t4 = tmp_path / "c.json", tmp_path / "t4.json"
    assert (
        main(["export", "2048", "2048", "512", "-o", str(out), "--noise", "0.05", "--seed", "3", "--t4", str(t4)]) == 0
    )
    assert json.loads(out.read_text()) == json.loads(json.dumps(cache_document((2048, 2048, 512), 0.05, 3)))
    assert util.read_cache(str(out), open_cache=False)["problem_size"] == [2048, 2048, 512]
    assert json.loads(t4.read_text())["schema_version"] == "1.0.0"
    assert str(out) in capsys.readouterr().out


def test_export_refuses_bad_arguments(tmp_path, capsys):
    assert main(["export", "0", "2048", "512", "-o", str(tmp_path / "x.json")]) == 2
    assert "M" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["export", "16", "16", "16", "--noise", "3"])
    assert stop.value.code == 2 and "at most 1" in capsys.readouterr().err


def test_tuners_records_runs_the_page_can_replay(tmp_path):
    out = tmp_path / "runs.npz"
    assert (
        main(
            [
                "tuners",
                "16",
                "4096",
                "4096",
                "--seeds",
                "2",
                "--budget",
                "10",
                "--tuner",
                "kt_greedy_ils",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    runs = load_runs(out)
    assert runs.names == ("kt_greedy_ils",) and runs.seeds == (0, 1)
    assert np.array_equal(runs.order("kt_greedy_ils", 1), tuner_order("kt_greedy_ils", (16, 4096, 4096), 10, 1))


def _no_recording(*_args, **_kwargs):
    raise AssertionError("record_runs ran although the output cannot be written")


@pytest.mark.parametrize("output", ["{tmp}", "/proc/r.npz", "{tmp}/missing/r.npz"])
def test_tuners_refuses_an_unwritable_output_before_any_work(tmp_path, capsys, monkeypatch, output):
    monkeypatch.setattr(cli_tuners, "record_runs", _no_recording)
    path = output.format(tmp=tmp_path)
    assert main(["tuners", "16", "16", "16", "--seeds", "1", "-o", path]) == 2
    assert f"cannot write {path}" in capsys.readouterr().err


def test_tuners_writes_the_name_given_and_a_device_in_place(tmp_path, capsys):
    args = ["tuners", "16", "64", "64", "--seeds", "1", "--budget", "3", "--tuner", "kt_greedy_ils"]
    assert main([*args, "-o", str(tmp_path / "runs.dat")]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["runs.dat"]
    assert load_runs(tmp_path / "runs.dat").names == ("kt_greedy_ils",)
    assert str(tmp_path / "runs.dat") in capsys.readouterr().out
    assert main([*args, "-o", os.devnull]) == 0
    assert Path(os.devnull).is_char_device() and not Path(os.devnull + ".npz").exists()


def test_tuners_progress_writes_no_carriage_returns_to_a_log(tmp_path, capsys, monkeypatch):
    def record(shape, names, seeds, budget, noise, hw, progress):
        for done in range(1, 4):
            progress(done, 3, "kt_greedy_ils")
        return load_runs(next(BOOK_DATA.glob("tuner-runs-*.npz")))

    monkeypatch.setattr(cli_tuners, "record_runs", record)
    assert main(["tuners", "16", "16", "16", "--seeds", "1", "-o", str(tmp_path / "r.npz")]) == 0
    assert "\r" not in capsys.readouterr().err


def test_export_checks_both_paths_before_writing_either(tmp_path, capsys):
    out = tmp_path / "a.json"
    assert main(["export", "64", "64", "64", "-o", str(out), "--t4", "/nonexistent/t4.json"]) == 2
    assert "cannot write /nonexistent/t4.json" in capsys.readouterr().err
    assert not out.exists()
    assert main(["export", "64", "64", "64", "-o", "/proc/x"]) == 2
    assert "cannot write /proc/x" in capsys.readouterr().err


def test_export_with_stdout_closed_still_writes_both_files(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", None)  # as in a process started with its stdout closed
    monkeypatch.chdir(tmp_path)
    assert main(["export", "64", "64", "64", "-o", "a.json", "--t4", "t4.json"]) == 0
    assert capsys.readouterr().err == ""
    assert json.loads((tmp_path / "a.json").read_text())["problem_size"] == [64, 64, 64]
    assert json.loads((tmp_path / "t4.json").read_text())["schema_version"] == "1.0.0"


def test_tuners_update_re_records_only_the_named_tuners(tmp_path):
    out = str(tmp_path / "runs.npz")
    common = ["tuners", "16", "4096", "4096", "--seeds", "2", "--budget", "10", "-o", out]
    assert main([*common, "--tuner", "kt_greedy_ils", "kt_random_sample"]) == 0
    before = load_runs(out)
    assert main([*common, "--tuner", "kt_random_sample", "--update"]) == 0
    after = load_runs(out)
    assert after.names == before.names and np.array_equal(after.orders, before.orders)  # seeded: the same orders
    with pytest.raises(SystemExit, match="--update needs --tuner"):
        main([*common, "--update"])


def test_tuners_sigma_records_only_the_real_model_fitting_tuners(tmp_path):
    args = ["tuners", "16", "4096", "4096", "--sigma", "0.1", "--tuner", "kt_greedy_ils", "-o", str(tmp_path / "g.npz")]
    with pytest.raises(SystemExit, match="--sigma records only kt_bayes_opt, optuna_tpe"):
        main(args)
