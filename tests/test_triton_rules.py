"""Triton's launch rules (``Hardware.launch_rules`` "triton-sm80" / "triton-sm90") against what Triton compiles.

Three independent references: the compiler itself (shared bytes and MMA layout Triton 3.9.0 reported when it
compiled the tutorial kernel), Triton's tutorial autotune list and Inductor's mm config list (configs the
projects ship, so configs known to compile and run). None of the expected values comes from schedlab.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

import numpy as np
import pytest

from schedlab.core.compiler_record import TARGET_OF_RULES
from schedlab.core.hardware import A100_SXM4, H100_SXM, H100_TC, H200_SXM, LAUNCH_RULES
from schedlab.core.knobs import GemmConfig, config_array
from schedlab.core.launch import launch_checks, launchable, reasons
from schedlab.core.resources import (
    pipeline_smem_bytes,
    smem_fill_bytes,
    smem_read_bytes,
    spilled_registers,
    triton_warps_per_tile,
    uses_wgmma,
)
from schedlab.triton.configs import INDUCTOR_MM_CONFIGS, TUTORIAL_FP8_CONFIGS, TUTORIAL_FP16_CONFIGS

TRITON_PROFILES = {"h100-sxm": H100_SXM, "a100-sxm4": A100_SXM4, "h200-sxm": H200_SXM}
BY_CC = {80: A100_SXM4, 90: H100_SXM}

#: (compute capability, BM, BN, BK, num_warps, num_stages, shared bytes, mma version, warps along M, along N):
#: ``triton.compile`` (Triton 3.9.0 from PyPI, no GPU needed) of the tutorial's FP16 matmul kernel
#: (python/tutorials/03-matrix-multiplication.py, pointers 16-byte aligned, unit inner strides) for
#: ``GPUTarget("cuda", cc, 32)``: ``metadata.shared`` and the ``#ttg.nvidia_mma`` attribute of its TTGIR.
COMPILED = [
    (80, 16, 16, 16, 8, 1, 1024, 2, 4, 2),
    (80, 16, 64, 64, 4, 3, 20480, 2, 1, 4),
    (80, 16, 256, 64, 4, 3, 69632, 2, 1, 4),
    (80, 32, 32, 16, 2, 1, 2048, 2, 1, 2),
    (80, 32, 32, 128, 4, 2, 16384, 2, 2, 2),
    (80, 32, 64, 32, 2, 5, 24576, 2, 1, 2),
    (80, 32, 64, 32, 8, 5, 24576, 2, 2, 4),
    (80, 32, 64, 64, 2, 4, 36864, 2, 1, 2),
    (80, 64, 32, 32, 2, 5, 24576, 2, 2, 1),
    (80, 64, 32, 32, 8, 5, 24576, 2, 4, 2),
    (80, 64, 32, 128, 4, 5, 98304, 2, 2, 2),
    (80, 64, 64, 16, 4, 2, 8192, 2, 2, 2),
    (80, 64, 64, 32, 4, 2, 8192, 2, 2, 2),
    (80, 64, 64, 64, 8, 3, 32768, 2, 2, 4),
    (80, 64, 64, 128, 4, 5, 131072, 2, 2, 2),
    (80, 64, 128, 32, 4, 3, 24576, 2, 1, 4),
    (80, 64, 128, 32, 4, 4, 36864, 2, 1, 4),
    (80, 64, 128, 32, 8, 4, 36864, 2, 2, 4),
    (80, 64, 128, 64, 4, 1, 24576, 2, 1, 4),
    (80, 64, 128, 64, 4, 2, 24576, 2, 1, 4),
    (80, 64, 128, 64, 4, 3, 49152, 2, 1, 4),
    (80, 64, 128, 64, 4, 5, 98304, 2, 1, 4),
    (80, 64, 128, 128, 4, 4, 147456, 2, 1, 4),
    (80, 64, 256, 32, 4, 4, 61440, 2, 1, 4),
    (80, 128, 32, 32, 4, 4, 30720, 2, 4, 1),
    (80, 128, 64, 32, 4, 3, 24576, 2, 2, 2),
    (80, 128, 64, 32, 4, 4, 36864, 2, 2, 2),
    (80, 128, 64, 32, 8, 4, 36864, 2, 4, 2),
    (80, 128, 128, 32, 4, 3, 32768, 2, 2, 2),
    (80, 128, 128, 32, 4, 4, 49152, 2, 2, 2),
    (80, 128, 128, 32, 8, 2, 32768, 2, 2, 4),
    (80, 128, 128, 64, 4, 3, 65536, 2, 2, 2),
    (80, 128, 128, 64, 8, 5, 131072, 2, 2, 4),
    (80, 128, 128, 128, 8, 4, 196608, 2, 2, 4),
    (80, 128, 256, 32, 4, 3, 49152, 2, 1, 4),
    (80, 128, 256, 64, 4, 3, 98304, 2, 1, 4),
    (80, 128, 256, 64, 8, 3, 98304, 2, 2, 4),
    (80, 256, 128, 16, 1, 1, 12288, 2, 1, 1),
    (80, 256, 256, 16, 4, 1, 16384, 2, 2, 2),
    (80, 256, 256, 16, 8, 1, 16384, 2, 2, 4),
    (80, 256, 256, 64, 8, 3, 131072, 2, 2, 4),
    (90, 16, 16, 16, 8, 1, 1024, 2, 4, 2),
    (90, 16, 64, 64, 4, 3, 20480, 2, 1, 4),
    (90, 16, 256, 64, 4, 3, 69632, 2, 1, 4),
    (90, 32, 32, 16, 2, 1, 2048, 2, 1, 2),
    (90, 32, 32, 128, 4, 2, 16384, 2, 2, 2),
    (90, 32, 64, 32, 2, 5, 24576, 2, 1, 2),
    (90, 32, 64, 32, 8, 5, 24576, 2, 2, 4),
    (90, 32, 64, 64, 2, 4, 36864, 2, 1, 2),
    (90, 64, 32, 32, 2, 5, 24576, 2, 2, 1),
    (90, 64, 32, 32, 8, 5, 30720, 3, 4, 2),
    (90, 64, 32, 128, 4, 5, 122880, 3, 4, 1),
    (90, 64, 64, 16, 4, 2, 8192, 3, 4, 1),
    (90, 64, 64, 32, 4, 2, 16384, 3, 4, 1),
    (90, 64, 64, 64, 8, 3, 49152, 3, 4, 2),
    (90, 64, 64, 128, 4, 5, 163840, 3, 4, 1),
    (90, 64, 128, 32, 4, 3, 36864, 3, 4, 1),
    (90, 64, 128, 32, 4, 4, 49152, 3, 4, 1),
    (90, 64, 128, 32, 8, 4, 49152, 3, 4, 2),
    (90, 64, 128, 64, 4, 1, 24576, 3, 4, 1),
    (90, 64, 128, 64, 4, 2, 49152, 3, 4, 1),
    (90, 64, 128, 64, 4, 3, 73728, 3, 4, 1),
    (90, 64, 128, 64, 4, 5, 122880, 3, 4, 1),
    (90, 64, 128, 128, 4, 4, 196608, 3, 4, 1),
    (90, 64, 256, 32, 4, 4, 81920, 3, 4, 1),
    (90, 128, 32, 32, 4, 4, 40960, 3, 4, 1),
    (90, 128, 64, 32, 4, 3, 36864, 3, 4, 1),
    (90, 128, 64, 32, 4, 4, 49152, 3, 4, 1),
    (90, 128, 64, 32, 8, 4, 49152, 3, 8, 1),
    (90, 128, 128, 32, 4, 3, 49152, 3, 4, 1),
    (90, 128, 128, 32, 4, 4, 65536, 3, 4, 1),
    (90, 128, 128, 32, 8, 2, 32768, 3, 8, 1),
    (90, 128, 128, 64, 4, 3, 98304, 3, 4, 1),
    (90, 128, 128, 64, 8, 5, 163840, 3, 8, 1),
    (90, 128, 128, 128, 8, 4, 262144, 3, 8, 1),
    (90, 128, 256, 32, 4, 3, 73728, 3, 4, 1),
    (90, 128, 256, 64, 4, 3, 147456, 3, 4, 1),
    (90, 128, 256, 64, 8, 3, 147456, 3, 8, 1),
    (90, 256, 128, 16, 1, 1, 12288, 2, 1, 1),
    (90, 256, 256, 16, 4, 1, 16384, 3, 4, 1),
    (90, 256, 256, 16, 8, 1, 32768, 3, 8, 1),
    (90, 256, 256, 64, 8, 3, 196608, 3, 8, 1),
]
#: The kernels whose shared memory is their epilogue's layout conversion of C (at most its FP16 tile), not
#: their pipeline: one buffer of a short BK under a larger tile. Never near a limit (at most 128 KiB).
EPILOGUE_BOUND = {(80, 64, 64, 16, 4, 2), (80, 128, 128, 32, 8, 2), (90, 256, 256, 16, 8, 1)}


@pytest.mark.parametrize("row", COMPILED, ids=lambda r: "sm{}-{}x{}x{}-w{}-s{}".format(*r[:6]))
def test_shared_memory_and_layout_are_what_triton_compiled(row):
    cc, bm, bn, bk, warps, stages, shared, version, wy, wx = row
    hw = BY_CC[cc]
    predicted = int(pipeline_smem_bytes(bm, bn, bk, warps, stages, hw))
    if (cc, bm, bn, bk, warps, stages) in EPILOGUE_BOUND:
        assert predicted < shared <= bm * bn * 2
    else:
        assert predicted == shared
    assert (3 if uses_wgmma(bm, bn, warps, hw) else 2) == version
    assert tuple(int(v) for v in triton_warps_per_tile(bm, bn, warps, hw)) == (wy, wx)


def test_the_compiled_table_covers_both_mma_versions_and_every_stage_count():
    assert {r[7] for r in COMPILED} == {2, 3} and {r[5] for r in COMPILED} == {1, 2, 3, 4, 5}


# --- configs the projects ship -----------------------------------------------------------------------

#: The lists the projects ship, as schedlab.triton.configs records them with their sources (the Triton
#: tutorial's get_cuda_autotune_config(), its last eight labelled for fp8, 1-byte operands; Inductor's
#: mm_configs, group_m 8), as (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) and, for Inductor, in its
#: own order (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps).
TUTORIAL_FP16 = [(c.bm, c.bn, c.bk, c.warps, c.stages) for c in TUTORIAL_FP16_CONFIGS]
TUTORIAL_FP8 = [(c.bm, c.bn, c.bk, c.warps, c.stages) for c in TUTORIAL_FP8_CONFIGS]
INDUCTOR_MM = [(c.bm, c.bn, c.bk, c.stages, c.warps) for c in INDUCTOR_MM_CONFIGS]
#: A later version of that list appends GemmConfig(128, 128, 128, 4, 8). Triton allocates 4 buffers of
#: (128 + 128) x 128 x 2 B on Hopper (262144 B, compiled above) and 3 on Ampere (196608 B): over both
#: devices' opt-in maximum, so Triton raises OutOfResources and Inductor's autotuner drops it.
INDUCTOR_LATER_OVER_SMEM = (128, 128, 128, 4, 8)


def inductor_scaled(m: int, n: int, k: int) -> set[tuple[int, int, int, int, int]]:
    """Inductor's mm configs for an m x n x k problem: ``_scale_mm_configs`` then ``_finalize_mm_configs``
    (same file and commit): each block clamped to the next power of two of its dimension (at least 16), then
    num_warps = min(num_warps, BLOCK_M * BLOCK_N // 256). Returns (BM, BN, BK, num_warps, num_stages)."""
    hint = [max(1 << (x - 1).bit_length(), 16) for x in (m, n, k)]
    out = set()
    for bm, bn, bk, stages, warps in INDUCTOR_MM:
        bm, bn, bk = (max(min(b, h), 16) for b, h in zip((bm, bn, bk), hint))
        out.add((bm, bn, bk, min(warps, bm * bn // 256), stages))
    return out


def _launches(cfgs, hw) -> list:
    """The configs of ``cfgs`` (BM, BN, BK, warps, stages) that cannot launch on ``hw``, with their reasons."""
    return [(c, reasons(GemmConfig(*c, 8), hw)) for c in cfgs if reasons(GemmConfig(*c, 8), hw)]


@pytest.mark.parametrize("name", list(TRITON_PROFILES))
def test_the_tutorial_list_launches(name):
    hw = TRITON_PROFILES[name]
    assert _launches(TUTORIAL_FP16, hw) == []
    assert _launches(TUTORIAL_FP8, dataclasses.replace(hw, bytes_per_element=1)) == []


@pytest.mark.parametrize("name", list(TRITON_PROFILES))
def test_inductors_mm_list_launches_for_every_problem_size(name):
    hw = TRITON_PROFILES[name]
    sizes = [16, 32, 64, 128, 256, 4096]
    scaled = set().union(*(inductor_scaled(m, n, k) for m, n, k in itertools.product(sizes, repeat=3)))
    assert len(scaled) > 3 * len(INDUCTOR_MM)  # the clamping made many new configs
    assert _launches([(bm, bn, bk, w, st) for bm, bn, bk, st, w in INDUCTOR_MM], hw) == []
    assert _launches(sorted(scaled), hw) == []


@pytest.mark.parametrize("name", list(TRITON_PROFILES))
def test_inductors_later_config_overflows_shared_memory(name):
    hw = TRITON_PROFILES[name]
    bm, bn, bk, stages, warps = INDUCTOR_LATER_OVER_SMEM
    assert [r.code for r in reasons(GemmConfig(bm, bn, bk, warps, stages, 8), hw)] == ["smem"]


def test_the_seed_rules_refused_what_triton_runs():
    """The issue's examples: the lecture's rules refuse them, Triton's do not."""
    examples = {
        (16, 64, 32, 4, 3): "mma",  # Inductor's (64, 64, .., 4) clamped to a 16-row problem
        (32, 64, 32, 8, 5): "mma",  # Inductor's own list
        (128, 256, 64, 4, 3): "registers",  # 256 accumulator registers per thread: ptxas spills
    }
    for cfg, code in examples.items():
        assert [r.code for r in reasons(GemmConfig(*cfg, 8), H100_TC)] == [code]
        for hw in TRITON_PROFILES.values():
            assert reasons(GemmConfig(*cfg, 8), hw) == ()
    a100_deep = GemmConfig(64, 128, 128, 4, 4, 8)  # ran on the A100: 3 buffers, 144 KiB
    assert reasons(a100_deep, A100_SXM4) == ()
    assert "smem" in [r.code for r in reasons(a100_deep, dataclasses.replace(A100_SXM4, launch_rules="seed"))]


def test_spilling_configs_launch_and_report_their_spills():
    """128 x 256 with 4 warps keeps 256 accumulator registers per thread: the seed refuses it, Triton spills
    (compiled by Triton 3.9.0 for sm_80: 255 registers and a 1224-byte stack frame, 306 registers' worth;
    128 x 128 uses 250 registers and no stack)."""
    arr = config_array([GemmConfig(128, 256, 32, 4, 3, 8), GemmConfig(128, 128, 32, 4, 3, 8)])
    assert spilled_registers(arr, A100_SXM4).tolist() == [1224 // 4, 0]
    assert spilled_registers(arr, H100_TC).tolist() == [0, 0]


@pytest.mark.parametrize("name", list(TRITON_PROFILES))
def test_only_shared_memory_refuses_under_triton(name):
    hw = TRITON_PROFILES[name]
    checks = launch_checks(config_array(launchable(H100_TC).configs), hw)
    assert set(checks) == {"smem", "occupancy"}
    assert not checks["occupancy"].any()


def test_the_lecture_profile_keeps_the_seed_rules():
    assert H100_TC.launch_rules == "seed" and len(launchable(H100_TC).configs) == 3744
    assert {hw.launch_rules for hw in TRITON_PROFILES.values()} == {"triton-sm80", "triton-sm90"}
    assert LAUNCH_RULES == ("seed", "triton-sm80", "triton-sm90")


@pytest.mark.parametrize("bad", ["triton", "", None, 1])
def test_launch_rules_must_be_known(bad):
    with pytest.raises(ValueError, match="launch_rules"):
        dataclasses.replace(H100_TC, launch_rules=bad)


def test_wgmma_needs_four_warps_and_64_rows():
    bm, warps = np.array([64, 64, 32, 128]), np.array([4, 2, 4, 8])
    assert uses_wgmma(bm, 128, warps, H100_SXM).tolist() == [True, False, False, True]
    assert not uses_wgmma(bm, 128, warps, A100_SXM4).any()


# --- shared-memory reads: what the MMA instructions of one k-step fetch ------------------------------------


def instruction_reads(cfg: GemmConfig, hw) -> int:
    """Bytes one k-step's MMA instructions read from shared memory, counted instruction by instruction.

    Each warp of Triton's layout (mma.sync) reads the A rows and B columns of its own instructions once;
    each wgmma (warp group of 4 warps along M, m64 x n x k16) reads its A (64 x 16) and B (16 x n).
    """
    wy, wx = (int(v) for v in triton_warps_per_tile(cfg.bm, cfg.bn, cfg.warps, hw))
    e = hw.bytes_per_element
    total = 0
    if uses_wgmma(cfg.bm, cfg.bn, cfg.warps, hw):
        groups_m, groups_n = wy // 4, wx  # warp groups along M and N
        rows, cols = cfg.bm // groups_m, cfg.bn // groups_n  # one warp group's part of the tile
        for _group in range(groups_m * groups_n):
            for _m64 in range(rows // 64):
                for _k16 in range(cfg.bk // 16):
                    total += (64 * 16 + 16 * cols) * e
        return total
    for _warp in range(wy * wx):
        rows, cols = max(cfg.bm // wy, 16), max(cfg.bn // wx, 8)  # a replicated warp reads the same fragment
        total += (rows + cols) * cfg.bk * e
    return total


@pytest.mark.parametrize("hw", [H100_SXM, A100_SXM4], ids=lambda hw: hw.name)
def test_shared_memory_reads_count_every_instruction(hw):
    configs = launchable(hw).configs[::7]
    counted = [instruction_reads(c, hw) for c in configs]
    assert smem_read_bytes(config_array(configs), hw).tolist() == counted


def test_shared_memory_reads_follow_the_seed_grid_under_the_seed_rules():
    arr = config_array([GemmConfig(128, 128, 64, 4, 3, 8), GemmConfig(64, 256, 32, 8, 3, 8)])
    # 2 x 2 warps: each reads 64 rows of A and 64 columns of B; 4 x 2: 16 rows and 128 columns
    assert smem_read_bytes(arr, H100_TC).tolist() == [4 * (64 + 64) * 64 * 2, 8 * (16 + 128) * 32 * 2]


def test_wgmma_reads_b_once_per_64_rows_whatever_the_warps():
    # one warp group or two along M: the same instructions, so the same bytes; B dominates as BM grows
    arr = config_array([GemmConfig(128, 128, 64, w, 3, 8) for w in (4, 8)] + [GemmConfig(256, 128, 64, 8, 3, 8)])
    four, eight, tall = smem_read_bytes(arr, H100_SXM).tolist()
    assert four == eight == (128 + 2 * 128) * 64 * 2
    assert tall == (256 + 4 * 128) * 64 * 2


@pytest.mark.parametrize("warps", [4, 8])
def test_triton_compiles_the_dot_to_wgmma_reading_both_operands_from_shared_memory(warps, tmp_path, monkeypatch):
    # what smem_read_bytes assumes of the wgmma path, asked of Triton 3.9's compiler (no GPU needed)
    from schedlab.triton.compiler import compile_tutorial_binary

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    asm = compile_tutorial_binary(90, 128, 128, 64, warps, 3).asm
    dots = [line for line in asm["ttgir"].splitlines() if "ttng.warp_group_dot %" in line]
    assert dots and all(line.count("!ttg.memdesc<") == 2 for line in dots)  # A and B both shared-memory descriptors
    wy, wx = (int(v) for v in triton_warps_per_tile(128, 128, warps, H100_SXM))
    assert f"warpsPerCTA = [{wy}, {wx}]" in asm["ttgir"]
    wgmma = [line for line in asm["ptx"].splitlines() if "wgmma.mma_async" in line]
    # the loop body a warp group runs: one m64n128k16 per 64 of its rows per k-substep of 16, so the block's
    # (128 / 64) x (64 / 16) = 8 instructions per k-step, each reading its own A and B, shared by its warp groups
    assert len(wgmma) == (128 // 64) * (64 // 16) // (warps // 4)
    assert all(".m64n128k16." in line for line in wgmma)


# ldmatrix.x1 / .x2 / .x4 move one, two or four 8 x 8 FP16 matrices (128 B each) into a warp's registers (PTX ISA)
LDMATRIX_BYTES = {"x1": 128, "x2": 256, "x4": 512}


@pytest.mark.parametrize(
    "cc, cfg",
    [
        (80, (128, 128, 64, 4, 3)),
        (80, (128, 128, 32, 8, 3)),
        (80, (16, 64, 64, 4, 3)),
        (80, (32, 32, 32, 8, 3)),  # warps beyond the tile's 16 x 8 instructions: replicated fragments
        (90, (64, 64, 32, 2, 3)),
        (90, (32, 128, 64, 4, 3)),
    ],
    ids=lambda x: str(x),
)
def test_mma_sync_reads_what_the_compiled_ldmatrix_instructions_load(cc, cfg, tmp_path, monkeypatch):
    # every warp runs the same code, so one k-step's shared-memory reads are the ldmatrix bytes of the
    # PTX times the warps; on sm_80 Triton's prefetch pass also loads the first k-substep's (16 of BLOCK_K)
    # operands once before the loop, so the PTX holds 16 / BLOCK_K more than one loop body
    from schedlab.triton.compiler import compile_tutorial_binary

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    hw = BY_CC[cc]
    bm, bn, bk, warps, stages = cfg
    assert not uses_wgmma(bm, bn, warps, hw)
    ptx = compile_tutorial_binary(cc, *cfg).asm["ptx"]
    loads = re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.(x[124])", ptx)
    compiled = sum(LDMATRIX_BYTES[x] for x in loads) * warps
    prefetched = 16 / bk if cc == 80 else 0.0
    assert compiled == smem_read_bytes(config_array([(*cfg, 8)]), hw)[0] * (1 + prefetched)


def compiled_code(cc: int, cfg) -> tuple[list[str], list[str], list[str]]:
    """The instructions (predicates dropped) of the compiled kernel's SASS before, in and after its k-loop.

    The loop is the code between the backward branch and its target (tutorial 03's kernel has one loop).
    """
    from schedlab.triton.compiler import compile_tutorial_binary, cuobjdump, split_at_loop

    return split_at_loop(cuobjdump(compile_tutorial_binary(cc, *cfg).asm["cubin"], "-sass"))


def opcode(instruction: str) -> str:
    return instruction.split()[0]


def main_loop_syncs(cc: int, cfg) -> tuple[int, int]:
    """(CTA barriers, waits) one iteration of the compiled kernel's k-loop passes, read from its SASS.

    A wait is a ``DEPBAR`` (wait on the asynchronous copies, ``cp.async.wait_group``) with a commit
    (``LDGDEPBAR``) since the last one, going round the loop: a second ``DEPBAR`` on the same copies finds
    them arrived and costs nothing.
    """
    ops = [opcode(text) for text in compiled_code(cc, cfg)[1]]
    barriers = sum(op.startswith("BAR.SYNC") for op in ops)
    # entering an iteration in the steady state, a commit is pending if one follows the body's last wait
    last_wait = max((i for i, op in enumerate(ops) if op.startswith("DEPBAR")), default=-1)
    waits, committed = 0, "LDGDEPBAR" in ops[last_wait + 1 :]
    for op in ops:
        committed |= op == "LDGDEPBAR"
        if op.startswith("DEPBAR") and committed:
            waits, committed = waits + 1, False
    return barriers, waits


@pytest.mark.parametrize(
    "hw, l1_latency_clk", [(H100_SXM, 34.2), (A100_SXM4, 36.0)], ids=lambda x: getattr(x, "launch_rules", x)
)
def test_each_k_step_pays_one_l1_round_trip_per_sync_the_compiled_loop_passes(hw, l1_latency_clk):
    # l1_latency_clk: the L1 latencies [BENCH-DATA] measured (gpu-latency on an H100 PCIe, cuda-latency on an
    # A100 80GB); every pipelined configuration's loop has the same synchronisation, whatever its tile
    cc = TARGET_OF_RULES[hw.launch_rules]
    syncs = {main_loop_syncs(cc, cfg) for cfg in [(16, 32, 128, 2, 5), (64, 64, 32, 2, 3), (128, 256, 64, 8, 3)]}
    assert len(syncs) == 1
    assert hw.t_k_step_clk == pytest.approx(sum(syncs.pop()) * l1_latency_clk)


def epilogue_bytes(cc: int, cfg) -> dict[str, int]:
    """Bytes one block's code after the k-loop stores to and loads from shared memory and stores to global memory.

    Every warp runs the same code: per-thread ``STS`` / ``LDS`` / ``STG`` widths times the threads, and
    ``STSM`` / ``LDSM`` (a warp moves 128 B per 8 x 8 matrix, ``.x4`` four of them) times the warps.
    """
    after = [opcode(text) for text in compiled_code(cc, cfg)[2]]
    threads, warps = cfg[3] * 32, cfg[3]
    width = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "32": 4, "64": 8, "128": 16}
    moved = {"smem_write": 0, "smem_read": 0, "global_write": 0}
    kind = {"STS": "smem_write", "STSM": "smem_write", "LDS": "smem_read", "LDSM": "smem_read", "STG": "global_write"}
    for op in after:
        base = op.split(".")[0]
        if base not in kind:
            continue
        if base in ("STSM", "LDSM"):
            matrices = re.search(r"\.(\d)$", op)  # STSM.16.M88.4: four 8 x 8 matrices
            moved[kind[base]] += 128 * int(matrices[1] if matrices else 1) * warps
        else:
            found = re.search(r"\.(U8|S8|U16|S16|32|64|128)\b", op)
            moved[kind[base]] += width[found[1]] * threads if found else 4 * threads
    return moved


@pytest.mark.parametrize("hw", [H100_SXM, A100_SXM4], ids=lambda hw: hw.launch_rules)
@pytest.mark.parametrize("cfg", [(16, 32, 128, 2, 5), (64, 64, 32, 2, 3), (128, 128, 64, 4, 3), (128, 256, 64, 8, 3)])
def test_the_epilogue_moves_the_c_tile_through_shared_memory_as_often_as_the_model_charges(hw, cfg):
    # the model's epilogue: epilogue_smem_passes trips of the FP16 C tile through shared memory, then one store
    cc = TARGET_OF_RULES[hw.launch_rules]
    c_tile = cfg[0] * cfg[1] * hw.bytes_per_element
    moved = epilogue_bytes(cc, cfg)
    assert moved["smem_write"] + moved["smem_read"] == hw.epilogue_smem_passes * c_tile
    assert moved["global_write"] == c_tile


@pytest.mark.parametrize("cc", [80, 90])
@pytest.mark.parametrize("cfg", [(16, 32, 128, 2, 5), (64, 64, 32, 2, 3), (128, 128, 64, 4, 3), (128, 256, 64, 8, 3)])
def test_each_k_step_copies_the_a_and_b_tiles_once(cc, cfg):
    # the port and L2 terms charge (BM + BN) x BK FP16 elements per block per k-step: the loop's cp.async
    # copies (LDGSTS, 16 bytes each where the tile allows) of every thread
    bm, bn, bk, warps, _ = cfg
    loop = [opcode(text) for text in compiled_code(cc, cfg)[1]]
    width = {"128": 16, "64": 8, "32": 4}
    copied = sum(width[re.search(r"\.(128|64|32)$", op)[1]] for op in loop if op.startswith("LDGSTS")) * warps * 32
    assert copied == (bm + bn) * bk * 2 == smem_fill_bytes(config_array([(*cfg, 8)]), BY_CC[cc])[0]


@pytest.mark.parametrize("cc", [80, 90])
@pytest.mark.parametrize("warps, stages", [(4, 2), (4, 3), (2, 4), (4, 5)])
def test_stages_minus_one_loads_are_in_flight_as_the_latency_term_assumes(cc, warps, stages):
    # t_latency_s = L / (stages - 1): the loop waits for a stage (DEPBAR.LE SB0, n lets n commit groups,
    # two per stage, stay outstanding) while the stages - 2 after it are still in flight, so the awaited
    # load overlaps stages - 1 in all; on sm_90 too, where wgmma keeps one more buffer for the MMA in flight
    before, loop, after = compiled_code(cc, (64, 64, 32, warps, stages))
    groups_per_stage = [opcode(text) for text in loop].count("LDGDEPBAR")
    waits = [re.fullmatch(r"DEPBAR\.LE SB0, (0x[0-9a-f]+)", text) for text in before + loop + after]
    outstanding = {int(w[1], 16) for w in waits if w} - {0}  # 0: the drain after the loop
    assert outstanding == ({groups_per_stage * (stages - 2)} if stages > 2 else set())


@pytest.mark.parametrize("hw", [H100_SXM, A100_SXM4], ids=lambda hw: hw.launch_rules)
@pytest.mark.parametrize("cfg", [(64, 64, 32, 2, 3), (128, 128, 32, 2, 3), (32, 128, 64, 4, 3), (32, 64, 64, 2, 4)])
def test_issue_slots_do_not_bind_where_each_warp_runs_many_mma_per_k_step(hw, cfg):
    # the profiles' assumption (tensor_cores_per_sm's source): a warp issues one instruction per clock on its
    # sub-partition, and its loop's instructions take fewer clocks than its mma.sync keep that sub-partition's
    # tensor core busy at the measured rate. Tiles of few mma per k-step (BK 16, 16-row warps) are not covered
    cc = TARGET_OF_RULES[hw.launch_rules]
    bm, bn, bk, warps, _ = cfg
    assert not uses_wgmma(bm, bn, warps, hw)
    loop = [opcode(text) for text in compiled_code(cc, cfg)[1]]
    mma = sum(op.startswith("HMMA") for op in loop)
    assert mma * warps * 16 * 8 * 16 == bm * bn * bk  # every m16n8k16 of the tile once per k-step
    clocks_per_mma = 2 * 16 * 8 * 16 / (hw.flop_per_clk_per_tensor_core * hw.mma_sync_fraction)
    assert len(loop) < mma * clocks_per_mma
