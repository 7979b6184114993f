"""The built site: every page executed cleanly, with its tables, figures, downloads and search terms."""

import ast
import html
import json
import re

import jieba
import pytest

from tests.site_build import BOOK, NOTEBOOK_PAGES, PAGES, PROSE_PAGES

pytestmark = pytest.mark.site

#: Pages that teach with figures and tables (the prose pages only introduce or answer).
CONTENT_PAGES = tuple(p for p in NOTEBOOK_PAGES if p not in PROSE_PAGES)


def page_html(site, page):
    path = site / f"{page}.html"
    assert path.exists(), f"page {page}.html was not built"
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES)
def test_page_has_no_error_output(built_site, page):
    html = page_html(built_site, page)
    assert "Traceback" not in html
    assert "output stderr" not in html and "output error" not in html
    assert "Glyph" not in html


@pytest.mark.parametrize("page", CONTENT_PAGES)
def test_page_has_real_tables_and_captioned_figures(built_site, page):
    html = page_html(built_site, page)
    assert re.search(r"<table[^>]*>.*?<td", html, re.S), f"{page}: no HTML table"
    assert "<pre>|" not in html and "| --- |" not in html, f"{page}: a table rendered as raw text"
    figures = re.findall(r"<figure.*?</figure>", html, re.S)
    assert figures, f"{page}: no figure"
    for fig in figures:
        # a static image, or an interactive Plotly figure (whose static twin the PDF prints: see below)
        assert "<img" in fig or 'class="plotly-graph-div"' in fig, f"{page}: figure without image"
        assert re.search(r"图 \d+", fig), f"{page}: figure without a numbered caption"


@pytest.mark.parametrize("page", CONTENT_PAGES)
def test_interactive_figures_keep_a_static_image_for_paper(built_site, page):
    """Every output that shows a Plotly figure carries a PNG too: the LaTeX builder, which renders no HTML,
    prints that one (the executed notebook holds both; schedlab.figures.style.Interactive)."""
    notebook = json.loads((built_site.parent / "jupyter_execute" / f"{page}.ipynb").read_text(encoding="utf-8"))
    outputs = [out.get("data", {}) for cell in notebook["cells"] for out in cell.get("outputs", [])]
    interactive = [data for data in outputs if "plotly-graph-div" in "".join(data.get("text/html", ""))]
    shown = page_html(built_site, page).count('class="plotly-graph-div"')
    assert len(interactive) >= shown, f"{page}: {shown} Plotly figures shown, {len(interactive)} in the notebook"
    for data in interactive:
        assert "image/png" in data, f"{page}: an interactive figure without its static PNG"


def test_index_links_every_page(built_site):
    html = page_html(built_site, "index")
    for page in CONTENT_PAGES:
        assert f'href="{page}.html"' in html, f"index does not link {page}"


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_page_offers_notebook_and_source_downloads(built_site, page):
    html = page_html(built_site, page)
    for suffix in (".ipynb", ".md"):
        assert f"_sources/{page}{suffix}" in html, f"{page}: no {suffix} download"
        assert (built_site / "_sources" / f"{page}{suffix}").exists()


CITE_ROLE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")


def test_every_source_is_cited_and_listed_on_the_references_page(built_site):
    """The references page lists only cited sources: each entry of book/references.bib must be cited on a page
    (an unknown key is a warning, an error under -W) and shown there once."""
    keys = re.findall(r"^@\w+\{([^,\s]+),", (BOOK / "references.bib").read_text(encoding="utf-8"), re.M)
    cited = {
        key.strip()
        for page in PAGES
        for role in CITE_ROLE.findall((BOOK / f"{page}.md").read_text(encoding="utf-8"))
        for key in role.split(",")
    }
    assert keys and set(keys) <= cited, f"sources no page cites: {sorted(set(keys) - cited)}"
    assert page_html(built_site, "references").count('role="doc-biblioentry"') == len(keys)


@pytest.mark.parametrize("page", PAGES)
def test_page_loads_nothing_from_outside(built_site, page):
    html = page_html(built_site, page)
    external = re.findall(r'(?:src|href)="(https?://[^"]+)"', html)
    loaded = [u for u in external if re.search(r"\.(js|css|woff2?|png|svg)(\?|$)", u)]
    assert not loaded, f"{page} loads from outside: {loaded}"


