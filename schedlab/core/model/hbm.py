"""The HBM term ``t_hbm_s = Q_HBM / BW_HBM``, ``Q_HBM`` counted by replaying the launch order wave by wave.

Blocks run ``per_wave`` at a time in Triton's grouped launch order. Each wave reads from HBM
the A row-panels and B column-panels it touches, less what the previous wave left in L2; C is
written once (:func:`hbm_bytes` states the rule). The replay works on intervals of the launch
order, so it costs O(waves), not O(blocks); past :data:`EXACT_WAVES` waves it runs in closed form
over the waves that repeat (:func:`_replay_closed`: the same bytes, bit for bit, at a cost set by
the group and wave sizes, not by the shape). It depends on a configuration only through
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
from schedlab.core.model.sums import segment_sums
from schedlab.core.space import check_knob, check_shape

#: Launch orders of at most this many waves are replayed wave by wave; longer ones in closed form over
#: their repeating waves (:func:`_replay_closed`), whose cost does not grow with the waves. Both give
#: the same bytes bit for bit (tests/test_large_shapes.py); 2**8 is about where the closed form's
#: fixed cost per launch order (a few hundred rows and a Python loop) matches a wave-by-wave replay.
EXACT_WAVES = 2**8

__all__ = [
    "EXACT_WAVES",
    "waves",
    "replayed_waves",
    "hbm_bytes",
    "hbm_term",
    "hbm_bound_s",
    "wave_panels_bound",
    "check_exact",
]


def hbm_bytes(M, N, K, bm, bn, group, per_wave, hw: Hardware | None = None, method: str = "auto") -> float:
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
    if method not in ("auto", "exact", "closed"):
        raise ValueError(f"method must be 'auto', 'exact' or 'closed', got {method!r}")
    return float(_replay(M, N, K, ((bm, bn, group, per_wave),), hw, method)[0])


def hbm_term(M, N, K, combos, hw: Hardware, method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """``(bytes_hbm, t_hbm_s)``: the HBM bytes and the whole kernel's HBM time of launch orders on shapes.

    ``combos`` holds four int64 arrays ``(bm, bn, group, per_wave)``, one launch order per entry.
    With scalar ``M, N, K`` each launch order is replayed on that shape (cached): both results have
    the length of ``combos``. Otherwise ``M, N, K`` and ``combos`` broadcast together (``(s, 1)``
    columns against ``(u,)`` combinations price every pair; arrays of one length, chosen pairs) and
    every element is replayed in one pass; the results take the broadcast shape. ``method`` is
    :func:`hbm_bytes`'s.

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
        bytes_hbm = _replay(M, N, K, tuple(zip(*(x.tolist() for x in combos))), hw, method)
    else:
        shape = np.broadcast_shapes(*(np.shape(x) for x in (M, N, K, *combos)))
        bytes_hbm = _replay_many(*(np.broadcast_to(x, shape).ravel() for x in (M, N, K, *combos)), hw, method)
        bytes_hbm = bytes_hbm.reshape(shape)
    return bytes_hbm, bytes_hbm / hw.hbm_bw_bytes_per_s


@memoised(maxsize=1024)
def _replay(M, N, K, combos: tuple[tuple[int, int, int, int], ...], hw: Hardware, method: str = "auto") -> np.ndarray:
    """:func:`hbm_bytes` for many ``(bm, bn, group, per_wave)`` on one shape (cached; see :func:`_replay_many`)."""
    bm, bn, group, per_wave = (np.array(c, dtype=np.int64) for c in zip(*combos))
    out = _replay_many(
        np.full_like(bm, M), np.full_like(bm, N), np.full_like(bm, K), bm, bn, group, per_wave, hw, method
    )
    out.flags.writeable = False
    return out


def _intervals(start, end, group, grid_m, grid_n):
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


def _lines(lo, hi, tile, extent):
    """A rows (B columns) in panels ``[lo, hi)`` of ``tile`` rows (columns) each: ``min(hi tile, extent) - min(lo tile, extent)``."""
    return np.minimum(np.maximum(hi, lo) * tile, extent) - np.minimum(lo * tile, extent)


