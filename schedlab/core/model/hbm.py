"""The HBM term ``t_hbm_s = Q_HBM / BW_HBM``, ``Q_HBM`` counted by replaying the launch order wave by wave.

Blocks run ``per_wave`` at a time in Triton's grouped launch order. Each wave reads from HBM
the A row-panels and B column-panels it touches, less what the previous wave left in L2; C is
written once (:func:`hbm_bytes` states the rule). The replay works on intervals of the launch
order, so it costs O(waves), not O(blocks), and it depends on a configuration only through
``(bm, bn, group, per_wave)``: :func:`hbm_term` replays each such launch order once per shape and
is the one place the model turns bytes into the HBM time that :func:`.terms.kernel_time` charges.
:func:`hbm_bound_s` bounds that time from above without replaying (the panels each wave can
touch, L2 reuse ignored), so the engine can skip replays that cannot matter.
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_int
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.space import check_knob, check_shape

__all__ = ["hbm_bytes", "hbm_term", "hbm_bound_s", "wave_panels_bound", "check_exact"]


def hbm_bytes(M, N, K, bm, bn, group, per_wave, hw: Hardware | None = None) -> float:
    """HBM bytes of a whole GEMM, replaying the grouped launch order wave by wave.

    Notes
    -----
    Blocks run ``per_wave`` at a time in launch order. Within a wave each A row-panel
    (``rows x K``) and B column-panel (``K x cols``) it touches is read from HBM once.
    A panel the previous wave also touched is still in L2 with probability
    ``min(1, l2_bytes_shared / footprint)``, where the footprint is the bytes of all panels the
    previous wave touched (survival rule: everything stays when it fits; when it does not,
    the part that fits stays, as under random replacement). C is written once. On an L2 split
    in sections (``hw.l2_partitions``, two on the A100 and the H100) a panel read by SMs on both
    sides is held in both, so the capacity is one section's, ``hw.l2_bytes_shared``.

    Examples
    --------
    >>> hbm_bytes(4096, 4096, 4096, 256, 128, 1, 132) / 2**20  # MiB
    96.0
    """
    M, N, K = check_shape(M, N, K)
    hw = check_hardware(hw)
    check_exact(M, N, K, hw)
    for name, value in (("bm", bm), ("bn", bn), ("group", group)):
        check_knob(name, value)
    check_int("per_wave", per_wave, minimum=1)
    return float(_replay(M, N, K, ((bm, bn, group, per_wave),), hw)[0])


def hbm_term(M, N, K, combos, hw: Hardware) -> tuple[np.ndarray, np.ndarray]:
    """``(bytes_hbm, t_hbm_s)``: the HBM bytes and the whole kernel's HBM time of launch orders on shapes.

    ``combos`` holds four int64 arrays ``(bm, bn, group, per_wave)``, one launch order per entry.
    With scalar ``M, N, K`` each launch order is replayed on that shape (cached): both results have
    the length of ``combos``. Otherwise ``M, N, K`` and ``combos`` broadcast together (``(s, 1)``
    columns against ``(u,)`` combinations price every pair; arrays of one length, chosen pairs) and
    every element is replayed in one pass; the results take the broadcast shape.

    Notes
    -----
    ``t_hbm_s = Q_HBM / BW_HBM``: the kernel's whole HBM transfer, one queue for all its waves
    (see :func:`.terms.kernel_time`). ``Q_HBM`` of a launch order is the same, bit for bit, whichever
    other launch orders and shapes share its pass.

    Examples
    --------
    >>> from schedlab.core.hardware import H100_TC
    >>> combos = tuple(np.array([v]) for v in (256, 128, 1, 132))
    >>> bytes_hbm, t_hbm_s = hbm_term(4096, 4096, 4096, combos, H100_TC)
    >>> float(bytes_hbm[0]) == hbm_bytes(4096, 4096, 4096, 256, 128, 1, 132)
    True
    >>> bool(hbm_term(np.array([[4096]]), 4096, 4096, combos, H100_TC)[1][0, 0] == t_hbm_s[0])
    True
    """
    if np.ndim(M) == 0:
        bytes_hbm = _replay(M, N, K, tuple(zip(*(x.tolist() for x in combos))), hw)
    else:
        shape = np.broadcast_shapes(*(np.shape(x) for x in (M, N, K, *combos)))
        bytes_hbm = _replay_many(*(np.broadcast_to(x, shape).ravel() for x in (M, N, K, *combos)), hw).reshape(shape)
    return bytes_hbm, bytes_hbm / hw.hbm_bw_bytes_per_s


@memoised(maxsize=1024)
def _replay(M, N, K, combos: tuple[tuple[int, int, int, int], ...], hw: Hardware) -> np.ndarray:
    """:func:`hbm_bytes` for many ``(bm, bn, group, per_wave)`` on one shape (cached; see :func:`_replay_many`)."""
    bm, bn, group, per_wave = (np.array(c, dtype=np.int64) for c in zip(*combos))
    out = _replay_many(np.full_like(bm, M), np.full_like(bm, N), np.full_like(bm, K), bm, bn, group, per_wave, hw)
    out.flags.writeable = False
    return out


def _replay_many(M, N, K, bm, bn, group, per_wave, hw: Hardware) -> np.ndarray:
    """HBM bytes of many ``(M, N, K, bm, bn, group, per_wave)`` (int64 arrays of one length) in one pass.

    Wave ``w`` runs pids ``[s, e)``. A group of ``G`` rows holds ``G * grid_n`` consecutive
    pids (the last group may have fewer rows), walked down its rows, then right. So a wave
    touches, in its first group, a column interval and a (cyclic) row interval; all rows and
    columns of any group it covers whole; and, in its last group, columns from 0 and rows
    from the group's first row. The first ``i`` row panels hold ``min(i * bm, M) * K`` elements,
    so the bytes of an interval are a difference of two such prefixes: the replay costs
    O(waves), not O(blocks).
    """
    elt = hw.bytes_per_element
    c_bytes = M * N * elt
    grid_m, grid_n = -(-M // bm), -(-N // bn)
    blocks = grid_m * grid_n
    n_waves = -(-blocks // per_wave)
    # one entry per wave of every combo
    combo = np.repeat(np.arange(len(bm)), n_waves)
    first = np.concatenate([[0], np.cumsum(n_waves)[:-1]])
    index = np.arange(combo.size) - first[combo]
    M, N, K, bm, bn, group, per_wave, grid_m, grid_n, blocks = (
        x[combo] for x in (M, N, K, bm, bn, group, per_wave, grid_m, grid_n, blocks)
    )
    start = index * per_wave
    end = np.minimum(start + per_wave, blocks)
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

    def panel_lines(tile, extent):  # A rows (B columns) of panels; a panel line holds K elements
        def measure(lo, hi, part=slice(None)):  # panels [lo, hi) hold min(hi * tile, extent) - ... lines
            t, e = tile[part], extent[part]
            return np.minimum(np.maximum(hi, lo) * t, e) - np.minimum(lo * t, e)

        return measure

    a_lines, b_lines = panel_lines(bm, M), panel_lines(bn, N)

    def with_previous(measure, intervals, previous):  # bytes also touched by the previous wave of the same combo
        total = np.zeros(combo.size, dtype=np.int64)
        for lo, hi in intervals:
            for prev_lo, prev_hi in previous:
                total[1:] += measure(np.maximum(lo[1:], prev_lo[:-1]), np.minimum(hi[1:], prev_hi[:-1]), slice(1, None))
        return np.where(index > 0, total, 0)

    line_bytes = K * elt
    footprint = (sum(a_lines(lo, hi) for lo, hi in rows) + sum(b_lines(lo, hi) for lo, hi in cols)) * line_bytes
    # the previous wave ends where this one starts, in this wave's first group or the group before it;
    # so only this wave's first-group rows can meet the previous wave's rows, and only that wave's
    # first- and last-group rows (the groups it covers whole lie before its last group)
    reused = (with_previous(a_lines, rows[:2], rows[:2] + rows[3:]) + with_previous(b_lines, cols, cols)) * line_bytes
    # a fraction min(1, L2 / footprint) of the previous wave's panels is still in L2
    kept_reused = np.zeros(combo.size)
    later_wave = index > 0
    kept_reused[later_wave] = (
        np.minimum(1.0, hw.l2_bytes_shared / footprint[np.flatnonzero(later_wave) - 1]) * reused[later_wave]
    )
    # integers are exact and fsum is correctly rounded: a combo's bytes do not depend on its batch.
    # Where every kept part is a whole number of bytes (the panels fit L2) their sum is an exact
    # integer below 2**53, which is what fsum returns; fsum runs only for the other combos.
    touched = np.add.reduceat(footprint, first)
    whole = np.floor(kept_reused) == kept_reused
    exact = np.logical_and.reduceat(whole, first)
    kept = np.add.reduceat(np.where(whole, kept_reused, 0.0).astype(np.int64), first).astype(np.float64)
    for i in np.flatnonzero(~exact).tolist():
        kept[i] = math.fsum(kept_reused[first[i] : first[i] + n_waves[i]])
    return touched.astype(np.float64) - kept + c_bytes.astype(np.float64)


def check_exact(M: int, N: int, K: int, hw: Hardware) -> None:
    """Refuse a shape whose byte counts could reach 2**53 on ``hw`` (no longer exact in float64).

    Every wave reads at most its blocks' panels, so the replay sums at most
    ``ceil(M / 16) ceil(N / 16) * 32 K`` operand elements plus ``M N`` for C.
    """
    bound = (-(-M // 16) * -(-N // 16) * 32 * K + M * N) * hw.bytes_per_element
    if bound >= 2**53:
        raise ValueError(
            f"shape {M} x {N} x {K} with Hardware.bytes_per_element = {hw.bytes_per_element} may move "
            f"{bound} bytes, not exact below 2**53: refused"
        )


def hbm_bound_s(M, N, K, bm, bn, group, per_wave, hw: Hardware) -> np.ndarray:
    """An upper bound on the HBM time ``bytes_hbm / BW`` of :func:`_replay_many`'s arguments (float64 arrays).

    The L2 only ever removes bytes, so the replay's bytes are at most C plus, for every wave, the
    bytes of the panels it touches. A wave of ``n`` consecutive blocks meets at most
    ``(n - 1) // (group * grid_n) + 2`` groups (its first, its last and whole ones between), so at
    most ``group`` rows of each and ``n`` in all; in a group of ``g`` rows it walks down the rows,
    then right, so its ``n_k`` blocks there touch at most ``(n_k - 1) // g + 2`` columns: in all at
    most ``n // g_min`` plus 2 per group met (``g_min`` the last, smallest group's rows), and ``n``. A panel
    holds at most ``min(bm, M) x K`` (``K x min(bn, N)``) elements, and a wave at most all of A and B.
    Computed in float64 and enlarged by a relative 1e-9, far above the few roundings of either side,
    so ``bytes_hbm / BW`` (rounded) never exceeds it.
    """
    grid_m, grid_n = -(-M // bm), -(-N // bn)
    blocks = grid_m * grid_n
    full, tail = blocks // per_wave, blocks % per_wave
    rows, cols = np.minimum(bm, M), np.minimum(bn, N)

    def lines(n):  # A rows plus B columns a wave of n consecutive blocks touches at most (0 for n = 0)
        row_panels, col_panels = wave_panels_bound(n, grid_m, grid_n, group)
        return (np.minimum(row_panels * rows, M) + np.minimum(col_panels * cols, N)).astype(np.float64)

    elements = (full * lines(per_wave) + lines(tail)) * K + M * N.astype(np.float64)
    return elements * (hw.bytes_per_element * (1 + 1e-9)) / hw.hbm_bw_bytes_per_s


def wave_panels_bound(n, grid_m, grid_n, group) -> tuple[np.ndarray, np.ndarray]:
    """At most how many A row-panels and B column-panels ``n`` consecutive blocks of the grouped order touch.

    See :func:`hbm_bound_s`; integer arrays, ``(0, 0)`` for ``n = 0``.
    """
    groups = (n - 1) // (group * grid_n) + 2  # the groups met: the first, the last and whole ones between
    smallest_group = grid_m - group * ((grid_m - 1) // group)  # the last group's rows
    return np.minimum(n, groups * group), np.minimum(n, n // smallest_group + 2 * groups)