def search_terms(site):
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    return set(index["terms"]) | set(index.get("titleterms", {}))


@pytest.mark.parametrize("word", ["调度", "共享内存", "流水线", "寄存器"])
def test_chinese_words_are_searchable(built_site, word):
    """Sphinx's zh search splits the query with jieba; every piece must be an index term."""
    terms = search_terms(built_site)
    pieces = [w for w in jieba.cut_for_search(word) if w.strip()]
    assert any(p in terms for p in pieces), f"{word} ({pieces}) not in the search index"


GLUE_ROLE = re.compile(r"\{glue:text\}`([^`:]+)(?::([^`]*))?`")


@pytest.mark.parametrize("page", PAGES)
def test_glued_numbers_in_the_html_are_what_the_build_computed(built_site, page):
    """Each {glue:text} in the built page shows the value its cell glued when the build ran the page, as Python
    prints it (with the role's format): read from the glue records myst-nb writes beside the executed notebook
    (jupyter_execute/PAGE.glue.json), not by running the page again. A record that is not a plain literal
    (``np.float64(3.2)``) would show its repr on the page, and fails. The build runs every page each time
    (conf.py's nb_execution_mode, and the package sources' hash: test_build_package_change), so these are the
    model's numbers now."""
    source = (BOOK / f"{page}.md").read_text(encoding="utf-8")
    roles = GLUE_ROLE.findall(source)
    spans = re.findall(r'<span class="pasted-text">([^<]*)</span>', page_html(built_site, page))
    assert len(spans) == len(roles), f"{page}: {len(roles)} glue roles but {len(spans)} pasted values"
    if not roles:
        return
    records = json.loads((built_site.parent / "jupyter_execute" / f"{page}.glue.json").read_text(encoding="utf-8"))
    for (key, spec), shown in zip(roles, spans):
        assert key in records, f"{page}: {key} is shown but never glued"
        plain = records[key]["data"]["text/plain"]
        try:
            value = ast.literal_eval(plain)
        except (ValueError, SyntaxError):
            pytest.fail(f"{page}: {key} was glued as {plain!r}, not a number or a string")
        expected = format(value, spec) if spec else str(value)
        assert html.unescape(shown) == expected, f"{page}: {key} shows {shown!r}, the build computed {expected!r}"
        # {glue:text} pastes plain text: Markdown or MyST markup in a glued string reaches the reader as it is
        markup = re.search(r"`|\*\*|\{\w+\}", expected) if isinstance(value, str) else None
        assert markup is None, f"{page}: {key} is glued with markup {markup[0]!r} that the page prints literally"


SEARCH_WORDS = (BOOK / "_search" / "words.txt").read_text(encoding="utf-8").split()


@pytest.mark.parametrize("word", SEARCH_WORDS)
def test_lecture_terms_are_whole_search_terms(built_site, word):
    """The search page looks a query up whole (it has no jieba); book/_search/words.txt makes each term one."""
    assert word in search_terms(built_site), f"{word} is not a search term (jieba cut it apart)"


def _shown_outputs(notebook):
    """Code cells with an output a reader sees (glue records are data for the page, not displays)."""
    return [
        c
        for c in notebook.cells
        if c.cell_type == "code"
        and any(
            set(o.get("data", {"text/plain": 1})) - {k for k in o.get("data", {}) if "papermill" in k}
            for o in c.outputs
        )
    ]


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_notebook_downloads_carry_outputs(built_site, page):
    import nbformat

    notebook = nbformat.read(built_site / "_sources" / f"{page}.ipynb", as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code, f"{page}: the download has no code cells"
    ran = [
        c for c in code if "install" not in c.metadata.get("tags", [])
    ]  # the install cell runs on the reader's machine
    assert all(isinstance(c.execution_count, int) for c in ran), f"{page}: the download has cells never run"
    shown_on_page = page_html(built_site, page).count('<div class="cell_output')
    # myst-nb keeps glue records out of the notebook it writes: a page whose cells only glue shows no output
    assert any(c.outputs for c in code) or not shown_on_page, f"{page}: the download has no outputs"
    assert len(_shown_outputs(notebook)) >= shown_on_page, (
        f"{page}: the page shows {shown_on_page} outputs, its download has {len(_shown_outputs(notebook))}"
    )
