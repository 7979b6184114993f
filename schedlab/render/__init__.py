"""Tables of the lecture's analyses: every number is formatted here, once.

Each function takes what :mod:`schedlab.studies` (or :func:`schedlab.core.model.explain`)
returns and gives a :class:`Table` of strings. The console edition prints these tables
(:func:`schedlab.console.print_render_table`) and the book renders them with
:meth:`Table.to_html`, so both show the same digits.

One module per topic: :mod:`~schedlab.render.table` (the record and the number formats),
:mod:`~schedlab.render.labels` (the names the lecture gives things), then one module per
chapter (:mod:`~schedlab.render.space`, :mod:`~schedlab.render.search`, ...). This face
re-exports every name of every module's ``__all__``, so ``render.top_table(...)`` works, and
imports a module only when one of its names is first used (:func:`schedlab.faces.lazy_face`):
the console, which needs ``Table`` and ``fmt_time``, loads no chapter's studies. A new chapter
is a new module with an ``__all__``; no list here names it.

Examples
--------
>>> from schedlab import landscape
>>> from schedlab.render import top_table
>>> t = top_table(landscape((4096, 4096, 4096)), k=2)
>>> t.headers
('(BM, BN, BK, warps, stages, GROUP_M)', '并列', '时间', 'TFLOPS', '相对最快')
>>> t.rows[0][0], t.rows[0][2:]
('(256, 128, 32, 8, 4, 1)', ('149.0 µs', '922', '1.000'))
"""

from __future__ import annotations

from schedlab.faces import lazy_face

__getattr__, __dir__ = lazy_face(__name__, __path__)
