"""The pricing engine: :func:`evaluate` prices configurations on one shape, :func:`evaluate_many` on many.

Every path goes through :func:`_price`: it takes the on-chip terms of
:func:`~schedlab.core.model.terms.on_chip_terms`, the HBM term of
:func:`~schedlab.core.model.hbm.hbm_term` and combines them with
:func:`~schedlab.core.model.terms.kernel_time`; :func:`gemm_time` and :func:`explain` are thin
wrappers over :func:`evaluate`, so the scalar and vector paths agree exactly. Work is shared among
configurations (:class:`_Groups`): the on-chip terms once per ``(bm, bn, bk, warps, stages)``, the HBM
replay once per launch order ``(bm, bn, group, per_wave)`` and shape; :func:`evaluate_many` prices
shapes in chunks of at most :data:`MANY_CHUNK_CELLS` cells.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_sequence
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import GemmConfig, config_array
from schedlab.core.launch import launchable_mask, reasons
from schedlab.core.model.hbm import check_exact, hbm_bound_s, hbm_term, replayed_waves
from schedlab.core.model.terms import (
    TERMS,
    Breakdown,
    ModelTerms,
    blocks_per_wave,
    kernel_time,
    occupancy,
    on_chip_terms,
    step_time,
)
from schedlab.core.shapes import RowAlignment, as_mnk, check_shape, row_alignment, row_alignments

__all__ = ["evaluate", "evaluate_many", "gemm_time", "explain", "MANY_CHUNK_CELLS"]


def evaluate(configs, M: int, N: int, K: int, hw: Hardware | None = None, strides: str = "runtime") -> ModelTerms:
    """Price every configuration on an ``M x N x K`` FP16 GEMM in one vectorised pass.

    Parameters
    ----------
    configs : sequence of GemmConfig or array-like of shape (n, 6)
        Configurations, columns in ``SPACE`` order.
    M, N, K : int
        GEMM shape: ``C[M, N] = A[M, K] @ B[K, N]``.
    hw : Hardware, optional
        Machine parameters (default: the lecture's machine, :data:`~schedlab.core.hardware.H100_TC`).
    strides : {"runtime", "constant"}
        What the kernel knows of its operands' strides (:data:`~schedlab.core.shapes.STRIDES`): arguments
        (tutorial 03, a ``triton.autotune`` user's kernel) or compiled-in constants (Inductor's mm template with
        static shapes). Under Triton's rules it decides which rows are aligned, when ``N`` or ``K`` is not a
        multiple of 16.

    Returns
    -------
    ModelTerms
        Arrays of length ``n``; ``time_s`` is ``inf`` where a configuration cannot launch.

    Notes
    -----
    For a config with warp grid ``(wy, wx)``, ``r`` resident blocks on the busiest SM and
    ``a`` blocks resident on the chip in a wave, one k-step costs

    .. math::

        t_{step} = \\max\\Big(\\frac{r\\,2\\,B_M B_N B_K}{\\min(4, r w)\\,F_{tc}\\,f},\\;
                   \\frac{r\\,2 B_K (w_x B_M + w_y B_N)}{128 f},\\;
                   \\frac{r\\,2 B_K (m + n)}{64 f},\\;
                   \\frac{a\\,2 B_K (m + n)}{BW_{L2}},\\;
                   \\frac{Q_{HBM}}{W S\\,BW_{HBM}},\\;
                   \\frac{L}{s - 1}\\Big)

    with ``m = min(BM, M)`` and ``n = min(BN, N)`` real rows and columns, ``F_tc`` the FLOP/clk
    of one tensor core, ``f`` the clock, ``S = ceil(K / BK)`` k-steps, ``W`` waves, ``Q_HBM`` the kernel's
    HBM bytes and ``L`` the memory latency. With one stage there is no overlap:
    ``t_step = L + max(other terms)``; under Triton's rules an operand whose rows are not aligned (``N`` or
    ``K`` not a multiple of 16, :class:`~schedlab.core.shapes.RowAlignment`) is waited for the same way, but the
    other resident blocks' share of the step hides that wait, ``(r - 1)/r`` of the step at most
    (:func:`~schedlab.core.model.terms.on_chip_terms`). A wave costs ``fill + S t_step + epilogue``, with
    ``fill = L`` (pipelined) and the epilogue writing C at the slower of port and L2,
    except that HBM is one queue for the kernel: the k-steps of all waves together, their
    latency waits apart, last at least ``Q_HBM / BW_HBM`` (the per-step HBM term above is
    that bound spread evenly, as :class:`Breakdown` reports it).

    Examples
    --------
    >>> terms = evaluate([GemmConfig(256, 128, 32, 8, 4, 1)], 4096, 4096, 4096)
    >>> int(terms.waves[0]), int(terms.k_steps[0])
    (4, 128)
    """
    M, N, K = check_shape(M, N, K)
    hw = check_hardware(hw)
    check_exact(M, N, K, hw)
    arr = config_array(configs)
    alignment = row_alignment(M, N, K, hw, strides)
    return _evaluate(arr, launchable_mask(arr, hw, alignment), M, N, K, hw, alignment)


def _evaluate(arr: np.ndarray, launchable: np.ndarray, M, N, K, hw: Hardware, alignment: RowAlignment) -> ModelTerms:
    """:func:`evaluate` of validated arguments; ``M, N, K`` scalars, or ``(s, 1)`` columns for ``s`` shapes."""
    size = np.broadcast_shapes(np.shape(M), np.shape(N), np.shape(K), (len(arr),))
    names = tuple(f for f in ModelTerms.__dataclass_fields__ if f != "launchable")
    out = _priced(arr, launchable, M, N, K, hw, alignment, size, names)
    return ModelTerms(launchable=np.broadcast_to(launchable, size), **out)


def _priced(
    arr, launchable, M, N, K, hw: Hardware, alignment: RowAlignment, size, names, groups=None, out=None
) -> dict[str, np.ndarray]:
    """The ``names`` fields of :class:`ModelTerms` (not ``launchable``), arrays of ``size``, on shapes aligned as
    ``alignment``.

    ``groups``, if given, is :func:`_groups` of ``arr[launchable]`` (computed once for many calls);
    ``out``, if given, holds an array of ``size`` per name, filled in place and returned.
    """
    ints = ("blocks", "blocks_per_sm", "waves", "k_steps")
    if out is None:
        out = {name: np.empty(size, dtype=np.int64 if name in ints else np.float64) for name in names}
    idx = np.flatnonzero(launchable)
    every = idx.size == len(arr)
    if not every:  # what a configuration that cannot launch reports
        for name, values in out.items():
            values[...] = 0 if name in ints else np.inf if name == "time_s" else np.nan
    if idx.size and np.prod(size):
        for name, values in _price(arr[idx], M, N, K, hw, alignment, names, groups, out if every else None).items():
            if values is out[name]:  # written in place
                continue
            if every:
                out[name][...] = values
            else:
                out[name][..., idx] = values
    return out


#: Most (shape, configuration) cells, plus waves that may be replayed, :func:`evaluate_many` prices in one
#: numpy pass: this bounds its working memory (under 30 MiB on the 64 x 64 grid of
#: ``benchmarks/bench_many.py``, whose result alone takes 117 MiB), whatever the number of shapes.
MANY_CHUNK_CELLS = 2**18


def evaluate_many(
    shapes, configs, hw: Hardware | None = None, terms=("time_s",), strides: str = "runtime"
) -> dict[str, np.ndarray]:
    """Price every configuration on every shape: :func:`evaluate` vectorised across shapes as well.

    Parameters
    ----------
    shapes : sequence of (M, N, K)
        GEMM shapes (or :class:`schedlab.core.shapes.Shape`), each validated as by :func:`evaluate`.
    configs : sequence of GemmConfig or array-like of shape (n, 6)
    hw : Hardware, optional
        Machine parameters (default: the lecture's machine, :data:`~schedlab.core.hardware.H100_TC`).
    terms : sequence of str
        The :class:`ModelTerms` fields to return (each costs ``8 n_shapes n_configs`` bytes).
    strides : {"runtime", "constant"}
        What the kernel knows of its operands' strides, as for :func:`evaluate`.

    Returns
    -------
    dict of str to ndarray
        Each requested field as a read-only ``(n_shapes, n_configs)`` array; row ``i`` is, bit for
        bit, that field of ``evaluate(configs, *shapes[i], hw, strides)``.

    Notes
    -----
    Under Triton's rules the shapes of each :func:`~schedlab.core.shapes.row_alignment` (with ``strides="runtime"``,
    ``N`` and ``K`` multiples of 16 or not) are priced apart, with the configurations that launch on them.
    Shapes are priced in chunks of at most :data:`MANY_CHUNK_CELLS` (shape, configuration) cells
    plus replayed waves, so the working memory is bounded whatever the number of shapes; only the
    returned arrays grow with it. The on-chip terms do not depend on ``group``: they are priced once
    per distinct ``(bm, bn, bk, warps, stages)``. The HBM replay of a launch order depends on a
    configuration only through ``(bm, bn, group, per_wave)``, so it runs at most once per shape and
    distinct combination; when ``terms`` asks for none of ``t_hbm_s``, ``t_step_s`` and ``bytes_hbm``,
    only where an upper bound on its HBM time (the panels each wave can touch in the grouped order,
    L2 reuse ignored) exceeds the on-chip time of one of its configurations, since elsewhere the
    kernel's time is its on-chip time whatever the replay finds.

    Examples
    --------
    >>> cfg = GemmConfig(256, 128, 32, 8, 4, 1)
    >>> many = evaluate_many([(4096, 4096, 4096), (16, 4096, 4096)], [cfg], terms=("time_s", "waves"))
    >>> many["time_s"].shape, many["waves"].tolist()
    ((2, 1), [[4], [1]])
    >>> bool(many["time_s"][1, 0] == evaluate([cfg], 16, 4096, 4096).time_s[0])
    True
    """
    hw = check_hardware(hw)
    mnk = _shape_rows(check_sequence(shapes, "shapes", "(M, N, K)"), hw)
    terms = check_sequence(terms, "terms", "ModelTerms field names")
    for name in terms:
        if name not in ModelTerms.__dataclass_fields__:
            raise ValueError(
                f"terms must name ModelTerms fields {tuple(ModelTerms.__dataclass_fields__)}, got {name!r}"
            )
    arr = config_array(configs)
    out = {
        name: np.empty(
            (len(mnk), len(arr)),
            dtype=bool
            if name == "launchable"
            else np.int64
            if name in ("blocks", "blocks_per_sm", "waves", "k_steps")
            else np.float64,
        )
        for name in terms
    }
    priced = tuple(name for name in terms if name != "launchable")
    # each row alignment of the shapes (under Triton's rules, from N, K and the kernel's strides) apart, in chunks
    aligned = row_alignments(mnk[:, 0], mnk[:, 1], mnk[:, 2], hw, strides)
    for key in np.unique(aligned, axis=0):
        rows = np.flatnonzero((aligned == key).all(axis=1))
        alignment = RowAlignment(*map(bool, key))
        launchable = launchable_mask(arr, hw, alignment)
        if "launchable" in out:
            out["launchable"][rows] = launchable
        # waves each shape may replay: one per distinct (bm, bn, group, per_wave) of the launchable configs
        groups = _groups(arr[launchable], hw, alignment) if launchable.any() else None
        cost = np.full(len(rows), len(arr))
        if groups is not None:  # each launch order (bm, bn, group, per_wave) replays its waves, or a closed form's rows
            cost += replayed_waves(mnk[rows, :1], mnk[rows, 1:2], *groups.combos).sum(axis=1)
        start = 0
        while start < len(rows):
            stop = (
                start + 1 + int(np.searchsorted(np.cumsum(cost[start + 1 :]), MANY_CHUNK_CELLS - cost[start], "right"))
            )
            chunk = rows[start:stop]
            contiguous = chunk[-1] - chunk[0] == len(chunk) - 1  # then the output's rows are filled in place
            at = slice(chunk[0], chunk[-1] + 1) if contiguous else chunk
            columns = [mnk[at, j : j + 1] for j in range(3)]
            filled = _priced(
                arr,
                launchable,
                *columns,
                hw,
                alignment,
                (len(chunk), len(arr)),
                priced,
                groups,
                {name: out[name][at] for name in priced} if contiguous else None,
            )
            if not contiguous:
                for name in priced:
                    out[name][chunk] = filled[name]
            start = stop
    for values in out.values():
        values.flags.writeable = False
    return out


def _shape_rows(shapes: tuple, hw: Hardware) -> np.ndarray:
    """The ``(s, 3)`` int64 array of ``shapes``, each validated as by :func:`evaluate` (:func:`as_mnk`, :func:`check_exact`).

    Shapes given as positive integers (not bools) whose byte bound is far from overflow (below 2**62
    in float64, whose few roundings cannot cross 2**63) are checked in one numpy pass; any other input
    shape by shape, so a bad one is refused with its own message.
    """
    try:
        rows = np.asarray(shapes) if shapes else None
    except (ValueError, TypeError, OverflowError):  # ragged, or an integer beyond int64
        rows = None
    fits = rows is not None and rows.dtype.kind == "i" and rows.shape == (len(shapes), 3) and (rows > 0).all()
    if fits and not any(isinstance(x, (bool, np.bool_)) for shape in shapes for x in shape):  # numpy reads True as 1
        M, N, K = (rows[:, j].astype(np.float64) for j in range(3))
        bound = (np.ceil(M / 16) * np.ceil(N / 16) * 32 * K + M * N) * hw.bytes_per_element
        if (bound < 2.0**62).all():
            return rows.astype(np.int64, copy=False)
    mnk = [as_mnk(shape) for shape in shapes]
    for M, N, K in mnk:
        check_exact(M, N, K, hw)
    return np.array(mnk, dtype=np.int64).reshape(-1, 3)


class _Groups(NamedTuple):
    """How :func:`_price` shares work among configurations (each array indexes the one before it)."""

    base: np.ndarray  # (b, 5): the distinct (bm, bn, bk, warps, stages), priced on chip once each
    base_of: np.ndarray  # (n,): each configuration's row of base
    tiles: np.ndarray  # (t, 3): the distinct (bm, bn, per_wave) of base, each with one HBM bound
    by_tile: np.ndarray  # (b,): base rows sorted by tile
    tile_starts: np.ndarray  # (t,): where each tile's rows start in by_tile
    combos: tuple  # 4 arrays (u,): the distinct (bm, bn, group, per_wave), each replayed once per shape
    combo_tile: np.ndarray  # (u,): each combination's row of tiles
    combo_of: np.ndarray  # (n,): each configuration's combination
    by_combo: np.ndarray  # (n,): configurations sorted by combination
    combo_starts: np.ndarray  # (u,): where each combination's configurations start in by_combo
    runs: int  # r when base_of is 0 r times, 1 r times, ... (each base row's configurations adjacent), else 0


def _groups(arr: np.ndarray, hw: Hardware, alignment: RowAlignment) -> _Groups:
    """The :class:`_Groups` of an ``(n, 6)`` array of configurations launchable on shapes aligned as
    ``alignment`` (``n >= 1``), cached."""
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    return _groups_of(arr.tobytes(), len(arr), hw, alignment)


@memoised(maxsize=64)
def _groups_of(rows: bytes, n: int, hw: Hardware, alignment: RowAlignment) -> _Groups:
    """:func:`_groups` of the configuration array held in ``rows`` (read-only arrays: they are shared)."""
    arr = np.frombuffer(rows, dtype=np.int64).reshape(n, 6)
    base, base_of = np.unique(arr[:, :5], axis=0, return_inverse=True)
    per_wave = blocks_per_wave(occupancy(base, hw, alignment)[-1], hw)
    tiles, tile_of = np.unique(np.stack([base[:, 0], base[:, 1], per_wave], axis=1), axis=0, return_inverse=True)
    tile_of = tile_of.ravel()
    by_tile = np.argsort(tile_of, kind="stable")
    tile_starts = np.flatnonzero(np.r_[True, np.diff(tile_of[by_tile]) > 0])
    group, groups = arr[:, 5], int(arr[:, 5].max()) + 1
    keys, combo_of = np.unique(tile_of[base_of.ravel()] * groups + group, return_inverse=True)
    combo_tile = keys // groups
    combos = (tiles[combo_tile, 0], tiles[combo_tile, 1], keys % groups, tiles[combo_tile, 2])
    by_combo = np.argsort(combo_of.ravel(), kind="stable")
    combo_starts = np.flatnonzero(np.r_[True, np.diff(combo_of.ravel()[by_combo]) > 0])
    base_of = base_of.ravel()
    runs = n // len(base)
    if not np.array_equal(base_of, np.repeat(np.arange(len(base)), runs)):
        runs = 0
    groups = _Groups(
        base, base_of, tiles, by_tile, tile_starts, combos, combo_tile, combo_of.ravel(), by_combo, combo_starts, runs
    )
    for values in (*groups[:5], *combos, *groups[6:10]):
        values.flags.writeable = False
    return groups


def _price(
    arr: np.ndarray,
    M,
    N,
    K,
    hw: Hardware,
    alignment: RowAlignment,
    names,
    groups: _Groups | None = None,
    into: dict | None = None,
) -> dict[str, np.ndarray]:
    """The ``names`` fields of :class:`ModelTerms` for launchable configurations only, on shapes aligned as ``alignment``.

    ``M, N, K`` are scalars or ``(s, 1)`` columns; ``groups`` is :func:`_groups` of ``arr`` (computed
    when not given); ``into``, if given, maps names to arrays of the result's shape that a field may be
    written into instead of a new array (the caller's output: one pass over it less). Configurations that differ only in ``group`` share every on-chip quantity
    (:func:`on_chip_terms` prices each ``(bm, bn, bk, warps, stages)`` once); ``group`` acts through the
    HBM replay alone. When ``names`` asks for none of ``t_hbm_s``, ``t_step_s`` and ``bytes_hbm``
    (``(s, 1)`` columns only) and the HBM hides behind the on-chip work whole (``hw.pipeline_overlap``
    of 1), a launch order is replayed only where :func:`hbm_bound_s` cannot show that the kernel's HBM
    time stays at or below the on-chip time of every configuration it serves: elsewhere
    ``max(on-chip, HBM)`` is the on-chip time whatever the replay finds.

    Notes
    -----
    ``time_s`` is :func:`kernel_time` of ``fixed_s``, ``compute_s`` and the kernel's HBM time; the
    reported ``t_hbm_s`` spreads that time evenly over every k-step (``Q_HBM / (W S BW_HBM)``, ``W``
    waves of ``S`` k-steps), and ``t_step_s`` is :func:`step_time` of the first wave's slowest term,
    that spread included.
    """
    g = _groups(arr, hw, alignment) if groups is None else groups
    # the bound that skips replays holds only where the HBM hides behind the on-chip work whole (p = 1)
    exact_hbm = np.ndim(M) == 0 or hw.pipeline_overlap < 1 or not {"t_hbm_s", "t_step_s", "bytes_hbm"}.isdisjoint(names)
    into = into or {}
    chip = on_chip_terms(g.base, M, N, K, hw, alignment)
    out = {name: _spread(chip[name], g, into.get(name)) for name in names if name in chip}
    if not exact_hbm:
        if "time_s" in names:
            out["time_s"] = _time_bounded(chip, M, N, K, hw, g, into.get("time_s"))
        return out
    bytes_hbm, t_hbm_s = (x[..., g.combo_of] for x in hbm_term(M, N, K, g.combos, hw))
    if "time_s" in names:
        fixed_s, compute_s = chip["fixed_s"][..., g.base_of], chip["compute_s"][..., g.base_of]
        out["time_s"] = kernel_time(fixed_s, compute_s, t_hbm_s, hw.pipeline_overlap)
    waves, k_steps = chip["waves"][..., g.base_of], chip["k_steps"][..., g.base_of]
    t_hbm_step_s = t_hbm_s / (waves * k_steps)  # the kernel's HBM time per k-step
    bound_s = np.maximum(chip["on_chip_bound_s"][..., g.base_of], t_hbm_step_s)  # the first wave's slowest term
    sum_s = chip["on_chip_sum_s"][..., g.base_of] + t_hbm_step_s  # and the sum of its terms
    t_step_s = step_time(bound_s, sum_s, chip["pipelined"][g.base_of], chip["t_latency_s"][g.base_of], hw)
    extra = {"t_hbm_s": t_hbm_step_s, "t_step_s": t_step_s, "bytes_hbm": bytes_hbm}
    out.update((name, extra[name]) for name in names if name in extra)
    return out


def _spread(values: np.ndarray, g: _Groups, into: np.ndarray | None = None) -> np.ndarray:
    """``values[..., g.base_of]``: a per-base-configuration array spread to the configurations.

    Into ``into`` if given, C-contiguous and of the same dimensions (else a new array); when each base
    row's configurations are adjacent (``g.runs``), by broadcasting each value over its run: one
    contiguous pass, about as fast as a copy.
    """
    if into is None or np.ndim(values) != into.ndim or not into.flags.c_contiguous:
        return values[..., g.base_of]
    if g.runs:
        into.reshape(*into.shape[:-1], -1, g.runs)[...] = values[..., None]
    else:
        into[...] = values[..., g.base_of]
    return into


def _time_bounded(chip: dict, M, N, K, hw: Hardware, g: _Groups, into: np.ndarray | None = None) -> np.ndarray:
    """``time_s`` of :func:`_price` for ``(s, 1)`` columns, replaying only where HBM could be the slower.

    Where :func:`hbm_bound_s` of a combination is at or below the on-chip time ``compute_s`` of every
    configuration of its tile, :func:`kernel_time` takes the on-chip time whatever the replay would
    find (priced on the base configurations, spread to their groups); the other (shape, combination)
    pairs are replayed and their configurations priced in full. Only for ``hw.pipeline_overlap == 1``
    (:func:`_price` replays every pair otherwise: the HBM time's unhidden share always counts).
    ``into``, if given, receives the result.
    """
    fixed_s, compute_s = chip["fixed_s"], chip["compute_s"]
    s = compute_s.shape[0]
    time_s = _spread(kernel_time(fixed_s, compute_s), g, into)  # HBM hidden; overwritten where it may not be
    least_compute_s = np.minimum.reduceat(compute_s[:, g.by_tile], g.tile_starts, axis=1)[:, g.combo_tile]
    bound_s = hbm_bound_s(*(np.broadcast_to(x, (s, len(g.combo_tile))) for x in (M, N, K)), *g.combos, hw)
    which, combo = np.nonzero(bound_s > least_compute_s)
    if which.size:
        dims = (np.broadcast_to(x, (s, 1))[which, 0] for x in (M, N, K))
        t_hbm_s = hbm_term(*dims, tuple(x[combo] for x in g.combos), hw)[1]
        # every configuration of each replayed pair: cell (shape, config) and its pair's HBM time
        count = np.diff(np.r_[g.combo_starts, len(g.by_combo)])[combo]
        first = np.repeat(np.cumsum(count) - count, count)
        config = g.by_combo[np.repeat(g.combo_starts[combo], count) + np.arange(count.sum()) - first]
        shape, base = np.repeat(which, count), g.base_of[config]
        time_s[shape, config] = kernel_time(fixed_s[shape, base], compute_s[shape, base], np.repeat(t_hbm_s, count))
    return time_s


def gemm_time(cfg: GemmConfig, M: int, N: int, K: int, hw: Hardware | None = None) -> float:
    """Model time in seconds of ``cfg`` on an ``M x N x K`` FP16 GEMM; ``inf`` if it cannot launch.

    A thin wrapper over :func:`evaluate` (one configuration).

    Examples
    --------
    >>> t = gemm_time(GemmConfig(256, 128, 32, 8, 4, 1), 4096, 4096, 4096)
    >>> from schedlab.core.hardware import H100_TC
    >>> 2 * 4096**3 / t / H100_TC.peak_flops > 0.85
    True
    >>> gemm_time(GemmConfig(256, 256, 128, 8, 5, 1), 4096, 4096, 4096)
    inf
    """
    if not isinstance(cfg, GemmConfig):
        raise ValueError(f"cfg must be a GemmConfig, got {type(cfg).__name__}")
    return float(evaluate([cfg], M, N, K, hw).time_s[0])


def explain(cfg: GemmConfig, M: int, N: int, K: int, hw: Hardware | None = None, strides: str = "runtime") -> Breakdown:
    """Every term of ``cfg``'s time on ``M x N x K`` and the bottleneck of its first wave (``strides`` as for
    :func:`evaluate`).

    Raises
    ------
    ValueError
        If ``cfg`` cannot launch (the message lists the reasons) or the shape is invalid.

    Examples
    --------
    >>> b = explain(GemmConfig(256, 128, 32, 8, 4, 1), 4096, 4096, 4096)
    >>> b.bottleneck, b.waves, b.blocks_per_sm
    ('t_tc_s', 4, 1)
    """
    if not isinstance(cfg, GemmConfig):
        raise ValueError(f"cfg must be a GemmConfig, got {type(cfg).__name__}")
    terms = evaluate([cfg], M, N, K, hw, strides)
    if not terms.launchable[0]:
        why = "; ".join(r.message for r in reasons(cfg, hw, row_alignment(M, N, K, hw, strides)))
        raise ValueError(f"config {cfg.as_tuple()} cannot launch: {why}")
    values = {name: float(getattr(terms, name)[0]) for name in ModelTerms.__dataclass_fields__ if name != "launchable"}
    step_terms = {name: values[name] for name in TERMS}
    bottleneck = max(step_terms, key=step_terms.get)
    for name in ("blocks", "blocks_per_sm", "waves", "k_steps"):
        values[name] = int(values[name])
    time_s = values.pop("time_s")
    return Breakdown(
        config=cfg,
        shape=(M, N, K),
        time_s=time_s,
        tflops=2.0 * M * N * K / time_s / 1e12,
        bottleneck=bottleneck,
        **values,
    )
