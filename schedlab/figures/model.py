"""Figures of the model page: where one configuration's time goes (:func:`schedlab.core.model.explain`)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from schedlab.core.model import TERMS, Breakdown
from schedlab.figures.style import new_figure, text_color
from schedlab.render.labels import TERM_LABELS

__all__ = ["breakdown_chart"]


# --- one configuration: where its time goes ---------------------------------------------


def breakdown_chart(breakdown: Breakdown) -> Figure:
    """Horizontal bars of the six per-k-step terms (first wave), in ns, bottleneck highlighted.

    A dashed line marks the k-step time the model charges (``t_step_s``); terms tied
    with the bottleneck are labelled as such.

    Parameters
    ----------
    breakdown : Breakdown
        Output of :func:`schedlab.core.model.explain`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; ``ax.containers[0]`` holds the bars in :data:`schedlab.core.model.TERMS` order.
    """
    terms = breakdown.terms()
    names = list(TERMS)
    ns = np.array([terms[k] * 1e9 for k in names])
    top = ns[names.index(breakdown.bottleneck)]
    fig = new_figure(0.56)
    ax = fig.subplots()
    ys = np.arange(len(names))
    colors = ["C1" if k == breakdown.bottleneck else "#9fb7cc" for k in names]
    bars = ax.barh(ys, ns, height=0.62, color=colors)
    ax.set_yticks(ys, [TERM_LABELS[k] for k in names])
    ax.invert_yaxis()
    step_ns = breakdown.t_step_s * 1e9
    x_max = max(float(np.nanmax(ns)), step_ns)
    ax.set_xlim(0, x_max * 1.1)
    for rect, k, v in zip(bars, names, ns):
        note = ""
        if k == breakdown.bottleneck:
            note = "  ← 瓶颈"
        elif np.isclose(v, top, rtol=1e-9):
            note = "  （与瓶颈持平）"
        # the values form a column right of the axes, one line each, so no label crosses the
        # k-step line or another row (the layout makes room for the column)
        ax.text(
            1.03,
            rect.get_y() + rect.get_height() / 2,
            f"{v:.1f} ns{note}",
            va="center",
            fontsize=9,
            color=text_color("C1") if k == breakdown.bottleneck else "#222222",
            transform=ax.get_yaxis_transform(),
        )
    ax.axvline(step_ns, color="#555555", linestyle="--", linewidth=1.0)
    ax.text(
        step_ns,
        -0.9,
        f"每个 k 步 {step_ns:.1f} ns",
        ha="center",
        va="bottom",
        fontsize=9,
        color="#444444",
        bbox=dict(facecolor="white", edgecolor="none", pad=1.0),
    )
    ax.set_ylim(len(names) - 0.5, -1.7)  # room above the bars for the k-step label, apart from the title
    ax.grid(axis="y", visible=False)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel("每个 k 步的时间（ns，第一波）")
    M, N, K = breakdown.shape
    ax.set_title(
        f"{breakdown.config.as_tuple()} 在 {M}×{N}×{K} 上：{breakdown.tflops:.0f} TFLOPS，\n"
        f"{breakdown.waves} 波 × {breakdown.k_steps} 步，每 SM {breakdown.blocks_per_sm} 块",
        fontsize=10,
    )
    return fig
