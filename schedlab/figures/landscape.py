"""Figures of the landscape page (demo 2): how the launchable configurations' times spread."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, PercentFormatter

from schedlab.core.knobs import SPACE
from schedlab.core.landscape import Landscape
from schedlab.figures.style import Interactive, fmt_times, new_figure, text_color
from schedlab.render.labels import CONFIG_HEADER, KNOB_LABELS, lecture_name
from schedlab.render.table import fmt_percent

__all__ = ["landscape_cdf", "landscape_explorer"]


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
            f"{factor:g}× 以内：{k} 个（{fmt_percent(k / n, 1)}）",
            color=text_color(color),
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
        color=text_color("C3"),
        arrowprops=dict(arrowstyle="-", color="C3", linewidth=0.8),
    )
    ax.annotate(
        f"最慢 {ratio[-1]:.1f}×",
        xy=(ratio[-1], 1.0),
        xytext=(0, 4),
        textcoords="offset points",
        ha="right",
        va="bottom",
        fontsize=9,
        color="#444444",
    )
    ax.set_xlabel("时间 / 最快配置的时间（对数坐标）")
    ax.set_ylabel("配置的累积比例")
    ax.set_title(f"{lecture_name(landscape.shape)}：{n} 个能启动的配置离最快有多远")
    return fig


def landscape_explorer(landscape: Landscape) -> Interactive:
    """:func:`landscape_cdf` to explore: each configuration a point, its config and time on hover.

    The points are the CDF's steps (x: time / best, log; y: share of configurations at most that
    slow). A menu picks a knob; the points are then coloured by that knob's value, one legend
    entry per value, and clicking an entry hides or shows those configurations (double-click:
    only those). The static twin for paper is :func:`landscape_cdf`.

    Returns
    -------
    Interactive
        ``plot.data`` holds one trace per (knob, value), knobs in ``SPACE`` order; only the first
        knob's traces are visible at first. Every configuration is in exactly one trace per knob.
    """
    import plotly.graph_objects as go

    ratio = np.asarray(landscape.ratio, dtype=float)
    order = np.argsort(ratio, kind="stable")
    n = ratio.size
    share = np.empty(n)
    share[order] = np.arange(1, n + 1) / n
    table = np.array([c.as_tuple() for c in landscape.configs])
    micros = np.asarray(landscape.time_s, dtype=float) * 1e6
    custom = np.column_stack([table, micros])
    knobs = list(SPACE)
    config_hover = ", ".join(f"%{{customdata[{j}]}}" for j in range(len(knobs)))
    plot = go.Figure()
    visible_by_knob = []
    for k, knob in enumerate(knobs):
        for value in SPACE[knob]:
            mask = table[:, k] == value
            if not mask.any():
                continue
            plot.add_trace(
                go.Scatter(
                    x=ratio[mask],
                    y=share[mask],
                    customdata=custom[mask],
                    mode="markers",
                    marker={"size": 6, "opacity": 0.75},
                    name=f"{value}",
                    legendgroup=knob,
                    visible=k == 0,
                    hovertemplate=(
                        f"{CONFIG_HEADER}<br>({config_hover})<br>"
                        f"%{{customdata[{len(knobs)}]:.1f}} µs，最快的 %{{x:.2f}} 倍<extra>{KNOB_LABELS[knob]} = {value}</extra>"
                    ),
                )
            )
            visible_by_knob.append(knob)
    buttons = [
        {
            "label": KNOB_LABELS[knob],
            "method": "update",
            "args": [{"visible": [v == knob for v in visible_by_knob]}, {"legend.title.text": KNOB_LABELS[knob]}],
        }
        for knob in knobs
    ]
    plot.update_layout(
        title={"text": f"{lecture_name(landscape.shape)}：{n} 个能启动的配置", "font": {"size": 15}},
        xaxis={"type": "log", "title": "时间 / 最快配置的时间（对数坐标）"},
        yaxis={"title": "配置的累积比例", "tickformat": ".0%", "range": [0, 1.04]},
        legend={"title": {"text": KNOB_LABELS[knobs[0]]}, "orientation": "h", "y": -0.22, "x": 0},
        updatemenus=[
            {"buttons": buttons, "direction": "down", "x": 0, "y": 1.02, "xanchor": "left", "yanchor": "bottom"}
        ],
        margin={"l": 60, "r": 10, "t": 90, "b": 40},
        height=480,
        template="plotly_white",
        font={"size": 13},
    )
    return Interactive(plot, landscape_cdf(landscape))
