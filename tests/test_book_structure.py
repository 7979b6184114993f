"""The lecture in chapters: book/index.md's parts, each a section with one captioned toctree.

The sidebar groups the pages under the toctrees' captions; the PDF makes each section of the index a chapter
(Sphinx's LaTeX builder inlines the pages where their toctree stands), so the two must agree, and every page
must sit in exactly one part. tests/test_downloads.py checks the built PDF's chapters.
"""

import re

from tests.site_build import BOOK, PAGES

#: The parts, in order: (the index's section heading = the toctree's caption, the pages in it).
PARTS = {
    "四个演示": ["space", "landscape", "shapes", "sensitivity"],
    "搜索": ["searching", "statistics", "guides", "buckets"],
    "硬件与测量": ["gpus", "measured"],
    "附录": ["model", "questions", "glossary", "references"],
}
TOCTREE = re.compile(r"^```\{toctree\}\n(.*?)^```", re.M | re.S)


def sections(index: str) -> list[tuple[str, str]]:
    """(heading, body) of each ``## `` section of the index, in order."""
    parts = re.split(r"^## (.+)$", index, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def test_each_part_is_a_section_with_one_captioned_toctree_of_its_pages():
    index = (BOOK / "index.md").read_text(encoding="utf-8")
    found = {}
    for heading, body in sections(index):
        trees = TOCTREE.findall(body)
        if not trees:
            continue
        assert len(trees) == 1, f"section {heading!r} holds {len(trees)} toctrees"
        options = dict(re.findall(r"^:(\w+):[ \t]*(.*)$", trees[0], re.M))
        assert options.get("caption") == heading, f"section {heading!r}: toctree caption {options.get('caption')!r}"
        found[heading] = [line.strip() for line in trees[0].splitlines() if line.strip() and not line.startswith(":")]
    assert found == PARTS


def test_every_page_is_in_exactly_one_part():
    listed = [page for pages in PARTS.values() for page in pages]
    assert sorted(listed) == sorted(p for p in PAGES if p != "index"), "a page outside the parts, or one twice"


def test_the_reading_guide_comes_before_the_parts():
    """In the PDF the index's sections before the first part are chapters too: only the reading guide is."""
    headings = [heading for heading, _ in sections((BOOK / "index.md").read_text(encoding="utf-8"))]
    assert headings == ["怎么读这些数字", *PARTS], headings
