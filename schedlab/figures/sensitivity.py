"""Figures of the sensitivity page (demo 4): one knob at a time around a base configuration."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from schedlab.core.knobs import SPACE
from schedlab.figures.style import fmt_times, new_figure, text_color
from schedlab.render.labels import KNOB_GLOSSES, KNOB_LABELS, lecture_name
from schedlab.studies.sensitivity import Sensitivity

__all__ = ["sensitivity_chart"]


_INFEASIBLE = "#9a9a9a"  # hatch colour of "不能启动"


# --- demo 4: one knob at a time ---------------------------------------------------------


def sensitivity_chart(sensitivity: Sensitivity) -> Figure:
    """One panel per knob: time/base for each of its values, the other knobs at the base.

    Bars (log y, shared) give ``time / base`` for the values that launch, annotated;
    values that cannot launch are a hatched column labelled 不能启动; the base
    configuration's own value is the highlighted bar.

    Parameters
    ----------
    sensitivity : Sensitivity
        Output of :func:`schedlab.studies.sensitivity.sensitivity`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per knob, in ``SPACE`` order; ``ax.containers[0]`` holds the finite bars.
    """
    knobs = list(sensitivity.ratios)
    finite = np.array([r for k in knobs for _, r in sensitivity.ratios[k] if np.isfinite(r)] or [1.0])
    lo = min(1.0, float(finite.min())) / 1.25
    hi = max(1.0, float(finite.max())) * 1.9
    ncols = 2
    nrows = -(-len(knobs) // ncols)
    fig = new_figure(0.36 * nrows + 0.08)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, sharey=True)).ravel()
    base = dict(zip(SPACE, sensitivity.base.as_tuple()))
    for ax, knob in zip(axes, knobs):
        pairs = sensitivity.ratios[knob]
        xs = np.arange(len(pairs))
        ok = [(x, v, r) for x, (v, r) in zip(xs, pairs) if np.isfinite(r)]
        colors = ["C1" if v == base.get(knob) else "C0" for _, v, _ in ok]
        ax.set_yscale("log")
        ax.set_ylim(lo, hi)
        bars = ax.bar([x for x, _, _ in ok], [r for _, _, r in ok], width=0.7, color=colors)
        for rect, (_, _, r) in zip(bars, ok):
            ax.text(rect.get_x() + rect.get_width() / 2, r * 1.06, f"{r:.2f}", ha="center", va="bottom", fontsize=9)
        for x, (_, r) in zip(xs, pairs):
            if not np.isfinite(r):
                ax.axvspan(x - 0.35, x + 0.35, facecolor="none", edgecolor=_INFEASIBLE, hatch="///", linewidth=0.0)
                ax.text(
                    x,
                    np.sqrt(lo * hi),
                    "不能启动",
                    rotation=90,
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="#444444",
                    bbox=dict(facecolor="white", edgecolor="none", pad=1.0),
                )
        ax.axhline(1.0, color="#555555", linewidth=0.8, zorder=0.5)
        ax.set_xticks(xs, [str(v) for v, _ in pairs])
        for label, (v, _) in zip(ax.get_xticklabels(), pairs):
            if v == base.get(knob):
                label.set_color(text_color("C1"))
        ax.set_xlim(-0.6, len(pairs) - 0.4)
        ax.grid(axis="x", visible=False)
        name, gloss = KNOB_LABELS.get(knob, knob), KNOB_GLOSSES.get(knob, "")
        ax.set_title(f"{name}（{gloss}）" if gloss else name, fontsize=10)
    ax0 = axes[0]
    ax0.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax0.yaxis.set_major_formatter(FuncFormatter(fmt_times))
    ax0.yaxis.set_minor_formatter(NullFormatter())
    for ax in axes[::ncols]:
        ax.set_ylabel("时间 / 基准")
    for ax in axes[len(knobs) :]:
        ax.set_visible(False)
    handles = [
        Patch(facecolor="C1", label="基准配置的取值"),
        Patch(facecolor="C0", label="改成这个取值"),
        Patch(facecolor="none", edgecolor=_INFEASIBLE, hatch="///", label="不能启动"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=2)
    fig.suptitle(f"{lecture_name(sensitivity.shape)}\n在 {sensitivity.base.as_tuple()} 附近一次只改一个旋钮")
    return fig
