"""Memoisation with one switch: :func:`memoised` caches a pure function, :func:`clear_caches` forgets all.

Every cache of schedlab is keyed on plain, hashable arguments (shapes, a frozen ``Hardware``), so a
result can never go stale while the sources are unchanged; clearing is for cold-start benchmarks and
for tests that count work.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["memoised", "clear_caches"]

_CACHED = []  # every function memoised here, in definition order


def memoised(maxsize: int):
    """``functools.lru_cache(maxsize)`` whose cache :func:`clear_caches` also clears.

    Examples
    --------
    >>> @memoised(maxsize=4)
    ... def square(x):
    ...     return x * x
    >>> square(3), square.cache_info().misses
    (9, 1)
    >>> clear_caches(); square.cache_info().currsize
    0
    """

    def decorate(function):
        cached = lru_cache(maxsize=maxsize)(function)
        _CACHED.append(cached)
        return cached

    return decorate


def clear_caches() -> None:
    """Forget every memoised result of schedlab (launchable sets, landscapes, HBM replays, search tables)."""
    for cached in _CACHED:
        cached.cache_clear()
