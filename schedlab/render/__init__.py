"""Tables of the lecture's analyses: every number is formatted here, once.

Each function takes what :mod:`schedlab.studies` (or :func:`schedlab.core.model.explain`,
:mod:`schedlab.studies.search`, :mod:`schedlab.studies.learned`, :mod:`schedlab.studies.buckets`) returns and gives
a :class:`Table` of strings. The console edition prints these tables
(:func:`schedlab.console.print_render_table`) and the book renders them with
:meth:`Table.to_html`, so both show the same digits.

One module per topic: :mod:`~schedlab.render.table` (the record and the number formats),
:mod:`~schedlab.render.demos` (the four demos and ``explain``),
:mod:`~schedlab.render.appendix`, :mod:`~schedlab.render.gpus` (the GPU chapter), :mod:`~schedlab.render.search`,
:mod:`~schedlab.render.learned`, :mod:`~schedlab.render.buckets` and :mod:`~schedlab.render.guides`; the labels come from
:mod:`schedlab.render.labels`. This face re-exports them all, so ``render.top_table(...)`` works.
The search, learned and buckets tables are loaded on first use (:func:`__getattr__`): their
modules import :mod:`schedlab.studies.search`, :mod:`schedlab.studies.learned` and :mod:`schedlab.studies.buckets`,
which a reader of ``Table`` and ``fmt_time`` (the console) does not need.

Examples
--------
>>> from schedlab import landscape
>>> t = top_table(landscape((4096, 4096, 4096)), k=2)
>>> t.headers
('(BM, BN, BK, warps, stages, GROUP_M)', '并列', '时间', 'TFLOPS', '相对最快')
>>> t.rows[0][0], t.rows[0][2:]
('(256, 128, 32, 8, 4, 1)', ('149.0 µs', '922', '1.000'))
"""

from __future__ import annotations

import importlib

from schedlab.render.labels import (COVER_LABELS, FEATURE_SET_LABELS, KNOB_LABELS, METHOD_LABELS, SPLIT_LABELS, STRATEGY_LABELS, fmt_shape, shape_name, shape_short)
from schedlab.render.appendix import claims_table, hardware_table
from schedlab.render.gpus import hardware_transfer_table, profile_sources_table, profiles_table, published_table
from schedlab.render.demos import (breakdown_summary_table, breakdown_table, fmt_ties, knob_table, optima_table, quantiles_table, reasons_table, sensitivity_grid, sensitivity_table, top_table, transfer_table)
from schedlab.render.table import (MISSING, Table, check_real, fmt_config, fmt_interval, fmt_pct, fmt_percent, fmt_ratio, fmt_tflops, fmt_time, fmt_trials, fmt_whole)

#: Topic module -> the names this face takes from it on first use (each module's ``__all__``).
LAZY_MODULES = {
    "search": ("fmt_reach", "search_table", "search_shape_table", "search_summary_table", "local_optima_table",
               "descent_table"),
    "learned": ("regret_table", "hit_rate_table", "feature_set_table", "model_table"),
    "buckets": ("fmt_m_range", "bucket_table", "cover_table"),
    "guides": ("guide_table", "ablation_table"),
}
_LAZY = {name: module for module, names in LAZY_MODULES.items() for name in names}

__all__ = [
    "Table",
    "MISSING",
    "check_real",
    "KNOB_LABELS",
    "STRATEGY_LABELS",
    "METHOD_LABELS",
    "FEATURE_SET_LABELS",
    "SPLIT_LABELS",
    "COVER_LABELS",
    "fmt_time",
    "fmt_config",
    "fmt_interval",
    "fmt_shape",
    "fmt_whole",
    "fmt_tflops",
    "fmt_trials",
    "fmt_ratio",
    "fmt_percent",
    "fmt_pct",
    "shape_name",
    "shape_short",
    "knob_table",
    "reasons_table",
    "fmt_ties",
    "top_table",
    "quantiles_table",
    "optima_table",
    "transfer_table",
    "sensitivity_table",
    "sensitivity_grid",
    "breakdown_table",
    "breakdown_summary_table",
    "hardware_table",
    "claims_table",
    "profiles_table",
    "profile_sources_table",
    "hardware_transfer_table",
    "published_table",
    *_LAZY,
]


def __getattr__(name: str):
    """A table of the search, learned or buckets topic, importing its module on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
