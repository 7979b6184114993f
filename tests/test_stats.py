"""Bootstrap intervals, sign tests and random search's closed form (schedlab.core.stats) against independent values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from schedlab.core.landscape import landscape
from schedlab.core.stats import (
    bootstrap_interval,
    holm,
    order_statistic,
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


def test_bootstrap_interval_agrees_with_scipys_interval_where_it_interpolates_nothing():
    # a finite sample: scipy's own (interpolated) ends and our order-statistic ends of the same
    # resamples differ by less than one step between neighbouring sample values
    x = np.arange(1.0, 61.0)
    ours = bootstrap_interval(x, seed=3)
    res = scipy.stats.bootstrap(
        (x,), np.median, method="percentile", n_resamples=2000, rng=np.random.default_rng(3), vectorized=True
    )
    assert abs(ours.low - res.confidence_interval.low) <= 1 and abs(ours.high - res.confidence_interval.high) <= 1


def test_sign_test_counts_never_reached_as_more_trials():
    st = sign_test([5, math.inf, 3], [math.inf, math.inf, 4])
    assert (st.wins, st.losses, st.ties) == (2, 0, 1)


def test_bootstrap_interval_covers_the_true_median_about_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    true_median = np.log(2)  # exponential(1)
    covered = 0
    for rep in range(200):
        iv = bootstrap_interval(rng.exponential(size=60), "median", n_resamples=500, seed=rep)
        covered += iv.low <= true_median <= iv.high
    assert 0.88 <= covered / 200 <= 0.99


def test_bootstrap_keeps_inf_and_is_seeded():
    x = np.array([3.0] * 40 + [math.inf] * 60)
    iv = bootstrap_interval(x, "median")
    assert iv.estimate == math.inf and iv.high == math.inf
    assert bootstrap_interval(x, "p90", seed=4) == bootstrap_interval(x, "p90", seed=4)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="statistic must be one of"):
        bootstrap_interval([1, 2], "mean")
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_interval([1, np.nan])
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
