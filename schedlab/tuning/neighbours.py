"""What a strategy may know about a configuration before measuring it: its neighbours.

:class:`NeighbourTables` says, for the launchable configurations of one machine, which configs lie
one knob-step away (simulated annealing, evolutionary search's mutation) and along each knob's line
(coordinate descent). The tables are shape-independent; :func:`schedlab.tuning.measurer.search_context`
reads them once per machine. (The static features model-guided search learns from are
:func:`schedlab.tuning.features.feature_matrix`.)

:func:`grid_tables` builds the same tables for any grid of knobs (a measured landscape's,
:mod:`schedlab.tuning.measured`); a table's ``sizes`` and ``strides`` index its whole grid,
measurable or not: flat index ``knobs @ strides``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.hardware import Hardware
from schedlab.core.knobs import SPACE
from schedlab.core.launch import launchable

__all__ = [
    "KNOB_SIZES",
    "NeighbourTables",
    "neighbour_tables",
    "grid_tables",
]

#: Number of values of each knob, in ``SPACE`` order.
KNOB_SIZES = tuple(len(v) for v in SPACE.values())


@dataclass(frozen=True, eq=False)
class NeighbourTables:
    """Tables over the configurations a search may measure (one machine's launchable ones, or a measured landscape's).

    The configurations sit on a grid of knobs with ``sizes[j]`` values each (``SPACE`` for the
    model): ``knobs[i, j]`` is the position of config ``i``'s value of knob ``j``;
    ``adjacent[i]`` lists (``-1`` padded) the configs one knob one step away;
    ``line[j, i, v]`` is the config equal to ``i`` except knob ``j`` at position ``v``
    (``-1`` where that cannot be measured or ``v`` is out of range);
    ``full_to_launch`` maps a flat index ``knobs @ strides`` of the whole grid to a config or ``-1``;
    ``values`` holds the configs' knob values (``SPACE`` values for the model; the positions
    ``knobs`` on a grid whose values need not be numbers).
    """

    n: int
    knobs: np.ndarray
    values: np.ndarray
    adjacent: np.ndarray
    line: np.ndarray
    full_to_launch: np.ndarray
    lines_py: tuple  # lines_py[j][i]: tuple of indices along knob j through i (i included)
    adjacent_py: tuple  # adjacent_py[i]: tuple of one-step neighbours of i
    sizes: tuple[int, ...]  # values per knob
    strides: np.ndarray  # flat index of a grid point: knobs @ strides

    @property
    def n_knobs(self) -> int:
        return len(self.sizes)


@memoised(maxsize=8)
def neighbour_tables(hw: Hardware) -> NeighbourTables:
    """The :class:`NeighbourTables` of ``hw``'s launchable configs, built once per machine (read-only arrays)."""
    space = launchable(hw)
    values = space.array
    knobs = np.stack([np.searchsorted(SPACE[k], values[:, j]) for j, k in enumerate(SPACE)], axis=1)
    return grid_tables(knobs, KNOB_SIZES, values)


def grid_tables(knobs: np.ndarray, sizes, values: np.ndarray | None = None) -> NeighbourTables:
    """The :class:`NeighbourTables` of the configurations ``knobs`` (positions, one row each) on a grid of ``sizes``.

    Every knob must take at least two values (a knob with one value is a constant: leave it out);
    ``values`` defaults to ``knobs``. The arrays are read-only.

    Examples
    --------
    >>> t = grid_tables(np.array([[0, 0], [1, 0], [1, 1]]), (2, 3))
    >>> t.adjacent_py, t.lines_py[1]
    (((1,), (0, 2), (1,)), ((0,), (1, 2), (1, 2)))
    """
    sizes = tuple(int(s) for s in sizes)
    knobs = np.array(knobs, dtype=np.int64)
    n_knobs = len(sizes)
    if knobs.ndim != 2 or knobs.shape[1] != n_knobs or min(sizes, default=0) < 2:
        raise ValueError(
            f"knobs must be (n, {n_knobs}) positions on a grid of knobs with >= 2 values each, got {sizes}"
        )
    if ((knobs < 0) | (knobs >= np.array(sizes))).any():
        raise ValueError("knobs holds a position outside its knob's values")
    strides = np.array([int(np.prod(sizes[j + 1 :])) for j in range(n_knobs)], dtype=np.int64)
    n = len(knobs)
    flat = knobs @ strides
    full_to_launch = np.full(int(np.prod(sizes)), -1, dtype=np.int64)
    full_to_launch[flat] = np.arange(n)
    if (full_to_launch >= 0).sum() != n:
        raise ValueError("knobs holds one configuration twice")
    line = np.full((n_knobs, n, max(sizes)), -1, dtype=np.int64)
    adjacent = np.full((n, 2 * n_knobs), -1, dtype=np.int64)
    for j in range(n_knobs):
        base = flat - knobs[:, j] * strides[j]
        for v in range(sizes[j]):
            line[j, :, v] = full_to_launch[base + v * strides[j]]
        for d, step in enumerate((-1, 1)):
            v = knobs[:, j] + step
            inside = (v >= 0) & (v < sizes[j])
            adjacent[inside, 2 * j + d] = full_to_launch[base[inside] + v[inside] * strides[j]]
    # compact the adjacency rows: valid neighbours first
    order = np.argsort(adjacent < 0, axis=1, kind="stable")
    adjacent = np.take_along_axis(adjacent, order, axis=1)
    lines_py = tuple(tuple(tuple(int(c) for c in row if c >= 0) for row in line[j].tolist()) for j in range(n_knobs))
    adjacent_py = tuple(tuple(c for c in row if c >= 0) for row in adjacent.tolist())
    for a in (knobs, adjacent, line, full_to_launch, strides):
        a.flags.writeable = False
    return NeighbourTables(
        n=n,
        knobs=knobs,
        values=knobs if values is None else values,
        adjacent=adjacent,
        line=line,
        full_to_launch=full_to_launch,
        lines_py=lines_py,
        adjacent_py=adjacent_py,
        sizes=sizes,
        strides=strides,
    )
