"""Covers of a sweep over token counts: the fewest configurations such that every ``M`` has one within ``tol``.

:func:`sweep` prices every launchable configuration at every ``M`` of a grid (all ``M`` in one
:func:`schedlab.core.model.evaluate_many`) and records how fast that went; the covers read it:

- :func:`greedy_cover` and :func:`exact_cover` find the fewest configurations such that every ``M``
  has one within ``tol`` (5 %) of its own optimum -- minimum set cover, greedy and by exact
  branch-and-bound search over the candidates that are within ``tol`` somewhere (no ILP solver);
- :func:`interval_cover` does the same with contiguous ``M`` ranges, one configuration each (what a
  dispatcher keyed on ranges of ``M`` needs);
- :func:`power_of_two_cover` is the common ``@triton.autotune`` practice: the optimum of each power
  of two ``M`` reused for every ``M`` up to the next power of two (or, rounding up, for every ``M``
  down to the previous one).

Every ``BM`` is a multiple of 16, so on ``16 j < M <= 16 (j + 1)`` every configuration has the same
number of row tiles and only the real rows grow: :data:`DECODE_MS` holds both ends of each such
interval (the ``16 j + 1`` points are where the padding is worst). Covers are exact *on the grid*.
The buckets chapter's study over the Llama-3-8B projections is :mod:`schedlab.studies.buckets`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_sequence, is_number
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import GemmConfig
from schedlab.core.launch import launchable
from schedlab.core.model import evaluate_many
from schedlab.core.shapes import check_shape

__all__ = [
    "TOLERANCE",
    "DECODE_MS",
    "decode_ms",
    "check_ms",
    "readonly",
    "Sweep",
    "Cover",
    "sweep",
    "greedy_cover",
    "exact_cover",
    "interval_cover",
    "power_of_two_cover",
]


def decode_ms(m_max: int) -> tuple[int, ...]:
    """Decode token counts up to ``m_max``: 1, ``m_max`` and both ends ``16 j + 1``, ``16 (j + 1)`` of each 16-row interval.

    Examples
    --------
    >>> decode_ms(40)
    (1, 16, 17, 32, 33, 40)
    """
    return tuple(sorted({1, m_max} | set(range(16, m_max + 1, 16)) | set(range(17, m_max + 1, 16))))


#: "Within 5 % of its own optimum".
TOLERANCE = 0.05
#: Decode token counts: 1, and both ends ``16 j + 1`` and ``16 (j + 1)`` of every 16-row interval up to 512.
DECODE_MS = decode_ms(512)


def readonly(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only (the records here hold arrays a caller must not change)."""
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class Sweep:
    """Model times of every launchable configuration at every ``M`` of a grid, for one ``(N, K)``.

    ``time_s[i, j]`` is ``configs[j]`` on the GEMM ``Ms[i] x N x K``. ``elapsed_s`` is the wall
    time the evaluation took when it was computed (``nan`` for a hand-built sweep).
    """

    N: int
    K: int
    Ms: tuple[int, ...]
    configs: tuple[GemmConfig, ...]
    time_s: np.ndarray
    elapsed_s: float = field(default=float("nan"), compare=False)

    def __post_init__(self):
        if self.time_s.shape != (len(self.Ms), len(self.configs)):
            raise ValueError(
                f"time_s must have shape (len(Ms), len(configs)) = "
                f"{(len(self.Ms), len(self.configs))}, got {self.time_s.shape}"
            )
        if list(self.Ms) != sorted(set(self.Ms)):
            raise ValueError(f"Ms must be strictly increasing, got {self.Ms}")

    @property
    def best_index(self) -> np.ndarray:
        """Per ``M``, the index of the fastest configuration (the first on ties)."""
        return np.argmin(self.time_s, axis=1)

    @property
    def best_time_s(self) -> np.ndarray:
        """Per ``M``, the optimum's time."""
        return self.time_s.min(axis=1)

    @property
    def optima(self) -> tuple[GemmConfig, ...]:
        """Per ``M``, the fastest configuration."""
        return tuple(self.configs[j] for j in self.best_index)

    @property
    def ratio(self) -> np.ndarray:
        """``time_s`` over each row's optimum."""
        return self.time_s / self.best_time_s[:, None]

    def within(self, tol: float = TOLERANCE) -> np.ndarray:
        """Boolean ``(len(Ms), len(configs))``: the configuration is within ``tol`` of that ``M``'s optimum."""
        return self.time_s <= (1.0 + tol) * self.best_time_s[:, None]

    def segments(self) -> tuple[tuple[int, int, GemmConfig], ...]:
        """Runs of grid ``M`` sharing one optimum, as ``(first M, last M, config)``."""
        out, optima = [], self.optima
        start = 0
        for i in range(1, len(self.Ms) + 1):
            if i == len(self.Ms) or optima[i] != optima[start]:
                out.append((self.Ms[start], self.Ms[i - 1], optima[start]))
                start = i
        return tuple(out)

    @property
    def n_evaluated(self) -> int:
        """Configuration evaluations the sweep holds: ``len(Ms) * len(configs)``."""
        return self.time_s.size

    @property
    def rate(self) -> float:
        """Evaluations per second when the sweep was computed."""
        return self.n_evaluated / self.elapsed_s


