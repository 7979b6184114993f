"""A landscape exported as a Kernel Tuner cache file loads back in Kernel Tuner and a strategy runs on it.

The round trip goes through Kernel Tuner's own reader (``util.read_cache``), its
restriction inference and ``tune_cache`` in simulation mode: what a user of the exported
file would run. The T4 document is validated against the schema Kernel Tuner ships.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from kernel_tuner import tune_cache, util
from kernel_tuner.file_utils import output_file_schema

from schedlab.core.hardware import H100_TC
from schedlab.core.knobs import TRITON_NAMES, all_configs
from schedlab.core.landscape import landscape
from schedlab.core.launch import launchable
from schedlab.tuning.cache import write_json
from schedlab.tuning.export import cache_document, measured_times_s, t4_document
from schedlab.tuning.measurer import Measurer

SHAPE = (512, 14336, 4096)


@pytest.fixture(scope="module")
def cache_file(tmp_path_factory):
    return write_json(cache_document(SHAPE, noise=0.03, seed=7), tmp_path_factory.mktemp("export") / "cache.json")


def test_kernel_tuner_reads_every_config_with_its_measured_time(cache_file):
    data = util.read_cache(str(cache_file), open_cache=False)
    land = landscape(SHAPE)
    measurer = Measurer(SHAPE, budget=len(land.configs), seed=7, noise=0.03)
    assert len(data["cache"]) == len(all_configs()) == 6000
    keys = data["tune_params_keys"]
    for cfg in all_configs()[::37]:
        entry = data["cache"][",".join(map(str, cfg.as_tuple()))]
        assert tuple(entry[k] for k in keys) == cfg.as_tuple()
        i = land.index.get(cfg)
        if i is None:
            assert isinstance(entry["__error__"], util.InvalidConfig)
        else:  # the value Measurer gives for this seed, in milliseconds; the model's time beside it
            assert entry["time"] == pytest.approx(measurer.measure(i) * 1e3, rel=1e-12)
            assert entry["model_time"] == pytest.approx(land.time_s[i] * 1e3, rel=1e-12)


def test_inferred_restrictions_are_exactly_the_launchable_configs(cache_file):
    data = util.read_cache(str(cache_file), open_cache=False)
    valid = {tuple(r[k] for k in data["tune_params_keys"]) for r in data["cache"].values() if "__error__" not in r}
    assert valid == {c.as_tuple() for c in launchable(H100_TC).configs}


def test_a_kernel_tuner_strategy_runs_on_the_file_within_its_budget(cache_file):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="None of the tunable parameters specify thread block")
        results, env = tune_cache(
            str(cache_file), strategy="random_sample", strategy_options={"max_fevals": 50}, quiet=True
        )
    configs = {tuple(r[k] for k in TRITON_NAMES.values()) for r in results}
    assert len(configs) == 50
    assert env["device_name"].startswith("schedlab model of H100")
    land = landscape(SHAPE)
    # the best Kernel Tuner reports is the best measured among what it ran
    measured = measured_times_s(SHAPE, noise=0.03, seed=7)
    ran = [land.index[type(land.configs[0])(*c)] for c in configs]
    assert env["best_config"]["time"] == pytest.approx(measured[ran].min() * 1e3)


def test_noise_zero_writes_the_model_and_the_seed_changes_the_noise():
    a = cache_document((16, 4096, 4096), noise=0)["cache"]
    b = cache_document((16, 4096, 4096), noise=0.03, seed=1)["cache"]
    c = cache_document((16, 4096, 4096), noise=0.03, seed=2)["cache"]
    key = "16,64,128,2,4,1"
    assert a[key]["time"] == a[key]["model_time"]
    assert b[key]["model_time"] == c[key]["model_time"] == a[key]["model_time"]
    assert b[key]["time"] != c[key]["time"]


def test_t4_document_follows_the_schema_kernel_tuner_ships():
    doc = t4_document((2048, 2048, 512), noise=0.03, seed=0)
    _, schema = output_file_schema("results")
    jsonschema.validate(json.loads(json.dumps(doc)), schema)
    valid = [r for r in doc["results"] if r["invalidity"] == "correct"]
    assert len(valid) == len(landscape((2048, 2048, 512)).configs)
    assert {r["invalidity"] for r in doc["results"]} == {"correct", "constraints"}


def test_write_json_names_a_missing_folder(tmp_path):
    with pytest.raises(ValueError, match=f"cannot write {tmp_path}/missing/x.json: its folder .* does not exist"):
        write_json({}, tmp_path / "missing" / "x.json")


def test_measured_times_match_a_budgeted_measurer():
    t = measured_times_s((4096, 4096, 4096), noise=0.05, seed=3)
    m = Measurer((4096, 4096, 4096), budget=5, seed=3, noise=0.05)
    assert [m.measure(i) for i in (0, 10, 3000)] == list(t[[0, 10, 3000]])
    assert np.all(t > 0)


def _run_with_file_size_limit(limit_bytes: int, code: str, cwd) -> subprocess.CompletedProcess:
    """``python -c code`` whose writes fail past ``limit_bytes`` (EFBIG), as on a disk that fills midway."""

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120, preexec_fn=limit
    )


def test_an_export_that_fails_midway_leaves_the_old_file_whole(tmp_path):
    good = tmp_path / "good.json"
    write_json(cache_document((64, 64, 64), noise=0), good)
    before = good.read_bytes()
    assert len(before) > 200_000
    code = "import sys; from schedlab.cli.main import main; sys.exit(main(['export', '64', '64', '64', '-o', 'good.json']))"
    proc = _run_with_file_size_limit(100_000, code, tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "schedlab export: 错误 / error: 无法写出 / cannot write output: good.json: File too large"
    ]
    assert good.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.json"]  # no temporary file left


def test_write_json_writes_a_device_in_place_and_refuses_a_folder(tmp_path):
    assert write_json({"a": 1}, os.devnull) == Path(os.devnull)
    assert Path(os.devnull).is_char_device()
    with pytest.raises(ValueError, match=f"cannot write {tmp_path}: it is a folder"):
        write_json({"a": 1}, tmp_path)