def _shared_lines(rows, cols, prev_rows, prev_cols, bm, bn, M, N):
    """Lines (A rows plus B columns) a run of pids shares with the run just before it.

    The previous run ends where this one starts, in this run's first group or the group before it;
    so only this run's first-group rows can meet the previous run's rows, and only that run's
    first- and last-group rows (the groups it covers whole lie before its last group).
    """
    total = np.zeros(np.shape(bm), dtype=np.int64)
    for lo, hi in rows[:2]:
        for prev_lo, prev_hi in prev_rows[:2] + prev_rows[3:]:
            total += _lines(np.maximum(lo, prev_lo), np.minimum(hi, prev_hi), bm, M)
    for lo, hi in cols:
        for prev_lo, prev_hi in prev_cols:
            total += _lines(np.maximum(lo, prev_lo), np.minimum(hi, prev_hi), bn, N)
    return total


def _touched_lines(rows, cols, bm, bn, M, N):
    return sum(_lines(lo, hi, bm, M) for lo, hi in rows) + sum(_lines(lo, hi, bn, N) for lo, hi in cols)


def _replay_many(M, N, K, bm, bn, group, per_wave, hw: Hardware, method: str = "auto") -> np.ndarray:
    """HBM bytes of many ``(M, N, K, bm, bn, group, per_wave)`` (int64 arrays of one length) in one pass.

    A launch order of at most :data:`EXACT_WAVES` waves (``method="auto"``), or every one with
    ``method="exact"``, is replayed wave by wave (:func:`_replay_exact`); the others in closed form
    (:func:`_replay_closed`). Either way each entry's bytes depend on that entry alone.
    """
    closed = waves(M, N, bm, bn, per_wave) > EXACT_WAVES if method == "auto" else np.full(len(bm), method == "closed")
    out = np.empty(len(bm))
    for part, replay in ((~closed, _replay_exact), (closed, _replay_closed)):
        if part.any():
            out[part] = replay(*(x[part] for x in (M, N, K, bm, bn, group, per_wave)), hw)
    return out


