"""Analytical cost model: time = max(terms) per k-step, times steps and waves, plus fill and epilogue.

One vectorised core, :func:`evaluate`, prices an array of configurations on one GEMM
shape in a single numpy pass; :func:`gemm_time` and :func:`explain` are thin
wrappers over it, so the scalar and vector paths agree exactly.

Per wave and per k-step, every resident block is limited by the slowest of six
resources (all times in seconds):

``t_tc_s``       tensor cores: the padded tile's FLOP, ``r`` resident blocks sharing the SM's 4 tensor cores
``t_smem_s``     shared memory: each warp reads its A and B strips, 128 B/clk per SM
``t_port_s``     the SM's port to L2: the block's real (unpadded) A and B bytes, 64 B/clk per SM
``t_l2_s``       L2 bandwidth: the same bytes for every block resident on the chip
``t_hbm_s``      HBM: the kernel's HBM bytes (grouped launch order replayed), spread over all its k-steps
``t_latency_s``  Little's law: ``stages - 1`` loads in flight hide one latency; no overlap at all for 1 stage

Each wave adds a pipeline fill (one latency before the first mma) and an epilogue
(writing C through the port and L2).

HBM is one queue for the whole kernel: waves overlap at their edges and the HBM serves
every wave's misses and write-backs in turn, so the kernel's k-steps last
``max(sum over waves of k * (slowest on-chip term), bytes_hbm / BW)``, fills and epilogues
added. Each wave is thereby charged only its own on-chip work, and HBM its true total
(the bytes the replay counts, each moved once): a small last wave no longer pays a full
wave's per-step share of HBM. ``t_hbm_s`` reports that total spread over every k-step.
(A strict per-wave charge, each wave paying its own bytes, was tried: the prefill's first
wave then pays all its cold misses (116 MiB in 128 k-steps, just above its compute time)
while the light second wave idles the HBM, so GROUP_M = 4 beats GROUP_M = 1, against
claim C6; letting the fill or epilogue hide part of a wave's transfer rescues C6 but moves
decode past C7's band or leaves N = 16768 slower than N = 16769, the explicit example of
the monotonicity test.) Consequences the tests pin down: the kernel never beats its own HBM floor
(``time >= bytes_hbm / BW``); more HBM, L2, shared-memory or port bandwidth, or a faster
clock, never make a configuration slower; nor does an integer multiple of the SMs while
L2 holds every wave's panels.

The module is longer than 500 lines on purpose: the tiling record, the HBM replay, the pricing
core and its one-shape and many-shape faces share private helpers (``_tiling``, ``_replay_many``,
``_price``, ``_on_chip``, ``_groups``, ``_hbm_bound_s``) that a split would have to make public.

Known limits: the on-chip terms, the L2 term and the L2 survival rule act wave by wave.
So a few more SMs (not a multiple) can regroup the blocks into less balanced waves, and a
multiple of the SMs can merge waves into one that overflows L2, losing (by the survival
rule) the panels its successor needed; either can price a configuration slightly slower.
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.space import (GemmConfig, as_mnk, check_knob, check_sequence, check_shape, config_array, launch_checks, pipeline_smem_bytes, reasons, warp_grid)

__all__ = ["TERMS", "ModelTerms", "Breakdown", "Tiling", "tiling", "evaluate", "evaluate_many", "gemm_time",
           "explain", "blocks_per_sm", "hbm_bytes"]

#: Per-k-step terms in the order :class:`Breakdown` reports them, with Chinese names.
TERMS = {
    "t_tc_s": "Tensor Core 计算",
    "t_smem_s": "共享内存读",
    "t_port_s": "SM↔L2 端口",
    "t_l2_s": "L2 带宽",
    "t_hbm_s": "HBM 带宽",
    "t_latency_s": "延迟（Little 定律）",
}


@dataclass(frozen=True)
class ModelTerms:
    """The model's output for ``n`` configurations on one shape (arrays of length ``n``).

    Per-k-step terms are those of the first wave; ``time_s`` sums every wave.
    Configurations that cannot launch have ``time_s = inf`` and NaN terms.
    """

    time_s: np.ndarray
    launchable: np.ndarray
    blocks: np.ndarray
    blocks_per_sm: np.ndarray
    waves: np.ndarray
    k_steps: np.ndarray
    t_tc_s: np.ndarray
    t_smem_s: np.ndarray
    t_port_s: np.ndarray
    t_l2_s: np.ndarray
    t_hbm_s: np.ndarray
    t_latency_s: np.ndarray
    t_step_s: np.ndarray
    fill_s: np.ndarray
    epilogue_s: np.ndarray
    bytes_hbm: np.ndarray


@dataclass(frozen=True)
class Breakdown:
    """Where one configuration's time goes (see :func:`explain`)."""

    config: GemmConfig
    shape: tuple[int, int, int]
    time_s: float
    tflops: float
    blocks: int
    blocks_per_sm: int
    waves: int
    k_steps: int
    t_tc_s: float
    t_smem_s: float
    t_port_s: float
    t_l2_s: float
    t_hbm_s: float
    t_latency_s: float
    t_step_s: float
    fill_s: float
    epilogue_s: float
    bytes_hbm: float
    bottleneck: str

    def terms(self) -> dict[str, float]:
        """The six per-k-step terms of the first wave, in seconds, keyed as in :data:`TERMS`."""
        return {name: getattr(self, name) for name in TERMS}


