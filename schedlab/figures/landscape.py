"""Figures of the landscape page (demo 2): how the launchable configurations' times spread."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, PercentFormatter

from schedlab.core.landscape import Landscape
from schedlab.figures.style import fmt_times, new_figure
from schedlab.render.labels import lecture_name

__all__ = ["landscape_cdf"]


# --- demo 2: the landscape --------------------------------------------------------------


def landscape_cdf(landscape: Landscape) -> Figure:
    """Distribution of time/best over the launchable configurations (CDF, log x).

    Vertical lines at 1.05× and 2× carry :meth:`Landscape.n_within`; the median
    (:meth:`Landscape.quantiles`) is marked on the curve.

    Parameters
    ----------
    landscape : Landscape
        Model times of every launchable configuration on one shape.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; ``ax.lines[0]`` is the CDF (x: sorted time/best, y: cumulative fraction).
    """
    ratio = np.sort(np.asarray(landscape.ratio, dtype=float))
    n = ratio.size
    frac = np.arange(1, n + 1) / n
    fig = new_figure(4 / 7)
    ax = fig.subplots()
    ax.step(ratio, frac, where="post", color="C0", linewidth=1.8, label="配置的累积比例")
    ax.set_xscale("log")
    ax.set_xlim(0.95, ratio[-1] * 1.15)
    ax.set_ylim(0, 1.09)
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(fmt_times))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_yticks(np.linspace(0, 1, 6))

    for factor, y_text, color in ((1.05, 0.92, "C2"), (2.0, 0.76, "C1")):
        k = landscape.n_within(factor)
        ax.axvline(factor, color=color, linestyle="--", linewidth=1.2)
        ax.text(
            factor * 1.04,
            y_text,
            f"{factor:g}× 以内：{k} 个（{k / n:.1%}）",
            color=color,
            fontsize=9,
            va="center",
            bbox=dict(facecolor="white", edgecolor="none", pad=1.0),
        )
        ax.plot([factor], [k / n], "o", color=color, markersize=5, zorder=3)
    median = landscape.quantiles((50,))[50]
    ax.plot([median], [0.5], "o", color="C3", markersize=6, zorder=3)
    ax.annotate(
        f"中位数：慢 {median:.2f} 倍",
        xy=(median, 0.5),
        xytext=(median * 1.5, 0.38),
        fontsize=9,
        color="C3",
        arrowprops=dict(arrowstyle="-", color="C3", linewidth=0.8),
    )
    ax.annotate(
        f"最慢 {ratio[-1]:.1f}×",
        xy=(ratio[-1], 1.0),
        xytext=(0, 4),
        textcoords="offset points",
        ha="right",
        va="bottom",
        fontsize=8.5,
        color="#444444",
    )
    ax.set_xlabel("时间 / 最快配置的时间（对数坐标）")
    ax.set_ylabel("配置的累积比例")
    ax.set_title(f"{lecture_name(landscape.shape)}：{n} 个能启动的配置离最快有多远")
    return fig
