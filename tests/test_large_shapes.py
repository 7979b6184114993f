"""Every shape a real workload has, priced (issue 15): the closed-form HBM replay equals the wave-by-wave one.

The closed form (``method="closed"``) counts the waves of each repeating pattern instead of walking
them; it claims the same bytes bit for bit, so the bound on the difference these tests hold is 0.
The wave-by-wave replay is itself held against a block-by-block reference in test_hbm_replay.py.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schedlab.core.model.hbm
from schedlab.core.hardware import A100_SXM4, H100_TC
from schedlab.core.launch import launchable
from schedlab.core.model import hbm_bytes
from schedlab.core.model.engine import evaluate, evaluate_many
from schedlab.core.model.hbm import EXACT_WAVES, hbm_term, waves
from schedlab.core.shapes import check_shape
from tests.strategies import examples

TILES = st.sampled_from([16, 32, 64, 128, 256])


@examples(4)
@given(
    M=st.integers(1, 6000),
    N=st.integers(1, 6000),
    K=st.integers(1, 9000),
    bm=TILES,
    bn=TILES,
    group=st.sampled_from([1, 4, 8]),
    per_wave=st.integers(1, 1000),
    l2_scale=st.sampled_from([1 / 256, 1 / 16, 1]),
)
def test_closed_form_equals_the_wave_by_wave_replay(M, N, K, bm, bn, group, per_wave, l2_scale):
    """Small L2 scales make the survival fraction non-integral, so the L2 corrections' rounding is tested too."""
    hw = dataclasses.replace(H100_TC, l2_bytes=int(H100_TC.l2_bytes * l2_scale))
    exact = hbm_bytes(M, N, K, bm, bn, group, per_wave, hw, method="exact")
    assert hbm_bytes(M, N, K, bm, bn, group, per_wave, hw, method="closed") == exact


@examples(0.6)
@given(
    M=st.integers(20_000, 60_000),
    N=st.integers(20_000, 60_000),
    bm=TILES,
    bn=TILES,
    group=st.sampled_from([1, 4, 8]),
    per_wave=st.sampled_from([132, 264, 528, 1056, 2112, 4224, 108, 216, 3456, 131]),
)
def test_closed_form_equals_the_replay_on_long_launch_orders(M, N, bm, bn, group, per_wave):
    """Thousands of waves, where the waves repeat over many periods (the case the closed form is for)."""
    exact = hbm_bytes(M, N, 4096, bm, bn, group, per_wave, method="exact")
    assert hbm_bytes(M, N, 4096, bm, bn, group, per_wave, method="closed") == exact


@examples(1)
@given(
    entries=st.lists(
        st.tuples(
            st.integers(1, 2**21),
            st.integers(1, 2**21),
            st.integers(1, 2**20),
            TILES,
            TILES,
            st.sampled_from([1, 4, 8]),
            st.sampled_from([1, 5, 131, 132, 264, 1056]),
        ),
        min_size=1,
        max_size=12,
    ),
    chunk_rows=st.sampled_from([1, 50, 700]),
)
def test_the_replay_in_small_chunks_equals_one_pass(entries, chunk_rows):
    """REPLAY_CHUNK_ROWS bounds the replay's temporaries; with a budget of 1 to 700 rows (every entry
    its own chunk, or a few together, wave by wave and closed form mixed) the bytes are those of one pass."""
    M, N, K, bm, bn, group, per_wave = (np.array(x, dtype=np.int64) for x in zip(*entries))
    args = (M, N, K, (bm, bn, group, per_wave), H100_TC)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(schedlab.core.model.hbm, "REPLAY_CHUNK_ROWS", 2**40)
        whole = hbm_term(*args)[0]
        mp.setattr(schedlab.core.model.hbm, "REPLAY_CHUNK_ROWS", chunk_rows)
        chunked = hbm_term(*args)[0]
    assert np.array_equal(chunked, whole)


def test_an_lm_head_uses_the_closed_form_and_prices_as_the_replay():
    """8832 x 99584 x 2688 (refused before issue 15): every launch order of more than EXACT_WAVES waves
    is priced in closed form, and its bytes equal the wave-by-wave replay's."""
    M, N, K = 8832, 99584, 2688
    arr = launchable(H100_TC).array
    terms = evaluate(arr, M, N, K)
    long_orders = waves(M, N, arr[:, 0], arr[:, 1], H100_TC.n_sm * terms.blocks_per_sm) > EXACT_WAVES
    assert long_orders.sum() > 100
    for i in np.flatnonzero(long_orders)[::97].tolist():
        bm, bn, group = int(arr[i, 0]), int(arr[i, 1]), int(arr[i, 5])
        per_wave = H100_TC.n_sm * int(terms.blocks_per_sm[i])
        assert terms.bytes_hbm[i] == hbm_bytes(M, N, K, bm, bn, group, per_wave, method="exact")


def test_the_tail_group_in_closed_form_equals_the_replay():
    """Launch orders whose last group of rows holds most of the waves (a few rows, N in the millions):
    the closed form counts that group's repeating waves (issue 24), whose cost no longer grows with N."""
    for M, N, K, bm, bn, group, per_wave in (
        (100, 2**24, 4096, 16, 16, 8, 132),
        (129, 3_000_001, 5, 128, 256, 8, 131),
        (1000, 2**22, 9999, 64, 32, 4, 264),
        (2**20, 2**14, 2**20, 16, 16, 8, 132),
    ):
        exact = hbm_bytes(M, N, K, bm, bn, group, per_wave, method="exact")
        assert hbm_bytes(M, N, K, bm, bn, group, per_wave, method="closed") == exact


def test_shapes_past_the_old_limits_are_priced_finitely():
    """M = N = 2**20, K = 2**20 (old limits 2**18 and 2**17), a 250,112-deep K, and N = 2**40 on two
    profiles: every config finite, bytes at least the compulsory traffic (A, B read and C written once,
    which an int64 wrap-around would break) and the kernel never faster than its bytes at HBM bandwidth."""
    for hw in (H100_TC, A100_SXM4):
        for M, N, K in ((2**20, 2**20, 2**20), (4096, 4096, 250_112), (2**20, 4096, 250_112), (4, 2**40, 64)):
            many = evaluate_many([(M, N, K)], launchable(hw).array, hw, terms=("time_s", "bytes_hbm"))
            bytes_hbm = many["bytes_hbm"][0]
            assert np.isfinite(many["time_s"]).all()
            assert (bytes_hbm >= float((M * K + K * N + M * N) * hw.bytes_per_element)).all()
            assert (many["time_s"][0] >= bytes_hbm / hw.hbm_bw_bytes_per_s).all()


def test_real_dimensions_are_priced():
    """The largest dims of real GEMMs: Gemma-2's 256000-word vocabulary (N), 65536 tokens (M),
    Llama-3.1-405B's 53248-wide MLP (K), a 250,112-word vocabulary as K; and the issue's LM head."""
    for shape in ((65536, 256000, 53248), (8832, 99584, 2688), (65536, 4096, 250_112)):
        assert check_shape(*shape) == shape
