"""Tables, figures and the console command of the learned cost model and the bucket covers.

Every cell of :mod:`schedlab.render`'s learned/bucket tables is parsed back and compared with
the :class:`~schedlab.tuning.learned.CrossValidation` or :class:`~schedlab.studies.buckets.BucketStudy` it was
given; every point of :func:`schedlab.figures.buckets.bucket_optima` and every cell of
:func:`schedlab.figures.buckets.tile_map` with the sweep, cover and tile map; and the numbers that
``python -m schedlab buckets`` prints with :mod:`schedlab.studies.buckets` run directly.
"""

from __future__ import annotations

import io
import logging
import math
import re
import sys
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib.text import Text

from schedlab.cli.main import main
from schedlab.figures.buckets import bucket_optima, tile_map
from schedlab.render.buckets import bucket_table, cover_table
from schedlab.render.labels import FEATURE_SET_LABELS, METHOD_LABELS, SPLIT_LABELS, shape_short
from schedlab.render.learned import feature_set_table, hit_rate_table, regret_table
from schedlab.render.table import fmt_ratio
from schedlab.studies import buckets as B
from schedlab.tuning import learned
from schedlab.tuning.covers import decode_ms, exact_cover, greedy_cover, power_of_two_cover, sweep
from schedlab.tuning.features import FEATURE_SETS
from tests.test_console import _Terminal, table_with

BOOK_RC = Path(__file__).resolve().parents[1] / "schedlab" / "figures" / "matplotlibrc"
#: A small grid holding every power of two it needs (both roundings) and the 16 j + 1 points.
GRID = (1, 16, 17, 32, 33, 64, 65, 96, 97, 128)
PROJECTIONS = (("O", 4096, 4096), ("QKV", 6144, 4096))


@pytest.fixture(scope="module")
def cv():
    return learned.cross_validate("tokens")


@pytest.fixture(scope="module")
def cv_knobs():
    return learned.cross_validate("tokens", "knobs")


@pytest.fixture(scope="module")
def studies():
    return B.bucket_study(PROJECTIONS, Ms=GRID)


def ratio(text: str) -> float:
    return float(text)


def percent(text: str) -> float:
    assert text.endswith("%"), text
    return float(text[:-1]) / 100


# --- learned: tables ------------------------------------------------------------------------


@pytest.mark.parametrize("k", learned.TOP_K)
def test_regret_table_equals_the_cross_validation(cv, k):
    table = regret_table(cv, k)
    assert table.headers == ("做法", "几何平均", "最坏", "最坏的形状")
    assert table.column("做法") == tuple(METHOD_LABELS[m] for m in learned.METHODS)
    for row, method in zip(table.rows, learned.METHODS):
        assert ratio(row[1]) == pytest.approx(cv.geomean_regret(method, k), abs=5e-4)
        assert ratio(row[2]) == pytest.approx(cv.worst_regret(method, k), abs=5e-4)
        regrets = cv.regrets(method, k)
        expected = shape_short(cv.results[int(regrets.argmax())].given) if regrets.max() > 1.0 else "—"
        assert row[3] == expected
    assert f"{len(cv.results)} 个留出形状" in table.title
    assert ("第一选择" in table.title) == (k == 1)


def test_hit_rate_table_equals_the_cross_validation(cv):
    table = hit_rate_table(cv)
    assert table.headers == ("做法",) + tuple(f"前 {k} 个" for k in learned.TOP_K)
    for row, method in zip(table.rows, learned.METHODS):
        for text, k in zip(row[1:], learned.TOP_K):
            assert percent(text) == pytest.approx(cv.hit_rate(method, k), abs=0.005)
    loose = hit_rate_table(cv, tol=0.5)
    assert "50%" in loose.title
    assert percent(loose.rows[1][1]) == pytest.approx(cv.hit_rate("fixed", 1, 0.5), abs=0.005)


def test_feature_set_table_equals_the_cross_validations(cv, cv_knobs):
    table = feature_set_table([cv_knobs, cv])
    assert table.column("特征") == (FEATURE_SET_LABELS["knobs"], FEATURE_SET_LABELS["tile"])
    for row, c in zip(table.rows, (cv_knobs, cv)):
        assert row[1] == str(len(FEATURE_SETS[c.feature_set]))
        rmse = math.sqrt(np.mean([r.log_rmse**2 for r in c.results]))
        assert float(row[2]) == pytest.approx(rmse, abs=0.005)
        assert ratio(row[3]) == pytest.approx(c.geomean_regret("model"), abs=5e-4)
        assert ratio(row[4]) == pytest.approx(c.worst_regret("model"), abs=5e-4)
        assert percent(row[5]) == pytest.approx(c.hit_rate("model"), abs=0.005)
    # the point of the table: knob-only features rank worse than the tile arithmetic
    assert ratio(table.rows[0][3]) > ratio(table.rows[1][3])


