"""The compiler's record (schedlab/data/triton-registers.csv) and what the model reads from it.

The record is Triton 3.9.0's own output for tutorial 03's kernel, so it is the reference here; the
model's shared-memory rule (a formula read from Triton's sources) is checked against every row of it,
and a ``regen`` test compiles a sample again.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from schedlab.core.compiler_record import (
    TARGET_OF_RULES,
    UNALIGNED_STAGES,
    compiled_resources,
    read_record,
    write_record,
)
from schedlab.core.hardware import A100_SXM4, H100_SXM, H200_SXM
from schedlab.core.knobs import SPACE, config_array
from schedlab.core.resources import (
    accumulator_registers,
    loop_instructions,
    pipeline_smem_bytes,
    preamble_instructions,
    registers_per_thread,
    reserved_smem_bytes,
    spilled_registers,
    triton_warps_per_tile,
    uses_wgmma,
)
from schedlab.core.shapes import ALIGNED, RowAlignment
from schedlab.triton.compiler import ALIGNMENTS

RECORD = read_record()
PROFILE_OF_TARGET = {80: A100_SXM4, 90: H100_SXM}
KNOBS = ("bm", "bn", "bk", "warps", "stages")
#: every (target, row alignment) the record holds
CASES = [(cc, alignment) for cc in sorted(PROFILE_OF_TARGET) for alignment in ALIGNMENTS]


def case_id(case):
    cc, alignment = case
    unaligned = "".join(d for d, ok in zip("KN", alignment) if not ok)
    return f"sm{cc}-" + (f"{unaligned}-unaligned" if unaligned else "aligned")


def rows_of(cc, alignment=ALIGNED):
    return [row for row in RECORD if row.cc == cc and row.alignment == alignment]


def as_array(rows):
    return config_array([(*(getattr(r, k) for k in KNOBS), 8) for r in rows])


# --- what the record holds --------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_record_holds_every_configuration_triton_launches_once(case):
    cc, alignment = case
    hw = PROFILE_OF_TARGET[cc]
    recorded = [tuple(getattr(r, k) for k in KNOBS) for r in rows_of(cc, alignment)]
    stages = SPACE["stages"] if alignment == ALIGNED else UNALIGNED_STAGES  # deeper ones: the nearest, 3
    launches = {
        row
        for row in itertools.product(*(SPACE[k] for k in KNOBS))
        if pipeline_smem_bytes(*row, hw, alignment) <= hw.smem_limit and row[-1] in stages
    }
    assert len(recorded) == len(set(recorded))
    assert set(recorded) == launches


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_pipeline_formula_is_what_triton_reserved_or_the_epilogue_needs_more(case):
    # metadata.shared is the pipeline's buffers (the formula read from Triton's pipeliner: an unaligned
    # operand in one buffer) or, where the epilogue's layout conversion of C (which reuses them) needs more,
    # at most the FP16 tile of C
    cc, alignment = case
    hw, rows = PROFILE_OF_TARGET[cc], rows_of(cc, alignment)
    arr = as_array(rows)
    pipeline = pipeline_smem_bytes(*(arr[:, j] for j in range(5)), hw, alignment)
    reserved = np.array([r.shared_bytes for r in rows])
    tile_of_c = arr[:, 0] * arr[:, 1] * hw.bytes_per_element
    wrong = np.flatnonzero((reserved < pipeline) | ((reserved > pipeline) & (reserved > tile_of_c)))
    assert not len(wrong), [(rows[i], int(pipeline[i])) for i in wrong[:5]]
    assert (reserved == pipeline).mean() > 0.8  # the epilogue is the larger only for short pipelines


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_k_loop_issues_at_least_its_mma_and_the_model_reads_it(case):
    # per warp and k-step: mma.sync, one m16n8k16 per 16 x 8 of the warp's tile per 16 of BLOCK_K; wgmma, one
    # m64nNk16 per 64 of the warp group's rows per 16 of BLOCK_K (tests/test_triton_rules.py counts them)
    cc, alignment = case
    hw = PROFILE_OF_TARGET[cc]
    rows = rows_of(cc, alignment)
    arr = as_array(rows)
    bm, bn, bk, warps = arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]
    wy, wx = triton_warps_per_tile(bm, bn, warps, hw)
    mma_sync = (np.maximum(bm // wy, 16) // 16) * (np.maximum(bn // wx, 8) // 8) * (bk // 16)
    wgmma = bm // np.maximum(wy // 4, 1) // 64 * (bk // 16)  # (wy is 4 or more where the dot is a wgmma)
    least = np.where(uses_wgmma(bm, bn, warps, hw), wgmma, mma_sync)
    recorded = np.array([r.loop_instructions for r in rows])
    assert np.all(recorded >= least)
    assert loop_instructions(arr, hw, alignment).tolist() == recorded.tolist()


@pytest.mark.parametrize("cc", sorted(PROFILE_OF_TARGET))
def test_one_more_stage_puts_one_more_stage_of_copies_before_the_k_loop(cc):
    # the code before the loop issues the first s - 1 stages' cp.async, 16 bytes a thread each: (BM + BN) BK 2 / (16 * 32 w)
    # a warp per stage. Beyond two stages, one more adds at least that many instructions (a handful of
    # tiles, where the compiler reorders the address arithmetic, excepted)
    by_tile = {}
    for r in rows_of(cc):
        by_tile.setdefault((r.bm, r.bn, r.bk, r.warps), {})[r.stages] = r.preamble_instructions
    adds_a_stage = [
        stages[s + 1] - stages[s] >= -(-(bm + bn) * bk * 2 // (16 * 32 * warps))
        for (bm, bn, bk, warps), stages in by_tile.items()
        for s in (2, 3, 4)
        if s in stages and s + 1 in stages
    ]
    assert len(adds_a_stage) > 1000 and np.mean(adds_a_stage) > 0.98


@pytest.mark.parametrize("case", [c for c in CASES if c[1] != ALIGNED], ids=case_id)
def test_an_unaligned_operand_lengthens_the_k_loop(case):
    # its tiles come in one element (2 bytes) per load and store, with a 64-bit address each, where cp.async
    # copies 16 bytes: the median loop is over 1.5 times the aligned one (tiles already loaded an element per
    # thread, or not pipelined, are not longer)
    cc, alignment = case
    aligned = {tuple(getattr(r, k) for k in KNOBS): r.loop_instructions for r in rows_of(cc)}
    ratio = [
        r.loop_instructions / aligned[key]
        for r in rows_of(cc, alignment)
        if (key := tuple(getattr(r, k) for k in KNOBS)) in aligned
    ]
    assert len(ratio) > 800 and np.median(ratio) > 1.5


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_thread_holds_at_least_its_accumulator_unless_ptxas_spilled(case):
    cc, alignment = case
    hw, rows = PROFILE_OF_TARGET[cc], rows_of(cc, alignment)
    acc = accumulator_registers(as_array(rows), hw)
    for row, need in zip(rows, acc):
        assert row.registers <= hw.max_regs_per_thread
        if row.stack_bytes == 0:
            assert row.registers >= need, row


def test_beyond_one_stage_the_stage_count_hardly_moves_the_registers():
    # what lets a configuration the record lacks take its nearest compiled stage count
    by_tile = {}
    for row in RECORD:
        if row.stages >= 2:
            by_tile.setdefault((row.cc, row.alignment, row.bm, row.bn, row.bk, row.warps), []).append(row.registers)
    spread = np.array([max(v) - min(v) for v in by_tile.values() if len(v) > 1])
    assert np.median(spread) <= 2 and np.percentile(spread, 90) <= 8, (np.median(spread), spread.max())


def test_four_and_five_stages_compile_to_nearly_three_stages_registers_and_loop():
    # what lets the unaligned rows' record stop at UNALIGNED_STAGES: deeper pipelines take three stages'
    three = {(r.cc, r.bm, r.bn, r.bk, r.warps): r for r in RECORD if r.alignment == ALIGNED and r.stages == 3}
    deeper = [(r, three[(r.cc, r.bm, r.bn, r.bk, r.warps)]) for r in RECORD if r.alignment == ALIGNED and r.stages > 3]
    registers = np.array([abs(r.registers - t.registers) for r, t in deeper])
    loop = np.array([abs(r.loop_instructions / t.loop_instructions - 1) for r, t in deeper])
    assert len(deeper) > 1000 and max(UNALIGNED_STAGES) == 3
    assert np.percentile(registers, 90) <= 1 and np.percentile(loop, 90) < 0.02, (np.percentile(loop, 90),)


# --- what the model reads ---------------------------------------------------------------------------------


@pytest.mark.parametrize("alignment", ALIGNMENTS, ids=lambda a: case_id((0, a)).split("-", 1)[1])
@pytest.mark.parametrize("hw", [A100_SXM4, H100_SXM, H200_SXM], ids=lambda hw: hw.launch_rules + "-" + str(hw.n_sm))
def test_the_model_reads_the_registers_and_spills_the_compiler_reported(hw, alignment):
    rows = rows_of(TARGET_OF_RULES[hw.launch_rules], alignment)
    arr = as_array(rows)
    assert registers_per_thread(arr, hw, alignment).tolist() == [r.registers for r in rows]
    assert spilled_registers(arr, hw, alignment).tolist() == [r.stack_bytes // 4 for r in rows]
    assert reserved_smem_bytes(arr, hw, alignment).tolist() == [r.shared_bytes for r in rows]
    assert preamble_instructions(arr, hw, alignment).tolist() == [r.preamble_instructions for r in rows]


def test_a_configuration_the_record_lacks_takes_the_nearest_compiled_stage_count():
    # 256 x 256 x 128 with 4 warps: Ampere (163 KiB) compiled only 1 and 2 stages (2 has one buffer, 128 KiB)
    compiled = {r.stages: r for r in rows_of(80) if (r.bm, r.bn, r.bk, r.warps) == (256, 256, 128, 4)}
    assert sorted(compiled) == [1, 2]
    lacking = config_array([(256, 256, 128, 4, s, 8) for s in (3, 4, 5)])
    regs, stack, shared, _, _ = compiled_resources(lacking, "triton-sm80")
    assert regs.tolist() == [compiled[2].registers] * 3 and stack.tolist() == [compiled[2].stack_bytes] * 3
    # the shared memory is the pipeline's, larger than the neighbour's: 2, 3 and 4 buffers of 128 KiB
    assert (reserved_smem_bytes(lacking, A100_SXM4) // 2**17).tolist() == [2, 3, 4]


def test_a_record_that_lacks_a_tile_altogether_is_refused_by_name(monkeypatch):
    import schedlab.core.compiler_record as record
    from schedlab.core.caching import clear_caches

    tile, unaligned = (90, 64, 64, 32, 4), RowAlignment(False, True)
    kept = tuple(r for r in RECORD if (r.cc, r.bm, r.bn, r.bk, r.warps) != tile or r.alignment != unaligned)
    monkeypatch.setattr(record, "read_record", lambda path=None: kept)
    clear_caches()
    try:
        arr = config_array([(64, 64, 32, 4, 3, 8)])
        with pytest.raises(ValueError, match=r"no compiled kernel for sm_90, RowAlignment\(k_aligned=False"):
            record.compiled_resources(arr, "triton-sm90", unaligned)
    finally:
        clear_caches()


def test_compiled_resources_names_a_rule_set_it_has_no_record_for():
    with pytest.raises(ValueError, match="launch_rules must be one of .*'seed'"):
        compiled_resources(config_array([(64, 64, 32, 4, 3, 8)]), "seed")


# --- the file ---------------------------------------------------------------------------------------------


def test_the_record_reads_back_what_was_written(tmp_path):
    path = tmp_path / "record.csv"
    write_record(RECORD[:3], path)
    assert read_record(path) == RECORD[:3]


@pytest.mark.parametrize(
    "text, message",
    [
        ("cc,bm\n80,16\n", "header"),
        (
            "cc,bm,bn,bk,warps,stages,k_aligned,n_aligned,registers,stack_bytes,shared_bytes,loop_instructions,preamble_instructions\n"
            "80,16,16,16,1,1,1,1,x,0,1024,40,120\n",
            "line 2",
        ),
        (
            "cc,bm,bn,bk,warps,stages,k_aligned,n_aligned,registers,stack_bytes,shared_bytes,loop_instructions,preamble_instructions\n80,16,16\n",
            "line 2",
        ),
        # the record before row alignments: its header lacks them
        ("cc,bm,bn,bk,warps,stages,registers,stack_bytes,shared_bytes,loop_instructions\n", "header"),
        # the record before preamble counts
        (
            "cc,bm,bn,bk,warps,stages,k_aligned,n_aligned,registers,stack_bytes,shared_bytes,loop_instructions\n80,16,16,16,1,1,1,1,40,0,1024,40\n",
            "header",
        ),
    ],
)
def test_a_damaged_record_is_refused_by_line(tmp_path, text, message):
    path = tmp_path / "record.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_record(path)


@pytest.mark.regen
@pytest.mark.parametrize(
    "key",
    [
        (80, 64, 64, 64, 2, 3, ALIGNED),
        (80, 128, 256, 64, 8, 3, ALIGNED),
        (90, 64, 64, 64, 2, 3, ALIGNED),
        (90, 128, 128, 64, 4, 3, ALIGNED),
        (90, 128, 128, 32, 4, 3, ALIGNMENTS[1]),
        (80, 128, 128, 64, 4, 3, ALIGNMENTS[3]),
    ],
    ids=lambda k: "sm{}-{}x{}x{}-w{}-s{}".format(*k[:6]) + "-" + case_id((0, k[6])).split("-", 1)[1],
)
def test_the_compiler_still_reports_what_the_record_says(key, tmp_path, monkeypatch):
    from schedlab.triton.compiler import compile_tutorial_kernel

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # compile, do not read an earlier cubin
    recorded = next(r for r in RECORD if (r.cc, r.bm, r.bn, r.bk, r.warps, r.stages, r.alignment) == key)
    assert compile_tutorial_kernel(*key) == recorded


# --- re-recording -----------------------------------------------------------------------------------------


def test_resuming_compiles_only_the_rows_the_file_lacks(tmp_path, monkeypatch, capsys):
    from schedlab.triton import compiler

    path = tmp_path / "record.csv"
    lacking = RECORD[100]
    write_record([row for row in RECORD if row != lacking], path)
    lacking_key = (lacking.cc, lacking.bm, lacking.bn, lacking.bk, lacking.warps, lacking.stages, lacking.alignment)
    asked = []

    def compile_one(row):  # the compiler's answer from the record: this test is about which rows are asked for
        asked.append(row)
        return next(r for r in RECORD if (r.cc, r.bm, r.bn, r.bk, r.warps, r.stages, r.alignment) == row)

    monkeypatch.setattr(compiler, "_compile_row", compile_one)
    monkeypatch.setattr(compiler, "ProcessPoolExecutor", _InProcessPool)
    assert compiler.main(["-o", str(path), "--resume"]) == 0
    assert asked == [lacking_key]
    assert set(read_record(path)) == set(RECORD)
    assert f"compiled {len(RECORD)}/{len(RECORD)}" in capsys.readouterr().err


class _InProcessPool:
    """A stand-in for ProcessPoolExecutor that maps in this process (so the patched compile is the one called)."""

    def __init__(self, max_workers=None):
        self.max_workers = max_workers

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, fn, items):
        return map(fn, items)
