"""Features of a configuration on a shape, for every learned model in the package, in one place.

Three families, each a pure function of the configurations' knob values, the shape and the machine
(read through the cost model's own :func:`schedlab.core.model.tiling`):

- :func:`feature_matrix` (columns :func:`feature_names`): what model-guided search
  (:mod:`schedlab.tuning.strategies.model_guided`) fits its online ridge to, standardised over the
  launchable configurations of one shape;
- :func:`features` (columns ``FEATURE_SETS[name]``): the cross-shape cost model of
  :mod:`schedlab.tuning.learned`, shape included, unstandardised (the fit standardises);
- :func:`surrogate_features` (:data:`SURROGATES`): the plainer matrices the ablation of
  :mod:`schedlab.tuning.surrogates` swaps in for :func:`feature_matrix`.
"""

from __future__ import annotations

import numpy as np

from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import SPACE, config_array
from schedlab.core.model import tiling
from schedlab.core.shapes import as_mnk
from schedlab.tuning.neighbours import neighbour_tables

__all__ = [
    "TILING_FEATURES",
    "feature_names",
    "feature_matrix",
    "FEATURE_SETS",
    "check_feature_set",
    "features",
    "SURROGATES",
    "surrogate_features",
]


def _standardise(X: np.ndarray) -> np.ndarray:
    """Each column scaled to mean 0 and standard deviation 1 over the rows (a constant column: to 0)."""
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


#: Names of the learned model's features, in column order (see
#: :func:`schedlab.tuning.strategies.model_guided.model_guided`).
_KNOB_LOGS = tuple(f"log2 {k}" for k in SPACE)
#: The features computed by the cost model's own ``tiling()`` (:mod:`schedlab.core.model`): the warp
#: tile, resident blocks per SM, waves and how full they are, k-steps, padding, shared memory. On a
#: landscape that model generated, model-guided search reads the very quantities that made it.
TILING_FEATURES = (
    "log2 warp_m",
    "log2 warp_n",
    "log2 blocks/SM",
    "log2 waves",
    "wave fill",
    "log2 k_steps",
    "log2 pad_m",
    "log2 pad_n",
    "log2 smem",
)
_FEATURES = (
    _KNOB_LOGS
    + TILING_FEATURES[:2]
    + ("stages == 1",)
    + TILING_FEATURES[2:]
    + tuple(f"{a} * {b}" for i, a in enumerate(_KNOB_LOGS) for b in _KNOB_LOGS[i:])
)


def feature_names() -> tuple[str, ...]:
    """Column names of :func:`feature_matrix`, the learned cost model's features (model-guided search).

    Examples
    --------
    >>> names = feature_names()
    >>> len(names), names[:3], names[-1]
    (37, ('log2 bm', 'log2 bn', 'log2 bk'), 'log2 group * log2 group')
    """
    return _FEATURES


def feature_matrix(values: np.ndarray, mnk: tuple[int, int, int], hw: Hardware) -> np.ndarray:
    """Static features (columns: :func:`feature_names`) of launchable configs on one shape, standardised over the space.

    ``values`` holds the configs' knob values, one row per config (``NeighbourTables.values``);
    each column is scaled to mean 0 and standard deviation 1 over those rows (a constant column: to 0).
    """
    t = tiling(values, *mnk, hw)
    bm, bn, stages = (values[:, j].astype(np.float64) for j in (0, 1, 4))
    logs = np.log2(values.astype(np.float64))
    r, blocks, waves = (x.astype(np.float64) for x in (np.maximum(t.blocks_per_sm, 1), t.blocks, t.waves))
    fill = blocks / (waves * t.per_wave)  # how full the waves are on average (1 = no idle tail)
    cols = [logs[:, j] for j in range(6)] + [
        np.log2(t.warp_rows),
        np.log2(t.warp_cols),
        (stages == 1).astype(np.float64),
        np.log2(r),
        np.log2(waves),
        fill,
        np.log2(t.k_steps),
        np.log2(t.rows / bm),
        np.log2(t.cols / bn),
        np.log2(t.smem_bytes),
    ]
    cols += [logs[:, i] * logs[:, j] for i in range(6) for j in range(i, 6)]
    return _standardise(np.stack(cols, axis=1))


# --- the cross-shape cost model's features (schedlab.tuning.learned) ---

_KNOBS = ("bm", "bn", "bk", "warps", "stages", "group4", "group8", "M", "N", "K")
_TILE = _KNOBS + (
    "wm",
    "wn",
    "pad_m",
    "pad_n",
    "pad_k",
    "blocks",
    "occupancy",
    "waves",
    "wave_use",
    "sm_busy",
    "k_steps",
    "intensity",
    "smem",
    "one_stage",
    "in_flight",
)
_PAIRS = _KNOBS + tuple(f"{a}*{b}" for i, a in enumerate(_KNOBS) for b in _KNOBS[i:])

#: Feature set name -> feature names, in column order.
FEATURE_SETS = {"knobs": _KNOBS, "knobs+pairs": _PAIRS, "tile": _TILE}


