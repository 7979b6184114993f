"""Registers, stack and loop length as Triton's compiler reported them, for every configuration it can launch.

``schedlab/data/triton-registers.csv`` holds one row per compiled kernel (:class:`CompiledKernel`):
Triton tutorial 03's FP16 matmul kernel compiled by Triton 3.9.0 for compute capability 8.0 and 9.0
(no GPU needed), for each :class:`~schedlab.core.shapes.RowAlignment` of the operands (whether ``K`` and ``N``
are multiples of 16, as Triton's specialisation sees them), with the registers per thread and the stack frame ``cuobjdump`` read from each
cubin, the shared memory Triton reserved, and the instructions of one iteration of the k-loop and those
before it in the cubin's SASS. :mod:`schedlab.triton.compiler` writes it
(``python -m schedlab.triton.compiler -o schedlab/data/triton-registers.csv``); under Triton's launch
rules the model reads registers from it (:func:`compiled_resources`) instead of estimating them.

Why a record and not a formula: the registers a Triton matmul needs besides its accumulator are not a
constant. Operand fragments, load addresses and masks, and what the pipeliner keeps live add 30 to
well over 100 per thread, most for few warps and a deep BLOCK_K; e.g. 64 x 64 x 64 with 2 warps uses
204 registers on sm_90 where its accumulator is 64 (issue 24, and triton-lang/triton#11253: two-warp
matmuls at 237 registers).
"""

from __future__ import annotations

import csv
from dataclasses import astuple, dataclass, fields
from pathlib import Path

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.knobs import SPACE
from schedlab.core.shapes import ALIGNED, RowAlignment

__all__ = [
    "CompiledKernel",
    "RECORD_PATH",
    "TARGET_OF_RULES",
    "UNALIGNED_STAGES",
    "read_record",
    "write_record",
    "compiled_resources",
]

#: Where the record lives (package data).
RECORD_PATH = Path(__file__).resolve().parents[1] / "data" / "triton-registers.csv"
#: The compute capability each Triton rule set compiles for.
TARGET_OF_RULES = {"triton-sm80": 80, "triton-sm90": 90}
_KNOBS = ("bm", "bn", "bk", "warps", "stages")
#: The stage counts the record holds for shapes whose rows are not both aligned: one to three. Deeper pipelines
#: take three stages' registers and loop, the nearest compiled stage count (:func:`compiled_resources`): in the
#: aligned record 4 and 5 stages change the loop by under 1.4 % and the registers by nothing at the 90th
#: percentile (``tests/test_compiler_record.py``), and leaving them out spares 40 % of some 12,000 compilations.
UNALIGNED_STAGES = (1, 2, 3)


@dataclass(frozen=True)
class CompiledKernel:
    """One compiled kernel: its target, its knobs and what the cubin reports."""

    cc: int  # compute capability: 80 or 90
    bm: int
    bn: int
    bk: int
    warps: int
    stages: int
    k_aligned: int  # 1 when the kernel was specialised for K a multiple of 16 (A's rows aligned), else 0
    n_aligned: int  # 1 when for N a multiple of 16 (B's and C's rows aligned), else 0
    registers: int  # registers per thread (cuobjdump REG)
    stack_bytes: int  # stack frame per thread (cuobjdump STACK): where ptxas spills
    shared_bytes: int  # shared memory Triton reserves (metadata.shared)
    loop_instructions: int  # SASS instructions one warp issues per iteration of the k-loop (cuobjdump -sass)
    preamble_instructions: (
        int  # SASS instructions before the k-loop: tile indices, pointers, masks, the first stages' loads
    )

    @property
    def alignment(self) -> RowAlignment:
        """The operands' :class:`~schedlab.core.shapes.RowAlignment` the kernel was compiled for."""
        return RowAlignment(bool(self.k_aligned), bool(self.n_aligned))


def write_record(rows, path) -> None:
    """Write :class:`CompiledKernel` rows as CSV, a header of the field names first."""
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow([f.name for f in fields(CompiledKernel)])
        writer.writerows(astuple(row) for row in rows)


def read_record(path=RECORD_PATH) -> tuple[CompiledKernel, ...]:
    """The rows :func:`write_record` wrote; a wrong header or a non-integer cell is a ``ValueError`` naming the line."""
    names = [f.name for f in fields(CompiledKernel)]
    with open(path, newline="") as source:
        reader = csv.reader(source)
        header = next(reader, None)
        if header != names:
            raise ValueError(f"{path}: header {header} is not {names}")
        rows = []
        for line, cells in enumerate(reader, start=2):
            try:
                rows.append(CompiledKernel(*(int(cell) for cell in cells)))
            except (TypeError, ValueError):
                raise ValueError(f"{path}, line {line}: expected {len(names)} integers, got {cells}") from None
        return tuple(rows)


