"""The package draws in its own style (schedlab/figures/matplotlibrc, a CJK font included) whatever matplotlib's
settings were, and says once, with the fix, when no CJK font is installed."""

import io
import warnings

import matplotlib
import pytest
from matplotlib import rc_params_from_file

from schedlab.figures import style


@pytest.fixture
def reset_rc():
    """matplotlib's defaults (DejaVu Sans, no CJK), as in a fresh console or a kernel with another rc file."""
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        yield


def test_a_new_figure_has_the_style_of_the_file_after_a_reset(reset_rc, close):
    fig = style.new_figure(0.5)
    close(fig)
    expected = rc_params_from_file(style.STYLE_FILE, use_default_template=False)
    for key in ("font.sans-serif", "figure.dpi", "axes.prop_cycle", "axes.spines.top"):
        assert matplotlib.rcParams[key] == expected[key], key
    assert fig.get_figwidth() == expected["figure.figsize"][0]


def test_chinese_text_draws_without_missing_glyphs_after_a_reset(reset_rc, close, caplog):
    fig = style.new_figure(0.5)
    close(fig)
    fig.subplots().set_title("调度空间：每种形状的最优配置")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(io.BytesIO(), format="png")
    problems = [str(w.message) for w in caught] + [r.getMessage() for r in caplog.records]
    assert not [p for p in problems if "Glyph" in p], problems


def test_no_cjk_font_warns_once_naming_the_debian_package(monkeypatch):
    monkeypatch.setattr(style, "CJK_FONTS", ("No Such CJK Font",))
    style._cjk_font_found.cache_clear()
    try:
        with pytest.warns(style.MissingCJKFontWarning, match="apt-get install fonts-wqy-microhei"):
            assert style._cjk_font_found() is None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            style._cjk_font_found()  # once per process: no second warning
    finally:
        style._cjk_font_found.cache_clear()
