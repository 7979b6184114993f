"""The lecture's analyses, data in and data out: space summary, landscape, shape transfer, sensitivity,
and hardware transfer (the GPU chapter).

The console edition and the book's pages call these functions and only format
what they return, so every number is computed once, here. Over 500 lines because
it holds one short section per demo, each a record beside the function that fills
it, and the pages call them all as ``analysis.<name>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .caching import memoised
from .hardware import PROFILES, Hardware, check_hardware, profile
from .model import evaluate
from .space import (SPACE, GemmConfig, Reason, all_configs, as_mnk, check_sequence, config_array,
                    launch_checks, launchable, reasons)

__all__ = [
    "Shape",
    "LECTURE_SHAPES",
    "LLAMA8B_PROJECTIONS",
    "LLM_TOKENS",
    "llm_shapes",
    "study_shapes",
    "QUANTILES",
    "SpaceSummary",
    "Landscape",
    "TieGroup",
    "TIE_RTOL",
    "LATENCY_PAIRS",
    "Ties",
    "Step",
    "Transfer",
    "Sensitivity",
    "space_summary",
    "landscape",
    "transfer",
    "sensitivity",
    "HardwareTransfer",
    "hardware_transfer",
    "resolve_gpu",
    "tflops",
    "as_mnk",
]

#: Percentiles of time/best that :func:`landscape` reports.
QUANTILES = (10, 25, 50, 75, 90)


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


def tflops(flop: float, time_s):
    """Achieved TFLOP/s: ``flop / time_s / 1e12``."""
    return flop / np.asarray(time_s) / 1e12


# --- demo 1: the space ------------------------------------------------------------------


@dataclass(frozen=True)
class SpaceSummary:
    """How many configurations there are, how many can launch, and why the others cannot."""

    n_configs: int
    n_launchable: int
    reason_counts: tuple[tuple[Reason, int], ...]  # most frequent first; a config may count under several
    n_by_failures: dict[int, int]  # number of reasons -> configs

    @property
    def launchable_fraction(self) -> float:
        return self.n_launchable / self.n_configs


def space_summary(hw: Hardware | None = None) -> SpaceSummary:
    """Count the space and the pruning reasons.

    Examples
    --------
    >>> s = space_summary()
    >>> s.n_configs, s.n_launchable
    (6000, 3744)
    >>> [(r.code, n) for r, n in s.reason_counts]
    [('registers', 1200), ('mma', 900), ('smem', 384)]
    """
    hw = check_hardware(hw)
    arr = config_array(all_configs())
    checks = launch_checks(arr, hw)
    failed = np.stack(list(checks.values()), axis=1)
    # one example config per code gives the code's message for this hardware
    messages = {}
    for j, code in enumerate(checks):
        example = all_configs()[int(np.argmax(failed[:, j]))]
        messages[code] = next(r for r in reasons(example, hw) if r.code == code)
    counts = sorted(((messages[code], int(failed[:, j].sum())) for j, code in enumerate(checks)), key=lambda rc: -rc[1])
    n_fail = failed.sum(axis=1)
    return SpaceSummary(
        n_configs=len(arr),
        n_launchable=int((n_fail == 0).sum()),
        reason_counts=tuple((r, n) for r, n in counts if n),
        n_by_failures={int(k): int((n_fail == k).sum()) for k in np.unique(n_fail)},
    )


# --- demo 2: the landscape ---------------------------------------------------------------

#: Relative tolerance under which two model times are one tie: different knob values that give
#: the same time up to rounding (1 ulp apart when, say, BK doubles and the k-steps halve).
TIE_RTOL = 1e-9


@dataclass(frozen=True)
class TieGroup:
    """Configurations with the same model time on one shape (an exact tie, up to ``TIE_RTOL``).

    ``configs`` keep ``SPACE`` order, so ``configs[0]`` is the one ``np.argmin`` picks.
    """

    configs: tuple[GemmConfig, ...]
    time_s: float
    tflops: float
    ratio: float

    @property
    def first(self) -> GemmConfig:
        return self.configs[0]

    def varying(self) -> tuple[tuple[tuple[str, ...], tuple[tuple[int, ...], ...]], ...]:
        """The tied knob values, factored: ``((knobs, values), ...)`` for the knobs that vary.

        A knob whose values combine freely with the rest is its own factor (``(("group",),
        ((1,), (4,), (8,)))``); knobs that only tie in some combinations stay together as one
        factor of value tuples (``(("bk", "stages"), ((32, 4), (32, 5), ...))``). The product of the
        factors, with the constant knobs, is exactly ``configs``.

        Examples
        --------
        >>> g = landscape((4096, 4096, 4096)).tie_groups(1)[0]
        >>> len(g.configs)
        15
        >>> g.varying()
        ((('bk', 'stages'), ((32, 4), (32, 5), (64, 3), (64, 4), (128, 2))), (('group',), ((1,), (4,), (8,))))
        """
        rows = {c.as_tuple() for c in self.configs}
        knobs = tuple(SPACE)
        joint = [j for j in range(len(knobs)) if len({r[j] for r in rows}) > 1]
        factors = []
        changed = True
        while changed and len(joint) > 1:
            changed = False
            for j in joint:
                rest = [i for i in joint if i != j]
                rest_rows = {tuple(r[i] for i in rest) for r in rows}
                values = sorted({r[j] for r in rows})
                if len(values) * len(rest_rows) == len({tuple(r[i] for i in joint) for r in rows}):
                    factors.append(((j,), tuple((v,) for v in values)))
                    joint = rest
                    changed = True
                    break
        if joint:
            factors.append((tuple(joint), tuple(sorted({tuple(r[i] for i in joint) for r in rows}))))
        factors.sort(key=lambda f: f[0][0])
        return tuple((tuple(knobs[i] for i in idx), values) for idx, values in factors)


#: (BK, stages) pairs that hide the memory latency equally well on the square GEMM (seed claim C3).
LATENCY_PAIRS = ((32, 4), (32, 5), (64, 3), (128, 2))


class Ties(NamedTuple):
    """Knobs that do not move a landscape's time (see :meth:`Landscape.ties`)."""

    pair_ratios: tuple[tuple[tuple[int, int], float], ...]  # ((bk, stages), time / best) around the best
    group_spread: float  # the most GROUP_M changes a time: max over the other knobs of slowest / fastest
    n_tiles: int  # distinct settings of the five knobs other than GROUP_M

    @property
    def worst_pair(self) -> float:
        """The slowest of :attr:`pair_ratios`, over the best time."""
        return max(ratio for _, ratio in self.pair_ratios)


