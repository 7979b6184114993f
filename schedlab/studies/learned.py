"""A learned cost model across shapes: predict the best configuration of a shape never tuned.

The lecture ends its demo 3 with "tune per bucket, cache, or predict with a learned cost
model". This module is the third option, in the spirit of TVM's cost model: features of a
(configuration, shape) pair, a regression on ``log(time)`` trained on the full landscapes of
some shapes, and the model's ranking of every launchable configuration on a held-out shape.

Features (:data:`FEATURE_SETS`), all base-2 logarithms unless marked:

``knobs``        ``BM, BN, BK, warps, stages``; ``GROUP_M`` as two indicators (4, 8) -- and the shape ``M, N, K``
``knobs+pairs``  ``knobs`` and every pairwise product of them (interactions; 65 features)
``tile``         ``knobs`` and the tile arithmetic a performance engineer would write down
                 (the default, 25 features):

                 - warp tile ``wm = BM / wy``, ``wn = BN / wx``;
                 - padding waste ``ceil(M / BM) BM / M``, likewise for ``N`` and ``K``;
                 - blocks ``ceil(M / BM) ceil(N / BN)``; resident blocks per SM ``r``
                   (the occupancy calculator); waves ``ceil(blocks / (S r))`` with ``S`` the
                   machine's SMs (``Hardware.n_sm``); the fraction of the waves' block slots
                   used ``blocks / (waves S r)``; SMs busy ``min(blocks, S) / S``;
                   all read from :func:`schedlab.core.model.tiling`;
                 - k-steps ``ceil(K / BK)``;
                 - tile arithmetic intensity ``m n / (m + n)`` with ``m = min(BM, M)``, ``n = min(BN, N)``;
                 - pipeline shared memory (:func:`schedlab.core.space.pipeline_smem_bytes`);
                 - one-stage indicator (not a log) and ``stages - 1`` loads in flight.

No feature uses a hardware rate (FLOP/s, bytes/s, latency): the model learns those and how
the resources combine. A linear model in log space turns products of these counts into sums,
which is why ``tile`` ranks almost perfectly while ``knobs`` alone cannot.

The target is ``log(time_s)`` of every launchable configuration; the fit is ridge regression
(numpy normal equations, standardised features, unpenalised intercept). Evaluation
(:func:`cross_validate`) holds out whole groups of shapes -- every shape of one projection
``(N, K)`` (``split="projection"``) or of one token count ``M`` (``split="tokens"``) -- over the
22 distinct shapes of :func:`schedlab.core.shapes.study_shapes`, and compares with two baselines that use the same
training landscapes: one fixed configuration for all shapes (the lowest geometric-mean
slowdown over the training shapes) and the best configuration of the nearest training shape
(in ``log M, log N, log K``).

The module is longer than ~500 lines because the features, the two regressions (ridge and boosted
trees), the nested choice of the ridge strength and the cross-validation all read one memoised
table of training rows per shape; apart, each would rebuild or pass around those rows.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_int, is_number
from schedlab.core.hardware import H100_TC, Hardware, check_hardware
from schedlab.core.landscape import landscape
from schedlab.core.model import tiling
from schedlab.core.shapes import Shape, study_shapes
from schedlab.core.space import GemmConfig, as_mnk, check_sequence, config_array, launchable

__all__ = [
    "FEATURE_SETS",
    "TOP_K",
    "METHODS",
    "SPLITS",
    "features",
    "study_shapes",
    "folds",
    "ALPHAS",
    "MODELS",
    "BOOSTED",
    "BOOSTED_ROWS",
    "CostModel",
    "fit",
    "choose_alpha",
    "BoostedModel",
    "fit_boosted",
    "fixed_ranking",
    "nearest_shape",
    "Regret",
    "HeldOut",
    "CrossValidation",
    "cross_validate",
]

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
#: The ``k`` of top-k: the best true time among the model's ``k`` first picks.
TOP_K = (1, 5, 10)
#: The predictor and the two baselines, as named in :class:`HeldOut`.
METHODS = ("model", "fixed", "nearest")
#: Held-out groups: every shape of one projection ``(N, K)``; of one token count ``M``; or one shape
#: with every shape that shares its ``(N, K)`` or its ``M`` left out of training ("both").
SPLITS = ("projection", "tokens", "both")
#: Default ridge penalty (per training row, on standardised features).
ALPHA = 1e-4
#: Ridge penalties the nested cross-validation (``alpha="nested"``) chooses among.
ALPHAS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
#: The regressions :func:`cross_validate` fits: the ridge, or gradient-boosted trees (:func:`fit_boosted`).
MODELS = ("ridge", "boosted")
#: The boosted trees: scikit-learn's ``HistGradientBoostingRegressor`` with these settings ...
BOOSTED = MappingProxyType({"max_iter": 100, "learning_rate": 0.1, "max_leaf_nodes": 31, "early_stopping": False})
#: ... trained on this share of each training shape's configurations (drawn with the fit's seed).
BOOSTED_ROWS = 0.25


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


def _check_set(feature_set: str) -> tuple[str, ...]:
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
    >>> X = features([GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1)], (4096, 4096, 4096))
    >>> X.shape
    (1, 25)
    >>> float(dict(zip(FEATURE_SETS["tile"], X[0]))["waves"])  # log2: 512 blocks, one per SM per wave: 4 waves
    2.0
    """
    names = _check_set(feature_set)
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


