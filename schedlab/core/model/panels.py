"""The panels a run of consecutive blocks of Triton's grouped launch order touches, as intervals.

Both HBM replays (:mod:`.hbm` wave by wave, :mod:`.closed` over the repeating waves) read a wave's
bytes from these: :func:`intervals` of its pids, :func:`touched_lines` of them, and
:func:`shared_lines` with the wave before it. All work elementwise on int64 arrays.
"""

from __future__ import annotations

import numpy as np

__all__ = ["intervals", "lines", "shared_lines", "touched_lines"]


def intervals(start, end, group, grid_m, grid_n):
    """The A row-panels and B column-panels blocks ``[start, end)`` of the grouped order touch, as intervals.

    A group of ``G`` rows holds ``G * grid_n`` consecutive pids (the last group may have fewer rows),
    walked down its rows, then right. So a run of pids touches, in its first group, a column interval
    and a (cyclic) row interval; all rows and columns of any group it covers whole; and, in its last
    group, columns from 0 and rows from the group's first row. Returns four row intervals and two
    column intervals ``(lo, hi)`` of panel indices (empty where ``lo >= hi``).
    """
    in_group = group * grid_n
    g0, g1 = start // in_group, (end - 1) // in_group
    size0 = np.minimum(group, grid_m - g0 * group)
    size1 = np.minimum(group, grid_m - g1 * group)
    # first group: offsets [o0, o1) inside it; its rows [row0, row0 + length0) wrap inside the group
    o0 = start - g0 * in_group
    o1 = np.minimum(end, g0 * in_group + size0 * grid_n) - g0 * in_group
    length0, row0 = o1 - o0, o0 % size0
    whole0 = length0 >= size0
    top = g0 * group
    later = g1 > g0
    length1 = end - g1 * in_group
    rows = [
        (top + np.where(whole0, 0, row0), top + np.where(whole0, size0, np.minimum(row0 + length0, size0))),
        (top, top + np.where(whole0, 0, np.maximum(row0 + length0 - size0, 0))),  # the wrapped part
        (np.where(later, (g0 + 1) * group, 0), np.where(later, g1 * group, 0)),  # groups covered whole
        (np.where(later, g1 * group, 0), np.where(later, g1 * group + np.minimum(length1, size1), 0)),
    ]
    # columns: first group [c0, c1); then everything if a whole group lies between, else last group [0, c2)
    c0, c1 = o0 // size0, (o1 - 1) // size0 + 1
    c2 = np.where(later, (length1 - 1) // size1 + 1, 0)
    every = g1 >= g0 + 2
    merged = every | (c2 >= c0)
    cols = [
        (np.where(merged, 0, c0), np.where(every, grid_n, np.where(merged, np.maximum(c1, c2), c1))),
        (np.zeros_like(c0), np.where(merged, 0, c2)),
    ]
    return rows, cols


def lines(lo, hi, tile, extent):
    """A rows (B columns) in panels ``[lo, hi)`` of ``tile`` rows (columns) each: ``min(hi tile, extent) - min(lo tile, extent)``."""
    return np.minimum(np.maximum(hi, lo) * tile, extent) - np.minimum(lo * tile, extent)


def shared_lines(rows, cols, prev_rows, prev_cols, bm, bn, M, N):
    """Lines (A rows plus B columns) a run of pids shares with the run just before it.

    The previous run ends where this one starts, in this run's first group or the group before it;
    so only this run's first-group rows can meet the previous run's rows, and only that run's
    first- and last-group rows (the groups it covers whole lie before its last group).
    """
    total = np.zeros(np.shape(bm), dtype=np.result_type(bm, M))
    for lo, hi in rows[:2]:
        for prev_lo, prev_hi in prev_rows[:2] + prev_rows[3:]:
            total += lines(np.maximum(lo, prev_lo), np.minimum(hi, prev_hi), bm, M)
    for lo, hi in cols:
        for prev_lo, prev_hi in prev_cols:
            total += lines(np.maximum(lo, prev_lo), np.minimum(hi, prev_hi), bn, N)
    return total


def touched_lines(rows, cols, bm, bn, M, N):
    return sum(lines(lo, hi, bm, M) for lo, hi in rows) + sum(lines(lo, hi, bn, N) for lo, hi in cols)
