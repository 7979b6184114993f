"""Shared hypothesis strategies for the schedlab test suite.

Import as ``from tests.strategies import ...`` (``tests`` is a package, so pytest's
default import mode puts the repository root on ``sys.path``).

The launchable / unlaunchable split uses the library's own vectorised pruning; the
pruning itself is checked independently, from the rules written out by hand, in
``tests/test_space.py``.
"""

from __future__ import annotations

import dataclasses

from hypothesis import settings
from hypothesis import strategies as st

from schedlab.core.hardware import H100_TC, Hardware
from schedlab.core.knobs import GemmConfig, all_configs, config_array
from schedlab.core.launch import launch_checks

__all__ = [
    "examples",
    "ALL_CONFIGS",
    "LAUNCHABLE",
    "UNLAUNCHABLE",
    "MAX_DIM",
    "configs",
    "launchable_configs",
    "unlaunchable_configs",
    "config_subsets",
    "dims",
    "shapes",
    "hardware",
]


def examples(times: float) -> settings:
    """Settings for a property that runs ``times`` the loaded profile's examples (at least one).

    The profiles are in tests/conftest.py: 100 examples under `make test`, 10 under `make check`; so
    ``@examples(3)`` runs 300 and 30.
    """
    return settings(max_examples=max(1, round(times * settings.default.max_examples)))


#: Upper bound of a generated GEMM dimension: large enough for multi-wave grids and L2
#: overflow, small enough that one evaluation stays in the millisecond range.
MAX_DIM = 8192

ALL_CONFIGS: tuple[GemmConfig, ...] = all_configs()


def _split() -> tuple[tuple[GemmConfig, ...], tuple[GemmConfig, ...]]:
    checks = launch_checks(config_array(ALL_CONFIGS))
    bad = checks["smem"] | checks["mma"] | checks["registers"]
    return (tuple(c for c, b in zip(ALL_CONFIGS, bad) if not b), tuple(c for c, b in zip(ALL_CONFIGS, bad) if b))


LAUNCHABLE, UNLAUNCHABLE = _split()

#: Any point of the schedule space (6000 configurations).
configs = st.sampled_from(ALL_CONFIGS)
#: A configuration that can launch on the H100.
launchable_configs = st.sampled_from(LAUNCHABLE)
#: A configuration pruned by at least one rule (shared memory, mma or registers).
unlaunchable_configs = st.sampled_from(UNLAUNCHABLE)


def config_subsets(min_size: int = 1, max_size: int = 40):
    """A list of distinct configurations drawn from the whole space (launchable or not)."""
    return st.lists(configs, min_size=min_size, max_size=max_size, unique=True)


def dims(max_value: int = MAX_DIM):
    """One GEMM dimension, 1..max_value (hypothesis favours the small end and the bounds)."""
    return st.integers(min_value=1, max_value=max_value)


def shapes(max_value: int = MAX_DIM):
    """A GEMM shape ``(M, N, K)``, each in 1..max_value."""
    return st.tuples(dims(max_value), dims(max_value), dims(max_value))


_SCALE = st.sampled_from((0.25, 0.5, 0.8, 1.0, 1.25, 2.0, 4.0))


@st.composite
def hardware(draw, base: Hardware = H100_TC) -> Hardware:
    """``base`` with its rates, latency and L2 size scaled by factors in [0.25, 4], and time terms drawn.

    The time terms (launch, unhidden clocks per k-step, pipeline overlap) are drawn from the
    lecture's neutral values and a few a real kernel might pay.

    Only fields whose change keeps the machine self-consistent are perturbed (the
    occupancy limits and instruction shapes stay those of an H100).
    """
    return dataclasses.replace(
        base,
        name=f"{base.name} (perturbed)",
        clock_hz=base.clock_hz * draw(_SCALE),
        l2_bw_bytes_per_s=base.l2_bw_bytes_per_s * draw(_SCALE),
        hbm_bw_bytes_per_s=base.hbm_bw_bytes_per_s * draw(_SCALE),
        mem_latency_s=base.mem_latency_s * draw(_SCALE),
        l2_bytes=int(base.l2_bytes * draw(_SCALE)),
        t_launch_s=draw(st.sampled_from((0.0, 2e-6, 6.76e-6))),
        t_k_step_clk=draw(st.sampled_from((0.0, 36.0, 72.0, 200.0))),
        pipeline_overlap=draw(st.sampled_from((1.0, 0.9, 0.7, 0.5))),
        mma_sync_fraction=draw(st.sampled_from((1.0, 494 / 757, 0.5))),
        epilogue_smem_passes=draw(st.sampled_from((0, 2))),
    )
