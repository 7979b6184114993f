"""Exact facts of the schedule space and its pruning.

The pruning counts are re-derived here from the rules written out by hand in a plain
Python loop, with the H100 numbers typed in, so the test does not merely replay
``schedlab.core.launch.launch_checks`` against itself.
"""

from __future__ import annotations

import dataclasses
import itertools
import pickle

import numpy as np
import pytest

from schedlab.core.hardware import H100_TC
from schedlab.core.knobs import KNOB_NAMES, SPACE, WARP_GRID, GemmConfig, all_configs, config_array
from schedlab.core.launch import Reason, launch_checks, reasons, static_valid
from schedlab.render.labels import launch_reason_label
from schedlab.studies.space import space_summary

# --- the rules, written out independently of schedlab --------------------------------------

BM = (16, 32, 64, 128, 256)
BN = (16, 32, 64, 128, 256)
BK = (16, 32, 64, 128)
WARPS = (1, 2, 4, 8)
STAGES = (1, 2, 3, 4, 5)
GROUP = (1, 4, 8)

SMEM_LIMIT = 227 * 1024  # bytes one block may allocate on compute capability 9.0
FP16 = 2  # bytes per element
GRID = {1: (1, 1), 2: (1, 2), 4: (2, 2), 8: (4, 2)}  # num_warps -> (warps along M, warps along N)
MMA_M, MMA_N = 16, 8  # mma.sync.m16n8k16
MAX_REGS, BASE_REGS, WARP = 255, 40, 32


def hand_reasons(bm, bn, bk, warps, stages, group):
    """The pruning codes of one configuration, from the rules as the lecture states them."""
    codes = []
    if stages * (bm + bn) * bk * FP16 > SMEM_LIMIT:
        codes.append("smem")
    wy, wx = GRID[warps]
    wm, wn = bm / wy, bn / wx
    if wm < MMA_M or wn < MMA_N:
        codes.append("mma")
    elif wm * wn / WARP + BASE_REGS > MAX_REGS:  # the register check only applies to a valid warp tile
        codes.append("registers")
    return codes


@pytest.fixture(scope="module")
def hand():
    """(config tuple -> codes) for the whole space, by a plain loop."""
    return {values: hand_reasons(*values) for values in itertools.product(BM, BN, BK, WARPS, STAGES, GROUP)}


# --- the knob space -----------------------------------------------------------------------


class TestSpace:
    def test_keys_order_and_values(self):
        assert list(SPACE.items()) == [
            ("bm", BM),
            ("bn", BN),
            ("bk", BK),
            ("warps", WARPS),
            ("stages", STAGES),
            ("group", GROUP),
        ]
        assert KNOB_NAMES == ("bm", "bn", "bk", "warps", "stages", "group")

    def test_space_is_read_only(self):
        with pytest.raises(TypeError):
            SPACE["bm"] = (16,)

    def test_warp_grid(self):
        assert dict(WARP_GRID) == GRID
        for warps, (wy, wx) in WARP_GRID.items():
            assert wy * wx == warps

    def test_size_is_the_product(self):
        # 5 * 5 * 4 * 4 * 5 * 3
        assert len(all_configs()) == 6000 == len(set(all_configs()))

    def test_order_last_knob_fastest(self):
        configs = all_configs()
        assert configs[0].as_tuple() == (16, 16, 16, 1, 1, 1)
        assert configs[1].as_tuple() == (16, 16, 16, 1, 1, 4)
        assert configs[3].as_tuple() == (16, 16, 16, 1, 2, 1)
        assert configs[-1].as_tuple() == (256, 256, 128, 8, 5, 8)
        assert [c.as_tuple() for c in configs] == list(itertools.product(BM, BN, BK, WARPS, STAGES, GROUP))

    def test_config_array_matches(self):
        arr = config_array(all_configs())
        assert arr.shape == (6000, 6) and arr.dtype == np.int64
        assert arr.tolist() == [list(c.as_tuple()) for c in all_configs()]


# --- pruning counts, derived by hand ------------------------------------------------------


class TestPruningCounts:
    def test_hand_counts(self, hand):
        """The numbers the lecture prints, from the loop above."""
        count = {code: sum(code in codes for codes in hand.values()) for code in ("smem", "mma", "registers")}
        assert count == {"smem": 384, "mma": 900, "registers": 1200}
        assert sum(not codes for codes in hand.values()) == 3744
        assert len(hand) == 6000

    def test_library_counts(self):
        s = space_summary()
        assert (s.n_configs, s.n_launchable) == (6000, 3744)
        assert {r.code: n for r, n in s.reason_counts} == {"smem": 384, "mma": 900, "registers": 1200}
        assert sum(s.n_by_failures.values()) == 6000
        assert s.n_by_failures[0] == 3744

    def test_vectorised_checks_agree_with_hand_rules_config_by_config(self, hand):
        checks = launch_checks(config_array(all_configs()))
        for i, cfg in enumerate(all_configs()):
            got = [code for code in ("smem", "mma", "registers") if checks[code][i]]
            assert got == hand[cfg.as_tuple()], cfg

    def test_reasons_agree_with_hand_rules_config_by_config(self, hand):
        for cfg in all_configs():
            expected = hand[cfg.as_tuple()]
            assert [r.code for r in reasons(cfg)] == expected, cfg
            assert static_valid(cfg) == (not expected)

    def test_boundary_cases(self):
        # 5 stages of (128 + 128) x 64 halves: 5 * 256 * 64 * 2 = 163840 B = 160 KiB <= 227 KiB: fits
        assert "smem" not in [r.code for r in reasons(GemmConfig(128, 128, 64, 4, 5, 1))]
        # 4 stages of (256 + 256) x 64: 4 * 512 * 64 * 2 = 262144 B = 256 KiB > 227 KiB
        assert "smem" in [r.code for r in reasons(GemmConfig(256, 256, 64, 8, 4, 1))]
        # 8 warps on a 32 x 16 tile: warp tile 32/4 x 16/2 = 8 x 8, 8 rows < 16
        assert [r.code for r in reasons(GemmConfig(32, 16, 16, 8, 1, 1))] == ["mma"]
        # 1 warp on 256 x 128: 256 * 128 / 32 + 40 = 1064 registers > 255
        assert [r.code for r in reasons(GemmConfig(256, 128, 16, 1, 1, 1))] == ["registers"]
        # 8 warps on 256 x 128: warp tile 64 x 64, 4096 / 32 + 40 = 168 <= 255: launches
        assert reasons(GemmConfig(256, 128, 32, 8, 4, 1)) == ()
        # 4 warps on 256 x 128: warp tile 128 x 64, 8192 / 32 + 40 = 296 > 255
        assert [r.code for r in reasons(GemmConfig(256, 128, 32, 4, 4, 1))] == ["registers"]


