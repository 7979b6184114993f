"""What every figure shares: the lecture's style (fonts, CJK included, sizes, colours), a figure that shows
itself in a notebook, the ratio ticks, and the legibility rules every figure keeps (text size at phone width,
text contrast).

:func:`new_figure` applies the style (:data:`STYLE_FILE`, carried by the wheel) to matplotlib's ``rcParams``
each time the package makes a figure, so a figure looks the same on the site, in a downloaded notebook and
from the console, whatever rc file or backend (Jupyter's inline one resets some) was active before. Where no
CJK font is installed, it warns once (:class:`MissingCJKFontWarning`) and says which package fixes it.

A page shows a figure's PNG as wide as the text column; on a phone that column is
:data:`PHONE_COLUMN_PX` CSS pixels, so a PNG ``W`` pixels wide is scaled by
``PHONE_COLUMN_PX / W`` there. :func:`legibility` measures every text a figure draws; the
PNG a page shows carries the result as metadata (:data:`LEGIBILITY_KEYS`), which the browser
test reads back beside the width the phone really shows.
"""

from __future__ import annotations

import base64
import functools
import io
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib import font_manager, rc_params_from_file, rcParams
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb, to_rgba
from matplotlib.figure import Figure
from matplotlib.text import Text

from schedlab.render.wrap import break_in_two

__all__ = [
    "STYLE_FILE",
    "CJK_FONTS",
    "MissingCJKFontWarning",
    "apply_style",
    "PHONE_COLUMN_PX",
    "MIN_TEXT_CSS_PX",
    "MIN_CONTRAST",
    "LEGIBILITY_KEYS",
    "DrawnText",
    "Interactive",
    "new_figure",
    "fmt_times",
    "contrast_ratio",
    "text_color",
    "ink_on",
    "legibility",
    "fit_width",
]

#: The lecture's matplotlib rc file: fonts, sizes, colours (applied by :func:`apply_style`).
STYLE_FILE = Path(__file__).with_name("matplotlibrc")
#: The CJK font the site's figures are drawn with, and how to install it (Debian and Ubuntu).
CJK_FONT, CJK_PACKAGE = "WenQuanYi Micro Hei", "fonts-wqy-microhei"


class MissingCJKFontWarning(UserWarning):
    """No font of the style's ``font.sans-serif`` list has CJK glyphs: Chinese text would draw as boxes."""


@functools.cache
def _style() -> dict:
    return dict(rc_params_from_file(STYLE_FILE, use_default_template=False))


#: The CJK fonts the style names (``font.sans-serif`` less its Latin fallback), first choice first.
CJK_FONTS = tuple(f for f in _style()["font.sans-serif"] if f != "DejaVu Sans")


@functools.cache
def _cjk_font_found() -> str | None:
    """The first CJK font of the style that matplotlib finds, else None (warned once per process)."""
    for family in CJK_FONTS:
        try:
            return font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
        except ValueError:
            continue
    warnings.warn(
        f"schedlab: no CJK font found ({', '.join(CJK_FONTS)}), so Chinese text in figures will draw as boxes. "
        f"Install {CJK_FONT} (Debian/Ubuntu: sudo apt-get install {CJK_PACKAGE}), then delete matplotlib's "
        "font cache (~/.cache/matplotlib/fontlist-*.json) and restart Python.",
        MissingCJKFontWarning,
        stacklevel=4,
    )
    return None


def apply_style() -> None:
    """Set matplotlib's ``rcParams`` to the lecture's style (:data:`STYLE_FILE`); warn once if no CJK font is found.

    Examples
    --------
    >>> apply_style()
    >>> rcParams["font.sans-serif"][0], rcParams["axes.spines.top"]
    ('WenQuanYi Micro Hei', False)
    """
    rcParams.update(_style())
    _cjk_font_found()


#: Width of the text column on a 390 px phone (the theme's article padding taken off), CSS px.
PHONE_COLUMN_PX = 342
#: Smallest text a reader should meet, CSS px, at phone width.
MIN_TEXT_CSS_PX = 9.0
#: WCAG 2 AA contrast for text: every text colour against what lies under it.
MIN_CONTRAST = 4.5
#: PNG text chunks :meth:`_ShownFigure._repr_png_` writes: the smallest text's size in the PNG's own
#: pixels, the lowest contrast ratio, and the text that has each.
LEGIBILITY_KEYS = ("schedlab:min_text_px", "schedlab:min_contrast", "schedlab:smallest", "schedlab:faintest")


