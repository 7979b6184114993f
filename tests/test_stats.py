"""Order-statistic intervals, sign tests with Holm and random search's closed form (schedlab.core.stats) against independent values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from schedlab.core.landscape import landscape
from schedlab.core.stats import (
    holm,
    leading_group,
    order_statistic,
    paired_family,
    quantile_interval,
    random_search_odds,
    reach_interval,
    sign_test,
    trials_interval,
)
from schedlab.render.labels import TUNER_LABELS
from schedlab.tuning.tuners import TUNERS


def test_sign_test_matches_the_binomial_by_hand():
    # 9 wins, 1 loss: P(X <= 1 | n=10, 1/2) = 11/1024, two-sided 22/1024
    a = np.array([1] * 9 + [5])
    b = np.array([2] * 9 + [4])
    st = sign_test(a, b)
    assert (st.wins, st.losses, st.ties) == (9, 1, 0)
    assert st.p_value == pytest.approx(22 / 1024)
    assert sign_test(b, a).p_value == st.p_value  # symmetric
    assert sign_test([1, 1], [1, 1]).p_value == 1.0  # all ties: no evidence


@pytest.mark.parametrize("wins, losses", [(31, 15), (25, 23), (11, 0), (0, 7), (20, 20)])
def test_sign_test_is_twice_the_smaller_binomial_tail(wins, losses):
    # independent of scipy: sum the binomial(n, 1/2) tail with exact integers
    n = wins + losses
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    a, b = [1] * wins + [3] * losses, [2] * n
    assert sign_test(a, b).p_value == pytest.approx(min(1.0, 2 * tail), rel=1e-12)


def test_the_issue_s_model_against_bayes_opt_p_value():
    # 31 wins, 15 losses (the independent re-run of issue 16): p = 0.026, above 0.05 / 6
    p = sign_test([1] * 31 + [3] * 15, [2] * 46).p_value
    assert round(p, 3) == 0.026 and p > 0.05 / 6


def test_reach_interval_is_clopper_pearson():
    # k = n and k = 0 have closed forms: (alpha/2) ** (1/n) and 1 - (alpha/2) ** (1/n)
    all_there = reach_interval([4.0] * 50)
    assert (all_there.estimate, all_there.high) == (1.0, 1.0)
    assert all_there.low == pytest.approx(0.025 ** (1 / 50), rel=1e-9)
    none_there = reach_interval([math.inf] * 20)
    assert (none_there.estimate, none_there.low) == (0.0, 0.0)
    assert none_there.high == pytest.approx(1 - 0.025 ** (1 / 20), rel=1e-9)
    # otherwise the ends are beta quantiles: B(alpha/2; k, n-k+1) and B(1-alpha/2; k+1, n-k)
    k, n = 11, 50
    iv = reach_interval([1.0] * k + [math.inf] * (n - k))
    assert iv.low == pytest.approx(scipy.stats.beta.ppf(0.025, k, n - k + 1), rel=1e-9)
    assert iv.high == pytest.approx(scipy.stats.beta.ppf(0.975, k + 1, n - k), rel=1e-9)


def test_trials_interval_carries_the_reach_interval():
    t = [5.0] * 30 + [math.inf] * 20
    iv, reach = trials_interval(t), reach_interval(t)
    assert (iv.reached, iv.reached_low, iv.reached_high) == tuple(reach[:3])


def test_holm_against_bonferroni_and_by_hand():
    p = np.array([0.001, 0.012, 0.02, 0.3])
    # by hand: 0.001*4 = 0.004, 0.012*3 = 0.036, 0.02*2 = 0.04, 0.3*1 = 0.3
    assert holm(p) == pytest.approx([0.004, 0.036, 0.04, 0.3])
    assert (holm(p) <= np.minimum(1, p * len(p))).all()  # never above Bonferroni
    assert holm([0.5, 0.9]).tolist() == [1.0, 1.0]  # capped at 1
    with pytest.raises(ValueError, match="p_values"):
        holm([0.1, 1.5])


def _binomial_ranks(n, q, level=0.95):
    """The order-statistic interval's ranks by hand: exact integer binomial sums, no scipy."""
    pmf = [math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(n + 1)]
    tail = (1 - level) / 2
    low = max(j for j in range(0, n + 1) if sum(pmf[:j]) <= tail)  # P(B <= low - 1) within the tail
    high = min(j for j in range(0, n + 1) if sum(pmf[j:]) <= tail)  # P(B >= high) within the tail
    return low, high