@memoised(maxsize=1)
def _recorded() -> tuple[CompiledKernel, ...]:
    """The shipped record, read once (each target and alignment's table is built from it)."""
    return read_record()


@memoised(maxsize=8)
def _dense(cc: int, alignment: RowAlignment) -> np.ndarray:
    """``(5, 5, 4, 4, 5, 5)`` int64: (registers, stack, shared bytes, loop instructions, preamble instructions) at
    every knob position, missing stages filled.

    A configuration the record lacks (Triton refused it for shared memory on the profile the record was
    compiled for, or, for unaligned rows, it has more than :data:`UNALIGNED_STAGES`) takes the nearest compiled stage count of the same tile and warps, the lower on a tie
    (a refused stage count's lower neighbours compiled: fewer stages need less shared memory). Beyond
    one stage the registers hardly depend on the stage count (``cp.async`` writes shared memory, not
    registers; ``tests/test_compiler_record.py`` bounds the spread); the shared bytes of a filled entry
    are its neighbour's, a lower bound (:func:`schedlab.core.resources.occupancy` takes the larger of
    them and the pipeline's buffers). A tile and warp count the record lacks altogether is refused (the record is
    incomplete: ``python -m schedlab.triton.compiler ... --resume`` completes it).
    """
    sizes = [len(SPACE[k]) for k in _KNOBS]
    table = np.full((*sizes, 5), -1, dtype=np.int64)
    for row in _recorded():
        if row.cc == cc and row.alignment == alignment:
            at = tuple(SPACE[k].index(getattr(row, k)) for k in _KNOBS)
            table[at] = (
                row.registers,
                row.stack_bytes,
                row.shared_bytes,
                row.loop_instructions,
                row.preamble_instructions,
            )
    have = table[..., 0] >= 0
    n_stages = sizes[-1]
    order = [sorted(range(n_stages), key=lambda j, i=i: (abs(j - i), j)) for i in range(n_stages)]
    for tile in np.ndindex(*sizes[:-1]):
        compiled = [j for j in range(n_stages) if have[tile][j]]
        if not compiled:
            raise ValueError(f"{RECORD_PATH}: no compiled kernel for sm_{cc}, {alignment}, at knob positions {tile}")
        for i in range(n_stages):
            if not have[tile][i]:
                table[tile][i] = table[tile][next(j for j in order[i] if j in compiled)]
    table.flags.writeable = False
    return table


def compiled_resources(
    arr: np.ndarray, launch_rules: str, alignment: RowAlignment = ALIGNED
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(registers per thread, stack bytes per thread, shared bytes per block, loop instructions per warp,
    preamble instructions per warp) Triton's compiler reported.

    For an ``(n, 5+)`` config array; the shared bytes are ``metadata.shared``, the pipeline's buffers
    or, where larger, the epilogue's layout conversion of C (which reuses them); the loop instructions
    are the SASS instructions of one iteration of the k-loop, which every warp issues, the preamble
    instructions those before the loop, which every warp issues once.

    ``launch_rules`` is a Triton rule set (:data:`TARGET_OF_RULES`); the configurations' knobs must be
    values of ``SPACE``; ``alignment`` is the shape's :class:`~schedlab.core.shapes.RowAlignment` (an operand
    whose rows are not aligned is loaded through registers every k-step: more registers and instructions,
    fewer shared buffers).

    Examples
    --------
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> arr = config_array([GemmConfig(64, 64, 64, 2, 3, 8), GemmConfig(128, 128, 64, 4, 3, 8)])
    >>> regs, stack, shared, loop, preamble = compiled_resources(arr, "triton-sm90")
    >>> regs.tolist(), stack.tolist(), shared.tolist()
    ([204, 216], [0, 0], [32768, 98304])
    >>> from schedlab.core.shapes import RowAlignment
    >>> regs, stack, shared, loop, preamble = compiled_resources(arr, "triton-sm90", RowAlignment(False, True))
    >>> regs.tolist(), shared.tolist()
    ([...], [...])
    """
    if launch_rules not in TARGET_OF_RULES:
        raise ValueError(f"launch_rules must be one of {tuple(TARGET_OF_RULES)}, got {launch_rules!r}")
    table = _dense(TARGET_OF_RULES[launch_rules], RowAlignment(*map(bool, alignment)))
    at = tuple(np.searchsorted(SPACE[k], arr[:, j]) for j, k in enumerate(_KNOBS))
    found = table[at]
    return found[:, 0], found[:, 1], found[:, 2], found[:, 3], found[:, 4]
