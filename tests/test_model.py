"""Behaviour of the cost model on cases worked out by hand.

Every expected number is derived in the comments from the H100 parameters
(132 SMs, 4096 FLOP/clk/SM on 4 tensor cores, 128 B/clk shared memory, 64 B/clk
L2 port, 12 TB/s L2, 3.35 TB/s HBM, 50 MiB L2, 228 KiB smem/SM, 64 K registers,
750 ns latency), not copied from the model's output.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from schedlab.core.hardware import H100_TC
from schedlab.core.knobs import GemmConfig, config_array
from schedlab.core.landscape import landscape
from schedlab.core.model import TERMS, blocks_per_sm, hbm_bytes, tiling
from schedlab.core.model.engine import evaluate, explain, gemm_time
from schedlab.core.shapes import LECTURE_SHAPES

MiB = 1024 * 1024
CLK = 989.4e12 / (132 * 4096)  # Hz: the datasheet's dense FP16 peak over 132 SMs x 4096 FLOP/clk
LAT = 750e-9
SQUARE = (4096, 4096, 4096)
BEST = GemmConfig(256, 128, 32, 8, 4, 1)  # the lecture's optimum on the square shape


# --- the lecture's optimum on 4096^3, by hand ----------------------------------------------


class TestSquareOptimum:
    def test_grid_occupancy_waves_and_steps(self):
        # grid: (4096 / 256) x (4096 / 128) = 16 x 32 = 512 blocks
        # registers: 8 warps as 4 x 2 -> warp tile 64 x 64; 64 * 64 / 32 + 40 = 168 per thread,
        #   already a multiple of 8; 168 * 256 threads = 43008 > 65536 / 2, so 1 block per SM
        # shared memory: 4 * (256 + 128) * 32 * 2 + 1024 = 99328 B; 233472 // 99328 = 2 (not binding)
        # threads: 2048 // 256 = 8 (not binding)
        # waves: 512 / 132 = 3 full waves + a tail of 116 blocks -> 4 waves; k-steps: 4096 / 32 = 128
        b = explain(BEST, *SQUARE)
        assert (b.blocks, b.blocks_per_sm, b.waves, b.k_steps) == (512, 1, 4, 128)
        assert blocks_per_sm(config_array([BEST])).tolist() == [1]

    def test_occupancy_limits_one_at_a_time(self):
        # 64 x 64, 4 warps (2 x 2 -> warp tile 32 x 32): 32 * 32 / 32 + 40 = 72 regs, * 128 threads = 9216
        #   -> 65536 // 9216 = 7 by registers; 2 stages: 2 * 128 * 32 * 2 + 1024 = 17408 -> 233472 // 17408 = 13;
        #   2048 // 128 = 16 by threads: registers bind at 7
        # 16 x 16, 1 warp: 16 * 16 / 32 + 40 = 48 regs * 32 = 1536 -> 42; smem 1 * 32 * 16 * 2 + 1024 = 2048
        #   -> 114; threads 2048 // 32 = 64: the 32-blocks-per-SM limit binds
        # 128 x 128 x 128, 4 warps, 3 stages: smem 3 * 256 * 128 * 2 + 1024 = 197632 -> 1 block by smem
        arr = config_array(
            [GemmConfig(64, 64, 32, 4, 2, 1), GemmConfig(16, 16, 16, 1, 1, 1), GemmConfig(128, 128, 128, 4, 3, 1)]
        )
        assert blocks_per_sm(arr).tolist() == [7, 32, 1]

    def test_smem_term_equals_tensor_core_term_for_64x64_warp_tile(self):
        # per k-step with r = 1 block and all 4 tensor cores busy (8 warps):
        #   t_tc   = 2 * 256 * 128 * 32 FLOP / (4096 FLOP/clk) = 512 clk
        #   t_smem = (wx * BM + wy * BN) * BK * 2 B / 128 B/clk = (2 * 256 + 4 * 128) * 64 / 128 = 512 clk
        # in general t_smem / t_tc = 32 * (1/wm + 1/wn) = 32 * (2/64) = 1
        b = explain(BEST, *SQUARE)
        assert b.t_tc_s == pytest.approx(512 / CLK, rel=1e-12)
        assert b.t_smem_s == pytest.approx(512 / CLK, rel=1e-12)

    @pytest.mark.parametrize(
        "cfg, ratio",
        [
            # 128 x 64, 4 warps (2 x 2): warp tile 64 x 32 -> 32 * (1/64 + 1/32) = 1.5
            (GemmConfig(128, 64, 32, 4, 3, 1), 1.5),
            # 128 x 128, 4 warps: warp tile 64 x 64 -> 1
            (GemmConfig(128, 128, 32, 4, 3, 1), 1.0),
            # 64 x 64, 4 warps: warp tile 32 x 32 -> 32 * (2/32) = 2
            (GemmConfig(64, 64, 32, 4, 3, 1), 2.0),
            # 256 x 64, 8 warps (4 x 2): warp tile 64 x 32 -> 1.5
            (GemmConfig(256, 64, 32, 8, 3, 1), 1.5),
        ],
    )
    def test_smem_over_tc_ratio_is_set_by_the_warp_tile(self, cfg, ratio):
        # with r * warps >= 4 (all tensor cores busy) the ratio does not depend on r or BK
        b = explain(cfg, *SQUARE)
        assert b.t_smem_s / b.t_tc_s == pytest.approx(ratio, rel=1e-12)

    def test_other_terms_by_hand(self):
        b = explain(BEST, *SQUARE)
        # port: (256 + 128) * 32 * 2 B / 64 B/clk = 384 clk
        assert b.t_port_s == pytest.approx(384 / CLK, rel=1e-12)
        # L2: 132 blocks * 24576 B / 12e12 B/s (first wave is full)
        assert b.t_l2_s == pytest.approx(132 * 24576 / 12e12, rel=1e-12)
        # HBM: 96 MiB (below) over 4 waves * 128 k-steps at 3.35e12 B/s
        assert b.t_hbm_s == pytest.approx(96 * MiB / (4 * 128 * 3.35e12), rel=1e-12)
        # latency: 4 stages keep 3 loads in flight -> 750 ns / 3
        assert b.t_latency_s == pytest.approx(LAT / 3, rel=1e-12)
        # step: the slowest of the six, 512 clk (tensor cores, tied with shared memory)
        assert b.t_step_s == pytest.approx(512 / CLK, rel=1e-12)
        # one 750 ns fill per wave
        assert b.fill_s == pytest.approx(4 * LAT, rel=1e-12)

    def test_total_time_by_hand(self):
        # epilogue writes C = 256 * 128 * 2 = 65536 B per block at the slower of
        #   port: 65536 / 64 = 1024 clk, and L2: active * 65536 / 12e12 (132 full, 116 in the tail)
        t_step = 512 / CLK
        epi_full = max(1024 / CLK, 132 * 65536 / 12e12)
        epi_tail = max(1024 / CLK, 116 * 65536 / 12e12)
        expected = 4 * (LAT + 128 * t_step) + 3 * epi_full + epi_tail
        assert gemm_time(BEST, *SQUARE) == pytest.approx(expected, rel=1e-12)


# --- explain() is evaluate() with a name for the bottleneck --------------------------------


class TestExplainMatchesEvaluate:
    @pytest.mark.parametrize("shape", [s.mnk for s in LECTURE_SHAPES] + [(1, 1, 1), (1000, 3000, 77)])
    def test_terms_equal_and_bottleneck_is_argmax(self, shape):
        land = landscape(shape)
        cfgs = land.configs[::53]
        terms = evaluate(cfgs, *shape)
        for i, cfg in enumerate(cfgs):
            b = explain(cfg, *shape)
            assert b.time_s == terms.time_s[i] == land.time_of(cfg)
            for name in TERMS:
                assert getattr(b, name) == getattr(terms, name)[i], name
            for name in (
                "blocks",
                "blocks_per_sm",
                "waves",
                "k_steps",
                "t_step_s",
                "fill_s",
                "epilogue_s",
                "bytes_hbm",
            ):
                assert getattr(b, name) == getattr(terms, name)[i], name
            step = b.terms()
            assert list(step) == list(TERMS)
            assert step[b.bottleneck] == max(step.values())
            # the first wave's step time is the bottleneck term (or latency + it with one stage)
            if cfg.stages > 1:
                assert b.t_step_s == max(step.values())
            else:
                assert b.t_step_s == pytest.approx(LAT + max(v for k, v in step.items() if k != "t_latency_s"))
            assert b.tflops == pytest.approx(2 * np.prod(shape, dtype=float) / b.time_s / 1e12)

    def test_square_bottleneck_is_tensor_cores(self):
        assert explain(BEST, *SQUARE).bottleneck == "t_tc_s"


# --- HBM traffic and GROUP_M ---------------------------------------------------------------


class TestHbmBytes:
    def test_square_reads_every_panel_once(self):
        # 256 x 128 tiles, group 1: grid 16 x 32, launch order row-major, 132 blocks a wave.
        # wave 0 = pids 0..131 = rows 0..4 (132 / 32 = 4.1) x all 32 columns;
        #   footprint 5 A panels (256 x 4096 x 2 B = 2 MiB each) + 32 B panels (1 MiB each) = 42 MiB <= 50 MiB,
        #   so everything it touched survives into wave 1 (rows 4..8), which only reads rows 5..8, and so on:
        #   waves 2 (rows 8..12) and 3 (rows 12..15) touch at most 5 rows too.
        # A once (32 MiB) + B once (32 MiB) + C written once (4096^2 * 2 B = 32 MiB) = 96 MiB exactly
        assert hbm_bytes(4096, 4096, 4096, 256, 128, 1, 132) == 96 * MiB
        assert explain(BEST, *SQUARE).bytes_hbm == 96 * MiB

    def test_tiny_shape(self):
        # 1 x 1 x 1: one block reads 1 real row of A and 1 column of B, writes 1 element: 3 * 2 B
        assert hbm_bytes(1, 1, 1, 16, 16, 1, 132) == 6.0

    # M = 2048, N = 16896 = 132 * 128, K = 4096 with 256 x 128 tiles: grid 8 x 132 = 1056 blocks = 8 waves of 132.
    # A panel 256 x 4096 x 2 B = 2 MiB, B panel 128 x 4096 x 2 B = 1 MiB, C = 2048 * 16896 * 2 B = 66 MiB.
    WIDE = (2048, 16896, 4096)

    def test_group_1_overflows_l2(self):
        # group 1: wave w is row w with all 132 columns; footprint 2 + 132 = 134 MiB > 50 MiB, so only
        # 50/134 of the previous wave's panels survive. Each wave reads its own A panel (8 * 2 MiB); wave 0
        # reads all 132 B panels, waves 1..7 re-read the 84/134 of them that were evicted; C 66 MiB:
        # 16 + 132 + 7 * 132 * 84 / 134 + 66 = 793.2 MiB (vs 214 MiB with group 8 below)
        expected_mib = 16 + 132 + 7 * 132 * 84 / 134 + 66
        assert hbm_bytes(*self.WIDE, 256, 128, 1, 132) == pytest.approx(expected_mib * MiB, rel=1e-12)

    def test_group_8_fits_l2(self):
        # group 8: all 8 rows form one group; pid -> (pid % 8, pid // 8), so a wave is 8 rows x 16.5 columns,
        # touching at most 17 columns: footprint 8 * 2 + 17 = 33 MiB <= 50 MiB, everything survives;
        # A read once (16 MiB), each B panel once (132 MiB), C 66 MiB: 214 MiB
        assert hbm_bytes(*self.WIDE, 256, 128, 8, 132) == 214 * MiB

    def test_group_4_in_between(self):
        # group 4: a group is 4 rows x 132 columns = 528 blocks = 4 waves of 4 rows x 33 columns,
        # footprint 4 * 2 + 33 = 41 MiB fits; each group reads its 4 A panels (8 MiB) and all 132 B panels once
        # (the first wave of group 2 touches columns 0..32, which the previous wave did not):
        # 2 * (8 + 132) + 66 = 346 MiB
        assert hbm_bytes(*self.WIDE, 256, 128, 4, 132) == 346 * MiB

    # Twice as wide: N = 33792 = 264 * 128, grid 8 x 264 = 2112 blocks = 16 waves of 132; C = 132 MiB.
    WIDER = (2048, 33792, 4096)

    def test_grouping_turns_hbm_bound_into_compute_bound(self):
        # group 1: wave w is half a row (row w // 2, 132 columns): footprint 2 + 132 = 134 MiB > 50 MiB, so
        # 50/134 of the previous wave's panels survive. Consecutive halves of one row share only the A panel
        # (8 times); the B halves never repeat back to back. Reads: 16 * 134 - 8 * 2 * 50/134 MiB, C 132 MiB.
        # Per step: that / (16 waves * 128 steps * 3.35e12 B/s) = 347 ns > t_tc = 512 clk = 280 ns.
        # group 8: a wave is 8 rows x 16.5 columns (33 MiB, fits): A 16 + B 264 + C 132 = 412 MiB -> 63 ns.
        g1_mib = 16 * 134 - 8 * 2 * 50 / 134 + 132
        g1, g8 = (explain(dataclasses.replace(BEST, group=g), *self.WIDER) for g in (1, 8))
        assert g1.bytes_hbm == pytest.approx(g1_mib * MiB, rel=1e-12)
        assert g8.bytes_hbm == 412 * MiB
        assert g1.t_hbm_s == pytest.approx(g1_mib * MiB / (16 * 128 * 3.35e12), rel=1e-12)
        assert (g1.bottleneck, g8.bottleneck) == ("t_hbm_s", "t_tc_s")
        assert g8.time_s < g1.time_s
        # g1 per-wave time ~ 128 * 347 ns, g8 ~ 128 * 280 ns: 347 / 280 = 1.24 (less fill and epilogue)
        assert g1.time_s / g8.time_s == pytest.approx(g1.t_hbm_s / g8.t_tc_s, rel=0.02)

    def test_group_4_changes_nothing_on_the_square(self):
        # group 4 on the 16 x 32 grid: a group is 4 rows x 32 columns = 128 blocks, so each 132-block wave
        # is one group plus a few blocks of the next: at most 8 rows (16 MiB) + 32 columns (32 MiB) = 48 MiB
        # fits, consecutive waves share what they touch, every panel is read once: 96 MiB as for group 1
        assert hbm_bytes(*SQUARE, 256, 128, 4, 132) == 96 * MiB

    def test_group_8_costs_extra_on_the_square(self):
        # group 8: a group is 8 rows x 32 columns = 256 blocks; pid -> (pid % 8, pid // 8).
        #   wave 0 (pids 0..131):   rows 0..7, columns 0..16         -> reads 8 A + 17 B = 16 + 17 = 33 MiB
        #   wave 1 (pids 132..263): rows 0..15, columns 16..31 and 0 -> footprint 32 + 17 = 49 MiB <= 50;
        #                           new: rows 8..15 (16 MiB) and columns 17..31 (15 MiB) = 31 MiB
        #   wave 2 (pids 264..395): rows 8..15, columns 1..17; wave 1 touched only 0 and 16..31, so
        #                           columns 1..15 are read again: 15 MiB
        #   wave 3 (pids 396..511): rows 8..15, columns 17..31; wave 2 touched 17 only: 14 MiB
        # 33 + 31 + 15 + 14 + C 32 = 125 MiB: the L2 remembers only the previous wave, so a column
        # panel used by group 0 and again by group 1 two waves later is fetched twice
        assert hbm_bytes(*SQUARE, 256, 128, 8, 132) == 125 * MiB


# --- the pipeline: stages ------------------------------------------------------------------


class TestStages:
    def test_one_stage_pays_the_latency_every_step(self):
        # same tile, 1 stage: shared memory 1 * 384 * 32 * 2 + 1024 = 25600 B, still 1 block/SM by registers;
        # with no second buffer each step waits for its load, then computes: t_step = 750 ns + 280 ns,
        # against max(280 ns, 750 ns / 3) = 280 ns with 4 stages (which pay one 750 ns fill per wave).
        one = explain(dataclasses.replace(BEST, stages=1), *SQUARE)
        four = explain(BEST, *SQUARE)
        t = 512 / CLK
        assert one.blocks_per_sm == four.blocks_per_sm == 1
        assert one.t_step_s == pytest.approx(LAT + t, rel=1e-12)
        assert four.t_step_s == pytest.approx(t, rel=1e-12)
        assert one.fill_s == 0.0 and one.t_latency_s == LAT
        # whole kernel: 4 waves * 128 steps; the epilogues are the same for both
        epilogues = four.epilogue_s
        assert one.epilogue_s == epilogues
        assert one.time_s == pytest.approx(4 * 128 * (LAT + t) + epilogues, rel=1e-12)
        assert four.time_s == pytest.approx(4 * (LAT + 128 * t) + epilogues, rel=1e-12)
        # about (latency + t_step) / t_step = 1030 / 280 = 3.68 times slower; the 4-stage fill (3 us) and the
        # shared epilogue (2.8 us) against 143 us of steps bring it to 530 / 149 = 3.56
        assert one.time_s / four.time_s == pytest.approx((LAT + t) / t, rel=0.05)

    def test_more_stages_never_hurt_when_occupancy_is_unchanged(self):
        # 256 x 128 x 32 with 8 warps stays at 1 block/SM for every stage count (registers bind),
        # and t_latency = 750 ns / (s - 1) only falls as s grows
        times = [gemm_time(dataclasses.replace(BEST, stages=s), *SQUARE) for s in (2, 3, 4, 5)]
        assert times == sorted(times, reverse=True)
        assert gemm_time(dataclasses.replace(BEST, stages=1), *SQUARE) > times[0]


# --- hardware perturbations ----------------------------------------------------------------


def _scaled(**factors):
    return dataclasses.replace(H100_TC, **{k: getattr(H100_TC, k) * f for k, f in factors.items()})


class TestHardwarePerturbation:
    def test_faster_clock_speeds_up_compute_bound_kernel(self):
        # doubling the clock halves t_tc, t_smem and t_port (per-clock rates) to 140, 140, 105 ns;
        # L2 (12 TB/s, 270 ns for a wave of 132 blocks) and latency (250 ns) do not scale with the
        # clock, so L2 now binds: the kernel's 512 blocks are 512 / 132 waves' worth of L2 traffic
        # (the L2 is one queue for the kernel), against 4 whole waves of 280 ns on the tensor cores
        # before: it gains 4 x 280 / (3.88 x 270) = ~7 %, not 2x
        base = explain(BEST, *SQUARE)
        fast = explain(BEST, *SQUARE, hw=_scaled(clock_hz=2))
        assert fast.t_tc_s == pytest.approx(base.t_tc_s / 2, rel=1e-12)
        assert fast.bottleneck == "t_l2_s"
        assert fast.time_s < base.time_s
        expected = base.waves * base.t_tc_s / (base.blocks / H100_TC.n_sm * base.t_l2_s)
        assert base.time_s / fast.time_s == pytest.approx(expected, rel=0.02)

    @pytest.mark.parametrize(
        "factors, direction",
        [
            ({"clock_hz": 2}, -1),
            ({"hbm_bw_bytes_per_s": 2}, -1),
            ({"l2_bw_bytes_per_s": 2}, -1),
            ({"mem_latency_s": 0.5}, -1),
            ({"clock_hz": 0.5}, +1),
            ({"hbm_bw_bytes_per_s": 0.5}, +1),
            ({"mem_latency_s": 2}, +1),
        ],
    )
    @pytest.mark.parametrize("shape", [s.mnk for s in LECTURE_SHAPES])
    def test_better_hardware_is_never_slower(self, factors, direction, shape):
        # every rate enters the step as a denominator and latency as a numerator, and none of these fields
        # changes occupancy or the HBM replay: each launchable config moves in the same direction, or not at all
        land = landscape(shape)
        arr = config_array(land.configs)
        perturbed = evaluate(arr, *shape, _scaled(**factors)).time_s
        if direction < 0:
            assert np.all(perturbed <= land.time_s)
        else:
            assert np.all(perturbed >= land.time_s)

    def test_slower_hbm_hurts_the_hbm_bound_kernel_most(self):
        # the group-1 wider case is HBM bound (347 ns/step vs 280 ns compute): halving HBM bandwidth
        # doubles its step to ~694 ns; the group-8 order (63 ns/step of HBM) still runs at compute speed
        wide = TestHbmBytes.WIDER
        slow = _scaled(hbm_bw_bytes_per_s=0.5)
        g1, g8 = (dataclasses.replace(BEST, group=g) for g in (1, 8))
        assert gemm_time(g1, *wide, slow) / gemm_time(g1, *wide) == pytest.approx(2.0, rel=0.03)
        assert gemm_time(g8, *wide, slow) == pytest.approx(gemm_time(g8, *wide), rel=1e-12)

    def test_bigger_l2_never_adds_hbm_traffic(self):
        # with a 4x larger L2 (200 MiB) the group-1 wave footprint of 134 MiB fits, so B panels survive:
        # A once (16) + B once (132) + C (66) = 214 MiB, the group-8 figure
        big = _scaled(l2_bytes=4)
        assert hbm_bytes(*TestHbmBytes.WIDE, 256, 128, 1, 132, big) == 214 * MiB


def test_tiling_by_hand_and_across_shapes():
    """256x128 tiles on 4096^3: 16 x 32 = 512 blocks, one per SM (96 KiB of pipeline each), 132 a wave:
    three full waves and a tail of 512 - 396 = 116 blocks; on 16 rows the grid is 1 x 32, one wave."""
    arr = config_array([BEST])
    t = tiling(arr, 4096, 4096, 4096)
    assert (t.grid_m[0], t.grid_n[0], t.blocks[0], t.k_steps[0]) == (16, 32, 512, 128)
    assert (t.warps_m[0], t.warps_n[0], t.warp_rows[0], t.warp_cols[0]) == (4, 2, 64, 64)
    assert (t.smem_bytes[0], t.blocks_per_sm[0], t.per_wave[0]) == (4 * 384 * 32 * 2, 1, 132)
    assert (t.waves[0], t.full_waves[0], t.tail_blocks[0], t.tail_blocks_per_sm[0]) == (4, 3, 116, 1)
    many = tiling(arr, np.array([[4096], [16]]), 4096, 4096)
    assert many.blocks.tolist() == [[512], [32]] and many.waves.tolist() == [[4], [1]]
    assert many.rows.tolist() == [[256], [16]]