@dataclass(frozen=True)
class Landscape:
    """Model times of every launchable configuration on one shape.

    ``configs[i]`` takes ``time_s[i]``; ``ratio = time_s / best_time_s``.
    """

    shape: tuple[int, int, int]
    configs: tuple[GemmConfig, ...]
    time_s: np.ndarray
    hw: Hardware
    index: dict = field(repr=False, compare=False)  # config -> position in configs

    @property
    def best_index(self) -> int:
        """Index of the fastest config; the first in ``SPACE`` order on ties (as ``np.argmin``)."""
        return int(np.argmin(self.time_s))

    @property
    def best(self) -> GemmConfig:
        return self.configs[self.best_index]

    @property
    def best_time_s(self) -> float:
        return float(self.time_s[self.best_index])

    @property
    def best_tflops(self) -> float:
        return float(tflops(2 * np.prod(self.shape, dtype=float), self.best_time_s))

    @property
    def ratio(self) -> np.ndarray:
        return self.time_s / self.best_time_s

    def n_within(self, factor: float) -> int:
        """How many configs run within ``factor`` x the best time (``1.05`` for 5 %)."""
        return int((self.time_s <= factor * self.best_time_s).sum())

    def tie_groups(self, k: int | None = None, within: float | None = None) -> list[TieGroup]:
        """Distinct model times, fastest first, each with every configuration that takes it.

        Parameters
        ----------
        k : int, optional
            Return only the ``k`` fastest groups.
        within : float, optional
            Return only the groups within ``within`` x the best time (``1.05`` for 5 %).

        Notes
        -----
        Times within a relative ``TIE_RTOL`` of a group's fastest member join that group. The
        model takes a max of terms, so knobs that only change a term below the bottleneck give
        exactly the same time: ``n_within(1.05)`` configs may be far fewer distinct times.

        Examples
        --------
        >>> land = landscape((4096, 4096, 4096))
        >>> best, runner_up = land.tie_groups(2)
        >>> len(best.configs), round(runner_up.ratio, 2)
        (15, 1.23)
        >>> len(land.tie_groups(within=1.05))
        1
        """
        if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
            raise ValueError(f"k must be a positive integer, got {k!r}")
        if within is not None and (isinstance(within, bool) or not isinstance(within, (int, float, np.floating))
                                   or not within >= 1):
            raise ValueError(f"within must be a factor >= 1 (1.05 for 5 %), got {within!r}")
        order = np.argsort(self.time_s, kind="stable")
        times = self.time_s[order]
        flop = 2 * np.prod(self.shape, dtype=float)
        groups: list[TieGroup] = []
        start = 0
        while start < len(order) and np.isfinite(times[start]):
            if k is not None and len(groups) == k:
                break
            if within is not None and times[start] > within * self.best_time_s:
                break
            stop = start + int(np.searchsorted(times[start:], times[start] * (1 + TIE_RTOL), side="right"))
            members = tuple(self.configs[i] for i in sorted(order[start:stop]))
            t = float(times[start])
            groups.append(TieGroup(configs=members, time_s=t, tflops=float(tflops(flop, t)),
                                   ratio=t / self.best_time_s))
            start = stop
        return groups

    def ties(self, pairs=LATENCY_PAIRS) -> Ties:
        """The best configuration with each ``(bk, stages)`` of ``pairs``, and how much GROUP_M matters.

        Examples
        --------
        >>> t = landscape((4096, 4096, 4096)).ties()
        >>> round(t.worst_pair, 3), t.group_spread, t.n_tiles
        (1.0, 1.0, 1248)
        """
        best = self.best
        ratios = tuple(((bk, st), self.time_of(GemmConfig(best.bm, best.bn, bk, best.warps, st, best.group))
                        / self.best_time_s) for bk, st in pairs)
        by_tile: dict[tuple, list[float]] = {}
        for c, t in zip(self.configs, self.time_s):
            by_tile.setdefault(c.as_tuple()[:5], []).append(t)
        spread = max(max(ts) / min(ts) for ts in by_tile.values())
        return Ties(pair_ratios=ratios, group_spread=float(spread), n_tiles=len(by_tile))

    def quantiles(self, q=QUANTILES) -> dict[int, float]:
        """Percentiles of time/best over the launchable configs."""
        return {int(p): float(v) for p, v in zip(q, np.percentile(self.ratio, q))}

    def top(self, k: int = 6) -> list[tuple[GemmConfig, float, float, float]]:
        """The ``k`` fastest as ``(config, time_s, tflops, time/best)``, fastest first (stable on ties)."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        order = np.argsort(self.time_s, kind="stable")[:k]
        flop = 2 * np.prod(self.shape, dtype=float)
        return [(self.configs[i], float(self.time_s[i]), float(tflops(flop, self.time_s[i])), float(self.ratio[i]))
                for i in order]

    def time_of(self, cfg: GemmConfig) -> float:
        """Model time of ``cfg`` on this shape; ``inf`` if it cannot launch."""
        i = self.index.get(cfg)
        return np.inf if i is None else float(self.time_s[i])


def landscape(shape, hw: Hardware | None = None) -> Landscape:
    """Every launchable configuration's model time on ``shape`` (cached).

    Examples
    --------
    >>> land = landscape((4096, 4096, 4096))
    >>> len(land.configs), land.best.as_tuple()
    (3744, (256, 128, 32, 8, 4, 1))
    """
    return _landscape(as_mnk(shape), check_hardware(hw))


@memoised(maxsize=256)
def _landscape(mnk: tuple[int, int, int], hw: Hardware) -> Landscape:
    space = launchable(hw)
    time_s = evaluate(space.array, *mnk, hw).time_s
    time_s.flags.writeable = False
    return Landscape(shape=mnk, configs=space.configs, time_s=time_s, hw=hw, index=space.index)


# --- demo 3: shape transfer --------------------------------------------------------------


@dataclass(frozen=True)
class Transfer:
    """Each shape's optimum, and what it costs on every other shape.

    ``matrix[i, j]`` is the time of shape ``i``'s optimum on shape ``j`` over shape ``j``'s best.
    """

    shapes: tuple
    optima: tuple[GemmConfig, ...]
    best_time_s: np.ndarray
    best_tflops: np.ndarray
    matrix: np.ndarray


def transfer(shapes=LECTURE_SHAPES, hw: Hardware | None = None) -> Transfer:
    """Optima per shape and the transfer matrix.

    Examples
    --------
    >>> t = transfer()
    >>> [c.as_tuple()[:2] for c in t.optima]
    [(256, 128), (256, 128), (256, 128), (16, 16)]
    """
    shapes = check_sequence(shapes, "shapes", "(M, N, K)")
    if not shapes:
        raise ValueError("shapes must name at least one (M, N, K)")
    lands = [landscape(as_mnk(s), hw) for s in shapes]
    optima = tuple(land.best for land in lands)
    matrix = np.array([[land_b.time_of(opt) / land_b.best_time_s for land_b in lands] for opt in optima])
    return Transfer(
        shapes=shapes,
        optima=optima,
        best_time_s=np.array([land.best_time_s for land in lands]),
        best_tflops=np.array([land.best_tflops for land in lands]),
        matrix=matrix,
    )


# --- demo 4: one knob at a time ----------------------------------------------------------


class Step(NamedTuple):
    """One knob moved from the base: its new ``value`` and ``ratio`` = time / base time."""

    value: int
    ratio: float


@dataclass(frozen=True)
class Sensitivity:
    """Time/base for every value of every knob, the other knobs held at ``base``.

    ``ratios[knob]`` is a tuple of ``(value, time/base)`` in ``SPACE`` order, ``inf`` where
    the changed config cannot launch.
    """

    shape: tuple[int, int, int]
    base: GemmConfig
    base_time_s: float
    ratios: dict[str, tuple[tuple[int, float], ...]]

    def step_down(self, knob: str, steps: int = 1) -> Step | None:
        """``knob`` ``steps`` values below the base's in ``SPACE`` (``None`` below the smallest).

        Examples
        --------
        >>> s = sensitivity((4096, 4096, 4096))
        >>> s.step_down("bm").value, round(s.step_down("bm").ratio, 2), s.step_down("warps", 4)
        (128, 1.48, None)
        """
        if knob not in SPACE:
            raise ValueError(f"knob must be one of {tuple(SPACE)}, got {knob!r}")
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
            raise ValueError(f"steps must be a positive integer, got {steps!r}")
        i = SPACE[knob].index(getattr(self.base, knob)) - int(steps)
        return Step(*self.ratios[knob][i]) if i >= 0 else None


def sensitivity(shape, base: GemmConfig | None = None, hw: Hardware | None = None) -> Sensitivity:
    """Change one knob at a time around ``base`` (default: the shape's optimum).

    Examples
    --------
    >>> s = sensitivity((4096, 4096, 4096))
    >>> s.ratios["warps"]
    ((1, inf), (2, inf), (4, inf), (8, 1.0))
    """
    mnk = as_mnk(shape)
    if base is not None and not isinstance(base, GemmConfig):
        raise ValueError(f"base must be a GemmConfig or None, got {base!r} ({type(base).__name__})")
    land = landscape(mnk, hw)
    base = land.best if base is None else base
    values = base.as_tuple()
    rows, cells = [], []
    for j, knob in enumerate(SPACE):
        for v in SPACE[knob]:
            rows.append(values[:j] + (v,) + values[j + 1:])
            cells.append((knob, v))
    time_s = evaluate(np.array(rows), *mnk, hw).time_s
    base_time = float(evaluate([base], *mnk, hw).time_s[0])
    if not np.isfinite(base_time):
        raise ValueError(f"base config {values} cannot launch")
    ratios: dict[str, list] = {k: [] for k in SPACE}
    for (knob, v), t in zip(cells, time_s):
        ratios[knob].append((v, float(t / base_time)))
    return Sensitivity(shape=mnk, base=base, base_time_s=base_time, ratios={k: tuple(v) for k, v in ratios.items()})


# --- another GPU: hardware transfer -------------------------------------------------------------


@dataclass(frozen=True)
class HardwareTransfer:
    """Each GPU's optimum on one shape, and what it costs on every other GPU.

    ``matrix[i, j]`` is the time of GPU ``i``'s optimum run on GPU ``j`` over GPU ``j``'s own
    best time: 1 on the diagonal, ``inf`` where GPU ``i``'s optimum cannot launch on GPU ``j``.
    """

    shape: tuple[int, int, int]
    gpus: tuple[str, ...]
    hardware: tuple[Hardware, ...]
    optima: tuple[GemmConfig, ...]
    best_time_s: np.ndarray
    best_tflops: np.ndarray
    matrix: np.ndarray


def resolve_gpu(gpu) -> tuple[str, Hardware]:
    """``(label, machine)`` of a profile name (:func:`~schedlab.hardware.profile`) or a :class:`Hardware` (its name).

    Examples
    --------
    >>> resolve_gpu("a100-sxm4")[1].n_sm, resolve_gpu(PROFILES["a100-sxm4"])[0]
    (108, 'A100 SXM4 80GB')
    """
    if isinstance(gpu, Hardware):
        return gpu.name, gpu
    if isinstance(gpu, str):
        return gpu, profile(gpu)
    raise TypeError(f"gpus must hold profile names {tuple(PROFILES)} or Hardware, got {gpu!r} ({type(gpu).__name__})")


def hardware_transfer(shape, gpus=tuple(PROFILES)) -> HardwareTransfer:
    """Tune ``shape`` on every GPU and run each GPU's optimum on every other one.

    Parameters
    ----------
    shape : Shape or (M, N, K)
        One GEMM shape.
    gpus : sequence of str or Hardware
        Profile names from :data:`~schedlab.hardware.PROFILES` (default: all of them) or machines.

    Examples
    --------
    >>> t = hardware_transfer((4096, 4096, 4096), ["h100-lecture", "a100-sxm4"])
    >>> t.gpus, [c.as_tuple() for c in t.optima]
    (('h100-lecture', 'a100-sxm4'), [(256, 128, 32, 8, 4, 1), (128, 128, 16, 8, 4, 1)])
    >>> t.matrix.round(2).tolist()  # the A100's pick is 1.76 x slower than the best on the H100
    [[1.0, 1.0], [1.76, 1.0]]
    """
    mnk = as_mnk(shape)
    pairs = [resolve_gpu(g) for g in check_sequence(gpus, "gpus", "profile names or Hardware")]
    if not pairs:
        raise ValueError("gpus must name at least one GPU")
    labels = tuple(label for label, _hw in pairs)
    if len(set(labels)) != len(labels):
        raise ValueError(f"gpus must be distinct, got {labels}")
    lands = [landscape(mnk, hw) for _label, hw in pairs]
    optima = tuple(land.best for land in lands)
    matrix = np.array([[land.time_of(opt) / land.best_time_s for land in lands] for opt in optima])
    return HardwareTransfer(
        shape=mnk,
        gpus=labels,
        hardware=tuple(hw for _label, hw in pairs),
        optima=optima,
        best_time_s=np.array([land.best_time_s for land in lands]),
        best_tflops=np.array([land.best_tflops for land in lands]),
        matrix=matrix,
    )

