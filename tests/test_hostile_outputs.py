"""Outputs checked before the work and written strictly (issue 27)."""

from __future__ import annotations

import json

from schedlab.cli.main import main


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_prune_json_is_strict_and_lists_each_config_once(capsys, tmp_path):
    big = {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 8, "num_warps": 8, "num_stages": 5}
    listed = tmp_path / "configs.json"
    listed.write_text(json.dumps([big]))
    status, out, _ = run(capsys, "prune", 4096, 4096, 4096, "--configs", listed, "--json")
    doc = json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))  # no Infinity/NaN
    assert status == 0 and doc["kept"][0]["estimate_ms"] is None and doc["dropped"] == []


def test_prune_never_shows_a_partial_skip_as_100_percent(capsys, tmp_path):
    listed = tmp_path / "configs.json"
    one = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8, "num_warps": 4, "num_stages": 3}
    listed.write_text(json.dumps([one] + [{**one, "num_stages": s} for s in (1, 2, 4, 5)] * 1))
    status, out, _ = run(capsys, "prune", 4096, 4096, 4096, "--configs", listed, "--top", 1)
    assert status == 0 and "skipped 80%" in out


def test_export_refuses_one_file_for_two_outputs(capsys, tmp_path):
    same = tmp_path / "same.json"
    status, _, err = run(capsys, "export", 64, 64, 64, "-o", same, "--t4", same)
    assert status == 2 and "same file" in err and not same.exists()


def test_export_dash_is_stdout(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "export", 64, 64, 64, "-o", "-")
    assert status == 0 and json.loads(out)["kernel_name"] and not (tmp_path / "-").exists()


def test_export_writes_through_a_symlink(capsys, tmp_path):
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("{}")
    link.symlink_to(target)
    assert run(capsys, "export", 64, 64, 64, "-o", link)[0] == 0
    assert link.is_symlink() and json.loads(target.read_text())["kernel_name"]


def test_tuners_update_refuses_the_wrong_kind_of_file_first(capsys, tmp_path):
    wrong = tmp_path / "landscape.npz"
    wrong.write_bytes(b"not an npz")
    status, _, err = run(capsys, "tuners", 64, 64, 64, "--tuner", "optuna_tpe", "--update", "-o", wrong, "--seeds", 1)
    assert status == 2 and "not recorded tuner runs" in err