def test_learned_tables_reject_other_records(cv):
    with pytest.raises(ValueError, match="CrossValidation"):
        regret_table("not a cross-validation")
    with pytest.raises(ValueError, match="k must be one of"):
        regret_table(cv, k=3)
    with pytest.raises(ValueError, match="at least one"):
        feature_set_table([])
    with pytest.raises(ValueError, match="tol"):
        hit_rate_table(cv, tol="5%")


def test_labels_cover_every_method_feature_set_and_split():
    assert set(METHOD_LABELS) == set(learned.METHODS)
    assert set(FEATURE_SET_LABELS) == set(FEATURE_SETS)
    assert set(SPLIT_LABELS) == set(learned.SPLITS)


# --- buckets: tables ------------------------------------------------------------------------


def test_bucket_table_equals_the_studies(studies):
    table = bucket_table(studies)
    assert table.headers == ("投影", "N×K", "做法", "配置数", "最坏", "平均", "每个 M 都在 5% 以内")
    assert len(table.rows) == 3 * len(studies)
    for i, s in enumerate(studies):
        rows = table.rows[3 * i : 3 * i + 3]
        for row, cover in zip(rows, (s.greedy, s.power_of_two, s.power_of_two_up)):
            assert row[:2] == (s.name, f"{s.sweep.N}×{s.sweep.K}")
            assert row[3] == str(cover.n_configs)
            assert ratio(row[4]) == pytest.approx(cover.worst, abs=5e-4)
            assert ratio(row[5]) == pytest.approx(cover.mean, abs=5e-4)
            assert row[6] == ("✓" if cover.keeps_all else "✗")
        assert rows[1][2] == "2 的幂，向下取" and rows[2][2] == "2 的幂，向上取"
        assert ("贪心 = 最少" in rows[0][2]) == bool(s.greedy_optimal)
    assert f"{len(GRID)} 个 M" in table.title


def test_bucket_table_leaves_out_a_missing_up_rounding(studies):
    from dataclasses import replace

    table = bucket_table([replace(studies[0], power_of_two_up=None)])
    assert [row[2] for row in table.rows][1:] == ["2 的幂，向下取"]


def test_bucket_table_names_a_greedy_cover_that_is_not_minimal(studies):
    from dataclasses import replace

    s = studies[0]
    bigger = replace(s, greedy=replace(s.greedy, configs=s.greedy.configs + s.greedy.configs[:1]))
    assert bigger.greedy_optimal is False
    assert bucket_table([bigger]).rows[0][2] == f"集合覆盖（贪心；最少 {s.exact.n_configs} 个）"
    assert bucket_table([replace(s, exact=None)]).rows[0][2] == "集合覆盖（贪心；精确搜索放弃）"


@pytest.mark.parametrize("which", ["greedy", "intervals", "power_of_two"])
def test_cover_table_rows_are_the_cover_buckets(studies, which):
    cover = getattr(studies[0], which)
    table = cover_table(cover)
    assert len(table.rows) == len(cover.buckets)
    firsts = [first for first, _, _ in cover.buckets]
    i = 0
    for n, (row, (first, last, cfg)) in enumerate(zip(table.rows, cover.buckets)):
        served_to = firsts[n + 1] - 1 if n + 1 < len(firsts) else last  # up to the next row's first M
        assert row[0] == (str(first) if first == served_to else f"{first}–{served_to}")
        assert row[1] == str(cfg.as_tuple())
        j = cover.Ms.index(last) + 1
        assert ratio(row[2]) == pytest.approx(float(cover.slowdown[i:j].max()), abs=5e-4)
        assert [cover.configs[c] for c in cover.choice[i:j]] == [cfg] * (j - i)
        i = j
    assert i == len(cover.Ms)  # the runs tile the grid
    assert f"{cover.n_configs} 个配置" in table.title


