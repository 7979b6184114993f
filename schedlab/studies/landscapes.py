"""Which study shapes are really different tests of a tuner, and where their optima sit.

Trials-to-5 % depends on the shape only through its *good set*: the configurations
within 5 % of its optimum. Two shapes with the same good set are the same test twice
(4096³, prefill 512 and 2048² x 512 share theirs: the 15 configs that tie with
256 x 128 x 32, 8 warps, 4 stages, any GROUP_M). :func:`distinct_landscapes` groups a
list of shapes by good set.

Where the optimum sits matters as much. :func:`optimum_at_box_corner` asks whether some
optimal config has every knob at an end of its launchable range (one step further,
with the other knobs fixed, leaves ``SPACE`` or cannot launch): a vertex of the pruned
knob box. There a surrogate that is linear in the log-knobs finds it by extrapolating;
in the middle of the box it has to fit a curve. :data:`MID_BOX_SHAPES` are shapes
whose optima are not at such a corner, added to the study for that reason. (The guides
chapter's :func:`schedlab.tuning.surrogates.hull_vertex_optimum` asks a different question: whether
the 5 % plateau holds a vertex of the launchable set's convex hull.)
"""

from __future__ import annotations

import numpy as np

from schedlab.core.hardware import Hardware
from schedlab.core.knobs import SPACE, GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.shapes import Shape, as_mnk

__all__ = ["MID_BOX_SHAPES", "good_set", "distinct_landscapes", "optimum_at_box_corner"]

#: Shapes whose optimum lies inside the pruned knob box (mid-size batches), found by scanning
#: M x N x K grids for optima off every corner (tests/test_landscapes.py checks each).
MID_BOX_SHAPES = (
    Shape(96, 4096, 4096, "mid96"),
    Shape(128, 4096, 4096, "mid128"),
    Shape(256, 4096, 4096, "mid256"),
)

_TIE = 1 + 1e-9  # time / best at or below this is "as fast as the best"


def good_set(shape, factor: float = 1.05, hw: Hardware | None = None) -> frozenset[GemmConfig]:
    """The configs within ``factor`` of ``shape``'s optimum (its plateau).

    Examples
    --------
    >>> len(good_set((4096, 4096, 4096))), good_set((4096, 4096, 4096)) == good_set((2048, 2048, 512))
    (15, True)
    """
    land = landscape(shape, hw)
    return frozenset(land.configs[i] for i in np.flatnonzero(land.ratio <= factor * (1 + 1e-12)))


def distinct_landscapes(shapes, factor: float = 1.05, hw: Hardware | None = None) -> tuple[tuple, ...]:
    """Group ``shapes`` by good set, in first-seen order: each group is one test of a tuner.

    Examples
    --------
    >>> from schedlab.core.shapes import LECTURE_SHAPES
    >>> [len(g) for g in distinct_landscapes(LECTURE_SHAPES)]
    [3, 1]
    """
    groups: dict[frozenset, list] = {}
    for s in shapes:
        as_mnk(s)
        groups.setdefault(good_set(s, factor, hw), []).append(s)
    return tuple(tuple(g) for g in groups.values())


def _at_edge(index, cfg: GemmConfig) -> bool:
    values = cfg.as_tuple()
    for j, knob in enumerate(SPACE):
        options = SPACE[knob]
        v = options.index(values[j])
        steps = 0
        for d in (-1, 1):
            if 0 <= v + d < len(options):
                moved = list(values)
                moved[j] = options[v + d]
                steps += GemmConfig(*moved) in index
        if steps == 2:  # this knob can move both ways: the config is not at a corner
            return False
    return True


def optimum_at_box_corner(shape, hw: Hardware | None = None) -> bool:
    """Whether some optimal config of ``shape`` sits at a corner of the pruned knob box.

    Examples
    --------
    >>> optimum_at_box_corner((4096, 4096, 4096)), optimum_at_box_corner((256, 4096, 4096))
    (True, False)
    """
    land = landscape(shape, hw)
    tied = np.flatnonzero(land.time_s <= land.best_time_s * _TIE)
    return any(_at_edge(land.index, land.configs[i]) for i in tied)
