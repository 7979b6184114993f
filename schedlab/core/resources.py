"""What a configuration needs of the machine: warps per tile, pipeline buffers, registers, occupancy.

Each function takes knob values (or an ``(n, 5+)`` config array, :func:`~schedlab.core.knobs.config_array`)
and the machine, and follows its ``launch_rules``: the seed lecture's warp grid, or Triton's layout
and pipeliner as its compiler decides (the sources are cited in each docstring).
"""

from __future__ import annotations

import numpy as np

from schedlab.core.compiler_record import compiled_resources
from schedlab.core.hardware import Hardware
from schedlab.core.knobs import SPACE, WARP_GRID
from schedlab.core.shapes import ALIGNED, RowAlignment

__all__ = [
    "warp_grid",
    "uses_wgmma",
    "triton_warps_per_tile",
    "pipeline_buffers",
    "pipeline_smem_bytes",
    "smem_read_bytes",
    "smem_fill_bytes",
    "reserved_smem_bytes",
    "accumulator_registers",
    "registers_per_thread",
    "spilled_registers",
    "loop_instructions",
    "preamble_instructions",
    "occupancy",
]


def warp_grid(warps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :data:`WARP_GRID`: (warps along M, warps along N) for an array of num_warps."""
    wy = np.select([warps == w for w in WARP_GRID], [g[0] for g in WARP_GRID.values()])
    wx = np.select([warps == w for w in WARP_GRID], [g[1] for g in WARP_GRID.values()])
    return wy, wx


def uses_wgmma(bm, bn, warps, hw: Hardware):
    """Where Triton lowers the dot to Hopper's warp-group MMA (mma v3, ``wgmma``): a boolean array.

    Only under ``launch_rules == "triton-sm90"``, and there when ``warps % 4 == 0``, ``bm % 64 == 0``
    and ``bn % 8 == 0`` (the FP16 conditions of ``supportMMA(DotOp, 3)`` in
    ``lib/Analysis/Utility.cpp``); elsewhere ``getMMAVersionSafe``
    (``lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp``) falls back to mma v2 (``mma.sync``).

    Examples
    --------
    >>> from schedlab.core.hardware import H100_SXM
    >>> uses_wgmma(np.array([64, 32, 128]), 128, np.array([4, 4, 2]), H100_SXM).tolist()
    [True, False, False]
    """
    if hw.launch_rules != "triton-sm90":
        return np.zeros(np.broadcast_shapes(np.shape(bm), np.shape(bn), np.shape(warps)), dtype=bool)
    return (np.asarray(warps) % 4 == 0) & (np.asarray(bm) % 64 == 0) & (np.asarray(bn) % 8 == 0)


def triton_warps_per_tile(bm, bn, warps, hw: Hardware) -> tuple[np.ndarray, np.ndarray]:
    """(warps along M, warps along N) as Triton lays ``warps`` warps on a ``bm x bn`` tile (integer arrays).

    Notes
    -----
    A port of ``warpsPerTileV2`` and ``warpsPerTileV3`` in
    ``lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp`` (one dot, no chained dot), which
    never fail: surplus warps replicate the tile.

    - mma v2 (``mma.sync``, shape per warp 16 x 8): start from ``(1, 1)`` with ``reps = (ceil(bm / 16),
      ceil(bn / 8))``; until the product reaches ``warps``, double the M count when ``reps_M >= reps_N``
      (halving ``reps_M`` unless it is 1), else double the N count and halve ``reps_N``.
    - mma v3 (``wgmma``, where :func:`uses_wgmma`): start from ``(4, 1)``; double the M count while
      ``bm > 16 x`` it, then the N count, until the product reaches ``warps``.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_SXM
    >>> [tuple(int(v) for v in triton_warps_per_tile(bm, bn, w, A100_SXM4)) for bm, bn, w in [(16, 64, 4), (32, 64, 8)]]
    [(1, 4), (2, 4)]
    >>> tuple(int(v) for v in triton_warps_per_tile(64, 128, 8, H100_SXM))  # wgmma
    (4, 2)
    """
    bm, bn, warps = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (bm, bn, warps)))
    wgmma = uses_wgmma(bm, bn, warps, hw)
    wy, wx = np.ones_like(bm), np.ones_like(bm)
    reps_m, reps_n = -(-bm // 16), -(-bn // 8)
    for _ in range(int(np.log2(max(SPACE["warps"])))):  # each pass doubles one count where still short
        short = wy * wx < warps
        along_m = short & (reps_m >= reps_n)
        along_n = short & ~along_m
        wy, wx = np.where(along_m, 2 * wy, wy), np.where(along_n, 2 * wx, wx)
        reps_m = np.where(along_m & (reps_m != 1), reps_m // 2, reps_m)
        reps_n = np.where(along_n, reps_n // 2, reps_n)
    vy, vx = np.full_like(bm, 4), np.ones_like(bm)
    for _ in range(int(np.log2(max(SPACE["warps"])))):
        short = vy * vx < warps
        along_m = short & (bm > 16 * vy)
        vy, vx = np.where(along_m, 2 * vy, vy), np.where(short & ~along_m, 2 * vx, vx)
    return np.where(wgmma, vy, wy), np.where(wgmma, vx, wx)


def pipeline_buffers(bm, bn, warps, stages, hw: Hardware):
    """How many A and B tiles a block's pipeline holds in shared memory (integer array).

    Notes
    -----
    - ``"seed"`` rules: ``stages``.
    - Triton (``"triton-sm80"``, ``"triton-sm90"``): ``lowerLoads`` in
      ``lib/Dialect/TritonGPU/Transforms/Pipeliner/LowerLoops.cpp`` allocates, per pipelined load,
      its def-use stage distance, ``stages - 1`` (``AssignLatencies`` puts the loads ``stages - 1``
      stages before the dot), plus one where the tile feeds a ``WarpGroupDotOp``
      (``loadRequiresAdditionalBuffer``: wgmma keeps one MMA in flight). Without pipelining
      (``stages = 1``) each operand still passes through one shared buffer on its way to the MMA.
      So ``max(stages - 1, 1)``, or ``stages`` with wgmma (:func:`uses_wgmma`). Checked by compiling
      the tutorial kernel with Triton 3.9.0 for sm_80 and sm_90: e.g. 128 x 128 x 64 with 3 stages
      reports ``shared`` = 65536 and 98304 bytes.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_SXM, H100_TC
    >>> [int(pipeline_buffers(128, 128, 4, 3, hw)) for hw in (H100_TC, A100_SXM4, H100_SXM)]
    [3, 2, 3]
    """
    if hw.launch_rules == "seed":
        return stages
    return np.where(uses_wgmma(bm, bn, warps, hw), stages, np.maximum(np.asarray(stages) - 1, 1))


def pipeline_smem_bytes(bm, bn, bk, warps, stages, hw: Hardware, alignment: RowAlignment = ALIGNED):
    """Shared memory a block's pipeline allocates: ``buffers * (bm + bn) * bk * bytes_per_element`` bytes.

    :func:`pipeline_buffers` buffers, each holding an A tile (``bm x bk``) and a B tile (``bk x bn``).
    Arguments broadcast (ints or integer arrays); the runtime's per-block reservation is not
    included. Under Triton's rules an operand tile smaller than two elements per thread is not
    pipelined and keeps one buffer: ``isPipeliningBeneficial`` in
    ``lib/Dialect/TritonGPU/Transforms/Pipeliner/AssignLatencies.cpp`` drops loads that
    ``canBeConvertedToAsyncLoad`` rejects, ``cp.async`` copying at least 32 bits per thread (two FP16
    elements); e.g. the 16 x 16 tiles of 16 x 16 x 16 with 8 warps (256 threads, one element each). So is an
    operand whose rows the kernel cannot prove aligned (``alignment``, the shape's
    :class:`~schedlab.core.shapes.RowAlignment`): its loads are one element (2 bytes) wide. E.g. on a shape
    with ``K = 200`` the H200 timings (:mod:`schedlab.core.triton_timings`) record 32768 bytes for
    128 x 128 x 32 with 4 warps and 3 stages (A in one buffer, B in three), not 49152.
    (Under Triton the epilogue's layout conversion reuses the freed buffers; it needs at most the FP16
    tile of C, ``256 x 256 x 2`` bytes = 128 KiB, under every profile's limit.)

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_TC
    >>> pipeline_smem_bytes(256, 128, 32, 8, 4, H100_TC) // 1024  # KiB
    96
    >>> int(pipeline_smem_bytes(64, 128, 128, 4, 4, A100_SXM4)) // 1024  # 3 buffers on Ampere
    144
    >>> int(pipeline_smem_bytes(16, 32, 16, 8, 3, A100_SXM4))  # A (16 x 16) in one buffer, B (16 x 32) in two
    2560
    >>> from schedlab.core.hardware import H100_SXM
    >>> from schedlab.core.shapes import row_alignment
    >>> int(pipeline_smem_bytes(128, 128, 32, 4, 3, H100_SXM))
    49152
    >>> int(pipeline_smem_bytes(128, 128, 32, 4, 3, H100_SXM, row_alignment(4096, 4096, 200)))
    32768
    """
    buffers = pipeline_buffers(bm, bn, warps, stages, hw)
    if hw.launch_rules == "seed":
        return buffers * (bm + bn) * bk * hw.bytes_per_element
    min_elements = 4 // hw.bytes_per_element * np.asarray(warps) * hw.warp_size  # cp.async's 4 bytes per thread
    buffers_a = np.where((np.asarray(bm) * bk >= min_elements) & alignment.k_aligned, buffers, 1)
    buffers_b = np.where((np.asarray(bn) * bk >= min_elements) & alignment.n_aligned, buffers, 1)
    return (buffers_a * bm + buffers_b * bn) * bk * hw.bytes_per_element


def smem_read_bytes(arr: np.ndarray, hw: Hardware) -> np.ndarray:
    """Bytes of A and B one block's MMA instructions read from shared memory per k-step (integer array).

    Notes
    -----
    With ``e`` bytes per element:

    - ``"seed"`` rules: each warp of the seed's grid ``(wy, wx)`` (:data:`WARP_GRID`) reads its A strip
      (``B_M / w_y`` rows) and B strip (``B_N / w_x`` columns) once per k-step,
      ``e B_K (w_x B_M + w_y B_N)``.
    - Triton, ``mma.sync`` (mma v2): the same for Triton's layout (:func:`triton_warps_per_tile`), a warp's
      strips at least one instruction's 16 rows and 8 columns (a replicated warp reads the same
      fragment again): ``e B_K w_y w_x (max(B_M / w_y, 16) + max(B_N / w_x, 8))``. Each warp loads its
      operand fragments from shared memory (``ldmatrix``) for its own ``mma.sync``: equal to the bytes of
      the ``ldmatrix`` instructions Triton 3.9 compiles into the loop, times the warps (checked by compiling
      in ``tests/test_triton_rules.py``).
    - Triton, ``wgmma`` (:func:`uses_wgmma`): every ``wgmma`` instruction reads its A (64 x 16) and B
      (16 x ``B_N / v_x``) operands from shared memory (both operands in shared memory, the form of the PTX
      ISA's ``wgmma.mma_async`` with two matrix descriptors: what Triton 3.9 emits for tutorial 03's
      kernel, whose ``warp_group_dot`` takes A and B as shared-memory descriptors, checked by compiling in
      ``tests/test_triton_rules.py``; that Inductor's template lowers the same way is an assumption). Triton's layout
      ``(v_y, v_x)`` issues ``v_x B_M / 64`` instructions per k-substep of 16, so per k-step
      ``e B_K (v_x B_M + B_M B_N / 64)``: B is read once per 64 rows of the tile.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_SXM, H100_TC
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> arr = config_array([GemmConfig(128, 128, 64, 4, 3, 8), GemmConfig(128, 128, 64, 8, 3, 8)])
    >>> [(smem_read_bytes(arr, hw) // 1024).tolist() for hw in (H100_TC, A100_SXM4, H100_SXM)]  # KiB
    [[64, 96], [64, 96], [48, 48]]
    """
    bm, bn, bk, warps = arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]
    elt = hw.bytes_per_element
    if hw.launch_rules == "seed":
        wy, wx = warp_grid(warps)
        return (wx * bm + wy * bn) * bk * elt
    wy, wx = triton_warps_per_tile(bm, bn, warps, hw)
    mma_v2 = wy * wx * (np.maximum(bm // wy, hw.mma_m) + np.maximum(bn // wx, hw.mma_n)) * bk * elt
    wgmma = (wx * bm + bm * bn // 64) * bk * elt
    return np.where(uses_wgmma(bm, bn, warps, hw), wgmma, mma_v2)


def smem_fill_bytes(arr: np.ndarray, hw: Hardware) -> np.ndarray:
    """Bytes one block's k-step writes into shared memory: its A and B tiles (integer array).

    Under Triton's rules, ``(B_M + B_N) B_K e``: the loop's asynchronous copies (``cp.async``, SASS
    ``LDGSTS``; checked against the compiled loop in ``tests/test_triton_rules.py``) land in the same
    banks the MMA operands are read from, each bank serving one 32-bit access per clock, read or write
    (CUDA C++ Programming Guide, shared memory), so they share the bandwidth with
    :func:`smem_read_bytes`. 0 under the seed's rules: the seed lecture's shared-memory term counts the
    reads alone.

    Examples
    --------
    >>> from schedlab.core.hardware import H100_SXM, H100_TC
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> arr = config_array([GemmConfig(128, 128, 64, 4, 3, 8)])
    >>> smem_fill_bytes(arr, H100_SXM).tolist(), smem_fill_bytes(arr, H100_TC).tolist()
    ([32768], [0])
    """
    if hw.launch_rules == "seed":
        return np.zeros(len(arr), dtype=np.int64)
    return (arr[:, 0] + arr[:, 1]) * arr[:, 2] * hw.bytes_per_element


def accumulator_registers(arr: np.ndarray, hw: Hardware) -> np.ndarray:
    """FP32 accumulator registers per thread of an ``(n, 5+)`` config array: its warp's tile over 32 threads.

    The seed's warp grid (:data:`WARP_GRID`) under ``"seed"`` rules; Triton's layout
    (:func:`triton_warps_per_tile`) otherwise, where a warp's tile is at least one instruction's
    (16 x 8; a replicated warp holds the same fragment).
    """
    bm, bn, warps = arr[:, 0], arr[:, 1], arr[:, 3]
    if hw.launch_rules == "seed":
        wy, wx = warp_grid(warps)
        return (bm // wy) * (bn // wx) // hw.warp_size
    wy, wx = triton_warps_per_tile(bm, bn, warps, hw)
    return np.maximum(bm // wy, hw.mma_m) * np.maximum(bn // wx, hw.mma_n) // hw.warp_size


def registers_per_thread(arr: np.ndarray, hw: Hardware, alignment: RowAlignment = ALIGNED) -> np.ndarray:
    """Registers one thread of an ``(n, 5+)`` config array's blocks holds (before the allocation unit).

    - ``"seed"`` rules: the seed lecture's account, :func:`accumulator_registers` plus
      ``hw.base_regs_per_thread``.
    - Triton's rules: what Triton's compiler reported for the configuration
      (:func:`~schedlab.core.compiler_record.compiled_resources`: tutorial 03's kernel compiled by Triton
      3.9.0 for sm_80 or sm_90), at most ``max_regs_per_thread``. Beside the accumulator a Triton
      matmul holds operand fragments, load addresses and pipeline state: 64 x 64 x 64 with 2 warps
      compiles to 204 registers for an accumulator of 64.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_TC
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> arr = config_array([GemmConfig(64, 64, 64, 2, 3, 8), GemmConfig(128, 128, 32, 4, 4, 8)])
    >>> registers_per_thread(arr, H100_TC).tolist(), registers_per_thread(arr, A100_SXM4).tolist()
    ([104, 168], [205, 250])
    """
    if hw.launch_rules == "seed":
        return accumulator_registers(arr, hw) + hw.base_regs_per_thread
    return np.minimum(compiled_resources(arr, hw.launch_rules, alignment)[0], hw.max_regs_per_thread)


def reserved_smem_bytes(arr: np.ndarray, hw: Hardware, alignment: RowAlignment = ALIGNED) -> np.ndarray:
    """Shared memory one block of an ``(n, 5+)`` config array reserves (the runtime's per-block share apart).

    The pipeline's buffers (:func:`pipeline_smem_bytes`); under Triton's rules the larger of them and what
    the compiler reserved (:func:`~schedlab.core.compiler_record.compiled_resources`), where the epilogue's
    conversion of the accumulator's layout can need more than a short pipeline: e.g. 128 x 128 x 16 with
    4 warps and 2 stages reserves 16384 bytes on Ampere, its pipeline's one buffer 8192.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> arr = config_array([GemmConfig(128, 128, 16, 4, 2, 8)])
    >>> int(pipeline_smem_bytes(128, 128, 16, 4, 2, A100_SXM4)), int(reserved_smem_bytes(arr, A100_SXM4)[0])
    (8192, 16384)
    """
    pipeline = pipeline_smem_bytes(*(arr[:, j] for j in range(5)), hw, alignment)
    if hw.launch_rules == "seed":
        return pipeline
    return np.maximum(pipeline, compiled_resources(arr, hw.launch_rules, alignment)[2])


def spilled_registers(arr: np.ndarray, hw: Hardware, alignment: RowAlignment = ALIGNED) -> np.ndarray:
    """Registers per thread that ptxas spills to local memory, for an ``(n, 5+)`` config array.

    Under Triton's rules, whose kernels spill rather than fail: the stack frame the compiler reported
    (:func:`~schedlab.core.compiler_record.compiled_resources`) in 4-byte registers; 0 under the seed's,
    which refuse such configurations. E.g. 128 x 256 x 64 with 4 warps and 3 stages (256 accumulator
    registers) compiles to 255 registers and a 1616-byte stack frame for sm_80, 792 bytes for sm_90.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_SXM
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> arr = config_array([GemmConfig(128, 256, 64, 4, 3, 8), GemmConfig(128, 128, 64, 4, 3, 8)])
    >>> spilled_registers(arr, A100_SXM4).tolist(), spilled_registers(arr, H100_SXM).tolist()
    ([404, 0], [198, 0])
    """
    return _compiled_or_zero(arr, hw, 1, alignment) // 4


def loop_instructions(arr: np.ndarray, hw: Hardware, alignment: RowAlignment = ALIGNED) -> np.ndarray:
    """Instructions one warp issues per k-step, for an ``(n, 5+)`` config array.

    Under Triton's rules: the SASS instructions of one iteration of the compiled k-loop
    (:func:`~schedlab.core.compiler_record.compiled_resources`): the MMA and its operand loads, the copies,
    address arithmetic, waits and barriers. 0 under the seed's rules, whose model does not count issue.
    E.g. 16 x 32 x 32 with 2 warps and 5 stages issues 76 per k-step on sm_80 for its 4 ``mma.sync``.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4, H100_TC
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> arr = config_array([GemmConfig(16, 32, 32, 2, 5, 8)])
    >>> loop_instructions(arr, A100_SXM4).tolist(), loop_instructions(arr, H100_TC).tolist()
    ([76], [0])
    """
    return _compiled_or_zero(arr, hw, 3, alignment)


def preamble_instructions(arr: np.ndarray, hw: Hardware, alignment: RowAlignment = ALIGNED) -> np.ndarray:
    """Instructions one warp issues before the k-loop, once per block, for an ``(n, 5+)`` config array.

    Under Triton's rules: the SASS instructions before the compiled k-loop
    (:func:`~schedlab.core.compiler_record.compiled_resources`): the program id's tile indices, the operands'
    pointers and masks, and the copies of the first ``num_stages - 1`` stages. 0 under the seed's rules.
    E.g. 64 x 64 x 32 with 4 warps and 2 stages runs 248 on sm_90, 128 x 128 x 64 with 4 warps and 3 stages 593.

    Examples
    --------
    >>> from schedlab.core.hardware import H100_SXM, H100_TC
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> arr = config_array([GemmConfig(64, 64, 32, 4, 2, 8), GemmConfig(128, 128, 64, 4, 3, 8)])
    >>> preamble_instructions(arr, H100_SXM).tolist(), preamble_instructions(arr, H100_TC).tolist()
    ([248, 593], [0, 0])
    """
    return _compiled_or_zero(arr, hw, 4, alignment)


def _compiled_or_zero(arr: np.ndarray, hw: Hardware, column: int, alignment: RowAlignment) -> np.ndarray:
    """Column ``column`` of :func:`~schedlab.core.compiler_record.compiled_resources` under Triton's rules;
    0 under the seed's, whose account of a kernel has no compiler (no spills, no issue)."""
    if hw.launch_rules == "seed":
        return np.zeros(len(arr), dtype=np.int64)
    return compiled_resources(arr, hw.launch_rules, alignment)[column]


def occupancy(arr: np.ndarray, hw: Hardware, alignment: RowAlignment = ALIGNED) -> tuple[np.ndarray, ...]:
    """(wy, wx, registers per thread, shared bytes, resident blocks per SM) of an ``(n, 5+)`` config array.

    ``(wy, wx)`` is the seed's warp grid (:data:`WARP_GRID`) whatever the rules (the learned cost models'
    features read it; the shared-memory term reads :func:`smem_read_bytes`). Registers are :func:`registers_per_thread`, rounded up to the allocation unit; shared memory
    :func:`reserved_smem_bytes`. ``alignment`` is the shape's :class:`~schedlab.core.shapes.RowAlignment`
    (under Triton's rules an unaligned operand changes the registers and the shared buffers).
    """
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    wy, wx = warp_grid(warps)
    threads = warps * hw.warp_size
    regs = registers_per_thread(arr, hw, alignment)
    regs = -(-regs // hw.reg_alloc_unit) * hw.reg_alloc_unit
    smem = reserved_smem_bytes(arr, hw, alignment)
    by_smem = hw.smem_per_sm // (smem + hw.smem_reserved_per_block)
    by_regs = hw.regs_per_sm // (regs * threads)
    by_threads = hw.max_threads_per_sm // threads
    r = np.minimum.reduce([by_smem, by_regs, by_threads, np.full_like(bm, hw.max_blocks_per_sm)])
    return wy, wx, regs, smem, r
