"""The record every table is, and the numbers in its cells: each formatted here, once.

A :class:`Table` holds strings only; the ``fmt_*`` functions turn the model's numbers into
them, so the console and the book show the same digits. ``"—"`` (:data:`MISSING`) stands
for no number (a configuration that cannot launch, a goal not reached).
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass

import numpy as np

from schedlab.core.checks import check_real
from schedlab.core.knobs import GemmConfig
from schedlab.core.stats import Interval

__all__ = [
    "MISSING",
    "Table",
    "fmt_share",
    "fmt_time",
    "fmt_whole",
    "fmt_tflops",
    "fmt_trials",
    "fmt_ratio",
    "fmt_percent",
    "fmt_config",
    "fmt_interval",
]

#: Placeholder for "no number": a configuration that cannot launch, an infinite time.
MISSING = "—"


@dataclass(frozen=True)
class Table:
    """A formatted table: a title, column headers and rows, all strings.

    Parameters
    ----------
    title : str
        One line saying what the table shows (may be empty).
    headers : tuple of str
        Column headers.
    rows : tuple of tuple of str
        Cells; every row has one cell per header. Lists are converted to tuples.

    Raises
    ------
    ValueError
        If a cell or header is not a ``str`` or a row's length differs from the headers'.

    Examples
    --------
    >>> t = Table("例子", ("a", "b"), [("1", "<2>")])
    >>> t.rows
    (('1', '<2>'),)
    >>> Table("bad", ("a", "b"), [("1",)])
    Traceback (most recent call last):
    ...
    ValueError: row 0 has 1 cells, expected 2 (one per header)
    """

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def __post_init__(self):
        if not isinstance(self.title, str):
            raise ValueError(f"title must be a str, got {type(self.title).__name__}")
        headers = tuple(self.headers)
        rows = tuple(tuple(row) for row in self.rows)
        for h in headers:
            if not isinstance(h, str):
                raise ValueError(f"headers must be str, got {h!r}")
        for i, row in enumerate(rows):
            if len(row) != len(headers):
                raise ValueError(f"row {i} has {len(row)} cells, expected {len(headers)} (one per header)")
            for cell in row:
                if not isinstance(cell, str):
                    raise ValueError(f"row {i}: cells must be str (format them in schedlab.render), got {cell!r}")
        object.__setattr__(self, "headers", headers)
        object.__setattr__(self, "rows", rows)

    def column(self, header: str) -> tuple[str, ...]:
        """The cells under ``header``.

        Examples
        --------
        >>> Table("", ("a", "b"), [("1", "2"), ("3", "4")]).column("b")
        ('2', '4')
        """
        j = self.headers.index(header)
        return tuple(row[j] for row in self.rows)

    def to_html(self) -> str:
        """A plain ``<table>`` (title as ``<caption>``), every string HTML-escaped.

        In a cell, the no-break space before an interval's ``[`` (:func:`fmt_interval`) is written as
        ``<span class="interval-gap"> </span>``: a plain space that the book's stylesheet keeps from
        breaking on screen (the table's box scrolls) and lets break on paper, so a printed cell wraps
        between an estimate and its interval, never inside a number.

        Examples
        --------
        >>> print(Table("x<y", ("a",), [("&",)]).to_html())
        <table>
        <caption>x&lt;y</caption>
        <thead><tr><th>a</th></tr></thead>
        <tbody>
        <tr><td>&amp;</td></tr>
        </tbody>
        </table>
        >>> Table("", ("n",), [(fmt_interval(Interval(18.0, 17.0, 20.0)),)]).to_html().splitlines()[3]
        '<tr><td>18<span class="interval-gap"> </span>[17,\xa020]</td></tr>'
        """
        esc = html.escape
        lines = ["<table>"]
        if self.title:
            lines.append(f"<caption>{esc(self.title)}</caption>")
        lines.append("<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in self.headers) + "</tr></thead>")
        lines.append("<tbody>")
        lines.extend("<tr>" + "".join(f"<td>{_cell_html(c)}</td>" for c in row) + "</tr>" for row in self.rows)
        lines.append("</tbody>")
        lines.append("</table>")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A MyST pipe table (title as the ``table`` directive's caption), Markdown's marks escaped.

        The book's PDF takes this form of a table (the LaTeX builder renders no HTML); a web page
        shows :meth:`to_html`.

        Examples
        --------
        >>> print(Table("a|b", ("x", "y*"), [("1.00*", "$2")]).to_markdown())
        :::{table} a\\|b
        | x | y\\* |
        | --- | --- |
        | 1.00\\* | \\$2 |
        :::
        """
        cells = [self.headers, *self.rows]
        lines = ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in cells]
        lines.insert(1, "| " + " | ".join("---" for _ in self.headers) + " |")
        if self.title:
            lines = [f":::{{table}} {_md_escape(self.title)}", *lines, ":::"]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """Jupyter shows a Table left as a cell's last expression as :meth:`to_html`."""
        return self.to_html()

    def _repr_markdown_(self) -> str:
        """The same table as :meth:`to_markdown`, for outputs that render no HTML (the PDF)."""
        return self.to_markdown()


