"""Figure of the statistics page: a bootstrap distribution of a median, and a sign test's null distribution."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from scipy import stats as scipy_stats

from schedlab.figures.style import new_figure, text_color
from schedlab.studies.statistics import PairTest

__all__ = ["bootstrap_and_sign"]


def bootstrap_and_sign(medians, low: float, high: float, estimate: float, test: PairTest) -> Figure:
    """Left: the resampled medians with the 95 % interval; right: the sign test's binomial null with its p-value's tails.

    Parameters
    ----------
    medians : 1-d array
        Bootstrap medians (:func:`schedlab.studies.statistics.median_interval`).
    low, high, estimate : float
        The interval's ends and the sample's own median.
    test : PairTest
        A paired sign test; the right panel shows Binomial(wins + losses, 1/2) and shades the
        outcomes at least as far from the middle as ``wins`` (their total is the p-value).

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: ``axes[0]`` the histogram, ``axes[1]`` the bars of the null distribution.
    """
    fig = new_figure(0.85)  # room for the legend below and the two-line titles
    left, right = fig.subplots(1, 2)
    values, counts = np.unique(np.asarray(medians, dtype=float), return_counts=True)
    left.bar(values, counts / counts.sum(), width=2.0, color="C5")
    for x, text in ((low, f"2.5%：{low:.0f}"), (high, f"97.5%：{high:.0f}")):
        left.axvline(x, color="C1", linestyle="--", linewidth=1.2)
        left.annotate(
            text,
            xy=(x, 1.0),
            xycoords=("data", "axes fraction"),
            ha="center",
            va="bottom",
            fontsize=9,
            color=text_color("C1"),
        )
    left.axvline(estimate, color="C0", linewidth=1.5)
    left.set_xlabel("重抽种子后的中位数（测量次数）")
    left.set_ylabel("占重抽的比例")
    left.set_title(f"自助法：中位数 {estimate:.0f}，区间 [{low:.0f}, {high:.0f}]", pad=16)

    n = test.wins + test.losses
    k = np.arange(n + 1)
    pmf = scipy_stats.binom.pmf(k, n, 0.5)
    extreme = np.abs(k - n / 2) >= abs(test.wins - n / 2)
    right.bar(k[~extreme], pmf[~extreme], width=0.9, color="#bbbbbb", label="不比观测更极端")
    right.bar(k[extreme], pmf[extreme], width=0.9, color="C1", label=f"至少一样极端：合计 p = {pmf[extreme].sum():.3f}")
    right.axvline(
        test.wins, color="C0", linewidth=1.5, zorder=0.5
    )  # behind the bars: the bar at the observed count stays seen
    right.annotate(
        f"观测：赢 {test.wins}",
        xy=(test.wins, 1.0),
        xycoords=("data", "axes fraction"),
        ha="center",
        va="bottom",
        fontsize=9,
        color=text_color("C0"),
    )
    right.set_xlabel(f"{n} 个不平局的种子里 A 赢的个数")
    right.set_ylabel("假设两者一样好时的概率")
    right.set_title(f"符号检验：抛 {n} 次公平硬币", pad=16)
    fig.legend(*right.get_legend_handles_labels(), loc="outside lower right")  # below: the bars fill the axes
    return fig
