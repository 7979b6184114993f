"""The model's time terms: a kernel lasts ``fixed_s + max(compute_s, t_hbm_s)``, each k-step its slowest resource.

Per wave and per k-step, every resident block is limited by the slowest of six resources
(:data:`TERMS`; all times in seconds):

``t_tc_s``       tensor cores: the padded tile's FLOP, ``r`` resident blocks sharing the SM's 4 tensor cores
``t_smem_s``     shared memory: each warp reads its A and B strips, 128 B/clk per SM
``t_port_s``     the SM's port to L2: the block's real (unpadded) A and B bytes, 64 B/clk per SM
``t_l2_s``       L2 bandwidth: the same bytes for every block resident on the chip
``t_hbm_s``      HBM: the kernel's HBM bytes (:mod:`.hbm` replays the launch order), spread over all its k-steps
``t_latency_s``  Little's law: ``stages - 1`` loads in flight hide one latency; no overlap at all for 1 stage

:func:`on_chip_terms` prices the five on-chip terms wave by wave, with each wave's pipeline fill
(one latency before the first mma) and epilogue (writing C through the port and L2);
:func:`step_time` turns a k-step's slowest term into its time; :func:`kernel_time` adds HBM, which
is one queue for the whole kernel. :class:`ModelTerms` and :class:`Breakdown` are the records the
model reports, :class:`Tiling` (:func:`tiling`) the grid, occupancy and wave arithmetic all of it
reads.

Known limits: the on-chip terms, the L2 term and the L2 survival rule act wave by wave.
So a few more SMs (not a multiple) can regroup the blocks into less balanced waves, and a
multiple of the SMs can merge waves into one that overflows L2, losing (by the survival
rule) the panels its successor needed; either can price a configuration slightly slower.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.space import GemmConfig, config_array, occupancy, spilled_registers

__all__ = [
    "TERMS",
    "ModelTerms",
    "Breakdown",
    "Tiling",
    "tiling",
    "blocks_per_sm",
    "blocks_per_wave",
    "occupancy",
    "on_chip_terms",
    "step_time",
    "kernel_time",
]

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
    """Where one configuration's time goes (see :func:`schedlab.core.model.explain`)."""

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


# --- grid, occupancy and waves ---------------------------------------------------------------------------


def blocks_per_sm(arr: np.ndarray, hw: Hardware | None = None) -> np.ndarray:
    """Resident blocks per SM (occupancy) for an ``(n, 6)`` config array.

    Notes
    -----
    ``r = min(smem_per_sm // (smem + reserved), regs_per_sm // (regs * 32 * warps),
    max_threads // (32 * warps), max_blocks)`` where ``regs`` is the accumulator's
    ``wm * wn / 32 + 40`` registers per thread rounded up to the allocation unit.
    Zero for a configuration that does not fit one block.
    """
    return occupancy(config_array(arr), check_hardware(hw))[-1]


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


def blocks_per_wave(blocks_per_sm: np.ndarray, hw: Hardware) -> np.ndarray:
    """Blocks that run at once: ``n_sm * max(blocks_per_sm, 1)`` (a block that fits no SM is priced as one)."""
    return hw.n_sm * np.maximum(blocks_per_sm, 1)


