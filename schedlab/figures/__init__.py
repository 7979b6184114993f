"""Figures of the lecture: analysis records in, :class:`matplotlib.figure.Figure` out.

Every function here is pure: it reads the records of :mod:`schedlab.studies`
(or asks :mod:`schedlab.core.space` which configurations launch) and draws them; no
number is computed twice. The figures are built with :class:`~matplotlib.figure.Figure`
directly, not through :mod:`matplotlib.pyplot`, so nothing is registered with a
GUI or notebook backend and nothing needs closing; in a notebook a returned figure
still displays once (it has ``_repr_png_``). Fonts and style are not set
here: the book's ``book/matplotlibrc`` sets them (a CJK font is needed for the
Chinese labels).

One module per topic: :mod:`~schedlab.figures.style` (what every figure shares),
:mod:`~schedlab.figures.demos` (the four demos, the roofline and ``explain``),
:mod:`~schedlab.figures.gpus` (the GPU chapter),
:mod:`~schedlab.figures.search`, :mod:`~schedlab.figures.buckets` and :mod:`~schedlab.figures.guides`; the labels come from
:mod:`schedlab.render.labels`. This face re-exports the figures, so ``figures.launch_map()`` works.

Examples
--------
>>> from schedlab.studies.shapes import transfer
>>> fig = transfer_heatmap(transfer())
>>> len(fig.axes)  # the heat map and its colour bar
2
"""

from __future__ import annotations

from schedlab.figures.buckets import bucket_optima, tile_map
from schedlab.figures.demos import (breakdown_chart, landscape_cdf, launch_map, roofline, sensitivity_chart, transfer_heatmap)
from schedlab.figures.gpus import gpu_landscapes, hardware_transfer_grid
from schedlab.figures.guides import guide_sweep
from schedlab.figures.search import search_curves

__all__ = [
    "launch_map",
    "landscape_cdf",
    "transfer_heatmap",
    "sensitivity_chart",
    "roofline",
    "breakdown_chart",
    "search_curves",
    "gpu_landscapes",
    "hardware_transfer_grid",
    "bucket_optima",
    "tile_map",
    "guide_sweep",
]
