"""The seed lecture's claims C1-C8 are the model's specification.

Each test states the claim as the lecture prints it and the tolerance the issue
allows, written beside the assertion. The model is never tuned to one claim:
if one of these fails, the physics in ``schedlab/core/model/`` changed.
"""

import numpy as np
import pytest

from schedlab.core.knobs import SPACE, GemmConfig, all_configs
from schedlab.core.landscape import landscape
from schedlab.core.launch import static_valid
from schedlab.core.model.engine import gemm_time
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.studies.sensitivity import sensitivity
from schedlab.studies.shapes import transfer

SQUARE = (4096, 4096, 4096)
PREFILL = (512, 14336, 4096)
SMALL_K = (2048, 2048, 512)
DECODE = (16, 4096, 4096)


@pytest.fixture(scope="module")
def square():
    return landscape(SQUARE)


@pytest.fixture(scope="module")
def lecture_transfer():
    return transfer(LECTURE_SHAPES)


def test_c1_space_size_and_launchable_fraction():
    """C1: 6000 combinations, 3744 can launch (62 %). Exact: pruning is arithmetic, not a model."""
    configs = all_configs()
    launchable = [c for c in configs if static_valid(c)]
    assert len(configs) == 6000
    assert len(launchable) == 3744
    assert round(100 * len(launchable) / len(configs)) == 62


def test_c2_fastest_configs_are_256x128_with_8_warps(square):
    """C2: on 4096³ the fastest configs are all 256×128 tiles with 8 warps.

    "Fastest" = within 1 % of the best (the tolerance of C3's "equally fast").
    """
    fastest = [c for c, t in zip(square.configs, square.time_s) if t <= 1.01 * square.best_time_s]
    assert len(fastest) >= 4  # C3 names at least four (BK, stages) pairs in this set
    assert {(c.bm, c.bn, c.warps) for c in fastest} == {(256, 128, 8)}


@pytest.mark.parametrize("bk, stages", [(32, 4), (32, 5), (64, 3), (128, 2)])
def test_c3_bk_and_stages_that_hide_latency_are_equally_fast(square, bk, stages):
    """C3: (BK, stages) = (32, 4), (32, 5), (64, 3), (128, 2) all within 1 % of the best on 4096³."""
    t = square.time_of(GemmConfig(256, 128, bk, 8, stages, 1))
    assert t <= 1.01 * square.best_time_s  # tolerance: 1 %


def test_c3_group_m_does_not_matter_on_4096_cubed(square):
    """C3: GROUP_M changes no 4096³ time by more than 1 % (the shape is compute-bound)."""
    by_rest = {}
    for c, t in zip(square.configs, square.time_s):
        by_rest.setdefault(c.as_tuple()[:5], []).append(t)
    spreads = [max(ts) / min(ts) for ts in by_rest.values()]
    assert max(spreads) <= 1.01  # tolerance: 1 %


def test_c4_best_reaches_about_90_percent_of_peak(square):
    """C4: the best 4096³ config reaches 850-950 TFLOPS (about 90 % of the 989 peak)."""
    assert 850 <= square.best_tflops <= 950  # tolerance: the 850-950 band


def test_c5_good_configs_are_rare(square):
    """C5: at most 2 % of launchable configs within 5 % of the best; the median is >= 3x slower."""
    assert square.n_within(1.05) <= 0.02 * len(square.configs)  # tolerance: 2 %
    assert square.quantiles()[50] >= 3.0  # tolerance: at least 3x


def test_c6_three_shapes_share_one_optimum_decode_wants_16x16(lecture_transfer):
    """C6: 4096³, prefill and 2048²×512 share one optimum (first minimum in SPACE order);
    decode 16×4096×4096 has its optimum at BM = 16, BN = 16."""
    optima = dict(zip([s.mnk for s in lecture_transfer.shapes], lecture_transfer.optima))
    assert optima[SQUARE] == optima[PREFILL] == optima[SMALL_K]
    assert (optima[DECODE].bm, optima[DECODE].bn) == (16, 16)


@pytest.mark.slow  # prices the 3,744 launchable configs one gemm_time call at a time, as the seed does
def test_c6_optimum_is_first_minimum_in_space_order():
    """C6's tie rule: the optimum is the first minimum in SPACE order, as np.argmin picks."""
    configs = [c for c in all_configs() if static_valid(c)]
    times = np.array([gemm_time(c, *SQUARE) for c in configs])
    assert landscape(SQUARE).best == configs[int(np.argmin(times))]


def test_c7_optima_do_not_transfer_to_decode_and_back(lecture_transfer):
    """C7: the big-shape optimum on decode is 2.5-3.6x slower than decode's own;
    decode's optimum on each of the other three shapes is 5.6-16x slower than theirs."""
    shapes = [s.mnk for s in lecture_transfer.shapes]
    d = shapes.index(DECODE)
    big = shapes.index(SQUARE)
    m = lecture_transfer.matrix
    assert 2.5 <= m[big, d] <= 3.6  # tolerance: the band
    for j, shape in enumerate(shapes):
        if j != d:
            assert 5.6 <= m[d, j] <= 16, shape  # tolerance: the band


@pytest.fixture(scope="module")
def square_sensitivity():
    return sensitivity(SQUARE)


def ratios(sens, knob):
    return dict(sens.ratios[knob])


def test_c8_one_size_smaller_tile_costs_1_45_to_3x(square_sensitivity):
    """C8: BM or BN one size smaller than the optimum's costs 1.45-3x."""
    base = square_sensitivity.base
    for knob in ("bm", "bn"):
        values = SPACE[knob]
        smaller = values[values.index(getattr(base, knob)) - 1]
        assert 1.45 <= ratios(square_sensitivity, knob)[smaller] <= 3.0, knob  # tolerance: the band


def test_c8_small_bm_and_fewer_warps_cannot_launch(square_sensitivity):
    """C8: BM = 16 or 32, and any warp count below 8, cannot launch at the 4096³ optimum."""
    bm = ratios(square_sensitivity, "bm")
    warps = ratios(square_sensitivity, "warps")
    assert square_sensitivity.base.warps == 8
    assert np.isinf(bm[16]) and np.isinf(bm[32])
    assert all(np.isinf(warps[w]) for w in (1, 2, 4))


def test_c8_stages_hide_latency_until_four(square_sensitivity):
    """C8: stages 1 -> 4 falls from within 10 % of 3.67x to 1.00x; stages 5 equals stages 4."""
    st = ratios(square_sensitivity, "stages")
    assert square_sensitivity.base.stages == 4
    assert st[1] == pytest.approx(3.67, rel=0.10)  # tolerance: 10 %
    assert st[1] > st[2] > st[3] > st[4]
    assert st[4] == 1.0
    assert st[5] == pytest.approx(st[4], rel=1e-12)  # "equals": both hide the latency fully


def test_c8_bk_128_overflows_shared_memory_at_that_stage_count(square_sensitivity):
    """C8: BK = 128 at the optimum's stage count exceeds shared memory."""
    base = square_sensitivity.base
    assert np.isinf(ratios(square_sensitivity, "bk")[128])
    cfg = GemmConfig(base.bm, base.bn, 128, base.warps, base.stages, base.group)
    assert cfg.smem_bytes > 227 * 1024
