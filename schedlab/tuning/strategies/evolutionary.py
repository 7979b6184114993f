"""Evolutionary search in the style of TVM's Ansor / MetaSchedule: tournament, crossover, mutation, elitism."""

from __future__ import annotations

import numpy as np

from schedlab.core.hardware import Hardware
from schedlab.tuning.harness import SearchTrace, run_strategy
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE, strategy_rng

__all__ = ["evolutionary", "EVO_POPULATION", "EVO_CANDIDATES"]

#: This strategy's name in the registry (:mod:`schedlab.tuning.strategies`).
NAME = "evolutionary"

#: Evolutionary search: population size, candidate children drawn per generation.
EVO_POPULATION, EVO_CANDIDATES = 16, 64


def evolutionary(
    shape, budget: int = DEFAULT_BUDGET, seed: int = 0, noise: float = DEFAULT_NOISE, hw: Hardware | None = None
) -> SearchTrace:
    """Evolve a population of configs, in the style of TVM's Ansor / MetaSchedule search.

    A population of 16 random configs is measured. Each generation draws 64 candidate
    children: two parents by tournament (the better-measured of two random members),
    uniform crossover (each knob from either parent), then a mutation of one random knob
    to the next smaller or larger value. Candidates that cannot launch
    are pruned for free; measured ones and repeats are dropped; up to 16 fresh children are
    measured (random unmeasured immigrants fill a short batch). The best 16 of parents and
    children by measured time survive (elitism: the best is never lost).

    Examples
    --------
    >>> t = evolutionary((512, 14336, 4096), budget=100, seed=0)
    >>> len(t), len(set(t.configs))
    (100, 100)
    """
    return run_strategy(NAME, shape, budget, seed, noise, hw)


def core(context, seeds, budget, factors, **_):
    """Lock step over seeds: every generation each seed measures the same number of children."""
    tables = context.neighbours
    n = tables.n
    S = len(seeds)
    C = EVO_CANDIDATES
    K = tables.n_knobs
    sizes = np.array(tables.sizes)
    rows = np.arange(S)[:, None]
    P = min(EVO_POPULATION, budget)
    rngs = [strategy_rng(s) for s in seeds]
    perm = np.stack([g.permutation(n) for g in rngs])  # initial population, then immigrants in this order
    pointer = np.full(S, P)
    tm = context.times[None, :] * np.asarray(factors)
    order = np.full((S, budget), -1, dtype=np.int64)
    seen = np.zeros((S, n), dtype=bool)
    pop = perm[:, :P].copy()
    order[:, :P] = pop
    seen[rows, pop] = True
    count = P
    while count < budget:
        want = min(P, budget - count)
        u = np.stack([g.random((C, K + 6)) for g in rngs])  # (S, C, K + 6): all of a generation's dice
        ranked = np.take_along_axis(pop, np.argsort(np.take_along_axis(tm, pop, axis=1), axis=1, kind="stable"), axis=1)
        # tournament of two: the better-ranked of two random members, for each parent
        pick = (u[:, :, :4] * P).astype(np.int64)
        a = np.take_along_axis(ranked, np.minimum(pick[:, :, 0], pick[:, :, 1]), axis=1)
        b = np.take_along_axis(ranked, np.minimum(pick[:, :, 2], pick[:, :, 3]), axis=1)
        child = np.where(u[:, :, 4 : 4 + K] < 0.5, tables.knobs[a], tables.knobs[b])  # uniform crossover
        # mutation: one random knob one step up or down (down at the top, up at the bottom)
        j = (u[:, :, 4 + K] * K).astype(np.int64)
        step = np.where(u[:, :, 5 + K] < 0.5, -1, 1)
        v = np.take_along_axis(child, j[:, :, None], axis=2)[:, :, 0] + step
        v = np.where((v < 0) | (v >= sizes[j]), v - 2 * step, v)
        np.put_along_axis(child, j[:, :, None], v[:, :, None], axis=2)
        idx = tables.index_of(child)  # pruning: -1 cannot launch
        fresh = (idx >= 0) & ~seen[rows, np.maximum(idx, 0)]
        # drop repeats within a generation: keep each config's first occurrence
        key = np.where(fresh, idx, n + np.arange(C))
        srt = np.argsort(key, axis=1, kind="stable")
        ks = np.take_along_axis(key, srt, axis=1)
        dup_sorted = np.concatenate([np.zeros((S, 1), bool), ks[:, 1:] == ks[:, :-1]], axis=1)
        dup = np.empty_like(dup_sorted)
        np.put_along_axis(dup, srt, dup_sorted, axis=1)
        fresh &= ~dup
        rank = np.cumsum(fresh, axis=1) - 1
        take = fresh & (rank < want)
        new = np.full((S, want), -1, dtype=np.int64)
        r, c = np.nonzero(take)
        new[r, rank[r, c]] = idx[r, c]
        seen[r, idx[r, c]] = True
        for s in np.flatnonzero(new[:, -1] < 0):  # too few fresh children: immigrants fill the batch
            for slot in np.flatnonzero(new[s] < 0):
                p = pointer[s]
                while seen[s, perm[s, p]]:
                    p += 1
                new[s, slot] = perm[s, p]
                seen[s, perm[s, p]] = True
                pointer[s] = p + 1
        order[:, count : count + want] = new
        count += want
        both = np.concatenate([pop, new], axis=1)  # elitism: the best P of parents and children survive
        keep = np.argsort(np.take_along_axis(tm, both, axis=1), axis=1, kind="stable")[:, :P]
        pop = np.take_along_axis(both, keep, axis=1)
    return order, None
