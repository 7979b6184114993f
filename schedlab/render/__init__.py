"""Tables of the lecture's analyses: every number is formatted here, once.

Each function takes what :mod:`schedlab.studies` (or :func:`schedlab.core.model.explain`)
returns and gives a :class:`~schedlab.render.table.Table` of strings. The console edition prints
these tables (:func:`schedlab.console.print_render_table`) and the book renders them with
:meth:`~schedlab.render.table.Table.to_html`, so both show the same digits.

One module per topic, each imported by name from the module that defines it (this package
re-exports nothing): :mod:`~schedlab.render.table` (the record and the number formats),
:mod:`~schedlab.render.labels` (the names the lecture gives things), then one module per
chapter (:mod:`~schedlab.render.space`, :mod:`~schedlab.render.search`, ...).

Examples
--------
>>> from schedlab.core.landscape import landscape
>>> from schedlab.render.landscape import top_table
>>> t = top_table(landscape((4096, 4096, 4096)), k=2)
>>> t.headers
('(BM, BN, BK, warps, stages, GROUP_M)', '并列', '时间', 'TFLOPS', '相对最快')
>>> t.rows[0][0], t.rows[0][2:]
('(256, 128, 32, 8, 4, 1)', ('149.0 µs', '922', '1.000'))
"""
