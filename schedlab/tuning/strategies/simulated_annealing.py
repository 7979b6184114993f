"""Simulated annealing: a random walk over one-knob neighbours, accepting worse ones less and less often."""

from __future__ import annotations

import math

import numpy as np

from schedlab.core.hardware import Hardware
from schedlab.tuning.harness import SearchTrace, run_strategy
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE, strategy_rng

__all__ = ["simulated_annealing", "SA_T0", "SA_T_END", "SA_PATIENCE", "SA_PROPOSALS"]

#: This strategy's name in the registry (:mod:`schedlab.tuning.strategies`).
NAME = "annealing"

#: Simulated annealing's temperature, in units of log(time): geometric from T0 to T_END over the budget;
#: proposals in a row that hit only measured configs before a restart.
SA_T0, SA_T_END, SA_PATIENCE = 0.2, 0.02, 30
#: A run stops after ``SA_PROPOSALS[0] * budget + SA_PROPOSALS[1]`` proposals.
SA_PROPOSALS = (40, 100)
_SA_CHUNK = 256  # uniforms drawn per seed at a time


def simulated_annealing(
    shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE, hw: Hardware | None = None
) -> SearchTrace:
    """A random walk over one-knob-adjacent configs that accepts worse ones less and less often.

    Each step proposes a uniformly chosen launchable neighbour: one knob moved to the next
    smaller or larger value. Measuring it costs one measurement unless it was measured
    before. The move is accepted if it is not slower, else with probability
    ``exp(-(log t_new - log t_cur) / T)``.

    Notes
    -----
    Temperature schedule: geometric in the measurements spent,
    ``T = T0 * (T_end / T0) ** (used / budget)`` with ``T0 = 0.2`` and ``T_end = 0.02`` in
    units of log(time): a 20 % slower neighbour (``log 1.2 = 0.18``) is accepted with
    probability 0.40 at the start and 0.0001 at the end; a 5 % slower one with 0.78 and
    0.09. When ``30`` proposals in a row hit only measured configs (the walker is frozen in
    a region it has fully measured), it restarts at a fresh random config; ``info["restarts"]``
    counts those. A run also stops after ``40 * budget + 100`` proposals.

    Examples
    --------
    >>> t = simulated_annealing((2048, 2048, 512), budget=200, seed=0)
    >>> len(t), len(set(t.configs))
    (200, 200)
    """
    return run_strategy(NAME, shape, budget, seed, noise, hw)


def core(context, seeds, budget, factors, **_):
    """Lock step over seeds; each seed draws its own uniforms, 256 proposals at a time."""
    tables = context.neighbours
    n = tables.n
    S = len(seeds)
    rows = np.arange(S)
    rngs = [strategy_rng(s) for s in seeds]
    starts = np.stack([g.permutation(n) for g in rngs])
    logm = np.log(context.times[None, :] * np.asarray(factors))
    degree = (tables.adjacent >= 0).sum(axis=1)
    order = np.full((S, budget), -1, dtype=np.int64)
    seen = np.zeros((S, n), dtype=bool)
    cur = starts[:, 0].copy()
    seen[rows, cur] = True
    order[:, 0] = cur
    count = np.ones(S, dtype=np.int64)
    pointer = np.ones(S, dtype=np.int64)  # next candidate restart point in starts
    since = np.zeros(S, dtype=np.int64)
    restarts = np.zeros(S, dtype=np.int64)
    active = count < budget
    decay = math.log(SA_T_END / SA_T0)
    cap = SA_PROPOSALS[0] * budget + SA_PROPOSALS[1]
    t = 0
    while active.any() and t < cap:
        if t % _SA_CHUNK == 0:
            draws = np.stack([g.random((_SA_CHUNK, 2)) for g in rngs], axis=1)  # (chunk, S, 2)
        u = draws[t % _SA_CHUNK]
        t += 1
        c = tables.adjacent[cur, (u[:, 0] * degree[cur]).astype(np.int64)]
        c = np.where(degree[cur] > 0, c, cur)  # a config with no neighbour proposes itself (measured: no charge)
        new = active & ~seen[rows, c]
        r = rows[new]
        order[r, count[r]] = c[new]
        seen[r, c[new]] = True
        count += new
        since = np.where(new, 0, since + 1)
        d = logm[rows, c] - logm[rows, cur]
        temp = SA_T0 * np.exp(decay * count / budget)
        accept = active & ((d <= 0) | (u[:, 1] < np.exp(-np.maximum(d, 0) / temp)))
        cur = np.where(accept, c, cur)
        stuck = active & (since >= SA_PATIENCE) & (count < budget)
        for s in np.flatnonzero(stuck):  # frozen: every nearby config measured; restart somewhere fresh
            p = pointer[s]
            while p < n and seen[s, starts[s, p]]:
                p += 1
            pointer[s] = p
            if p == n:
                active[s] = False
                continue
            cur[s] = starts[s, p]
            seen[s, cur[s]] = True
            order[s, count[s]] = cur[s]
            count[s] += 1
            since[s] = 0
            restarts[s] += 1
        active &= count < budget
    return order, [{"restarts": int(k)} for k in restarts]
