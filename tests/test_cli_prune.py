"""``python -m schedlab prune``: the kept configs as triton.Config lines, the share skipped, --json, a FILE list."""

from __future__ import annotations

import json

import pytest

from schedlab.cli.main import main
from schedlab.cli.prune import LISTS
from schedlab.triton.hook import Pruner, read_config


def run(capsys, *argv):
    status = main(["prune", *map(str, argv)])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("source", ["tutorial", "inductor"])
def test_lines_paste_into_triton(capsys, source):
    triton = pytest.importorskip("triton")
    status, out, _ = run(capsys, 512, 4096, 4096, "--gpu", "h100-sxm", "--configs", source, "--top", 3)
    assert status == 0
    lines = [line for line in out.splitlines() if line.startswith("triton.Config(")]
    pasted = [eval(line.split("  # ")[0].rstrip(","), {"triton": triton}) for line in lines]
    expected = Pruner("h100-sxm", top_k=3).prune(LISTS[source]((512, 4096, 4096)), (512, 4096, 4096)).kept
    assert [read_config(c) for c in pasted] == [read_config(c) for c in expected]
    assert "kept 3 of" in out and "skipped" in out


def test_json_and_file(capsys, tmp_path):
    status, out, _ = run(capsys, 4096, 4096, 4096, "--configs", "tutorial", "--top", 4, "--json")
    doc = json.loads(out)
    assert status == 0 and doc["n_listed"] == 16 and len(doc["kept"]) == 4 and doc["skipped_share"] == 0.75
    assert len(doc["dropped"]) == 5 and all(d["reasons"] == ["smem"] for d in doc["dropped"])
    listed = tmp_path / "configs.json"  # Config.__dict__ records, as Triton's autotune cache stores them
    listed.write_text(json.dumps([{k: v for k, v in c.items() if k != "estimate_ms"} for c in doc["kept"]]))
    status, again, _ = run(capsys, 4096, 4096, 4096, "--configs", listed, "--top", 4, "--json")
    assert status == 0 and json.loads(again)["kept"] == doc["kept"]


@pytest.mark.parametrize(
    "argv, message",
    [
        ((0, 4096, 4096), "M must be a positive integer"),
        ((16, 16, 16, "--configs", "missing.json"), "no such file: missing.json"),
    ],
)
def test_errors_name_the_problem(capsys, argv, message):
    status, _, err = run(capsys, *argv)
    assert status == 2 and message in err


def test_unreadable_file(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"BM": 64}]')
    status, _, err = run(capsys, 16, 16, 16, "--configs", bad)
    assert status == 2 and "no keyword for bm" in err
    bad.write_text("{}")
    status, _, err = run(capsys, 16, 16, 16, "--configs", bad)
    assert status == 2 and "non-empty JSON list" in err


def test_strides_decide_which_operand_of_an_unaligned_shape_fits_shared_memory(capsys, tmp_path):
    # 128 x 128 x 128, 4 warps, 4 stages: four 64 KiB pipeline buffers fit no H100 SM; with K = 200 and strides
    # passed as arguments A is loaded element by element into one buffer and it fits, with constant strides
    # (K = 200 rows are 16-byte aligned) it does not
    listed = tmp_path / "configs.json"
    knobs = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages")
    configs = [dict(zip(knobs, c)) for c in ((128, 128, 128, 8, 4, 4), (128, 128, 64, 8, 4, 3))]
    listed.write_text(json.dumps(configs))
    docs = {}
    for strides in ("runtime", "constant"):
        status, out, _ = run(
            capsys, 4096, 4096, 200, "--gpu", "h100-sxm", "--configs", listed, "--json", "--strides", strides
        )
        docs[strides] = json.loads(out)
        assert status == 0 and docs[strides]["strides"] == strides
    assert len(docs["runtime"]["kept"]) == 2 and not docs["runtime"]["dropped"]
    assert [d["reasons"] for d in docs["constant"]["dropped"]] == [["smem"]]
    with pytest.raises(SystemExit) as exited:
        run(capsys, 4096, 4096, 200, "--configs", listed, "--strides", "static")
    assert exited.value.code == 2 and "invalid choice: 'static'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="strides must be one of runtime, constant, got 'static'"):
        Pruner("h100-sxm", strides="static")
