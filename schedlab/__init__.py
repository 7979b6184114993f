"""schedlab: the schedule space of a GPU matmul kernel on an analytical H100 model.

The knobs (:mod:`schedlab.core.knobs`) and which configurations launch (:mod:`schedlab.core.launch`), hardware parameters
(:mod:`schedlab.core.hardware`), the cost model (:mod:`schedlab.core.model`), the lecture's
analyses (:mod:`schedlab.studies`) and their rendering (:mod:`schedlab.render`).
"""

import importlib

#: Public name -> the module that defines it. Each is imported on first use (PEP 562), so
#: ``import schedlab`` is instant and ``python -m schedlab`` imports numpy inside its Ctrl-C guard
#: (:mod:`schedlab.__main__`).
_HOMES = {
    "clear_caches": "schedlab.core.caching",
    "H100_SOURCES": "schedlab.core.profile_sources",
    "H100_TC": "schedlab.core.hardware",
    "Hardware": "schedlab.core.hardware",
    "Landscape": "schedlab.core.landscape",
    "landscape": "schedlab.core.landscape",
    "Breakdown": "schedlab.core.model",
    "ModelTerms": "schedlab.core.model",
    "Tiling": "schedlab.core.model",
    "evaluate": "schedlab.core.model",
    "evaluate_many": "schedlab.core.model",
    "explain": "schedlab.core.model",
    "gemm_time": "schedlab.core.model",
    "tiling": "schedlab.core.model",
    "LECTURE_SHAPES": "schedlab.core.shapes",
    "Shape": "schedlab.core.shapes",
    "study_shapes": "schedlab.core.shapes",
    "SPACE": "schedlab.core.knobs",
    "WARP_GRID": "schedlab.core.knobs",
    "GemmConfig": "schedlab.core.knobs",
    "Launchable": "schedlab.core.launch",
    "Reason": "schedlab.core.launch",
    "all_configs": "schedlab.core.knobs",
    "launchable": "schedlab.core.launch",
    "reasons": "schedlab.core.launch",
    "static_valid": "schedlab.core.launch",
    "Sensitivity": "schedlab.studies.sensitivity",
    "sensitivity": "schedlab.studies.sensitivity",
    "Transfer": "schedlab.studies.shapes",
    "transfer": "schedlab.studies.shapes",
    "SpaceSummary": "schedlab.studies.space",
    "space_summary": "schedlab.studies.space",
}

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


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'schedlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # once imported, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