def _luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour (components 0..1)."""
    c = np.asarray(rgb, dtype=float)[:3]
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(lin @ (0.2126, 0.7152, 0.0722))


def contrast_ratio(foreground, background) -> float:
    """WCAG 2 contrast ratio of two opaque colours, from 1 (same) to 21 (black on white).

    Notes
    -----
    With relative luminances :math:`L_1 \\ge L_2`, the ratio is :math:`(L_1 + 0.05) / (L_2 + 0.05)`.

    Examples
    --------
    >>> round(contrast_ratio("black", "white"), 1), round(contrast_ratio("#F0E442", "white"), 2)
    (21.0, 1.32)
    """
    hi, lo = sorted((_luminance(to_rgb(foreground)), _luminance(to_rgb(background))), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def text_color(color, background="white", target: float = MIN_CONTRAST):
    """``color``, darkened just enough (towards black, hue kept) to reach ``target`` contrast on ``background``.

    The figures draw a series' line in its palette colour and the series' words in this colour,
    so a yellow line keeps a readable label.

    Examples
    --------
    >>> text_color("#0072B2") == to_rgb("#0072B2")  # already readable: unchanged
    True
    >>> round(contrast_ratio(text_color("#F0E442"), "white"), 1) >= 4.5
    True
    """
    rgb = np.asarray(to_rgb(color))
    for scale in np.linspace(1.0, 0.0, 101):
        if contrast_ratio(rgb * scale, background) >= target:
            return tuple(float(v) for v in rgb * scale)
    raise ValueError(f"no darker shade of {color!r} reaches {target}:1 on {background!r}")


def ink_on(background) -> str:
    """The text colour for words on ``background`` (a heat map's cell): black or white, whichever contrasts more.

    Pure black, not a softer near-black: on a mid-tone cell the better of black and white still
    reaches :data:`MIN_CONTRAST`, which ``#1a1a1a`` and white do not (about 4.2:1 at worst).

    Notes
    -----
    With :math:`L` the background's relative luminance, black gives :math:`(L + 0.05) / 0.05` and
    white :math:`1.05 / (L + 0.05)`; the larger is smallest where they meet,
    :math:`L + 0.05 = \\sqrt{0.0525}`, at :math:`\\sqrt{21} \\approx 4.58`.

    Examples
    --------
    >>> ink_on("white"), ink_on("#08306b"), ink_on("#fc8d59")
    ('black', 'white', 'black')
    >>> greys = np.linspace(0, 1, 256)[:, None] * np.ones(3)  # every sRGB grey, mid-tones included
    >>> bool(min(contrast_ratio(ink_on(g), g) for g in greys) >= 4.58)  # the bound in the Notes
    True
    """
    return max(("black", "white"), key=lambda ink: contrast_ratio(ink, background))


@dataclass(frozen=True)
class DrawnText:
    """One string a figure draws: its size in the figure's pixels and its contrast on what lies under it."""

    text: str
    size_px: float
    contrast: float


def legibility(fig: Figure) -> list[DrawnText]:
    """Every string ``fig`` draws, with its size in pixels at ``fig.dpi`` and its contrast ratio.

    The figure is drawn once on an Agg canvas with its text draw calls recorded instead of drawn
    (string, font size in points, colour, the line's box): the picture left shows what lies under
    each line of text, the commonest colour inside its box (a text's own box patch counts).

    Notes
    -----
    A size of :math:`s` points is :math:`s \\cdot \\mathrm{dpi} / 72` pixels. Contrast is
    :func:`contrast_ratio` of the text colour (composited on the background by its alpha).

    Examples
    --------
    >>> fig = Figure(figsize=(2, 1), dpi=100)
    >>> _ = fig.text(0.1, 0.5, "faint", color="#F0E442", fontsize=9)
    >>> [(t.text, t.size_px, round(t.contrast, 2)) for t in legibility(fig)]
    [('faint', 12.5, 1.32)]

    Each line of a multi-line text is measured on what lies under that line, here a dark square (12.76:1 for
    white on #08306b by the formula; the picture holds the colour to 8 bits):

    >>> from matplotlib.patches import Rectangle
    >>> _ = fig.patches.append(Rectangle((0.5, 0), 0.5, 1, color="#08306b", transform=fig.transFigure))
    >>> _ = fig.text(0.6, 0.5, "white\\non blue", color="white", fontsize=9)
    >>> [(t.text, round(t.contrast, 1)) for t in legibility(fig)][1:]
    [('white', 12.8), ('on blue', 12.8)]
    """
    canvas = FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    calls = []

    def record(gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if s.strip():
            patch = mtext.get_bbox_patch() if mtext is not None else None
            if patch is not None and patch.get_facecolor()[3] > 0:
                calls.append((s, prop.get_size_in_points(), gc.get_rgb(), to_rgba(patch.get_facecolor())[:3], None))
                return
            # the line's own box, rotated about its baseline start (a multi-line text draws line by line)
            w, h, d = renderer.get_text_width_height_descent(s, prop, ismath)
            turn = np.deg2rad(angle)
            rotation = np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])
            corners = np.array([[0, -d], [w, -d], [w, h - d], [0, h - d]]) @ rotation
            box = (x + corners[:, 0], y - corners[:, 1])  # y counts down from the top (Agg flips y)
            calls.append((s, prop.get_size_in_points(), gc.get_rgb(), None, box))

    renderer.draw_text = record  # an instance attribute: this renderer draws no text
    try:
        canvas.draw()
    finally:
        del renderer.draw_text
    under = np.asarray(canvas.buffer_rgba())[..., :3].astype(float) / 255
    height, width = under.shape[:2]
    found = []
    for s, size_pt, rgba, background, box in calls:
        if box is not None:
            xs, ys = box
            x0, x1 = (int(np.clip(v, 0, width)) for v in (xs.min(), xs.max()))
            y0, y1 = (int(np.clip(v, 0, height)) for v in (ys.min(), ys.max()))
            if x1 > x0 and y1 > y0:
                pixels = under[y0:y1, x0:x1].reshape(-1, 3)
                colours, counts = np.unique(np.round(pixels, 3), axis=0, return_counts=True)
                background = tuple(colours[np.argmax(counts)])
        if background is None:
            background = to_rgb(fig.get_facecolor())
        alpha = rgba[3] if len(rgba) > 3 else 1.0
        shown = alpha * np.asarray(rgba[:3]) + (1 - alpha) * np.asarray(background)
        found.append(DrawnText(s, size_pt * fig.dpi / 72, contrast_ratio(shown, background)))
    return found


