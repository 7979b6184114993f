"""The console edition: `python -m schedlab`, its tables, and the console helpers.

Numbers are checked against schedlab.studies / schedlab.core.model results, formatted by
schedlab.render, so a change in the model moves the expected values with it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from wcwidth import wcwidth

from schedlab.cli.main import main
from schedlab.console import print_observations, print_render_table, print_table
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.model import TERMS
from schedlab.core.model.engine import explain
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.render.labels import (
    KNOB_LABELS,
    STRATEGY_LABELS,
    TERM_LABELS,
    launch_reason_label,
    shape_name,
    shape_short,
)
from schedlab.render.landscape import fmt_ties, top_table
from schedlab.render.model import breakdown_table
from schedlab.render.search import search_shape_table
from schedlab.render.sensitivity import sensitivity_table
from schedlab.render.shapes import transfer_table
from schedlab.render.space import knob_table
from schedlab.render.table import Table, fmt_config, fmt_percent, fmt_ratio, fmt_tflops, fmt_time, fmt_trials
from schedlab.render.wrap import wrap
from schedlab.studies.sensitivity import sensitivity
from schedlab.studies.shapes import transfer
from schedlab.studies.space import space_summary
from schedlab.tuning.compare import compare
from schedlab.tuning.strategies import STRATEGIES

SQUARE = (4096, 4096, 4096)
HEADERS = ("演示 1", "演示 2", "演示 3", "演示 4")


# --- helpers ------------------------------------------------------------------------------


def cells_of(line: str) -> list[str]:
    """The line as display cells: a wide character, then "" for its second column."""
    out = []
    for ch in line:
        w = wcwidth(ch)
        assert w >= 0, f"control character {ch!r} in {line!r}"
        if w == 0:
            assert out, f"line starts with a zero-width character: {line!r}"
            out[-1] += ch
            continue
        out.append(ch)
        out.extend([""] * (w - 1))
    return out


def spans_of(rule: str) -> list[tuple[int, int]]:
    """(start, end) display columns of each dash run of a table's separator line."""
    spans, start = [], None
    for i, ch in enumerate(rule + " "):
        if ch == "-" and start is None:
            start = i
        elif ch != "-" and start is not None:
            spans.append((start, i))
            start = None
    return spans


def split_row(line: str, spans) -> list[str]:
    """Cut a printed row at the separator's display columns, checking the gaps are blank."""
    cols = cells_of(line)
    cols += [" "] * (spans[-1][1] - len(cols))
    out = []
    for j, (a, b) in enumerate(spans):
        assert cols[a] != "", f"a wide character straddles column {j}'s left edge in {line!r}"
        if b < len(cols):
            assert cols[b] != "", f"a wide character straddles column {j}'s right edge in {line!r}"
        gap_end = spans[j + 1][0] if j + 1 < len(spans) else len(cols)
        gap = "".join(cols[b:gap_end])
        assert gap.strip() == "", f"column {j} spills into the gap ({gap!r}) in {line!r}"
        out.append("".join(cols[a:b]).strip())
    return out


