"""schedlab.figures: each figure plots the analysis data it is given, in Chinese, without missing glyphs.

The data checks compare what is drawn (image arrays, bar heights, line data, scatter
offsets, annotations) with the analysis records, or with the scalar public API where the
figure aggregates (``static_valid`` for the launch map). The rendering checks load the
lecture's ``schedlab/figures/matplotlibrc`` and fail on matplotlib's "Glyph ... missing from font"
warning, which the book build turns into an error.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from dataclasses import replace
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from schedlab.core.compiler_record import read_record
from schedlab.core.hardware import H100_TC, PROFILES, KiB
from schedlab.core.knobs import SPACE, GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.launch import reasons, static_valid
from schedlab.core.model import TERMS, explain
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.figures.landscape import landscape_cdf
from schedlab.figures.model import breakdown_chart, overlap_sweep_chart, registers_chart, timing_check_chart
from schedlab.figures.sensitivity import sensitivity_chart
from schedlab.figures.shapes import roofline, transfer_heatmap
from schedlab.figures.space import REASON_STYLE, launch_map
from schedlab.figures.style import fit_width
from schedlab.render.labels import KNOB_LABELS, TERM_LABELS, launch_reason_label, shape_short
from schedlab.render.model import CHECK_LABELS, SET_LABELS
from schedlab.studies.sensitivity import sensitivity
from schedlab.studies.shapes import transfer
from schedlab.studies.triton_check import h200_checks, overlap_sweep

BOOK_RC = Path(__file__).resolve().parents[1] / "schedlab" / "figures" / "matplotlibrc"
CJK = re.compile(r"[\u4e00-\u9fff]")
SQUARE = (4096, 4096, 4096)


@pytest.fixture
def book_rc():
    """The book's rc file loaded for one test; the previous rcParams come back afterwards."""
    assert BOOK_RC.is_file(), f"{BOOK_RC} is missing"
    with matplotlib.rc_context(fname=str(BOOK_RC)):
        yield matplotlib.rcParams


# --- the figures under test, built from the lecture's data ------------------------------

BUILDERS = {
    "launch_map": lambda: launch_map(),
    "landscape_cdf": lambda: landscape_cdf(landscape(SQUARE)),
    "transfer_heatmap": lambda: transfer_heatmap(transfer()),
    "sensitivity_chart": lambda: sensitivity_chart(sensitivity(SQUARE)),
    "sensitivity_chart_decode": lambda: sensitivity_chart(sensitivity(LECTURE_SHAPES[3])),
    "roofline": lambda: roofline(transfer()),
    "breakdown_chart": lambda: breakdown_chart(explain(transfer().optima[0], *SQUARE)),
    "breakdown_chart_one_stage": lambda: breakdown_chart(explain(GemmConfig(256, 128, 32, 8, 1, 1), *SQUARE)),
    "registers_chart": lambda: registers_chart(PROFILES["h100-sxm"], lecture_base=H100_TC.base_regs_per_thread),
    "overlap_sweep_chart": lambda: overlap_sweep_chart(
        overlap_sweep(PROFILES["h200-sxm"], grid=(0.9, 1.0)), SET_LABELS, 0.9
    ),
    "timing_check_chart": lambda: timing_check_chart(
        {key: h200_checks()[key] for key in ("main", "holdout", "fresh")}, CHECK_LABELS
    ),
}


def texts(fig) -> list[str]:
    """Every non-empty string drawn in ``fig`` (titles, labels, tick labels, annotations, legends)."""
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def text_at(ax, x, y) -> list[str]:
    """Strings of the texts anchored at data position ``(x, y)`` of ``ax``."""
    return [t.get_text() for t in ax.texts if np.allclose(t.get_position(), (x, y))]