def _group_key(split: str):
    if split == "projection":
        return lambda s: f"N={s.N} K={s.K}"
    if split == "tokens":
        return lambda s: f"M={s.M}"
    if split == "both":
        return lambda s: f"M={s.M} N={s.N} K={s.K}"
    raise ValueError(f"split must be one of {SPLITS}, got {split!r}")


def folds(split: str = "projection", shapes=None) -> tuple[tuple[str, tuple[Shape, ...], tuple[Shape, ...]], ...]:
    """Leave-one-group-out folds as ``(group, training shapes, held-out shapes)``.

    A group is every shape with one ``(N, K)`` (``split="projection"``) or one ``M``
    (``split="tokens"``); each group is held out once and never appears in its own training set.
    With ``split="both"`` each shape is held out alone and training keeps only the shapes that
    differ from it in ``(N, K)`` *and* in ``M`` (the hardest of the three).

    Examples
    --------
    >>> [(g, len(tr), len(te)) for g, tr, te in folds("tokens")][:2]
    [('M=1', 18, 4), ('M=16', 18, 4)]
    >>> g, train, (held,) = folds("both")[0]
    >>> held.mnk, any(s.M == held.M or (s.N, s.K) == (held.N, held.K) for s in train)
    ((1, 6144, 4096), False)
    """
    shapes = study_shapes() if shapes is None else tuple(shapes)
    key = _group_key(split)
    groups = list(dict.fromkeys(key(s) for s in shapes))
    out = []
    for g in groups:
        test = tuple(s for s in shapes if key(s) == g)
        if split == "both":
            (held,) = test
            train = tuple(s for s in shapes if s.M != held.M and (s.N, s.K) != (held.N, held.K))
        else:
            train = tuple(s for s in shapes if key(s) != g)
        out.append((g, train, test))
    return tuple(out)