@dataclass(frozen=True)
class Tiling:
    """Grid, occupancy and wave arithmetic of configurations on a shape (see :func:`tiling`).

    Every field is an integer array, broadcast over the configurations (and the shapes, when
    ``M, N, K`` are arrays). The cost model and both learned feature builders read these.
    """

    grid_m: np.ndarray  # blocks along M: ceil(M / bm)
    grid_n: np.ndarray  # blocks along N: ceil(N / bn)
    blocks: np.ndarray  # grid_m * grid_n
    k_steps: np.ndarray  # ceil(K / bk)
    warps_m: np.ndarray  # warps along M (wy of WARP_GRID)
    warps_n: np.ndarray  # warps along N (wx)
    warp_rows: np.ndarray  # rows of C one warp computes: bm / wy
    warp_cols: np.ndarray  # columns of C one warp computes: bn / wx
    rows: np.ndarray  # real (unpadded) rows of the busiest block: min(bm, M)
    cols: np.ndarray  # real columns of the busiest block: min(bn, N)
    regs_per_thread: np.ndarray  # accumulator and base registers, rounded up to the allocation unit
    smem_bytes: np.ndarray  # the pipeline's shared memory per block (pipeline_smem_bytes), reservation excluded
    blocks_per_sm: np.ndarray  # resident blocks per SM (occupancy); 0 when one block does not fit
    per_wave: np.ndarray  # blocks per wave: n_sm * max(blocks_per_sm, 1)
    waves: np.ndarray  # ceil(blocks / per_wave)
    full_waves: np.ndarray  # blocks // per_wave
    tail_blocks: np.ndarray  # blocks % per_wave: the last, partial wave's blocks (0 when none)
    tail_blocks_per_sm: np.ndarray  # ceil(tail_blocks / n_sm): resident blocks per SM in the partial wave


