"""Figures of the lecture: analysis records in, :class:`matplotlib.figure.Figure` out.

Every function here is pure: it reads the records of :mod:`schedlab.studies`
(or asks :mod:`schedlab.core.space` which configurations launch) and draws them; no
number is computed twice. The figures are built with :class:`~matplotlib.figure.Figure`
directly, not through :mod:`matplotlib.pyplot`, so nothing is registered with a
GUI or notebook backend and nothing needs closing; in a notebook a returned figure
still displays once (it has ``_repr_png_``). Every figure is made in the lecture's
style (:func:`~schedlab.figures.style.apply_style`: ``schedlab/figures/matplotlibrc``,
a CJK font included), on the site, in a notebook and from the console alike.

One module per topic: :mod:`~schedlab.figures.style` (what every figure shares), then one
module per chapter (:mod:`~schedlab.figures.space`, :mod:`~schedlab.figures.search`, ...);
the labels come from :mod:`schedlab.render.labels`. This face re-exports every name of
every module's ``__all__``, so ``figures.launch_map()`` works, importing a module on first
use (:func:`schedlab.faces.lazy_face`). A new chapter is a new module with an ``__all__``;
no list here names it.

Examples
--------
>>> from schedlab.studies.shapes import transfer
>>> from schedlab.figures import transfer_heatmap
>>> fig = transfer_heatmap(transfer())
>>> len(fig.axes)  # the heat map and its colour bar
2
"""

from __future__ import annotations

from schedlab.faces import lazy_face

__getattr__, __dir__ = lazy_face(__name__, __path__)