def check_ms(Ms) -> tuple[int, ...]:
    Ms = check_sequence(Ms, "Ms", "token counts")
    if not Ms:
        raise ValueError("Ms must hold at least one token count")
    for M in Ms:
        check_shape(M, 1, 1)
    return tuple(sorted(set(int(M) for M in Ms)))


def sweep(N: int, K: int, Ms=DECODE_MS, hw: Hardware | None = None) -> Sweep:
    """Price every launchable configuration at every ``M`` in ``Ms`` on ``M x N x K`` (cached).

    Parameters
    ----------
    N, K : int
        The layer's output features and reduction length.
    Ms : iterable of int
        Token counts; sorted and deduplicated.
    hw : Hardware
        Machine parameters.

    Returns
    -------
    Sweep

    Examples
    --------
    >>> sw = sweep(4096, 4096, Ms=(1, 16, 17))
    >>> sw.time_s.shape
    (3, 3744)
    >>> [c.as_tuple()[:2] for c in sw.optima]
    [(16, 16), (16, 16), (32, 16)]
    """
    N, K = check_shape(1, N, K)[1:]
    return _sweep(N, K, check_ms(Ms), check_hardware(hw))


@memoised(maxsize=32)
def _sweep(N: int, K: int, Ms: tuple[int, ...], hw: Hardware) -> Sweep:
    space = launchable(hw)
    start = time.perf_counter()
    times = evaluate_many([(M, N, K) for M in Ms], space.array, hw)["time_s"]
    elapsed = time.perf_counter() - start
    return Sweep(N=N, K=K, Ms=Ms, configs=space.configs, time_s=times, elapsed_s=elapsed)


@dataclass(frozen=True)
class Cover:
    """A set of configurations serving every ``M`` of a sweep, and what it costs.

    ``choice[i]`` indexes the configuration used at ``Ms[i]``: for a set cover the fastest of
    the set there (a lookup table by ``M``), for bucketings the configuration of ``M``'s bucket.
    ``slowdown[i]`` is its time over ``M``'s own optimum. ``buckets`` are the contiguous
    ``(first M, last M)`` runs that use one configuration.
    """

    method: str
    Ms: tuple[int, ...]
    configs: tuple[GemmConfig, ...]
    choice: tuple[int, ...]
    slowdown: np.ndarray
    tol: float

    @property
    def n_configs(self) -> int:
        """How many distinct configurations the cover uses."""
        return len(self.configs)

    @property
    def worst(self) -> float:
        """Largest slowdown over the grid."""
        return float(self.slowdown.max())

    @property
    def mean(self) -> float:
        """Arithmetic mean slowdown over the grid."""
        return float(self.slowdown.mean())

    @property
    def keeps_all(self) -> bool:
        """Every ``M`` within ``tol`` of its optimum."""
        return bool(np.all(self.slowdown <= 1.0 + self.tol))

    @property
    def buckets(self) -> tuple[tuple[int, int, GemmConfig], ...]:
        """Contiguous runs of grid ``M`` using one configuration: ``(first M, last M, config)``."""
        out, start = [], 0
        for i in range(1, len(self.Ms) + 1):
            if i == len(self.Ms) or self.choice[i] != self.choice[start]:
                out.append((self.Ms[start], self.Ms[i - 1], self.configs[self.choice[start]]))
                start = i
        return tuple(out)


def _set_cover_record(sw: Sweep, method: str, columns, tol: float) -> Cover:
    columns = [int(j) for j in columns]
    times = sw.time_s[:, columns]
    pick = np.argmin(times, axis=1)
    used = sorted(set(pick.tolist()), key=lambda p: sw.Ms[int(np.argmax(pick == p))])  # order of first use
    remap = {p: i for i, p in enumerate(used)}
    slowdown = times[np.arange(len(sw.Ms)), pick] / sw.best_time_s
    return Cover(
        method=method,
        Ms=sw.Ms,
        configs=tuple(sw.configs[columns[p]] for p in used),
        choice=tuple(remap[int(p)] for p in pick),
        slowdown=readonly(slowdown),
        tol=tol,
    )


