"""Analytical cost model (see :mod:`schedlab.core.model.engine`); the public names, re-exported."""

from schedlab.core.model.engine import (TERMS, Breakdown, ModelTerms, Tiling, blocks_per_sm, evaluate, evaluate_many,
                                        explain, gemm_time, hbm_bytes, tiling)

__all__ = ["TERMS", "ModelTerms", "Breakdown", "Tiling", "tiling", "evaluate", "evaluate_many", "gemm_time",
           "explain", "blocks_per_sm", "hbm_bytes"]