def waves(M, N, bm, bn, per_wave):
    """Waves of a launch order: ``ceil(ceil(M / bm) ceil(N / bn) / per_wave)`` (arguments broadcast)."""
    return -(-(-(-M // bm) * -(-N // bn)) // per_wave)


def replayed_waves(M, N, bm, bn, group, per_wave):
    """How many waves (rows) :func:`_replay_many` evaluates for each launch order, at most (arguments broadcast).

    Every wave up to :data:`EXACT_WAVES`; in closed form two rows (a wave and its predecessor) for
    the first wave, the waves that meet the last group (at most ``L / P + 3``, ``L = G ceil(N / bn)``
    pids per group), the ``12 G`` exceptional offsets and the ``4 G`` runs (see :func:`_replay_closed`).
    """
    n = waves(M, N, bm, bn, per_wave)
    return np.where(n > EXACT_WAVES, 2 * (group * -(-N // bn) // per_wave + 4 + 16 * group), n)


def _replay_exact(M, N, K, bm, bn, group, per_wave, hw: Hardware) -> np.ndarray:
    """:func:`_replay_many` wave by wave: O(waves), not O(blocks).

    Each wave's panels are intervals (:func:`_intervals`); the first ``i`` row panels hold
    ``min(i * bm, M) * K`` elements, so the bytes of an interval are a difference of two such prefixes.
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
    rows, cols = _intervals(start, np.minimum(start + per_wave, blocks), group, grid_m, grid_n)
    line_bytes = K * elt
    footprint = _touched_lines(rows, cols, bm, bn, M, N) * line_bytes
    # bytes also touched by the previous wave of the same combo (none for a combo's first wave)
    later = (slice(1, None),)
    shared = _shared_lines(
        [(lo[1:], hi[1:]) for lo, hi in rows],
        [(lo[1:], hi[1:]) for lo, hi in cols],
        [(lo[:-1], hi[:-1]) for lo, hi in rows],
        [(lo[:-1], hi[:-1]) for lo, hi in cols],
        *(x[later] for x in (bm, bn, M, N)),
    )
    reused = np.where(index > 0, np.r_[0, shared], 0) * line_bytes
    # a fraction min(1, L2 / footprint) of the previous wave's panels is still in L2
    kept_reused = np.zeros(combo.size)
    later_wave = index > 0
    kept_reused[later_wave] = (
        np.minimum(1.0, hw.l2_bytes_shared / footprint[np.flatnonzero(later_wave) - 1]) * reused[later_wave]
    )
    # integers are exact and the corrections' sum correctly rounded: a combo's bytes do not depend on its batch
    touched = np.add.reduceat(footprint, first)
    kept = segment_sums(kept_reused, np.ones(combo.size, dtype=np.int64), first)
    return touched.astype(np.float64) - kept + c_bytes.astype(np.float64)


def _replay_closed(M, N, K, bm, bn, group, per_wave, hw: Hardware) -> np.ndarray:
    """:func:`_replay_many` in closed form over the repeating waves: O(distinct wave patterns), not O(waves).

    Notes
    -----
    With ``P = per_wave``, ``G = group`` and ``L = G * grid_n`` pids per group, wave ``w`` starts at pid
    ``w P``. Call a group *regular* when its ``G`` rows are all full ``bm``-row panels: all but
    possibly the last. A wave ``w >= 1`` whose pids and whose predecessor's lie in regular groups
    (``(w + 1) P <= L n_reg``) sees, up to a shift by whole groups, the same panels and the same
    overlap with its predecessor as any other such wave with the same offset ``s = w P mod L``:
    its bytes and its L2 reuse are a function ``f(s)``. Shifting ``s`` by ``G`` (one column) leaves
    ``f`` unchanged while each of the pids ``s - P``, ``s - 1``, ``s``, ``s + P - 1`` stays in the
    middle columns ``[G, L - 2G)`` of its group. So the offsets fall in at most ``12 G`` exceptional
    ones (each its own pattern) and, between them, at most four runs per residue ``s mod G`` (one
    pattern each). How many waves have an offset in a run is a count of the points of the progression
    ``w P mod L`` in an interval, a floor sum (:func:`_count_offsets`). Each pattern is replayed once,
    on a representative wave, and weighted by its count; the first wave and the waves from the last
    regular one on are replayed one by one. Byte counts are exact integers, and the L2 corrections,
    each wave's correction times its count, are summed exactly and rounded once
    (:func:`.sums.segment_sums`), as :func:`math.fsum` rounds the wave-by-wave sum: the result equals
    :func:`_replay_exact`'s bit for bit.
    """
    out = np.empty(len(bm))
    reps = []  # (combo, start, weight) of each replayed wave or representative
    queries = []  # (class, P, L, G, j, lo, hi, w_end) of each count
    for i, (m, n, tm, tn, g, p) in enumerate(zip(*(x.tolist() for x in (M, N, bm, bn, group, per_wave)))):
        grid_n = -(-n // tn)
        blocks, L = -(-m // tm) * grid_n, g * grid_n
        n_waves = -(-blocks // p)
        w_end = max(1, (m // tm) // g * L // p)  # waves [1, w_end) and their predecessors lie in regular groups
        reps.extend((i, w * p, 1) for w in (0, *range(w_end, n_waves)))
        if w_end <= 1:
            continue
        exceptional = sorted({(L - 2 * g - d + k) % L for d in (-p, -1, 0, p - 1) for k in range(min(3 * g, L))})
        step = math.gcd(p, L)
        for e in exceptional:
            if e % step == 0:
                queries.append((len(reps), p, L, g, e % g, e, e, w_end))
                reps.append((i, p + (e - p) % L, 0))
        for a, b in zip(exceptional, exceptional[1:] + [exceptional[0] + L]):
            if b - a < 2:
                continue
            a, b = (a + 1, b - 1) if a + 1 < L else (a + 1 - L, b - 1 - L)  # offsets between two exceptional ones
            for j in range(g):
                s = a + (j - a) % g
                if s > b:
                    continue
                # the run's earliest wave in the launch order: at its first offset or its first past P
                past = s + -(-((p - s) % L) // g) * g
                start = min(p + (x - p) % L for x in ((s, past) if past <= b else (s,)))
                for lo, hi in ((a, min(b, L - 1)), (L, b)) if b >= L else ((a, b),):
                    queries.append((len(reps), p, L, g, j, lo % L, hi % L, w_end))
                reps.append((i, start, 0))
    combo, start, weight = (np.array(x, dtype=np.int64) for x in zip(*reps))
    if queries:
        rep, *args = (np.array(x, dtype=np.int64) for x in zip(*queries))
        np.add.at(weight, rep, _count_offsets(*args))
    keep = weight > 0
    combo, start, weight = combo[keep], start[keep], weight[keep]
    M, N, K, bm, bn, group, per_wave = (x[combo] for x in (M, N, K, bm, bn, group, per_wave))
    grid_m, grid_n = -(-M // bm), -(-N // bn)
    end = np.minimum(start + per_wave, grid_m * grid_n)
    has_prev = start > 0
    rows, cols = _intervals(start, end, group, grid_m, grid_n)
    prev_rows, prev_cols = _intervals(
        np.where(has_prev, start - per_wave, 0), np.maximum(start, 1), group, grid_m, grid_n
    )
    line_bytes = K * hw.bytes_per_element
    footprint = _touched_lines(rows, cols, bm, bn, M, N) * line_bytes
    prev_footprint = _touched_lines(prev_rows, prev_cols, bm, bn, M, N) * line_bytes
    reused = np.where(has_prev, _shared_lines(rows, cols, prev_rows, prev_cols, bm, bn, M, N), 0) * line_bytes
    kept_reused = np.where(has_prev, np.minimum(1.0, hw.l2_bytes_shared / np.maximum(prev_footprint, 1)), 0.0) * reused
    first = np.flatnonzero(np.r_[True, np.diff(combo) > 0])
    touched = np.add.reduceat(weight * footprint, first).astype(np.float64)
    kept = segment_sums(kept_reused, weight, first)
    out[combo[first]] = touched - kept + (M[first] * N[first] * hw.bytes_per_element).astype(np.float64)
    return out


def _count_offsets(P, L, G, j, lo, hi, w_end) -> np.ndarray:
    """How many waves ``w`` in ``[1, w_end)`` start at an offset ``s = w P mod L`` with ``lo <= s <= hi`` and ``s = j mod G``.

    Notes
    -----
    ``G`` divides ``L``, so ``s mod G = w P mod G``: the waves with ``w P = j (mod G)`` are
    ``w = w_j + G' t`` with ``G' = G / gcd(P, G)``; for them ``(s - j) / G = (A + B t) mod L'`` with
    ``L' = L / G``, ``A = (w_j P - j) / G``, ``B = G' P / G``. And ``[x mod L' >= c] =
    1 + floor((x - c) / L') - floor(x / L')`` for ``0 <= c <= L'``, so each count is a difference of
    floor sums (:func:`_floor_sum`).
    """
    candidates = np.arange(int(G.max()))[:, None]
    solves = (candidates * P) % G == j
    w_j = np.argmax(solves, axis=0)
    period = G // np.gcd(P, G)
    t0, t1 = -((w_j - 1) // period), -((w_j - w_end) // period)  # ceil((1 - w_j) / G'), ceil((w_end - w_j) / G')
    t0 = np.maximum(t0, 0)
    n = np.maximum(t1 - t0, 0)
    step = P * period // G
    first = (w_j * P - j) // G + step * t0
    Lg = L // G
    y_lo, y_hi = -((j - lo) // G), (hi - j) // G  # ceil((lo - j) / G), floor((hi - j) / G)

    def at_least(c):  # t with (first + step t) mod L' >= c
        return n + _floor_sum(n, Lg, step, first - c) - _floor_sum(n, Lg, step, first)

    found = solves.any(axis=0) & (y_lo <= y_hi)
    return np.where(found, at_least(y_lo) - at_least(np.minimum(y_hi + 1, Lg)), 0)


def _floor_sum(n, m, a, b) -> np.ndarray:
    """``sum(floor((a i + b) / m) for i in range(n))`` elementwise (int64 arrays; ``n, a >= 0``, ``m >= 1``).

    The Euclid-like reduction of the AtLibrary's ``floor_sum``: O(log m) rounds over all elements at once.
    """
    n, m, a, b = (np.array(x, dtype=np.int64) for x in np.broadcast_arrays(n, m, a, b))
    q = b // m
    total = q * n
    b = b - q * m
    active = n > 0
    while active.any():
        q = a // m
        total += np.where(active, q * (n * (n - 1) // 2), 0)
        a = a - q * m
        q = b // m
        total += np.where(active, q * n, 0)
        b = b - q * m
        y_max = a * n + b
        active &= y_max >= m
        n, b, m, a = (
            np.where(active, y_max // m, n),
            np.where(active, y_max % m, b),
            np.where(active, a, m),
            np.where(active, m, a),
        )
    return total


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
