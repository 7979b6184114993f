"""Tables and figures of the search chapter: what they show equals the comparison they are given.

Every cell of :mod:`schedlab.render`'s search tables is parsed back and compared with
:meth:`Comparison.cell` / :meth:`Comparison.summary` / :class:`LocalOptima`; every line
and band of :func:`schedlab.figures.search.search_curves` is compared with the comparison's
curves. The figure is also drawn with the book's rc file, where a missing CJK glyph
would fail the build.
"""

from __future__ import annotations

import io
import logging
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.text import Text  # noqa: E402

from schedlab.core.shapes import LECTURE_SHAPES, llm_shapes  # noqa: E402
from schedlab.figures.search import search_curves  # noqa: E402
from schedlab.render.labels import STRATEGY_LABELS, shape_short  # noqa: E402
from schedlab.render.search import (  # noqa: E402
    descent_table,
    fmt_reach,
    local_optima_table,
    search_shape_table,
    search_summary_table,
    search_table,
)
from schedlab.render.table import fmt_trials  # noqa: E402
from schedlab.tuning.compare import compare, descent_local_optima  # noqa: E402
from schedlab.tuning.strategies import STRATEGIES  # noqa: E402

BOOK_RC = Path(__file__).resolve().parents[1] / "schedlab" / "figures" / "matplotlibrc"
SQUARE, DECODE = (4096, 4096, 4096), (16, 4096, 4096)
CELL = re.compile(r"^(\d+|—)\u00a0/\u00a0(\d+|—)\u00a0\((\d+(?:\.\d)?)%\)$")


@pytest.fixture(scope="module")
def comparison():
    """Two lecture shapes and two Llama shapes, every strategy, 20 seeds (a second or two)."""
    shapes = (LECTURE_SHAPES[0], LECTURE_SHAPES[3], *llm_shapes()[:2])
    return compare(shapes, seeds=range(20), budget=150)


def count(text: str) -> float:
    return math.inf if text == "—" else float(text)


def parse_cell(text: str) -> tuple[float, float, float]:
    """``"18 / 23 (100%)"`` (no-break spaces) -> ``(18.0, 23.0, 1.0)``."""
    m = CELL.match(text)
    assert m, f"not a trials cell: {text!r}"
    return count(m.group(1)), count(m.group(2)), float(m.group(3)) / 100


def assert_cell(text: str, cell):
    median, p90, reached = parse_cell(text)
    assert median == cell.estimate and p90 == cell.p90
    assert reached == pytest.approx(cell.reached, abs=0.0051)  # whole percent (one decimal near 0 % and 100 %)
    assert text.endswith(f"({fmt_reach(cell.reached)})")


# --- tables -------------------------------------------------------------------------------


def test_search_table_cells_equal_the_comparison(comparison):
    table = search_table(comparison)
    assert table.headers == ("策略",) + tuple(shape_short(s) for s in comparison.shapes)
    assert table.column("策略") == tuple(STRATEGY_LABELS[n] for n in comparison.strategies)
    for row, name in zip(table.rows, comparison.strategies):
        for text, shape in zip(row[1:], comparison.shapes):
            assert_cell(text, comparison.cell(shape, name))
    assert f"{len(comparison.seeds)} 个种子" in table.title and f"预算 {comparison.budget} 次" in table.title


def test_search_table_picks_shapes_in_the_order_given(comparison):
    table = search_table(comparison, [DECODE, SQUARE])
    assert table.headers[1:] == ("decode 16", "方阵 4096³")
    assert_cell(table.rows[-1][1], comparison.cell(DECODE, "model"))


def test_search_table_marks_unreached_with_a_dash(comparison):
    rows = {row[0]: row[1:] for row in search_table(comparison).rows}
    exhaustive = rows[STRATEGY_LABELS["exhaustive"]][0]
    assert comparison.cell(SQUARE, "exhaustive").reached == 0.0
    assert exhaustive == "—\u00a0/\u00a0—\u00a0(0%)"


def test_search_shape_table_columns_equal_the_cell(comparison):
    table = search_shape_table(comparison, SQUARE)
    assert table.headers == ("策略", "中位数", "90% 分位数", "预算内到达")
    for row, name in zip(table.rows, comparison.strategies):
        cell = comparison.cell(SQUARE, name)
        assert count(row[1]) == cell.estimate and count(row[2]) == cell.p90
        assert float(row[3].rstrip("%")) / 100 == pytest.approx(cell.reached, abs=0.005)
    assert table.title.startswith("4096×4096×4096：")


def test_search_summary_table_cells_equal_summary(comparison):
    groups = {"讲义": comparison.shapes[:2], "Llama": comparison.shapes[2:], "全部": comparison.shapes}
    table = search_summary_table(comparison, groups)
    assert table.headers == ("策略", "讲义", "Llama", "全部")
    for row, name in zip(table.rows, comparison.strategies):
        for text, shapes in zip(row[1:], groups.values()):
            assert_cell(text, comparison.summary(name, shapes))


def test_search_summary_table_rejects_empty_groups(comparison):
    with pytest.raises(ValueError, match="at least one shape"):
        search_summary_table(comparison, {"空": []})


@pytest.mark.parametrize(
    "fraction, text", [(1.0, "100%"), (0.7, "70%"), (0.0, "0%"), (0.9966, "99.7%"), (0.004, "0.4%")]
)
def test_reach_is_never_rounded_to_all_or_nothing(fraction, text):
    assert fmt_reach(fraction) == text


