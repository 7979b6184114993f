"""Figures of the search chapter: best so far, measurement by measurement (:mod:`schedlab.tuning`)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from schedlab.core.shapes import as_mnk
from schedlab.figures.style import fmt_times, new_figure, text_color
from schedlab.render.labels import lecture_name, strategy_label
from schedlab.render.table import fmt_percent
from schedlab.tuning.compare import Comparison

__all__ = ["search_curves"]


# --- search: best so far, measurement by measurement ------------------------------------------


def search_curves(comparison: Comparison, shape) -> Figure:
    """Best-so-far curves on one shape, one panel per strategy: median and 10–90 % band over the seeds.

    After ``k`` measurements a tuner believes the best-measured config is best; the curve
    is that config's true time over the shape's optimum: ``comparison.curve_median`` as a
    line, ``curve_p10`` .. ``curve_p90`` as a band. Every panel also shows the other
    strategies' medians in grey, so the panels compare at a glance. Both axes are
    logarithmic; a dashed line marks the goal, ``comparison.factor``. A panel's title gives
    the strategy's median trials to the goal (:meth:`Comparison.cell`).

    Parameters
    ----------
    comparison : Comparison
        Output of :func:`schedlab.tuning.compare.compare`.
    shape : Shape, (M, N, K) or int
        A shape of the comparison (or its index).

    Returns
    -------
    matplotlib.figure.Figure
        One axes per strategy, in ``comparison.strategies`` order; in each, ``ax.lines[0]``
        is the strategy's median (x: measurements ``1 .. budget``) and ``ax.collections[0]``
        its band.
    """
    i = comparison.shape_index(shape)
    mnk = as_mnk(comparison.shapes[i])
    names = comparison.strategies
    x = np.arange(1, comparison.budget + 1)
    ncols = min(2, len(names))
    nrows = -(-len(names) // ncols)
    fig = new_figure(0.34 * nrows + 0.12)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, sharex=True, sharey=True)).ravel()
    top = max(float(np.max(comparison.curve_p90[i])), comparison.factor)
    goal = fmt_percent(comparison.factor - 1, None)
    for j, (ax, name) in enumerate(zip(axes, names)):
        # a palette colour darkened to 3:1 on white (WCAG's contrast for graphics): the yellow's line
        # and band were too pale to see
        color = text_color(f"C{j}", target=3.0)
        ax.plot(x, comparison.curve_median[i, j], color=color, linewidth=1.8, zorder=3)
        ax.fill_between(
            x, comparison.curve_p10[i, j], comparison.curve_p90[i, j], color=color, alpha=0.2, linewidth=0.0, zorder=2
        )
        for other in range(len(names)):
            if other != j:
                ax.plot(x, comparison.curve_median[i, other], color="#b5b5b5", linewidth=0.8, zorder=1)
        ax.axhline(comparison.factor, color="#555555", linestyle="--", linewidth=0.9, zorder=2.5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        median = comparison.cell(i, name).estimate
        reached = f"中位数 {median:.0f} 次" if np.isfinite(median) else "过半没到"
        ax.set_title(f"{strategy_label(name)}\n{reached}", fontsize=10, color=text_color(color))
    ax0 = axes[0]
    ax0.set_xlim(1, comparison.budget)
    ax0.set_ylim(0.97, top * 1.15)
    ax0.yaxis.set_major_locator(FixedLocator([t for t in (1, 2, 5, 10, 20, 50, 100) if t <= top * 1.15]))
    ax0.yaxis.set_major_formatter(FuncFormatter(fmt_times))
    ax0.yaxis.set_minor_locator(NullLocator())
    ax0.xaxis.set_major_locator(
        FixedLocator([t for t in (1, 3, 10, 30, 100, 300, 1000, 3000) if t <= comparison.budget])
    )
    ax0.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos=None: f"{v:.0f}"))
    ax0.xaxis.set_minor_locator(NullLocator())
    for ax in axes[len(names) :]:
        ax.set_visible(False)
    for ax in axes[::ncols]:
        ax.set_ylabel("时间 / 最优")
    for ax in axes[(nrows - 1) * ncols :]:
        ax.set_xlabel("测量次数")
    handles = [
        Line2D([], [], color="#333333", linewidth=1.8, label="这个策略：中位数"),
        Patch(facecolor="#333333", alpha=0.2, label="10%–90% 的种子"),
        Line2D([], [], color="#b5b5b5", linewidth=0.8, label="其他策略的中位数"),
        Line2D([], [], color="#555555", linestyle="--", linewidth=0.9, label=f"最优的 {goal} 以内"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=9)
    fig.suptitle(
        f"{lecture_name(mnk)}\n测了 k 次之后，相信的最优配置有多好（{len(comparison.seeds)} 个种子）", fontsize=11
    )
    return fig
