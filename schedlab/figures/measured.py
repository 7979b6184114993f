"""Figures of the measured-landscape page (:mod:`schedlab.studies.measured`): how rare the good configs are, and search on them."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from schedlab.figures.style import fmt_times, new_figure
from schedlab.render.labels import strategy_label
from schedlab.render.table import fmt_percent
from schedlab.studies.measured import MeasuredComparison

__all__ = ["measured_landscapes"]


def measured_landscapes(ratios, comparison: MeasuredComparison, strategy: str = "annealing", labels=None) -> Figure:
    """Two panels: the share of configurations within each ratio of the best, and one strategy's search on each.

    Parameters
    ----------
    ratios : mapping of str to ndarray
        Landscape name -> every configuration's time over the best.
    comparison : MeasuredComparison
        Its ``names`` must be the keys of ``ratios``; the right panel draws ``curves`` of ``strategy``.
    strategy : str
        The strategy whose median best-so-far curve is drawn on each landscape.
    labels : mapping of str to str, optional
        Landscape name -> legend label.

    Returns
    -------
    matplotlib.figure.Figure
        ``axes[0]``: one line per landscape, x: time / best (log), y: share of configurations
        at most that slow (log); ``axes[1]``: one line per landscape, x: measurements, y: the
        median believed-best time over the optimum. A dashed line marks the goal in both.

    Examples
    --------
    >>> c = MeasuredComparison(("a",), ("annealing",), (0, 1), 3, 1.05, np.ones((1, 1, 2)), np.ones((1, 1, 3)))
    >>> fig = measured_landscapes({"a": np.array([1.0, 1.5, 3.0])}, c)
    >>> len(fig.axes), len(fig.axes[0].lines)
    (2, 2)
    """
    if set(ratios) != set(comparison.names):
        raise ValueError(f"ratios must cover the comparison's landscapes {comparison.names}, got {tuple(ratios)}")
    labels = labels or {}
    j = comparison.strategies.index(strategy) if strategy in comparison.strategies else None
    if j is None:
        raise ValueError(f"strategy must be one of {comparison.strategies}, got {strategy!r}")
    fig = new_figure(0.72)
    left, right = fig.subplots(1, 2)
    for k, name in enumerate(comparison.names):
        r = np.sort(np.asarray(ratios[name], dtype=float))
        share = np.arange(1, len(r) + 1) / len(r)
        color = f"C{k}"
        left.step(r, share, where="post", color=color, label=labels.get(name, name))
        x = np.arange(1, comparison.budget + 1)
        right.plot(x, comparison.curves[k, j], color=color)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_yscale("log")
    left.axvline(comparison.factor, color="0.4", linestyle="--", linewidth=1)
    worst = max(float(np.max(r)) for r in ratios.values())
    left.xaxis.set_major_locator(FixedLocator([x for x in (1, 2, 5, 10, 20, 50, 100, 200) if x <= worst * 1.2]))
    left.xaxis.set_minor_locator(NullLocator())
    left.xaxis.set_major_formatter(FuncFormatter(fmt_times))
    rarest = min(1 / len(r) for r in ratios.values())
    decades = 10.0 ** np.arange(np.floor(np.log10(rarest)), 1)
    left.yaxis.set_major_locator(FixedLocator(decades))
    left.yaxis.set_minor_locator(NullLocator())
    left.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos: fmt_percent(y, None)))
    left.set_xlabel("时间 / 最快")
    left.set_ylabel("不比它慢的配置占比")
    # the legend below both panels (one colour per landscape in each): inside the left panel it
    # covered the curves exactly at the dashed 5 % line the caption asks the reader to look at
    fig.legend(handles=left.lines[: len(comparison.names)], loc="outside lower center", ncol=2, fontsize=9)
    right.axhline(comparison.factor, color="0.4", linestyle="--", linewidth=1)
    top = float(np.max(comparison.curves[:, j]))
    right.yaxis.set_major_locator(FixedLocator([y for y in (comparison.factor, 1.5, 2, 3, 5, 10, 20) if y <= top]))
    right.yaxis.set_minor_locator(NullLocator())
    right.yaxis.set_major_formatter(FuncFormatter(fmt_times))
    right.set_xlabel("测量次数")
    right.set_ylabel("相信的最优 / 最快（中位数）")
    right.set_title(strategy_label(strategy), fontsize="medium")
    return fig
