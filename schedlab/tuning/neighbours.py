"""What a strategy may know about a configuration before measuring it: its neighbours.

:class:`NeighbourTables` says, for the launchable configurations of one machine, which configs lie
one knob-step away (simulated annealing, evolutionary search's mutation) and along each knob's line
(coordinate descent). The tables are shape-independent; :func:`schedlab.tuning.measurer.search_context`
reads them once per machine. (The static features model-guided search learns from are
:func:`schedlab.tuning.features.feature_matrix`.)

:func:`grid_tables` builds the same tables for any grid of knobs (a measured landscape's,
:mod:`schedlab.tuning.measured`) from the measured points alone: nothing is allocated per point of
the whole grid (a cache of two entries over six knobs of 100 values each is a grid of 10^12 points,
and 64 two-valued knobs overflow an int64 flat index). A grid point is found by
:meth:`NeighbourTables.index_of`: its knob positions, as bytes, binary-searched among the
measured points' (sorted once).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.hardware import Hardware
from schedlab.core.knobs import SPACE, knob_positions
from schedlab.core.launch import launchable
from schedlab.core.measured import row_keys

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
    ``steps[i, j]`` holds the configs one step down and one step up knob ``j`` from ``i``
    (``-1`` where that point cannot be measured or lies outside the grid);
    ``values`` holds the configs' knob values (``SPACE`` values for the model; the positions
    ``knobs`` on a grid whose values need not be numbers). :meth:`index_of` finds any grid point.
    """

    n: int
    knobs: np.ndarray
    values: np.ndarray
    adjacent: np.ndarray
    steps: np.ndarray
    lines_py: tuple  # lines_py[j][i]: tuple of indices along knob j through i (i included); one tuple per line
    adjacent_py: tuple  # adjacent_py[i]: tuple of one-step neighbours of i
    sizes: tuple[int, ...]  # values per knob
    sorted_keys: np.ndarray = dataclasses.field(repr=False)  # the configs' rows as bytes, sorted
    sorted_index: np.ndarray = dataclasses.field(repr=False)  # the config of each sorted key

    @property
    def n_knobs(self) -> int:
        return len(self.sizes)

    def index_of(self, positions) -> np.ndarray:
        """The config at each row of knob ``positions`` (``(..., n_knobs)``), ``-1`` where none can be measured.

        Examples
        --------
        >>> t = grid_tables(np.array([[0, 0], [1, 1]]), (2, 3))
        >>> t.index_of([[1, 1], [0, 1], [5, 0]]).tolist()
        [1, -1, -1]
        """
        positions = np.asarray(positions, dtype=np.int64)
        shape = positions.shape[:-1]
        rows = positions.reshape(-1, self.n_knobs)
        inside = ((rows >= 0) & (rows < np.array(self.sizes))).all(axis=1)
        keys = row_keys(np.where(inside[:, None], rows, 0))
        at = np.minimum(np.searchsorted(self.sorted_keys, keys), self.n - 1)
        found = inside & (self.sorted_keys[at] == keys)
        return np.where(found, self.sorted_index[at], -1).reshape(shape)


@memoised(maxsize=8)
def neighbour_tables(hw: Hardware) -> NeighbourTables:
    """The :class:`NeighbourTables` of ``hw``'s launchable configs, built once per machine (read-only arrays)."""
    space = launchable(hw)
    values = space.array
    return grid_tables(knob_positions(values), KNOB_SIZES, values)


def _line_order(knobs: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
    """The configs sorted by their line along knob ``j`` (every other knob), then by knob ``j``; and where lines start."""
    moved = np.concatenate([np.delete(knobs, j, axis=1), knobs[:, j : j + 1]], axis=1)
    order = np.argsort(row_keys(moved), kind="stable")
    others = row_keys(moved[order, :-1]) if knobs.shape[1] > 1 else np.zeros(len(order), dtype="V1")
    starts = np.flatnonzero(np.concatenate([[True], others[1:] != others[:-1]])) if len(order) else np.zeros(0, int)
    return order, starts


def grid_tables(knobs: np.ndarray, sizes, values: np.ndarray | None = None) -> NeighbourTables:
    """The :class:`NeighbourTables` of the configurations ``knobs`` (positions, one row each) on a grid of ``sizes``.

    Every knob must take at least two values (a knob with one value is a constant: leave it out);
    ``values`` defaults to ``knobs``. The arrays are read-only. Time and memory grow with the
    configurations and knobs (``n log n``), not with the grid.

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
    n = len(knobs)
    keys = row_keys(knobs)
    sorted_index = np.argsort(keys, kind="stable")
    sorted_keys = keys[sorted_index]
    if n > 1 and (sorted_keys[1:] == sorted_keys[:-1]).any():
        raise ValueError("knobs holds one configuration twice")
    steps = np.full((n, n_knobs, 2), -1, dtype=np.int64)
    lines_py = []
    for j in range(n_knobs):
        order, starts = _line_order(knobs, j)
        same_line = np.ones(max(n - 1, 0), dtype=bool)
        same_line[starts[1:] - 1] = False
        next_to = same_line & (knobs[order[1:], j] == knobs[order[:-1], j] + 1)
        steps[order[1:][next_to], j, 0] = order[:-1][next_to]
        steps[order[:-1][next_to], j, 1] = order[1:][next_to]
        ordered = order.tolist()
        bounds = [*starts.tolist(), n]
        line_of = np.repeat(np.arange(len(starts)), np.diff(bounds))
        lines = [tuple(ordered[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]  # one tuple per line, shared
        by_config = [None] * n
        for i, g in zip(ordered, line_of.tolist()):
            by_config[i] = lines[g]
        lines_py.append(tuple(by_config))
    adjacent = steps.reshape(n, 2 * n_knobs)
    order = np.argsort(adjacent < 0, axis=1, kind="stable")  # valid neighbours first
    adjacent = np.take_along_axis(adjacent, order, axis=1)
    adjacent_py = tuple(tuple(c for c in row if c >= 0) for row in adjacent.tolist())
    for a in (knobs, adjacent, steps, sorted_keys, sorted_index):
        a.flags.writeable = False
    return NeighbourTables(
        n=n,
        knobs=knobs,
        values=knobs if values is None else values,
        adjacent=adjacent,
        steps=steps,
        lines_py=tuple(lines_py),
        adjacent_py=adjacent_py,
        sizes=sizes,
        sorted_keys=sorted_keys,
        sorted_index=sorted_index,
    )
