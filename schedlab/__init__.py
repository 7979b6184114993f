"""schedlab: the schedule space of a GPU matmul kernel on an analytical H100 model.

The knob space and its pruning (:mod:`schedlab.space`), hardware parameters
(:mod:`schedlab.hardware`), the cost model (:mod:`schedlab.model`), the lecture's
analyses (:mod:`schedlab.analysis`) and their rendering (:mod:`schedlab.render`).
"""

from .analysis import (
    LECTURE_SHAPES,
    Landscape,
    Sensitivity,
    Shape,
    SpaceSummary,
    Transfer,
    landscape,
    sensitivity,
    space_summary,
    study_shapes,
    transfer,
)
from .caching import clear_caches
from .hardware import H100_SOURCES, H100_TC, Hardware, using
from .model import Breakdown, ModelTerms, Tiling, evaluate, evaluate_many, explain, gemm_time, tiling
from .space import SPACE, WARP_GRID, GemmConfig, Launchable, Reason, all_configs, launchable, reasons, static_valid

__all__ = [
    "SPACE",
    "WARP_GRID",
    "GemmConfig",
    "Reason",
    "all_configs",
    "reasons",
    "static_valid",
    "Launchable",
    "launchable",
    "Hardware",
    "H100_TC",
    "H100_SOURCES",
    "using",
    "evaluate",
    "evaluate_many",
    "tiling",
    "Tiling",
    "gemm_time",
    "explain",
    "ModelTerms",
    "Breakdown",
    "Shape",
    "LECTURE_SHAPES",
    "SpaceSummary",
    "Landscape",
    "Transfer",
    "Sensitivity",
    "space_summary",
    "landscape",
    "transfer",
    "sensitivity",
    "study_shapes",
    "clear_caches",
]
