"""One statistical method on every page: verdicts from paired tests, never from whether intervals overlap.

The statistics page (book/statistics.md) is the one place that reasons about interval overlap: it
explains why overlap is no rule. Every other page calls a difference real only from a paired sign
test with Holm over the family it states (schedlab.core.stats.paired_family).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
PAGES = sorted(p for p in BOOK.glob("*.md") if p.name != "statistics.md")

#: Interval-overlap reasoning, in the pages' Chinese: "区间（不）重叠", "重叠的区间", intervals that
#: "连成一片", "离得很远" or lie "整个落在……下面".
OVERLAP = re.compile(
    r"区间[^。；\n]{0,30}?(?:不)?重叠|重叠[^。；\n]{0,6}区间|区间[^。；\n]{0,12}(?:连成一片|离得很远|整个落在)"
)


def test_the_pattern_finds_overlap_reasoning_and_not_pipeline_overlap():
    assert OVERLAP.search("可这五个的区间两两重叠，分不出先后")
    assert OVERLAP.search("区间不重叠的两个调优器，差别才可以读成排名")
    assert OVERLAP.search("其余的局部搜索和进化，区间连成一片")
    assert not OVERLAP.search("4 级时有 3 级在路上，一级时完全不能重叠")  # the model's pipelining


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_but_statistics_reasons_from_interval_overlap(page):
    hits = [m.group(0) for m in OVERLAP.finditer(page.read_text(encoding="utf-8"))]
    assert not hits, f"{page.name} reasons from interval overlap (only statistics.md may, to say why not): {hits}"


def test_the_statistics_page_explains_why_overlap_is_no_rule():
    text = (BOOK / "statistics.md").read_text(encoding="utf-8")
    assert "## 区间不重叠不是规则" in text and OVERLAP.search(text)
