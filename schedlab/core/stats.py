"""Statistics for comparing tuners: bootstrap intervals, paired sign tests, random search in closed form.

Numbers of trials are heavy-tailed and can be ``inf`` (the run never got there within
its budget), so every statistic here is an order statistic or a count, never a mean:

- :func:`bootstrap_interval`: a percentile-bootstrap 95 % interval for a median or a 90th
  percentile, resampling seeds with ``scipy.stats.bootstrap`` (seeded, reproducible);
- :func:`reach_interval`: the share of seeds that got there, with its exact (Clopper--Pearson)
  95 % interval, ``scipy.stats.binomtest(...).proportion_ci(method="exact")``;
- :func:`trials_interval`: what every chapter reports of trials-to-goal over seeds -- the
  median with its interval, the 90th percentile and the reach with its interval --
  as one :class:`Interval` (:func:`schedlab.render.table.fmt_interval` writes it);
- :func:`sign_test`: two strategies run with the same seeds meet the same noise, so
  their trials pair up by seed; the exact two-sided sign test (``scipy.stats.binomtest``)
  asks whether one wins more seeds than a fair coin would (ties, ``inf`` against ``inf``
  included, dropped);
- :func:`holm`: Holm's step-down adjustment of the p-values of every comparison a page makes,
  so that the chance of any false "significant" among them stays under the level;
- :func:`random_search_odds`: uniform random search without replacement has a closed
  form -- with ``k`` good configs among ``n``, the chance that none of the first ``t``
  draws is good is ``C(n - k, t) / C(n, t)`` -- so its median and 90th percentile need no
  simulation (noise-free; with noise the believed best can differ from the first good draw).

The tests are scipy's; what is ours is only what scipy does not do: the order-statistic ends of
a bootstrap interval (:func:`bootstrap_interval` says why) and Holm's adjustment (scipy's
``false_discovery_control`` is Benjamini--Hochberg, which bounds the expected share of false
discoveries, not the chance of any: the claim the search page makes is "no comparison called
real is luck", which is a family-wise error rate).
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
import scipy.stats

from schedlab.core.checks import is_integer

__all__ = [
    "Interval",
    "order_statistic",
    "bootstrap_interval",
    "reach_interval",
    "trials_interval",
    "SignTest",
    "sign_test",
    "holm",
    "RandomOdds",
    "random_search_odds",
]

#: Bootstrap resamples drawn by default.
N_RESAMPLES = 2000


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

    The one record of the lecture for "a number and how sure we are of it": a bootstrap
    interval (:func:`bootstrap_interval`), a trials cell of a study (:func:`trials_interval`:
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


_STATISTICS = {"median": 0.5, "p90": 0.9, "share": None}


def bootstrap_interval(
    x, statistic: str = "median", level: float = 0.95, n_resamples: int = N_RESAMPLES, seed: int = 0
) -> Interval:
    """Percentile-bootstrap interval of ``statistic`` over the sample ``x`` (one value per seed).

    The seeds are resampled by ``scipy.stats.bootstrap`` (``method="percentile"``); the interval's
    ends are order statistics of its bootstrap distribution (:func:`order_statistic`), not scipy's
    interpolated quantiles, so a count stays a count and an ``inf`` end (too few resamples got
    there) stays ``inf`` instead of becoming ``nan``.

    Parameters
    ----------
    x : 1-d array
        Trials per seed (``inf`` allowed: never reached) or, for ``"share"``, booleans.
    statistic : {"median", "p90", "share"}
        The median or 90th percentile (order statistics), or the mean of a boolean sample (a share:
        its bootstrap interval collapses to a point when every seed agrees, which is why a reach is
        given its exact interval, :func:`reach_interval`, instead).
    level : float
        Coverage of the interval (0.95: the 2.5th and 97.5th percentiles of the resampled statistic).
    n_resamples, seed : int
        Bootstrap resamples and the seed of their draw.

    Examples
    --------
    >>> iv = bootstrap_interval(np.arange(1, 101))
    >>> iv.estimate, bool(iv.low < 50 < iv.high), bool(iv.high - iv.low < 30)
    (50.0, True, True)
    >>> bootstrap_interval([7.0] * 10)[:3]  # every resample has median 7
    (7.0, 7.0, 7.0)
    >>> bootstrap_interval([True] * 50, "share")[:3]  # all 50 seeds there: a point, not an interval
    (1.0, 1.0, 1.0)
    """
    a = _check_sample(x)
    if statistic not in _STATISTICS:
        raise ValueError(f"statistic must be one of {tuple(_STATISTICS)}, got {statistic!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    q = _STATISTICS[statistic]

    def stat(sample, axis=-1):
        return np.mean(sample, axis=axis) if q is None else order_statistic(sample, q, axis=axis)

    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        # scipy also reports a standard error and interpolated ends: nan (with a warning) when a
        # resample's statistic is inf or all resamples agree; neither is used here
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", scipy.stats.DegenerateDataWarning)
        result = scipy.stats.bootstrap(
            (a,),
            stat,
            n_resamples=n_resamples,
            confidence_level=level,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(seed),
        )
    tail = (1 - level) / 2
    low, high = order_statistic(result.bootstrap_distribution, [tail, 1 - tail])
    return Interval(float(stat(a)), float(low), float(high))


def reach_interval(trials, level: float = 0.95) -> Interval:
    """The share of finite ``trials`` (seeds that got there) with its exact Clopper--Pearson interval.

    ``scipy.stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")``: with ``k``
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
    ci = scipy.stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    return Interval(k / n, float(ci.low), float(ci.high))


def trials_interval(trials) -> Interval:
    """The median of ``trials`` (one per seed, ``inf``: never got there) with its bootstrap 95 % interval, p90 and reach.

    One seed has no interval to resample: ``low`` and ``high`` are then ``nan``. The reach comes
    with its exact interval (:func:`reach_interval`).

    Examples
    --------
    >>> iv = trials_interval([3, 5, 8, 13, np.inf])
    >>> iv.estimate, iv.p90, iv.reached
    (8.0, inf, 0.8)
    >>> bool(iv.low <= iv.estimate <= iv.high), round(iv.reached_high, 4), round(0.975 ** (1 / 5), 4)  # 4 of 5
    (True, 0.9949, 0.9949)
    >>> trials_interval([12])[:5]
    (12.0, nan, nan, 12.0, 1.0)
    """
    a = _check_sample(trials, "trials", minimum=1)
    median = bootstrap_interval(a) if len(a) > 1 else Interval(float(order_statistic(a, 0.5)), math.nan, math.nan)
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
