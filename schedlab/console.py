"""Console helpers of the lecture scripts: headers, aligned tables, numbered observations.

Chinese characters take two terminal columns, so every width here is a *display*
width (:func:`display_width`, from ``wcwidth``), never ``len``.

The seed script imports exactly ``fmt_time, print_header, print_observations,
print_table`` from its ``console`` module; ``from schedlab.console import *`` provides them.

Examples
--------
>>> print_table(["参数", "n"], [["块", 1], ["BLOCK_K", 128]])
参数       n
-------  ---
块         1
BLOCK_K  128
"""

from __future__ import annotations

import re
import sys

from schedlab.core.checks import is_number
from schedlab.render.table import Table, fmt_time
from schedlab.render.wrap import display_width, wrap

__all__ = [
    "fmt_time",
    "print_header",
    "print_table",
    "print_observations",
    "print_render_table",
]

#: Default width, in terminal columns, of headers and wrapped observations.
WIDTH = 88

_NUMERIC = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?%?$")


def _cell(value) -> str:
    return " ".join(str(value).split("\n")).replace("\t", " ")


def _pad(text: str, width: int, right: bool) -> str:
    fill = " " * max(width - display_width(text), 0)
    return fill + text if right else text + fill


def _is_number(value) -> bool:
    return is_number(value) or (isinstance(value, str) and bool(_NUMERIC.match(value.strip())))


#: Widest cell, in terminal columns, that :func:`print_table` prints on one line; a wider cell (a long
#: list of tied configurations) wraps onto continuation lines within its column.
CELL_WIDTH = 90


def print_table(headers, rows, *, file=None) -> None:
    """Print ``rows`` under ``headers``, columns aligned by display width.

    Cells may be any object (``str()`` is applied). A column whose body cells are all
    numbers (or numeric strings, or ``—``) is right-aligned; other columns are left-aligned.
    A cell wider than :data:`CELL_WIDTH` wraps onto the following lines of its column.

    Parameters
    ----------
    headers : sequence
        Column headers.
    rows : iterable of sequences
        One sequence of cells per row, each as long as ``headers``.
    file : file-like, optional
        Where to print (default ``sys.stdout``).

    Raises
    ------
    ValueError
        If a row's length differs from the headers'.

    Examples
    --------
    >>> print_table(["配置", "时间"], [[(256, 128), "149.0 µs"], [(16, 16), "—"]])
    配置        时间
    ----------  --------
    (256, 128)  149.0 µs
    (16, 16)    —
    >>> print_table(["配置", "并列"], [["(1, 2)", "x " * 50]])
    配置    并列
    ------  -----------------------------------------------------------------------------------------
    (1, 2)  x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x
            x x x x x
    """
    head = [_cell(h) for h in headers]
    raw = [list(r) for r in rows]
    for i, r in enumerate(raw):
        if len(r) != len(head):
            raise ValueError(f"row {i} has {len(r)} cells, expected {len(head)} (one per header)")
    body = [[_cell(c) for c in r] for r in raw]
    right = [
        bool(raw)
        and all(_is_number(r[j]) or _cell(r[j]) in ("—", "") for r in raw)
        and any(_is_number(r[j]) for r in raw)
        for j in range(len(head))
    ]
    body = [[wrap(c, CELL_WIDTH) if display_width(c) > CELL_WIDTH else [c] for c in r] for r in body]
    widths = [
        max([display_width(h)] + [display_width(part) for r in body for part in r[j]]) for j, h in enumerate(head)
    ]
    out = file if file is not None else sys.stdout

    def line(cells):
        return "  ".join(_pad(c, w, rt) for c, w, rt in zip(cells, widths, right)).rstrip()

    print(line(head), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for r in body:
        for k in range(max(len(parts) for parts in r)):
            print(line([parts[k] if k < len(parts) else "" for parts in r]), file=out)


def print_render_table(table: Table, *, file=None) -> None:
    """Print a :class:`schedlab.render.table.Table`: its title (if any), then the aligned table.

    Examples
    --------
    >>> print_render_table(Table("例", ("a", "b"), [("x", "1")]))
    例
    a  b
    -  -
    x  1
    """
    if not isinstance(table, Table):
        raise ValueError(f"table must be a schedlab.render.table.Table, got {type(table).__name__}")
    out = file if file is not None else sys.stdout
    if table.title:
        print(table.title, file=out)
    print_table(table.headers, table.rows, file=out)


def print_header(title: str, *, width: int = WIDTH, file=None) -> None:
    """Print a blank line and ``title`` between two rules as wide as the title (at least ``width``).

    Examples
    --------
    >>> print_header("演示 1", width=10)
    <BLANKLINE>
    ==========
    演示 1
    ==========
    """
    out = file if file is not None else sys.stdout
    title = _cell(title)
    rule = "=" * max(width, display_width(title))
    print(f"\n{rule}\n{title}\n{rule}", file=out)


def print_observations(items, *, title: str = "观察", width: int = WIDTH, file=None) -> None:
    """Print a titled, numbered list; each item wrapped to ``width`` display columns.

    Examples
    --------
    >>> print_observations(["块越大，复用越多。", "stages 要够深"], width=19)
    <BLANKLINE>
    观察：
      1. 块越大，复用越
         多。
      2. stages 要够深
    """
    out = file if file is not None else sys.stdout
    items = [items] if isinstance(items, str) else list(items)
    print(f"\n{title}：", file=out)
    label_w = len(str(len(items)))
    for i, item in enumerate(items, 1):
        prefix = f"  {i:>{label_w}}. "
        body = wrap(_cell(item), max(width - len(prefix), 4)) or [""]
        print(prefix + body[0], file=out)
        for rest in body[1:]:
            print(" " * len(prefix) + rest, file=out)
