"""Statistics for comparing tuners: bootstrap intervals, paired sign tests, random search in closed form.

Numbers of trials are heavy-tailed and can be ``inf`` (the run never got there within
its budget), so every statistic here is an order statistic or a count, never a mean:

- :func:`bootstrap_interval`: a percentile-bootstrap 95 % interval for a median, a
  90th percentile or a share, resampling seeds (numpy only, seeded, reproducible);
- :func:`trials_interval`: what every chapter reports of trials-to-goal over seeds -- the
  median with that interval, the 90th percentile and the share of seeds that got there --
  as one :class:`Interval` (:func:`schedlab.render.table.fmt_interval` writes it);
- :func:`sign_test`: two strategies run with the same seeds meet the same noise, so
  their trials pair up by seed; the exact two-sided sign test asks whether one wins
  more seeds than a fair coin would (ties, ``inf`` against ``inf`` included, dropped);
- :func:`random_search_odds`: uniform random search without replacement has a closed
  form -- with ``k`` good configs among ``n``, the chance that none of the first ``t``
  draws is good is ``C(n - k, t) / C(n, t)`` -- so its median and 90th percentile need no
  simulation (noise-free; with noise the believed best can differ from the first good draw).

scipy would give the same tests; these few lines of numpy avoid a dependency for them.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from schedlab.core.checks import is_integer

__all__ = [
    "Interval",
    "order_statistic",
    "bootstrap_interval",
    "trials_interval",
    "SignTest",
    "sign_test",
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
    """A statistic with its interval ``[low, high]``; for trials-to-goal, also their p90 and reach.

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


def _check_sample(x, name: str = "x", minimum: int = 2) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim != 1 or len(a) < minimum:
        raise ValueError(f"{name} must be a 1-d sample of at least {minimum} values, got shape {a.shape}")
    if np.isnan(a).any():
        raise ValueError(f"{name} must not hold NaN")
    return a


def bootstrap_interval(
    x, statistic: str = "median", level: float = 0.95, n_resamples: int = N_RESAMPLES, seed: int = 0
) -> Interval:
    """Percentile-bootstrap interval of ``statistic`` over the sample ``x`` (one value per seed).

    Parameters
    ----------
    x : 1-d array
        Trials per seed (``inf`` allowed: never reached) or, for ``"share"``, booleans.
    statistic : {"median", "p90", "share"}
        The median or 90th percentile (order statistics), or the mean of a boolean sample.
    level : float
        Coverage of the interval (0.95: the 2.5th and 97.5th percentiles of the resampled statistic).
    n_resamples, seed : int
        Bootstrap resamples and the seed of their draw.

    Examples
    --------
    >>> iv = bootstrap_interval(np.arange(1, 101))
    >>> iv.estimate, bool(iv.low < 50 < iv.high), bool(iv.high - iv.low < 30)
    (50.0, True, True)
    >>> bootstrap_interval([True, False] * 50, "share").estimate
    0.5
    """
    a = _check_sample(x)
    funcs = {
        "median": lambda s: order_statistic(s, 0.5),
        "p90": lambda s: order_statistic(s, 0.9),
        "share": lambda s: np.mean(s, axis=-1),
    }
    if statistic not in funcs:
        raise ValueError(f"statistic must be one of {tuple(funcs)}, got {statistic!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    rng = np.random.default_rng(seed)
    resampled = a[rng.integers(0, len(a), size=(n_resamples, len(a)))]
    stats = funcs[statistic](resampled)
    tail = (1 - level) / 2
    low, high = order_statistic(stats, tail), order_statistic(stats, 1 - tail)
    return Interval(float(funcs[statistic](a)), float(low), float(high))


def trials_interval(trials) -> Interval:
    """The median of ``trials`` (one per seed, ``inf``: never got there) with its bootstrap 95 % interval, p90 and reach.

    One seed has no interval to resample: ``low`` and ``high`` are then ``nan``.

    Examples
    --------
    >>> iv = trials_interval([3, 5, 8, 13, np.inf])
    >>> iv.estimate, iv.p90, iv.reached
    (8.0, inf, 0.8)
    >>> bool(iv.low <= iv.estimate <= iv.high)
    True
    >>> trials_interval([12])
    Interval(estimate=12.0, low=nan, high=nan, p90=12.0, reached=1.0)
    """
    a = _check_sample(trials, "trials", minimum=1)
    median = bootstrap_interval(a) if len(a) > 1 else Interval(float(order_statistic(a, 0.5)), math.nan, math.nan)
    return median._replace(p90=float(order_statistic(a, 0.9)), reached=float(np.isfinite(a).mean()))


class SignTest(NamedTuple):
    """Paired comparison of ``a`` and ``b`` seed by seed: ``a`` needed fewer trials on ``wins`` seeds."""

    wins: int
    losses: int
    ties: int
    p_value: float  # exact two-sided binomial(wins + losses, 1/2) p-value


def sign_test(a, b) -> SignTest:
    """Exact two-sided sign test on paired samples (same seeds): is ``a < b`` more often than chance?

    Examples
    --------
    >>> sign_test([1, 2, 3, np.inf], [2, 3, 4, np.inf])  # 3 wins, the inf pair ties
    SignTest(wins=3, losses=0, ties=1, p_value=0.25)
    """
    a, b = _check_sample(a, "a"), _check_sample(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a and b must pair up seed by seed, got {len(a)} and {len(b)} values")
    wins, losses = int((a < b).sum()), int((a > b).sum())
    n = wins + losses
    if n == 0:
        return SignTest(0, 0, len(a), 1.0)
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    return SignTest(wins, losses, len(a) - n, min(1.0, 2 * tail))


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