def fit_width(fig: Figure, max_rounds: int = 12) -> None:
    """Lay ``fig`` out so that nothing it draws sticks out of its left or right edge.

    A title, label, annotation or legend entry wider than the room it has would stick out, and a
    tightly cropped PNG would then be wider than the figure: a page scaling that PNG to its column
    shrinks every text below the size the figure was designed for (:data:`MIN_TEXT_CSS_PX`). Each
    round breaks the widest line of every text that crosses an edge (and of a crossing legend's
    widest entry) in two (at punctuation or a
    space if it has one, else between two CJK characters; the layout engine makes room for the
    extra line); what still sticks out and has no break left (a legend placed outside the axes)
    narrows the figure by its overhang. Tick labels are left whole. Changes ``fig`` in place.

    Examples
    --------
    >>> fig = new_figure(0.6, width=3.0)
    >>> _ = fig.subplots().set_title("A title much wider than the figure, broken into lines where it has room")
    >>> fit_width(fig)
    >>> box = fig.get_tightbbox()
    >>> bool(box.x0 >= 0 and box.x1 <= fig.get_figwidth()), "\\n" in fig.axes[0].get_title()
    (True, True)
    """
    for _ in range(max_rounds):
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        box = fig.get_tightbbox(renderer)
        width_in = fig.get_figwidth()
        tolerance = 1 / fig.dpi
        if box.x0 >= -tolerance and box.x1 <= width_in + tolerance:
            return
        width_px = width_in * fig.dpi

        def sticks_out(artist, renderer=renderer, width_px=width_px) -> bool:
            extent = artist.get_window_extent(renderer)
            return extent.x0 < -1 or extent.x1 > width_px + 1

        ticks = {id(t) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis) for t in axis.get_ticklabels(which="both")}
        texts = [t for t in fig.findobj(Text) if id(t) not in ticks and t.get_visible() and sticks_out(t)]
        # a legend that sticks out: its widest entry
        legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
        for legend in legends:
            if legend.get_visible() and sticks_out(legend) and legend.get_texts():
                texts.append(max(legend.get_texts(), key=lambda t: t.get_window_extent(renderer).width))
        broke = False
        for text in texts:
            s = text.get_text()
            if not s.strip() or "$" in s:
                continue
            lines = s.split("\n")
            k = max(range(len(lines)), key=lambda j: len(lines[j]))
            halves = break_in_two(lines[k])
            if halves is not None:
                text.set_text("\n".join([*lines[:k], *halves, *lines[k + 1 :]]))
                broke = True
        if not broke:
            overhang = max(0.0, -box.x0) + max(0.0, box.x1 - width_in)
            fig.set_figwidth(width_in - overhang)
    raise ValueError(
        f"fit_width: the figure still sticks out of its {fig.get_figwidth():.2f} in after {max_rounds} rounds"
    )


