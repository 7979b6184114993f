"""Model-guided search: a ridge regression on static features, refitted as measurements arrive, picks the next."""

from __future__ import annotations

import numpy as np

from schedlab.core.checks import check_int
from schedlab.core.hardware import Hardware
from schedlab.tuning.harness import SearchTrace, run_strategy
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE, strategy_rng

__all__ = ["model_guided", "MG_INITIAL", "MG_BATCH", "MG_RIDGE"]

#: This strategy's name in the registry (:mod:`schedlab.tuning.strategies`).
NAME = "model"

#: Model-guided search: random configs measured first, configs measured per refit, ridge strength.
MG_INITIAL, MG_BATCH, MG_RIDGE = 16, 8, 1.0


def model_guided(
    shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE, hw: Hardware | None = None
) -> SearchTrace:
    """Fit a cheap learned cost model to the measurements so far and measure its favourites.

    After 16 random configs, repeat: fit ridge regression (numpy, closed form) of
    log(measured time) on the features below, over every config measured so far; predict
    all unmeasured launchable configs; measure the 8 with the lowest prediction.

    Notes
    -----
    Features (:func:`~schedlab.tuning.features.feature_names`, standardised over the 3744 launchable configs): log2
    of each of the six knobs; log2 of the warp tile (rows and columns of C per warp); a
    one-stage indicator (no load/compute overlap); log2 resident blocks per SM; log2
    waves; how full the waves are (blocks / (waves * blocks per wave)); log2 k-steps;
    log2 of the real/padded fraction of a block's rows and columns; log2 shared-memory
    bytes; and the 21 products (squares included) of the six log-knobs. Each is a static
    property of the config and shape -- what a compiler knows before running anything --
    not a model time. Ridge strength 1.0 (intercept not penalised).

    Examples
    --------
    >>> t = model_guided((4096, 4096, 4096), budget=64, seed=0)
    >>> len(t), len(set(t.configs))
    (64, 64)
    """
    return run_strategy(NAME, shape, budget, seed, noise, hw)


def _predict(W: np.ndarray, XT: np.ndarray) -> np.ndarray:
    """``W @ XT`` in column blocks small enough that OpenBLAS runs each on one thread.

    On a small, busy machine a threaded (100 x 38) @ (38 x 3744) product is ten times
    slower than the same product in single-threaded blocks.
    """
    S, d = W.shape
    n = XT.shape[1]
    cols = max(16, (9216 if S == 1 else 262144 // S) // d)
    out = np.empty((S, n))
    for a in range(0, n, cols):
        np.matmul(W, XT[:, a : a + cols], out=out[:, a : a + cols])
    return out


def core(context, seeds, budget, factors, initial: int = MG_INITIAL, **_):
    """Lock step over seeds: every seed measures the same number of configs per round.

    ``initial`` random configs come first (default :data:`MG_INITIAL`; the search page's rules give
    :data:`~schedlab.tuning.measurer.INITIAL_SAMPLES`, as Kernel Tuner's ``bayes_opt`` takes).
    """
    initial = check_int("initial", initial, minimum=1)
    X = context.features
    if X is None:
        raise ValueError("model-guided search learns from the model's static features; this landscape has none")
    n, d = X.shape
    S = len(seeds)
    Xa = np.concatenate([X, np.ones((n, 1))], axis=1)  # intercept column (not penalised)
    XT = np.ascontiguousarray(Xa.T)
    pen = np.eye(d + 1) * MG_RIDGE
    pen[d, d] = 0.0
    order = np.full((S, budget), -1, dtype=np.int64)
    n0 = min(initial, budget)
    order[:, :n0] = [strategy_rng(s).permutation(n)[:n0] for s in seeds]
    logm = np.log(context.times[None, :] * np.asarray(factors))  # (S, n)
    rows = np.arange(S)
    blocked = np.zeros((S, n))  # +inf where measured: never proposed again
    blocked[rows[:, None], order[:, :n0]] = np.inf
    Xm = Xa[order[:, :n0]]  # (S, n0, d+1)
    G = Xm.transpose(0, 2, 1) @ Xm  # normal equations, updated as measurements arrive
    r = (logm[rows[:, None], order[:, :n0]][:, None, :] @ Xm)[:, 0]
    count = n0
    while count < budget:
        w = np.linalg.solve(G + pen, r[:, :, None])[:, :, 0]  # (S, d+1)
        pred = _predict(w, XT)
        pred += blocked
        k = min(MG_BATCH, budget - count)
        for step in range(k):  # the k lowest predictions, lowest first
            best = np.argmin(pred, axis=1)
            order[:, count + step] = best
            pred[rows, best] = np.inf
        top = order[:, count : count + k]
        blocked[rows[:, None], top] = np.inf
        Xn = Xa[top]
        G += Xn.transpose(0, 2, 1) @ Xn
        r += (logm[rows[:, None], top][:, None, :] @ Xn)[:, 0]
        count += k
    return order, None