def tables_of(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every printed table in ``text`` (a header line, a dash line, rows up to a blank line)."""
    lines = text.splitlines()
    found = []
    for i in range(1, len(lines)):
        rule = lines[i]
        if rule and set(rule) <= {"-", " "} and rule.startswith("-") and lines[i - 1].strip():
            spans = spans_of(rule)
            rows = []
            for row in lines[i + 1 :]:
                if not row.strip():
                    break
                rows.append(split_row(row, spans))
            found.append((split_row(lines[i - 1], spans), rows))
    return found


def table_with(text: str, *headers: str) -> list[list[str]]:
    """Rows of the one printed table whose headers begin with ``headers``."""
    hits = [rows for head, rows in tables_of(text) if tuple(head[: len(headers)]) == headers]
    assert len(hits) == 1, f"{len(hits)} tables with headers {headers}"
    return hits[0]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """``python -m schedlab *args`` in a real process (the entry point's smoke test, and what only a process shows)."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "schedlab", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )


def run_status(capsys, *args: str) -> tuple[int, str, str, list]:
    """``main(args)`` in this process: its exit status (a usage error's SystemExit included), stdout, stderr and
    the warnings it raised (a RuntimeWarning would reach the user's console)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            status = main(list(args))
        except SystemExit as stop:
            status = stop.code
    out, err = capsys.readouterr()
    shown = [w for w in caught if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning))]
    return status, out, err, shown


def run_main(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.fixture(scope="module")
def demo_out() -> str:
    """All four demos: ``main([])`` in this process (the real entry point: test_python_m_schedlab_is_main)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        assert main([]) == 0
    assert err.getvalue() == ""
    return out.getvalue()


def test_python_m_schedlab_is_main(demo_out):
    """The entry point's smoke test: ``python -m schedlab`` in a real process prints what ``main([])`` prints."""
    proc = run_cli()
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert proc.stdout == demo_out


def test_the_schedlab_script_is_main(capsys):
    """The console script's smoke test: ``schedlab gpus`` in a real process prints what ``main(["gpus"])`` prints."""
    script = Path(sys.executable).with_name("schedlab")
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run([str(script), "gpus"], capture_output=True, text=True, encoding="utf-8", env=env, timeout=120)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert proc.stdout == run_main(capsys, "gpus")


# --- the demos ----------------------------------------------------------------------------


def test_demos_print_the_four_headers_in_order(demo_out):
    positions = [demo_out.find(h + "：") for h in HEADERS]
    assert all(p >= 0 for p in positions), positions
    assert positions == sorted(positions)


def test_no_subcommand_equals_demos(demo_out, capsys):
    assert run_main(capsys, "demos") == demo_out


def test_demos_can_be_picked(capsys):
    out = run_main(capsys, "demos", "3", "1")
    assert "演示 1：" in out and "演示 3：" in out
    assert "演示 2：" not in out and "演示 4：" not in out
    assert out.index("演示 1：") < out.index("演示 3：")  # always in demo order


def test_demo1_counts_and_reasons(demo_out):
    s = space_summary()
    assert s.n_launchable == 3744  # the seed's number; the rest follows the analysis
    assert (
        f"一共 {s.n_configs} 个组合，能启动的 {s.n_launchable} 个（{fmt_percent(s.launchable_fraction)}）" in demo_out
    )
    rows = table_with(demo_out, "原因", "配置数")
    assert rows == [[launch_reason_label(r, s.hw), str(n)] for r, n in s.reason_counts]
    table = knob_table()
    knob_rows = table_with(demo_out, *table.headers)
    assert knob_rows == [list(r) for r in table.rows]


def test_demo2_best_config_and_counts(demo_out):
    land = landscape(SQUARE)
    assert land.best.as_tuple() == (256, 128, 32, 8, 4, 1)
    rows = table_with(demo_out, "(BM, BN, BK, warps, stages, GROUP_M)", "并列", "时间", "TFLOPS", "相对最快")
    assert len(rows) == 6
    assert rows[0] == [
        str(land.best.as_tuple()),
        fmt_ties(land.tie_groups(1)[0]),
        fmt_time(land.best_time_s),
        fmt_tflops(land.best_tflops),
        "1.000",
    ]
    assert rows == [list(r) for r in top_table(land, 6).rows]
    q = land.quantiles()
    assert f"离最快 5% 以内的 {land.n_within(1.05)} 个、2 倍以内的 {land.n_within(2)} 个" in demo_out
    assert f"中位数 {fmt_ratio(q[50])}" in demo_out
    # the observations quote the analysis, not typed-in numbers
    assert f"最高 {fmt_tflops(land.best_tflops)} TFLOPS" in demo_out
    assert f"要慢 {fmt_ratio(q[50], 1)} 倍" in demo_out


def test_demo3_optima_and_transfer(demo_out):
    tr = transfer(LECTURE_SHAPES)
    rows = table_with(demo_out, "形状", "M×N×K", "最优配置", "时间", "TFLOPS")
    assert [r[0] for r in rows] == [shape_name(s) for s in LECTURE_SHAPES]
    assert [r[2] for r in rows] == [str(c.as_tuple()) for c in tr.optima]
    assert [r[3] for r in rows] == [fmt_time(t) for t in tr.best_time_s]
    rows = table_with(demo_out, "最优配置来自 \\ 用在", *(shape_short(s) for s in LECTURE_SHAPES))
    assert [r[0] for r in rows] == [shape_short(s) for s in LECTURE_SHAPES]
    for row, ratios in zip(rows, tr.matrix):
        assert row[1:] == [f"{r:.2f}" for r in ratios]
    decode = min(range(len(LECTURE_SHAPES)), key=lambda i: LECTURE_SHAPES[i].M)
    assert f"慢 {tr.matrix[0, decode]:.2f} 倍" in demo_out


def test_demo4_sensitivity_rows(demo_out):
    sens = sensitivity(SQUARE)
    rows = table_with(demo_out, "参数", "取值 : 时间比")
    assert rows == [list(r) for r in sensitivity_table(sens).rows]
    bm = rows[0][1].split()
    assert "256:1.00*" in bm and "16:—" in bm  # the base value is starred; a config that cannot launch is a dash
    for knob, cells in sens.ratios.items():
        row = dict(rows)[KNOB_LABELS[knob]]
        assert len(row.split()) == len(cells)


# --- top and explain ----------------------------------------------------------------------


def test_top_lists_the_fastest(capsys):
    out = run_main(capsys, "top", "512", "14336", "4096", "-n", "3")
    land = landscape((512, 14336, 4096))
    rows = table_with(out, "(BM, BN, BK, warps, stages, GROUP_M)")
    assert rows == [
        [
            str(g.first.as_tuple()),
            fmt_ties(g),
            fmt_time(g.time_s),
            fmt_tflops(g.tflops),
            f"{g.ratio:.3f}",
        ]
        for g in land.tie_groups(3)
    ]


def test_top_default_is_ten_rows(capsys):
    out = run_main(capsys, "top", "16", "4096", "4096")
    rows = [r for r in table_with(out, "(BM, BN, BK, warps, stages, GROUP_M)") if r[0]]  # not a wrapped cell's line
    assert len(rows) == 10
    assert rows[0][0] == str(landscape((16, 4096, 4096)).best.as_tuple())


@pytest.mark.parametrize(
    "cfg, shape",
    [
        ((256, 128, 32, 8, 4, 1), SQUARE),
        ((16, 16, 128, 1, 4, 1), (16, 4096, 4096)),
        ((64, 64, 32, 4, 1, 1), (1000, 3000, 700)),
    ],
)
def test_explain_names_the_bottleneck(capsys, cfg, shape):
    out = run_main(capsys, "explain", *map(str, cfg), *map(str, shape))
    bd = explain(GemmConfig(*cfg), *shape)
    rows = table_with(out, "项", "含义")
    assert [r[0] for r in rows] == list(TERMS)
    marked = [r[0] for r in rows if r[-1] == "◀ 瓶颈"]
    assert marked == [bd.bottleneck]
    for r in rows:
        assert r[1] == TERM_LABELS[r[0]]
        assert r[2] == fmt_time(getattr(bd, r[0]))
    assert f"瓶颈：\u201c{TERM_LABELS[bd.bottleneck]}\u201d" in out
    summary = dict(table_with(out, "量", "值"))
    assert summary["总时间"] == fmt_time(bd.time_s)
    assert summary["波数"] == str(bd.waves)


def test_explain_reports_ties_with_the_bottleneck(capsys):
    # on this config the tensor-core and shared-memory terms are equal (both 512 clocks per step)
    out = run_main(capsys, "explain", "256", "128", "32", "8", "4", "1", "4096", "4096", "4096")
    bd = explain(GemmConfig(256, 128, 32, 8, 4, 1), *SQUARE)
    assert bd.t_tc_s == pytest.approx(bd.t_smem_s, rel=1e-12)
    assert "持平" in out


# --- bad input ----------------------------------------------------------------------------

BAD = [  # arguments, what stderr must name
    (["explain", "17", "128", "32", "8", "4", "1", "64", "64", "64"], "bm must be one of"),
    (["explain", "256", "128", "32", "8", "4", "3", "64", "64", "64"], "group must be one of"),
    (["explain", "256", "256", "128", "8", "5", "1", "4096", "4096", "4096"], "cannot launch"),
    (["explain", "256", "128", "32", "8", "4", "1", "4096", "0", "4096"], "N must be a positive integer"),
    (["explain", "256", "128", "32", "8", "4.5", "1", "64", "64", "64"], "argument STAGES"),
    (["top", "0", "4096", "4096"], "M must be a positive integer"),
    (["top", "16", "4096", "-7"], "K must be a positive integer"),
    (["top", "abc", "4096", "4096"], "argument M"),
    (["top", "16", "4096", "4096", "-n", "0"], "argument -n"),
    (["demos", "5"], "argument N"),
    (["top", "16", "4096"], "K"),
    (["frobnicate"], "invalid choice"),
    (["search", "0", "4096", "4096"], "M must be a positive integer"),
    (["search", "16", "4096"], "K"),
    (["search", "16", "4096", "4096", "--strategy", "bogus"], "argument --strategy"),
    (["search", "16", "4096", "4096", "--strategy"], "argument --strategy"),
    (["search", "16", "4096", "4096", "--seeds", "0"], "argument --seeds"),
    (["search", "16", "4096", "4096", "--seeds", "100000"], "argument --seeds"),
    (["search", "16", "4096", "4096", "--budget", "x"], "argument --budget"),
    (["search", "16", "4096", "4096", "--noise", "-0.1"], "argument --noise"),
    (["search", "16", "4096", "4096", "--noise", "nan"], "argument --noise"),
    (["buckets", "0", "4096"], "N must be a positive integer"),
    (["buckets", "4096", "-3"], "K must be a positive integer"),
    (["buckets", "4096", "x"], "argument K"),
    (["buckets", "4096"], "K"),
    (["buckets", "4096", "4096", "--M-max", "0"], "argument --M-max"),
    (["buckets", "4096", "4096", "--M-max", "100000"], "argument --M-max"),
    (["buckets", "4096", "4096", "--tol", "-0.1"], "argument --tol"),
    (["buckets", "4096", "4096", "--tol", "inf"], "argument --tol"),
    (["buckets", "4096", "4096", "--tol", "five"], "argument --tol"),
    # issues 8 and 24: a shape whose counts would overflow int64 is refused naming its largest dimension,
    # not priced, overflowed or killed (2**40 x 4096 x 4096, refused by the old MAX_MN, is now priced)
    (["explain", "256", "128", "32", "8", "4", "1", "4611686018427387904", "4096", "4096"], "M = 4611686018427387904"),
    (["top", "9223372036854775808", "4096", "4096"], "M = 9223372036854775808"),
    (["explain", "256", "128", "32", "8", "4", "1", "4096", "4096", "4611686018427387904"], "K = 4611686018427387904"),
    (["explain", "16", "64", "64", "1", "4", "1", "16", "262144", "1125899906842624"], "K = 1125899906842624"),
    (["search", "4503599627370496", "4096", "4096"], "M = 4503599627370496"),
    (["buckets", "4096", "4611686018427387904"], "K = 4611686018427387904"),
    (["buckets", "4611686018427387904", "4096"], "N = 4611686018427387904"),
    (["prune", "4096", "4096", "4611686018427387904"], "K = 4611686018427387904"),
    # issue 8: noise beyond MAX_NOISE overflowed the measured times
    (["search", "16", "4096", "4096", "--noise", "1e308"], "argument --noise"),
    (["search", "16", "4096", "4096", "--noise", "1.5"], "argument --noise"),
]


@pytest.mark.parametrize("args, names", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_exits_2_without_traceback(capsys, args, names):
    status, out, err, shown = run_status(capsys, *args)  # an uncaught exception (a traceback) fails the test
    assert status == 2, (out, err)
    assert not shown, [str(w.message) for w in shown]  # no numpy warning reaches the user
    assert names in err, err
    assert out == ""


def test_bad_input_in_a_real_process_exits_2_with_one_message():
    """The same through ``python -m schedlab``: status 2, the message on stderr, no traceback, no warning."""
    proc = run_cli("search", "16", "4096", "4096", "--noise", "1e308")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Warning" not in proc.stderr, proc.stderr
    assert "argument --noise" in proc.stderr and proc.stdout == ""


# --- interrupted or unwritable runs (issue 8) ---------------------------------------------


@pytest.mark.parametrize(
    "args, target",
    [
        (["search", "16", "4096", "4096"], "schedlab.cli.tools.compare"),
        (["buckets", "4096", "4096"], "schedlab.cli.buckets._bucket_sweep"),
    ],
)
def test_ctrl_c_exits_130_with_one_line(monkeypatch, capsys, args, target):
    """Ctrl-C in the middle of a long command: status 130 (the shell's 128 + SIGINT), one line, no traceback."""

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(target, interrupted)
    assert main(args) == 130
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines() == [f"schedlab {args[0]}: 已中断 / interrupted"]


def test_ctrl_c_in_a_real_process_exits_130():
    """The same through a real SIGINT, sent once the process has started its (long) search."""
    import signal
    import time

    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    # "ready" once the package is imported; half a second later main() is deep in a search of minutes
    code = (
        "import sys; from schedlab.cli.main import main; print('ready', flush=True); "
        "sys.exit(main(['search', '4096', '4096', '4096', '--seeds', '1000']))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=env,
        # as a shell starts it: SIGINT at its default, whatever the test process inherited (a worker that
        # ignores SIGINT passes SIG_IGN on, and Python then raises no KeyboardInterrupt)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout.readline() == "ready\n"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines() == ["schedlab search: 已中断 / interrupted"]


FULL = "错误 / error: 无法写出 / cannot write output: No space left on device"


@pytest.mark.parametrize(
    "args",
    [
        ["top", "4096", "4096", "4096"],
        ["explain", "256", "128", "32", "8", "4", "1", "4096", "4096", "4096"],
        ["--help"],
    ],
    ids=["top", "explain", "--help"],
)
def test_output_to_a_full_device_fails_in_one_line(capsys, monkeypatch, args):
    """``> /dev/full``: status 1 and one line naming the failed write; stdout then points at /dev/null, so the
    interpreter's final flush cannot fail again (test_a_full_device_in_a_real_process_exits_1 runs a process)."""
    with open("/dev/full", "w", encoding="utf-8") as full:
        monkeypatch.setattr(sys, "stdout", full)
        status = main(args)
        full.flush()  # what the interpreter does at exit: it must not raise
    err = capsys.readouterr().err
    label = "schedlab" if args == ["--help"] else f"schedlab {args[0]}"
    assert (status, err.strip().splitlines()) == (1, [f"{label}: {FULL}"])


@pytest.mark.parametrize(
    "args, unbuffered",
    [(["top", "4096", "4096", "4096"], False), (["--help"], False), (["--help"], True)],
    ids=["top", "--help", "--help-unbuffered"],
)
def test_a_full_device_in_a_real_process_exits_1(args, unbuffered):
    """Unbuffered (PYTHONUNBUFFERED=1, as in many containers), argparse's own help writer meets the full device and
    drops the OSError: before the fix, status 0 and nothing said."""
    env = dict(_buffered_env(), **({"PYTHONUNBUFFERED": "1"} if unbuffered else {}))
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "schedlab", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=env,
            timeout=120,
        )
    assert proc.returncode == 1
    label = "schedlab" if args == ["--help"] else "schedlab top"
    assert proc.stderr.strip().splitlines() == [f"{label}: {FULL}"]


@pytest.mark.parametrize("sub", [[], ["demos"], ["top"], ["explain"], ["search"]])
def test_help(capsys, sub):
    with pytest.raises(SystemExit) as exc:
        main([*sub, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: schedlab")
    if sub == ["explain"]:
        assert "BM" in out and "STAGES" in out and "GROUP" in out
    if sub == ["search"]:
        assert all(opt in out for opt in ("--strategy", "--seeds", "--budget", "--noise"))
        assert all(name in out for name in STRATEGIES)


# --- search -------------------------------------------------------------------------------

SEARCH_HEADERS = ("策略", "中位数", "90% 分位数", "预算内到达")


def _trials(text: str) -> float:
    return float("inf") if text == "—" else float(text)


@pytest.mark.parametrize(
    "shape, options, kwargs",
    [
        (SQUARE, ["--seeds", "12", "--budget", "120"], dict(seeds=range(12), budget=120)),
        ((16, 4096, 4096), ["--seeds", "8", "--noise", "0"], dict(seeds=range(8), noise=0.0)),
        (
            (512, 14336, 4096),
            ["--seeds", "5", "--noise", "0.1", "--budget", "60"],
            dict(seeds=range(5), budget=60, noise=0.1),
        ),
    ],
    ids=["square", "decode-no-noise", "prefill-noisy"],
)
def test_search_prints_what_compare_gives(capsys, shape, options, kwargs):
    out = run_main(capsys, "search", *map(str, shape), *options)
    rows = table_with(out, *SEARCH_HEADERS)
    c = compare([shape], **kwargs)
    assert [r[0] for r in rows] == [STRATEGY_LABELS[n] for n in STRATEGIES]
    for row, name in zip(rows, STRATEGIES):
        cell = c.cell(shape, name)
        assert (_trials(row[1]), _trials(row[2])) == (cell.estimate, cell.p90)
        assert float(row[3].rstrip("%")) == pytest.approx(100 * cell.reached, abs=0.51)
        assert tuple(row) == [r for r in search_shape_table(c, shape).rows if r[0] == row[0]][0]
    land = landscape(shape)
    assert f"离最优 5% 以内的有 {land.n_within(1.05)} 个" in out
    assert fmt_config(land.best) in out


def test_search_strategy_subset_keeps_the_comparison_order(capsys):
    out = run_main(
        capsys, "search", "2048", "2048", "512", "--strategy", "model", "random", "--strategy", "model", "--seeds", "6"
    )
    rows = table_with(out, *SEARCH_HEADERS)
    assert [r[0] for r in rows] == [STRATEGY_LABELS["random"], STRATEGY_LABELS["model"]]
    c = compare([(2048, 2048, 512)], ["random", "model"], seeds=range(6))
    assert _trials(rows[1][1]) == c.cell(0, "model").estimate


def test_search_defaults_are_the_comparison_defaults(capsys):
    out = run_main(capsys, "search", "16", "4096", "4096", "--strategy", "exhaustive")
    assert "100 个种子，每次预算 300 次测量，测量噪声 3%" in out
    assert table_with(out, *SEARCH_HEADERS)[0][1] == fmt_trials(
        compare([(16, 4096, 4096)], ["exhaustive"]).cell(0, "exhaustive").estimate
    )


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_search_shows_a_progress_bar_on_a_terminal_only_after_the_delay(monkeypatch, capsys):
    import schedlab.cli.progress as cli

    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(cli, "PROGRESS_DELAY_S", 0.0)
    assert main(["search", "16", "4096", "4096", "--seeds", "3"]) == 0
    bar = term.getvalue()
    assert "搜索" in bar and "个策略" in bar and f"/{len(STRATEGIES)}" in bar
    assert "策略" in capsys.readouterr().out  # the table still goes to stdout
    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    monkeypatch.setattr(cli, "PROGRESS_DELAY_S", 60.0)  # a short run stays silent
    assert main(["search", "16", "4096", "4096", "--seeds", "3"]) == 0
    assert quiet.getvalue() == ""


# --- console helpers ----------------------------------------------------------------------


def test_print_table_aligns_cjk_by_display_width():
    rows = [
        ("方阵 4096³（大 GEMM）", (256, 128, 32, 8, 4, 1), 149.0, "—"),
        ("decode", (16, 16), 10.9, "慢"),
        ("小的方阵（K 短）", "x", 5, "共享内存超过 227 KB"),
    ]
    buf = io.StringIO()
    print_table(["形状", "配置", "时间", "备注"], rows, file=buf)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 2 + len(rows)
    spans = spans_of(lines[1])
    assert len(spans) == 4
    assert split_row(lines[0], spans) == ["形状", "配置", "时间", "备注"]
    for line, row in zip(lines[2:], rows):
        assert split_row(line, spans) == [str(c) for c in row]
    # each column is exactly as wide as its widest cell
    widths = [b - a for a, b in spans]
    assert widths[0] == max(sum(max(wcwidth(ch), 0) for ch in str(r[0])) for r in rows)


def test_print_table_right_aligns_numbers():
    buf = io.StringIO()
    print_table(["名字", "n"], [["甲", 1], ["乙", 1200]], file=buf)
    lines = buf.getvalue().splitlines()
    assert lines[2].endswith("   1") and lines[3].endswith("1200")


def test_print_table_rejects_ragged_rows():
    with pytest.raises(ValueError, match="row 1"):
        print_table(["a", "b"], [[1, 2], [3]], file=io.StringIO())


def test_print_render_table_prints_title_then_table():
    table = Table("标题", ("甲", "b"), [("1", "二")])
    buf = io.StringIO()
    print_render_table(table, file=buf)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "标题"
    assert split_row(lines[3], spans_of(lines[2])) == ["1", "二"]


TEXT = (
    "在 Halide / TVM 里，这些是调度原语的参数：split 的大小（块）、bind 到线程（warp 数）、cache_read 到共享内存"
    "再加流水线（stages）、块的顺序（GROUP_M）。一个很长的词 supercalifragilisticexpialidocious_and_more 也要切开。"
)


@pytest.mark.parametrize("width", [12, 20, 33, 60, 88])
def test_wrap_respects_display_width_and_keeps_text(width):
    lines = wrap(TEXT, width)
    assert all(sum(max(wcwidth(ch), 0) for ch in line) <= width for line in lines)
    assert "".join(lines).replace(" ", "") == TEXT.replace(" ", "")
    if width >= 20:  # narrower than a word plus its brackets, the line-break rules cannot always hold
        assert not any(line[0] in "，。、；：）" for line in lines)
        assert not any(line[-1] in "（" for line in lines)


def test_print_observations_numbers_and_indents():
    buf = io.StringIO()
    print_observations(["甲" * 30, "乙"], width=30, file=buf)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "" and lines[1] == "观察："
    assert lines[2].startswith("  1. 甲") and lines[-1] == "  2. 乙"
    for line in lines[2:]:
        assert sum(max(wcwidth(ch), 0) for ch in line) <= 30
    assert all(line.startswith("     甲") for line in lines[3:-1])


# --- render -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seconds, text",
    [
        (149.04e-6, "149.0 µs"),
        (1.2345e-3, "1.23 ms"),
        (850e-9, "850 ns"),
        (float("inf"), "—"),
        (float("nan"), "—"),
        (999.7e-9, "1.0 µs"),
        (np.float64(5.93e-6), "5.9 µs"),
        (12.0, "12.00 s"),
    ],
)
def test_fmt_time(seconds, text):
    assert fmt_time(seconds) == text


@pytest.mark.parametrize("bad", ["1 ms", None, True])
def test_fmt_time_rejects_non_numbers(bad):
    with pytest.raises(ValueError):
        fmt_time(bad)


def test_table_to_html_escapes_everything():
    html = Table("a<b & c", ("<th>",), [('"x" & <y>',)]).to_html()
    assert "<th>&lt;th&gt;</th>" in html
    assert "<td>&quot;x&quot; &amp; &lt;y&gt;</td>" in html
    assert "<caption>a&lt;b &amp; c</caption>" in html
    assert html.count("<tr>") == 2


def test_table_requires_strings():
    with pytest.raises(ValueError, match="str"):
        Table("t", ("a",), [(1.0,)])


def test_transfer_table_marks_configs_that_cannot_launch():
    tr = transfer(LECTURE_SHAPES[:2])
    inf = tr.matrix.copy()
    inf[0, 1] = np.inf
    table = transfer_table(type(tr)(tr.shapes, tr.optima, tr.best_time_s, tr.best_tflops, inf))
    assert table.rows[0][2] == "—"
    assert table.rows[1][1] == f"{tr.matrix[1, 0]:.2f}"


def test_sensitivity_table_for_a_base_that_is_not_the_optimum():
    base = GemmConfig(128, 128, 64, 4, 3, 8)
    sens = sensitivity(SQUARE, base)
    row = dict(sensitivity_table(sens).rows)["GROUP_M"]
    assert row.split()[-1].endswith("*") and row.split()[-1].startswith("8:")
    assert sum(cell.endswith("*") for r in sensitivity_table(sens).rows for cell in r[1].split()) == 6


def test_breakdown_table_shares_relative_to_the_step():
    bd = explain(GemmConfig(64, 64, 32, 4, 1, 1), 1000, 3000, 700)
    table = breakdown_table(bd)
    for row in table.rows:
        assert row[3] == fmt_percent(getattr(bd, row[0]) / bd.t_step_s)
    assert sum(r[-1] == "◀ 瓶颈" for r in table.rows) == 1


def test_tables_render_in_notebooks():
    table = knob_table()
    assert table._repr_html_() == table.to_html()
    assert table.to_html().count("<tr>") == 1 + len(table.rows)


# --- what importing costs ---------------------------------------------------------------------

TOPIC_LAYERS = [
    "schedlab.tuning",
    "schedlab.tuning.learned",
    "schedlab.studies.buckets",
    "schedlab.studies.guides",
    "schedlab.tuning.surrogates",
    "schedlab.render.search",
    "schedlab.render.learned",
    "schedlab.render.buckets",
    "schedlab.render.guides",
]


#: Modules imported one after another in a fresh interpreter, and what must still be absent after each: the
#: console needs only Table and fmt_time, the render package re-exports nothing (a table is imported from its
#: topic's module), and the labels sit below the tables and figures that use them. (Modules only accumulate: absent after the later imports means
#: absent after that import alone.)
IMPORTS = [
    ("schedlab.render.labels", TOPIC_LAYERS + ["schedlab.figures", "matplotlib"]),
    ("schedlab.console", TOPIC_LAYERS),
    ("schedlab.render", TOPIC_LAYERS),
]


def test_imports_load_no_topic_layer_until_its_table_module_is_imported():
    code = (
        "import importlib, json, sys\n"
        f"seen = [sorted(set(absent) & set(sys.modules)) for m, absent in {IMPORTS!r} if importlib.import_module(m)]\n"
        "importlib.import_module('schedlab.render.search')\n"
        "seen.append(['schedlab.tuning' in sys.modules, 'schedlab.tuning.learned' in sys.modules])\n"
        "print(json.dumps(seen))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    *loaded, (search, learned) = json.loads(out.stdout)
    assert loaded == [[] for _ in IMPORTS], dict(zip([m for m, _ in IMPORTS], loaded))
    assert (search, learned) == (True, False)  # the search table loaded its topic, and only it


# --- the edges: pipes, full devices, start-up, repeated options ---------------------------------


def _buffered_env() -> dict:
    """The environment of a terminal user: stdout block-buffered into a pipe (no PYTHONUNBUFFERED)."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    env.pop("PYTHONUNBUFFERED", None)
    return env


@pytest.mark.parametrize("args", [[], ["demos", "1"], ["top", "4096", "4096", "4096"]])
def test_a_closed_pipe_exits_0_quietly(capsys, monkeypatch, args):
    """`python -m schedlab | head -1`: the reader is gone, which is no error (as `set -o pipefail` scripts expect)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has left before the first write: every write meets EPIPE
    with os.fdopen(write_end, "w", encoding="utf-8") as pipe:
        monkeypatch.setattr(sys, "stdout", pipe)
        status = main(args)
        pipe.flush()  # the interpreter's final flush: stdout now points at /dev/null
    assert (status, capsys.readouterr().err) == (0, "")


def test_a_closed_pipe_in_a_real_process_exits_0_quietly():
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "schedlab"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=_buffered_env(),
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_a_usage_error_with_stderr_on_a_full_device_still_exits_2(monkeypatch):
    # nothing can be said on a full stderr: the status is all (not 120, the interpreter's failed final flush)
    with open("/dev/full", "w", encoding="utf-8") as full:
        monkeypatch.setattr(sys, "stderr", full)
        with pytest.raises(SystemExit) as stop:
            main(["top", "x", "1", "1"])
        full.flush()  # what the interpreter does at exit: it must not raise
    assert stop.value.code == 2


def test_a_usage_error_with_stderr_on_a_full_device_in_a_real_process_exits_2():
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "schedlab", "top", "x", "1", "1"],
            stdout=subprocess.PIPE,
            stderr=full,
            env=_buffered_env(),
            timeout=120,
        )
    assert proc.returncode == 2


@pytest.mark.parametrize(
    "command",
    [[sys.executable, "-m", "schedlab"], [str(Path(sys.executable).with_name("schedlab"))]],
    ids=["python -m schedlab", "schedlab script"],
)
def test_ctrl_c_while_importing_exits_130_with_one_line(tmp_path, command):
    """A SIGINT while the subcommand's modules import (numpy among them) ends as one during the command: one
    line naming it, 130."""
    import signal

    # sitecustomize runs before `-m schedlab`; its finder sends SIGINT when numpy, imported by the package, is found
    (tmp_path / "sitecustomize.py").write_text(
        "import os, signal, sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'numpy':\n"
        "            sys.meta_path.remove(self)\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Interrupt())\n"
    )
    # the package under test ahead of any installed copy, for the script too
    env = dict(_buffered_env(), PYTHONPATH=os.pathsep.join([str(tmp_path), str(Path(__file__).resolve().parents[1])]))
    proc = subprocess.run(
        [*command, "top", "4096", "4096", "4096"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines() == ["schedlab top: 已中断 / interrupted"]


@pytest.mark.parametrize(
    "args",
    [
        ["--gpu", "a100-sxm4", "top", "64", "64", "64", "--gpu", "h200-sxm"],
        ["top", "64", "64", "64", "--gpu", "a100-sxm4", "--gpu", "h200-sxm"],
        ["--gpu", "a100-sxm4", "--gpu", "h200-sxm", "gpus"],
    ],
)
def test_a_repeated_gpu_is_refused(capsys, args):
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--gpu" in err and "a100-sxm4" in err and "h200-sxm" in err


@pytest.mark.parametrize(
    "args, option",
    [
        (["top", "64", "64", "64", "-n", "3", "-n", "4"], "-n"),
        (["prune", "64", "64", "64", "--top", "2", "--top=3"], "--top"),
        (["export", "64", "64", "64", "-o", "a.json", "--output", "b.json"], "-o"),
    ],
)
def test_an_option_that_keeps_one_value_given_twice_is_refused(capsys, args, option):
    """argparse lets the last of a repeated option win silently; like --gpu, it is a usage error (status 2)."""
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    assert f"{option} given more than once" in capsys.readouterr().err


def test_one_gpu_before_or_after_the_subcommand_is_used(capsys):
    before = run_main(capsys, "--gpu", "a100-sxm4", "top", "4096", "4096", "4096", "-n", "1")
    after = run_main(capsys, "top", "4096", "4096", "4096", "-n", "1", "--gpu", "a100-sxm4")
    assert before == after != run_main(capsys, "top", "4096", "4096", "4096", "-n", "1")


def test_explain_shows_a_small_tflops_with_significant_digits(capsys):
    bd = explain(GemmConfig(16, 16, 16, 1, 1, 1), 16, 16, 2**17)
    assert 0 < bd.tflops < 1
    out = run_main(capsys, "explain", "16", "16", "16", "1", "1", "1", "16", "16", str(2**17))
    (row,) = [line for line in out.splitlines() if line.startswith("TFLOPS")]
    assert float(row.split()[-1]) == pytest.approx(bd.tflops, rel=0.05)


@pytest.mark.parametrize(
    "args",
    [
        ("explain", "256", "128", "32", "8", "4", "1", "1099511627776", "4096", "4096"),  # M = 2**40
        ("top", "16", "4096", "250112", "-n", "1"),  # a 250,112-word vocabulary as K
        ("top", "1048576", "1048576", "1048576", "-n", "1"),
    ],
    ids=["explain M=2**40", "top K=250112", "top 2**20 cubed"],
)
def test_shapes_past_the_old_limits_are_answered(capsys, args):
    """Issue 24: the console never refuses a real shape; these were refused by MAX_MN = 2**18 or MAX_K = 2**17
    and are now answered (status 0, nothing on stderr), with no numpy warning."""
    status, out, err, shown = run_status(capsys, *args)
    assert (status, err, shown) == (0, "", []), (err, [str(w.message) for w in shown])
    assert out


def test_the_figures_break_where_the_console_may_break():
    """One set of line-breaking rules: the figures' preferred breaks are breaks the console's rules allow."""
    from schedlab.render.wrap import BREAK_AFTER, BREAK_BEFORE, NO_LINE_END, NO_LINE_START

    assert BREAK_AFTER <= NO_LINE_START and BREAK_BEFORE <= NO_LINE_END
