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
``_price``) that a split would have to make public.

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

import numpy as np

from .caching import memoised
from .hardware import Hardware, check_hardware
from .space import (GemmConfig, as_mnk, check_knob, check_sequence, check_shape, config_array, launch_checks,
                    pipeline_smem_bytes, reasons, warp_grid)

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

    def panel_bytes(tile, extent):
        def measure(lo, hi, part=slice(None)):  # panels [lo, hi) hold min(hi * tile, extent) - ... rows
            t, e = tile[part], extent[part]
            return (np.minimum(np.maximum(hi, lo) * t, e) - np.minimum(lo * t, e)) * K[part] * elt
        return measure

    a_bytes, b_bytes = panel_bytes(bm, M), panel_bytes(bn, N)

    def with_previous(measure, intervals):  # bytes also touched by the previous wave of the same combo
        total = np.zeros(combo.size, dtype=np.int64)
        for lo, hi in intervals:
            for prev_lo, prev_hi in intervals:
                total[1:] += measure(np.maximum(lo[1:], prev_lo[:-1]), np.minimum(hi[1:], prev_hi[:-1]), slice(1, None))
        return np.where(index > 0, total, 0)

    footprint = sum(a_bytes(lo, hi) for lo, hi in rows) + sum(b_bytes(lo, hi) for lo, hi in cols)
    reused = with_previous(a_bytes, rows) + with_previous(b_bytes, cols)
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
        Machine parameters (default: :func:`schedlab.hardware.default`).

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


def _priced(arr, launchable, M, N, K, hw: Hardware, size, names) -> dict[str, np.ndarray]:
    """The ``names`` fields of :class:`ModelTerms` (not ``launchable``), arrays of ``size``."""
    ints = ("blocks", "blocks_per_sm", "waves", "k_steps")
    out = {name: np.zeros(size, dtype=np.int64) if name in ints else np.full(size, np.nan) for name in names}
    if "time_s" in out:
        out["time_s"][...] = np.inf
    idx = np.flatnonzero(launchable)
    if idx.size and np.prod(size):
        every = idx.size == len(arr)
        for name, values in _price(arr[idx], M, N, K, hw).items():
            if name not in out:
                continue
            if every:
                out[name][...] = values
            else:
                out[name][..., idx] = values
    return out


#: Most (shape, configuration) cells, plus replayed waves, :func:`evaluate_many` prices in one numpy
#: pass: its working memory, about 60 float64 temporaries per cell (some 120 MiB), whatever the shapes.
MANY_CHUNK_CELLS = 2**18


