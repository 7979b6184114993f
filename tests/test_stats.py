"""Bootstrap intervals, sign tests and random search's closed form (schedlab.core.stats) against independent values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab import landscape
from schedlab.core.stats import bootstrap_interval, order_statistic, random_search_odds, sign_test
from schedlab.render.labels import TUNER_LABELS
from schedlab.studies.tuners import TUNERS


def test_sign_test_matches_the_binomial_by_hand():
    # 9 wins, 1 loss: P(X <= 1 | n=10, 1/2) = 11/1024, two-sided 22/1024
    a = np.array([1] * 9 + [5])
    b = np.array([2] * 9 + [4])
    st = sign_test(a, b)
    assert (st.wins, st.losses, st.ties) == (9, 1, 0)
    assert st.p_value == pytest.approx(22 / 1024)
    assert sign_test(b, a).p_value == st.p_value  # symmetric
    assert sign_test([1, 1], [1, 1]).p_value == 1.0  # all ties: no evidence


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
