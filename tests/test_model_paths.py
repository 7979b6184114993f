"""The terms issue 24 added: the tensor-core rate by instruction path, the issue of the compiled loop and of the code
before it, the k-step's fixed clocks against BLOCK_K, the epilogue's pass through shared memory, and launches eager or as CUDA-graph nodes."""

import dataclasses

import numpy as np
import pytest

from schedlab.core.hardware import A100_SXM4, H100_SXM, H100_TC, H200_SXM, LAUNCH_MODES, launched
from schedlab.core.knobs import GemmConfig, config_array
from schedlab.core.model.engine import evaluate, explain
from schedlab.core.resources import loop_instructions, preamble_instructions, uses_wgmma

SQUARE = (4096, 4096, 4096)


def _t_tc(cfg, hw, shape=SQUARE):
    return explain(cfg, *shape, hw).t_tc_s


class TestTensorCorePath:
    def test_mma_sync_configs_compute_at_the_fraction_of_the_wgmma_rate(self):
        """Two warps lower to mma.sync, four to wgmma (same block): only the first slows by the fraction.
        (128 x 128 x 64 with two warps spills, and its loop's issue binds before the tensor cores at the full
        rate; 128 x 64 does not.)"""
        one_path = dataclasses.replace(H100_SXM, mma_sync_fraction=1.0)
        cfg2, cfg4 = GemmConfig(128, 64, 64, 2, 3, 8), GemmConfig(128, 64, 64, 4, 3, 8)
        assert not uses_wgmma(128, 64, 2, H100_SXM) and uses_wgmma(128, 64, 4, H100_SXM)
        assert _t_tc(cfg2, H100_SXM) == pytest.approx(_t_tc(cfg2, one_path) / H100_SXM.mma_sync_fraction)
        assert _t_tc(cfg4, H100_SXM) == _t_tc(cfg4, one_path)

    def test_block_m_under_64_is_mma_sync_even_with_four_warps(self):
        cfg = GemmConfig(32, 128, 64, 4, 3, 8)
        one_path = dataclasses.replace(H100_SXM, mma_sync_fraction=1.0)
        assert _t_tc(cfg, H100_SXM) == pytest.approx(_t_tc(cfg, one_path) / H100_SXM.mma_sync_fraction)

    @pytest.mark.parametrize("hw", [A100_SXM4, H100_TC], ids=["a100-sxm4", "h100-lecture"])
    def test_one_path_machines_price_every_config_at_their_one_rate(self, hw):
        """The A100 has only mma.sync, measured; the lecture prices every mma at the datasheet's peak."""
        assert hw.mma_sync_fraction == 1.0
        cfg = GemmConfig(64, 64, 32, 2, 3, 8)
        assert _t_tc(cfg, hw) == _t_tc(cfg, dataclasses.replace(hw, mma_sync_fraction=0.5)) * 0.5

    def test_hopper_mma_sync_is_slower_than_wgmma(self):
        assert 0.5 < H100_SXM.mma_sync_fraction < 0.8


class TestIssueSlots:
    def test_a_tile_of_few_mma_per_warp_is_bound_by_issuing_its_loop(self):
        """16 x 32 x 32 with 2 warps on the A100, one block per SM: each warp alone on its sub-partition issues the
        compiled loop's instructions one per clock, longer than its 4 mma.sync keep the tensor core busy."""
        cfg = GemmConfig(16, 32, 32, 2, 5, 8)
        shape = (16, 32 * A100_SXM4.n_sm, 4096)
        b = explain(cfg, *shape, A100_SXM4)
        assert b.blocks == A100_SXM4.n_sm and b.waves == 1  # the one wave is a partial one: one block on each SM
        issue_s = int(loop_instructions(config_array([cfg]), A100_SXM4)[0]) / A100_SXM4.clock_hz
        tensor_s = 2 * 16 * 32 * 32 / (2 * A100_SXM4.flop_per_clk_per_tensor_core * A100_SXM4.clock_hz)
        assert issue_s > tensor_s
        assert b.t_tc_s == pytest.approx(issue_s)

    def test_a_large_tile_keeps_its_tensor_core_time(self):
        b = explain(GemmConfig(128, 128, 64, 4, 3, 8), *SQUARE, H100_SXM)
        flop = b.blocks_per_sm * 2 * 128 * 128 * 64
        assert b.t_tc_s == pytest.approx(flop / (4 * H100_SXM.flop_per_clk_per_tensor_core * H100_SXM.clock_hz))

    def test_the_lecture_counts_no_issue(self):
        assert loop_instructions(config_array([GemmConfig(16, 32, 32, 2, 5, 8)]), H100_TC).tolist() == [0]


