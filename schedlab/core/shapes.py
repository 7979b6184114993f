"""The GEMM shapes the lecture studies: its four demo shapes and the Llama-3-8B projections."""

from __future__ import annotations

from typing import NamedTuple


class Shape(NamedTuple):
    """A GEMM shape ``C[M, N] = A[M, K] @ B[K, N]`` with a Chinese description."""

    M: int
    N: int
    K: int
    name: str
    short: str

    @property
    def mnk(self) -> tuple[int, int, int]:
        return (self.M, self.N, self.K)

    @property
    def flop(self) -> int:
        """``2 M N K`` floating-point operations."""
        return 2 * self.M * self.N * self.K


#: The four shapes of the lecture (seed script, demo 3).
LECTURE_SHAPES = (
    Shape(4096, 4096, 4096, "方阵 4096³（大 GEMM）", "方阵 4096³"),
    Shape(512, 14336, 4096, "prefill 512 个 token × Llama-8B 的 up 投影", "prefill 512"),
    Shape(2048, 2048, 512, "小的方阵（K 短）", "小方阵 K=512"),
    Shape(16, 4096, 4096, "decode 批 16 × 4096² 的投影", "decode 16"),
)


#: The four linear layers of a Llama-3-8B block as (name, N, K): hidden 4096, 32 query and
#: 8 key/value heads of 128 (QKV: N = 4096 + 2 * 1024), MLP 14336 with gate and up fused.
LLAMA8B_PROJECTIONS = (("QKV", 6144, 4096), ("O", 4096, 4096), ("gate/up", 28672, 4096), ("down", 4096, 14336))
#: Token counts M: decode at batch 1, 16 and 64; prefill of 512 and 4096 tokens.
LLM_TOKENS = (1, 16, 64, 512, 4096)


def llm_shapes(tokens=LLM_TOKENS) -> tuple[Shape, ...]:
    """Every Llama-3-8B projection at every token count ``M``.

    Examples
    --------
    >>> shapes = llm_shapes()
    >>> len(shapes), shapes[0].mnk, shapes[0].short
    (20, (1, 6144, 4096), 'QKV M=1')
    """
    out = []
    for M in tokens:
        phase = "decode 批" if M <= 64 else "prefill"
        for name, N, K in LLAMA8B_PROJECTIONS:
            out.append(Shape(M, N, K, f"{phase} {M} × Llama-8B 的 {name} 投影", f"{name} M={M}"))
    return tuple(out)


def study_shapes() -> tuple[Shape, ...]:
    """The shapes of the search and learned-model studies, each ``(M, N, K)`` once (22).

    The 20 :func:`llm_shapes` in their order, then the lecture shapes that are not among them,
    ``512 x 14336 x 4096`` and ``2048 x 2048 x 512``. The lecture's 4096^3 and decode-16 are the
    O projection at ``M = 4096`` and ``16``: they stand in that place under their lecture names.

    Examples
    --------
    >>> shapes = study_shapes()
    >>> len(shapes), len({s.mnk for s in shapes}), shapes[0].short, shapes[-1].mnk
    (22, 22, 'QKV M=1', (2048, 2048, 512))
    >>> [s.short for s in shapes if s.mnk in {(16, 4096, 4096), (4096, 4096, 4096)}]
    ['decode 16', '方阵 4096³']
    """
    lecture = {s.mnk: s for s in LECTURE_SHAPES}
    return tuple(lecture.pop(s.mnk, s) for s in llm_shapes()) + tuple(lecture.values())
