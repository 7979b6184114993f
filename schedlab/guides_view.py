"""Tables and the figure of the guides chapter (:mod:`schedlab.guides`, :mod:`schedlab.surrogates`).

Every cell is ``median [lo–hi]``: the median trials to within 5 % over the seeds and its
bootstrap 95 % interval (:func:`schedlab.guides.median_ci`); ``—`` where it is ``inf`` (half
the seeds, or the resampled half, never got there in the budget).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .analysis import as_mnk
from .figures import _figure, _lecture_name
from .guides import BLIND, GUIDED, Cell, GuideStudy
from .render import STRATEGY_LABELS, Table, fmt_trials
from .surrogates import Ablation

__all__ = ["TUNER_LABELS", "SURROGATE_LABELS", "fmt_interval", "guide_table", "ablation_table", "guide_sweep"]

#: Tuner name -> how the page names it.
TUNER_LABELS = {
    "top-k model": "代价模型排序，测前 k 个",
    "top-k learned": "学到的模型排序，测前 k 个",
    "model-guided": STRATEGY_LABELS["model"],
    **{name: STRATEGY_LABELS[name] for name in BLIND},
}
#: Surrogate name -> how the page names it.
SURROGATE_LABELS = {
    "linear": "线性：6 个对数旋钮",
    "quadratic": "二次：对数旋钮及两两乘积",
    "one-hot": "独热：每个旋钮取值一个指示",
    "ours": "本章的特征（含模型的量）",
}


def fmt_interval(cell: Cell) -> str:
    """``median [lo–hi]`` of a :class:`~schedlab.guides.Cell`, joined by no-break spaces.

    Examples
    --------
    >>> fmt_interval(Cell(18.0, 17.0, 19.0, 23.0, 1.0)), fmt_interval(Cell(np.inf, 200.0, np.inf, np.inf, 0.4))
    ('18\\xa0[17–19]', '—\\xa0[200–—]')
    """
    return f"{fmt_trials(cell.median)}\u00a0[{fmt_trials(cell.lo)}–{fmt_trials(cell.hi)}]"


def _setting(x) -> str:
    return f"{len(x.seeds)} 个种子，预算 {x.budget} 次测量，测量噪声 {100 * x.noise:g}%"


def guide_table(study: GuideStudy, truths=None) -> Table:
    """One row per tuner, one column per truth: trials to within 5 % of the truth's optimum.

    Examples
    --------
    >>> from schedlab.guides import field_truth, guide_study
    >>> g = guide_study((4096, 4096, 4096), [field_truth(0.0)], ["top-k model"], seeds=range(4))
    >>> guide_table(g).rows
    (('代价模型排序，测前 k 个', '1\\xa0[1–1]'),)
    """
    if not isinstance(study, GuideStudy):
        raise ValueError(f"study must be a schedlab.guides.GuideStudy, got {type(study).__name__}")
    truths = study.truths if truths is None else tuple(truths)
    rows = tuple((TUNER_LABELS[t],) + tuple(fmt_interval(study.cell(truth, t)) for truth in truths)
                 for t in study.tuners)
    title = (f"{'×'.join(map(str, study.shape))}：测多少次，相信的最优才真的在真实最优的 5% 以内"
             f"（{_setting(study)}）。每格：中位数 [95% 自助区间]；— 表示过半的种子没到")
    return Table(title, ("调优器",) + tuple(getattr(t, "name", t) for t in truths), rows)


def ablation_table(ablation: Ablation) -> Table:
    """One row per surrogate, one column per shape: model-guided search's trials to within 5 %.

    Examples
    --------
    >>> from schedlab.surrogates import ablation
    >>> t = ablation_table(ablation([(4096, 4096, 4096)], ["ours"], seeds=range(4)))
    >>> t.headers, t.rows[0][0]
    (('代理模型', '4096×4096×4096'), '本章的特征（含模型的量）')
    """
    if not isinstance(ablation, Ablation):
        raise ValueError(f"ablation must be a schedlab.surrogates.Ablation, got {type(ablation).__name__}")
    rows = tuple((SURROGATE_LABELS[s],) + tuple(
        f"{fmt_interval(c)}\u00a0/\u00a0{fmt_trials(c.p90)}" for c in (ablation.cell(m, s) for m in ablation.shapes))
        for s in ablation.surrogates)
    title = (f"代价模型引导换用不同的代理模型，测多少次到最优的 5% 以内（{_setting(ablation)}）。"
             "每格：中位数 [95% 自助区间] / 90% 分位数")
    return Table(title, ("代理模型",) + tuple("×".join(map(str, m)) for m in ablation.shapes), rows)


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
    fig = _figure(0.42)
    axes = np.atleast_1d(fig.subplots(1, len(studies), sharey=True))
    top = max(s.budget for s in studies) * 1.6
    for ax, study in zip(axes, studies):
        fields = [t for t in study.truths if t.kind == "field"]
        x = np.array([100 * t.sigma for t in fields])

        def draw(cells, color, style, width):
            med = np.array([min(c.median, top) for c in cells])
            lo = np.array([min(c.lo, top) for c in cells])
            hi = np.array([min(c.hi, top) for c in cells])
            ax.plot(x, med, color=color, linestyle=style, linewidth=width, marker="o", markersize=3, zorder=3)
            ax.fill_between(x, lo, hi, color=color, alpha=0.15, linewidth=0, zorder=2)

        for j, name in enumerate(t for t in GUIDED if t in study.tuners):
            draw([study.cell(t, name) for t in fields], f"C{j}", "-", 1.6)
        draw([study.cell(t, study.best_blind(t)) for t in fields], "#222222", "--", 1.4)
        ax.set_yscale("log")
        ax.set_ylim(0.8, top * 1.05)
        ax.axhline(top, color="#999999", linewidth=0.6)
        ax.text(x[0], top * 0.93, "没到", fontsize=8, color="#777777", va="top")
        ax.set_xlabel("模型没算到的效应 σ（%）")
        ax.set_title(_lecture_name(as_mnk(study.shape)), fontsize=10)
    axes[0].set_ylabel("到 5% 以内的测量次数（中位数）")
    handles = [Line2D([], [], color=f"C{j}", linewidth=1.6, marker="o", markersize=3, label=TUNER_LABELS[n])
               for j, n in enumerate(GUIDED)]
    handles += [Line2D([], [], color="#222222", linestyle="--", linewidth=1.4, label="最好的盲调优器"),
                Patch(facecolor="#888888", alpha=0.3, label="95% 自助区间")]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=8.5)
    return fig
