"""Every glossary term is linked ({term} role) at its first use in the prose of each page that uses it.

Reads the Markdown sources (no build): the prose of a page is its text outside code, doctest and other
literal fences, headings, directive options, math and inline code. A term is "used" where its pattern
matches that prose; its first use must come at or after a {term} link to it on the same page.
"""

import re

import pytest

from tests.site_build import BOOK, PAGES

GLOSSARY = (BOOK / "glossary.md").read_text(encoding="utf-8")
#: The glossary's terms: the unindented lines of its ```{glossary} block.
TERMS = tuple(
    line
    for line in re.search(r"```\{glossary\}\n(.*?)\n```", GLOSSARY, re.S)[1].splitlines()
    if line.strip() and not line.startswith((" ", ":"))
)

#: How a term shows in prose, where that differs from the term itself (regular expressions).
PATTERNS = {
    "波": r"波(?!动)",
    "SPACE 顺序": r"SPACE 顺序|SPACE` 的顺序",
    "结论 C1–C8": r"\bC[1-8](?!\d)",
    "随机种子": r"种子",
    "置信区间": r"置信区间|\d+% 区间",
    "自助法": r"自助",
    "Clopper–Pearson 区间": r"Clopper",
    "p 值": r"\bp 值|\bp [=<≤] ",
    "Bonferroni 校正": r"Bonferroni",
    "Holm 校正": r"\bHolm\b",
    "独热编码": r"独热",
    "TPE": r"\bTPE\b",
}
#: Terms too common as plain words to check by pattern: 块 is also "a piece" (一块平台) and part of
#: 块形 or warp 块; 带 is part of 带宽 (bandwidth), 带噪声 and 带重启.
UNCHECKED = {"块", "带"}

#: Literal fences: their content is code or data, not prose (exercises, admonitions stay).
LITERAL = re.compile(
    r"^(`{3,})(?:\{(?:code-cell|doctest|toctree|glossary|bibliography)\}|python|console|sh|text)[^\n]*\n.*?^\1\s*$",
    re.M | re.S,
)
ROLE = re.compile(r"\{([a-z:]+)\}`([^`]*)`")


def prose(page: str) -> str:
    """The page's prose, each {term} link replaced by a marker ``\\x00target\\x00``."""
    text = (BOOK / f"{page}.md").read_text(encoding="utf-8")
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    text = LITERAL.sub("", text)
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)

    def role(match):
        if match[1] != "term":
            return " "
        target = re.search(r"<([^>]+)>\s*$", match[2])
        return f"\x00{target[1] if target else match[2]}\x00"

    text = ROLE.sub(role, text)
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(("#", ":", "(", "```"))]
    text = "\n".join(lines)
    text = re.sub(r"\$[^$\n]+\$", " ", text)
    return re.sub(r"`[^`\n]*`", " ", text)


@pytest.mark.parametrize("page", [p for p in PAGES if p not in ("glossary", "references")])
def test_glossary_terms_are_linked_at_first_use(page):
    text = prose(page)
    unlinked = []
    for term in TERMS:
        if term in UNCHECKED:
            continue
        linked = text.find(f"\x00{term}\x00")
        plain = re.sub(r"\x00[^\x00]*\x00", lambda m: "\x01" * len(m[0]), text)  # links are not plain uses
        used = re.search(PATTERNS.get(term, re.escape(term)), plain)
        if used and (linked < 0 or linked > used.start()):
            unlinked.append(f"{term}: …{plain[max(0, used.start() - 20) : used.end() + 10]}…")
    assert not unlinked, f"{page}.md uses these glossary terms before linking them:\n" + "\n".join(unlinked)


def test_every_term_link_names_a_glossary_term():
    for page in PAGES:
        for target in re.findall(r"\x00([^\x00]*)\x00", prose(page)):
            assert target in TERMS, f"{page}.md links {target!r}, which the glossary does not define"


def test_the_glossary_has_the_terms_the_lecture_leans_on():
    """The statistics and search vocabulary a student meets (issue 17), besides the GPU terms."""
    needed = {"自助法", "符号检验", "Bonferroni 校正", "岭回归", "独热编码", "后悔值", "集合覆盖", "TPE", "SPACE 顺序"}
    needed |= {"Clopper–Pearson 区间", "p 值", "随机种子", "原始讲义脚本"}
    assert needed <= set(TERMS), f"missing from the glossary: {sorted(needed - set(TERMS))}"
