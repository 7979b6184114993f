"""The HBM replay in closed form over the repeating waves: O(distinct wave patterns), not O(waves).

:func:`replay_closed` gives the bytes :func:`schedlab.core.model.hbm.hbm_bytes` replays wave by wave,
bit for bit, at a cost set by the group size alone: neither the shape nor the waves count.
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.hardware import Hardware
from schedlab.core.model.panels import intervals, shared_lines, touched_lines
from schedlab.core.model.sums import segment_sums

__all__ = ["replay_closed", "closed_rows", "count_offsets", "floor_sum"]


def closed_rows(group):
    """At most how many rows (a wave and its predecessor each) :func:`replay_closed` evaluates per launch order.

    The first wave, at most 2 waves crossing into the last group, ``G`` classes in it and ``G + 2``
    waves touching its last column (:func:`_tail`), and the ``12 G`` exceptional offsets and ``4 G``
    runs of the regular groups (:func:`_skeleton`): ``18 G + 5`` waves, two rows each.
    """
    return 2 * (18 * group + 5)


def replay_closed(M, N, K, bm, bn, group, per_wave, hw: Hardware) -> np.ndarray:
    """HBM bytes of many ``(M, N, K, bm, bn, group, per_wave)`` (int64 arrays of one length), in closed form.

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
    ``w P mod L`` in an interval, a floor sum (:func:`count_offsets`). The last, irregular group of
    ``g <= G`` rows repeats too (:func:`_tail`): a wave that lies, with its predecessor, inside it and
    off its last column sees the panels of any such wave ``T = g / gcd(P, g)`` waves later, shifted one
    or more columns right. Each pattern is replayed once, on a representative wave, and weighted by
    its count; the first wave and the few others are replayed one by one. Byte counts are exact
    integers, and the L2 corrections, each wave's correction times its count, are summed exactly and
    rounded once (:func:`.sums.segment_sums`), as :func:`math.fsum` rounds the wave-by-wave sum: the
    result equals the wave-by-wave replay's bit for bit.
    """
    out = np.empty(len(bm))
    combo, start, weight = [], [], []  # each replayed wave or representative
    queries = []  # (representatives' first row, skeleton, P, L, G, w_end) of each count
    n_reps = 0
    for i, (m, n, tm, tn, g, p) in enumerate(zip(*(x.tolist() for x in (M, N, bm, bn, group, per_wave)))):
        grid_m, grid_n = -(-m // tm), -(-n // tn)
        blocks, L = grid_m * grid_n, g * grid_n
        n_reg = (m // tm) // g  # regular groups
        w_end = max(1, n_reg * L // p)  # waves [1, w_end) and their predecessors lie in regular groups
        one_by_one, classes = _tail(blocks, grid_m, L, g, n_reg, p, w_end)
        rows = [(w * p, 1) for w in (0, *one_by_one)] + [(w * p, count) for w, count in classes]
        combo.extend([i] * len(rows))
        start.extend(s for s, _ in rows)
        weight.extend(c for _, c in rows)
        n_reps += len(rows)
        if w_end > 1:
            skeleton = _skeleton(p, L, g)
            combo.extend([i] * len(skeleton[0]))
            start.extend(skeleton[0].tolist())
            weight.extend([0] * len(skeleton[0]))
            queries.append((n_reps, skeleton, p, L, g, w_end))
            n_reps += len(skeleton[0])
    combo, start, weight = (np.array(x, dtype=np.int64) for x in (combo, start, weight))
    if queries:
        sizes = [len(q[1][1]) for q in queries]
        rep = np.concatenate([q[1][1] for q in queries]) + np.repeat([q[0] for q in queries], sizes)
        j, lo, hi = np.concatenate([q[1][2] for q in queries], axis=1)
        P, L, G, w_end = (np.repeat(np.array([q[k] for q in queries], dtype=np.int64), sizes) for k in (2, 3, 4, 5))
        np.add.at(weight, rep, count_offsets(P, L, G, j, lo, hi, w_end))
    keep = weight > 0
    combo, start, weight = combo[keep], start[keep], weight[keep]
    M, N, K, bm, bn, group, per_wave = (x[combo] for x in (M, N, K, bm, bn, group, per_wave))
    grid_m, grid_n = -(-M // bm), -(-N // bn)
    end = np.minimum(start + per_wave, grid_m * grid_n)
    has_prev = start > 0
    rows, cols = intervals(start, end, group, grid_m, grid_n)
    prev_rows, prev_cols = intervals(
        np.where(has_prev, start - per_wave, 0), np.maximum(start, 1), group, grid_m, grid_n
    )
    line_bytes = K * hw.bytes_per_element
    footprint = touched_lines(rows, cols, bm, bn, M, N) * line_bytes
    prev_footprint = touched_lines(prev_rows, prev_cols, bm, bn, M, N) * line_bytes
    reused = np.where(has_prev, shared_lines(rows, cols, prev_rows, prev_cols, bm, bn, M, N), 0) * line_bytes
    kept_reused = np.where(has_prev, np.minimum(1.0, hw.l2_bytes_shared / np.maximum(prev_footprint, 1)), 0.0) * reused
    first = np.flatnonzero(np.r_[True, np.diff(combo) > 0])
    touched = np.add.reduceat(weight * footprint, first).astype(np.float64)
    kept = segment_sums(kept_reused, weight, first)
    out[combo[first]] = touched - kept + (M[first] * N[first] * hw.bytes_per_element).astype(np.float64)
    return out


def _tail(blocks: int, grid_m: int, L: int, g: int, n_reg: int, p: int, w_end: int):
    """The waves from ``w_end`` on: ``(waves replayed one by one, [(representative wave, count)])``.

    The last group, from pid ``B = n_reg L``, has ``r = grid_m - n_reg G`` rows and is walked down
    its rows, then right, like any group. A wave ``w`` with ``(w - 1) P >= B`` (its predecessor in the
    group) and ``(w + 1) P <= blocks - r`` (off the last column, the only one that may be partial)
    touches the rows and the columns, shifted right by ``(w' - w) P / r``, of any wave ``w'`` of that
    kind with ``w' = w (mod r / gcd(P, r))``: the same bytes and the same overlap with its predecessor.
    The waves before the first such one (at most 2 after ``w_end``) and from the last column on (at
    most ``r / P + 2``) are replayed one by one.
    """
    n_waves = -(-blocks // p)
    start = n_reg * L
    if start >= blocks:  # every group regular: the waves after w_end meet the last group's end
        return range(w_end, n_waves), ()
    rows = grid_m - n_reg * g
    w_a = max(w_end, -(-start // p) + 1)
    w_b = (blocks - rows) // p
    if w_b <= w_a:
        return range(w_end, n_waves), ()
    period = rows // math.gcd(p, rows)
    classes = [(w, -(-(w_b - w) // period)) for w in range(w_a, min(w_a + period, w_b))]
    return [*range(w_end, w_a), *range(w_b, n_waves)], classes


@memoised(maxsize=4096)
def _skeleton(p: int, L: int, g: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The regular groups' repeating waves for ``P, L, G``: ``(starts, rep, (j, lo, hi))``.

    ``starts`` are the representatives' first pids; each count query ``k`` adds to representative
    ``rep[k]`` the waves whose offset ``s`` has ``lo <= s <= hi`` and ``s = j (mod G)``
    (:func:`count_offsets`, with the launch order's ``w_end``). Read-only arrays (they are shared).
    """
    starts, rep, j_lo_hi = [], [], []
    exceptional = sorted({(L - 2 * g - d + k) % L for d in (-p, -1, 0, p - 1) for k in range(min(3 * g, L))})
    step = math.gcd(p, L)
    for e in exceptional:
        if e % step == 0:
            rep.append(len(starts))
            j_lo_hi.append((e % g, e, e))
            starts.append(p + (e - p) % L)
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
            for lo, hi in ((a, min(b, L - 1)), (L, b)) if b >= L else ((a, b),):
                rep.append(len(starts))
                j_lo_hi.append((j, lo % L, hi % L))
            starts.append(min(p + (x - p) % L for x in ((s, past) if past <= b else (s,))))
    out = (
        np.array(starts, dtype=np.int64),
        np.array(rep, dtype=np.int64),
        np.array(j_lo_hi, dtype=np.int64).reshape(-1, 3).T.copy(),
    )
    for values in out:
        values.flags.writeable = False
    return out


def count_offsets(P, L, G, j, lo, hi, w_end) -> np.ndarray:
    """How many waves ``w`` in ``[1, w_end)`` start at an offset ``s = w P mod L`` with ``lo <= s <= hi`` and ``s = j mod G``.

    Notes
    -----
    ``G`` divides ``L``, so ``s mod G = w P mod G``: the waves with ``w P = j (mod G)`` are
    ``w = w_j + G' t`` with ``G' = G / gcd(P, G)``; for them ``(s - j) / G = (A + B t) mod L'`` with
    ``L' = L / G``, ``A = (w_j P - j) / G``, ``B = G' P / G``. And ``[x mod L' >= c] =
    1 + floor((x - c) / L') - floor(x / L')`` for ``0 <= c <= L'``, so the waves with
    ``y_lo <= (s - j) / G <= y_hi`` number ``F(y_lo) - F(y_hi + 1)`` with ``F(c)`` the floor sum of
    ``floor((A + B t - c) / L')`` over their ``t`` (:func:`floor_sum`; the other terms cancel).
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

    # both floor sums in one pass: F(y_lo), then F(y_hi + 1)
    sums = floor_sum(
        np.r_[n, n], np.r_[Lg, Lg], np.r_[step, step], np.r_[first - y_lo, first - np.minimum(y_hi + 1, Lg)]
    )
    found = solves.any(axis=0) & (y_lo <= y_hi)
    return np.where(found, sums[: len(n)] - sums[len(n) :], 0).astype(np.int64)


def floor_sum(n, m, a, b) -> np.ndarray:
    """``sum(floor((a i + b) / m) for i in range(n))`` elementwise (int64 arrays; ``n, a >= 0``, ``m >= 1``).

    The Euclid-like reduction of the AtLibrary's ``floor_sum``: O(log m) rounds over all elements at once.
    Its partial sums reach about ``n (a n + |b| + m)``; where that could pass 2**62 (launch orders of
    billions of waves), the arithmetic runs on Python integers (an object array) instead of int64.

    Examples
    --------
    >>> floor_sum(np.array([4, 3 * 10**9]), 7, 3, 2).tolist()  # 3e9 = 7 q + 4: 8 q + 21 q (q - 1) / 2 + 12 q + 2
    [2, 1928571427500000000]
    """
    n, m, a, b = (np.array(x, dtype=np.int64) for x in np.broadcast_arrays(n, m, a, b))
    if n.size:
        top = int(n.max())
        if top * (top * (int(a.max()) + 1) + int(np.abs(b).max()) + int(m.max())) >= 2**62:
            n, m, a, b = (x.astype(object) for x in (n, m, a, b))
    q = b // m
    total = q * n
    b = b - q * m
    # the Euclid-like rounds, on the elements still active (compacted: most finish in a few rounds)
    idx = np.flatnonzero(n > 0)
    n, m, a, b = n[idx], m[idx], a[idx], b[idx]
    while idx.size:
        q = a // m
        total[idx] += q * (n * (n - 1) // 2)
        a = a - q * m
        q = b // m
        total[idx] += q * n
        b = b - q * m
        y_max = a * n + b
        active = np.asarray(y_max >= m, dtype=bool)
        idx, y_max, m, a = idx[active], y_max[active], m[active], a[active]
        n, b, m, a = y_max // m, y_max % m, a, m
    return total
