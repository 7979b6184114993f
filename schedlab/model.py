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

Known limits: the on-chip terms, the L2 term and the L2 survival rule act wave by wave.
So a few more SMs (not a multiple) can regroup the blocks into less balanced waves, and a
multiple of the SMs can merge waves into one that overflows L2, losing (by the survival
rule) the panels its successor needed; either can price a configuration slightly slower.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .caching import memoised
from .hardware import H100_TC, Hardware, check_hardware
from .space import GemmConfig, _check_knob, check_shape, config_array, launch_checks, warp_grid

__all__ = ["TERMS", "ModelTerms", "Breakdown", "evaluate", "gemm_time", "explain", "blocks_per_sm", "hbm_bytes"]

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


def blocks_per_sm(arr: np.ndarray, hw: Hardware = H100_TC) -> np.ndarray:
    """Resident blocks per SM (occupancy) for an ``(n, 6)`` config array.

    Notes
    -----
    ``r = min(smem_per_sm // (smem + reserved), regs_per_sm // (regs * 32 * warps),
    max_threads // (32 * warps), max_blocks)`` where ``regs`` is the accumulator's
    ``wm * wn / 32 + 40`` registers per thread rounded up to the allocation unit.
    Zero for a configuration that does not fit one block.
    """
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    wy, wx = warp_grid(warps)
    threads = warps * hw.warp_size
    regs = (bm // wy) * (bn // wx) // hw.warp_size + hw.base_regs_per_thread
    regs = -(-regs // hw.reg_alloc_unit) * hw.reg_alloc_unit
    smem = stages * (bm + bn) * bk * hw.bytes_per_element + hw.smem_reserved_per_block
    by_smem = hw.smem_per_sm // smem
    by_regs = hw.regs_per_sm // (regs * threads)
    by_threads = hw.max_threads_per_sm // threads
    return np.minimum.reduce([by_smem, by_regs, by_threads, np.full_like(bm, hw.max_blocks_per_sm)])


def hbm_bytes(M, N, K, bm, bn, group, per_wave, hw: Hardware = H100_TC) -> float:
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
    _check_exact(M, N, K, check_hardware(hw))
    for name, value in (("bm", bm), ("bn", bn), ("group", group)):
        _check_knob(name, value)
    if isinstance(per_wave, bool) or not isinstance(per_wave, numbers.Integral) or per_wave < 1:
        raise ValueError(f"per_wave must be a positive integer, got {per_wave!r}")
    return float(_replay(M, N, K, ((bm, bn, group, per_wave),), hw)[0])


@memoised(maxsize=1024)
def _replay(M, N, K, combos: tuple[tuple[int, int, int, int], ...], hw: Hardware) -> np.ndarray:
    """:func:`hbm_bytes` for many ``(bm, bn, group, per_wave)`` at once: every wave of every one in one pass.

    Wave ``w`` runs pids ``[s, e)``. A group of ``G`` rows holds ``G * grid_n`` consecutive
    pids (the last group may have fewer rows), walked down its rows, then right. So a wave
    touches, in its first group, a column interval and a (cyclic) row interval; all rows and
    columns of any group it covers whole; and, in its last group, columns from 0 and rows
    from the group's first row. The first ``i`` row panels hold ``min(i * bm, M) * K`` elements,
    so the bytes of an interval are a difference of two such prefixes: the replay costs
    O(waves), not O(blocks).
    """
    elt = hw.bytes_per_element
    bm, bn, group, per_wave = (np.array(c, dtype=np.int64) for c in zip(*combos))
    grid_m, grid_n = -(-M // bm), -(-N // bn)
    blocks = grid_m * grid_n
    n_waves = -(-blocks // per_wave)
    # one entry per wave of every combo
    combo = np.repeat(np.arange(len(combos)), n_waves)
    first = np.concatenate([[0], np.cumsum(n_waves)[:-1]])
    index = np.arange(combo.size) - first[combo]
    bm, bn, group, per_wave, grid_m, grid_n, blocks = (x[combo] for x in (bm, bn, group, per_wave, grid_m, grid_n,
                                                                          blocks))
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
            t = tile[part]
            return (np.minimum(np.maximum(hi, lo) * t, extent) - np.minimum(lo * t, extent)) * K * elt
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
    # integers are exact and fsum is correctly rounded: a combo's bytes do not depend on its batch
    touched = np.add.reduceat(footprint, first)
    out = np.array([float(t) - math.fsum(kept_reused[i:i + n]) + M * N * elt
                    for t, i, n in zip(touched.tolist(), first.tolist(), n_waves.tolist())])
    out.flags.writeable = False
    return out


def _check_exact(M: int, N: int, K: int, hw: Hardware) -> None:
    """Refuse a shape whose byte counts could reach 2**53 on ``hw`` (no longer exact in float64).

    Every wave reads at most its blocks' panels, so the replay sums at most
    ``ceil(M / 16) ceil(N / 16) * 32 K`` operand elements plus ``M N`` for C.
    """
    bound = (-(-M // 16) * -(-N // 16) * 32 * K + M * N) * hw.bytes_per_element
    if bound >= 2**53:
        raise ValueError(f"shape {M} x {N} x {K} with Hardware.bytes_per_element = {hw.bytes_per_element} may move "
                         f"{bound} bytes, not exact below 2**53: refused")


def evaluate(configs, M: int, N: int, K: int, hw: Hardware = H100_TC) -> ModelTerms:
    """Price every configuration on an ``M x N x K`` FP16 GEMM in one vectorised pass.

    Parameters
    ----------
    configs : sequence of GemmConfig or array-like of shape (n, 6)
        Configurations, columns in ``SPACE`` order.
    M, N, K : int
        GEMM shape: ``C[M, N] = A[M, K] @ B[K, N]``.
    hw : Hardware
        Machine parameters.

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
    _check_exact(M, N, K, check_hardware(hw))
    arr = config_array(configs)
    checks = launch_checks(arr, hw)
    launchable = ~(checks["smem"] | checks["mma"] | checks["registers"])
    n = len(arr)
    nan = np.full(n, np.nan)
    out = {name: nan.copy() for name in TERMS}
    out.update(t_step_s=nan.copy(), fill_s=nan.copy(), epilogue_s=nan.copy(), bytes_hbm=nan.copy())
    time_s = np.full(n, np.inf)
    ints = {name: np.zeros(n, dtype=np.int64) for name in ("blocks", "blocks_per_sm", "waves", "k_steps")}
    idx = np.flatnonzero(launchable)
    if idx.size:
        parts = _price(arr[idx], M, N, K, hw)
        time_s[idx] = parts.pop("time_s")
        for name, values in parts.items():
            (ints if name in ints else out)[name][idx] = values
    return ModelTerms(time_s=time_s, launchable=launchable, **ints, **out)


def _price(arr: np.ndarray, M: int, N: int, K: int, hw: Hardware) -> dict[str, np.ndarray]:
    """The model proper, for launchable configurations only."""
    bm, bn, bk, warps, stages, group = (arr[:, j] for j in range(6))
    wy, wx = warp_grid(warps)
    elt = hw.bytes_per_element
    clk = hw.clock_hz
    lat = hw.mem_latency_s

    # --- grid, occupancy and waves -------------------------------------------------
    blocks = -(-M // bm) * -(-N // bn)
    k_steps = -(-K // bk)
    r_full = blocks_per_sm(arr, hw)
    per_wave = hw.n_sm * r_full
    n_full, tail = blocks // per_wave, blocks % per_wave
    waves = n_full + (tail > 0)
    r_tail = -(-tail // hw.n_sm)

    # --- per-k-step terms for a wave with r blocks per SM and `active` on the chip --
    rows, cols = np.minimum(bm, M), np.minimum(bn, N)  # real, unpadded rows / columns of the busiest block
    flop_tile = 2.0 * bm * bn * bk  # the tensor cores compute the padded tile
    bytes_smem = (wx * bm + wy * bn) * bk * elt  # every warp reads its A strip (wm x bk) and B strip (bk x wn)
    bytes_port = (rows + cols) * bk * elt  # A and B bytes the block brings in per k-step

    # --- HBM: replay the launch order; one queue for the whole kernel (see the module notes)
    combos, combo_of = np.unique(np.stack([bm, bn, group, per_wave], axis=1), axis=0, return_inverse=True)
    bytes_hbm = _replay(M, N, K, tuple(map(tuple, combos.tolist())), hw)[combo_of.ravel()]
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
        bound = np.maximum.reduce(list(terms.values()))
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
        "blocks": blocks,
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


def gemm_time(cfg: GemmConfig, M: int, N: int, K: int, hw: Hardware = H100_TC) -> float:
    """Model time in seconds of ``cfg`` on an ``M x N x K`` FP16 GEMM; ``inf`` if it cannot launch.

    A thin wrapper over :func:`evaluate` (one configuration).

    Examples
    --------
    >>> t = gemm_time(GemmConfig(256, 128, 32, 8, 4, 1), 4096, 4096, 4096)
    >>> 2 * 4096**3 / t / H100_TC.peak_flops > 0.85
    True
    >>> gemm_time(GemmConfig(256, 256, 128, 8, 5, 1), 4096, 4096, 4096)
    inf
    """
    if not isinstance(cfg, GemmConfig):
        raise ValueError(f"cfg must be a GemmConfig, got {type(cfg).__name__}")
    return float(evaluate([cfg], M, N, K, hw).time_s[0])


def explain(cfg: GemmConfig, M: int, N: int, K: int, hw: Hardware = H100_TC) -> Breakdown:
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
    from .space import reasons

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