def test_cover_table_rows_leave_no_m_unassigned(studies):
    """Every M from the grid's first to its last falls in exactly one row (before: rows like "1–65", "80–256"
    named the grid points alone and left M = 66–79 to no row)."""
    cover = studies[0].greedy
    served = []
    for row in cover_table(cover).rows:
        first, _, last = row[0].partition("–")
        served.extend(range(int(first), int(last or first) + 1))
    assert served == list(range(cover.Ms[0], cover.Ms[-1] + 1))


def test_bucket_tables_reject_other_records():
    with pytest.raises(ValueError, match="BucketStudy"):
        bucket_table(["not a study"])
    with pytest.raises(ValueError, match="at least one"):
        bucket_table([])
    with pytest.raises(ValueError, match="Cover"):
        cover_table("not a cover")


# --- figures --------------------------------------------------------------------------------


def test_bucket_optima_plots_the_sweep_and_the_cover(studies, close):
    s = studies[0]
    sw, cover, base = s.sweep, s.greedy, s.power_of_two
    fig = bucket_optima(sw, cover, base)
    close(fig)
    top, mid, bottom = fig.axes
    labels = [t.get_text() for t in top.get_yticklabels()]
    rows = {label: i for i, label in enumerate(labels)}
    optima, chosen = top.collections[0].get_offsets(), top.collections[1].get_offsets()
    np.testing.assert_array_equal(optima[:, 0], sw.Ms)
    np.testing.assert_array_equal(chosen[:, 0], sw.Ms)
    assert list(optima[:, 1]) == [rows[str(c.as_tuple())] for c in sw.optima]
    assert list(chosen[:, 1]) == [rows[str(cover.configs[j].as_tuple())] for j in cover.choice]
    assert len(set(labels)) == len(labels)  # one row per configuration
    np.testing.assert_array_equal(mid.lines[0].get_xdata(), sw.Ms)
    np.testing.assert_allclose(mid.lines[0].get_ydata(), sw.best_time_s * 1e6)
    slow = bottom.collections[0].get_offsets()
    np.testing.assert_array_equal(slow[:, 0], sw.Ms)
    np.testing.assert_allclose(slow[:, 1], cover.slowdown)
    np.testing.assert_allclose(bottom.lines[0].get_ydata(), base.slowdown)
    tol_lines = [line for line in bottom.lines if len(set(np.atleast_1d(line.get_ydata()))) == 1]
    assert tol_lines and tol_lines[0].get_ydata()[0] == pytest.approx(1 + cover.tol)
    legend = [t.get_text() for t in bottom.get_legend().get_texts()]
    assert any(f"{cover.n_configs} 个配置" in t for t in legend) and any("2 的幂" in t for t in legend)


def test_bucket_optima_without_baseline_and_on_a_wrong_grid(studies, close):
    s = studies[0]
    fig = bucket_optima(s.sweep, s.greedy)
    close(fig)
    assert len(fig.axes[2].collections) == 1
    other = greedy_cover(sweep(4096, 4096, Ms=(1, 16)))
    with pytest.raises(ValueError, match="grid"):
        bucket_optima(s.sweep, other)
    with pytest.raises(ValueError):
        bucket_optima("sweep", s.greedy)


def test_tile_map_plots_the_optimal_tiles(close):
    tm = B.optimal_tiles(Ms=(1, 64, 1024), Ns=(1024, 16384), K=4096)
    fig = tile_map(tm)
    close(fig)
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.images[0].get_array(), np.log2(tm.bm * tm.bn))
    texts = [t.get_text() for t in ax.texts]
    for i in range(len(tm.Ms)):
        for j in range(len(tm.Ns)):
            assert f"{tm.bm[i, j]}×{tm.bn[i, j]}\n{tm.tflops[i, j]:.0f}" in texts
    # a cell's second line is a bare number: the title says what it is and in which unit
    assert "TFLOPS" in ax.get_title() and "第二行" in ax.get_title()
    assert [t.get_text() for t in ax.get_yticklabels()] == [str(m) for m in tm.Ms]
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(n) for n in tm.Ns]
    with pytest.raises(ValueError, match="TileMap"):
        tile_map("tiles")


def test_figures_render_in_chinese_without_missing_glyphs(studies, close, caplog):
    s = studies[0]
    with matplotlib.rc_context(fname=str(BOOK_RC)):
        made = [
            bucket_optima(s.sweep, s.greedy, s.power_of_two),
            tile_map(B.optimal_tiles(Ms=(1, 256), Ns=(4096,))),
        ]
        caplog.clear()
        with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING, logger="matplotlib"):
            warnings.simplefilter("always")
            for fig in made:
                close(fig)
                assert any(re.search(r"[\u4e00-\u9fff]", t.get_text()) for t in fig.findobj(Text))
                fig.savefig(io.BytesIO(), format="png")
    problems = [str(w.message) for w in caught] + [r.getMessage() for r in caplog.records]
    assert not problems, problems