@pytest.mark.parametrize("n, q", [(50, 0.5), (100, 0.5), (30, 0.5), (50, 0.9), (100, 0.9)])
def test_quantile_interval_ranks_are_the_binomial_ones(n, q):
    low, high = _binomial_ranks(n, q)
    iv = quantile_interval(np.arange(1.0, n + 1), q)  # the value of rank r is r
    assert (iv.low, iv.high) == (float(low), float(high) if high <= n else math.inf)


def test_quantile_interval_covers_the_true_median_at_least_95_percent_of_the_time():
    # distribution-free: exponential(1) with a third of the seeds censored at the budget
    rng = np.random.default_rng(0)
    true_median = np.log(2)
    covered = 0
    for _ in range(400):
        x = rng.exponential(size=50)
        x[x > 1.1] = math.inf  # censored: only known to be larger
        iv = quantile_interval(x)
        covered += iv.low <= true_median <= iv.high
    assert covered / 400 >= 0.93


def test_quantile_interval_keeps_censored_seeds_as_ranks():
    x = np.array([3.0] * 40 + [math.inf] * 60)
    iv = quantile_interval(x)
    assert iv.estimate == math.inf and iv.high == math.inf and iv.low == 3.0  # rank 40 lies in the interval


def test_paired_family_holds_every_pair_and_adjusts_over_them():
    rng = np.random.default_rng(2)
    samples = {name: rng.integers(1, 100, size=40).astype(float) for name in "abcd"}
    family = paired_family(samples)
    assert [(v.a, v.b) for v in family] == [(a, b) for i, a in enumerate("abcd") for b in "abcd"[i + 1 :]]
    assert [v.p_holm for v in family] == pytest.approx(holm([v.p_value for v in family]).tolist())
    one = paired_family(samples, [("a", "b")])[0]
    assert one.p_holm == one.p_value  # a family of one is not adjusted


def test_leading_group_names_one_tuner_only_where_the_test_separates():
    seeds = np.arange(20.0)
    fast, slow = seeds, seeds + 1  # fast wins every seed: p = 2 / 2**20
    assert leading_group({"fast": fast, "slow": slow}) == ("fast",)
    wobble = slow.copy()
    wobble[::2] -= 2  # the same median region, wins and losses split
    assert leading_group({"fast": fast, "wobble": wobble}) == ("fast", "wobble")


def test_sign_test_counts_never_reached_as_more_trials():
    st = sign_test([5, math.inf, 3], [math.inf, math.inf, 4])
    assert (st.wins, st.losses, st.ties) == (2, 0, 1)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="q must be in"):
        quantile_interval([1, 2], 1.5)
    with pytest.raises(ValueError, match="NaN"):
        quantile_interval([1, np.nan])
    with pytest.raises(ValueError, match="unknown: \\['z'\\]"):
        paired_family({"a": [1, 2], "b": [2, 3]}, [("a", "z")])
    with pytest.raises(ValueError, match="pair up"):
        sign_test([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="k must be at most n"):
        random_search_odds(5, 6, 3)


def test_random_search_closed_form_matches_simulation():
    n, k, budget = 300, 7, 120
    odds = random_search_odds(n, k, budget)
    rng = np.random.default_rng(1)
    good = np.zeros(n, bool)
    good[:k] = True
    first = np.array([np.argmax(good[rng.permutation(n)]) + 1 for _ in range(20000)], dtype=float)
    first[first > budget] = math.inf
    assert odds.reach == pytest.approx(np.isfinite(first).mean(), abs=0.01)
    assert abs(odds.median - order_statistic(first, 0.5)) <= 2
    assert abs(odds.p90 - order_statistic(first, 0.9)) <= 4
    assert odds.mean_unbounded == pytest.approx((n + 1) / (k + 1))


def test_random_search_odds_on_the_square_landscape():
    land = landscape((4096, 4096, 4096))
    odds = random_search_odds(len(land.configs), land.n_within(1.05), 300)
    # the page's earlier hypergeometric: 1 - C(n - k, 300) / C(n, 300)
    n, k = len(land.configs), land.n_within(1.05)
    assert odds.reach == pytest.approx(1 - math.comb(n - k, 300) / math.comb(n, 300))


def test_every_tuner_has_a_label():
    assert set(TUNERS) <= set(TUNER_LABELS)