#: A word at least this long (a source file's path, an identifier) may break after ``/``, ``_`` or ``.``.
_LONG_WORD = 25


def _cell_html(text: str) -> str:
    """A cell's ``text`` HTML-escaped, each no-break space before ``[`` a space that may break only in print.

    A word of :data:`_LONG_WORD` characters or more gets a ``<wbr>`` after each ``/``, ``_`` and ``.``:
    a path such as ``third_party/nvidia/lib/.../LoadStoreOpToLLVM.cpp`` wraps inside its column
    instead of widening the table past the page.

    Examples
    --------
    >>> _cell_html("see lib/Analysis/Utility.cpp_and_more here")
    'see lib/<wbr>Analysis/<wbr>Utility.<wbr>cpp_<wbr>and_<wbr>more here'
    >>> _cell_html("a/b.c")
    'a/b.c'
    """
    words = []
    for word in re.split(r"(\s+)", text):
        if len(word) >= _LONG_WORD and not word.isspace():
            word_html = "<wbr>".join(html.escape(piece) for piece in re.split(r"(?<=[/_.])", word))
        else:
            word_html = html.escape(word)
        words.append(word_html)
    return "".join(words).replace("\u00a0[", '<span class="interval-gap"> </span>[')


def _md_escape(text: str) -> str:
    """``text`` with every mark MyST could read as markup backslash-escaped, on one line."""
    return re.sub(r"([\\`*_{}\[\]<>|$~!&#])", r"\\\1", " ".join(text.split()))


# --- numbers ------------------------------------------------------------------------------

# (unit, seconds per unit, decimals), smallest first
_TIME_UNITS = (("ns", 1e-9, 0), ("µs", 1e-6, 1), ("ms", 1e-3, 2), ("s", 1.0, 2))


def fmt_time(seconds) -> str:
    """A duration for people: ns without decimals, µs with one, ms and s with two.

    ``inf`` (a configuration that cannot launch) and NaN give ``"—"``.

    Parameters
    ----------
    seconds : float
        Time in seconds (numpy scalars are fine).

    Examples
    --------
    >>> fmt_time(149.04e-6), fmt_time(1.2345e-3), fmt_time(850e-9), fmt_time(float("inf"))
    ('149.0 µs', '1.23 ms', '850 ns', '—')
    >>> fmt_time(0.99996e-3), fmt_time(2.5), fmt_time(0)
    ('1.00 ms', '2.50 s', '0 ns')
    """
    s = check_real(seconds, "seconds")
    if not math.isfinite(s):
        return MISSING
    for i, (unit, scale, decimals) in enumerate(_TIME_UNITS):
        value = round(abs(s) / scale, decimals)
        if value < 1000 or i == len(_TIME_UNITS) - 1:  # rounding up to 1000 moves to the next unit
            return f"{math.copysign(value, s) if s < 0 else value:.{decimals}f} {unit}"
    raise AssertionError("unreachable")


def fmt_whole(x) -> str:
    """A number without decimals: TFLOP/s (the model's absolute numbers deserve no more), a count
    of measurements; ``"—"`` for ``inf`` (a goal not reached in the budget) or NaN.

    :func:`fmt_trials` is this function, named for what it shows.

    Examples
    --------
    >>> fmt_whole(922.108), fmt_whole(18.0), fmt_whole(float("inf")), fmt_whole(float("nan"))
    ('922', '18', '—', '—')
    """
    value = check_real(x, "x")
    return f"{value:.0f}" if math.isfinite(value) else MISSING