def _check_tol(tol) -> float:
    if not is_number(tol) or not 0 <= tol < 10:
        raise ValueError(f"tol must be a number in [0, 10), got {tol!r}")
    return float(tol)


def greedy_cover(sw: Sweep, tol: float = TOLERANCE) -> Cover:
    """Greedy set cover: repeatedly take the configuration within ``tol`` at the most uncovered ``M``.

    Ties go to the configuration with the lower mean slowdown over the grid. Greedy is at most
    ``H(len(Ms))`` times the optimum; :func:`exact_cover` tells whether it was optimal.

    Examples
    --------
    >>> g = greedy_cover(sweep(4096, 4096, Ms=(1, 16, 17, 32)))
    >>> g.n_configs, g.keeps_all
    (1, True)
    """
    tol = _check_tol(tol)
    within = sw.within(tol)
    mean_ratio = sw.ratio.mean(axis=0)
    uncovered = np.ones(len(sw.Ms), dtype=bool)
    chosen = []
    while uncovered.any():
        gain = within[uncovered].sum(axis=0)
        top = gain.max()
        ties = np.flatnonzero(gain == top)
        j = int(ties[np.argmin(mean_ratio[ties])])
        chosen.append(j)
        uncovered &= ~within[:, j]
    return _set_cover_record(sw, "greedy", chosen, tol)


def _reduced_columns(within: np.ndarray, score: np.ndarray) -> list[int]:
    """Candidate columns after dropping empty, duplicate and dominated ones (kept: the lowest ``score``)."""
    cand = np.flatnonzero(within.any(axis=0))
    cand = cand[np.argsort(score[cand], kind="stable")]
    masks, keep = {}, []
    for j in cand:  # one column per distinct set of covered rows, the best-scoring one
        key = within[:, j].tobytes()
        if key not in masks:
            masks[key] = j
            keep.append(j)
    cols = within[:, keep].astype(np.float32)
    outside = cols.T @ (1.0 - cols)  # outside[a, b] = rows a covers that b does not
    size = cols.sum(axis=0)
    dominated = ((outside == 0) & (size[None, :] > size[:, None])).any(axis=1)  # a is a strict subset of some b
    return [int(j) for j, d in zip(keep, dominated) if not d]


def exact_cover(sw: Sweep, tol: float = TOLERANCE, max_nodes: int = 200_000) -> Cover | None:
    """Minimum set cover by exact search; ``None`` if the search needs more than ``max_nodes`` nodes.

    Candidates are the configurations within ``tol`` at some ``M``; empty, duplicate and
    dominated ones (covering a strict subset of another's ``M``) are dropped, which cannot
    lose an optimum. Then iterative deepening on the cover size ``k``: branch on the
    configurations covering the uncovered ``M`` with the fewest candidates, pruning when
    ``k`` times the largest remaining coverage cannot cover what is left.

    Examples
    --------
    >>> sw = sweep(4096, 4096, Ms=(1, 16, 17, 32, 33, 64, 65))
    >>> exact_cover(sw).n_configs <= greedy_cover(sw).n_configs
    True
    """
    tol = _check_tol(tol)
    within = sw.within(tol)
    cols = _reduced_columns(within, sw.ratio.mean(axis=0))
    n_rows = len(sw.Ms)
    bits = [int(sum(1 << i for i in np.flatnonzero(within[:, j]))) for j in cols]
    by_row = [[c for c, b in enumerate(bits) if b >> i & 1] for i in range(n_rows)]
    nodes = 0

    def search(uncovered: int, k: int) -> list[int] | None:
        nonlocal nodes
        nodes += 1
        if nodes > max_nodes:
            raise _NodeLimitReached
        if not uncovered:
            return []
        if k == 0:
            return None
        gains = [(b & uncovered).bit_count() for b in bits]
        if k * max(gains) < uncovered.bit_count():
            return None
        rows = [i for i in range(n_rows) if uncovered >> i & 1]
        row = min(rows, key=lambda i: len(by_row[i]))
        for c in sorted(by_row[row], key=lambda c: -gains[c]):
            rest = search(uncovered & ~bits[c], k - 1)
            if rest is not None:
                return [c] + rest
        return None

    everything = (1 << n_rows) - 1
    try:
        for k in range(1, len(cols) + 1):
            found = search(everything, k)
            if found is not None:
                return _set_cover_record(sw, "exact", [cols[c] for c in found], tol)
    except _NodeLimitReached:
        return None
    raise AssertionError("every M has its own optimum within tol, so a cover exists")  # pragma: no cover


