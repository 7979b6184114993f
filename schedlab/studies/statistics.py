"""The statistics page's worked numbers: intervals, paired sign tests and multiple comparisons.

The search pages report trials-to-goal over random seeds with :mod:`schedlab.core.stats`
(on :mod:`scipy.stats`). This module computes what the statistics page teaches, step by step with
:mod:`scipy.stats`, the library a student reaches for, on the search page's own data (the
4096³ comparison, :func:`square_comparison`): the order statistics that bound a median
(:func:`median_ranks`), the exact (Clopper--Pearson) interval of a share, the exact sign test, the
chance of at least one false positive among ``m`` tests, and the Bonferroni and Holm corrections
(:func:`corrections`).

Notes
-----
With ``m`` independent tests each at level :math:`\\alpha`, the family-wise error rate (the
chance that at least one true null hypothesis is rejected) is

.. math:: \\mathrm{FWER} = 1 - (1 - \\alpha)^m,

and by the union bound at most :math:`m\\alpha` whatever the dependence. Bonferroni rejects
hypothesis ``i`` when :math:`p_i \\le \\alpha / m`. Holm sorts the p-values,
:math:`p_{(1)} \\le \\dots \\le p_{(m)}`, and rejects :math:`p_{(1)}, \\dots, p_{(j)}` for the
largest ``j`` with :math:`p_{(i)} \\le \\alpha / (m - i + 1)` for every :math:`i \\le j` (it stops
at the first that fails); it keeps the family-wise error at most :math:`\\alpha` and rejects
everything Bonferroni rejects, and sometimes more.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats as scipy_stats

from schedlab.core.checks import check_int
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.tuning import tuners
from schedlab.tuning.compare import MODEL_OWN_START, Comparison, compare, ruled_cores
from schedlab.tuning.records import book_runs, landscape_key, recorded_cores
from schedlab.tuning.strategies import CORES

__all__ = [
    "PAIRS",
    "ALPHA",
    "square_comparison",
    "familywise_error",
    "nonoverlap_p_value",
    "MedianRanks",
    "median_ranks",
    "PairTest",
    "pair_tests",
    "Correction",
    "corrections",
]

#: The pairs of tuners the search page tests seed by seed (book/searching.md), in its order.
PAIRS = (
    ("model", "kt_bayes_opt"),
    (MODEL_OWN_START, "kt_bayes_opt"),
    ("model", MODEL_OWN_START),
    ("kt_bayes_opt", "optuna_tpe"),
    ("annealing", "kt_simulated_annealing"),
    ("annealing", "descent"),
    ("descent", "evolutionary"),
    ("random", "kt_random_sample"),
)
#: The level of each test and of the family: 5 %.
ALPHA = 0.05


def square_comparison() -> Comparison:
    """The search page's comparison on 4096³, under its rules: every strategy (model-guided from the common start
    and, beside it, from its own) and real tuner, on the seeds the real tuners were recorded with.

    Examples
    --------
    >>> c = square_comparison()
    >>> len(c.seeds), c.trials.shape[:2]
    (50, (1, 15))
    """
    square = LECTURE_SHAPES[0].mnk
    (runs,) = (r for r in book_runs() if r.landscape == landscape_key(square))
    cores = {**ruled_cores(), **recorded_cores([runs])}
    names = tuple(CORES) + (MODEL_OWN_START,) + tuple(tuners.TUNERS)
    return compare([square], names, seeds=runs.seeds, cores=cores)


def familywise_error(m: int, alpha: float = ALPHA) -> float:
    """Chance of at least one false positive among ``m`` independent tests at level ``alpha``: ``1 - (1 - alpha)**m``.

    Examples
    --------
    >>> round(familywise_error(1), 3), round(familywise_error(6), 3), round(familywise_error(20), 3)
    (0.05, 0.265, 0.642)
    """
    check_int("m", m, minimum=1)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return float(1 - (1 - alpha) ** m)


def nonoverlap_p_value(level: float = 0.95) -> float:
    """Two-sided p-value at which two independent normal estimates' ``level`` intervals just stop overlapping.

    Equal standard errors ``s``: the intervals are ``x ± z s`` with ``z`` the normal quantile, so they
    separate when ``|x1 - x2| > 2 z s``; the difference has standard error ``sqrt(2) s``, so its
    z-score is then ``sqrt(2) z`` (2.77 for 95 %), a p-value far below ``1 - level``.

    Examples
    --------
    >>> round(nonoverlap_p_value(), 4)
    0.0056
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    z = scipy_stats.norm.ppf(1 - (1 - level) / 2)
    return float(2 * scipy_stats.norm.sf(np.sqrt(2) * z))


class MedianRanks(NamedTuple):
    """The order-statistic interval of a median from ``n`` seeds: the ``low``-th to the ``high``-th smallest."""

    n: int
    low: int  # rank of the lower end (1 = the smallest); 0: the sample is too small for one
    high: int  # rank of the upper end; n + 1: none
    coverage: float  # P(low <= B < high), B ~ binomial(n, 1/2): the chance the interval holds the true median


