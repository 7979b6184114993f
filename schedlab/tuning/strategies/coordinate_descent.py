"""Coordinate descent: one knob at a time from a random start, restarting after each local optimum."""

from __future__ import annotations

import numpy as np

from schedlab.core.hardware import Hardware
from schedlab.tuning.harness import SearchTrace, run_strategy
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE, strategy_rng

__all__ = ["coordinate_descent"]

#: This strategy's name in the registry (:mod:`schedlab.tuning.strategies`).
NAME = "descent"


def coordinate_descent(
    shape,
    budget: int = DEFAULT_BUDGET,
    seed: int = 0,
    noise: float = DEFAULT_NOISE,
    hw: Hardware | None = None,
    restarts: bool = True,
) -> SearchTrace:
    """Tune one knob at a time, from a random launchable start, until no single-knob move helps.

    For the current config, knob ``j`` (cycling through ``SPACE`` order) is swept over every
    value whose config can launch; the walker moves to the best-measured of them if it
    beats the current config strictly. When all the knobs in a row bring no move, no
    single-knob change improves the measured time: the descent has stopped in a local
    optimum. With ``restarts`` the remaining budget goes to a new descent from a fresh
    random unmeasured start (cached measurements stay free).

    Parameters
    ----------
    shape, budget, seed, noise, hw
        As in :func:`~schedlab.tuning.strategies.exhaustive.exhaustive`; the seed also fixes the start points.
    restarts : bool
        Start again after a local optimum while budget is left (default). ``False`` stops
        the run at the first local optimum, so the trace may be shorter than the budget.

    Returns
    -------
    SearchTrace
        ``info["descents"]`` lists every :class:`~schedlab.tuning.harness.Descent` (start, end,
        whether it ended in a local optimum or ran out of budget, end/optimum);
        ``info["local_optimum"]`` is the first descent's end if it was a local optimum, else None.

    Examples
    --------
    >>> t = coordinate_descent((4096, 4096, 4096), budget=3744, seed=3, noise=0, restarts=False)
    >>> d = t.info["descents"][0]
    >>> d.local, d.end == t.info["local_optimum"] == t.best
    (True, True)
    """
    return run_strategy(NAME, shape, budget, seed, noise, hw, restarts=bool(restarts))


def core(context, seeds, budget, factors, restarts=True, **_):
    """One seed at a time, in Python over tuples (a descent is branchy and short); ``restarts`` as above."""
    tables = context.neighbours
    lines = tables.lines_py
    n, n_knobs = tables.n, tables.n_knobs
    order = np.full((len(seeds), budget), -1, dtype=np.int64)
    infos = []
    for row, (seed, fac) in enumerate(zip(seeds, factors)):
        tm = (context.times * fac).tolist()
        seen = bytearray(n)
        out: list[int] = []
        starts = strategy_rng(seed).permutation(n).tolist()
        p = 0
        descents = []
        while len(out) < budget:
            while p < n and seen[starts[p]]:
                p += 1
            if p == n:
                break
            cur = starts[p]
            start = cur
            seen[cur] = 1
            out.append(cur)
            stall, j, spent = 0, 0, False
            while stall < n_knobs:
                best, bt = cur, tm[cur]
                for c in lines[j][cur]:
                    if not seen[c]:
                        if len(out) >= budget:
                            spent = True
                            break
                        seen[c] = 1
                        out.append(c)
                    if tm[c] < bt:
                        best, bt = c, tm[c]
                if spent:
                    break
                if best != cur:
                    cur, stall = best, 1
                else:
                    stall += 1
                j = (j + 1) % n_knobs
            descents.append((start, cur, not spent))
            if not restarts:
                break
        order[row, : len(out)] = out
        infos.append({"descents": descents})
    return order, infos
