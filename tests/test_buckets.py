"""Behaviour of the bucket covers over changing M (schedlab.studies.buckets)."""

import itertools

import numpy as np
import pytest

from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.shapes import LLAMA8B_PROJECTIONS
from schedlab.studies import buckets as B
from schedlab.tuning.covers import (
    DECODE_MS,
    Sweep,
    exact_cover,
    greedy_cover,
    interval_cover,
    power_of_two_cover,
    sweep,
)

#: A small grid holding every power of two it needs, the 16 j + 1 padding points, and 384.
GRID = (1, 16, 17, 32, 33, 64, 65, 128, 129, 256, 257, 384, 512)
PROJ = {name: (N, K) for name, N, K in LLAMA8B_PROJECTIONS}


@pytest.fixture(scope="module")
def studies():
    return B.bucket_study([p for p in LLAMA8B_PROJECTIONS if p[0] in ("O", "gate/up")], Ms=GRID)


def _cfg(bm):
    return GemmConfig(bm, 16, 16, 1, 1, 1)


def _hand_sweep(times, Ms):
    times = np.array(times, dtype=float)
    return Sweep(
        N=1, K=1, Ms=tuple(Ms), configs=tuple(_cfg(bm) for bm in (16, 32, 64, 128, 256)[: times.shape[1]]), time_s=times
    )


def test_grids():
    assert DECODE_MS[0] == 1 and DECODE_MS[-1] == 512 and len(DECODE_MS) == 64
    assert all(M in DECODE_MS for j in range(1, 32) for M in (16 * j, 16 * j + 1))
    assert B.PREFILL_MS[0] == 128 and B.PREFILL_MS[-1] == 8192
    assert all(2**k + 1 in B.PREFILL_MS for k in range(7, 13))


def test_sweep_equals_the_landscapes():
    N, K = PROJ["QKV"]
    sw = sweep(N, K, Ms=(1, 33, 200))
    assert sw.configs == landscape((1, N, K)).configs
    for i, M in enumerate(sw.Ms):
        land = landscape((M, N, K))
        assert np.array_equal(sw.time_s[i], land.time_s)
        assert sw.optima[i] == land.best and sw.best_time_s[i] == land.best_time_s
    assert sw.n_evaluated == 3 * 3744 and sw.rate > 0
    assert not sw.time_s.flags.writeable


def test_covers_keep_every_m_within_5_percent_by_brute_force(studies):
    for s in studies:
        N, K = PROJ[s.name]
        for cover in (s.greedy, s.exact, s.intervals):
            assert cover.keeps_all
            for i, M in enumerate(GRID):
                land = landscape((M, N, K))
                fastest = min(land.time_of(c) for c in cover.configs)
                assert fastest <= 1.05 * land.best_time_s
                # the recorded slowdown is the configuration the cover says it uses at M
                used = cover.configs[cover.choice[i]]
                assert cover.slowdown[i] == pytest.approx(land.time_of(used) / land.best_time_s)
            if cover.method != "intervals":  # set covers use the fastest of the set at each M
                assert np.allclose(
                    cover.slowdown,
                    [
                        min(landscape((M, N, K)).time_of(c) for c in cover.configs) / landscape((M, N, K)).best_time_s
                        for M in GRID
                    ],
                )


def test_greedy_never_beats_exact_and_exact_is_minimum(studies):
    for s in studies:
        assert s.exact is not None
        assert s.greedy.n_configs >= s.exact.n_configs
        assert s.intervals.n_configs >= s.exact.n_configs  # its configurations are a set cover too
        # no smaller set covers the grid: brute force over the distinct sets of M the configurations cover
        masks = np.unique(s.sweep.within(0.05).T, axis=0)
        k = s.exact.n_configs - 1
        assert len(list(itertools.combinations(range(len(masks)), k))) < 2_000_000
        for combo in itertools.combinations(range(len(masks)), k):
            assert not masks[list(combo)].any(axis=0).all()


def test_cover_uses_no_more_configs_than_power_of_two_buckets(studies):
    n_power_buckets = len({1 << (M.bit_length() - 1) for M in GRID})
    for s in studies:
        assert s.exact.n_configs <= s.greedy.n_configs <= n_power_buckets
        assert s.power_of_two.n_configs <= n_power_buckets and s.power_of_two_up.n_configs <= n_power_buckets


def test_power_of_two_by_hand():
    # Ms 1..6; configs a, b, c. Optimum at M=1 is a, at 2 is b, at 4 is c.
    times = [
        [1.0, 2.0, 3.0],  # M=1: a best
        [2.0, 1.0, 3.0],  # M=2: b best
        [2.0, 4.0, 3.0],  # M=3: uses b (bucket 2): 4 / 2 = 2.0
        [3.0, 2.0, 1.0],  # M=4: c best
        [1.0, 2.0, 1.1],  # M=5: uses c: 1.1 / 1 = 1.1
        [1.0, 2.0, 1.5],
    ]  # M=6: uses c: 1.5
    p = power_of_two_cover(_hand_sweep(times, range(1, 7)))
    assert p.slowdown.tolist() == [1.0, 1.0, 2.0, 1.0, pytest.approx(1.1), 1.5]
    assert p.worst == 2.0 and p.mean == pytest.approx((1 + 1 + 2 + 1 + 1.1 + 1.5) / 6)
    assert p.n_configs == 3 and not p.keeps_all
    assert [(lo, hi) for lo, hi, _ in p.buckets] == [(1, 1), (2, 3), (4, 6)]


