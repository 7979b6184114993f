"""GEMM shapes: the check of what the model prices (:func:`check_shape`), and the shapes the lecture studies.

The lecture's four demo shapes and the Llama-3-8B projections, as data: their Chinese names
are in :mod:`schedlab.render.labels`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from schedlab.core.checks import is_integer

#: The largest count the model holds: its counts (blocks, waves, the HBM bytes the launch order replay
#: sums) are int64, and :func:`shape_bytes_bound` bounds the largest of them.
MAX_COUNT = 2**63 - 1


def shape_bytes_bound(M: int, N: int, K: int, bytes_per_element: int = 2) -> int:
    """An upper bound on every byte count the model makes of an ``M x N x K`` GEMM (Python integers).

    The HBM replay sums, over the waves, the panels each wave touches: at most ``32 K`` operand
    elements per 16 x 16 output tile (a 16-row A panel and a 16-column B panel, ``K`` deep), plus
    ``M N`` for C; every other count (blocks, waves, k-steps, their products) is smaller.

    Examples
    --------
    >>> shape_bytes_bound(4096, 4096, 4096) == (256 * 256 * 32 * 4096 + 4096**2) * 2
    True
    """
    return (-(-M // 16) * -(-N // 16) * 32 * K + M * N) * bytes_per_element


def check_shape(M, N, K) -> tuple[int, int, int]:
    """Validate a GEMM shape: each of M, N, K a positive integer (not a bool), its counts within int64.

    Any shape is priced whose :func:`shape_bytes_bound` (2-byte elements) is at most
    :data:`MAX_COUNT`: K up to 33,554,423 on 2**20 x 2**20 and 2,199,023,255,543 on 4096 x 4096;
    M and N up to 2**30 at K = 16.

    Raises
    ------
    ValueError
        Naming the dimension: one that is not a positive integer, or, when the counts would
        overflow, the largest of the three, with the most it could be with the other two as given.

    Examples
    --------
    >>> check_shape(4096, 4096, 4096)
    (4096, 4096, 4096)
    >>> check_shape(2**20, 2**20, 2**30)
    Traceback (most recent call last):
    ...
    ValueError: K = 1073741824 is more than 33554423, the largest K the model prices with M = 1048576 and N = 1048576 (its byte counts would overflow 64-bit integers)
    """
    out = []
    for name, value in (("M", M), ("N", N), ("K", K)):
        if not is_integer(value):
            raise ValueError(f"{name} must be a positive integer, got {value!r} ({type(value).__name__})")
        if value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value}")
        out.append(int(value))
    if shape_bytes_bound(*out) > MAX_COUNT:
        j = max(range(3), key=lambda i: out[i])  # the largest dimension, the first of equals
        lo, hi = 0, out[j]  # the largest value of dimension j that fits, with the other two as given
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if shape_bytes_bound(*(mid if i == j else out[i] for i in range(3))) <= MAX_COUNT:
                lo = mid
            else:
                hi = mid - 1
        names = "MNK"
        others = " and ".join(f"{names[i]} = {out[i]}" for i in range(3) if i != j)
        why = "its byte counts would overflow 64-bit integers"
        if not lo:
            raise ValueError(f"{names[j]} = {out[j]}: the model prices no {names[j]} with {others} ({why})")
        raise ValueError(
            f"{names[j]} = {out[j]} is more than {lo}, the largest {names[j]} the model prices with {others} ({why})"
        )
    return tuple(out)


def as_mnk(shape) -> tuple[int, int, int]:
    """``(M, N, K)`` of a shape record with an ``mnk`` attribute or of a 3-sequence, validated by :func:`check_shape`."""
    try:
        M, N, K = getattr(shape, "mnk", shape)
    except (TypeError, ValueError):
        raise ValueError(f"shape must be (M, N, K), got {shape!r}") from None
    return check_shape(M, N, K)


class RowAlignment(NamedTuple):
    """Whether a Triton kernel can prove that the rows of A and of B start on 16-element boundaries.

    ``k_aligned``: A's rows (row stride ``K``, row-major ``M x K``); ``n_aligned``: B's and C's rows (row stride
    ``N``). Triton's JIT specialises every integer argument that is a multiple of 16 (``tt.divisibility = 16``,
    ``specialize_impl`` in ``python/triton/runtime/jit.py``) and learns nothing of any other, so a kernel
    whose strides are arguments (tutorial 03's, a ``triton.autotune`` user's) sees aligned rows exactly when
    the dimension is a multiple of 16. An unaligned operand's loads are 2 bytes wide, below ``cp.async``'s 4,
    so the pipeliner cannot copy it asynchronously (``canBeConvertedToAsyncLoad``): it is loaded into
    registers each k-step and kept in one shared buffer (:func:`schedlab.core.resources.pipeline_smem_bytes`).
    ``M`` plays no part: A's rows run along ``K``. (Compiling tutorial 03 for sm_90 without ``M``'s
    specialisation changes at most a few registers, e.g. 174 -> 194 for 128 x 128 x 32 with 4 warps and 3 stages,
    and no loop instruction or shared byte: not modelled.) A kernel whose strides are constants (Inductor's
    mm template with static shapes) knows more: see :data:`STRIDES`.
    """

    k_aligned: bool
    n_aligned: bool


#: Both operands' rows aligned: every shape whose N and K are multiples of 16.
ALIGNED = RowAlignment(True, True)

#: What a kernel knows of its operands' row strides, which decides their :class:`RowAlignment`.
#:
#: - ``"runtime"``: the strides are kernel arguments (tutorial 03's kernel, a ``triton.autotune`` user's,
#:   Inductor's with dynamic shapes). Triton learns only whether each is a multiple of 16: a row is aligned
#:   exactly when its dimension is.
#: - ``"constant"``: the strides are compiled in (Inductor's mm template with static shapes writes
#:   ``stride_am = 200``). The compiler's axis analysis then knows a row starts at a multiple of the stride's
#:   largest power-of-two factor, and ``canBeConvertedToAsyncLoad`` copies asynchronously any load of at least
#:   32 bits: only a dimension whose rows are not a multiple of 4 bytes (an odd one in FP16) is loaded element
#:   by element. An even dimension that is not a multiple of 8 copies 4 or 8 bytes at a time; it is priced as
#:   aligned (the compiler record holds the 16-byte copies: a lower bound on its loop).
STRIDES = ("runtime", "constant")


def row_alignment(M, N, K, hw=None, strides: str = "runtime") -> RowAlignment:
    """The :class:`RowAlignment` Triton's specialisation gives an ``M x N x K`` GEMM with contiguous operands.

    ``M, N, K`` are integers or integer arrays (several shapes, which must then share one alignment: the
    model prices each alignment apart). Given a machine ``hw`` (:class:`~schedlab.core.hardware.Hardware`)
    whose launch rules are the seed lecture's, :data:`ALIGNED` for every shape: the seed's account of a
    kernel knows no alignment. ``strides`` (:data:`STRIDES`) is what the kernel knows of its strides:
    arguments (``"runtime"``, the default) or constants (``"constant"``).

    Raises
    ------
    ValueError
        If the shapes' rows are aligned differently.

    Examples
    --------
    >>> row_alignment(4096, 4096, 4096) == ALIGNED
    True
    >>> row_alignment(4096, 50257, 200)
    RowAlignment(k_aligned=False, n_aligned=False)
    >>> row_alignment(4096, 50257, 200, strides="constant")  # 200 is even, 50257 odd
    RowAlignment(k_aligned=True, n_aligned=False)
    """
    aligned = row_alignments(M, N, K, hw, strides).reshape(-1, 2)
    if (aligned != aligned[0]).any():
        raise ValueError("the shapes' rows are aligned differently (N or K a multiple of 16 in some, not in others)")
    return RowAlignment(*map(bool, aligned[0]))


def check_strides(strides) -> str:
    """``strides`` if it is one of :data:`STRIDES`; else a ``ValueError`` that names them."""
    if strides not in STRIDES:
        raise ValueError(f"strides must be one of {', '.join(STRIDES)}, got {strides!r}")
    return strides


def row_alignments(M, N, K, hw=None, strides: str = "runtime") -> np.ndarray:
    """Each shape's :class:`RowAlignment`, vectorised: a bool array of the shapes' broadcast shape plus a last
    axis ``(k_aligned, n_aligned)``.

    The rule of :func:`row_alignment`, for shapes whose alignments may differ: under ``strides="runtime"``
    a dimension is aligned when it is a multiple of 16, under ``"constant"`` when its rows are a multiple of
    4 bytes (``hw.bytes_per_element``, FP16's 2 without ``hw``); every shape :data:`ALIGNED` under the seed
    lecture's launch rules.

    Raises
    ------
    ValueError
        If ``strides`` is not one of :data:`STRIDES`.

    Examples
    --------
    >>> row_alignments([4096, 16, 16], [4096, 50257, 50272], [4096, 200, 200]).tolist()
    [[True, True], [False, False], [False, True]]
    >>> row_alignments([4096, 16, 16], [4096, 50257, 50272], [4096, 200, 200], strides="constant").tolist()
    [[True, True], [True, False], [True, True]]
    """
    check_strides(strides)
    K, N = np.broadcast_arrays(np.asarray(K), np.asarray(N), np.asarray(M))[:2]
    if hw is not None and hw.launch_rules == "seed":
        return np.ones(K.shape + (2,), dtype=bool)
    if strides == "runtime":
        return np.stack([K % 16 == 0, N % 16 == 0], axis=-1)
    row_bytes = 2 if hw is None else hw.bytes_per_element
    return np.stack([K * row_bytes % 4 == 0, N * row_bytes % 4 == 0], axis=-1)


class Shape(NamedTuple):
    """A GEMM shape ``C[M, N] = A[M, K] @ B[K, N]`` with a plain identifier.

    ``key`` says which shape of the lecture it is (``"square"``, ``"decode16"``, a Llama
    projection's name such as ``"QKV"``); its Chinese names are
    :func:`schedlab.render.labels.shape_name` and :func:`~schedlab.render.labels.shape_short`.
    """

    M: int
    N: int
    K: int
    key: str

    @property
    def mnk(self) -> tuple[int, int, int]:
        return (self.M, self.N, self.K)

    @property
    def flop(self) -> int:
        """``2 M N K`` floating-point operations."""
        return 2 * self.M * self.N * self.K


#: The four shapes of the lecture (seed script, demo 3).
LECTURE_SHAPES = (
    Shape(4096, 4096, 4096, "square"),
    Shape(512, 14336, 4096, "prefill512"),
    Shape(2048, 2048, 512, "small-k"),
    Shape(16, 4096, 4096, "decode16"),
)


#: The four linear layers of a Llama-3-8B block as (name, N, K): hidden 4096, 32 query and
#: 8 key/value heads of 128 (QKV: N = 4096 + 2 * 1024), MLP 14336 with gate and up fused.
LLAMA8B_PROJECTIONS = (("QKV", 6144, 4096), ("O", 4096, 4096), ("gate/up", 28672, 4096), ("down", 4096, 14336))
#: Token counts M: decode at batch 1, 16 and 64; prefill of 512 and 4096 tokens.
LLM_TOKENS = (1, 16, 64, 512, 4096)


def llm_shapes(tokens=LLM_TOKENS) -> tuple[Shape, ...]:
    """Every Llama-3-8B projection at every token count ``M``, keyed by the projection's name.

    Examples
    --------
    >>> shapes = llm_shapes()
    >>> len(shapes), shapes[0]
    (20, Shape(M=1, N=6144, K=4096, key='QKV'))
    """
    return tuple(Shape(M, N, K, name) for M in tokens for name, N, K in LLAMA8B_PROJECTIONS)


def study_shapes() -> tuple[Shape, ...]:
    """The shapes of the search and learned-model studies, each ``(M, N, K)`` once (22).

    The 20 :func:`llm_shapes` in their order, then the lecture shapes that are not among them,
    ``512 x 14336 x 4096`` and ``2048 x 2048 x 512``. The lecture's 4096^3 and decode-16 are the
    O projection at ``M = 4096`` and ``16``: they stand in that place under their lecture keys.

    Examples
    --------
    >>> shapes = study_shapes()
    >>> len(shapes), len({s.mnk for s in shapes}), shapes[0].key, shapes[-1].mnk
    (22, 22, 'QKV', (2048, 2048, 512))
    >>> [s.key for s in shapes if s.mnk in {(16, 4096, 4096), (4096, 4096, 4096)}]
    ['decode16', 'square']
    """
    lecture = {s.mnk: s for s in LECTURE_SHAPES}
    return tuple(lecture.pop(s.mnk, s) for s in llm_shapes()) + tuple(lecture.values())
