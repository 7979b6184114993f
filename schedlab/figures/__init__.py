"""Figures of the lecture: analysis records in, :class:`matplotlib.figure.Figure` out.

Every function here is pure: it reads the records of :mod:`schedlab.studies`
(or asks :mod:`schedlab.core.launch` which configurations launch) and draws them; no
number is computed twice. The figures are built with :class:`~matplotlib.figure.Figure`
directly, not through :mod:`matplotlib.pyplot`, so nothing is registered with a
GUI or notebook backend and nothing needs closing; in a notebook a returned figure
still displays once (it has ``_repr_png_``). Every figure is made in the lecture's
style (:func:`~schedlab.figures.style.apply_style`: ``schedlab/figures/matplotlibrc``,
a CJK font included), on the site, in a notebook and from the console alike.

One module per topic, each imported by name from the module that defines it (this package
re-exports nothing): :mod:`~schedlab.figures.style` (what every figure shares), then one
module per chapter (:mod:`~schedlab.figures.space`, :mod:`~schedlab.figures.search`, ...);
the labels come from :mod:`schedlab.render.labels`.

Examples
--------
>>> from schedlab.studies.shapes import transfer
>>> from schedlab.figures.shapes import transfer_heatmap
>>> fig = transfer_heatmap(transfer())
>>> len(fig.axes)  # the heat map and its colour bar
2
"""
