"""Huge shapes (issue 8): refused by documented limits, or priced exactly, quickly and in bounded memory.

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
from schedlab.core.shapes import MAX_K, MAX_MN, check_shape

BEST = GemmConfig(256, 128, 32, 8, 4, 1)

#: The largest shapes the model accepts: square, wide and tall, at MAX_K.
LARGEST = [(MAX_MN, MAX_MN, MAX_K), (16, MAX_MN, MAX_K), (MAX_MN, 16, MAX_K)]


@pytest.mark.parametrize(
    "call",
    [
        lambda: explain(BEST, 2**40, 4096, 4096),
        lambda: landscape((2**40, 4096, 4096)),
        lambda: landscape((2**31, 4096, 4096)),
        lambda: gemm_time(BEST, 2**32, 4096, 4096),
        lambda: gemm_time(BEST, 2**63, 4096, 4096),
        lambda: evaluate([BEST], 4096, 2**64 + 1, 4096),
    ],
    ids=["explain M=2**40", "landscape M=2**40", "landscape M=2**31", "gemm_time M=2**32", "M=2**63", "N=2**64+1"],
)
def test_too_large_m_or_n_is_refused_naming_the_limit(call):
    with pytest.raises(ValueError, match="MAX_MN"):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: explain(GemmConfig(16, 64, 64, 1, 4, 1), 16, 2**18, 2**40),  # reported HBM bytes of -9.22e18
        lambda: explain(BEST, 4096, 4096, 2**62),  # reported "HBM 32.0 MiB"
        lambda: gemm_time(BEST, 16, 16, MAX_K + 1),
    ],
    ids=["K=2**40", "K=2**62", "K=MAX_K+1"],
)
def test_too_deep_k_is_refused_naming_the_limit(call):
    with pytest.raises(ValueError, match="MAX_K"):
        call()


def test_limits_are_exact_edges():
    """The limits themselves are accepted, one more refused."""
    assert check_shape(MAX_MN, MAX_MN, MAX_K) == (MAX_MN, MAX_MN, MAX_K)
    for shape, limit in (
        ((MAX_MN + 1, 16, 1), "MAX_MN"),
        ((16, MAX_MN + 1, 1), "MAX_MN"),
        ((16, 16, MAX_K + 1), "MAX_K"),
    ):
        with pytest.raises(ValueError, match=limit):
            check_shape(*shape)


def test_wider_elements_that_could_overflow_are_refused():
    """Byte counts scale with Hardware.bytes_per_element: the model refuses counts that could reach 2**53."""
    import dataclasses

    wide = dataclasses.replace(H100_TC, bytes_per_element=64)
    with pytest.raises(ValueError, match="bytes_per_element"):
        evaluate([BEST], *LARGEST[0], wide)
    with pytest.raises(ValueError, match="bytes_per_element"):
        hbm_bytes(*LARGEST[0], 256, 128, 1, 132, wide)


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
    """The largest accepted shapes, all 3744 configs each, in a process capped at 4 GiB of address space and
    120 s (a safety bound: about 1 s on a free core); every byte count exact, every time finite."""
    code = _PRICE_LARGEST.format(limit=4 * 2**30, shapes=LARGEST)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for row in json.loads(proc.stdout):
        M, N, K = row["shape"]
        assert np.isfinite(row["worst"]) and 0 < row["best"] <= row["time"] <= row["worst"]
        # 16 x 16 tiles: the tile count, exact; bytes (an expected value: the L2 survival rule keeps a
        # fraction) below 2**53 and at least the compulsory traffic, which int64 wrap-around would break;
        # the time never below the bytes at HBM bandwidth
        assert row["blocks"] == -(-M // 16) * -(-N // 16)
        assert 0 < row["bytes"] < 2**53
        assert row["bytes"] >= (M * K + K * N + M * N) * 2
        assert row["time"] >= row["bytes"] / H100_TC.hbm_bw_bytes_per_s
