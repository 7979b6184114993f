"""The model held against real Triton kernel times: does it rank a shape's configurations as the GPU does?

For each shape of a :class:`~schedlab.core.triton_timings.TimedRun`, :func:`rank_check` prices the
configurations that ran and compares the model's order with the measured one, with the measures
issue 24's private check reports: the **regret** (measured time of the model's first pick over the
measured best), the share of shapes within 10 % of the best, the Spearman rank correlation of model
and measured times, whether the best of the model's top 4 / top 8 is within 5 % of the measured best
(the model as a pruner), and the model's time for the measured best configuration over its measured
time. The configurations are either Inductor's mm list as it tunes the shape
(:func:`schedlab.triton.configs.inductor_configs`, what Inductor's autotuner measures) or every
configuration the run timed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
from scipy.stats import spearmanr

from schedlab.core.hardware import PROFILES, Hardware
from schedlab.core.launch import launchable_mask
from schedlab.core.model.engine import evaluate
from schedlab.core.shapes import row_alignment
from schedlab.core.triton_timings import TimedRun, shipped_run
from schedlab.triton.configs import inductor_configs

__all__ = [
    "CONFIG_SETS",
    "WITHIN",
    "PRUNE_WITHIN",
    "RankCheck",
    "rank_check",
    "repeat_check",
    "H200_SETS",
    "h200_checks",
    "OVERLAP_GRID",
    "overlap_sweep",
    "refused_but_ran",
    "operand_bytes",
    "LATENCY_GRID_S",
    "latency_fit",
]

#: Which configurations of a shape are ranked: Inductor's adapted mm list, or every one the run timed.
CONFIG_SETS = ("inductor", "timed")
#: A first pick "within 10 %": regret at most this.
WITHIN = 1.10
#: A pruner's top k "keeps the best" when its fastest measured configuration is within 5 % of the best.
PRUNE_WITHIN = 1.05


@dataclass(frozen=True, eq=False)
class RankCheck:
    """Per-shape results of :func:`rank_check`, in the run's shape order, and their summaries.

    ``regret[i]`` is the measured time of the model's first pick over the measured best on
    ``shapes[i]``; ``spearman[i]`` the rank correlation of model and measured times; ``top4[i]`` /
    ``top8[i]`` whether the model's first 4 / 8 hold a configuration within :data:`PRUNE_WITHIN` of the
    best; ``model_over_measured[i]`` the model's time of the measured best over its measured time;
    ``picks[i]`` / ``bests[i]`` the model's first pick and the measured best as config rows
    (bm, bn, bk, warps, stages, group), ``best_s[i]`` the measured best time in seconds.
    """

    run: str
    priced_by: str  # the model's machine key, or the name of the run in the model's place
    config_set: str
    shapes: tuple[tuple[int, int, int], ...]
    n_configs: np.ndarray
    regret: np.ndarray
    spearman: np.ndarray
    top4: np.ndarray
    top8: np.ndarray
    model_over_measured: np.ndarray
    picks: np.ndarray
    bests: np.ndarray
    best_s: np.ndarray

    @property
    def n_within(self) -> int:
        """Shapes whose first pick is within 10 % of the measured best (regret at most :data:`WITHIN`)."""
        return int(np.sum(self.regret <= WITHIN))

    @property
    def within(self) -> float:
        """Share of shapes whose first pick is within 10 % of the measured best."""
        return self.n_within / len(self.shapes)

    @property
    def median_regret(self) -> float:
        return float(np.median(self.regret))

    @property
    def median_spearman(self) -> float:
        return float(np.median(self.spearman))

    @property
    def kept(self) -> float:
        """Geometric mean of best / picked: the share of the autotuned performance the first pick keeps."""
        return float(np.exp(-np.mean(np.log(self.regret))))

    @property
    def median_abs_log_ratio(self) -> float:
        """Median of ``|log(model / measured)|`` over the shapes' measured best configurations."""
        return float(np.median(np.abs(np.log(self.model_over_measured))))

    def subset(self, keep) -> RankCheck:
        """The same check on the shapes where the boolean sequence ``keep`` is true."""
        keep = np.asarray(keep, dtype=bool)
        per_shape = {f.name: getattr(self, f.name) for f in fields(self)}
        arrays = {name: value[keep] for name, value in per_shape.items() if isinstance(value, np.ndarray)}
        return replace(self, shapes=tuple(s for s, k in zip(self.shapes, keep) if k), **arrays)


def _configs_of(run: TimedRun, shape, config_set: str) -> tuple[np.ndarray, np.ndarray]:
    configs, times = run.on_shape(shape)
    if config_set == "timed":
        return configs, times
    index = {tuple(row): i for i, row in enumerate(configs.tolist())}
    rows = [index[c.as_tuple()] for c in inductor_configs(shape) if c.as_tuple() in index]
    return configs[rows], times[rows]


