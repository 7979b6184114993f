"""A learned cost model across shapes: predict the best configuration of a shape never tuned.

The lecture ends its demo 3 with "tune per bucket, cache, or predict with a learned cost
model". This module is the third option, in the spirit of TVM's cost model: features of a
(configuration, shape) pair, a regression on ``log(time)`` trained on the full landscapes of
some shapes, and the model's ranking of every launchable configuration on a held-out shape.

The features are :func:`schedlab.tuning.features.features` (feature sets
:data:`~schedlab.tuning.features.FEATURE_SETS`: ``knobs``, ``knobs+pairs`` and the default ``tile``);
no feature uses a hardware rate (FLOP/s, bytes/s, latency): the model learns those and how the
resources combine. A linear model in log space turns products of these counts into sums, which is
why ``tile`` ranks almost perfectly while ``knobs`` alone cannot.

The target is ``log(time_s)`` of every launchable configuration; the fit is a ridge regression or
gradient-boosted trees (:mod:`schedlab.tuning.regression`). Evaluation (:func:`cross_validate`)
holds out whole groups of shapes (:func:`folds`) -- every shape of one projection ``(N, K)``
(``split="projection"``) or of one token count ``M`` (``split="tokens"``) -- over the 22 distinct
shapes of :func:`schedlab.core.shapes.study_shapes`, and compares with two baselines that use the
same training landscapes: one fixed configuration for all shapes (:func:`fixed_ranking`: the lowest
geometric-mean slowdown over the training shapes) and the best configuration of the nearest
training shape (:func:`nearest_shape`, in ``log M, log N, log K``). The ridge's strength may be
chosen per fold by a nested cross-validation (:func:`choose_alpha`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from schedlab.core.checks import is_number
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.shapes import Shape, as_mnk, study_shapes
from schedlab.tuning.features import FEATURE_SETS
from schedlab.tuning.regression import ALPHA, ALPHAS, MODELS, fit, fit_boosted, ridge, standardiser, training_rows

__all__ = [
    "SPLITS",
    "folds",
    "choose_alpha",
    "TOP_K",
    "METHODS",
    "fixed_ranking",
    "nearest_shape",
    "Regret",
    "HeldOut",
    "CrossValidation",
    "cross_validate",
]

#: Held-out groups: every shape of one projection ``(N, K)``; of one token count ``M``; or one shape
#: with every shape that shares its ``(N, K)`` or its ``M`` left out of training ("both").
SPLITS = ("projection", "tokens", "both")


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
        X, y = training_rows(train, feature_set, hw)
        mean, scale = standardiser(X)
        y_mean, coefs = ridge((X - mean) / scale, y, alphas)
        Xt, yt = training_rows(test, feature_set, hw)
        Zt = (Xt - mean) / scale
        sse += [float(np.sum((Zt @ c + y_mean - yt) ** 2)) for c in coefs]
    return float(alphas[np.flatnonzero(sse <= sse.min() * (1 + 1e-12))[-1]])


#: The ``k`` of top-k: the best true time among the model's ``k`` first picks.
TOP_K = (1, 5, 10)
#: The predictor and the two baselines, as named in :class:`HeldOut`.
METHODS = ("model", "fixed", "nearest")


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
    given: Shape | tuple[int, int, int]  # the shape as given (a Shape keeps its key for the labels)
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

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The features the regression read (:data:`schedlab.tuning.features.FEATURE_SETS`)."""
        return FEATURE_SETS[self.feature_set]

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
                    given=s if isinstance(s, Shape) else land.shape,
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