def fmt_tflops(x) -> str:
    """TFLOP/s: without decimals from 10 up (:func:`fmt_whole`), with two significant digits below.

    Examples
    --------
    >>> fmt_tflops(922.108), fmt_tflops(3.44), fmt_tflops(0.0634), fmt_tflops(0.0), fmt_tflops(float("inf"))
    ('922', '3.4', '0.063', '0', '—')
    """
    value = check_real(x, "x")
    if not math.isfinite(value) or abs(value) >= 10 or value == 0:
        return fmt_whole(value)
    return np.format_float_positional(value, precision=2, unique=False, fractional=False, trim="-")


#: A number of measurements (:func:`fmt_whole`).
fmt_trials = fmt_whole


def fmt_ratio(ratio, decimals: int = 2) -> str:
    """A time ratio such as ``3.37``; ``"—"`` for ``inf`` (cannot launch).

    Examples
    --------
    >>> fmt_ratio(3.3714), fmt_ratio(1.0, 3), fmt_ratio(float("inf"))
    ('3.37', '1.000', '—')
    """
    x = check_real(ratio, "ratio")
    return f"{x:.{decimals}f}" if math.isfinite(x) else MISSING


def fmt_percent(fraction, decimals: int | None = 0) -> str:
    """A fraction as a percentage: rounded to ``decimals`` places, or with ``decimals=None`` a setting
    shown as given (six significant digits, no trailing zeros). Every percentage printed goes through here
    (:func:`fmt_share` only chooses the decimals).

    Examples
    --------
    >>> fmt_percent(0.624), fmt_percent(0.9321, 1)
    ('62%', '93.2%')
    >>> fmt_percent(0.05, None), fmt_percent(0.025, None)
    ('5%', '2.5%')
    """
    x = check_real(fraction, "fraction")
    if not math.isfinite(x):
        return MISSING
    return f"{100 * x:.6g}%" if decimals is None else f"{100 * x:.{decimals}f}%"


def fmt_share(fraction, decimals: int = 0) -> str:
    """A share as a percentage that never shows a nonzero share as 0 % or a share under one as 100 %.

    More decimals are shown until the rounding no longer hides it (at most 6, then ``<`` / ``>``).

    Examples
    --------
    >>> fmt_share(0.75), fmt_share(1 - 3 / 240_000), fmt_share(1e-9), fmt_share(1.0), fmt_share(0.0)
    ('75%', '99.999%', '<0.000001%', '100%', '0%')
    """
    x = check_real(fraction, "fraction")
    if not math.isfinite(x):
        return MISSING
    for d in range(decimals, 7):
        text = fmt_percent(x, d)
        shown = float(text[:-1])
        if (shown != 0 or x == 0) and (shown != 100 or x == 1):
            return text
    return "<" + fmt_percent(1e-8, 6) if x < 0.5 else ">" + fmt_percent(1 - 1e-8, 6)


def fmt_interval(iv: Interval, percent: bool = False) -> str:
    """``estimate [low, high]`` of an :class:`~schedlab.core.stats.Interval`, joined by no-break spaces.

    Each number is whole (:func:`fmt_whole`), ``—`` for an infinite or missing end; with
    ``percent`` the statistic is a share, shown as a whole percentage with its ends in percent.
    The no-break spaces keep a cell on one line in a narrow HTML column (:meth:`Table.to_html` lets the
    one before ``[`` break on paper only).

    Examples
    --------
    >>> fmt_interval(Interval(18.0, 17.0, 20.0)), fmt_interval(Interval(float("inf"), 200.0, float("inf")))
    ('18\\xa0[17,\\xa020]', '—\\xa0[200,\\xa0—]')
    >>> fmt_interval(Interval(0.7, 0.6, 0.78), percent=True)
    '70%\\xa0[60,\\xa078]'
    """
    if not isinstance(iv, Interval):
        raise ValueError(f"iv must be a schedlab.core.stats.Interval, got {type(iv).__name__}")
    scale, unit = (100, "%") if percent else (1, "")
    estimate, low, high = (fmt_whole(scale * x) for x in iv[:3])
    return f"{estimate}{unit}\u00a0[{low},\u00a0{high}]"


def fmt_config(cfg: GemmConfig) -> str:
    """A configuration as its knob tuple, in ``SPACE`` order.

    Examples
    --------
    >>> fmt_config(GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1))
    '(256, 128, 32, 8, 4, 1)'
    """
    if not isinstance(cfg, GemmConfig):
        raise ValueError(f"cfg must be a GemmConfig, got {type(cfg).__name__}")
    return str(cfg.as_tuple())
