"""Good sets, distinct landscapes and corner optima (schedlab.studies.landscapes), checked by brute force."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.core.knobs import SPACE, GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.studies.landscapes import MID_BOX_SHAPES, distinct_landscapes, good_set, optimum_at_box_corner


def _brute_corner(shape) -> bool:
    """Every tied optimum, every knob, every step: a restatement by loops over the whole grid."""
    land = landscape(shape)
    launch = set(land.configs)
    for i in np.flatnonzero(land.time_s <= land.best_time_s * (1 + 1e-9)):
        c = land.configs[i].as_tuple()
        movable = 0
        for j, knob in enumerate(SPACE):
            neighbours = [
                v for v in SPACE[knob] if v != c[j] and abs(SPACE[knob].index(v) - SPACE[knob].index(c[j])) == 1
            ]
            ok = [GemmConfig(*(c[:j] + (v,) + c[j + 1 :])) in launch for v in neighbours]
            movable += len(ok) == 2 and all(ok)
        if movable == 0:
            return True
    return False


@pytest.mark.parametrize("shape", [s.mnk for s in LECTURE_SHAPES + MID_BOX_SHAPES] + [(64, 4096, 4096)])
def test_optimum_at_box_corner_agrees_with_brute_force(shape):
    assert optimum_at_box_corner(shape) == _brute_corner(shape)


def test_mid_box_shapes_are_off_the_corners_and_new_landscapes():
    assert not any(optimum_at_box_corner(s) for s in MID_BOX_SHAPES)
    groups = distinct_landscapes(LECTURE_SHAPES + MID_BOX_SHAPES)
    assert len(groups) == 2 + len(MID_BOX_SHAPES)  # each mid-box shape is a landscape of its own


def test_lecture_shapes_three_share_one_good_set():
    (big, decode) = distinct_landscapes(LECTURE_SHAPES)
    assert [s.key for s in big] == ["square", "prefill512", "small-k"]
    gs = good_set(big[0])
    assert all(c.bm == 256 and c.bn == 128 and c.warps == 8 for c in gs)
    assert decode == (LECTURE_SHAPES[3],)


def test_good_set_is_the_configs_within_factor():
    land = landscape((512, 4096, 4096))
    gs = good_set((512, 4096, 4096), factor=1.10)
    assert gs == {c for c, r in zip(land.configs, land.ratio) if r <= 1.10 + 1e-9}
