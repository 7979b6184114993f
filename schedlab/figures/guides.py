"""Figure of the guides chapter: how many trials each guide needs as the truth drifts from the model."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
from matplotlib.transforms import ScaledTranslation

from schedlab.core.shapes import as_mnk
from schedlab.figures.style import new_figure
from schedlab.render.labels import TUNER_LABELS, lecture_short
from schedlab.studies.guides import GUIDED, GuideStudy

__all__ = ["guide_sweep"]

#: Sideways shift of each series at a shared sigma, points, so that their intervals stand side by side.
_DODGE_PT = 3.0


def _signed_sqrt(v):
    """The sigma axis's scale: the square root, continued as an odd function left of zero (the margin)."""
    return np.sign(v) * np.sqrt(np.abs(v))


def _signed_square(u):
    """The inverse of :func:`_signed_sqrt`."""
    return np.sign(u) * np.square(u)


def _spaced(values, gap):
    """The ``values`` (ascending) kept left to right, each at least ``gap`` past the last kept on the sigma scale.

    Examples
    --------
    >>> _spaced(np.array([0.0, 2.5, 5, 10, 15, 20, 30, 40]), 0.63).tolist()
    [0.0, 2.5, 5.0, 10.0, 15.0, 30.0, 40.0]
    """
    kept = [values[0]]
    for v in values[1:]:
        if _signed_sqrt(v) - _signed_sqrt(kept[-1]) >= gap:
            kept.append(v)
    return np.asarray(kept, dtype=float)


def _median_interval(ax, x, cells, top, color, style, shift_pt) -> None:
    """One tuner's medians as a line over ``x`` and their 95 % intervals as vertical bars, capped at ``top``.

    The whole series is drawn ``shift_pt`` points to the side of its ``x`` (the data keep the true
    sigma), so that the intervals of the tuners at one sigma do not cover each other.
    """
    med = np.array([min(c.estimate, top) for c in cells])
    lo = np.array([min(c.low, top) for c in cells])
    hi = np.array([min(c.high, top) for c in cells])
    shifted = ax.transData + ScaledTranslation(shift_pt / 72, 0, ax.get_figure().dpi_scale_trans)
    ax.plot(
        x, med, color=color, linestyle=style, linewidth=1.2, marker="o", markersize=3.5, zorder=3, transform=shifted
    )
    ax.vlines(x, lo, hi, color=color, linewidth=2.2, alpha=0.55, zorder=2, transform=shifted)


def guide_sweep(studies) -> Figure:
    """Median trials to 5 % against the field's sigma, one panel per study side by side (its field truths only).

    Each guided tuner is a line of medians with its bootstrap 95 % interval as a vertical bar at
    every sigma; the best blind tuner at each sigma (lowest median) is the black dashed line. The
    series at one sigma stand a few points apart, so each interval can be compared with the
    others. The sigma axis is on a square-root scale, so the small sigmas (0, 2.5 and 5 %) where
    the decode shape changes over get room. ``inf`` medians and bounds sit on a line at the top,
    whose tick reads "没到".

    Returns
    -------
    matplotlib.figure.Figure
        One axes per study, left to right; in each, the first ``len(GUIDED)`` lines are the guided tuners'
        medians (x: sigma in %) and the next is the best blind tuner's; ``ax.collections`` hold the
        intervals in the same order.
    """
    studies = tuple(studies)
    if not studies or not all(isinstance(s, GuideStudy) for s in studies):
        raise ValueError("studies must be a non-empty sequence of GuideStudy")
    fig = new_figure(0.95)
    axes = np.atleast_1d(fig.subplots(1, len(studies), sharey=True))
    top = max(s.budget for s in studies) * 1.6
    series = len(GUIDED) + 1
    shifts = (np.arange(series) - (series - 1) / 2) * _DODGE_PT
    highest, capped = 1.0, False
    for ax, study in zip(axes, studies):
        fields = [t for t in study.truths if t.kind == "field"]
        x = np.array([100 * t.sigma for t in fields])
        guided = [j for j, name in enumerate(GUIDED) if name in study.tuners]  # a tuner keeps its colour
        groups = [[study.cell(t, GUIDED[j]) for t in fields] for j in guided]
        groups.append([study.cell(t, study.best_blind(t)) for t in fields])
        styles = [(f"C{j}", "-") for j in guided] + [("#222222", "--")]
        for cells, (color, style), shift in zip(groups, styles, shifts[[*guided, series - 1]]):
            _median_interval(ax, x, cells, top, color, style, shift)
            bounds = np.array([(c.estimate, c.high) for c in cells], dtype=float)
            capped |= bool(np.any(~np.isfinite(bounds)) or np.any(bounds >= top))
            highest = max(highest, float(np.max(bounds[np.isfinite(bounds)], initial=1.0)))
        ax.set_xscale("function", functions=(_signed_sqrt, _signed_square))
        # every sigma gets a tick; a label only where it keeps clear of the last one
        ax.xaxis.set_major_locator(FixedLocator(_spaced(x, 0.1 * _signed_sqrt(x.max()))))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.xaxis.set_minor_locator(FixedLocator(x))
        ax.set_xlim(-0.4, x.max() * 1.2)
        ax.set_title(lecture_short(as_mnk(study.shape)), fontsize=10)
        ax.set_xlabel("σ（%，平方根刻度）")
    ax = axes[0]
    ax.set_yscale("log")
    ticks = [v for v in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if v < top]
    if capped:
        for a in axes:
            a.axhline(top, color="#999999", linewidth=0.8, zorder=1)
        ax.set_ylim(0.75, top * 1.25)
        ticks = [v for v in ticks if v < top / 1.6] + [top]
    else:
        ax.set_ylim(0.75, highest * 1.3)
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: "没到" if v == top else f"{v:g}"))
    ax.yaxis.set_minor_locator(NullLocator())
    axes[0].set_ylabel("到 5% 以内的测量次数")
    handles = [
        Line2D([], [], color=f"C{j}", linewidth=1.2, marker="o", markersize=3.5, label=TUNER_LABELS[n])
        for j, n in enumerate(GUIDED)
    ]
    handles += [
        Line2D(
            [], [], color="#222222", linestyle="--", linewidth=1.2, marker="o", markersize=3.5, label="最好的盲调优器"
        ),
        Line2D([], [], color="#888888", linewidth=2.2, alpha=0.55, label="竖条：95% 自助区间；点：中位数"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=9)
    return fig
