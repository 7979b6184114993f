"""GEMM shapes: the limits the model prices (:func:`check_shape`), and the shapes the lecture studies.

The lecture's four demo shapes and the Llama-3-8B projections.
"""

from __future__ import annotations

from typing import NamedTuple

from schedlab.core.checks import is_integer

#: Largest M and N the model prices. The HBM replay prices a launch order in closed form over its
#: repeating waves (:mod:`schedlab.core.model.hbm`), but it still walks one by one the waves that
#: meet the last, irregular group of rows: up to ``8 ceil(N / 16) / per_wave`` of them, so N bounds
#: its time (``benchmarks/bench_large_shapes.py`` prices all launchable configs of 2**18 x 2**18 x 2**17).
#: M is held to the same limit, so that a shape and its transpose are priced or refused alike.
#: 2**18 = 262144 covers the largest vocabularies (Gemma's 256000) and token batches of real workloads.
MAX_MN = 2**18
#: Largest K the model prices: with :data:`MAX_MN` it keeps every byte count below 2**53 for
#: 2-byte elements, exact in int64 and in float64 (:func:`schedlab.core.model.hbm.check_exact`
#: holds the bound for other element sizes): the replay reads at most ``32 K`` elements per
#: 16 x 16 output tile, ``(2**14)**2 * 32 * 2**17 * 2 = 2**52`` bytes.
MAX_K = 2**17


def check_shape(M, N, K) -> tuple[int, int, int]:
    """Validate a GEMM shape: each of M, N, K a positive integer (not a bool), within the model's limits.

    Raises
    ------
    ValueError
        Naming the dimension, or the limit (:data:`MAX_MN`, :data:`MAX_K`) the shape exceeds.

    Examples
    --------
    >>> check_shape(4096, 4096, 4096)
    (4096, 4096, 4096)
    >>> check_shape(2**20, 2**20, 4096)
    Traceback (most recent call last):
    ...
    ValueError: M = 1048576 is more than MAX_MN = 2**18 (262144) the model prices
    """
    out = []
    for name, value in (("M", M), ("N", N), ("K", K)):
        if not is_integer(value):
            raise ValueError(f"{name} must be a positive integer, got {value!r} ({type(value).__name__})")
        if value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value}")
        out.append(int(value))
    M, N, K = out
    for name, value in (("M", M), ("N", N)):
        if value > MAX_MN:
            raise ValueError(f"{name} = {value} is more than MAX_MN = 2**18 ({MAX_MN}) the model prices")
    if K > MAX_K:
        raise ValueError(f"K = {K} is more than MAX_K = 2**17 ({MAX_K}) the model prices")
    return M, N, K


def as_mnk(shape) -> tuple[int, int, int]:
    """``(M, N, K)`` of a shape record with an ``mnk`` attribute or of a 3-sequence, validated by :func:`check_shape`."""
    try:
        M, N, K = getattr(shape, "mnk", shape)
    except (TypeError, ValueError):
        raise ValueError(f"shape must be (M, N, K), got {shape!r}") from None
    return check_shape(M, N, K)


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
