"""Shapes whose N or K is not a multiple of 16: what Triton cannot prove of them, and what the model makes of it.

Triton specialises an integer argument on divisibility by 16 only, so on such a shape a kernel whose strides
are arguments loads the unaligned operand one element at a time, into registers, in the k-step that uses it
(tests/test_compiler_record.py checks the compiled kernels; tests/test_triton_timings.py the H200's runs).
"""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.core.hardware import A100_SXM4, H100_SXM, H100_TC, H200_SXM
from schedlab.core.knobs import GemmConfig
from schedlab.core.launch import launchable, reasons
from schedlab.core.model import evaluate, evaluate_many, explain
from schedlab.core.shapes import ALIGNED, STRIDES, RowAlignment, row_alignment, row_alignments
from schedlab.triton.compiler import ALIGNMENTS

TRITON_PROFILES = [A100_SXM4, H100_SXM, H200_SXM]


def _name(hw):
    return hw.launch_rules + "-" + str(hw.n_sm)


# --- which shapes are aligned ----------------------------------------------------------------------------


def test_a_dimension_is_aligned_when_it_is_a_multiple_of_16_and_m_plays_no_part():
    assert row_alignment(4096, 4096, 4096) == ALIGNED
    assert row_alignment(4095, 4096, 4096) == ALIGNED  # A's rows run along K: M moves no row start
    assert row_alignment(16, 4096, 4104) == RowAlignment(False, True)  # 4104 = 16 x 256 + 8
    assert row_alignment(16, 50257, 4096) == RowAlignment(True, False)
    assert row_alignment(1, 1, 1) == RowAlignment(False, False)


def test_the_seed_rules_know_no_alignment():
    assert row_alignment(1, 50257, 200, H100_TC) == ALIGNED
    assert launchable(H100_TC, RowAlignment(False, False)).configs == launchable(H100_TC).configs


def test_shapes_aligned_differently_cannot_be_priced_as_one():
    with pytest.raises(ValueError, match="aligned differently"):
        row_alignment(np.array([[1], [1]]), np.array([[16], [17]]), np.array([[16], [16]]))


def test_many_shapes_alignments_are_each_shapes_own():
    M, N, K = np.array([1, 16, 4095, 7]), np.array([16, 17, 4096, 8]), np.array([4104, 4096, 16, 3])
    aligned = row_alignments(M, N, K)
    assert aligned.shape == (4, 2)
    assert [RowAlignment(*map(bool, a)) for a in aligned] == [row_alignment(*s) for s in zip(M, N, K)]
    assert row_alignments(M, N, K, H100_TC).all()
    assert row_alignments(16, N, 4096).shape == (4, 2)  # scalars broadcast against arrays


def test_a_kernel_with_constant_strides_loads_element_by_element_only_rows_of_an_odd_length():
    # compiled-in strides: a row starts at a multiple of the stride's largest power-of-two factor, and an
    # asynchronous copy needs 4 bytes, two FP16 elements
    assert row_alignment(16, 4096, 200, strides="constant") == ALIGNED  # 200 = 8 x 25: 16-byte rows
    assert row_alignment(16, 30522, 4098, strides="constant") == ALIGNED  # 2 x odd: 4-byte copies
    assert row_alignment(16, 50257, 4097, strides="constant") == RowAlignment(False, False)
    assert row_alignment(16, 50257, 4097) == RowAlignment(False, False)
    assert row_alignments(1, 30522, 4098, H100_TC, "constant").all()  # the seed's rules know no alignment


def test_what_a_kernel_knows_of_its_strides_is_one_of_two_and_named_when_not():
    assert STRIDES == ("runtime", "constant")
    for call in (
        lambda: row_alignment(16, 4096, 4096, strides="static"),
        lambda: evaluate([GemmConfig(64, 64, 32, 4, 3, 8)], 16, 4096, 4096, H200_SXM, strides="static"),
        lambda: evaluate_many([(16, 4096, 4096)], [GemmConfig(64, 64, 32, 4, 3, 8)], H200_SXM, strides="static"),
    ):
        with pytest.raises(ValueError, match="strides must be one of runtime, constant, got 'static'"):
            call()


# --- what launches ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alignment", ALIGNMENTS[1:], ids=str)
@pytest.mark.parametrize("hw", TRITON_PROFILES, ids=_name)
def test_what_launches_on_aligned_shapes_launches_on_every_shape_and_a_few_more_on_unaligned_ones(hw, alignment):
    # one shared buffer for an unaligned operand: never more shared memory, so the landscape's space
    # (launchable(hw), the aligned one) is launchable on every shape
    aligned, here = set(launchable(hw).configs), set(launchable(hw, alignment).configs)
    assert aligned < here


