"""The HBM term ``t_hbm_s = Q_HBM / BW_HBM``, ``Q_HBM`` counted by replaying the launch order wave by wave.

Blocks run ``per_wave`` at a time in Triton's grouped launch order. Each wave reads from HBM
the A row-panels and B column-panels it touches, less what the previous wave left in L2; C is
written once (:func:`hbm_bytes` states the rule). The replay works on intervals of the launch
order, so it costs O(waves), not O(blocks); past :data:`EXACT_WAVES` waves it runs in closed form
over the waves that repeat (:func:`.closed.replay_closed`: the same bytes, bit for bit, at a cost set by
the group and wave sizes, not by the shape). It depends on a configuration only through
``(bm, bn, group, per_wave)``: :func:`hbm_term` replays each such launch order once per shape and
is the one place the model turns bytes into the HBM time that :func:`.terms.kernel_time` charges.
:func:`hbm_bound_s` bounds that time from above without replaying (the panels each wave can
touch, L2 reuse ignored), so the engine can skip replays that cannot matter.
"""

from __future__ import annotations

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_int
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import check_knob
from schedlab.core.model.closed import closed_rows, replay_closed
from schedlab.core.model.panels import intervals, shared_lines, touched_lines
from schedlab.core.model.sums import segment_sums
from schedlab.core.shapes import MAX_COUNT, check_shape, shape_bytes_bound

#: Launch orders of at most this many waves are replayed wave by wave; longer ones in closed form over
#: their repeating waves (:func:`.closed.replay_closed`), whose cost does not grow with the waves. Both give
#: the same bytes bit for bit (tests/test_large_shapes.py); 2**8 is about where the closed form's
#: fixed cost per launch order (a few hundred rows and a Python loop) matches a wave-by-wave replay.
EXACT_WAVES = 2**8

#: Most rows (waves, or closed-form representatives, each a few dozen int64 temporaries) the replay
#: evaluates in one numpy pass: about 2**16 x 8 B x 100 = 50 MiB of temporaries at most.
REPLAY_CHUNK_ROWS = 2**16

__all__ = [
    "EXACT_WAVES",
    "REPLAY_CHUNK_ROWS",
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


def _replay_many(M, N, K, bm, bn, group, per_wave, hw: Hardware, method: str = "auto") -> np.ndarray:
    """HBM bytes of many ``(M, N, K, bm, bn, group, per_wave)`` (int64 arrays of one length), in chunks.

    A launch order of at most :data:`EXACT_WAVES` waves (``method="auto"``), or every one with
    ``method="exact"``, is replayed wave by wave (:func:`_replay_exact`); the others in closed form
    (:func:`.closed.replay_closed`). Either way each entry's bytes depend on that entry alone, so the
    entries are replayed in consecutive chunks of at most :data:`REPLAY_CHUNK_ROWS` rows (or one entry,
    if it alone has more): the temporaries stay bounded whatever the number of entries.
    """
    n = waves(M, N, bm, bn, per_wave)
    closed = n > EXACT_WAVES if method == "auto" else np.full(len(bm), method == "closed")
    rows = np.where(closed, closed_rows(group), n)
    out = np.empty(len(bm))
    start, ends = 0, np.cumsum(rows)
    while start < len(bm):
        done = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, done + REPLAY_CHUNK_ROWS, "right")))
        chunk = slice(start, stop)
        for part, replay in ((~closed[chunk], _replay_exact), (closed[chunk], replay_closed)):
            if part.any():
                out[chunk][part] = replay(*(x[chunk][part] for x in (M, N, K, bm, bn, group, per_wave)), hw)
        start = stop
    return out


