"""A measured landscape as a search context: its configurations on the grid of its knobs, and its noise.

A :class:`~schedlab.core.measured.MeasuredLandscape` (any Kernel Tuner cache file, read by
:func:`schedlab.tuning.cache.read_cache`) becomes a search context (:func:`measured_context`): the
configurations with a recorded time are the ones a tuner may measure, on the grid of the knobs that
take more than one value; every other grid point (one that failed to compile or run, or was never
recorded) is pruned before measuring, free, as unlaunchable configurations are on the model.

The measuring rules are the harness's (:mod:`schedlab.tuning.harness`): a budget of unique
measurements, cached repeats free, common random numbers per seed. Only the noise is the
landscape's own: seed ``s`` measures configuration ``i`` as one of its recorded repeats, drawn
uniformly by ``numpy.random.default_rng([0, s])`` (:func:`repeat_factors`); the truth a run is
scored against is the recorded mean.
"""

from __future__ import annotations

import numpy as np

from schedlab.core.checks import check_int
from schedlab.core.measured import MeasuredLandscape
from schedlab.tuning.measurer import SearchContext
from schedlab.tuning.neighbours import grid_tables

__all__ = ["measured_context", "repeat_factors"]


def measured_context(measured: MeasuredLandscape) -> SearchContext:
    """The search context of a measured landscape: its configurations on the grid of its varying knobs.

    ``times`` are the recorded mean times in seconds; ``features`` is ``None`` (there is no model).

    Examples
    --------
    >>> from schedlab.core.measured import MeasuredLandscape
    >>> from types import MappingProxyType
    >>> m = MeasuredLandscape("gpu", "k", (64,), MappingProxyType({"a": (1, 2), "b": (7,)}),
    ...                       np.array([[0, 0], [1, 0]]), np.array([2.0, 1.0]), None, np.zeros((0, 2), int))
    >>> c = measured_context(m)
    >>> c.n_configs, c.neighbours.sizes, c.optimum
    (2, (2,), 0.001)
    """
    varying = measured.varying()
    if not varying:
        raise ValueError(f"{measured.source}: every knob takes one value; there is nothing to search")
    sizes = tuple(len(v) for v in measured.tune_params.values())
    tables = grid_tables(measured.knobs[:, varying], [sizes[j] for j in varying])
    times = measured.time_ms / 1e3
    times.flags.writeable = False
    return SearchContext(
        mnk=measured.problem_size,
        land=measured,
        neighbours=tables,
        times=times,
        optimum=float(times.min()),
        features=None,
    )


def repeat_factors(measured: MeasuredLandscape, seed: int) -> np.ndarray:
    """Seed ``seed``'s measurement of each configuration over its recorded mean: one recorded repeat each.

    Notes
    -----
    ``factor[i] = repeats_ms[i, r_i] / time_ms[i]`` with ``r_i`` uniform over the repeats in
    ascending order (so the order they were recorded in does not matter), drawn by
    ``numpy.random.default_rng([0, seed])`` (the harness's noise stream): every strategy run
    with one seed meets the same "machine", and the spread of a configuration's measurements is
    the spread it really had.

    Examples
    --------
    >>> from schedlab.core.measured import MeasuredLandscape
    >>> from types import MappingProxyType
    >>> m = MeasuredLandscape("gpu", "k", (), MappingProxyType({"a": (1, 2)}), np.array([[0], [1]]),
    ...                       np.array([2.0, 1.0]), np.array([[1.8, 2.2], [1.0, 1.0]]), np.zeros((0, 1), int))
    >>> f = repeat_factors(m, 0)
    >>> bool(f[0] in (0.9, 1.1)), float(f[1])
    (True, 1.0)
    """
    seed = check_int("seed", seed, minimum=0)
    if measured.repeats_ms is None:
        raise ValueError(f"{measured.source} records no repeats (times) to draw measurements from")
    repeats = np.sort(measured.repeats_ms, axis=1)  # a multiset: the cache file and its compact copy agree
    n, r = repeats.shape
    pick = np.random.default_rng([0, seed]).integers(r, size=n)
    return repeats[np.arange(n), pick] / measured.time_ms