def rank_check(run: TimedRun, hw: Hardware, config_set: str = "inductor") -> RankCheck:
    """How well ``hw``'s model ranks the configurations ``run`` timed, shape by shape.

    Parameters
    ----------
    run : TimedRun
        Real times (:func:`schedlab.core.triton_timings.shipped_run` or ``read_run``).
    hw : Hardware
        The machine the model prices: the profile of the GPU the run was timed on.
    config_set : {"inductor", "timed"}
        Rank Inductor's adapted mm list (the configurations of it that ran) or every timed configuration.

    Notes
    -----
    On shape ``s`` with measured times ``m_c`` and model times ``t_c`` of its configurations ``c``:

    - regret ``R_s = m_{argmin t} / min m``; within 10 % when ``R_s <= 1.10``;
    - pruner: ``min_{c in top_k(t)} m_c / min m <= 1.05`` for ``k = 4, 8``;
    - first pick keeps ``exp(-mean_s log R_s)`` of the autotuned performance;
    - absolute: ``t_b / m_b`` for the measured best ``b``.

    Ties in the model's times go to the earlier configuration (Inductor's list order, or the run's).

    Examples
    --------
    >>> from schedlab.core.hardware import profile
    >>> from schedlab.core.triton_timings import shipped_run
    >>> check = rank_check(shipped_run("h200-run1"), profile("h200-sxm"))
    >>> len(check.shapes), 0 < check.within <= 1, check.median_regret >= 1
    (61, True, True)
    """
    return _check(run, lambda configs, shape: evaluate(configs, *shape, hw).time_s, hw.key, config_set)


def repeat_check(run: TimedRun, again: TimedRun, config_set: str = "inductor") -> RankCheck:
    """:func:`rank_check` with a second run of the same shapes in the model's place: the measurement's own ceiling.

    ``again`` must have timed every configuration ``run`` ranks; its ``priced_by`` field names ``again``.

    Examples
    --------
    >>> from schedlab.core.triton_timings import shipped_run
    >>> ceiling = repeat_check(shipped_run("h200-run1"), shipped_run("h200-run2"))
    >>> ceiling.priced_by, bool(ceiling.median_spearman > 0.9)
    ('h200-run2', True)
    """

    def price(configs, shape):
        timed, times = again.on_shape(shape)
        index = {tuple(row): t for row, t in zip(timed.tolist(), times)}
        missing = [tuple(c) for c in configs.tolist() if tuple(c) not in index]
        if missing:
            raise ValueError(f"{again.name} did not time {missing[0]} on {shape}")
        return np.array([index[tuple(c)] for c in configs.tolist()])

    return _check(run, price, again.name, config_set)


def _check(run: TimedRun, price, priced_by: str, config_set: str) -> RankCheck:
    if config_set not in CONFIG_SETS:
        raise ValueError(f"config_set must be one of {', '.join(CONFIG_SETS)}, got {config_set!r}")
    shapes = run.shape_list()
    out = {k: [] for k in ("n", "regret", "rho", "top4", "top8", "ratio", "pick", "best", "best_s")}
    for shape in shapes:
        configs, measured = _configs_of(run, shape, config_set)
        if len(configs) < 2:
            raise ValueError(f"{run.name}: fewer than 2 configurations of the {config_set} set ran on {shape}")
        model = price(configs, shape)
        order = np.argsort(model, kind="stable")
        best = int(np.argmin(measured))
        out["n"].append(len(configs))
        out["regret"].append(measured[order[0]] / measured[best])
        out["rho"].append(spearmanr(model, measured).statistic)
        out["top4"].append(measured[order[:4]].min() <= PRUNE_WITHIN * measured[best])
        out["top8"].append(measured[order[:8]].min() <= PRUNE_WITHIN * measured[best])
        out["ratio"].append(model[best] / measured[best])
        out["pick"].append(configs[order[0]])
        out["best"].append(configs[best])
        out["best_s"].append(measured[best])
    return RankCheck(
        run=run.name,
        priced_by=priced_by,
        config_set=config_set,
        shapes=tuple(shapes),
        n_configs=np.array(out["n"]),
        regret=np.array(out["regret"]),
        spearman=np.array(out["rho"]),
        top4=np.array(out["top4"]),
        top8=np.array(out["top8"]),
        model_over_measured=np.array(out["ratio"]),
        picks=np.array(out["pick"]),
        bests=np.array(out["best"]),
        best_s=np.array(out["best_s"]),
    )


#: The shipped H200 shape sets, each the prefix of its two runs' names (``<prefix>-run1``, ``<prefix>-run2``):
#: the main set (looked at while the model changed), the held-out set (timed after one rule changed) and the
#: fresh set (timed after every change).
H200_SETS = {"main": "h200", "holdout": "h200-holdout", "fresh": "h200-fresh"}