def test_power_of_two_rounding_up_by_hand():
    times = [
        [1.0, 2.0, 3.0],  # M=1: a (bucket 1)
        [2.0, 1.0, 3.0],  # M=2: b (bucket 2)
        [2.0, 4.0, 3.0],  # M=3: uses the optimum of 4, c: 3 / 2 = 1.5
        [3.0, 2.0, 1.0],
    ]  # M=4: c
    p = power_of_two_cover(_hand_sweep(times, range(1, 5)), rounding="up")
    assert p.slowdown.tolist() == [1.0, 1.0, 1.5, 1.0] and p.method == "power-of-two-up"
    with pytest.raises(ValueError, match="rounding"):
        power_of_two_cover(_hand_sweep(times, range(1, 5)), rounding="nearest")


def test_power_of_two_needs_its_powers_in_the_grid():
    with pytest.raises(ValueError, match="M=2"):
        power_of_two_cover(_hand_sweep([[1.0], [1.0]], (1, 3)))
    with pytest.raises(ValueError, match="M=4"):
        power_of_two_cover(_hand_sweep([[1.0], [1.0]], (1, 3)), rounding="up")


def test_exact_beats_greedy_on_the_classic_instance():
    # configs X covers M 1-3, Y covers 4-6, Z covers 1, 2, 4, 5: greedy takes Z first and needs 3.
    cover = {0: {1, 2, 3}, 1: {4, 5, 6}, 2: {1, 2, 4, 5}}
    times = [[1.0 if M in cover[j] else 2.0 for j in range(3)] for M in range(1, 7)]
    sw = _hand_sweep(times, range(1, 7))
    g, e = greedy_cover(sw), exact_cover(sw)
    assert g.n_configs == 3 and e.n_configs == 2
    assert set(e.configs) == {_cfg(16), _cfg(32)} and e.keeps_all and g.keeps_all
    assert exact_cover(sw, max_nodes=1) is None  # past the search budget


def test_interval_cover_is_contiguous_and_fewest_ranges():
    # a is fine on M 1-2, b on 2-4, c on 4-5: two ranges are impossible, three suffice.
    ok = {0: {1, 2}, 1: {2, 3, 4}, 2: {4, 5}}
    times = [[1.0 if M in ok[j] else 2.0 for j in range(3)] for M in range(1, 6)]
    iv = interval_cover(_hand_sweep(times, range(1, 6)))
    assert iv.keeps_all and len(iv.buckets) == 3
    assert [lo for lo, _, _ in iv.buckets] == [1, 3, 5]


def test_sweep_validation():
    with pytest.raises(ValueError, match="shape"):
        Sweep(N=1, K=1, Ms=(1, 2), configs=(_cfg(16),), time_s=np.ones((1, 1)))
    with pytest.raises(ValueError, match="increasing"):
        Sweep(N=1, K=1, Ms=(2, 1), configs=(_cfg(16),), time_s=np.ones((2, 1)))
    with pytest.raises(ValueError):
        sweep(4096, 4096, Ms=(0,))
    with pytest.raises(ValueError, match="tol"):
        greedy_cover(_hand_sweep([[1.0]], (1,)), tol=-0.1)


def test_segments_follow_the_optima(studies):
    sw = studies[0].sweep
    segs = sw.segments()
    assert segs[0][0] == GRID[0] and segs[-1][1] == GRID[-1]
    for lo, hi, cfg in segs:
        assert all(sw.optima[i] == cfg for i, M in enumerate(GRID) if lo <= M <= hi)


def test_check_every_m_agrees_on_grid_points(studies):
    s = studies[0]
    N, K = PROJ[s.name]
    slow = B.check_every_m(s.exact, N, K, Ms=(16, 17, 33))
    expect = [s.exact.slowdown[GRID.index(M)] for M in (16, 17, 33)]
    assert np.allclose(slow, expect)


def test_optimal_tiles_match_landscapes():
    tm = B.optimal_tiles(Ms=(1, 512), Ns=(2048, 8192), K=4096)
    for i, M in enumerate(tm.Ms):
        for j, N in enumerate(tm.Ns):
            land = landscape((M, N, 4096))
            assert tm.configs[i][j] == land.best
            assert (tm.bm[i, j], tm.bn[i, j]) == land.best.as_tuple()[:2]
            assert tm.best_time_s[i, j] == land.best_time_s
            assert tm.tflops[i, j] == pytest.approx(land.best_tflops)
    assert set(tm.tiles) == {(int(a), int(b)) for a, b in zip(tm.bm.ravel(), tm.bn.ravel())}
