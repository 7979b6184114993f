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

from wcwidth import wcwidth

from schedlab.core.checks import is_integer, is_number
from schedlab.render.table import Table, fmt_time

__all__ = [
    "fmt_time",
    "print_header",
    "print_table",
    "print_observations",
    "print_render_table",
    "display_width",
    "wrap",
]

#: Default width, in terminal columns, of headers and wrapped observations.
WIDTH = 88

# CJK punctuation that must not start a line / must not end one
_NO_LINE_START = set("，。、；：！？）》」』”’…·,.;:!?)]}%")
_NO_LINE_END = set("（《「『“‘([{")
_NUMERIC = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?%?$")


def display_width(text: str) -> int:
    """Terminal columns ``text`` occupies: 2 per wide (CJK) character, 0 for combining or control.

    Examples
    --------
    >>> display_width("abc"), display_width("演示 1"), display_width("149.0 µs")
    (3, 6, 8)
    """
    return sum(max(wcwidth(ch), 0) for ch in text)


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


def _tokens(text: str) -> list[tuple[str, str]]:
    """``(kind, text)``: runs of spaces (``s``), runs of narrow non-space characters such as
    Latin words and numbers (``n``), and single wide characters (``w``)."""
    tokens: list[tuple[str, str]] = []
    for ch in text:
        kind = "s" if ch.isspace() else ("w" if wcwidth(ch) == 2 else "n")
        if tokens and kind != "w" and tokens[-1][0] == kind:
            tokens[-1] = (kind, tokens[-1][1] + ch)
        else:
            tokens.append((kind, ch))
    return tokens


class _Line:
    """Tokens of one output line and their display width, kept up to date."""

    __slots__ = ("toks", "width")

    def __init__(self, toks=()):
        self.toks: list[tuple[str, str, int]] = []
        self.width = 0
        for t in toks:
            self.push(t)

    def push(self, tok: tuple[str, str, int]) -> None:
        self.toks.append(tok)
        self.width += tok[2]

    def pop(self) -> tuple[str, str, int]:
        tok = self.toks.pop()
        self.width -= tok[2]
        return tok

    def strip(self) -> None:
        while self.toks and self.toks[-1][0] == "s":
            self.pop()

    def text(self) -> str:
        return "".join(t for _, t, _ in self.toks)


def wrap(text: str, width: int) -> list[str]:
    """Break ``text`` into lines of at most ``width`` display columns.

    Lines break between wide (CJK) characters or at spaces; Latin words and numbers stay
    whole unless longer than a line. Where the width allows, a line does not start with a
    closing mark such as ``，`` or ``）`` nor end with an opening one such as ``（``.

    Examples
    --------
    >>> wrap("一二三四五，六七 abc def", 10)
    ['一二三四', '五，六七', 'abc def']
    >>> wrap("abcdefghij", 4)
    ['abcd', 'efgh', 'ij']
    >>> wrap("", 5)
    []
    """
    if not is_integer(width) or width < 4:
        raise ValueError(f"width must be an integer of at least 4 columns, got {width!r}")
    lines: list[_Line] = []
    cur = _Line()
    for kind, tok in _tokens(" ".join(text.split("\n"))):
        if kind == "s":
            if cur.toks:
                cur.push(("s", " ", 1))
            continue
        w = display_width(tok)
        if cur.width + w <= width:
            cur.push((kind, tok, w))
            continue
        # break the line; keep a closing mark with the character before it and
        # an opening mark with the character after it
        cur.strip()
        carried: list[tuple[str, str, int]] = []
        head = tok
        while len(cur.toks) > 1 and (head[0] in _NO_LINE_START or cur.toks[-1][1][-1] in _NO_LINE_END):
            carried.insert(0, cur.pop())
            head = carried[0][1]
            cur.strip()
        if cur.toks:
            lines.append(cur)
        cur = _Line(carried)
        while w > width - cur.width:
            if cur.toks and w <= width:  # fits on a line of its own
                lines.append(cur)
                cur = _Line()
                continue
            room, head, used = width - cur.width, "", 0  # a word longer than a line: cut it
            for ch in tok:
                cw = max(wcwidth(ch), 0)
                if used + cw > room:
                    break
                head, used = head + ch, used + cw
            cur.push((kind, head, used))
            lines.append(cur)
            cur, tok, w = _Line(), tok[len(head) :], w - used
        if tok:
            cur.push((kind, tok, w))
    cur.strip()
    if cur.toks:
        lines.append(cur)
    return [line.text() for line in lines]


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
