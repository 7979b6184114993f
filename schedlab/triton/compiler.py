"""What Triton's compiler makes of each configuration: registers, stack, shared memory and k-loop length of the tutorial kernel.

``python -m schedlab.triton.compiler -o schedlab/data/triton-registers.csv`` compiles Triton tutorial 03's
FP16 matmul kernel (``python/tutorials/03-matrix-multiplication.py``: 16-byte aligned pointers, unit
inner strides, ``GROUP_SIZE_M = 8``) for every (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) of the
knob space that Triton can launch (its pipeline's shared memory fits, the one rule of
:func:`schedlab.core.launch.launch_checks` besides occupancy) on
both targets the Triton profiles describe, ``GPUTarget("cuda", 80, 32)`` and
``GPUTarget("cuda", 90, 32)``, and for each :class:`~schedlab.core.shapes.RowAlignment` of the operands
(:data:`ALIGNMENTS`: ``K`` and ``N`` each a multiple of 16 or not, as Triton's specialisation sees them). No GPU is needed: ``triton.compile`` runs the whole pipeline to a cubin
with the ``ptxas`` Triton ships, and ``cuobjdump --dump-resource-usage`` (shipped beside it) reads the
cubin's registers per thread (``REG``) and stack frame (``STACK``, where ptxas spills); ``cuobjdump -sass``
gives the machine code, whose k-loop (:func:`split_at_loop`) is counted in instructions. The record's
format and its reader are :mod:`schedlab.core.compiler_record`; a ``regen`` test compiles a sample again
and compares.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from schedlab.core.compiler_record import UNALIGNED_STAGES, CompiledKernel, read_record, write_record
from schedlab.core.hardware import A100_SXM4, H100_SXM
from schedlab.core.knobs import SPACE
from schedlab.core.resources import pipeline_smem_bytes
from schedlab.core.shapes import ALIGNED, RowAlignment

__all__ = [
    "TARGETS",
    "ALIGNMENTS",
    "tutorial_kernel",
    "compile_tutorial_kernel",
    "compile_tutorial_binary",
    "cuobjdump",
    "split_at_loop",
    "main",
]

#: Compute capabilities the Triton profiles compile for, and the profile whose launch rules each follows
#: (``h200-sxm`` has the H100's SM).
TARGETS = {80: A100_SXM4, 90: H100_SXM}
#: The operands' row alignments the record holds: both aligned first (every shape of multiples of 16).
ALIGNMENTS = (ALIGNED, RowAlignment(False, True), RowAlignment(True, False), RowAlignment(False, False))
#: The integer arguments whose divisibility by 16 each dimension decides: A's row stride is K, B's and C's N.
_ARGS_OF_DIMENSION = {"k_aligned": ("K", "stride_am"), "n_aligned": ("N", "stride_bk", "stride_cm")}
#: GROUP_SIZE_M the tutorial uses (it changes only the program-id arithmetic, not the tile's registers).
TUTORIAL_GROUP_M = 8


@functools.cache
def tutorial_kernel():
    """Tutorial 03's matmul kernel as a ``triton.jit`` function, made once (Triton is imported here: it is optional)."""
    import triton
    import triton.language as tl

    @triton.jit
    def matmul_kernel(
        a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
        BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
        GROUP_SIZE_M: tl.constexpr,
    ):  # fmt: skip
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
        num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk
        c = accumulator.to(tl.float16)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)

    return matmul_kernel


_RESOURCES = re.compile(r"REG:(\d+) STACK:(\d+)")


def compile_tutorial_kernel(
    cc: int, bm: int, bn: int, bk: int, warps: int, stages: int, alignment: RowAlignment = ALIGNED
) -> CompiledKernel:
    """Compile tutorial 03's FP16 kernel for compute capability ``cc`` and operands aligned as ``alignment``
    and read its resource usage.

    Raises ``ValueError`` for a target other than :data:`TARGETS`; Triton's own errors (e.g.
    ``OutOfResources`` is not raised here: compiling does not check the device's limits) propagate.
    """
    binary = compile_tutorial_binary(cc, bm, bn, bk, warps, stages, alignment)
    usage = cuobjdump(binary.asm["cubin"], "--dump-resource-usage")
    found = _RESOURCES.search(usage)
    if found is None:
        raise RuntimeError(f"cuobjdump printed no REG/STACK line for {cc, bm, bn, bk, warps, stages}:\n{usage}")
    preamble, loop, _ = split_at_loop(cuobjdump(binary.asm["cubin"], "-sass"))
    shared = int(binary.metadata.shared)
    return CompiledKernel(
        cc,
        bm,
        bn,
        bk,
        warps,
        stages,
        *map(int, alignment),
        int(found[1]),
        int(found[2]),
        shared,
        len(loop),
        len(preamble),
    )


def cuobjdump(cubin: bytes, *options: str) -> str:
    """What the ``cuobjdump`` bundled with Triton prints for ``cubin`` with ``options`` (e.g. ``"-sass"``)."""
    import triton

    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kernel.cubin"
        path.write_bytes(cubin)
        return subprocess.run([str(tool), *options, str(path)], capture_output=True, text=True, check=True).stdout


