"""The HBM replay (interval arithmetic over waves) equals a block-by-block replay written plainly here."""

import math

from hypothesis import given
from hypothesis import strategies as st

from schedlab.core.hardware import H100_TC
from schedlab.core.model import hbm_bytes
from tests.strategies import examples


def launch_order(M, N, bm, bn, group):
    """Triton's grouped order, block by block: (pid_m, pid_n) of pid = 0, 1, ..."""
    grid_m, grid_n = -(-M // bm), -(-N // bn)
    order = []
    for pid in range(grid_m * grid_n):
        in_group = group * grid_n
        first_m = (pid // in_group) * group
        size_m = min(grid_m - first_m, group)
        offset = pid % in_group
        order.append((first_m + offset % size_m, offset // size_m))
    return order


def reference_hbm_bytes(M, N, K, bm, bn, group, per_wave, hw=H100_TC):
    """Each wave reads every A row-panel and B column-panel it touches once; a panel the previous
    wave touched too is still in L2 with probability min(1, L2 / previous footprint); C once."""
    elt = hw.bytes_per_element
    order = launch_order(M, N, bm, bn, group)
    waves = [order[i : i + per_wave] for i in range(0, len(order), per_wave)]
    a_bytes = lambda i: min(bm, M - i * bm) * K * elt  # noqa: E731
    b_bytes = lambda j: min(bn, N - j * bn) * K * elt  # noqa: E731
    touched = [({m for m, _ in w}, {n for _, n in w}) for w in waves]
    footprint = [sum(map(a_bytes, rows)) + sum(map(b_bytes, cols)) for rows, cols in touched]
    reused = [0] + [
        sum(map(a_bytes, rows & prev_rows)) + sum(map(b_bytes, cols & prev_cols))
        for (rows, cols), (prev_rows, prev_cols) in zip(touched[1:], touched)
    ]
    kept = [min(1.0, hw.l2_bytes / f) for f in footprint[:-1]]
    return float(sum(footprint)) - math.fsum(k * r for k, r in zip(kept, reused[1:])) + M * N * elt


def test_every_wave_fits_in_l2_reads_each_panel_once():
    # 4096^3, 256 x 128 tiles, one block per SM: A, B and C are 32 MiB each, each read (written) once
    assert hbm_bytes(4096, 4096, 4096, 256, 128, 1, 132) == reference_hbm_bytes(4096, 4096, 4096, 256, 128, 1, 132)
    assert hbm_bytes(4096, 4096, 4096, 256, 128, 1, 132) == 3 * 32 * 2**20


@examples(3)
@given(
    M=st.integers(1, 1200),
    N=st.integers(1, 1200),
    K=st.integers(1, 9000),
    bm=st.sampled_from([16, 32, 64, 128, 256]),
    bn=st.sampled_from([16, 32, 64, 128, 256]),
    group=st.sampled_from([1, 4, 8]),
    per_wave=st.integers(1, 700),
)
def test_interval_replay_equals_block_by_block_replay(M, N, K, bm, bn, group, per_wave):
    """Exactly equal: both sum integer bytes and round the L2 correction with fsum."""
    assert hbm_bytes(M, N, K, bm, bn, group, per_wave) == reference_hbm_bytes(M, N, K, bm, bn, group, per_wave)


@examples(3)
@given(
    M=st.integers(1, 3000),
    N=st.integers(1, 3000),
    K=st.integers(1, 9000),
    bm=st.sampled_from([16, 32, 64, 128, 256]),
    bn=st.sampled_from([16, 32, 64, 128, 256]),
    group=st.sampled_from([1, 4, 8]),
    per_wave=st.integers(1, 700),
    l2_scale=st.sampled_from([1 / 64, 1, 4]),
)
def test_hbm_bound_is_never_below_the_replay(M, N, K, bm, bn, group, per_wave, l2_scale):
    """evaluate_many skips a replay when this bound is below every on-chip time: it must bound it."""
    import dataclasses

    import numpy as np

    from schedlab.core.model.hbm import hbm_bound_s

    hw = dataclasses.replace(H100_TC, l2_bytes=int(H100_TC.l2_bytes * l2_scale))
    bound_s = hbm_bound_s(*(np.array([v]) for v in (M, N, K, bm, bn, group, per_wave)), hw)[0]
    assert hbm_bytes(M, N, K, bm, bn, group, per_wave, hw) / hw.hbm_bw_bytes_per_s <= bound_s


@examples(3)
@given(
    M=st.integers(1, 1200),
    N=st.integers(1, 1200),
    bm=st.sampled_from([16, 32, 64, 128, 256]),
    bn=st.sampled_from([16, 32, 64, 128, 256]),
    group=st.sampled_from([1, 2, 3, 4, 8]),
    data=st.data(),
)
def test_wave_panel_bound_holds_for_every_run_of_blocks(M, N, bm, bn, group, data):
    """The bound behind hbm_bound_s: any n consecutive blocks of the launch order touch at most that many panels."""
    from schedlab.core.model.hbm import wave_panels_bound

    order = launch_order(M, N, bm, bn, group)
    n = data.draw(st.integers(1, len(order)))
    start = data.draw(st.integers(0, len(order) - n))
    run = order[start : start + n]
    rows, cols = (int(x) for x in wave_panels_bound(n, -(-M // bm), -(-N // bn), group))
    assert len({m for m, _ in run}) <= rows and len({c for _, c in run}) <= cols