class _NodeLimitReached(Exception):
    """Raised inside :func:`exact_cover` when its search passes ``max_nodes`` (not a measurement budget)."""


def interval_cover(sw: Sweep, tol: float = TOLERANCE) -> Cover:
    """Fewest contiguous ``M`` ranges, each served by one configuration within ``tol`` at all its ``M``.

    Left to right, each range is extended while some configuration stays within ``tol`` at
    every ``M`` in it; this greedy is optimal for the number of ranges (a sub-range of a
    feasible range is feasible). The configuration kept for a range is the one with the lowest
    worst slowdown over it. Distinct configurations may be fewer than ranges.

    Examples
    --------
    >>> iv = interval_cover(sweep(4096, 4096, Ms=(1, 16, 17, 32)))
    >>> [(lo, hi) for lo, hi, _ in iv.buckets]
    [(1, 32)]
    """
    tol = _check_tol(tol)
    within = sw.within(tol)
    ratio = sw.ratio
    ranges, i = [], 0
    while i < len(sw.Ms):
        alive = within[i].copy()
        end = i
        while end + 1 < len(sw.Ms) and (alive & within[end + 1]).any():
            end += 1
            alive &= within[end]
        worst = np.where(alive, ratio[i : end + 1].max(axis=0), np.inf)
        ranges.append((i, end, int(np.argmin(worst))))
        i = end + 1
    distinct = list(dict.fromkeys(j for _, _, j in ranges))
    choice = [distinct.index(j) for lo, hi, j in ranges for _ in range(lo, hi + 1)]
    per_m = np.concatenate([np.full(hi - lo + 1, j) for lo, hi, j in ranges])
    slowdown = ratio[np.arange(len(sw.Ms)), per_m]
    return Cover(
        method="intervals",
        Ms=sw.Ms,
        configs=tuple(sw.configs[j] for j in distinct),
        choice=tuple(choice),
        slowdown=readonly(slowdown),
        tol=tol,
    )


def power_of_two_cover(sw: Sweep, tol: float = TOLERANCE, rounding: str = "down") -> Cover:
    """Power-of-two bucketing: each ``M`` uses the optimum tuned at a power of two.

    ``rounding="down"`` (the default) reuses the optimum of ``2^floor(log2 M)`` for every ``M`` up
    to the next power of two; ``rounding="up"`` keys on ``2^ceil(log2 M)`` (``triton.next_power_of_2``),
    the optimum of each power of two serving the ``M`` just below it. That power of two must be
    in the sweep's grid (it is for :data:`DECODE_MS` and :data:`PREFILL_MS`). ``tol`` only sets
    :attr:`Cover.keeps_all`.

    Raises
    ------
    ValueError
        If a needed power of two is not in ``sw.Ms``, or ``rounding`` is not "down" or "up".

    Examples
    --------
    >>> small = GemmConfig(bm=16, bn=16, bk=16, warps=1, stages=1, group=1)
    >>> sw = Sweep(N=1, K=1, Ms=(1, 2, 3, 4), configs=(small, GemmConfig(bm=32, bn=16, bk=16, warps=1, stages=1, group=1)),
    ...            time_s=np.array([[1.0, 2.0], [1.0, 2.0], [3.0, 2.0], [3.0, 2.0]]))
    >>> p = power_of_two_cover(sw)
    >>> p.slowdown.tolist(), p.n_configs
    ([1.0, 1.0, 1.5, 1.0], 2)
    >>> power_of_two_cover(sw, rounding="up").slowdown.tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    tol = _check_tol(tol)
    if rounding not in ("down", "up"):
        raise ValueError(f"rounding must be 'down' or 'up', got {rounding!r}")
    row = {M: i for i, M in enumerate(sw.Ms)}
    best = sw.best_index
    per_m = []
    for M in sw.Ms:
        p = 1 << (M.bit_length() - 1) if rounding == "down" else 1 << (M - 1).bit_length()
        if p not in row:
            raise ValueError(f"power-of-two bucketing of M={M} needs M={p} in the sweep's grid")
        per_m.append(int(best[row[p]]))
    per_m = np.array(per_m)
    distinct = list(dict.fromkeys(per_m.tolist()))
    slowdown = sw.ratio[np.arange(len(sw.Ms)), per_m]
    return Cover(
        method="power-of-two" if rounding == "down" else "power-of-two-up",
        Ms=sw.Ms,
        configs=tuple(sw.configs[j] for j in distinct),
        choice=tuple(distinct.index(j) for j in per_m.tolist()),
        slowdown=readonly(slowdown),
        tol=tol,
    )