class _ShownFigure(Figure):
    """A :class:`~matplotlib.figure.Figure` that IPython shows as PNG on its own.

    A figure made without :mod:`matplotlib.pyplot` is known to no backend, so a notebook
    shows it only as ``<Figure ...>`` unless ``%matplotlib inline`` registered a formatter.
    ``_repr_png_`` makes it display (and ``myst_nb.glue`` store it) in any kernel; where the
    inline backend is active its formatter takes precedence, and the figure still appears once.
    The figure is first fitted to its width (:func:`fit_width`), so the tightly cropped PNG is as
    wide as the figure and a page scales its text as the figure's size promises. The PNG carries
    :func:`legibility`'s smallest text and lowest contrast (:data:`LEGIBILITY_KEYS`).
    """

    def _repr_png_(self) -> bytes:
        fit_width(self)
        texts = legibility(self)
        smallest = min(texts, key=lambda t: t.size_px)
        faintest = min(texts, key=lambda t: t.contrast)
        values = (f"{smallest.size_px:.3f}", f"{faintest.contrast:.3f}", smallest.text, faintest.text)
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=self.dpi, bbox_inches="tight", metadata=dict(zip(LEGIBILITY_KEYS, values)))
        return buf.getvalue()


class Interactive:
    """A Plotly figure for the web page and its static matplotlib twin for paper.

    A notebook output of both: ``text/html`` (the Plotly figure, without Plotly's JavaScript, which
    the site serves once; see ``conf.py``) and ``image/png`` (the twin). The HTML builder shows the
    first, the LaTeX builder (which renders no HTML) the second, so the PDF keeps the figure. The
    HTML carries the twin too, as an image shown only on paper (``custom.css``: a printed web page
    gets the static figure, not an interactive one it cannot use).

    Parameters
    ----------
    plot : plotly.graph_objects.Figure
        The interactive figure.
    static : matplotlib.figure.Figure
        The same data drawn for paper (a figure made by :func:`new_figure`).
    """

    def __init__(self, plot, static: Figure):
        if not hasattr(plot, "to_html"):
            raise ValueError(f"plot must be a plotly Figure, got {type(plot).__name__}")
        if not isinstance(static, _ShownFigure):
            raise ValueError(f"static must be a figure made by new_figure, got {type(static).__name__}")
        self.plot = plot
        self.static = static

    def to_html(self, png_base64: str) -> str:
        """The Plotly figure (a ``<div>`` and the script that draws it; ``Plotly`` must be loaded first).

        The figure sits in a ``div.schedlab-explorer`` followed by its twin (``png_base64``, the PNG
        base64-encoded) as ``img.schedlab-print-twin``, which the stylesheet shows only in print.
        """
        plot = self.plot.to_html(
            include_plotlyjs=False,
            full_html=False,
            default_width="100%",
            config={"responsive": True, "displaylogo": False},
        )
        twin = f'<img class="schedlab-print-twin" alt="" src="data:image/png;base64,{png_base64}">'
        return f'<div class="schedlab-explorer">{plot}</div>{twin}'

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        png = base64.b64encode(self.static._repr_png_()).decode("ascii")
        return {"text/html": self.to_html(png), "image/png": png, "text/plain": repr(self)}

    def __repr__(self) -> str:
        return f"<Interactive {type(self.plot).__name__} with a static twin>"


def new_figure(height_ratio: float, width: float | None = None) -> Figure:
    """A constrained-layout figure in the lecture's style (:func:`apply_style`), as wide as the style's default,
    ``height_ratio`` times as tall."""
    apply_style()
    w = rcParams["figure.figsize"][0] if width is None else width
    return _ShownFigure(figsize=(w, w * height_ratio), layout="constrained")


def fmt_times(x, _pos=None) -> str:
    """A ratio as an axis tick, ``"2×"`` (a :class:`~matplotlib.ticker.FuncFormatter` function).

    Examples
    --------
    >>> fmt_times(2.0), fmt_times(1.5)
    ('2×', '1.5×')
    """
    return f"{x:g}×"