def waves(M, N, bm, bn, per_wave):
    """Waves of a launch order: ``ceil(ceil(M / bm) ceil(N / bn) / per_wave)`` (arguments broadcast)."""
    return -(-(-(-M // bm) * -(-N // bn)) // per_wave)


def replayed_waves(M, N, bm, bn, group, per_wave):
    """How many waves (rows) :func:`_replay_many` evaluates for each launch order, at most (arguments broadcast).

    Every wave up to :data:`EXACT_WAVES`; in closed form a number set by the group alone
    (:func:`.closed.closed_rows`).
    """
    n = waves(M, N, bm, bn, per_wave)
    return np.where(n > EXACT_WAVES, closed_rows(group), n)


def _replay_exact(M, N, K, bm, bn, group, per_wave, hw: Hardware) -> np.ndarray:
    """:func:`_replay_many` wave by wave: O(waves), not O(blocks).

    Each wave's panels are intervals (:func:`.panels.intervals`); the first ``i`` row panels hold
    ``min(i * bm, M) * K`` elements, so the bytes of an interval are a difference of two such prefixes.
    """
    elt = hw.bytes_per_element
    c_bytes = M * N * elt
    line_bytes = K * elt
    grid_m, grid_n = -(-M // bm), -(-N // bn)
    blocks = grid_m * grid_n
    n_waves = -(-blocks // per_wave)
    # pids, panel indices and lines in int32 where they fit (half the memory traffic); bytes in int64
    small = len(bm) > 0 and int((blocks + per_wave).max()) < 2**30 and int(np.maximum(M, N).max()) < 2**27
    dtype = np.int32 if small else np.int64
    # one entry per wave of every combo
    combo = np.repeat(np.arange(len(bm), dtype=dtype), n_waves)
    first = np.concatenate([[0], np.cumsum(n_waves)[:-1]])
    index = np.arange(combo.size, dtype=dtype) - first.astype(dtype)[combo]
    M_, N_, bm, bn, group, per_wave, grid_m, grid_n, blocks = (
        x.astype(dtype, copy=False)[combo] for x in (M, N, bm, bn, group, per_wave, grid_m, grid_n, blocks)
    )
    start = index * per_wave
    rows, cols = intervals(start, np.minimum(start + per_wave, blocks), group, grid_m, grid_n)
    line_bytes = line_bytes[combo]
    footprint = touched_lines(rows, cols, bm, bn, M_, N_).astype(np.int64) * line_bytes
    # lines also touched by the previous wave of the same combo (none for a combo's first wave)
    shared = shared_lines(
        [(lo[1:], hi[1:]) for lo, hi in rows],
        [(lo[1:], hi[1:]) for lo, hi in cols],
        [(lo[:-1], hi[:-1]) for lo, hi in rows],
        [(lo[:-1], hi[:-1]) for lo, hi in cols],
        *(x[1:] for x in (bm, bn, M_, N_)),
    )
    later_wave = index > 0
    reused = np.where(later_wave, np.r_[0, shared], 0) * line_bytes
    # a fraction min(1, L2 / footprint) of the previous wave's panels is still in L2
    previous = np.r_[np.int64(1), footprint[:-1]]  # any positive value at a combo's first wave, where reused is 0
    kept_reused = np.where(later_wave, np.minimum(1.0, hw.l2_bytes_shared / previous) * reused, 0.0)
    # integers are exact and the corrections' sum correctly rounded: a combo's bytes do not depend on its batch
    touched = np.add.reduceat(footprint, first)
    kept = segment_sums(kept_reused, np.ones(combo.size, dtype=np.int64), first)
    return touched.astype(np.float64) - kept + c_bytes.astype(np.float64)


def check_exact(M: int, N: int, K: int, hw: Hardware) -> None:
    """Refuse a shape whose byte counts on ``hw`` could overflow int64 (:func:`schedlab.core.shapes.shape_bytes_bound`).

    :func:`schedlab.core.shapes.check_shape` holds the bound for 2-byte elements; this holds it for
    ``hw.bytes_per_element``. Byte counts below 2**53 are exact in float64 too; above it the float
    results are the int64 counts rounded once.
    """
    bound = shape_bytes_bound(M, N, K, hw.bytes_per_element)
    if bound > MAX_COUNT:
        raise ValueError(
            f"shape {M} x {N} x {K} with Hardware.bytes_per_element = {hw.bytes_per_element} may move "
            f"{bound} bytes, more than 64-bit integers hold: refused"
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
