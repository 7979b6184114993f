"""Chinese text broken into lines: one set of line-breaking rules for the console and the figures.

A CJK character takes two columns (:func:`display_width`, from ``wcwidth``); a line may break
between two of them or at a space, and no line begins with a closing mark nor ends with an
opening one (:data:`NO_LINE_START`, :data:`NO_LINE_END`, the usual Chinese line-breaking rules).
:func:`wrap` fills lines of a given width (the console's observations); :func:`break_in_two`
splits one line at its most balanced break (a figure's text that sticks out,
:func:`schedlab.figures.style.fit_width`).

Examples
--------
>>> wrap("一二三四五，六七 abc def", 10)
['一二三四', '五，六七', 'abc def']
>>> break_in_two("屋顶线：每种形状的最优配置")
('屋顶线：', '每种形状的最优配置')
"""

from __future__ import annotations

from wcwidth import wcwidth

from schedlab.core.checks import is_integer

__all__ = ["NO_LINE_START", "NO_LINE_END", "BREAK_AFTER", "BREAK_BEFORE", "display_width", "wrap", "break_in_two"]

#: Marks a line must not begin with: closing punctuation, CJK and Latin.
NO_LINE_START = frozenset("，。、；：！？）》」』”’…·,.;:!?)]}%")
#: Marks a line must not end with: opening punctuation.
NO_LINE_END = frozenset("（《「『“‘([{")
#: Where :func:`break_in_two` prefers to break: after a clause's or a bracket's end, before a bracket's
#: start. (Fewer than :data:`NO_LINE_START`: a full stop, ``%`` or ``!`` also end numbers and Latin words.)
BREAK_AFTER = frozenset("，。；：、）)」,;:")
BREAK_BEFORE = frozenset("（(「")


def display_width(text: str) -> int:
    """Terminal columns ``text`` occupies: 2 per wide (CJK) character, 0 for combining or control.

    Examples
    --------
    >>> display_width("abc"), display_width("演示 1"), display_width("149.0 µs")
    (3, 6, 8)
    """
    return sum(max(wcwidth(ch), 0) for ch in text)


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
        while len(cur.toks) > 1 and (head[0] in NO_LINE_START or cur.toks[-1][1][-1] in NO_LINE_END):
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


def break_in_two(line: str) -> tuple[str, str] | None:
    """``line`` split in two at its most balanced break, or None if it has none.

    A break after closing punctuation or before opening punctuation (:data:`BREAK_AFTER`,
    :data:`BREAK_BEFORE`) comes first, then one at a space, then one between two CJK characters;
    among the first kind the line has, the one whose longer half is shortest (in display columns,
    :func:`display_width`). No line may begin with a mark of :data:`NO_LINE_START` or end with one of
    :data:`NO_LINE_END`, so a closing bracket followed by a colon is never split.

    Examples
    --------
    >>> break_in_two("屋顶线：每种形状的最优配置")
    ('屋顶线：', '每种形状的最优配置')
    >>> break_in_two("num_warps（每块的 warp 数）")
    ('num_warps', '（每块的 warp 数）')
    >>> break_in_two("4096×4096") is None
    True
    >>> break_in_two("方阵 4096³（4096×4096×4096）：同一个空间在四块 GPU 上")
    ('方阵 4096³（4096×4096×4096）：', '同一个空间在四块 GPU 上')
    """
    punctuation, spaces, ideographs = [], [], []
    for i in range(1, len(line)):
        before, after = line[i - 1], line[i]
        if after in NO_LINE_START or before in NO_LINE_END:
            continue  # a line would begin with a closing mark or end with an opening one
        if before in BREAK_AFTER or after in BREAK_BEFORE:
            punctuation.append(i)
        elif after == " ":  # (the break after the space is the same one)
            spaces.append(i)
        elif display_width(before) == 2 and display_width(after) == 2:
            ideographs.append(i)

    def width(text: str) -> int:
        return display_width(text.strip())

    for candidates in (punctuation, spaces, ideographs):
        candidates = [i for i in candidates if line[:i].strip() and line[i:].strip()]
        if candidates:
            i = min(candidates, key=lambda i: max(width(line[:i]), width(line[i:])))
            return line[:i].rstrip(), line[i:].lstrip()
    return None
