"""The statistics page's study (schedlab.studies.statistics) against independent formulas and by-hand values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from schedlab.core.stats import clopper_pearson, sign_test
from schedlab.studies import statistics


def test_familywise_error_by_hand():
    assert statistics.familywise_error(1) == pytest.approx(0.05)
    assert statistics.familywise_error(6) == pytest.approx(1 - 0.95**6)  # about 26 %, the number
    assert statistics.familywise_error(2, alpha=0.5) == pytest.approx(0.75)  # two fair coins: at least one head
    with pytest.raises(ValueError, match="m"):
        statistics.familywise_error(0)
    with pytest.raises(ValueError, match="alpha"):
        statistics.familywise_error(3, alpha=1.5)


def test_nonoverlap_of_two_95_percent_intervals_is_a_much_smaller_p_value():
    # |d| = 2 * 1.96 s with the difference's standard error sqrt(2) s: z = 1.96 sqrt(2) = 2.772, p = 0.00557
    assert statistics.nonoverlap_p_value() == pytest.approx(0.00557, abs=5e-5)
    assert statistics.nonoverlap_p_value(0.99) < statistics.nonoverlap_p_value(0.95)


@given(st.integers(1, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_clopper_pearson_is_the_beta_quantiles(kn):
    """The exact interval's ends are Beta quantiles: Beta(a/2; k, n-k+1) and Beta(1-a/2; k+1, n-k)."""
    k, n = kn
    low, high = clopper_pearson(k, n)
    expected_low = 0.0 if k == 0 else scipy_stats.beta.ppf(0.025, k, n - k + 1)
    expected_high = 1.0 if k == n else scipy_stats.beta.ppf(0.975, k + 1, n - k)
    assert low == pytest.approx(expected_low, abs=1e-9) and high == pytest.approx(expected_high, abs=1e-9)
    assert low <= k / n <= high


def test_clopper_pearson_rejects_bad_counts():
    with pytest.raises(ValueError, match="successes"):
        clopper_pearson(11, 10)


def _holm_by_adjusted_p(p, alpha):
    """Holm through its adjusted p-values: the running max of (m - j + 1) p_(j), capped at 1; reject where <= alpha."""
    p = np.asarray(p, dtype=float)
    m, order = len(p), np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    running = 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * p[i]))
        adjusted[i] = running
    return adjusted <= alpha


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12), st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_agrees_with_its_adjusted_p_values_and_contains_bonferroni(p, alpha):
    verdicts = statistics.corrections(p, alpha)
    assert [v.holm for v in verdicts] == list(_holm_by_adjusted_p(p, alpha))
    assert all(v.holm for v in verdicts if v.bonferroni)  # Holm rejects whatever Bonferroni rejects
    assert all(v.alone for v in verdicts if v.holm)
    assert [v.bonferroni for v in verdicts] == [x <= alpha / len(p) for x in p]


def test_corrections_reject_bad_p_values():
    with pytest.raises(ValueError, match="p_values"):
        statistics.corrections([0.2, 1.3])
    with pytest.raises(ValueError, match="p_values"):
        statistics.corrections([])


@pytest.mark.parametrize("n", [6, 10, 20, 30, 50, 100])
def test_median_ranks_are_the_ranks_scipys_quantile_test_takes(n):
    """The page's binomial ranks by hand and scipy.stats.quantile_test's interval pick the same order statistics."""
    r = statistics.median_ranks(n)
    ci = scipy_stats.quantile_test(np.arange(1.0, n + 1), p=0.5).confidence_interval(0.95)
    assert (r.low, r.high) == (ci.low, ci.high)
    assert r.coverage >= 0.95
    below = sum(math.comb(n, i) for i in range(r.low)) / 2**n  # P(B < low), exact integers
    assert below <= 0.025 < below + math.comb(n, r.low) / 2**n  # the largest rank that keeps the tail


def test_pair_tests_on_the_search_pages_data_match_the_pages_sign_test():
    cmp = statistics.square_comparison()
    for t in statistics.pair_tests(cmp):
        a, b = (cmp.trials[0, cmp.strategy_index(name)] for name in (t.a, t.b))
        ours = sign_test(a, b)
        assert (t.wins, t.losses, t.ties) == ours[:3]
        assert t.p_value == pytest.approx(ours.p_value, rel=1e-12)
