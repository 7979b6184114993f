"""Random search: launchable configs drawn uniformly without replacement."""

from __future__ import annotations

import numpy as np

from schedlab.core.hardware import Hardware
from schedlab.tuning.harness import SearchTrace, run_strategy
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE, strategy_rng

__all__ = ["random_search"]

#: This strategy's name in the registry (:mod:`schedlab.tuning.strategies`).
NAME = "random"


def random_search(
    shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE, hw: Hardware | None = None
) -> SearchTrace:
    """Measure launchable configs drawn uniformly without replacement.

    Parameters are those of :func:`~schedlab.tuning.strategies.exhaustive.exhaustive`; the seed also fixes the draw order.

    Examples
    --------
    >>> t = random_search((4096, 4096, 4096), budget=50, seed=1)
    >>> len(t), len(set(t.configs))
    (50, 50)
    >>> bool((t.ratio[1:] <= t.ratio[:-1]).all() or t.noise > 0)  # with noise, belief can get worse
    True
    """
    return run_strategy(NAME, shape, budget, seed, noise, hw)


def core(context, seeds, budget, factors, **_):
    """Each seed's own permutation of the launchable configs, cut at the budget."""
    n = context.n_configs
    order = np.stack([strategy_rng(s).permutation(n)[:budget] for s in seeds])
    return order, None
