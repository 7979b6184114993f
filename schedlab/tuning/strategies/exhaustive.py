"""Exhaustive search: every launchable config in ``SPACE`` order, as ``@triton.autotune`` runs its list."""

from __future__ import annotations

import numpy as np

from schedlab.core.hardware import Hardware
from schedlab.tuning.harness import SearchTrace, run_strategy
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE

__all__ = ["exhaustive"]

#: This strategy's name in the registry (:mod:`schedlab.tuning.strategies`).
NAME = "exhaustive"


def exhaustive(
    shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE, hw: Hardware | None = None
) -> SearchTrace:
    """Measure the launchable configs in ``SPACE`` order until the budget is spent.

    This is what ``@triton.autotune`` does with its list of configs: no strategy, just the
    list in the order written (here the whole pruned space, smallest ``BLOCK_M`` first).

    Parameters
    ----------
    shape : (M, N, K) or Shape
    budget : int
        Most measurements (a budget above 3744 measures every launchable config).
    seed : int
        Seeds only the measurement noise; the order never changes.
    noise : float
        Sigma of the lognormal measurement noise (``0``: exact model times).
    hw : Hardware

    Returns
    -------
    SearchTrace

    Examples
    --------
    >>> t = exhaustive((4096, 4096, 4096), budget=5000, seed=0, noise=0)
    >>> len(t), t.best.as_tuple(), float(t.ratio[-1])
    (3744, (256, 128, 32, 8, 4, 1), 1.0)
    """
    return run_strategy(NAME, shape, budget, seed, noise, hw)


def core(context, seeds, budget, factors, **_):
    """@triton.autotune over its config list: every launchable config in ``SPACE`` order."""
    order = np.full((len(seeds), budget), -1, dtype=np.int64)
    order[:, :] = np.arange(budget)
    return order, None
