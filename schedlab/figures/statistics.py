"""Figure of the statistics page: the binomial that picks a median's order statistics, and a sign test's null distribution."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from scipy import stats as scipy_stats

from schedlab.figures.style import new_figure, text_color
from schedlab.studies.statistics import MedianRanks, PairTest

__all__ = ["ranks_and_sign"]


def ranks_and_sign(ranks: MedianRanks, test: PairTest) -> Figure:
    """Left: Binomial(n, 1/2), the seeds below the true median, with the ranks of the 95 % interval; right: the sign test's null.

    Parameters
    ----------
    ranks : MedianRanks
        The interval's ranks (:func:`schedlab.studies.statistics.median_ranks`): the left panel
        shades the counts ``low .. high - 1`` of seeds below the true median, for which the
        interval from the ``low``-th to the ``high``-th smallest trial holds it (their total is
        the coverage).
    test : PairTest
        A paired sign test; the right panel shows Binomial(wins + losses, 1/2) and shades the
        outcomes at least as far from the middle as ``wins`` (their total is the p-value).

    Returns
    -------
    matplotlib.figure.Figure
        Two axes of bars: ``axes[0]`` the binomial of the interval, ``axes[1]`` the null distribution.
    """
    fig = new_figure(0.85)  # room for the legend below and the two-line titles
    left, right = fig.subplots(1, 2)
    n = ranks.n
    k = np.arange(n + 1)
    pmf = scipy_stats.binom.pmf(k, n, 0.5)
    inside = (k >= ranks.low) & (k < ranks.high)
    left.bar(k[~inside], pmf[~inside], width=0.9, color="#bbbbbb")
    left.bar(k[inside], pmf[inside], width=0.9, color="C5")
    left.set_xlabel(f"{n} 个种子里比真正的中位数小的个数")
    left.set_ylabel("概率")
    left.set_title(f"次序统计量：第 {ranks.low} 到第 {ranks.high} 小\n盖住中位数的概率 {ranks.coverage:.3f}", pad=16)

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
