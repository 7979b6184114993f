"""Correctly rounded sums of float64 values, segment by segment, without a Python loop per segment.

The HBM replay (:mod:`.hbm`) sums each launch order's L2 corrections exactly and rounds once, as
:func:`math.fsum` does: that makes a launch order's bytes independent of which other launch orders
share its pass, and lets the closed form (a correction times the waves that repeat it) equal the
wave-by-wave sum bit for bit. :func:`segment_sums` does this for every segment at once in int64
arithmetic and falls back to Python integers only for a segment whose exact sum it cannot hold.
"""

from __future__ import annotations

import numpy as np

__all__ = ["segment_sums", "weighted_sum"]

_HALF = 26  # a 52-bit fraction is held as two 26-bit halves, so weights up to 2**36 cannot overflow int64
_MASK = (1 << _HALF) - 1


def segment_sums(values: np.ndarray, weights: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``sum(w * v)`` of each segment ``[starts[i], starts[i + 1])``, correctly rounded to float64.

    ``values`` are non-negative floats, ``weights`` non-negative int64 counts (``w * v`` is ``v``
    repeated ``w`` times, as :func:`math.fsum` of the repeated values would round it).

    Notes
    -----
    A value ``v >= 1`` is ``h + f`` with ``h = floor(v)`` an integer and ``f = v - h`` exactly a whole
    number of ``2**-52`` (the spacing of floats at or above 1 is at least that). So a segment's sum is
    ``A + F 2**-52`` with integers ``A = sum(w h)`` and ``F = sum(w f 2**52)``, accumulated exactly in
    int64 (``F`` in two 26-bit halves); after carrying, ``0 <= F < 2**52`` and, when ``A < 2**53``,
    both ``A`` and ``F 2**-52`` are floats, so their one floating-point addition is the correctly
    rounded sum. A segment with a value in ``(0, 1)``, a weight total of ``2**36`` or more, or a sum
    that may reach ``2**53`` (its float estimate ``2**52`` or more; int64 could overflow past it) is
    summed in Python integers instead (:func:`weighted_sum`).

    Examples
    --------
    >>> import math
    >>> v = np.array([0.1 * 2**30, 1e15 + 0.5, 3.0, 2.0**-3 + 7])
    >>> out = segment_sums(v, np.array([1, 3, 1, 1]), np.array([0, 2]))
    >>> out.tolist() == [math.fsum([v[0], v[1], v[1], v[1]]), math.fsum(v[2:])]
    True
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.int64)
    whole = np.floor(values)
    frac = ((values - whole) * 2.0**52).astype(np.int64)  # exact where values >= 1
    big = np.add.reduceat(weights * whole.astype(np.int64), starts)
    high = np.add.reduceat(weights * (frac >> _HALF), starts)
    low = np.add.reduceat(weights * (frac & _MASK), starts)
    high += low >> _HALF
    big += high >> _HALF
    fraction = ((high & _MASK) << _HALF) | (low & _MASK)
    out = big.astype(np.float64) + fraction.astype(np.float64) * 2.0**-52
    tiny = (values > 0) & (values < 1)
    estimate = np.add.reduceat(weights * values, starts)  # within a relative 1e-12 or so: enough to rule out 2**53
    unsafe = np.logical_or.reduceat(tiny, starts) | (np.add.reduceat(weights, starts) >= 2**36) | (estimate >= 2**52)
    ends = np.r_[starts[1:], len(values)]
    for i in np.flatnonzero(unsafe).tolist():
        out[i] = weighted_sum(values[starts[i] : ends[i]], weights[starts[i] : ends[i]])
    return out


def weighted_sum(values: np.ndarray, weights: np.ndarray) -> float:
    """``sum(w * v)`` of floats ``v`` and integer counts ``w``, correctly rounded: :func:`math.fsum` of every ``v`` repeated ``w`` times.

    Each float is an integer over a power of two (``float.as_integer_ratio``): the sum is exact in
    Python integers and rounded once by the (correctly rounded) integer division.

    Examples
    --------
    >>> import math
    >>> weighted_sum(np.array([0.1, 0.2]), np.array([10, 5])) == math.fsum([0.1] * 10 + [0.2] * 5)
    True
    """
    ratios = [v.as_integer_ratio() for v in values.tolist()]
    den = max(d for _, d in ratios)
    return sum(w * n * (den // d) for (n, d), w in zip(ratios, weights.tolist())) / den