def test_a_pipeline_too_big_for_an_aligned_shape_launches_when_k_is_not_a_multiple_of_16():
    cfg = GemmConfig(128, 128, 128, 4, 4, 8)  # four buffers of 64 KiB on sm_90; with K = 200, A's 32 KiB once
    assert [r.code for r in reasons(cfg, H200_SXM)] == ["smem"]
    assert reasons(cfg, H200_SXM, row_alignment(4096, 4096, 200)) == ()
    assert np.isinf(evaluate([cfg], 4096, 4096, 208, H200_SXM).time_s[0])
    assert np.isfinite(evaluate([cfg], 4096, 4096, 200, H200_SXM).time_s[0])
    with pytest.raises(ValueError, match="shared memory"):
        explain(cfg, 4096, 4096, 208, H200_SXM)
    assert explain(cfg, 4096, 4096, 200, H200_SXM).k_steps == 2


@pytest.mark.parametrize("hw", TRITON_PROFILES, ids=_name)
def test_with_constant_strides_k_200_launches_and_prices_as_an_aligned_shape_and_an_odd_k_as_an_unaligned_one(hw):
    space = launchable(hw, RowAlignment(False, True)).array  # what launches on K = 200 with runtime strides
    aligned_space = {tuple(row) for row in launchable(hw).array}
    constant = evaluate(space, 4096, 4096, 200, hw, strides="constant")
    assert {tuple(row) for row in space[constant.launchable]} == aligned_space
    assert np.all(constant.fill_s[constant.launchable & (space[:, 4] > 1)] > 0)  # pipelined: one fill a wave
    runtime = evaluate(space, 4096, 4096, 200, hw)
    assert runtime.launchable.all() and np.all(runtime.fill_s == 0)  # each k-step waits for A instead
    for K in (201, 208):  # odd: element by element either way; a multiple of 16: aligned either way
        one, other = (evaluate(space, 4096, 4096, K, hw, strides).time_s for strides in STRIDES)
        assert np.array_equal(one, other)
    cfg = GemmConfig(128, 128, 128, 4, 4, 8)  # four 64 KiB buffers fit no SM; with A's 32 KiB once they do
    assert explain(cfg, 4096, 4096, 200, hw).k_steps == 2
    with pytest.raises(ValueError, match="shared memory"):
        explain(cfg, 4096, 4096, 200, hw, strides="constant")


@pytest.mark.parametrize("strides", STRIDES)
def test_many_shapes_with_either_strides_price_as_one_at_a_time(strides):
    shapes = [(4096, 4096, 4096), (512, 50257, 4096), (4096, 4096, 200), (300, 30522, 4097), (64, 1024, 1000)]
    space = launchable(H200_SXM, RowAlignment(False, False)).array
    many = evaluate_many(shapes, space, H200_SXM, terms=("time_s", "launchable"), strides=strides)
    for i, shape in enumerate(shapes):
        one = evaluate(space, *shape, H200_SXM, strides)
        assert np.array_equal(many["time_s"][i], one.time_s) and np.array_equal(many["launchable"][i], one.launchable)


# --- what an unaligned shape costs -----------------------------------------------------------------------


@pytest.mark.parametrize("hw", TRITON_PROFILES, ids=_name)
def test_an_unaligned_operand_is_waited_for_every_k_step_instead_of_once_per_wave(hw):
    space = launchable(hw).array
    aligned, unaligned = (evaluate(space, 4096, 4096, K, hw) for K in (4096, 4088))  # the same 128 k-steps of BK 32
    pipelined = space[:, 4] > 1
    assert np.all(aligned.t_latency_s[pipelined] == hw.mem_latency_s / (space[pipelined, 4] - 1))
    assert np.all(unaligned.t_latency_s == hw.mem_latency_s) and np.all(unaligned.fill_s == 0)
    bk32 = space[:, 2] == 32
    assert np.array_equal(aligned.k_steps[bk32], unaligned.k_steps[bk32])
    # pipelined when aligned, one block per SM either way: nothing runs beside its 128 waits, which cost more
    # than one fill a wave
    alone = bk32 & pipelined & (aligned.blocks_per_sm == 1) & (unaligned.blocks_per_sm == 1)
    assert alone.sum() > 20 and np.all(unaligned.time_s[alone] > aligned.time_s[alone])


@pytest.mark.parametrize("hw", TRITON_PROFILES, ids=_name)
def test_many_shapes_of_every_alignment_at_once_price_as_one_at_a_time(hw):
    shapes = [(4096, 4096, 4096), (512, 50257, 4096), (4096, 4096, 200), (300, 4095, 4095), (64, 1024, 1024)]
    space = launchable(hw, RowAlignment(False, False)).array  # some of these launch on unaligned shapes only
    many = evaluate_many(shapes, space, hw, terms=("time_s", "launchable", "blocks_per_sm"))
    for i, shape in enumerate(shapes):
        one = evaluate(space, *shape, hw)
        assert np.array_equal(many["time_s"][i], one.time_s) and np.array_equal(many["launchable"][i], one.launchable)
        assert np.array_equal(many["blocks_per_sm"][i], one.blocks_per_sm)
    assert not many["launchable"][0].all() and many["launchable"][3].all()
