"""Huge shapes (issues 8 and 24): priced exactly, quickly and in bounded memory, or refused when their counts overflow int64.

The bounds on time and memory are safety limits on a subprocess (resource.RLIMIT_AS and a
timeout), not a benchmark: a shape the model accepts must never exhaust memory or hang.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from schedlab.core.hardware import H100_TC
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.model import hbm_bytes
from schedlab.core.model.engine import evaluate, explain, gemm_time
from schedlab.core.shapes import MAX_COUNT, check_shape, shape_bytes_bound

BEST = GemmConfig(256, 128, 32, 8, 4, 1)

#: K at the edge for M = N = 2**20: the deepest K whose byte bound fits int64, found from the bound's
#: formula by hand: (2**16)**2 tiles x 32 x 2 bytes = 2**38 bytes per unit of K, so
#: K = (2**63 - 1 - 2**41) // 2**38 = 2**25 - 9 (2**41: C's 2**40 elements, 2 bytes each).
EDGE_K = 2**25 - 9

#: Shapes at the edge of what the model prices: square, wide (M = 1) and tall (N = 1), K deep or shallow.
LARGEST = [(2**20, 2**20, EDGE_K), (1, 2**20, 2**40), (2**40, 1, 2**20), (2**20, 2**20, 2**20)]


def test_the_edge_is_where_the_bound_says():
    """EDGE_K is priced and EDGE_K + 1 refused: the formula above agrees with shape_bytes_bound."""
    assert shape_bytes_bound(2**20, 2**20, EDGE_K) <= MAX_COUNT < shape_bytes_bound(2**20, 2**20, EDGE_K + 1)
    assert check_shape(2**20, 2**20, EDGE_K) == (2**20, 2**20, EDGE_K)


@pytest.mark.parametrize(
    "shape, name",
    [
        ((2**20, 2**20, EDGE_K + 1), "K"),
        ((2**62, 4096, 4096), "M"),
        ((16, 2**63, 1), "N"),
        ((4096, 4096, 2**62), "K"),
        ((2**64 + 1, 1, 1), "M"),
    ],
)
def test_a_shape_whose_counts_overflow_is_refused_naming_its_largest_dimension(shape, name):
    """One line naming the dimension (the largest) and, where some value of it fits, that value."""
    with pytest.raises(ValueError, match=rf"^{name} = {shape['MNK'.index(name)]} .*64-bit integers\)$") as info:
        check_shape(*shape)
    assert "\n" not in str(info.value)
    if shape == (2**20, 2**20, EDGE_K + 1):
        assert f"more than {EDGE_K}, the largest K" in str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: explain(BEST, 2**62, 4096, 4096),
        lambda: landscape((2**63, 4096, 4096)),
        lambda: gemm_time(BEST, 16, 16, 2**62),
        lambda: evaluate([BEST], 4096, 2**64 + 1, 4096),
    ],
    ids=["explain M=2**62", "landscape M=2**63", "gemm_time K=2**62", "evaluate N=2**64+1"],
)
def test_every_entry_point_refuses_an_overflowing_shape(call):
    with pytest.raises(ValueError, match="64-bit integers"):
        call()


def test_formerly_refused_shapes_are_priced():
    """Over the old MAX_MN = 2**18 and MAX_K = 2**17 (issue 24): a 250,112-word vocabulary projection
    as K (its backward pass) at a prefill's and a decode's M, 2**20 tokens, and M = 2**40: all finite."""
    for shape in ((8192, 4096, 250_112), (16, 4096, 250_112), (2**20, 8, 4096), (2**40, 4096, 4096)):
        assert np.isfinite(gemm_time(BEST, *shape)), shape


def test_wider_elements_that_could_overflow_are_refused():
    """Byte counts scale with Hardware.bytes_per_element: the model refuses counts that could overflow int64."""
    import dataclasses

    wide = dataclasses.replace(H100_TC, bytes_per_element=64)
    with pytest.raises(ValueError, match="bytes_per_element"):
        evaluate([BEST], *LARGEST[0], wide)
    with pytest.raises(ValueError, match="bytes_per_element"):
        hbm_bytes(*LARGEST[0], 256, 128, 1, 132, wide)
    evaluate([BEST], *LARGEST[0], H100_TC)  # the same shape with 2-byte elements fits


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, None])
def test_hbm_bytes_names_per_wave(bad):
    with pytest.raises(ValueError, match="per_wave"):
        hbm_bytes(4096, 4096, 4096, 256, 128, 1, bad)


def test_hbm_bytes_names_the_tile():
    with pytest.raises(ValueError, match="bm"):
        hbm_bytes(4096, 4096, 4096, 48, 128, 1, 132)


_PRICE_LARGEST = textwrap.dedent("""
    import json, resource, sys, warnings
    warnings.simplefilter("error")  # a numpy overflow warning fails the run
    limit = {limit}
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from schedlab.core.hardware import H100_TC
    from schedlab.core.knobs import GemmConfig
    from schedlab.core.landscape import landscape
    from schedlab.core.model.engine import explain
    out = []
    for shape in {shapes}:
        land = landscape(shape)
        b = explain(GemmConfig(16, 16, 128, 1, 4, 1), *shape)
        out.append(dict(shape=shape, best=land.best_time_s, worst=float(land.time_s.max()),
                        time=b.time_s, bytes=b.bytes_hbm, blocks=b.blocks))
    print(json.dumps(out))
""")


def test_largest_accepted_shapes_are_priced_in_bounded_time_and_memory():
    """Shapes at the edge, all 3744 configs each, in a process capped at 4 GiB of address space and
    120 s (a safety bound: about a second on a free core); no overflow, every time finite."""
    code = _PRICE_LARGEST.format(limit=4 * 2**30, shapes=LARGEST)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for row in json.loads(proc.stdout):
        M, N, K = row["shape"]
        assert np.isfinite(row["worst"]) and 0 < row["best"] <= row["time"] <= row["worst"]
        # 16 x 16 tiles: the tile count, exact; bytes (an expected value: the L2 survival rule keeps a
        # fraction; above 2**53 the int64 count rounded once, and rounding keeps order) within the bound and
        # at least the compulsory traffic, which int64 wrap-around would break; the time never below the
        # bytes at HBM bandwidth
        assert row["blocks"] == -(-M // 16) * -(-N // 16)
        assert 0 < row["bytes"] <= float(shape_bytes_bound(M, N, K))
        assert row["bytes"] >= float((M * K + K * N + M * N) * 2)
        assert row["time"] >= row["bytes"] / H100_TC.hbm_bw_bytes_per_s