def test_fmt_trials():
    assert fmt_trials(18.0) == "18" and fmt_trials(math.inf) == "—"
    with pytest.raises(ValueError):
        fmt_trials("18")


def test_tables_reject_other_records():
    with pytest.raises(ValueError, match="Comparison"):
        search_table("not a comparison")
    with pytest.raises(ValueError, match="LocalOptima"):
        local_optima_table("not local optima")


@pytest.mark.parametrize("shape", [SQUARE, DECODE], ids=["square", "decode"])
def test_local_optima_table_rows_equal_where(shape):
    lo = descent_local_optima(shape, seeds=range(40))
    table = local_optima_table(lo, k=4)
    assert len(table.rows) == min(4, len(lo.where))
    for row, (cfg, ratio, runs) in zip(table.rows, lo.where):
        assert row == (str(cfg.as_tuple()), f"{ratio:.2f}", str(runs))
    assert f"{lo.runs} 次坐标下降" in table.title and f"里 {lo.bad} 次" in table.title
    assert f"共 {len(lo.where)} 个不同的点" in table.title


def test_descent_table_rows_equal_the_records():
    los = [descent_local_optima(s, seeds=range(30)) for s in (SQUARE, DECODE)]
    table = descent_table(los)
    for row, lo, name in zip(table.rows, los, ("方阵 4096³", "decode 16")):
        assert row == (name, f"{100 * lo.rate:.0f}%", str(len(lo.where)), f"{lo.mean_measurements:.1f}")


# --- the figure ---------------------------------------------------------------------------


def band_limits(band, x):
    """Lowest and highest y of a fill_between polygon at each x."""
    verts = np.concatenate([p.vertices for p in band.get_paths()])
    lo = np.full(len(x), np.inf)
    hi = np.full(len(x), -np.inf)
    idx = np.searchsorted(x, verts[:, 0])
    on_grid = (idx < len(x)) & np.isclose(x[np.minimum(idx, len(x) - 1)], verts[:, 0])
    np.minimum.at(lo, idx[on_grid], verts[on_grid, 1])
    np.maximum.at(hi, idx[on_grid], verts[on_grid, 1])
    return lo, hi


@pytest.mark.parametrize("shape", [SQUARE, DECODE, 2], ids=["square", "decode", "index"])
def test_search_curves_plot_the_comparison_curves(comparison, shape, close):
    fig = search_curves(comparison, shape)
    close(fig)
    i = comparison.shape_index(shape)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == len(comparison.strategies)
    x = np.arange(1, comparison.budget + 1)
    for j, (ax, name) in enumerate(zip(axes, comparison.strategies)):
        assert ax.get_xscale() == ax.get_yscale() == "log"
        median = ax.lines[0]
        np.testing.assert_array_equal(median.get_xdata(), x)
        np.testing.assert_array_equal(median.get_ydata(), comparison.curve_median[i, j])
        lo, hi = band_limits(ax.collections[0], x)
        np.testing.assert_allclose(lo, comparison.curve_p10[i, j])
        np.testing.assert_allclose(hi, comparison.curve_p90[i, j])
        # the grey lines are the other strategies' medians, in order
        others = [line.get_ydata() for line in ax.lines[1:] if len(line.get_xdata()) == len(x)]
        expected = [comparison.curve_median[i, k] for k in range(len(comparison.strategies)) if k != j]
        assert len(others) == len(expected)
        for got, want in zip(others, expected):
            np.testing.assert_array_equal(got, want)
        goal = [line for line in ax.lines if len(set(np.atleast_1d(line.get_ydata()))) == 1]
        assert goal and goal[0].get_ydata()[0] == comparison.factor
        cell = comparison.cell(i, name)
        title = ax.get_title()
        assert title.startswith(STRATEGY_LABELS[name])
        assert (f"中位数 {cell.estimate:.0f} 次" in title) if np.isfinite(cell.estimate) else ("没到" in title)


def test_search_curves_rejects_a_shape_not_compared(comparison):
    with pytest.raises(ValueError, match="not in this comparison"):
        search_curves(comparison, (8, 8, 8))


def test_search_curves_render_in_chinese_without_missing_glyphs(comparison, close, caplog):
    with matplotlib.rc_context(fname=str(BOOK_RC)):
        fig = search_curves(comparison, SQUARE)
        close(fig)
        texts = [t.get_text() for t in fig.findobj(Text) if t.get_text()]
        assert any(re.search(r"[\u4e00-\u9fff]", s) for s in texts)
        caplog.clear()
        with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING, logger="matplotlib"):
            warnings.simplefilter("always")
            fig.savefig(io.BytesIO(), format="png")
    problems = [str(w.message) for w in caught] + [r.getMessage() for r in caplog.records]
    assert not problems, problems


def test_search_curves_leave_pyplot_and_rcparams_alone(comparison, close):
    import matplotlib.pyplot as plt

    before_rc, before_figs = dict(matplotlib.rcParams), plt.get_fignums()
    close(search_curves(comparison, DECODE))
    assert dict(matplotlib.rcParams) == before_rc and plt.get_fignums() == before_figs


def test_labels_cover_every_strategy():
    assert set(STRATEGY_LABELS) == set(STRATEGIES)
