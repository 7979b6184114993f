"""Statistics for comparing tuners: order-statistic intervals, paired sign tests with Holm, random search in closed form.

Numbers of trials are heavy-tailed and *censored*: a run that did not get there within its
budget is only known to need more (``inf``, shown as "—"). So every statistic here is an order
statistic or a count, never a mean, and every interval and test uses only the order of the
trials, which censoring does not hide:

- :func:`quantile_interval`: the distribution-free (binomial) interval of a median or a 90th
  percentile, two order statistics of the sample (``scipy.stats.quantile_test``); a censored
  seed still has its rank (after every seed that got there), so the interval stays exact;
- :func:`reach_interval`: the share of seeds that got there, with its exact (Clopper--Pearson)
  95 % interval, ``scipy.stats.binomtest(...).proportion_ci(method="exact")``; one interval per
  landscape: seeds on different machines are not draws of one binomial;
- :func:`trials_interval`: what every chapter reports of trials-to-goal over seeds -- the
  median with its interval, the 90th percentile and the reach with its interval --
  as one :class:`Interval` (:func:`schedlab.render.table.fmt_interval` writes it);
- :func:`sign_test`: two strategies run with the same seeds meet the same noise, so
  their trials pair up by seed; the exact two-sided sign test (``scipy.stats.binomtest``)
  asks whether one wins more seeds than a fair coin would (ties, ``inf`` against ``inf``
  included, dropped). Not Wilcoxon's signed-rank test: it ranks the differences, and a
  difference with a censored seed in it has no size;
- :func:`holm`: Holm's step-down adjustment of the p-values of every comparison a page makes,
  so that the chance of any false "significant" among them stays under the level;
- :func:`paired_family`: the sign test of every pair of a family, Holm over the family, and
  which of the two needs fewer trials where the adjusted p-value separates them;
  :func:`leading_group` names the tuners the family cannot tell from the one with the lowest
  median (a "best" tuner only when that group is one tuner);
- :func:`random_search_odds`: uniform random search without replacement has a closed
  form -- with ``k`` good configs among ``n``, the chance that none of the first ``t``
  draws is good is ``C(n - k, t) / C(n, t)`` -- so its median and 90th percentile need no
  simulation (noise-free; with noise the believed best can differ from the first good draw).

No verdict here, or on any page, comes from whether two intervals overlap: an interval says how
sure one number is; whether two tuners differ is the paired test's question (the statistics
page shows why overlap answers it wrongly). The tests are scipy's; what is ours is Holm's
adjustment (scipy's ``false_discovery_control`` is Benjamini--Hochberg, which bounds the expected
share of false discoveries, not the chance of any: the claim the pages make is "no comparison
called real is luck", which is a family-wise error rate).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import scipy.stats

from schedlab.core.checks import check_int, is_integer

__all__ = [
    "Interval",
    "order_statistic",
    "quantile_interval",
    "clopper_pearson",
    "reach_interval",
    "trials_interval",
    "SignTest",
    "sign_test",
    "holm",
    "ALPHA",
    "PairVerdict",
    "paired_family",
    "leading_group",
    "RandomOdds",
    "random_search_odds",
]


def order_statistic(x, q: float, axis=-1):
    """The ``q`` quantile as an order statistic (no interpolation): counts stay counts, ``inf`` stays ``inf``.

    Examples
    --------
    >>> float(order_statistic([3, 1, np.inf, 2], 0.5)), float(order_statistic([3, 1, np.inf, 2], 0.9))
    (2.0, inf)
    """
    return np.quantile(np.asarray(x, dtype=float), q, axis=axis, method="inverted_cdf")


class Interval(NamedTuple):
    """A statistic with its interval ``[low, high]``; for trials-to-goal, also their p90 and reach with its interval.

    The one record of the lecture for "a number and how sure we are of it": an order-statistic
    interval (:func:`quantile_interval`), a trials cell of a study (:func:`trials_interval`:
    the median, the sample's 90th percentile and the share of seeds that got there), or a
    median over shapes that has no interval of its own (``low`` and ``high`` are ``nan``).

    Attributes
    ----------
    estimate : float
        The statistic: a median, a 90th percentile or a share (``inf``: too few seeds got there).
    low, high : float
        Its interval; ``nan`` where none was drawn.
    p90 : float
        The 90th percentile of the trials behind a median; ``nan`` for any other sample.
    reached : float
        The share of seeds whose trials are finite (got there within the budget); ``nan`` likewise.
    reached_low, reached_high : float
        The exact (Clopper--Pearson) 95 % interval of ``reached`` (:func:`reach_interval`); ``nan`` likewise.

    Examples
    --------
    >>> iv = Interval(18.0, 17.0, 20.0)
    >>> iv.estimate, iv.p90
    (18.0, nan)
    """

    estimate: float
    low: float
    high: float
    p90: float = math.nan
    reached: float = math.nan
    reached_low: float = math.nan
    reached_high: float = math.nan


def _check_sample(x, name: str = "x", minimum: int = 2) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim != 1 or len(a) < minimum:
        raise ValueError(f"{name} must be a 1-d sample of at least {minimum} values, got shape {a.shape}")
    if np.isnan(a).any():
        raise ValueError(f"{name} must not hold NaN")
    return a


def quantile_interval(x, q: float = 0.5, level: float = 0.95) -> Interval:
    """The ``q`` quantile of ``x`` with its distribution-free ``level`` interval: two order statistics.

    ``scipy.stats.quantile_test(x, p=q).confidence_interval(level)``: with ``B`` the number of
    seeds below the true quantile, ``B`` is binomial ``(n, q)`` whatever the distribution, so the
    interval from the ``l``-th to the ``u``-th smallest value holds the quantile with chance
    ``P(l <= B < u)``; scipy picks ``l`` and ``u`` to leave at most ``(1 - level) / 2`` in each tail.
    Only ranks are used, so a censored seed (``inf``: not within the budget) counts as what it is,
    larger than every seed that got there; an end beyond every finite value is ``inf`` ("—"). An
    end the sample is too small to give (a 90th percentile from ten seeds has no upper end) is
    ``inf`` above and ``nan`` below. Ties only widen the coverage (the ends are closed).

    Parameters
    ----------
    x : 1-d array
        Trials per seed (``inf`` allowed: never reached).
    q : float
        The quantile, in (0, 1): ``0.5`` the median, ``0.9`` the 90th percentile.
    level : float
        Coverage of the interval.

    Examples
    --------
    Fifty seeds: ``B`` is binomial ``(50, 1/2)``; ``P(B <= 17) = 0.016`` is the largest tail under
    0.025 (``P(B <= 18) = 0.032``), so the ends are the 18th and 33rd smallest values:

    >>> quantile_interval(np.arange(1.0, 51.0))[:3]
    (25.0, 18.0, 33.0)
    >>> quantile_interval([5.0] * 30 + [np.inf] * 20)[:3]  # 20 seeds censored: the upper end is one of them
    (5.0, 5.0, inf)
    """
    a = _check_sample(x, minimum=1)
    if not 0 < q < 1:
        raise ValueError(f"q must be in (0, 1), got {q!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    ci = scipy.stats.quantile_test(a, q=0, p=q).confidence_interval(confidence_level=level)
    low, high = float(ci.low), float(ci.high)
    return Interval(float(order_statistic(a, q)), low, math.inf if math.isnan(high) else high)


def clopper_pearson(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper--Pearson) interval of a share: ``successes`` of ``n`` (``scipy.stats.binomtest``).

    Examples
    --------
    >>> [round(x, 3) for x in clopper_pearson(35, 50)]
    [0.554, 0.821]
    >>> clopper_pearson(0, 10)[0], clopper_pearson(10, 10)[1]
    (0.0, 1.0)
    """
    n = check_int("n", n, minimum=1)
    successes = check_int("successes", successes, minimum=0)
    if successes > n:
        raise ValueError(f"successes must be at most n = {n}, got {successes}")
    ci = scipy.stats.binomtest(successes, n).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def reach_interval(trials, level: float = 0.95) -> Interval:
    """The share of finite ``trials`` (seeds that got there) with its exact Clopper--Pearson interval.

    :func:`clopper_pearson` (``scipy.stats.binomtest(k, n).proportion_ci(method="exact")``): with ``k``
    of ``n`` seeds there, the interval holds every share ``p`` for which ``k`` is not in either
    ``(1 - level) / 2`` tail of the binomial distribution ``B(n, p)``; for ``k = n`` its lower end is
    ``((1 - level) / 2) ** (1 / n)``.

    Examples
    --------
    >>> iv = reach_interval([3.0] * 50)
    >>> iv.estimate, round(iv.low, 4), iv.high, round(0.025 ** (1 / 50), 4)
    (1.0, 0.9289, 1.0, 0.9289)
    >>> reach_interval([np.inf, 4.0]).estimate
    0.5
    """
    a = _check_sample(trials, "trials", minimum=1)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    k, n = int(np.isfinite(a).sum()), len(a)
    return Interval(k / n, *clopper_pearson(k, n, level))


def trials_interval(trials) -> Interval:
    """The median of ``trials`` (one per seed, ``inf``: never got there) with its 95 % interval, p90 and reach.

    The median's interval is the order-statistic one (:func:`quantile_interval`); the reach comes
    with its exact interval (:func:`reach_interval`).

    Examples
    --------
    >>> iv = trials_interval([3, 5, 8, 13, np.inf])
    >>> iv.estimate, iv.p90, iv.reached
    (8.0, inf, 0.8)
    >>> round(iv.reached_high, 4), round(0.975 ** (1 / 5), 4)  # 4 of 5 got there
    (0.9949, 0.9949)
    >>> iv.low, iv.high  # five seeds: 2 * P(B = 0) = 1/16 > 0.05, so no finite ranks give 95 %
    (nan, inf)
    """
    a = _check_sample(trials, "trials", minimum=1)
    median = quantile_interval(a)
    reach = reach_interval(a)
    return median._replace(
        p90=float(order_statistic(a, 0.9)), reached=reach.estimate, reached_low=reach.low, reached_high=reach.high
    )


class SignTest(NamedTuple):
    """Paired comparison of ``a`` and ``b`` seed by seed: ``a`` needed fewer trials on ``wins`` seeds."""

    wins: int
    losses: int
    ties: int
    p_value: float  # exact two-sided binomial(wins + losses, 1/2) p-value


def sign_test(a, b) -> SignTest:
    """Exact two-sided sign test on paired samples (same seeds): is ``a < b`` more often than chance?

    ``scipy.stats.binomtest(wins, wins + losses, 0.5).pvalue``: under ``p = 1/2`` the binomial is
    symmetric, so this is twice the smaller tail, at most 1.

    Examples
    --------
    Eight seeds, ``a`` fewer on all: under a fair coin ``P(8 wins) = 1/256``, and two-sided ``2/256``:

    >>> sign_test(np.arange(8), np.arange(8) + 1).p_value == 2 / 256
    True
    >>> sign_test([1, 2, 3, np.inf], [2, 3, 4, np.inf])  # 3 wins, the inf pair ties: 2 / 2**3
    SignTest(wins=3, losses=0, ties=1, p_value=0.25)
    """
    a, b = _check_sample(a, "a"), _check_sample(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a and b must pair up seed by seed, got {len(a)} and {len(b)} values")
    wins, losses = int((a < b).sum()), int((a > b).sum())
    n = wins + losses
    if n == 0:
        return SignTest(0, 0, len(a), 1.0)
    return SignTest(wins, losses, len(a) - n, float(scipy.stats.binomtest(wins, n, 0.5).pvalue))


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values: reject comparison ``i`` at level ``alpha`` iff ``adjusted[i] < alpha``.

    Sorted ascending, the ``j``-th smallest p-value (``j`` from 0) of ``m`` is multiplied by ``m - j``,
    a running maximum keeps the order, and 1 caps it. Like Bonferroni (every p times ``m``) it keeps
    the chance of *any* false rejection among the ``m`` under ``alpha`` whatever their dependence;
    it rejects everything Bonferroni rejects, and sometimes more.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005]).round(4).tolist()  # 0.005*4, 0.01*3, 0.03*2, max(0.04*1, 0.06)
    [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1 or not len(p) or np.isnan(p).any() or ((p < 0) | (p > 1)).any():
        raise ValueError(f"p_values must be a non-empty 1-d sample of numbers in [0, 1], got {p_values!r}")
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adjusted
    return out


#: The family-wise level of every verdict the pages call real: 5 %.
ALPHA = 0.05


class PairVerdict(NamedTuple):
    """One pair of a family: the sign test of ``a`` against ``b``, its Holm-adjusted p-value and the verdict.

    ``fewer`` is ``a`` or ``b``, whichever needed fewer trials on more seeds, where the adjusted
    p-value is below the family's level; ``None`` where the family cannot tell them apart.
    """

    a: str
    b: str
    wins: int
    losses: int
    ties: int
    p_value: float
    p_holm: float
    fewer: str | None


def paired_family(samples, pairs=None, alpha: float = ALPHA) -> tuple[PairVerdict, ...]:
    """Sign test (:func:`sign_test`) of every pair in ``pairs``, Holm (:func:`holm`) over all of them.

    The family is every comparison a page reads a verdict from, fixed before looking at the
    results: by default every pair of ``samples`` (a page that ranks the tuners of a table ranks
    all of them), else the pairs given. The chance that any pair called real is luck stays under
    ``alpha``.

    Parameters
    ----------
    samples : mapping of str to 1-d array
        Trials per seed of each tuner, all on the same seeds (paired).
    pairs : sequence of (str, str), optional
        The family; default every pair of ``samples`` in its order.
    alpha : float
        The family-wise level.

    Examples
    --------
    Three tuners on eight seeds: ``x`` is below ``y`` and ``z`` on every seed (p = 2/256 each),
    ``y`` and ``z`` split 4--4 (p = 1). Holm multiplies the smallest p-value by 3, the next by 2 and
    keeps a running maximum, so both are 6/256 (under 0.05):

    >>> s = {"x": np.arange(8), "y": np.arange(8) + 10, "z": np.r_[9, 12, 11, 14, 13, 16, 15, 18]}
    >>> [(v.a, v.b, v.wins, round(v.p_holm * 256), v.fewer) for v in paired_family(s)]
    [('x', 'y', 8, 6, 'x'), ('x', 'z', 8, 6, 'x'), ('y', 'z', 4, 256, None)]
    """
    if not isinstance(samples, Mapping) or not samples:
        raise ValueError(f"samples must map tuner names to trials, got {samples!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    pairs = list(itertools.combinations(samples, 2)) if pairs is None else [tuple(p) for p in pairs]
    unknown = sorted({n for p in pairs for n in p} - set(samples))
    if not pairs or unknown or any(len(p) != 2 or p[0] == p[1] for p in pairs):
        raise ValueError(f"pairs must be pairs of two different names of samples, unknown: {unknown}, got {pairs!r}")
    tests = [sign_test(samples[a], samples[b]) for a, b in pairs]
    adjusted = holm([t.p_value for t in tests])
    return tuple(
        PairVerdict(
            a, b, t.wins, t.losses, t.ties, t.p_value, float(p), (a if t.wins > t.losses else b) if p < alpha else None
        )
        for (a, b), t, p in zip(pairs, tests, adjusted)
    )


def leading_group(samples, alpha: float = ALPHA) -> tuple[str, ...]:
    """The tuner with the lowest median and every tuner the family of all pairs cannot tell from it.

    The family is every pair of ``samples`` (:func:`paired_family`): the lowest median is chosen
    after looking, so only a family that holds every pair keeps the verdict honest. A tuner can be
    called best only when the group is that one tuner.

    Examples
    --------
    >>> s = {"x": np.arange(8), "y": np.arange(8) + 10, "z": np.r_[9, 12, 11, 14, 13, 16, 15, 18]}
    >>> leading_group(s), leading_group({"y": s["y"], "z": s["z"]})
    (('x',), ('y', 'z'))
    """
    verdicts = paired_family(samples, alpha=alpha)
    leader = min(samples, key=lambda n: float(order_statistic(samples[n], 0.5)))
    apart = {v.b if v.a == leader else v.a for v in verdicts if leader in (v.a, v.b) and v.fewer == leader}
    return tuple(n for n in samples if n not in apart)


class RandomOdds(NamedTuple):
    """Random search without replacement in closed form: ``k`` good configs among ``n``, a budget of draws."""

    n: int
    k: int
    budget: int
    reach: float  # chance that a good config is among the first `budget` draws
    median: float  # draws until the first good one: median (inf if reach < 1/2)
    p90: float
    mean_unbounded: float  # expected draws with no budget: (n + 1) / (k + 1)


def random_search_odds(n: int, k: int, budget: int) -> RandomOdds:
    """Odds of uniform random search without replacement reaching one of ``k`` good configs in ``n``.

    ``P(first good draw > t) = C(n - k, t) / C(n, t)``; the median and p90 are the
    smallest ``t`` where the chance of having drawn a good config reaches 1/2 and 0.9.

    Examples
    --------
    >>> r = random_search_odds(n=100, k=1, budget=100)
    >>> r.median, r.p90, r.mean_unbounded, r.reach
    (50.0, 90.0, 50.5, 1.0)
    """
    for name, v, lo in (("n", n, 1), ("k", k, 1), ("budget", budget, 1)):
        if not is_integer(v) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    if k > n:
        raise ValueError(f"k must be at most n = {n}, got {k}")
    t = np.arange(1, min(budget, n) + 1)
    # C(n-k, t) / C(n, t) = prod_{i<t} (n-k-i)/(n-i), as a running product (no huge integers)
    miss = np.cumprod(np.clip((n - k - (t - 1)) / (n - (t - 1)), 0, None))
    hit = 1 - miss

    def first(p: float) -> float:
        ok = np.flatnonzero(hit >= p - 1e-12)
        return float(t[ok[0]]) if len(ok) else math.inf

    return RandomOdds(
        n=int(n),
        k=int(k),
        budget=int(budget),
        reach=float(hit[-1]),
        median=first(0.5),
        p90=first(0.9),
        mean_unbounded=(n + 1) / (k + 1),
    )