def evaluate_many(shapes, configs, hw: Hardware | None = None, terms=("time_s",)) -> dict[str, np.ndarray]:
    """Price every configuration on every shape: :func:`evaluate` vectorised across shapes as well.

    Parameters
    ----------
    shapes : sequence of (M, N, K)
        GEMM shapes (or :class:`schedlab.analysis.Shape`), each validated as by :func:`evaluate`.
    configs : sequence of GemmConfig or array-like of shape (n, 6)
    hw : Hardware, optional
        Machine parameters (default: :func:`schedlab.hardware.default`).
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
    returned arrays grow with it. The HBM replay of a launch order depends on a configuration only
    through ``(bm, bn, group, per_wave)``, so it runs once per shape and distinct combination.

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
    # waves each shape replays: one per distinct (bm, bn, group, per_wave) of the launchable configs
    tiles = arr[launchable]
    per_wave = _tiling(tiles, 1, 1, 1, hw).per_wave
    _, first = np.unique(np.stack([tiles[:, 0], tiles[:, 1], tiles[:, 5], per_wave], axis=1), axis=0,
                         return_index=True)
    cost = len(arr) + _tiling(tiles[first], mnk[:, :1], mnk[:, 1:2], mnk[:, 2:], hw).waves.sum(axis=1)
    start = 0
    while start < len(mnk):
        stop = start + 1 + int(np.searchsorted(np.cumsum(cost[start + 1:]), MANY_CHUNK_CELLS - cost[start], "right"))
        columns = [mnk[start:stop, j:j + 1] for j in range(3)]
        chunk = _priced(arr, launchable, *columns, hw, (stop - start, len(arr)),
                        tuple(name for name in terms if name != "launchable"))
        for name in terms:
            out[name][start:stop] = launchable if name == "launchable" else chunk[name]
        start = stop
    for values in out.values():
        values.flags.writeable = False
    return out


def _price(arr: np.ndarray, M, N, K, hw: Hardware) -> dict[str, np.ndarray]:
    """The model proper, for launchable configurations only; ``M, N, K`` scalars or ``(s, 1)`` columns."""
    bm, bn, bk, warps, stages, group = (arr[:, j] for j in range(6))
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

    # --- HBM: replay the launch order; one queue for the whole kernel (see the module notes)
    combos, combo_of = np.unique(np.stack([bm, bn, group, per_wave], axis=1), axis=0, return_inverse=True)
    combo_of = combo_of.ravel()
    if np.ndim(M) == 0:
        bytes_hbm = _replay(M, N, K, tuple(map(tuple, combos.tolist())), hw)[combo_of]
    else:  # s shapes: every (shape, combination) in one replay
        s, u = np.broadcast_shapes(np.shape(M), np.shape(N), np.shape(K))[0], len(combos)
        dims = (np.broadcast_to(x, (s, u)).ravel() for x in (M, N, K))
        tiles = (np.broadcast_to(combos[:, j], (s, u)).ravel() for j in range(4))
        bytes_hbm = _replay_many(*dims, *tiles, hw).reshape(s, u)[:, combo_of]
    t_hbm_s = bytes_hbm / hw.hbm_bw_bytes_per_s  # the kernel's whole HBM transfer
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

    def step(terms):
        """k-step time from its terms: the slowest hides the rest behind the pipeline, or follows one latency."""
        bound = functools.reduce(np.maximum, terms.values())  # terms may differ in shape (per shape or not)
        return np.where(stages > 1, np.maximum(bound, t_latency), lat + bound)

    full_terms, full_epilogue = wave(r_full, per_wave)
    tail_terms, tail_epilogue = wave(np.maximum(r_tail, 1), tail)  # unused where no tail
    has_tail = tail > 0
    one_stage = np.where(stages > 1, 0.0, lat)  # with one stage every k-step first waits one latency
    # k-steps of every wave, on chip resources only (for one stage, without the latency)
    compute_s = k_steps * (n_full * (step(full_terms) - one_stage) + has_tail * (step(tail_terms) - one_stage))
    fixed_s = waves * (fill + k_steps * one_stage) + n_full * full_epilogue + has_tail * tail_epilogue
    time_s = fixed_s + np.maximum(compute_s, t_hbm_s)
    first_is_full = n_full > 0
    first_terms = {name: np.where(first_is_full, full_terms[name], tail_terms[name]) for name in full_terms}
    first_terms["t_hbm_s"] = t_hbm_s / (waves * k_steps)  # the kernel's HBM time per k-step
    first_step = step(first_terms)
    return {
        "time_s": time_s,
        "blocks": t.blocks,
        "blocks_per_sm": r_full,
        "waves": waves,
        "k_steps": k_steps,
        **first_terms,
        "t_latency_s": t_latency,
        "t_step_s": first_step,
        "fill_s": fill * waves,
        "epilogue_s": n_full * full_epilogue + has_tail * tail_epilogue,
        "bytes_hbm": bytes_hbm,
    }


def gemm_time(cfg: GemmConfig, M: int, N: int, K: int, hw: Hardware | None = None) -> float:
    """Model time in seconds of ``cfg`` on an ``M x N x K`` FP16 GEMM; ``inf`` if it cannot launch.

    A thin wrapper over :func:`evaluate` (one configuration).

    Examples
    --------
    >>> t = gemm_time(GemmConfig(256, 128, 32, 8, 4, 1), 4096, 4096, 4096)
    >>> from schedlab.hardware import H100_TC
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
