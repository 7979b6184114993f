"""What an instructor takes away: the package as a wheel on the site, notebooks that install it, a footer
with version, date and licence, and the lecture as one PDF."""

import json
import re
import subprocess
import tomllib
import zipfile

import pytest

from tests.site_build import NOTEBOOK_PAGES, PAGES, ROOT
from tests.test_book_structure import PARTS

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
WHEEL_NAME = f"schedlab-{VERSION}-py3-none-any.whl"
SOLUTIONS_HEADING = "本章练习的解答"  # conf.py's SOLUTIONS_HEADING: the section that ends a chapter with its solutions
#: The LaTeX log's overfull lines allowed (each is a line of type that sticks out into the margin).
MAX_OVERFULL_LINES = (
    60  # 36 once every column got its widest unbreakable word first (222 before, 358 before the tables wrapped)
)


@pytest.mark.site
def test_site_serves_the_wheel_with_the_package(built_site):
    wheel = built_site / "_static" / WHEEL_NAME
    assert wheel.is_file(), f"{wheel} is missing"
    names = zipfile.ZipFile(wheel).namelist()
    # the code and the data the pages read (recorded runs, measured landscapes and their licence)
    data = [p for p in (ROOT / "schedlab" / "data").rglob("*") if p.is_file()]
    sources = {p.relative_to(ROOT).as_posix() for p in [*(ROOT / "schedlab").rglob("*.py"), *data]}
    assert sources <= set(names), f"the wheel lacks {sorted(sources - set(names))[:5]}"
    metadata = zipfile.ZipFile(wheel).read(f"schedlab-{VERSION}.dist-info/METADATA").decode()
    assert re.search(r"^License-Expression: MIT$", metadata, re.M), "the wheel does not state its licence"


@pytest.mark.site
@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_downloaded_notebook_installs_the_wheel_first(built_site, page):
    notebook = json.loads((built_site / "_sources" / f"{page}.ipynb").read_text(encoding="utf-8"))
    first = notebook["cells"][0]
    assert first["cell_type"] == "code" and "install" in first["metadata"].get("tags", []), f"{page}: no install cell"
    source = "".join(first["source"])
    # the light extra (what the package needs to run a page), not the site's toolchain
    assert re.search(rf'%pip install .*"\./{re.escape(WHEEL_NAME)}\[notebook\]"', source), (
        f"{page}: install cell reads {source!r}"
    )


@pytest.mark.site
@pytest.mark.parametrize("page", PAGES)
def test_every_page_states_version_date_and_licence(built_site, page):
    html = (built_site / f"{page}.html").read_text(encoding="utf-8")
    assert f"schedlab {VERSION}" in html, f"{page}: no version"
    # sphinx-book-theme's footer is the article's bd-footer-content (the theme's bd-footer after it is empty)
    assert 'class="bd-footer-content' in html, f"{page}: no footer"
    footer = html.split('class="bd-footer-content', 1)[1]
    assert re.search(r'class="last-updated">\s*最后更新于 \d{4}-\d{2}-\d{2}', footer), f"{page}: no last-updated date"
    assert "CC BY 4.0" in html and "MIT" in html, f"{page}: no licence"
    assert f'href="_static/{WHEEL_NAME}"' in html, f"{page}: no wheel download"
    # a site built after the PDF (`make test` builds it first) serves it, and every page links it (footer, menu)
    if (ROOT / "_build" / "latex" / "schedlab.pdf").is_file():
        assert (built_site / "_static" / "schedlab.pdf").is_file(), "the site does not serve the PDF"
        assert html.count('_static/schedlab.pdf"') >= 2, f"{page}: the PDF is not linked from its footer and menu"
    assert "列印" not in html, f"{page}: traditional-Chinese wording in the download menu"


@pytest.mark.build
@pytest.mark.slow
def test_make_pdf_builds_the_whole_lecture_with_chinese_text():
    """`make pdf` writes one PDF holding every chapter's title, in Chinese (the text layer, read by pdftotext)."""
    subprocess.run(["make", "pdf"], cwd=ROOT, check=True, capture_output=True, timeout=1800)
    pdf = ROOT / "_build" / "latex" / "schedlab.pdf"
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    for page in PAGES:
        source = (ROOT / "book" / f"{page}.md").read_text(encoding="utf-8")
        title = re.search(r"^# (.+)$", source, re.M)
        if title:
            assert "".join(title[1].split())[:8] in "".join(text.split()), f"the PDF lacks the chapter {title[1]!r}"
    # In chapters: the reading guide, then the index's parts (tests/test_book_structure.py), each part with
    # exercises ending with their solutions (conf.py's _gather_solutions_at_chapter_ends).
    tex = (ROOT / "_build" / "latex" / "schedlab.tex").read_text(encoding="utf-8")
    chapters = re.split(r"\\chapter\{", tex)[1:]
    assert [c.split("}", 1)[0] for c in chapters] == ["怎么读这些数字", *PARTS]
    for name, chapter in zip(["怎么读这些数字", *PARTS], chapters):
        has_solutions = any(
            "{solution-start}" in (ROOT / "book" / f"{p}.md").read_text("utf-8") for p in PARTS.get(name, [])
        )
        assert (f"\\section{{{SOLUTIONS_HEADING}}}" in chapter) == has_solutions, f"chapter {name}: solutions"
    # The typesetting: the LaTeX log's overfull lines (358 before the tables were set as wrapping longtables).
    log = (ROOT / "_build" / "latex" / "schedlab.log").read_text(encoding="utf-8", errors="replace")
    overfull = len(re.findall(r"^Overfull \\hbox", log, re.M))
    assert overfull <= MAX_OVERFULL_LINES, f"{overfull} overfull lines in the LaTeX log"
