"""What every figure shares: a figure that shows itself in a notebook, and the ratio ticks."""

from __future__ import annotations

import io

from matplotlib import rcParams
from matplotlib.figure import Figure

__all__ = ["new_figure", "fmt_times"]


class _ShownFigure(Figure):
    """A :class:`~matplotlib.figure.Figure` that IPython shows as PNG on its own.

    A figure made without :mod:`matplotlib.pyplot` is known to no backend, so a notebook
    shows it only as ``<Figure ...>`` unless ``%matplotlib inline`` registered a formatter.
    ``_repr_png_`` makes it display (and ``myst_nb.glue`` store it) in any kernel; where the
    inline backend is active its formatter takes precedence, and the figure still appears once.
    """

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=self.dpi, bbox_inches="tight")
        return buf.getvalue()


def new_figure(height_ratio: float, width: float | None = None) -> Figure:
    """A constrained-layout figure as wide as the rc default, ``height_ratio`` times as tall."""
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