def median_ranks(n: int, level: float = 0.95) -> MedianRanks:
    """Which two order statistics of ``n`` seeds make the ``level`` interval of the median, from the binomial.

    ``B``, the number of seeds below the true median, is binomial ``(n, 1/2)`` whatever the
    distribution of the trials. The ``l``-th smallest value is at most the median when ``B >= l``,
    the ``u``-th is above it when ``B < u``; ``l`` is the largest rank with ``P(B < l) <= (1 - level) / 2``
    and ``u = n + 1 - l`` by symmetry (``scipy.stats.binom``). The pages' intervals
    (:func:`schedlab.core.stats.quantile_interval`, ``scipy.stats.quantile_test``) take the same ranks.

    Examples
    --------
    >>> r = median_ranks(50)  # P(B <= 17) = 0.016 <= 0.025 < P(B <= 18) = 0.032
    >>> r.low, r.high, round(r.coverage, 3)  # 1 - 2 * 0.016
    (18, 33, 0.967)
    >>> median_ranks(5).low  # 2 * (1/2)**5 = 0.0625 > 0.05: five seeds give no 95 % interval
    0
    """
    n = check_int("n", n, minimum=1)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    low = int(scipy_stats.binom.ppf((1 - level) / 2, n, 0.5))  # smallest k with P(B <= k) >= tail
    if scipy_stats.binom.cdf(low, n, 0.5) > (1 - level) / 2:
        low -= 1  # P(B <= low) must stay within the tail: the lower end is then rank low + 1
    low += 1
    high = n + 1 - low
    coverage = float(scipy_stats.binom.cdf(high - 1, n, 0.5) - scipy_stats.binom.cdf(low - 1, n, 0.5))
    return MedianRanks(n, low, high, coverage)


class PairTest(NamedTuple):
    """One paired comparison: ``a`` needed fewer trials than ``b`` on ``wins`` seeds, more on ``losses``."""

    a: str
    b: str
    wins: int
    losses: int
    ties: int
    p_value: float  # exact two-sided binomial test of wins out of wins + losses at 1/2 (scipy)


def pair_tests(cmp: Comparison, pairs=PAIRS, shape_index: int = 0) -> tuple[PairTest, ...]:
    """The exact sign test (``scipy.stats.binomtest``) of each pair, seed by seed; ties (``inf`` with ``inf`` too) dropped.

    Examples
    --------
    >>> t = pair_tests(square_comparison())
    >>> [(p.wins, p.losses, p.ties) for p in t][-1]
    (15, 32, 3)
    """
    tests = []
    for a, b in pairs:
        x, y = (cmp.trials[shape_index, cmp.strategy_index(name)] for name in (a, b))
        wins, losses = int((x < y).sum()), int((x > y).sum())
        p = scipy_stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
        tests.append(PairTest(a, b, wins, losses, len(x) - wins - losses, float(p)))
    return tuple(tests)


class Correction(NamedTuple):
    """One test of a family of ``m``: its p-value, the Bonferroni and Holm thresholds, and what each rejects."""

    p_value: float
    bonferroni_threshold: float  # alpha / m
    holm_threshold: float  # alpha / (m - rank + 1), rank 1 the smallest p-value
    alone: bool  # p <= alpha, read as if it were the only test
    bonferroni: bool
    holm: bool


def corrections(p_values, alpha: float = ALPHA) -> tuple[Correction, ...]:
    """Bonferroni's and Holm's verdicts on a family of p-values, in the order given (see the module's Notes).

    Examples
    --------
    Four tests: Bonferroni's line is 0.05 / 4 = 0.0125; Holm's lines are 0.0125, 0.05 / 3, 0.025 and
    0.05 for the p-values in increasing order, so Holm also rejects 0.02 (the third smallest):

    >>> [(c.bonferroni, c.holm) for c in corrections([0.01, 0.02, 0.0001, 0.4])]
    [(True, True), (False, True), (True, True), (False, False)]

    Holm stops at the first p-value over its line: 0.03 > 0.05 / 2, so 0.04 is kept too, though below 0.05:

    >>> [(c.alone, c.holm) for c in corrections([0.03, 0.04])]
    [(True, False), (True, False)]
    """
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1 or len(p) == 0 or not ((p >= 0) & (p <= 1)).all():
        raise ValueError(f"p_values must be a non-empty 1-d sample of probabilities, got {p_values!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    m = len(p)
    order = np.argsort(p, kind="stable")
    holm_threshold = np.empty(m)
    holm = np.zeros(m, dtype=bool)
    still = True
    for rank, i in enumerate(order, start=1):
        holm_threshold[i] = alpha / (m - rank + 1)
        still = still and p[i] <= holm_threshold[i]
        holm[i] = still
    return tuple(
        Correction(
            float(p[i]),
            alpha / m,
            float(holm_threshold[i]),
            bool(p[i] <= alpha),
            bool(p[i] <= alpha / m),
            bool(holm[i]),
        )
        for i in range(m)
    )