class TestPreamble:
    """Each block's warps issue the compiled code before the k-loop once, four sub-partitions an SM."""

    def test_one_block_per_sm_issues_its_preamble_once(self):
        # 128 x 128 x 64, 4 warps: 132 blocks on 132 SMs, one each: its 4 warps on the 4 sub-partitions
        cfg = GemmConfig(128, 128, 64, 4, 3, 8)
        b = explain(cfg, 128, 128 * H100_SXM.n_sm, 4096, H100_SXM)
        assert b.blocks == H100_SXM.n_sm and b.waves == 1
        preamble = int(preamble_instructions(config_array([cfg]), H100_SXM)[0])
        assert preamble > 0 and b.preamble_s == pytest.approx(preamble / H100_SXM.clock_hz)

    def test_eight_warps_take_twice_the_issue_of_four(self):
        # the same instructions per warp would take two clocks each: each sub-partition holds two of the warps
        cfgs = [GemmConfig(128, 128, 64, w, 3, 8) for w in (4, 8)]
        shape = (128, 128 * H100_SXM.n_sm, 4096)
        per_warp = preamble_instructions(config_array(cfgs), H100_SXM) / H100_SXM.clock_hz
        four, eight = (explain(c, *shape, H100_SXM).preamble_s for c in cfgs)
        assert four == pytest.approx(per_warp[0]) and eight == pytest.approx(2 * per_warp[1])

    def test_a_block_of_two_warps_pays_its_whole_preamble(self):
        # its warps issue on two sub-partitions; the SM's other resident blocks, started out of phase, do not share
        # those clocks out: each of the busiest SM's blocks costs P clocks, however few its warps
        cfg = GemmConfig(64, 128, 32, 2, 3, 8)
        b = explain(cfg, 4096, 14336, 128, H100_SXM)
        assert b.blocks_per_sm > 1
        per_sm = -(-b.blocks // H100_SXM.n_sm)
        preamble = int(preamble_instructions(config_array([cfg]), H100_SXM)[0])
        assert b.preamble_s == pytest.approx(per_sm * preamble / H100_SXM.clock_hz)

    def test_every_wave_issues_its_blocks_preambles(self):
        cfg = GemmConfig(128, 128, 64, 4, 3, 8)
        one, four = (explain(cfg, 128 * m, 128 * H100_SXM.n_sm, 4096, H100_SXM) for m in (2, 8))
        assert one.blocks_per_sm == 2 and (one.waves, four.waves) == (1, 4)
        assert four.preamble_s == pytest.approx(4 * one.preamble_s)

    def test_nothing_hides_the_preamble(self, monkeypatch):
        # short K, 55 waves of 4 blocks an SM: the kernel without its preamble is shorter by exactly its issue
        import schedlab.core.model.terms as terms

        cfg, shape = GemmConfig(64, 128, 32, 4, 3, 8), (16384, 14336, 128)
        with_it = evaluate([cfg], *shape, H100_SXM)
        monkeypatch.setattr(terms, "preamble_instructions", lambda arr, hw, alignment: np.zeros(len(arr), dtype=int))
        without = evaluate([cfg], *shape, H100_SXM)
        assert without.preamble_s[0] == 0 and with_it.preamble_s[0] > 0.05 * with_it.time_s[0]
        assert with_it.time_s[0] - without.time_s[0] == pytest.approx(with_it.preamble_s[0])

    def test_the_lecture_runs_no_preamble(self):
        b = explain(GemmConfig(128, 128, 64, 4, 3, 8), 4096, 4096, 4096, H100_TC)
        assert preamble_instructions(config_array([GemmConfig(128, 128, 64, 4, 3, 8)]), H100_TC).tolist() == [0]
        assert b.preamble_s == 0


class TestKStepClocks:
    def test_the_k_step_clocks_cost_half_as_much_per_flop_at_block_k_64(self):
        """The unhidden clocks are paid per k-step whatever BLOCK_K: 64 has half the k-steps of 32, so on the
        same block (one resident per SM either way, so the same waves) the k-step clocks add half as much time."""
        ideal = dataclasses.replace(H100_SXM, t_k_step_clk=0.0)
        added = {}
        for bk in (32, 64):
            cfg = GemmConfig(256, 128, bk, 8, 2, 8)
            assert explain(cfg, *SQUARE, H100_SXM).blocks_per_sm == 1
            added[bk] = explain(cfg, *SQUARE, H100_SXM).time_s - explain(cfg, *SQUARE, ideal).time_s
        assert added[64] == pytest.approx(added[32] / 2, rel=0.05)

    # how many L1 round trips a k-step pays is counted in the compiled loop: tests/test_triton_rules.py


class TestEpilogue:
    def test_the_c_tile_passes_twice_through_shared_memory_per_block(self):
        """One wave of one block per SM (132 blocks of 256 x 128 on 2048 x 2112 ... ): the shared-memory passes
        add 2 * BM * BN * 2 bytes at 128 B/clk to the epilogue."""
        cfg = GemmConfig(256, 128, 64, 8, 3, 8)
        shape = (256 * 12, 128 * 11, 4096)  # 132 blocks, one wave, one block per SM
        without = dataclasses.replace(H100_SXM, epilogue_smem_passes=0)
        b, b0 = explain(cfg, *shape, H100_SXM), explain(cfg, *shape, without)
        assert b.waves == 1 and b.blocks_per_sm == 1
        expected_s = 2 * 256 * 128 * 2 / (128 * H100_SXM.clock_hz)
        assert b.epilogue_s - b0.epilogue_s == pytest.approx(expected_s)

    def test_the_lecture_stores_from_registers(self):
        assert H100_TC.epilogue_smem_passes == 0


class TestLaunchModes:
    @pytest.mark.parametrize("hw", [H100_SXM, A100_SXM4, H200_SXM], ids=lambda hw: hw.key)
    def test_a_graph_node_launches_cheaper_than_an_eager_launch(self, hw):
        assert 0 < hw.t_launch_graph_s < hw.t_launch_s

    def test_graph_mode_changes_only_the_launch(self):
        cfg, shape = GemmConfig(64, 128, 128, 4, 3, 8), (16, 4096, 4096)
        eager, graph = (explain(cfg, *shape, launched(H100_SXM, m)) for m in LAUNCH_MODES)
        assert eager.time_s - graph.time_s == pytest.approx(H100_SXM.t_launch_s - H100_SXM.t_launch_graph_s)

    def test_the_lecture_launches_for_free_either_way(self):
        assert launched(H100_TC, "graph").t_launch_s == H100_TC.t_launch_s == 0.0