# --- console: python -m schedlab buckets ------------------------------------------------------


def test_decode_ms_is_the_grid_of_buckets():
    """`buckets --M-max m` sweeps 1, m and both ends of every 16-row interval up to m (sorted, no repeats)."""
    for m_max in (1, 8, 16, 17, 100, 512, 4096):
        grid = decode_ms(m_max)
        assert grid == tuple(sorted(set(grid))) and grid[0] == 1 and grid[-1] == m_max
        ends = {m for m in range(1, m_max + 1) if m % 16 in (0, 1)}  # 16 (j + 1) and 16 j + 1
        assert set(grid) == {1, m_max} | ends
    assert decode_ms(8) == (1, 8)
    assert decode_ms(40) == (1, 16, 17, 32, 33, 40)


def run(capsys, *args: str) -> str:
    assert main(["buckets", *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.mark.parametrize("N, K, m_max, tol", [(4096, 4096, 128, 0.05), (6144, 4096, 256, 0.02)])
def test_buckets_prints_what_the_analysis_gives(capsys, N, K, m_max, tol):
    out = run(capsys, str(N), str(K), "--M-max", str(m_max), "--tol", str(tol))
    sw = sweep(N, K, Ms=decode_ms(m_max))
    greedy, exact = greedy_cover(sw, tol), exact_cover(sw, tol)
    down, up = power_of_two_cover(sw, tol), power_of_two_cover(sw, tol, "up")

    rows = table_with(out, "M", "(BM, BN, BK, warps, stages, GROUP_M)")
    assert [(r[0], r[1]) for r in rows] == [(row[0], row[1]) for row in cover_table(greedy).rows]
    assert [r[1] for r in rows] == [str(c.as_tuple()) for _, _, c in greedy.buckets]
    assert [r[2] for r in rows] == list(cover_table(greedy).column("最坏（时间 / 该 M 的最优）"))

    rows = table_with(out, "投影", "N×K", "做法")
    assert [r[2] for r in rows][1:] == ["2 的幂，向下取", "2 的幂，向上取"]
    for row, cover in zip(rows, (greedy, down, up)):
        assert row[3] == str(cover.n_configs)
        assert ratio(row[4]) == pytest.approx(cover.worst, abs=5e-4)
        assert ratio(row[5]) == pytest.approx(cover.mean, abs=5e-4)
    assert rows[0][0] == ("O" if (N, K) == (4096, 4096) else "QKV")

    worst_m = sw.Ms[int(np.argmax(down.slowdown))]
    assert f"按 2 的幂向下取用 {down.n_configs} 个配置，最坏慢 {fmt_ratio(down.worst)} 倍（M = {worst_m}）" in out
    assert f"向上取用 {up.n_configs} 个，最坏慢 {fmt_ratio(up.worst)} 倍" in out
    if exact is not None and exact.n_configs == greedy.n_configs:
        assert f"精确搜索确认 {exact.n_configs} 个就是最少" in out
    assert f"{sw.n_evaluated} 次模型求值" in out
    assert f"{len(sw.Ms)} 个 M" in out and f"{100 * tol:g}% 以内" in out


def test_buckets_skips_the_up_rounding_past_the_grid(capsys):
    out = run(capsys, "4096", "4096", "--M-max", "40")
    rows = table_with(out, "投影", "N×K", "做法")
    assert [r[2] for r in rows][1:] == ["2 的幂，向下取"]
    assert "向上取要用 M = 64 的最优，它不在 1 … 40 里，略去" in out


def test_buckets_shows_a_progress_bar_on_a_terminal(monkeypatch, capsys):
    import schedlab.cli.progress as cli

    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(cli, "PROGRESS_DELAY_S", 0.0)
    assert main(["buckets", "4096", "4096", "--M-max", "48"]) == 0
    assert "扫描 M" in term.getvalue() and f"/{len(decode_ms(48))}" in term.getvalue()
    assert "集合覆盖" in capsys.readouterr().out


def test_buckets_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["buckets", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: schedlab buckets") and "--M-max" in out and "--tol" in out