@dataclass(frozen=True)
class CostModel:
    """A ridge regression of ``log(time_s)`` on standardised features.

    ``predict_log_time(configs, shape) = ((features - mean) / scale) @ coef + intercept``.
    """

    feature_set: str
    alpha: float
    train_shapes: tuple[tuple[int, int, int], ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    train_rmse: float  # RMSE of log(time) over the training rows
    hw: Hardware = H100_TC

    @property
    def feature_names(self) -> tuple[str, ...]:
        return FEATURE_SETS[self.feature_set]

    def predict_log_time(self, configs, shape) -> np.ndarray:
        """Predicted natural log of the time in seconds of each configuration on ``shape``."""
        X = features(configs, shape, self.feature_set, self.hw)
        return ((X - self.mean) / self.scale) @ self.coef + self.intercept

    def rank(self, shape, k: int | None = None) -> tuple[GemmConfig, ...]:
        """The launchable configurations on ``shape``, fastest predicted first (the first ``k``)."""
        land = landscape(as_mnk(shape), self.hw)
        order = np.argsort(self.predict_log_time(land.configs, shape), kind="stable")
        return tuple(land.configs[i] for i in order[:k])


def _training_rows(shapes, feature_set: str, hw: Hardware):
    rows = [_shape_rows(as_mnk(s), feature_set, hw) for s in shapes]
    return np.concatenate([X for X, _ in rows]), np.concatenate([y for _, y in rows])


@memoised(maxsize=128)
def _shape_rows(mnk: tuple[int, int, int], feature_set: str, hw: Hardware) -> tuple[np.ndarray, np.ndarray]:
    """One shape's training rows: features of every launchable configuration (in the landscape's order), log time."""
    land = landscape(mnk, hw)
    X = features(launchable(hw).array, mnk, feature_set, hw)
    y = np.log(land.time_s)
    X.flags.writeable = y.flags.writeable = False
    return X, y


def _standardiser(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and standard deviations; a constant column (e.g. K over shapes of one K) gets scale 1."""
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale


def _ridge(Z: np.ndarray, y: np.ndarray, alphas) -> tuple[float, list[np.ndarray]]:
    """The intercept and, per penalty, the coefficients of a ridge of ``y`` on standardised ``Z``."""
    y_mean = float(y.mean())
    gram, rhs, eye = Z.T @ Z, Z.T @ (y - y_mean), np.eye(Z.shape[1])
    return y_mean, [np.linalg.lstsq(gram + a * len(y) * eye, rhs, rcond=None)[0] for a in alphas]


def fit(shapes, feature_set: str = "tile", alpha: float = ALPHA, hw: Hardware | None = None) -> CostModel:
    """Fit the ridge model on the full landscapes of ``shapes``.

    Parameters
    ----------
    shapes : iterable of (M, N, K) or Shape
        Training shapes; every launchable configuration of each is one row.
    feature_set : {"tile", "knobs", "knobs+pairs"}
    alpha : float
        Ridge penalty per training row on standardised features (``>= 0``).
    hw : Hardware

    Examples
    --------
    >>> m = fit([(4096, 4096, 4096), (16, 4096, 4096), (512, 14336, 4096)])
    >>> m.rank((2048, 2048, 512), k=1)[0].as_tuple()[:2]
    (256, 128)
    """
    _check_set(feature_set)
    if not is_number(alpha) or not alpha >= 0:
        raise ValueError(f"alpha must be a non-negative number, got {alpha!r}")
    mnks = tuple(dict.fromkeys(as_mnk(s) for s in check_sequence(shapes, "shapes", "(M, N, K)")))
    if not mnks:
        raise ValueError("fit needs at least one training shape")
    hw = check_hardware(hw)
    X, y = _training_rows(mnks, feature_set, hw)
    mean, scale = _standardiser(X)
    Z = (X - mean) / scale
    y_mean, (coef,) = _ridge(Z, y, (alpha,))
    resid = Z @ coef + y_mean - y
    return CostModel(
        feature_set=feature_set,
        alpha=float(alpha),
        train_shapes=mnks,
        mean=mean,
        scale=scale,
        coef=coef,
        intercept=y_mean,
        train_rmse=float(np.sqrt(np.mean(resid**2))),
        hw=hw,
    )


def choose_alpha(
    shapes, split: str = "projection", feature_set: str = "tile", alphas=ALPHAS, hw: Hardware | None = None
) -> float:
    """The penalty of ``alphas`` with the lowest held-out log-time RMSE over :func:`folds` of ``shapes``.

    Only ``shapes`` take part, so when they are an outer fold's training shapes, the shapes it
    holds out never choose its penalty (nested cross-validation). Ties go to the larger penalty.

    Examples
    --------
    >>> train = [s for s in study_shapes() if (s.N, s.K) != (4096, 4096)]
    >>> choose_alpha(train, "projection") in ALPHAS
    True
    """
    hw = check_hardware(hw)
    alphas = tuple(alphas)
    if not alphas or not all(is_number(a) and a >= 0 for a in alphas):
        raise ValueError(f"alphas must be non-negative numbers, got {alphas!r}")
    inner = folds(split, shapes)
    if len(inner) < 2:
        raise ValueError(f"choose_alpha needs shapes of at least two {split} groups, got {len(inner)}")
    sse = np.zeros(len(alphas))
    for _, train, test in inner:
        X, y = _training_rows(train, feature_set, hw)
        mean, scale = _standardiser(X)
        y_mean, coefs = _ridge((X - mean) / scale, y, alphas)
        Xt, yt = _training_rows(test, feature_set, hw)
        Zt = (Xt - mean) / scale
        sse += [float(np.sum((Zt @ c + y_mean - yt) ** 2)) for c in coefs]
    return float(alphas[np.flatnonzero(sse <= sse.min() * (1 + 1e-12))[-1]])


@dataclass(frozen=True, eq=False)
class BoostedModel:
    """Gradient-boosted trees of ``log(time_s)`` on the raw features (:data:`BOOSTED`), one thread."""

    feature_set: str
    train_shapes: tuple[tuple[int, int, int], ...]
    regressor: object = field(repr=False)
    seed: int = 0
    hw: Hardware = H100_TC

    @property
    def feature_names(self) -> tuple[str, ...]:
        return FEATURE_SETS[self.feature_set]

    def predict_log_time(self, configs, shape) -> np.ndarray:
        """Predicted natural log of the time in seconds of each configuration on ``shape``."""
        from threadpoolctl import threadpool_limits  # ships with scikit-learn (book extras)

        with threadpool_limits(1):
            return self.regressor.predict(features(configs, shape, self.feature_set, self.hw))

    rank = CostModel.rank


def fit_boosted(shapes, feature_set: str = "tile", seed: int = 0, hw: Hardware | None = None) -> BoostedModel:
    """Fit gradient-boosted trees (:data:`BOOSTED`) on a :data:`BOOSTED_ROWS` share of each shape's landscape.

    The trees are scikit-learn's ``HistGradientBoostingRegressor``, the library's boosted-tree
    regressor (the model family of TVM's and Ansor's cost models). It runs on one OpenMP thread:
    on a busy two-core machine its default threading is an order of magnitude slower. Needs the
    book extras (scikit-learn).

    Examples
    --------
    >>> m = fit_boosted([(4096, 4096, 4096), (16, 4096, 4096), (512, 14336, 4096)])
    >>> m.rank((2048, 4096, 4096), k=1)[0].as_tuple()[:2]
    (256, 128)
    """
    from sklearn.ensemble import HistGradientBoostingRegressor  # book extras: scikit-learn
    from threadpoolctl import threadpool_limits

    _check_set(feature_set)
    hw = check_hardware(hw)
    check_int("seed", seed, minimum=0)
    mnks = tuple(dict.fromkeys(as_mnk(s) for s in check_sequence(shapes, "shapes", "(M, N, K)")))
    if not mnks:
        raise ValueError("fit_boosted needs at least one training shape")
    X, y = _training_rows(mnks, feature_set, hw)
    rows = np.random.default_rng(seed).permutation(len(y))[: max(1, round(BOOSTED_ROWS * len(y)))]
    with threadpool_limits(1):
        reg = HistGradientBoostingRegressor(**BOOSTED, random_state=seed).fit(X[rows], y[rows])
    return BoostedModel(feature_set=feature_set, train_shapes=mnks, regressor=reg, seed=int(seed), hw=hw)


def fixed_ranking(shapes, hw: Hardware | None = None) -> tuple[tuple[GemmConfig, ...], np.ndarray]:
    """Configurations by geometric-mean slowdown (time / the shape's best) over ``shapes``, lowest first.

    Its first entry is the one-configuration-for-all baseline; its first ``k`` the best fixed
    list of ``k`` to autotune among.

    Examples
    --------
    >>> order, gmean = fixed_ranking([(4096, 4096, 4096), (2048, 2048, 512)])
    >>> order[0].as_tuple(), float(gmean[0])
    ((256, 128, 32, 8, 4, 1), 1.0)
    """
    lands = [landscape(as_mnk(s), hw) for s in shapes]
    if not lands:
        raise ValueError("fixed_ranking needs at least one shape")
    log_slow = np.mean([np.log(land.ratio) for land in lands], axis=0)
    order = np.argsort(log_slow, kind="stable")
    return tuple(lands[0].configs[i] for i in order), np.exp(log_slow[order])


def nearest_shape(shape, candidates) -> tuple[int, int, int]:
    """The candidate nearest to ``shape`` in ``(log2 M, log2 N, log2 K)`` (the first on ties).

    Examples
    --------
    >>> nearest_shape((32, 4096, 4096), [(16, 4096, 4096), (512, 4096, 4096)])
    (16, 4096, 4096)
    """
    target = np.log2(as_mnk(shape))
    cands = [as_mnk(c) for c in candidates]
    if not cands:
        raise ValueError("nearest_shape needs at least one candidate")
    dist = [float(np.sum((np.log2(c) - target) ** 2)) for c in cands]
    return cands[int(np.argmin(dist))]


class Regret(NamedTuple):
    """Best true time among a method's first ``k`` picks over the shape's true best, ``k`` in :data:`TOP_K`."""

    top1: float
    top5: float
    top10: float


@dataclass(frozen=True)
class HeldOut:
    """One held-out shape: each method's picks and regrets; the model's log-time RMSE on it."""

    shape: tuple[int, int, int]
    name: str
    fold: str
    train_shapes: tuple[tuple[int, int, int], ...]
    best: GemmConfig
    best_time_s: float
    picks: tuple[GemmConfig, GemmConfig, GemmConfig]  # each method's first pick, in METHODS order
    model: Regret
    fixed: Regret
    nearest: Regret
    nearest_shape: tuple[int, int, int]
    log_rmse: float

    def pick(self, method: str) -> GemmConfig:
        """``method``'s first choice on this shape."""
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        return self.picks[METHODS.index(method)]

    def regret(self, method: str, k: int = 1) -> float:
        """``method``'s best-of-top-``k`` time over the true best."""
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        if k not in TOP_K:
            raise ValueError(f"k must be one of {TOP_K}, got {k!r}")
        return getattr(self, method)[TOP_K.index(k)]


def _regret(ratio: np.ndarray, order: np.ndarray) -> Regret:
    return Regret(*(float(ratio[order[:k]].min()) for k in TOP_K))


@dataclass(frozen=True)
class CrossValidation:
    """Every held-out shape of a leave-one-group-out split, and the time spent fitting and predicting."""

    split: str
    feature_set: str
    alpha: float | str  # the ridge penalty given, "nested", or None for the boosted trees
    results: tuple[HeldOut, ...]
    fit_s: float
    predict_s: float
    model: str = "ridge"
    alphas: tuple[float, ...] = ()  # the penalty each fold's ridge used, in fold order (ridge only)

    def regrets(self, method: str, k: int = 1) -> np.ndarray:
        """Per held-out shape, ``method``'s best-of-top-``k`` regret."""
        return np.array([r.regret(method, k) for r in self.results])

    def geomean_regret(self, method: str, k: int = 1) -> float:
        return float(np.exp(np.mean(np.log(self.regrets(method, k)))))

    def worst_regret(self, method: str, k: int = 1) -> float:
        return float(self.regrets(method, k).max())

    @property
    def pooled_log_rmse(self) -> float:
        """RMSE of the predicted ``log(time_s)`` over every held-out row: every shape has the same
        launchable rows, so it is the root of the mean of the shapes' squared RMSEs."""
        return math.sqrt(sum(r.log_rmse**2 for r in self.results) / len(self.results))

    def hit_rate(self, method: str, k: int = 1, tol: float = 0.05) -> float:
        """Fraction of held-out shapes where one of ``method``'s first ``k`` picks is within ``tol`` of the best."""
        return float(np.mean(self.regrets(method, k) <= 1.0 + tol))


def cross_validate(
    split: str = "projection",
    feature_set: str = "tile",
    alpha: float | str = ALPHA,
    shapes=None,
    hw: Hardware | None = None,
    model: str = "ridge",
) -> CrossValidation:
    """Leave one group of shapes out at a time; rank its configurations by the model and the baselines.

    Parameters
    ----------
    split : {"projection", "tokens", "both"}
    feature_set : {"tile", "knobs", "knobs+pairs"}
    alpha : float or "nested"
        The ridge penalty; ``"nested"`` lets each fold choose among :data:`ALPHAS` with
        :func:`choose_alpha` on its own training shapes (same split). Not used by ``"boosted"``.
    shapes : iterable of Shape, optional
        Default :func:`study_shapes`.
    hw : Hardware
    model : {"ridge", "boosted"}
        The regression: :func:`fit` or :func:`fit_boosted` (seed 0).

    Examples
    --------
    >>> cv = cross_validate("tokens")
    >>> len(cv.results), all(r.shape not in r.train_shapes for r in cv.results)
    (22, True)
    >>> cv.geomean_regret("model") < cv.geomean_regret("fixed")
    True
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    hw = check_hardware(hw)
    nested = isinstance(alpha, str)
    if nested and alpha != "nested":
        raise ValueError(f"alpha must be a non-negative number or 'nested', got {alpha!r}")
    if model == "boosted" and (nested or alpha != ALPHA):
        raise ValueError("alpha is the ridge's penalty; the boosted trees take none")
    shapes = study_shapes() if shapes is None else tuple(shapes)
    results, fit_s, predict_s, alphas = [], 0.0, 0.0, []
    for group, train, test in folds(split, shapes):
        for s in train:
            landscape(as_mnk(s), hw)  # landscapes are the data, not the training time
        start = time.perf_counter()
        if model == "boosted":
            regression = fit_boosted(train, feature_set, hw=hw)
        else:
            alphas.append(choose_alpha(train, split, feature_set, hw=hw) if nested else alpha)
            regression = fit(train, feature_set, alphas[-1], hw)
        fit_s += time.perf_counter() - start
        fixed_order, _ = fixed_ranking(train, hw)
        train_mnk = tuple(as_mnk(s) for s in train)
        for s in test:
            land = landscape(as_mnk(s), hw)
            start = time.perf_counter()
            pred = regression.predict_log_time(land.configs, land.shape)
            order = np.argsort(pred, kind="stable")
            predict_s += time.perf_counter() - start
            ratio = land.ratio
            fixed_idx = np.array([land.index[c] for c in fixed_order])
            near = nearest_shape(s, train_mnk)
            near_order = np.argsort(landscape(near, hw).time_s, kind="stable")  # same config order
            results.append(
                HeldOut(
                    shape=land.shape,
                    name=s.short if isinstance(s, Shape) else "×".join(map(str, land.shape)),
                    fold=group,
                    train_shapes=regression.train_shapes,
                    best=land.best,
                    best_time_s=land.best_time_s,
                    picks=(land.configs[order[0]], fixed_order[0], land.configs[near_order[0]]),
                    model=_regret(ratio, order),
                    fixed=_regret(ratio, fixed_idx),
                    nearest=_regret(ratio, near_order),
                    nearest_shape=near,
                    log_rmse=float(np.sqrt(np.mean((pred - np.log(land.time_s)) ** 2))),
                )
            )
    return CrossValidation(
        split=split,
        feature_set=feature_set,
        alpha=None if model == "boosted" else alpha if nested else float(alpha),
        results=tuple(results),
        fit_s=fit_s,
        predict_s=predict_s,
        model=model,
        alphas=tuple(float(a) for a in alphas),
    )