def render(fig, caplog) -> list[str]:
    """Draw ``fig`` to PNG; return the font problems: warnings and matplotlib log records."""
    caplog.clear()
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING, logger="matplotlib"):
        warnings.simplefilter("always")
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
    assert buf.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
    problems = [str(w.message) for w in caught]
    problems += [r.getMessage() for r in caplog.records if r.name.startswith("matplotlib")]
    return problems


# --- rendering: Chinese with no missing glyph ---------------------------------------------


def test_book_rc_sets_cjk_font_and_hyphen_minus(book_rc):
    assert book_rc["font.sans-serif"][0] == "WenQuanYi Micro Hei"
    assert "DejaVu Sans" in book_rc["font.sans-serif"]
    assert book_rc["axes.unicode_minus"] is False


def png_width_px(png: bytes) -> int:
    """The width in the IHDR chunk of a PNG (bytes 16-19, big-endian)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    return int.from_bytes(png[16:20], "big")


def test_page_png_is_twice_the_layout_resolution(book_rc, close):
    # The PNG a page embeds is the figure's _repr_png_ (what glue stores); the pages lay a figure out
    # at 110 px per inch, and its PNG must hold twice that (sharp on 2x screens and phones), while a
    # saved file keeps savefig.dpi. Tight bounding box: the width moves by the padding, within 2 %.
    fig = landscape_cdf(landscape(SQUARE))
    close(fig)
    width_in = fig.get_figwidth()
    assert png_width_px(fig._repr_png_()) == pytest.approx(width_in * 2 * 110, rel=0.02)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert png_width_px(buf.getvalue()) == pytest.approx(width_in * book_rc["savefig.dpi"], rel=0.02)


@pytest.mark.parametrize("name", BUILDERS)
def test_page_png_is_no_wider_than_its_figure(name, book_rc, close):
    # A page scales the PNG to its column: a PNG wider than the figure (a title or legend sticking
    # out, widening the tight crop) shrinks every text below the size the figure was laid out for.
    fig = BUILDERS[name]()
    close(fig)
    layout_px = fig.get_figwidth() * fig.dpi
    padding_px = 2 * book_rc["savefig.pad_inches"] * fig.dpi
    assert png_width_px(fig._repr_png_()) <= layout_px + padding_px + 1


def test_fit_width_breaks_a_title_wider_than_the_figure(book_rc, close):
    fig = landscape_cdf(landscape(SQUARE))
    close(fig)
    title = fig.axes[0].get_title()
    fig.axes[0].set_title(title + title)  # twice as long as the figure is wide
    width_in = fig.get_figwidth()
    fit_width(fig)
    broken = fig.axes[0].get_title()
    assert broken.replace("\n", "") == title + title and broken.count("\n") >= 1
    box = fig.get_tightbbox()
    assert box.x0 >= -0.01 and box.x1 <= width_in + 0.01 and fig.get_figwidth() == width_in  # broken, not shrunk


def test_cjk_font_is_installed(book_rc):
    from matplotlib import font_manager

    path = font_manager.findfont("WenQuanYi Micro Hei", fallback_to_default=False)
    assert path, "install Debian's fonts-wqy-microhei (the Makefile does) and delete matplotlib's fontlist cache"


@pytest.mark.parametrize("name", BUILDERS)
def test_renders_without_missing_glyphs(name, book_rc, close, caplog):
    fig = BUILDERS[name]()
    close(fig)
    assert isinstance(fig, Figure)
    assert any(CJK.search(s) for s in texts(fig)), "the figure has no Chinese text"
    problems = render(fig, caplog)
    assert not problems, f"{name}: {problems}"


def test_glyph_check_catches_a_font_without_cjk(close, caplog):
    """The check above can fail: with DejaVu Sans alone, the Chinese labels have no glyphs."""
    fig = transfer_heatmap(transfer())  # in the package's style (a CJK font) ...
    close(fig)
    # ... drawn with the sans-serif list cut to DejaVu Sans (fonts are looked up when the text is drawn)
    with matplotlib.rc_context({"font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"]}):
        problems = render(fig, caplog)
    assert any("missing from font" in p for p in problems)


def test_figures_leave_rcparams_and_pyplot_alone(book_rc, close):
    import matplotlib.pyplot as plt

    before_rc = dict(matplotlib.rcParams)
    before_figs = plt.get_fignums()
    for build in BUILDERS.values():
        close(build())
    assert dict(matplotlib.rcParams) == before_rc
    assert plt.get_fignums() == before_figs  # built with Figure(), not registered with pyplot


# --- launch map ---------------------------------------------------------------------------


def _launch_counts(hw):
    """Independent count through the scalar API: launchable (bk, stages) pairs per (bm, bn, warps)."""
    counts = np.zeros((len(SPACE["bm"]), len(SPACE["bn"]), len(SPACE["warps"])), dtype=int)
    for i, bm in enumerate(SPACE["bm"]):
        for j, bn in enumerate(SPACE["bn"]):
            for w_i, w in enumerate(SPACE["warps"]):
                counts[i, j, w_i] = sum(
                    static_valid(GemmConfig(bm, bn, bk, w, st, g), hw)
                    for bk in SPACE["bk"]
                    for st in SPACE["stages"]
                    for g in SPACE["group"][:1]
                )
    return counts


@pytest.mark.parametrize(
    "hw",
    [H100_TC, replace(H100_TC, smem_limit=64 * KiB, max_regs_per_thread=128)],
    ids=["H100", "small-smem-and-registers"],
)
def test_launch_map_counts_equal_static_valid(hw, close):
    fig = launch_map(hw)
    close(fig)
    assert len(fig.axes) == len(SPACE["warps"])
    n_pairs = len(SPACE["bk"]) * len(SPACE["stages"])
    expected = _launch_counts(hw)
    for w_i, ax in enumerate(fig.axes):
        frac = ax.images[0].get_array()
        np.testing.assert_allclose(np.ma.filled(frac, 0.0), expected[:, :, w_i] / n_pairs)
        assert np.array_equal(np.ma.getmaskarray(frac), expected[:, :, w_i] == 0)
        assert f"num_warps = {SPACE['warps'][w_i]}" in ax.get_title()
        for i, bm in enumerate(SPACE["bm"]):
            for j, bn in enumerate(SPACE["bn"]):
                (label,) = text_at(ax, j, i)
                n = expected[i, j, w_i]
                if n:
                    assert label == f"{n}/{n_pairs}"
                else:  # the label names a reason that rules out every config of the cell
                    codes = {r.code for r in reasons(GemmConfig(bm, bn, 16, SPACE["warps"][w_i], 1, 1), hw)}
                    assert codes & {"mma", "registers"}
                    assert label in {REASON_STYLE[c][1] for c in codes}
    if hw is H100_TC:
        assert expected.sum() * len(SPACE["group"]) == 3744  # the seed's launchable count


def test_launch_map_legend_gives_the_reasons(close):
    fig = launch_map()
    close(fig)
    legend = " ".join(t.get_text() for t in fig.legends[0].get_texts())
    for code in ("mma", "registers", "smem"):
        example = {
            "mma": GemmConfig(16, 16, 16, 8, 1, 1),
            "registers": GemmConfig(256, 256, 16, 1, 1, 1),
            "smem": GemmConfig(256, 256, 128, 8, 5, 1),
        }[code]
        message = next(launch_reason_label(r, H100_TC) for r in reasons(example) if r.code == code)
        assert message in legend


# --- landscape CDF ------------------------------------------------------------------------


def test_landscape_cdf_plots_every_ratio(close):
    land = landscape(SQUARE)
    fig = landscape_cdf(land)
    close(fig)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    cdf = ax.lines[0]
    x, y = np.asarray(cdf.get_xdata()), np.asarray(cdf.get_ydata())
    np.testing.assert_array_equal(x, np.sort(land.ratio))
    assert x.max() == land.ratio.max()
    assert y[-1] == 1.0 and np.all(np.diff(y) > 0)
    # the CDF at 1.05 and 2 is n_within / n
    for factor in (1.05, 2.0):
        assert np.searchsorted(x, factor, side="right") == land.n_within(factor)


def test_landscape_cdf_marks_thresholds_counts_and_median(close):
    land = landscape(SQUARE)
    fig = landscape_cdf(land)
    close(fig)
    (ax,) = fig.axes
    vlines = sorted(
        line.get_xdata()[0]
        for line in ax.lines
        if isinstance(line, Line2D) and len(set(np.atleast_1d(line.get_xdata()))) == 1 and len(line.get_xdata()) == 2
    )
    assert vlines == [1.05, 2.0]
    joined = " ".join(texts(fig))
    assert f"{land.n_within(1.05)} 个" in joined and f"{land.n_within(2)} 个" in joined
    assert f"中位数：慢 {land.quantiles()[50]:.2f} 倍" in joined
    assert CJK.search(ax.get_xlabel()) and CJK.search(ax.get_ylabel())


# --- transfer heat map --------------------------------------------------------------------


def test_transfer_heatmap_shows_the_matrix(close):
    t = transfer()
    fig = transfer_heatmap(t)
    close(fig)
    assert len(fig.axes) == 2  # heat map + colour bar
    ax = fig.axes[0]
    image = ax.images[0]
    np.testing.assert_array_equal(np.ma.filled(image.get_array(), np.nan), t.matrix)
    assert isinstance(image.norm, LogNorm)
    for i in range(t.matrix.shape[0]):
        for j in range(t.matrix.shape[1]):
            assert text_at(ax, j, i) == [f"{t.matrix[i, j]:.2f}"]
    assert [lbl.get_text() for lbl in ax.get_xticklabels()] == [shape_short(s) for s in t.shapes]
    rows = [lbl.get_text() for lbl in ax.get_yticklabels()]
    assert [r.split("\n")[0] for r in rows] == [shape_short(s) for s in t.shapes]
    assert all(str(opt.as_tuple()) in r for r, opt in zip(rows, t.optima))
    assert ax.get_xlabel() == "用在" and ax.get_ylabel() == "最优配置来自"


def test_transfer_heatmap_accepts_plain_tuples(close):
    t = transfer([(1024, 1024, 1024), (8, 8192, 8192)])
    fig = transfer_heatmap(t)
    close(fig)
    assert [lbl.get_text() for lbl in fig.axes[0].get_xticklabels()] == ["1024×1024×1024", "8×8192×8192"]


# --- sensitivity --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [SQUARE, LECTURE_SHAPES[3]], ids=["square", "decode"])
def test_sensitivity_bars_equal_finite_ratios(shape, close):
    s = sensitivity(shape)
    fig = sensitivity_chart(s)
    close(fig)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == len(SPACE)
    base = dict(zip(SPACE, s.base.as_tuple()))
    for ax, knob in zip(axes, SPACE):
        assert KNOB_LABELS[knob] in ax.get_title()
        assert ax.get_yscale() == "log"
        pairs = s.ratios[knob]
        bars = list(ax.containers[0])
        finite = [(x, v, r) for x, (v, r) in enumerate(pairs) if np.isfinite(r)]
        assert [b.get_height() for b in bars] == [r for _, _, r in finite]
        assert [b.get_x() + b.get_width() / 2 for b in bars] == pytest.approx([x for x, _, _ in finite])
        # the base value's bar, and only it, is highlighted
        colors = [tuple(b.get_facecolor()) for b in bars]
        is_base = [v == base[knob] for _, v, _ in finite]
        assert sum(is_base) == 1
        base_color = colors[is_base.index(True)]
        assert all((c == base_color) == b for c, b in zip(colors, is_base))
        # every value that cannot launch is labelled, in its column
        n_inf = sum(not np.isfinite(r) for _, r in pairs)
        marked = [t for t in ax.texts if t.get_text() == "不能启动"]
        assert len(marked) == n_inf
        assert sorted(t.get_position()[0] for t in marked) == [
            x for x, (_, r) in enumerate(pairs) if not np.isfinite(r)
        ]
        assert [lbl.get_text() for lbl in ax.get_xticklabels()] == [str(v) for v, _ in pairs]
    assert CJK.search(axes[0].get_ylabel())


# --- roofline -----------------------------------------------------------------------------


def test_roofline_points_and_roofs(close):
    t = transfer()
    fig = roofline(t)
    close(fig)
    (ax,) = fig.axes
    assert ax.get_xscale() == ax.get_yscale() == "log"
    offsets = np.asarray(ax.collections[0].get_offsets())
    mnk = np.array([s.mnk for s in t.shapes], dtype=float)
    M, N, K = mnk.T
    intensity = 2 * M * N * K / ((M * K + K * N + M * N) * 2)
    np.testing.assert_allclose(offsets[:, 0], intensity)
    np.testing.assert_allclose(offsets[:, 1], t.best_tflops)
    roof = ax.lines[0]
    x, y = np.asarray(roof.get_xdata()), np.asarray(roof.get_ydata())
    assert y.max() == pytest.approx(H100_TC.peak_flops / 1e12)
    slope_part = x < H100_TC.peak_flops / H100_TC.hbm_bw_bytes_per_s
    np.testing.assert_allclose(y[slope_part], H100_TC.hbm_bw_bytes_per_s / 1e12 * x[slope_part])
    # no optimum above its roof
    assert np.all(offsets[:, 1] <= np.minimum(H100_TC.hbm_bw_bytes_per_s * intensity, H100_TC.peak_flops) / 1e12)
    joined = " ".join(texts(fig))
    for s, tf in zip(t.shapes, t.best_tflops):
        assert shape_short(s) in joined and f"{tf:.0f} TFLOPS" in joined
    assert CJK.search(ax.get_xlabel())


def test_roofline_follows_hardware(close):
    hw = replace(H100_TC, hbm_bw_bytes_per_s=1e12)
    fig = roofline(transfer(hw=hw), hw)
    close(fig)
    x, y = (np.asarray(a) for a in fig.axes[0].lines[0].get_data())
    assert np.allclose(y[x < 100], x[x < 100])  # 1 TB/s: TFLOPS = intensity


# --- breakdown ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, cfg",
    [
        (SQUARE, GemmConfig(256, 128, 32, 8, 4, 1)),
        ((16, 4096, 4096), GemmConfig(16, 16, 128, 1, 4, 1)),
        (SQUARE, GemmConfig(256, 128, 32, 8, 1, 1)),
    ],
    ids=["square-optimum", "decode-optimum", "one-stage"],
)
def test_breakdown_bars_equal_terms(shape, cfg, close):
    b = explain(cfg, *shape)
    fig = breakdown_chart(b)
    close(fig)
    (ax,) = fig.axes
    bars = list(ax.containers[0])
    np.testing.assert_allclose([r.get_width() for r in bars], [v * 1e9 for v in b.terms().values()])
    assert [lbl.get_text() for lbl in ax.get_yticklabels()] == [TERM_LABELS[k] for k in TERMS]
    colors = [tuple(r.get_facecolor()) for r in bars]
    k = list(TERMS).index(b.bottleneck)
    assert all((c == colors[k]) == (i == k) for i, c in enumerate(colors)), "only the bottleneck is highlighted"
    assert any("瓶颈" in s for s in text_at(ax, *_label_pos(ax, k)))
    step = [line for line in ax.lines if len(set(np.atleast_1d(line.get_xdata()))) == 1]
    assert step[0].get_xdata()[0] == pytest.approx(b.t_step_s * 1e9)


def test_registers_chart_plots_one_dot_per_compiled_tile_at_its_registers(close):
    # the dots are the compiler's record (schedlab/data/triton-registers.csv), read here without the model
    fig = registers_chart(PROFILES["h100-sxm"], lecture_base=40)
    close(fig)
    (ax,) = fig.axes
    expected = {}
    for row in read_record():
        if row.cc == 90 and row.k_aligned and row.n_aligned:  # the chart is of shapes of multiples of 16
            expected.setdefault(row.warps, []).append(row.registers)
    drawn = {int(c.get_label().split()[0]): sorted(c.get_offsets()[:, 1].tolist()) for c in ax.collections}
    assert drawn == {warps: sorted(regs) for warps, regs in expected.items()}
    assert "讲义的估计：累加器 + 40" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_timing_check_chart_plots_every_shape_inside_its_axes(close):
    checks = {key: h200_checks()[key] for key in ("main", "holdout", "fresh")}
    fig = timing_check_chart(checks, CHECK_LABELS)
    close(fig)
    top, bottom = fig.axes
    for ax, field in ((top, "regret"), (bottom, "model_over_measured")):
        for scatter, check in zip(ax.collections, checks.values()):
            xy = scatter.get_offsets()
            assert xy[:, 0].tolist() == pytest.approx((1e6 * check.best_s).tolist())
            assert xy[:, 1].tolist() == pytest.approx(getattr(check, field).tolist())
            low, high = ax.get_ylim()
            assert low < xy[:, 1].min() and xy[:, 1].max() < high, f"a {field} point falls outside the axes"
    assert [t.get_text() for t in top.get_legend().get_texts()] == ["模型，主集", "模型，留出集", "模型，新集"]


def test_overlap_sweep_chart_draws_each_set_s_picks_and_level_against_the_overlap(close):
    sweep = overlap_sweep(PROFILES["h200-sxm"], grid=(0.8, 0.9, 1.0))
    fig = overlap_sweep_chart(sweep, SET_LABELS, 0.9)
    close(fig)
    picks, level = fig.axes
    for ax, value in ((picks, lambda c: 100 * c.within), (level, lambda c: np.median(c.model_over_measured))):
        lines = [line for line in ax.get_lines() if line.get_marker() not in (None, "None", "")]
        assert len(lines) == len(SET_LABELS)
        for line, key in zip(lines, SET_LABELS):
            assert line.get_xdata().tolist() == [0.8, 0.9, 1.0]
            assert line.get_ydata().tolist() == pytest.approx([value(sweep[p][key]) for p in (0.8, 0.9, 1.0)])
        assert any(line.get_xdata()[0] == 0.9 and line.get_linestyle() == ":" for line in ax.get_lines())
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["主集", "留出集", "新集"]
    with pytest.raises(ValueError, match="sweep holds no overlap to draw"):
        overlap_sweep_chart({}, SET_LABELS, 0.9)


def _label_pos(ax, k):
    """Position of the value label of bar ``k`` (right of the k-step line, centred on the bar)."""
    bar = ax.containers[0][k]
    y = bar.get_y() + bar.get_height() / 2
    (t,) = [t for t in ax.texts if np.isclose(t.get_position()[1], y)]
    return t.get_position()


def test_figures_display_themselves_in_a_notebook(book_rc, close, caplog):
    """A figure made without pyplot has ``_repr_png_``: IPython shows it without ``%matplotlib inline``."""
    fig = landscape_cdf(landscape(SQUARE))
    close(fig)
    caplog.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = fig._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [str(w.message) for w in caught]
    width = int.from_bytes(png[16:20], "big")
    # the figure's width (the rc's) at the display dpi, not savefig's: the cropped PNG is no wider than the figure
    layout_px = book_rc["figure.figsize"][0] * book_rc["figure.dpi"]
    assert abs(width - layout_px) < 0.02 * layout_px
