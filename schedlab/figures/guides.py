"""Figure of the guides chapter: how many trials each guide needs as the truth drifts from the model."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from schedlab.core.space import as_mnk
from schedlab.figures.style import new_figure
from schedlab.render.labels import TUNER_LABELS, lecture_name
from schedlab.studies.guides import GUIDED, GuideStudy

__all__ = ["guide_sweep"]


def _median_band(ax, x, cells, top, color, style, width) -> None:
    """One tuner's medians as a line over ``x`` and their intervals as a band, both capped at ``top``."""
    med = np.array([min(c.estimate, top) for c in cells])
    lo = np.array([min(c.low, top) for c in cells])
    hi = np.array([min(c.high, top) for c in cells])
    ax.plot(x, med, color=color, linestyle=style, linewidth=width, marker="o", markersize=3, zorder=3)
    ax.fill_between(x, lo, hi, color=color, alpha=0.15, linewidth=0, zorder=2)


def guide_sweep(studies) -> Figure:
    """Median trials to 5 % against the field's sigma, one panel per study (its field truths only).

    Each guided tuner is a line with its bootstrap 95 % band; the best blind tuner at each
    sigma (lowest median) is the black dashed line and grey band. ``inf`` medians sit on
    the top edge, marked "没到".

    Returns
    -------
    matplotlib.figure.Figure
        One axes per study; in each, the first ``len(GUIDED)`` lines are the guided tuners'
        medians and the next is the best blind tuner's.
    """
    studies = tuple(studies)
    if not studies or not all(isinstance(s, GuideStudy) for s in studies):
        raise ValueError("studies must be a non-empty sequence of GuideStudy")
    fig = new_figure(0.42)
    axes = np.atleast_1d(fig.subplots(1, len(studies), sharey=True))
    top = max(s.budget for s in studies) * 1.6
    for ax, study in zip(axes, studies):
        fields = [t for t in study.truths if t.kind == "field"]
        x = np.array([100 * t.sigma for t in fields])
        for j, name in enumerate(t for t in GUIDED if t in study.tuners):
            _median_band(ax, x, [study.cell(t, name) for t in fields], top, f"C{j}", "-", 1.6)
        _median_band(ax, x, [study.cell(t, study.best_blind(t)) for t in fields], top, "#222222", "--", 1.4)
        ax.set_yscale("log")
        ax.set_ylim(0.8, top * 1.05)
        ax.axhline(top, color="#999999", linewidth=0.6)
        ax.text(x[0], top * 0.93, "没到", fontsize=9, color="#595959", va="top")  # 7:1 on white
        ax.set_xlabel("模型没算到的效应 σ（%）")
        ax.set_title(lecture_name(as_mnk(study.shape)), fontsize=10)
    axes[0].set_ylabel("到 5% 以内的测量次数（中位数）")
    handles = [
        Line2D([], [], color=f"C{j}", linewidth=1.6, marker="o", markersize=3, label=TUNER_LABELS[n])
        for j, n in enumerate(GUIDED)
    ]
    handles += [
        Line2D([], [], color="#222222", linestyle="--", linewidth=1.4, label="最好的盲调优器"),
        Patch(facecolor="#888888", alpha=0.3, label="95% 自助区间"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=9)
    return fig