# --- GemmConfig ---------------------------------------------------------------------------


class TestGemmConfig:
    cfg = GemmConfig(256, 128, 32, 8, 4, 1)

    def test_as_tuple_order(self):
        assert self.cfg.as_tuple() == (256, 128, 32, 8, 4, 1)
        assert (self.cfg.bm, self.cfg.bn, self.cfg.bk, self.cfg.warps, self.cfg.stages, self.cfg.group) == (
            256,
            128,
            32,
            8,
            4,
            1,
        )

    def test_keyword_construction_and_dict_round_trip(self):
        d = dict(zip(SPACE, self.cfg.as_tuple()))
        assert d == {"bm": 256, "bn": 128, "bk": 32, "warps": 8, "stages": 4, "group": 1}
        assert GemmConfig(**d) == self.cfg
        for cfg in all_configs()[::37]:
            assert GemmConfig(**dict(zip(SPACE, cfg.as_tuple()))) == cfg

    def test_hashable_and_equal_by_value(self):
        other = GemmConfig(256, 128, 32, 8, 4, 1)
        assert other == self.cfg and hash(other) == hash(self.cfg)
        assert len({self.cfg, other, GemmConfig(256, 128, 32, 8, 4, 4)}) == 2
        assert {self.cfg: "x"}[other] == "x"

    def test_immutable(self):
        with pytest.raises(AttributeError):  # dataclasses.FrozenInstanceError is an AttributeError
            self.cfg.bm = 128
        with pytest.raises((AttributeError, TypeError)):
            self.cfg.extra = 1
        assert self.cfg.bm == 256

    def test_replace_validates(self):
        assert dataclasses.replace(self.cfg, group=8).as_tuple() == (256, 128, 32, 8, 4, 8)
        with pytest.raises(ValueError, match="group"):
            dataclasses.replace(self.cfg, group=2)

    def test_numpy_ints_are_normalised_to_int(self):
        cfg = GemmConfig(*map(np.int64, (256, 128, 32, 8, 4, 1)))
        assert cfg == self.cfg and hash(cfg) == hash(self.cfg)
        assert all(type(v) is int for v in cfg.as_tuple())

    def test_pickle_round_trip(self):
        assert pickle.loads(pickle.dumps(self.cfg)) == self.cfg

    def test_derived_properties(self):
        # 8 warps as 4 x 2: warp tile 256 / 4 x 128 / 2
        assert self.cfg.warp_tile == (64, 64)
        # 4 stages * (256 + 128) * 32 * 2 B
        assert self.cfg.smem_bytes == 98304


# --- reasons ------------------------------------------------------------------------------


def _has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


class TestReasons:
    def test_reason_is_a_named_pair(self):
        (r, *rest) = reasons(GemmConfig(256, 256, 128, 8, 5, 1))
        assert isinstance(r, Reason) and isinstance(r, tuple)
        assert r._fields == ("code", "message")
        code, message = r
        assert (code, message) == (r.code, r.message)

    def test_codes_in_rule_order(self):
        # 5 * 512 * 128 * 2 B = 640 KiB > 227 KiB; warp tile 64 x 128: 8192 / 32 + 40 = 296 > 255
        assert [r.code for r in reasons(GemmConfig(256, 256, 128, 8, 5, 1))] == ["smem", "registers"]

    def test_messages_name_the_limit_in_english_and_labels_in_chinese(self):
        """The Reason's message is for errors and logs; the lecture's wording lives in render.labels."""
        for words in ("messages", "labels"):
            seen = {}
            for cfg in (GemmConfig(256, 256, 128, 8, 5, 1), GemmConfig(16, 16, 16, 8, 1, 1)):
                for r in reasons(cfg):
                    seen[r.code] = r.message if words == "messages" else launch_reason_label(r, H100_TC)
            assert set(seen) == {"smem", "mma", "registers"}
            assert all(_has_cjk(m) == (words == "labels") for m in seen.values())
            assert "227" in seen["smem"]
            assert "16" in seen["mma"] and "8" in seen["mma"]
            assert "255" in seen["registers"]

    def test_launchable_has_no_reasons(self):
        assert reasons(GemmConfig(64, 64, 32, 4, 3, 8)) == ()
        assert static_valid(GemmConfig(64, 64, 32, 4, 3, 8))


def test_h100_smem_limit():
    assert H100_TC.smem_limit == 227 * 1024
    assert H100_TC.smem_per_sm == 228 * 1024