def split_at_loop(sass: str) -> tuple[list[str], list[str], list[str]]:
    """A kernel's SASS (``cuobjdump -sass``) as its instructions before, in and after its main loop.

    The loop is the code between the backward branch and its target, the longest if there are several
    (tutorial 03's kernel has one: the k-loop). Predicates are dropped, so each instruction starts with
    its opcode.
    """
    code = [(int(m[1], 16), m[2]) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", sass)]
    loops = [
        (int(m[2], 16), at)
        for at, text in code
        if (m := re.search(r"\bBRA (0x([0-9a-f]+))", text)) and int(m[2], 16) < at
    ]
    if not loops:
        raise ValueError("the SASS has no backward branch: no loop to split at")
    start, end = max(loops, key=lambda span: span[1] - span[0])
    code = [(at, (text.split(maxsplit=1)[1] if text.startswith("@") else text).strip()) for at, text in code]
    return (
        [text for at, text in code if at < start],
        [text for at, text in code if start <= at <= end],
        [text for at, text in code if at > end],
    )


def compile_tutorial_binary(
    cc: int, bm: int, bn: int, bk: int, warps: int, stages: int, alignment: RowAlignment = ALIGNED
):
    """Tutorial 03's FP16 kernel compiled by ``triton.compile`` for ``cc``: Triton's compiled kernel, whose
    ``asm`` holds every stage's text (``"ttgir"``, ``"ptx"``) and the ``"cubin"``.

    The pointers and the integer arguments are specialised as multiples of 16 (``tt.divisibility``), as
    Triton's JIT does for a launch with such values, except those ``alignment`` says are not: ``K`` and A's
    row stride when ``K`` is not a multiple of 16, ``N`` and B's and C's row strides when ``N`` is not.

    Raises ``ValueError`` for a target other than :data:`TARGETS`.
    """
    if cc not in TARGETS:
        raise ValueError(f"cc must be one of {tuple(TARGETS)}, got {cc!r}")
    import triton
    from triton.backends.compiler import GPUTarget

    pointers = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16"}
    ints = ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")
    constexprs = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn,
                  "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": TUTORIAL_GROUP_M}  # fmt: skip
    signature = {**pointers, **dict.fromkeys(ints, "i32"), **dict.fromkeys(constexprs, "constexpr")}
    kernel = tutorial_kernel()
    order = list(kernel.arg_names)
    signature = {name: signature[name] for name in order}
    unaligned = {arg for field, args in _ARGS_OF_DIMENSION.items() if not getattr(alignment, field) for arg in args}
    # what Triton specialises for multiples of 16
    aligned = [order.index(name) for name in (*pointers, *ints) if name not in unaligned]
    source = triton.compiler.ASTSource(
        fn=kernel,
        signature=signature,
        constexprs={(order.index(name),): value for name, value in constexprs.items()},
        attrs={(i,): [["tt.divisibility", 16]] for i in aligned},
    )
    # FP fusion on, Triton 3.9's default, stated: 3.10 turns the default off
    options = {"num_warps": warps, "num_stages": stages, "enable_fp_fusion": True}
    return triton.compile(source, target=GPUTarget("cuda", cc, 32), options=options)


def _compile_row(row: tuple[int, ...]) -> CompiledKernel:
    return compile_tutorial_kernel(*row)


def _record_order(row: CompiledKernel) -> tuple:
    """Aligned kernels first, then by target and knobs (the order of :data:`ALIGNMENTS` within each)."""
    return (ALIGNMENTS.index(row.alignment), row.cc, row.bm, row.bn, row.bk, row.warps, row.stages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m schedlab.triton.compiler", description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True, help="CSV file to write")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="compiler processes (default: one per CPU)")
    parser.add_argument("--resume", action="store_true", help="keep the rows OUTPUT already holds; compile the rest")
    args = parser.parse_args(argv)
    knobs = [SPACE[name] for name in ("bm", "bn", "bk", "warps", "stages")]
    todo = [
        (cc, *row, alignment)
        for alignment in ALIGNMENTS
        for cc, hw in TARGETS.items()
        for row in itertools.product(*knobs)
        if pipeline_smem_bytes(*row, hw, alignment) <= hw.smem_limit  # Triton's one launch rule (schedlab.core.launch)
        and (alignment == ALIGNED or row[-1] in UNALIGNED_STAGES)
    ]
    rows = list(read_record(args.output)) if args.resume and args.output.exists() else []
    done = {(r.cc, r.bm, r.bn, r.bk, r.warps, r.stages, r.alignment) for r in rows}
    todo = [row for row in todo if row not in done]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for i, row in enumerate(pool.map(_compile_row, todo), 1):
            rows.append(row)
            if i % 50 == 0 or i == len(todo):
                print(f"compiled {len(rows)}/{len(rows) + len(todo) - i}", file=sys.stderr, flush=True)
                write_record(sorted(rows, key=_record_order), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