def _tiling(arr: np.ndarray, M, N, K, hw: Hardware) -> Tiling:
    """:func:`tiling` without validating its arguments (the pricing loop's path)."""
    bm, bn, bk = arr[:, 0], arr[:, 1], arr[:, 2]
    wy, wx, regs, smem, r = occupancy(arr, hw)
    grid_m, grid_n = -(-M // bm), -(-N // bn)
    blocks = grid_m * grid_n
    per_wave = blocks_per_wave(r, hw)
    full, tail = blocks // per_wave, blocks % per_wave
    return Tiling(
        grid_m=grid_m,
        grid_n=grid_n,
        blocks=blocks,
        k_steps=-(-K // bk),
        warps_m=wy,
        warps_n=wx,
        warp_rows=bm // wy,
        warp_cols=bn // wx,
        rows=np.minimum(bm, M),
        cols=np.minimum(bn, N),
        regs_per_thread=regs,
        smem_bytes=smem,
        blocks_per_sm=r,
        per_wave=per_wave,
        waves=full + (tail > 0),
        full_waves=full,
        tail_blocks=tail,
        tail_blocks_per_sm=-(-tail // hw.n_sm),
    )


# --- the on-chip terms, wave by wave ---------------------------------------------------------------------


def on_chip_terms(arr: np.ndarray, M, N, K, hw: Hardware) -> dict[str, np.ndarray]:
    """Every :class:`ModelTerms` field but the HBM ones, of an ``(n, 5)`` array ``(bm, bn, bk, warps, stages)``.

    ``M, N, K`` are scalars or ``(s, 1)`` columns. Besides those fields: ``compute_s`` (the k-steps of
    every wave on on-chip resources only), ``fixed_s`` (fills, one-stage latencies and epilogues) and
    ``on_chip_bound_s`` (the first wave's slowest on-chip term): the inputs of :func:`kernel_time`.

    Notes
    -----
    For a warp grid ``(wy, wx)``, ``r`` resident blocks per SM and ``a`` blocks on the chip in a wave,
    with ``m = min(BM, M)``, ``n = min(BN, N)`` the busiest block's real rows and columns, ``F_tc`` the
    FLOP/clk of one tensor core, ``f`` the clock, ``e`` the bytes per element and ``L`` the latency:

    .. math::

        t_{tc} = \\frac{r\\,2 B_M B_N B_K}{\\min(4, r w)\\,F_{tc} f},\\quad
        t_{smem} = \\frac{r\\,e B_K (w_x B_M + w_y B_N)}{128 f},\\quad
        t_{port} = \\frac{r\\,e B_K (m + n)}{64 f},\\quad
        t_{L2} = \\frac{a\\,e B_K (m + n)}{BW_{L2}},\\quad
        t_{lat} = \\frac{L}{s - 1}

    (``t_lat = L`` for one stage). A wave's epilogue writes ``m n e`` bytes of C per block at the
    slower of port and L2; its fill is one ``L`` (none for one stage, whose every k-step waits ``L``
    instead: that wait goes to ``fixed_s``, not ``compute_s``). A partial last wave is priced with
    its own ``r`` and ``a``.
    """
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    elt = hw.bytes_per_element
    clk_hz = hw.clock_hz
    lat_s = hw.mem_latency_s

    t = _tiling(arr, M, N, K, hw)
    k_steps, r_full, per_wave = t.k_steps, t.blocks_per_sm, t.per_wave
    n_full, tail, waves, r_tail = t.full_waves, t.tail_blocks, t.waves, t.tail_blocks_per_sm

    rows, cols = t.rows, t.cols  # real, unpadded rows / columns of the busiest block
    flop_tile = 2.0 * bm * bn * bk  # the tensor cores compute the padded tile
    bytes_smem = (t.warps_n * bm + t.warps_m * bn) * bk * elt  # each warp reads its A (wm x bk) and B (bk x wn) strips
    # registers ptxas spilled (Triton's rules only; 0 under the seed's): the accumulator is read and written
    # once per mma k-substep (BK / 16 per k-step), and each spilled register goes through L1 (the shared
    # memory's SRAM), 4 B each way: an assumption, not a measurement
    bytes_smem = bytes_smem + 2 * 4 * spilled_registers(arr, hw) * warps * hw.warp_size * (bk // 16)
    bytes_port = (rows + cols) * bk * elt  # A and B bytes the block brings in per k-step
    bytes_c = rows * cols * elt  # C bytes the block writes in its epilogue
    t_latency_s = np.where(stages > 1, lat_s / np.maximum(stages - 1, 1), lat_s)
    fill_s = np.where(stages > 1, lat_s, 0.0)  # the first stage's load, before the first mma

    def wave(r, active):
        """Per-k-step terms but HBM, and the epilogue, of a wave with r blocks per SM, `active` on chip."""
        busy_cores = np.minimum(hw.tensor_cores_per_sm, r * warps)
        terms = {
            "t_tc_s": r * flop_tile / (busy_cores * hw.flop_per_clk_per_tensor_core * clk_hz),
            "t_smem_s": r * bytes_smem / (hw.smem_bytes_per_clk_per_sm * clk_hz),
            "t_port_s": r * bytes_port / (hw.l2_port_bytes_per_clk_per_sm * clk_hz),
            "t_l2_s": active * bytes_port / hw.l2_bw_bytes_per_s,
        }
        epilogue_s = np.maximum(
            r * bytes_c / (hw.l2_port_bytes_per_clk_per_sm * clk_hz), active * bytes_c / hw.l2_bw_bytes_per_s
        )
        return terms, epilogue_s

    def slowest(terms):  # terms may differ in shape (per shape or not)
        return functools.reduce(np.maximum, terms.values())

    full_terms, full_epilogue_s = wave(r_full, per_wave)
    tail_terms, tail_epilogue_s = wave(np.maximum(r_tail, 1), tail)  # unused where no tail
    has_tail = tail > 0
    one_stage_s = np.where(stages > 1, 0.0, lat_s)  # with one stage every k-step first waits one latency
    first_is_full = n_full > 0
    first_terms = {name: np.where(first_is_full, full_terms[name], tail_terms[name]) for name in full_terms}
    epilogue_s = n_full * full_epilogue_s + has_tail * tail_epilogue_s
    step_full_s = step_time(slowest(full_terms), stages, t_latency_s, hw)
    step_tail_s = step_time(slowest(tail_terms), stages, t_latency_s, hw)
    return {
        "blocks": t.blocks,
        "blocks_per_sm": r_full,
        "waves": waves,
        "k_steps": k_steps,
        **first_terms,
        "t_latency_s": t_latency_s,
        "fill_s": fill_s * waves,
        "epilogue_s": epilogue_s,
        # k-steps of every wave, on chip resources only (for one stage, without the latency)
        "compute_s": k_steps * (n_full * (step_full_s - one_stage_s) + has_tail * (step_tail_s - one_stage_s)),
        "fixed_s": waves * (fill_s + k_steps * one_stage_s) + n_full * full_epilogue_s + has_tail * tail_epilogue_s,
        "on_chip_bound_s": slowest(first_terms),
    }


# --- one k-step and the whole kernel ---------------------------------------------------------------------


def step_time(bound_s, stages, t_latency_s, hw: Hardware) -> np.ndarray:
    """A k-step's time from its slowest term ``bound_s``: the pipeline hides the rest, or one stage waits first.

    Notes
    -----
    ``t_step = max(bound, L / (s - 1))`` for ``s > 1`` stages; ``t_step = L + bound`` for one stage,
    which has nothing in flight while it computes.

    Examples
    --------
    >>> from schedlab.core.hardware import H100_TC
    >>> step_time(np.array([1e-6, 1e-6]), np.array([4, 1]), np.array([250e-9, 750e-9]), H100_TC).tolist()
    [1e-06, 1.75e-06]
    """
    return np.where(stages > 1, np.maximum(bound_s, t_latency_s), hw.mem_latency_s + bound_s)


def kernel_time(fixed_s, compute_s, t_hbm_s=0.0) -> np.ndarray:
    """The kernel's time from its fixed part, its on-chip k-steps and its whole HBM transfer (seconds).

    ``t_hbm_s`` defaults to 0: an HBM time known to be at most ``compute_s`` (hidden behind it).

    Notes
    -----
    .. math::

        T = T_{fixed} + \\max\\Big(\\sum_{waves} S\\,(t_{step} - t_{wait}),\\; \\frac{Q_{HBM}}{BW_{HBM}}\\Big)

    with ``T_fixed`` the fills, epilogues and one-stage latency waits ``t_wait`` (``compute_s`` and
    ``fixed_s`` of :func:`on_chip_terms`) and ``Q_HBM`` the kernel's HBM bytes (:mod:`.hbm`).

    HBM is one queue for the whole kernel: waves overlap at their edges and the HBM serves every
    wave's misses and write-backs in turn, so the k-steps last at least ``Q_HBM / BW_HBM``. Each
    wave is thereby charged only its own on-chip work, and HBM its true total (the bytes the replay
    counts, each moved once): a small last wave does not pay a full wave's per-step share of HBM.
    (A strict per-wave charge, each wave paying its own bytes, was tried: the prefill's first wave
    then pays all its cold misses (116 MiB in 128 k-steps, just above its compute time) while the
    light second wave idles the HBM, so GROUP_M = 4 beats GROUP_M = 1, against claim C6; letting the
    fill or epilogue hide part of a wave's transfer rescues C6 but moves decode past C7's band or
    leaves N = 16768 slower than N = 16769, the explicit example of the monotonicity test.)
    Consequences the tests pin down: the kernel never beats its own HBM floor (``T >= Q_HBM / BW``);
    more HBM, L2, shared-memory or port bandwidth, or a faster clock, never make a configuration
    slower; nor does an integer multiple of the SMs while L2 holds every wave's panels.

    Examples
    --------
    >>> kernel_time(2.0, np.array([5.0, 5.0]), np.array([3.0, 8.0])).tolist()
    [7.0, 10.0]
    """
    return fixed_s + np.maximum(compute_s, t_hbm_s)