def _occupancy(arr: np.ndarray, hw: Hardware) -> tuple[np.ndarray, ...]:
    """(wy, wx, registers per thread, pipeline bytes, resident blocks per SM) of an ``(n, 6)`` config array."""
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    wy, wx = warp_grid(warps)
    threads = warps * hw.warp_size
    regs = (bm // wy) * (bn // wx) // hw.warp_size + hw.base_regs_per_thread
    regs = -(-regs // hw.reg_alloc_unit) * hw.reg_alloc_unit
    smem = pipeline_smem_bytes(bm, bn, bk, stages, hw)
    by_smem = hw.smem_per_sm // (smem + hw.smem_reserved_per_block)
    by_regs = hw.regs_per_sm // (regs * threads)
    by_threads = hw.max_threads_per_sm // threads
    r = np.minimum.reduce([by_smem, by_regs, by_threads, np.full_like(bm, hw.max_blocks_per_sm)])
    return wy, wx, regs, smem, r


def blocks_per_sm(arr: np.ndarray, hw: Hardware | None = None) -> np.ndarray:
    """Resident blocks per SM (occupancy) for an ``(n, 6)`` config array.

    Notes
    -----
    ``r = min(smem_per_sm // (smem + reserved), regs_per_sm // (regs * 32 * warps),
    max_threads // (32 * warps), max_blocks)`` where ``regs`` is the accumulator's
    ``wm * wn / 32 + 40`` registers per thread rounded up to the allocation unit.
    Zero for a configuration that does not fit one block.
    """
    return _occupancy(config_array(arr), check_hardware(hw))[-1]


def tiling(arr: np.ndarray, M, N, K, hw: Hardware | None = None) -> Tiling:
    """Grid, occupancy and waves of an ``(n, 6)`` config array on ``M x N x K``.

    ``M, N, K`` are integers, or integer arrays that broadcast against the ``n`` configurations
    (an ``(s, 1)`` column prices ``s`` shapes: every field is then ``(s, n)``). Waves assume at
    least one resident block per SM, so they stay finite for a configuration that cannot launch.

    Examples
    --------
    >>> t = tiling(config_array([GemmConfig(256, 128, 32, 8, 4, 1)]), 4096, 4096, 4096)
    >>> int(t.blocks[0]), int(t.per_wave[0]), int(t.waves[0]), int(t.tail_blocks[0]), int(t.smem_bytes[0])
    (512, 132, 4, 116, 98304)
    """
    return _tiling(config_array(arr), M, N, K, check_hardware(hw))


def _tiling(arr: np.ndarray, M, N, K, hw: Hardware) -> Tiling:
    """:func:`tiling` without validating its arguments (the pricing loop's path)."""
    bm, bn, bk = arr[:, 0], arr[:, 1], arr[:, 2]
    wy, wx, regs, smem, r = _occupancy(arr, hw)
    grid_m, grid_n = -(-M // bm), -(-N // bn)
    blocks = grid_m * grid_n
    per_wave = hw.n_sm * np.maximum(r, 1)
    full, tail = blocks // per_wave, blocks % per_wave
    return Tiling(grid_m=grid_m, grid_n=grid_n, blocks=blocks, k_steps=-(-K // bk), warps_m=wy, warps_n=wx,
                  warp_rows=bm // wy, warp_cols=bn // wx, rows=np.minimum(bm, M), cols=np.minimum(bn, N),
                  regs_per_thread=regs, smem_bytes=smem, blocks_per_sm=r, per_wave=per_wave,
                  waves=full + (tail > 0), full_waves=full, tail_blocks=tail, tail_blocks_per_sm=-(-tail // hw.n_sm))


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
    _check_exact(M, N, K, hw)
    for name, value in (("bm", bm), ("bn", bn), ("group", group)):
        check_knob(name, value)
    if isinstance(per_wave, bool) or not isinstance(per_wave, numbers.Integral) or per_wave < 1:
        raise ValueError(f"per_wave must be a positive integer, got {per_wave!r}")
    return float(_replay(M, N, K, ((bm, bn, group, per_wave),), hw)[0])


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
        x[combo] for x in (M, N, K, bm, bn, group, per_wave, grid_m, grid_n, blocks))
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
    kept_reused[later_wave] = np.minimum(1.0, hw.l2_bytes_shared / footprint[np.flatnonzero(later_wave) - 1]) \
        * reused[later_wave]
    # integers are exact and fsum is correctly rounded: a combo's bytes do not depend on its batch.
    # Where every kept part is a whole number of bytes (the panels fit L2) their sum is an exact
    # integer below 2**53, which is what fsum returns; fsum runs only for the other combos.
    touched = np.add.reduceat(footprint, first)
    whole = np.floor(kept_reused) == kept_reused
    exact = np.logical_and.reduceat(whole, first)
    kept = np.add.reduceat(np.where(whole, kept_reused, 0.0).astype(np.int64), first).astype(np.float64)
    for i in np.flatnonzero(~exact).tolist():
        kept[i] = math.fsum(kept_reused[first[i]:first[i] + n_waves[i]])
    return touched.astype(np.float64) - kept + c_bytes.astype(np.float64)


def _check_exact(M: int, N: int, K: int, hw: Hardware) -> None:
    """Refuse a shape whose byte counts could reach 2**53 on ``hw`` (no longer exact in float64).

    Every wave reads at most its blocks' panels, so the replay sums at most
    ``ceil(M / 16) ceil(N / 16) * 32 K`` operand elements plus ``M N`` for C.
    """
    bound = (-(-M // 16) * -(-N // 16) * 32 * K + M * N) * hw.bytes_per_element
    if bound >= 2**53:
        raise ValueError(f"shape {M} x {N} x {K} with Hardware.bytes_per_element = {hw.bytes_per_element} may move "
                         f"{bound} bytes, not exact below 2**53: refused")


def evaluate(configs, M: int, N: int, K: int, hw: Hardware | None = None) -> ModelTerms:
    """Price every configuration on an ``M x N x K`` FP16 GEMM in one vectorised pass.

    Parameters
    ----------
    configs : sequence of GemmConfig or array-like of shape (n, 6)
        Configurations, columns in ``SPACE`` order.
    M, N, K : int
        GEMM shape: ``C[M, N] = A[M, K] @ B[K, N]``.
    hw : Hardware, optional
        Machine parameters (default: :func:`schedlab.core.hardware.default`).

    Returns
    -------
    ModelTerms
        Arrays of length ``n``; ``time_s`` is ``inf`` where a configuration cannot launch.

    Notes
    -----
    For a config with warp grid ``(wy, wx)``, ``r`` resident blocks on the busiest SM and
    ``a`` blocks resident on the chip in a wave, one k-step costs

    .. math::

        t_{step} = \\max\\Big(\\frac{r\\,2\\,B_M B_N B_K}{\\min(4, r w)\\,F_{tc}\\,f},\\;
                   \\frac{r\\,2 B_K (w_x B_M + w_y B_N)}{128 f},\\;
                   \\frac{r\\,2 B_K (m + n)}{64 f},\\;
                   \\frac{a\\,2 B_K (m + n)}{BW_{L2}},\\;
                   \\frac{Q_{HBM}}{W S\\,BW_{HBM}},\\;
                   \\frac{L}{s - 1}\\Big)

    with ``m = min(BM, M)`` and ``n = min(BN, N)`` real rows and columns, ``F_tc`` the FLOP/clk
    of one tensor core, ``f`` the clock, ``S = ceil(K / BK)`` k-steps, ``W`` waves, ``Q_HBM`` the kernel's
    HBM bytes and ``L`` the memory latency. With one stage there is no overlap:
    ``t_step = L + max(other terms)``. A wave costs ``fill + S t_step + epilogue``, with
    ``fill = L`` (for ``s > 1``) and the epilogue writing C at the slower of port and L2,
    except that HBM is one queue for the kernel: the k-steps of all waves together, their
    latency waits apart, last at least ``Q_HBM / BW_HBM`` (the per-step HBM term above is
    that bound spread evenly, as :class:`Breakdown` reports it).

    Examples
    --------
    >>> terms = evaluate([GemmConfig(256, 128, 32, 8, 4, 1)], 4096, 4096, 4096)
    >>> int(terms.waves[0]), int(terms.k_steps[0])
    (4, 128)
    """
    M, N, K = check_shape(M, N, K)
    hw = check_hardware(hw)
    _check_exact(M, N, K, hw)
    arr = config_array(configs)
    return _evaluate(arr, _launchable_mask(arr, hw), M, N, K, hw)


def _launchable_mask(arr: np.ndarray, hw: Hardware) -> np.ndarray:
    checks = launch_checks(arr, hw)
    return ~(checks["smem"] | checks["mma"] | checks["registers"])


def _evaluate(arr: np.ndarray, launchable: np.ndarray, M, N, K, hw: Hardware) -> ModelTerms:
    """:func:`evaluate` of validated arguments; ``M, N, K`` scalars, or ``(s, 1)`` columns for ``s`` shapes."""
    size = np.broadcast_shapes(np.shape(M), np.shape(N), np.shape(K), (len(arr),))
    out = _priced(arr, launchable, M, N, K, hw, size, tuple(f for f in ModelTerms.__dataclass_fields__
                                                            if f != "launchable"))
    return ModelTerms(launchable=np.broadcast_to(launchable, size), **out)


def _priced(arr, launchable, M, N, K, hw: Hardware, size, names, groups=None, out=None) -> dict[str, np.ndarray]:
    """The ``names`` fields of :class:`ModelTerms` (not ``launchable``), arrays of ``size``.

    ``groups``, if given, is :func:`_groups` of ``arr[launchable]`` (computed once for many calls);
    ``out``, if given, holds an array of ``size`` per name, filled in place and returned.
    """
    ints = ("blocks", "blocks_per_sm", "waves", "k_steps")
    if out is None:
        out = {name: np.empty(size, dtype=np.int64 if name in ints else np.float64) for name in names}
    idx = np.flatnonzero(launchable)
    every = idx.size == len(arr)
    if not every:  # what a configuration that cannot launch reports
        for name, values in out.items():
            values[...] = 0 if name in ints else np.inf if name == "time_s" else np.nan
    if idx.size and np.prod(size):
        for name, values in _price(arr[idx], M, N, K, hw, names, groups).items():
            if every:
                out[name][...] = values
            else:
                out[name][..., idx] = values
    return out


#: Most (shape, configuration) cells, plus waves that may be replayed, :func:`evaluate_many` prices in one
#: numpy pass: this bounds its working memory (under 30 MiB on the 64 x 64 grid of
#: ``benchmarks/bench_many.py``, whose result alone takes 117 MiB), whatever the number of shapes.
MANY_CHUNK_CELLS = 2**18


def evaluate_many(shapes, configs, hw: Hardware | None = None, terms=("time_s",)) -> dict[str, np.ndarray]:
    """Price every configuration on every shape: :func:`evaluate` vectorised across shapes as well.

    Parameters
    ----------
    shapes : sequence of (M, N, K)
        GEMM shapes (or :class:`schedlab.core.shapes.Shape`), each validated as by :func:`evaluate`.
    configs : sequence of GemmConfig or array-like of shape (n, 6)
    hw : Hardware, optional
        Machine parameters (default: :func:`schedlab.core.hardware.default`).
    terms : sequence of str
        The :class:`ModelTerms` fields to return (each costs ``8 n_shapes n_configs`` bytes).

    Returns
    -------
    dict of str to ndarray
        Each requested field as a read-only ``(n_shapes, n_configs)`` array; row ``i`` is, bit for
        bit, that field of ``evaluate(configs, *shapes[i], hw)``.

    Notes
    -----
    Shapes are priced in chunks of at most :data:`MANY_CHUNK_CELLS` (shape, configuration) cells
    plus replayed waves, so the working memory is bounded whatever the number of shapes; only the
    returned arrays grow with it. The on-chip terms do not depend on ``group``: they are priced once
    per distinct ``(bm, bn, bk, warps, stages)``. The HBM replay of a launch order depends on a
    configuration only through ``(bm, bn, group, per_wave)``, so it runs at most once per shape and
    distinct combination; when ``terms`` asks for none of ``t_hbm_s``, ``t_step_s`` and ``bytes_hbm``,
    only where an upper bound on its HBM time (the panels each wave can touch in the grouped order,
    L2 reuse ignored) exceeds the on-chip time of one of its configurations, since elsewhere the
    kernel's time is its on-chip time whatever the replay finds.

    Examples
    --------
    >>> cfg = GemmConfig(256, 128, 32, 8, 4, 1)
    >>> many = evaluate_many([(4096, 4096, 4096), (16, 4096, 4096)], [cfg], terms=("time_s", "waves"))
    >>> many["time_s"].shape, many["waves"].tolist()
    ((2, 1), [[4], [1]])
    >>> bool(many["time_s"][1, 0] == evaluate([cfg], 16, 4096, 4096).time_s[0])
    True
    """
    mnk = np.array([as_mnk(s) for s in check_sequence(shapes, "shapes", "(M, N, K)")], dtype=np.int64).reshape(-1, 3)
    hw = check_hardware(hw)
    terms = check_sequence(terms, "terms", "ModelTerms field names")
    for name in terms:
        if name not in ModelTerms.__dataclass_fields__:
            raise ValueError(f"terms must name ModelTerms fields {tuple(ModelTerms.__dataclass_fields__)}, "
                             f"got {name!r}")
    for M, N, K in mnk.tolist():
        _check_exact(M, N, K, hw)
    arr = config_array(configs)
    launchable = _launchable_mask(arr, hw)
    out = {name: np.empty((len(mnk), len(arr)), dtype=bool if name == "launchable" else
                          np.int64 if name in ("blocks", "blocks_per_sm", "waves", "k_steps") else np.float64)
           for name in terms}
    # waves each shape may replay: one per distinct (bm, bn, group, per_wave) of the launchable configs
    groups = _groups(arr[launchable], hw) if launchable.any() else None
    cost = np.full(len(mnk), len(arr))
    if groups is not None:  # waves depend on (bm, bn, per_wave), a tile; each of its groups replays them
        bm, bn, per_wave = groups.tiles.T
        combos_per_tile = np.bincount(groups.combo_tile, minlength=len(groups.tiles))
        cost += (-(-(-(-mnk[:, :1] // bm) * -(-mnk[:, 1:2] // bn)) // per_wave)) @ combos_per_tile
    if "launchable" in out:
        out["launchable"][...] = launchable
    priced = tuple(name for name in terms if name != "launchable")
    start = 0
    while start < len(mnk):
        stop = start + 1 + int(np.searchsorted(np.cumsum(cost[start + 1:]), MANY_CHUNK_CELLS - cost[start], "right"))
        columns = [mnk[start:stop, j:j + 1] for j in range(3)]
        _priced(arr, launchable, *columns, hw, (stop - start, len(arr)), priced, groups,
                {name: out[name][start:stop] for name in priced})
        start = stop
    for values in out.values():
        values.flags.writeable = False
    return out


class _Groups(NamedTuple):
    """How :func:`_price` shares work among configurations (each array indexes the one before it)."""

    base: np.ndarray  # (b, 5): the distinct (bm, bn, bk, warps, stages), priced on chip once each
    base_of: np.ndarray  # (n,): each configuration's row of base
    tiles: np.ndarray  # (t, 3): the distinct (bm, bn, per_wave) of base, each with one HBM bound
    by_tile: np.ndarray  # (b,): base rows sorted by tile
    tile_starts: np.ndarray  # (t,): where each tile's rows start in by_tile
    combos: tuple  # 4 arrays (u,): the distinct (bm, bn, group, per_wave), each replayed once per shape
    combo_tile: np.ndarray  # (u,): each combination's row of tiles
    combo_of: np.ndarray  # (n,): each configuration's combination
    by_combo: np.ndarray  # (n,): configurations sorted by combination
    combo_starts: np.ndarray  # (u,): where each combination's configurations start in by_combo


def _groups(arr: np.ndarray, hw: Hardware) -> _Groups:
    """The :class:`_Groups` of an ``(n, 6)`` array of launchable configurations (``n >= 1``), cached."""
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    return _groups_of(arr.tobytes(), len(arr), hw)


@memoised(maxsize=64)
def _groups_of(rows: bytes, n: int, hw: Hardware) -> _Groups:
    """:func:`_groups` of the configuration array held in ``rows`` (read-only arrays: they are shared)."""
    arr = np.frombuffer(rows, dtype=np.int64).reshape(n, 6)
    base, base_of = np.unique(arr[:, :5], axis=0, return_inverse=True)
    per_wave = hw.n_sm * np.maximum(_occupancy(base, hw)[-1], 1)
    tiles, tile_of = np.unique(np.stack([base[:, 0], base[:, 1], per_wave], axis=1), axis=0, return_inverse=True)
    tile_of = tile_of.ravel()
    by_tile = np.argsort(tile_of, kind="stable")
    tile_starts = np.flatnonzero(np.r_[True, np.diff(tile_of[by_tile]) > 0])
    group, groups = arr[:, 5], int(arr[:, 5].max()) + 1
    keys, combo_of = np.unique(tile_of[base_of.ravel()] * groups + group, return_inverse=True)
    combo_tile = keys // groups
    combos = (tiles[combo_tile, 0], tiles[combo_tile, 1], keys % groups, tiles[combo_tile, 2])
    by_combo = np.argsort(combo_of.ravel(), kind="stable")
    combo_starts = np.flatnonzero(np.r_[True, np.diff(combo_of.ravel()[by_combo]) > 0])
    groups = _Groups(base, base_of.ravel(), tiles, by_tile, tile_starts, combos, combo_tile, combo_of.ravel(),
                     by_combo, combo_starts)
    for values in (*groups[:5], *combos, *groups[6:]):
        values.flags.writeable = False
    return groups


def _price(arr: np.ndarray, M, N, K, hw: Hardware, names, groups: _Groups | None = None) -> dict[str, np.ndarray]:
    """The ``names`` fields of :class:`ModelTerms` for launchable configurations only.

    ``M, N, K`` are scalars or ``(s, 1)`` columns; ``groups`` is :func:`_groups` of ``arr`` (computed
    when not given). Configurations that differ only in ``group`` share every on-chip quantity
    (:func:`_on_chip` prices each ``(bm, bn, bk, warps, stages)`` once); ``group`` acts through the
    HBM replay alone. When ``names`` asks for none of ``t_hbm_s``, ``t_step_s`` and ``bytes_hbm``
    (``(s, 1)`` columns only), a launch order is replayed only where :func:`_hbm_bound_s` cannot show
    that the kernel's HBM time stays at or below the on-chip time of every configuration it serves:
    elsewhere ``max(on-chip, HBM)`` is the on-chip time whatever the replay finds.
    """
    g = _groups(arr, hw) if groups is None else groups
    exact_hbm = np.ndim(M) == 0 or not {"t_hbm_s", "t_step_s", "bytes_hbm"}.isdisjoint(names)
    chip = _on_chip(g.base, M, N, K, hw)
    out = {name: chip[name][..., g.base_of] for name in names if name in chip}
    if not exact_hbm:
        if "time_s" in names:
            out["time_s"] = _time_bounded(chip, M, N, K, hw, g)
        return out
    # --- HBM: replay the launch order; one queue for the whole kernel (see the module notes)
    if np.ndim(M) == 0:
        bytes_hbm = _replay(M, N, K, tuple(zip(*(x.tolist() for x in g.combos))), hw)[g.combo_of]
    else:  # s shapes: every (shape, combination) in one replay
        s, u = np.broadcast_shapes(np.shape(M), np.shape(N), np.shape(K))[0], len(g.combo_tile)
        dims = (np.broadcast_to(x, (s, u)).ravel() for x in (M, N, K))
        bytes_hbm = _replay_many(*dims, *(np.tile(x, s) for x in g.combos), hw).reshape(s, u)[:, g.combo_of]
    t_hbm_s = bytes_hbm / hw.hbm_bw_bytes_per_s  # the kernel's whole HBM transfer
    if "time_s" in names:
        out["time_s"] = chip["fixed_s"][..., g.base_of] + np.maximum(chip["compute_s"][..., g.base_of], t_hbm_s)
    waves, k_steps = chip["waves"][..., g.base_of], chip["k_steps"][..., g.base_of]
    t_hbm_step_s = t_hbm_s / (waves * k_steps)  # the kernel's HBM time per k-step
    bound = np.maximum(chip["on_chip_bound_s"][..., g.base_of], t_hbm_step_s)  # the first wave's slowest term
    t_step_s = np.where(arr[:, 4] > 1, np.maximum(bound, chip["t_latency_s"][g.base_of]),
                        hw.mem_latency_s + bound)
    extra = {"t_hbm_s": t_hbm_step_s, "t_step_s": t_step_s, "bytes_hbm": bytes_hbm}
    out.update((name, extra[name]) for name in names if name in extra)
    return out


def _time_bounded(chip: dict, M, N, K, hw: Hardware, g: _Groups) -> np.ndarray:
    """``time_s`` of :func:`_price` for ``(s, 1)`` columns, replaying only where HBM could be the slower.

    ``time = fixed + max(on-chip, HBM)``. Where :func:`_hbm_bound_s` of a combination is at or below
    the on-chip time of every configuration of its tile, the maximum is the on-chip time whatever the
    replay would find (``fixed + on-chip`` on the base configurations, spread to their groups); the
    other (shape, combination) pairs are replayed and their configurations priced in full.
    """
    fixed_s, compute_s = chip["fixed_s"], chip["compute_s"]
    s = compute_s.shape[0]
    time_s = (fixed_s + compute_s)[:, g.base_of]
    least_compute_s = np.minimum.reduceat(compute_s[:, g.by_tile], g.tile_starts, axis=1)[:, g.combo_tile]
    bound_s = _hbm_bound_s(*(np.broadcast_to(x, (s, len(g.combo_tile))) for x in (M, N, K)), *g.combos, hw)
    which, combo = np.nonzero(bound_s > least_compute_s)
    if which.size:
        dims = (np.broadcast_to(x, (s, 1))[which, 0] for x in (M, N, K))
        t_hbm_s = _replay_many(*dims, *(x[combo] for x in g.combos), hw) / hw.hbm_bw_bytes_per_s
        # every configuration of each replayed pair: cell (shape, config) and its pair's HBM time
        count = np.diff(np.r_[g.combo_starts, len(g.by_combo)])[combo]
        first = np.repeat(np.cumsum(count) - count, count)
        config = g.by_combo[np.repeat(g.combo_starts[combo], count) + np.arange(count.sum()) - first]
        shape, base = np.repeat(which, count), g.base_of[config]
        time_s[shape, config] = fixed_s[shape, base] + np.maximum(compute_s[shape, base], np.repeat(t_hbm_s, count))
    return time_s


def _on_chip(arr: np.ndarray, M, N, K, hw: Hardware) -> dict[str, np.ndarray]:
    """Everything :func:`_price` reports but HBM, of an ``(n, 5)`` array ``(bm, bn, bk, warps, stages)``.

    Besides :class:`ModelTerms` fields: ``compute_s`` (the k-steps of every wave on on-chip resources
    only), ``fixed_s`` (fills, one-stage latencies and epilogues) and ``on_chip_bound_s`` (the first
    wave's slowest on-chip term).
    """
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    elt = hw.bytes_per_element
    clk = hw.clock_hz
    lat = hw.mem_latency_s

    # --- grid, occupancy and waves -------------------------------------------------
    t = _tiling(arr, M, N, K, hw)
    wy, wx, k_steps, r_full, per_wave = t.warps_m, t.warps_n, t.k_steps, t.blocks_per_sm, t.per_wave
    n_full, tail, waves, r_tail = t.full_waves, t.tail_blocks, t.waves, t.tail_blocks_per_sm

    # --- per-k-step terms for a wave with r blocks per SM and `active` on the chip --
    rows, cols = t.rows, t.cols  # real, unpadded rows / columns of the busiest block
    flop_tile = 2.0 * bm * bn * bk  # the tensor cores compute the padded tile
    bytes_smem = (wx * bm + wy * bn) * bk * elt  # every warp reads its A strip (wm x bk) and B strip (bk x wn)
    bytes_port = (rows + cols) * bk * elt  # A and B bytes the block brings in per k-step
    t_latency = np.where(stages > 1, lat / np.maximum(stages - 1, 1), lat)
    fill = np.where(stages > 1, lat, 0.0)  # the first stage's load, before the first mma

    def wave(r, active):
        """Per-k-step terms but HBM, and the epilogue, of a wave with r blocks per SM, `active` on chip."""
        busy_cores = np.minimum(hw.tensor_cores_per_sm, r * warps)
        terms = {
            "t_tc_s": r * flop_tile / (busy_cores * hw.flop_per_clk_per_tensor_core * clk),
            "t_smem_s": r * bytes_smem / (hw.smem_bytes_per_clk_per_sm * clk),
            "t_port_s": r * bytes_port / (hw.l2_port_bytes_per_clk_per_sm * clk),
            "t_l2_s": active * bytes_port / hw.l2_bw_bytes_per_s,
        }
        bytes_c = rows * cols * elt
        epilogue = np.maximum(r * bytes_c / (hw.l2_port_bytes_per_clk_per_sm * clk),
                              active * bytes_c / hw.l2_bw_bytes_per_s)
        return terms, epilogue

    def slowest(terms):  # terms may differ in shape (per shape or not)
        return functools.reduce(np.maximum, terms.values())

    def step(terms):
        """k-step time from its terms: the slowest hides the rest behind the pipeline, or follows one latency."""
        bound = slowest(terms)
        return np.where(stages > 1, np.maximum(bound, t_latency), lat + bound)

    full_terms, full_epilogue = wave(r_full, per_wave)
    tail_terms, tail_epilogue = wave(np.maximum(r_tail, 1), tail)  # unused where no tail
    has_tail = tail > 0
    one_stage = np.where(stages > 1, 0.0, lat)  # with one stage every k-step first waits one latency
    first_is_full = n_full > 0
    first_terms = {name: np.where(first_is_full, full_terms[name], tail_terms[name]) for name in full_terms}
    return {
        "blocks": t.blocks,
        "blocks_per_sm": r_full,
        "waves": waves,
        "k_steps": k_steps,
        **first_terms,
        "t_latency_s": t_latency,
        "fill_s": fill * waves,
        "epilogue_s": n_full * full_epilogue + has_tail * tail_epilogue,
        # k-steps of every wave, on chip resources only (for one stage, without the latency)
        "compute_s": k_steps * (n_full * (step(full_terms) - one_stage) + has_tail * (step(tail_terms) - one_stage)),
        "fixed_s": waves * (fill + k_steps * one_stage) + n_full * full_epilogue + has_tail * tail_epilogue,
        "on_chip_bound_s": slowest(first_terms),
    }


def _hbm_bound_s(M, N, K, bm, bn, group, per_wave, hw: Hardware) -> np.ndarray:
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
        row_panels, col_panels = _wave_panels_bound(n, grid_m, grid_n, group)
        return (np.minimum(row_panels * rows, M) + np.minimum(col_panels * cols, N)).astype(np.float64)

    elements = (full * lines(per_wave) + lines(tail)) * K + M * N.astype(np.float64)
    return elements * (hw.bytes_per_element * (1 + 1e-9)) / hw.hbm_bw_bytes_per_s


def _wave_panels_bound(n, grid_m, grid_n, group) -> tuple[np.ndarray, np.ndarray]:
    """At most how many A row-panels and B column-panels ``n`` consecutive blocks of the grouped order touch.

    See :func:`_hbm_bound_s`; integer arrays, ``(0, 0)`` for ``n = 0``.
    """
    groups = (n - 1) // (group * grid_n) + 2  # the groups met: the first, the last and whole ones between
    smallest_group = grid_m - group * ((grid_m - 1) // group)  # the last group's rows
    return np.minimum(n, groups * group), np.minimum(n, n // smallest_group + 2 * groups)


def gemm_time(cfg: GemmConfig, M: int, N: int, K: int, hw: Hardware | None = None) -> float:
    """Model time in seconds of ``cfg`` on an ``M x N x K`` FP16 GEMM; ``inf`` if it cannot launch.

    A thin wrapper over :func:`evaluate` (one configuration).

    Examples
    --------
    >>> t = gemm_time(GemmConfig(256, 128, 32, 8, 4, 1), 4096, 4096, 4096)
    >>> from schedlab.core.hardware import H100_TC
    >>> 2 * 4096**3 / t / H100_TC.peak_flops > 0.85
    True
    >>> gemm_time(GemmConfig(256, 256, 128, 8, 5, 1), 4096, 4096, 4096)
    inf
    """
    if not isinstance(cfg, GemmConfig):
        raise ValueError(f"cfg must be a GemmConfig, got {type(cfg).__name__}")
    return float(evaluate([cfg], M, N, K, hw).time_s[0])


def explain(cfg: GemmConfig, M: int, N: int, K: int, hw: Hardware | None = None) -> Breakdown:
    """Every term of ``cfg``'s time on ``M x N x K`` and the bottleneck of its first wave.

    Raises
    ------
    ValueError
        If ``cfg`` cannot launch (the message lists the reasons) or the shape is invalid.

    Examples
    --------
    >>> b = explain(GemmConfig(256, 128, 32, 8, 4, 1), 4096, 4096, 4096)
    >>> b.bottleneck, b.waves, b.blocks_per_sm
    ('t_tc_s', 4, 1)
    """
    if not isinstance(cfg, GemmConfig):
        raise ValueError(f"cfg must be a GemmConfig, got {type(cfg).__name__}")
    terms = evaluate([cfg], M, N, K, hw)
    if not terms.launchable[0]:
        why = "；".join(r.message for r in reasons(cfg, hw))
        raise ValueError(f"config {cfg.as_tuple()} cannot launch: {why}")
    values = {name: float(getattr(terms, name)[0]) for name in ModelTerms.__dataclass_fields__ if name != "launchable"}
    step_terms = {name: values[name] for name in TERMS}
    bottleneck = max(step_terms, key=step_terms.get)
    for name in ("blocks", "blocks_per_sm", "waves", "k_steps"):
        values[name] = int(values[name])
    time_s = values.pop("time_s")
    return Breakdown(config=cfg, shape=(M, N, K), time_s=time_s, tflops=2.0 * M * N * K / time_s / 1e12,
                     bottleneck=bottleneck, **values)
