"""Analytical cost model: ``time = fixed + max(compute, HBM)``, each k-step as slow as its slowest resource.

``compute`` is the k-steps of every wave on the on-chip resources (tensor cores, shared memory,
the SM's port to L2, L2 bandwidth, latency), ``fixed`` the waves' pipeline fills, epilogues and
one-stage latency waits, ``HBM`` the kernel's HBM bytes over the HBM bandwidth, one queue for the
whole kernel. Three modules:

:mod:`~schedlab.core.model.terms`
    The records (:data:`TERMS`, :class:`ModelTerms`, :class:`Breakdown`, :class:`Tiling`), the grid
    and occupancy (:func:`tiling`, :func:`blocks_per_sm`), the on-chip terms, and the one formula
    that combines them with HBM (``kernel_time``).
:mod:`~schedlab.core.model.hbm`
    The HBM term: the grouped launch order replayed wave by wave (:func:`hbm_bytes`).
:mod:`~schedlab.core.model.engine`
    The vectorised pricing of one shape (:func:`evaluate`, :func:`gemm_time`, :func:`explain`) or
    many (:func:`evaluate_many`).

The names below are the public ones; the modules' other names serve the package and its tests.
"""

from schedlab.core.model.engine import evaluate, evaluate_many, explain, gemm_time
from schedlab.core.model.hbm import hbm_bytes
from schedlab.core.model.terms import TERMS, Breakdown, ModelTerms, Tiling, blocks_per_sm, tiling

__all__ = [
    "TERMS",
    "ModelTerms",
    "Breakdown",
    "Tiling",
    "tiling",
    "evaluate",
    "evaluate_many",
    "gemm_time",
    "explain",
    "blocks_per_sm",
    "hbm_bytes",
]
