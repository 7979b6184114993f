"""schedlab: the schedule space of a GPU matmul kernel on an analytical H100 model.

The knobs (:mod:`schedlab.core.knobs`) and which configurations launch (:mod:`schedlab.core.launch`),
hardware parameters (:mod:`schedlab.core.hardware`), the cost model (:mod:`schedlab.core.model`),
the lecture's analyses (:mod:`schedlab.studies`) and their rendering (:mod:`schedlab.render`).

The names below are the seed script's (``sched_lab.<name>``); the package, its pages and its
tests import each from the module that defines it.
"""

import importlib

#: Public name -> the module that defines it; ``__all__`` is its keys. Each is imported on first
#: use (PEP 562), so ``import schedlab`` is instant and ``python -m schedlab`` imports numpy inside
#: its Ctrl-C guard (:mod:`schedlab.__main__`).
HOMES = {
    "SPACE": "schedlab.core.knobs",
    "WARP_GRID": "schedlab.core.knobs",
    "GemmConfig": "schedlab.core.knobs",
    "all_configs": "schedlab.core.knobs",
    "Reason": "schedlab.core.launch",
    "reasons": "schedlab.core.launch",
    "static_valid": "schedlab.core.launch",
    "Launchable": "schedlab.core.launch",
    "launchable": "schedlab.core.launch",
    "Hardware": "schedlab.core.hardware",
    "H100_TC": "schedlab.core.hardware",
    "H100_SOURCES": "schedlab.core.profile_sources",
    "evaluate": "schedlab.core.model.engine",
    "evaluate_many": "schedlab.core.model.engine",
    "gemm_time": "schedlab.core.model.engine",
    "explain": "schedlab.core.model.engine",
    "tiling": "schedlab.core.model.terms",
    "Tiling": "schedlab.core.model.terms",
    "ModelTerms": "schedlab.core.model.terms",
    "Breakdown": "schedlab.core.model.terms",
    "Shape": "schedlab.core.shapes",
    "LECTURE_SHAPES": "schedlab.core.shapes",
    "study_shapes": "schedlab.core.shapes",
    "Landscape": "schedlab.core.landscape",
    "landscape": "schedlab.core.landscape",
    "clear_caches": "schedlab.core.caching",
    "SpaceSummary": "schedlab.studies.space",
    "space_summary": "schedlab.studies.space",
    "Transfer": "schedlab.studies.shapes",
    "transfer": "schedlab.studies.shapes",
    "Sensitivity": "schedlab.studies.sensitivity",
    "sensitivity": "schedlab.studies.sensitivity",
}

__all__ = list(HOMES)


def __getattr__(name: str):
    home = HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'schedlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # once imported, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
