"""``python -m schedlab export`` and ``tuners``: files that Kernel Tuner and the page read back."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from kernel_tuner import util

from schedlab.cli.main import main
from schedlab.studies.export import cache_document
from schedlab.studies.tuners import load_runs, tuner_order


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
    proc = subprocess.run(
        [sys.executable, "-m", "schedlab", "export", "16", "16", "16", "--noise", "3"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "at most 1" in proc.stderr


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
