"""schedlab: the schedule space of a GPU matmul kernel on an analytical H100 model.

The knob space and its pruning (:mod:`schedlab.core.space`), hardware parameters
(:mod:`schedlab.core.hardware`), the cost model (:mod:`schedlab.core.model`), the lecture's
analyses (:mod:`schedlab.studies`) and their rendering (:mod:`schedlab.render`).
"""

from schedlab.core.caching import clear_caches
from schedlab.core.hardware import H100_SOURCES, H100_TC, Hardware, using
from schedlab.core.landscape import Landscape, landscape
from schedlab.core.model import Breakdown, ModelTerms, Tiling, evaluate, evaluate_many, explain, gemm_time, tiling
from schedlab.core.shapes import LECTURE_SHAPES, Shape, study_shapes
from schedlab.core.space import (
    SPACE,
    WARP_GRID,
    GemmConfig,
    Launchable,
    Reason,
    all_configs,
    launchable,
    reasons,
    static_valid,
)
from schedlab.studies.sensitivity import Sensitivity, sensitivity
from schedlab.studies.shapes import Transfer, transfer
from schedlab.studies.space import SpaceSummary, space_summary

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
