"""The regressions of the learned cost model: a ridge on ``log(time)``, and gradient-boosted trees.

Both are trained on the full landscapes of some shapes: every launchable configuration of a
training shape is one row, its features :func:`schedlab.tuning.features.features` (a feature set of
:data:`~schedlab.tuning.features.FEATURE_SETS`), its target ``log(time_s)``; both read one memoised
table of training rows per shape (:func:`training_rows`). :func:`fit` is ridge regression (numpy
normal equations, standardised features, unpenalised intercept); :func:`fit_boosted` is
scikit-learn's ``HistGradientBoostingRegressor`` (:data:`BOOSTED`) on a share of the rows. The
cross-validation that evaluates them, and chooses the ridge's strength, is :mod:`schedlab.tuning.learned`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_int, check_sequence, is_number
from schedlab.core.hardware import H100_TC, Hardware, check_hardware
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.launch import launchable
from schedlab.core.shapes import as_mnk
from schedlab.tuning.features import FEATURE_SETS, check_feature_set, features

__all__ = [
    "ALPHA",
    "ALPHAS",
    "MODELS",
    "BOOSTED",
    "BOOSTED_ROWS",
    "CostModel",
    "training_rows",
    "standardiser",
    "ridge",
    "fit",
    "BoostedModel",
    "fit_boosted",
]

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


def training_rows(shapes, feature_set: str, hw: Hardware):
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


def standardiser(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and standard deviations; a constant column (e.g. K over shapes of one K) gets scale 1."""
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale


def ridge(Z: np.ndarray, y: np.ndarray, alphas) -> tuple[float, list[np.ndarray]]:
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
    check_feature_set(feature_set)
    if not is_number(alpha) or not alpha >= 0:
        raise ValueError(f"alpha must be a non-negative number, got {alpha!r}")
    mnks = tuple(dict.fromkeys(as_mnk(s) for s in check_sequence(shapes, "shapes", "(M, N, K)")))
    if not mnks:
        raise ValueError("fit needs at least one training shape")
    hw = check_hardware(hw)
    X, y = training_rows(mnks, feature_set, hw)
    mean, scale = standardiser(X)
    Z = (X - mean) / scale
    y_mean, (coef,) = ridge(Z, y, (alpha,))
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

    check_feature_set(feature_set)
    hw = check_hardware(hw)
    check_int("seed", seed, minimum=0)
    mnks = tuple(dict.fromkeys(as_mnk(s) for s in check_sequence(shapes, "shapes", "(M, N, K)")))
    if not mnks:
        raise ValueError("fit_boosted needs at least one training shape")
    X, y = training_rows(mnks, feature_set, hw)
    rows = np.random.default_rng(seed).permutation(len(y))[: max(1, round(BOOSTED_ROWS * len(y)))]
    with threadpool_limits(1):
        reg = HistGradientBoostingRegressor(**BOOSTED, random_state=seed).fit(X[rows], y[rows])
    return BoostedModel(feature_set=feature_set, train_shapes=mnks, regressor=reg, seed=int(seed), hw=hw)
