"""What an instructor takes away: the package as a wheel on the site, notebooks that install it, a footer
with version, date and licence, and the lecture as one PDF."""

import json
import re
import subprocess
import tomllib
import zipfile

import pytest

from tests.site_build import NOTEBOOK_PAGES, PAGES, ROOT

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
WHEEL_NAME = f"schedlab-{VERSION}-py3-none-any.whl"


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
