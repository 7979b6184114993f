"""The replay's L2 corrections are summed exactly and rounded once (core/model/sums.py): the vectorised int64
sums equal math.fsum of every value repeated its weight's times, whichever path a segment takes."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from schedlab.core.model.sums import segment_sums
from tests.strategies import examples

#: Values as the replay makes them (a fraction times whole bytes: >= 1 or 0), and a few the int64 path
#: cannot hold (in (0, 1), or so large the integer part passes 2**53), which go through Python integers.
VALUES = st.one_of(
    st.floats(1, 2**40, allow_nan=False),
    st.just(0.0),
    st.floats(2**-30, 1, exclude_max=True),
    st.floats(2**52, 2**56),
)


@examples(3)
@given(
    segments=st.lists(
        st.lists(st.tuples(VALUES, st.integers(1, 2**20)), min_size=1, max_size=6), min_size=1, max_size=5
    )
)
def test_segment_sums_equal_fsum_of_the_repeated_values(segments):
    values = np.array([v for seg in segments for v, _ in seg])
    weights = np.array([w for seg in segments for _, w in seg], dtype=np.int64)
    starts = np.cumsum([0] + [len(seg) for seg in segments[:-1]])
    got = segment_sums(values, weights, starts)
    # fsum of v repeated w times, without building the list: fsum is exact, so repeat by doubling
    for i, seg in enumerate(segments):
        parts = []
        for v, w in seg:
            power = v
            while w:
                if w & 1:
                    parts.append(power)
                power, w = power * 2, w >> 1  # doubling a float is exact
        assert got[i] == math.fsum(parts), seg


def test_weights_past_two_to_the_36_take_the_python_path():
    """The two 26-bit halves of a fraction hold weights below 2**36; a larger weight is summed in Python."""
    values = np.array([1.5, 1.25])
    weights = np.array([2**40, 3], dtype=np.int64)
    assert segment_sums(values, weights, np.array([0]))[0] == 1.5 * 2**40 + 3.75