def _base(arr: np.ndarray, M: int, N: int, K: int, hw: Hardware) -> dict[str, np.ndarray]:
    t = tiling(arr, M, N, K, hw)
    bm, bn, bk, warps, stages, group = (arr[:, j].astype(float) for j in range(6))
    grid_m, grid_n, k_steps, blocks, waves = (
        x.astype(float) for x in (t.grid_m, t.grid_n, t.k_steps, t.blocks, t.waves)
    )
    r = np.maximum(t.blocks_per_sm, 1).astype(float)  # only unlaunchable configs have r = 0; keeps features finite
    slots = hw.n_sm * r
    rows, cols = t.rows.astype(float), t.cols.astype(float)
    ones = np.ones_like(bm)
    log2 = np.log2
    return {
        "bm": log2(bm),
        "bn": log2(bn),
        "bk": log2(bk),
        "warps": log2(warps),
        "stages": log2(stages),
        "group4": (group == 4) * 1.0,
        "group8": (group == 8) * 1.0,
        "M": log2(M) * ones,
        "N": log2(N) * ones,
        "K": log2(K) * ones,
        "wm": log2(t.warp_rows),
        "wn": log2(t.warp_cols),
        "pad_m": log2(grid_m * bm / M),
        "pad_n": log2(grid_n * bn / N),
        "pad_k": log2(k_steps * bk / K),
        "blocks": log2(blocks),
        "occupancy": log2(r),
        "waves": log2(waves),
        "wave_use": log2(blocks / (waves * slots)),
        "sm_busy": log2(np.minimum(blocks, hw.n_sm) / hw.n_sm),
        "k_steps": log2(k_steps),
        "intensity": log2(rows * cols / (rows + cols)),
        "smem": log2(t.smem_bytes),
        "one_stage": (stages == 1) * 1.0,
        "in_flight": log2(np.maximum(stages - 1, 1)),
    }


def check_feature_set(feature_set: str) -> tuple[str, ...]:
    """The feature names of ``feature_set`` (a key of :data:`FEATURE_SETS`); else ``ValueError``."""
    if feature_set not in FEATURE_SETS:
        raise ValueError(f"feature_set must be one of {tuple(FEATURE_SETS)}, got {feature_set!r}")
    return FEATURE_SETS[feature_set]


def features(configs, shape, feature_set: str = "tile", hw: Hardware | None = None) -> np.ndarray:
    """The ``(n, F)`` feature matrix of configurations on one shape; columns as ``FEATURE_SETS[feature_set]``.

    Parameters
    ----------
    configs : sequence of GemmConfig or array-like of shape (n, 6)
    shape : (M, N, K) or Shape
    feature_set : {"tile", "knobs", "knobs+pairs"}
    hw : Hardware

    Examples
    --------
    >>> from schedlab.core.knobs import GemmConfig
    >>> X = features([GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1)], (4096, 4096, 4096))
    >>> X.shape
    (1, 25)
    >>> float(dict(zip(FEATURE_SETS["tile"], X[0]))["waves"])  # log2: 512 blocks, one per SM per wave: 4 waves
    2.0
    """
    names = check_feature_set(feature_set)
    hw = check_hardware(hw)
    M, N, K = as_mnk(shape)
    arr = config_array(configs)
    base = _base(arr, M, N, K, hw)
    cols = []
    for name in names:
        if "*" in name:
            a, b = name.split("*")
            cols.append(base[a] * base[b])
        else:
            cols.append(base[name])
    return np.stack(cols, axis=1) if cols else np.zeros((len(arr), 0))


# --- the surrogates of the ablation (schedlab.tuning.surrogates) ---

#: The surrogates compared, plainest first; ``ours`` is the chapter's feature set.
SURROGATES = ("linear", "quadratic", "one-hot", "ours")


def surrogate_features(name: str, shape, hw: Hardware | None = None) -> np.ndarray:
    """The ``(n, F)`` standardised feature matrix of surrogate ``name`` over ``landscape(shape, hw).configs``.

    Examples
    --------
    >>> [surrogate_features(s, (4096, 4096, 4096)).shape[1] for s in SURROGATES]
    [6, 27, 26, 37]
    """
    hw = check_hardware(hw)
    values = neighbour_tables(hw).values  # the launchable configs, in the landscape's order
    if name == "ours":
        return feature_matrix(values, as_mnk(shape), hw)
    logs = np.log2(values.astype(np.float64))
    if name == "linear":
        X = logs
    elif name == "quadratic":
        X = np.concatenate([logs, np.stack([logs[:, i] * logs[:, j] for i in range(6) for j in range(i, 6)], 1)], 1)
    elif name == "one-hot":
        X = np.concatenate([(values[:, [j]] == np.array(v)[None, :]) * 1.0 for j, v in enumerate(SPACE.values())], 1)
    else:
        raise ValueError(f"surrogate must be one of {SURROGATES}, got {name!r}")
    return _standardise(X)