def h200_checks(config_set: str = "inductor") -> dict[str, RankCheck]:
    """The shipped H200 runs held against ``h200-sxm`` and against their second runs, by set.

    Keys: ``"main"``, ``"holdout"`` and ``"fresh"`` (the model on the first run of each shape set), and each
    with ``"-repeat"`` (the second run in the model's place: what the measurement itself reaches). The
    held-out shapes were timed after the resident-blocks rule changed on the main ones, the fresh ones after
    every change; the main ones were looked at while making them.
    """
    hw = PROFILES["h200-sxm"]
    checks = {}
    for key, prefix in H200_SETS.items():
        first, second = shipped_run(f"{prefix}-run1"), shipped_run(f"{prefix}-run2")
        checks[key] = rank_check(first, hw, config_set)
        checks[f"{key}-repeat"] = repeat_check(first, second, config_set)
    return checks


#: The pipeline overlaps :func:`overlap_sweep` tries: 0.8 to 1 (all hidden), in steps of 0.05.
OVERLAP_GRID = (0.8, 0.85, 0.9, 0.95, 1.0)


def overlap_sweep(hw: Hardware, grid=OVERLAP_GRID, config_set: str = "inductor") -> dict[float, dict[str, RankCheck]]:
    """``hw``'s model under each ``pipeline_overlap`` of ``grid``, held against the first run of each H200 set.

    Returns ``{overlap: {set key: RankCheck}}`` with the keys of :data:`H200_SETS`. The overlap ``p`` is the
    one parameter chosen by looking at outcomes (:mod:`schedlab.core.hardware`); the sweep shows what it
    trades: every term of a k-step weighs ``(1 - p)`` in its time besides the slowest, so a larger ``p``
    makes every configuration faster (the level), and it also changes which configuration is fastest (the
    ranking).

    Examples
    --------
    >>> sweep = overlap_sweep(PROFILES["h200-sxm"], grid=(0.9, 1.0))
    >>> bool(np.all(sweep[1.0]["main"].model_over_measured <= sweep[0.9]["main"].model_over_measured))
    True
    """
    runs = {key: shipped_run(f"{prefix}-run1") for key, prefix in H200_SETS.items()}
    return {
        p: {key: rank_check(run, replace(hw, pipeline_overlap=p), config_set) for key, run in runs.items()}
        for p in grid
    }


def refused_but_ran(run: TimedRun, hw: Hardware) -> np.ndarray:
    """Rows of ``run`` that ran on the GPU although ``hw``'s launch rules refuse them on their shape (boolean array).

    Each shape's rows are checked under its :func:`~schedlab.core.shapes.row_alignment`.

    Examples
    --------
    >>> from schedlab.core.triton_timings import shipped_run
    >>> run = shipped_run("h200-run1")  # its K = 200 shapes included: their A keeps one shared buffer
    >>> int(refused_but_ran(run, PROFILES["h200-sxm"]).sum())
    0
    """
    refused = np.zeros(len(run.configs), dtype=bool)
    for shape in run.shape_list():
        rows = np.all(run.shapes == shape, axis=1)
        refused[rows] = ~launchable_mask(run.configs[rows], hw, row_alignment(*shape, hw))
    return refused & ~np.isnan(run.time_s)


def operand_bytes(shape, config, bytes_per_element: int = 2) -> int:
    """Bytes of A and B a kernel's programs load in all: each of its tiles reads a ``bm x K`` and a ``K x bn`` panel.

    Every one of them passes through L2 on its way to an SM (Triton's pipelined loads bypass L1), so
    over a measured time it bounds from below the bandwidth L2 delivered.

    Examples
    --------
    >>> operand_bytes((1024, 1024, 16384), (64, 128, 128, 4, 4, 8)) / 2**20  # 128 tiles x 192 x 16384 x 2 B
    768.0
    """
    M, N, K = shape
    bm, bn = int(config[0]), int(config[1])
    tiles = -(-M // bm) * -(-N // bn)
    return tiles * (bm + bn) * K * bytes_per_element


#: The loaded latencies :func:`latency_fit` tries: 375 ns (the unloaded HBM latency measured on a GH100) to
#: 750 ns (the lecture's loaded latency), in steps of 25 ns.
LATENCY_GRID_S = tuple(float(ns) * 1e-9 for ns in range(375, 751, 25))


def latency_fit(run: TimedRun, hw: Hardware, grid=LATENCY_GRID_S) -> tuple[float, tuple[float, ...]]:
    """The ``mem_latency_s`` of ``grid`` under which ``hw``'s model ranks ``run`` best, and each one's score.

    The score is the mean over ``run``'s shapes of the Spearman correlation between model and measured
    times of Inductor's list (:func:`rank_check`); the first of equal scores wins. The h100-sxm profile's
    loaded latency is this fit on the H200's main run (the held-out shapes were not used).

    Examples
    --------
    >>> from schedlab.core.triton_timings import shipped_run
    >>> best, scores = latency_fit(shipped_run("h200-run1"), PROFILES["h200-sxm"], grid=(375e-9, 550e-9))
    >>> round(best * 1e9), scores[1] > scores[0]
    (550, True)
    """
    scores = tuple(float(np.mean(rank_check(run, replace(hw, mem_latency_s=s)).spearman)) for s in grid)
    return grid[int(np.argmax(scores))], scores
