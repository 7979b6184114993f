"""Sphinx configuration of the lecture site: `sphinx-build -c . book _build/html` (see the Makefile)."""

import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "book" / "_ext"))  # sphinx_upstream_fixes: workarounds for open Sphinx bugs
from schedlab.render.wrap import display_width  # noqa: E402  (a CJK character two columns, as the console counts)

# -- Project ----------------------------------------------------------------------------
project = "GPU 矩阵乘法的调度空间"
author = "CS349E"
copyright = "2026, CS349E"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
version = release = PYPROJECT["version"]  # the package's version, on every page's footer and the PDF's title page
# The package as a wheel (`make wheel`, a prerequisite of `make html`), served with the site when it has been built:
# every page's footer links it and the downloaded notebooks install it (book/_ext/notebook_download.py). A build
# without it (a test's throwaway book, `make doctest`) has neither.
WHEEL = ROOT / "dist" / f"schedlab-{version}-py3-none-any.whl"
HAS_WHEEL = WHEEL.is_file()
INSTALL_LINE = f'%pip install "./{WHEEL.name}[notebook]"'
schedlab_wheel = str(WHEEL) if HAS_WHEEL else ""  # notebook_download: each page's notebook and zip install it
# The whole lecture as one PDF (`make pdf`), served with the site when it has been built first (`make test` does):
# every page's footer and its download menu link it, and the HTML build copies it into _static (_serve_pdf; not
# html_static_path, which the LaTeX builder would find inside its own output folder). A site built without it
# leaves both out.
PDF = ROOT / "_build" / "latex" / "schedlab.pdf"
HAS_PDF = PDF.is_file()
language = "zh_CN"  # Chinese search splits words with jieba (a dependency)

extensions = [
    "myst_nb",
    "sphinx.ext.doctest",
    "sphinx_copybutton",
    "sphinx_exercise",  # exercises with solutions in dropdowns, code cells allowed inside
    "sphinx_togglebutton",  # collapses those dropdowns: without it every solution shows open
    "sphinxcontrib.bibtex",  # {cite} roles and the references page, from book/references.bib
    "sphinx_upstream_fixes",  # book/_ext/: the zh search's stemmer, index entries in rebuilt search indexes
    "notebook_download",  # book/_ext/: each page's .ipynb reads as the page (values, references) + a zip with the wheel
]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
numfig = True
math_numfig = True
math_eqref_format = "({number})"
numfig_format = {"figure": "图 %s", "table": "表 %s", "code-block": "代码 %s", "section": "%s 节"}

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
bibtex_bibfiles = ["book/references.bib"]  # relative to the folder of conf.py
bibtex_default_style = "alpha"  # labels such as [Lit61]: a citation never looks like a numbered footnote

# -- Execution --------------------------------------------------------------------------
# Every page is executed each time Sphinx reads it ("force": no execution cache, so parallel readers
# are safe; jupyter-cache's cache mode is not under -j, its issue #37). Sphinx re-reads a page when
# its source changes, and every page when a config value of rebuild kind "env" changes: that value is
# a hash of the package sources and the figure style, so an edit under schedlab/ re-executes every page.
_inputs = sorted((ROOT / "schedlab").rglob("*.py")) + [ROOT / "schedlab" / "figures" / "matplotlibrc"]
_digest = hashlib.sha256()
for path in _inputs:
    _digest.update(path.relative_to(ROOT).as_posix().encode())
    _digest.update(path.read_bytes())
SCHEDLAB_HASH = _digest.hexdigest()[:16]

nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True  # a failing cell fails the build ...
nb_execution_show_tb = True  # ... with its traceback in the log (under -j: see the Makefile's -T)
nb_output_stderr = "warn"  # stderr in a cell (e.g. a missing glyph) becomes a warning, and -W an error
nb_render_markdown_format = "myst"
nb_ipywidgets_js = {}  # no widget JavaScript from a CDN
nb_merge_streams = True
nb_code_prompt_show = "显示代码"  # label of collapsed (hide-input) cells, in the pages' language
nb_code_prompt_hide = "隐藏代码"
togglebutton_hint = "点击展开"  # the solution toggles speak the pages' language
togglebutton_hint_hide = "点击收起"

# -- Doctest (`make doctest`) -------------------------------------------------------------
doctest_global_setup = "import schedlab"

# -- HTML -------------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = project
html_theme_options = {
    "use_download_button": True,
    "show_toc_level": 2,
    "home_page_in_toc": True,
}
html_context = {"default_mode": "light"}  # no "invalid theme mode" console error on first visit
# MathJax from _static, no CDN at view time: the files the sphinx-mathjax-offline package ships, served as
# static files (copied before pages are written). Not loaded as an extension: it copies them only when the
# build has finished, and does not declare itself safe for parallel reading (so -j -W fails).
MATHJAX_STATIC = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent / "static"
mathjax_path = "mathjax/tex-chtml.js"
# Plotly's JavaScript from the Python package (one file, served here, no CDN); a page loads it only when it
# holds an interactive figure (_load_plotly).
PLOTLY_JS = Path(importlib.util.find_spec("plotly").origin).parent / "package_data" / "plotly.min.js"
html_static_path = [
    "book/_static",
    str(MATHJAX_STATIC),
    str(PLOTLY_JS),
    *([str(WHEEL)] if HAS_WHEEL else []),
]
html_favicon = "book/_static/favicon.svg"
html_css_files = ["custom.css"]  # tables: padding, colours, scrolling with a cue; figures' width; print
# table-scroll.js: a table wider than the text column widens into the contents column on a desktop; a table box
# whose scrollbar Chromium left undrawn is laid out again
html_js_files = ["table-scroll.js"]
html_last_updated_fmt = "%Y-%m-%d"  # "最后更新" in every page's footer
_WHEEL_LINK = (
    f' · <a href="_static/{WHEEL.name}" download>下载 schedlab {version}（wheel）</a>，'
    f"下载的笔记本第一格用它安装：<code>{INSTALL_LINE}</code>"
    if HAS_WHEEL
    else ""
)
_PDF_LINK = ' · <a href="_static/schedlab.pdf">整本讲义（PDF）</a>' if HAS_PDF else ""
html_theme_options["extra_footer"] = (
    f"<p>schedlab {version} · 文字采用 "
    '<a href="https://creativecommons.org/licenses/by/4.0/deed.zh-hans">CC BY 4.0</a>，代码采用 MIT 许可证'
    f"{_PDF_LINK}{_WHEEL_LINK}</p>"
)
html_show_sourcelink = True
html_copy_source = True


# -- Search -------------------------------------------------------------------------------
# Sphinx's Chinese search cuts the pages into words with jieba. The lecture's own terms that
# jieba's dictionary cuts apart (屋顶线 -> 屋顶 / 线) are in book/_search/words.txt, a jieba user
# dictionary, so that a reader who types one finds it; book/_search/search.js ranks the page
# that uses a term most first and keeps code and TeX out of the result snippets (its term counts are written
# when a build starts: _use_search_scorer).
SEARCH_DIR = ROOT / "book" / "_search"
html_search_options = {"dict": str(SEARCH_DIR / "words.txt")}


def _write_search_scorer(out: Path) -> Path:
    """Write search.js after LECTURE_TERM_COUNTS (term -> {page: uses in its source}); return ``out``."""
    terms = SEARCH_DIR.joinpath("words.txt").read_text(encoding="utf-8").split()
    sources = {page.stem: page.read_text(encoding="utf-8") for page in sorted((ROOT / "book").glob("*.md"))}
    counts = {t: {page: text.count(t) for page, text in sources.items() if t in text} for t in terms}
    missing = [t for t, pages in counts.items() if not pages]
    if missing:
        raise ValueError(f"book/_search/words.txt: {missing} appear on no page; remove them")
    code = f"const LECTURE_TERM_COUNTS = {json.dumps(counts, ensure_ascii=False)};\n\n"
    code += SEARCH_DIR.joinpath("search.js").read_text(encoding="utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_text(encoding="utf-8") != code:
        partial = out.with_name(f"{out.name}.{os.getpid()}")  # a build running beside reads it whole
        partial.write_text(code, encoding="utf-8")
        os.replace(partial, out)
    return out


def _use_search_scorer(app):
    """Write the search scorer among the build's doctrees and make it the HTML builder's ``html_search_scorer``.

    Every builder checks the terms (a term on no page fails any build); the HTML builder reads the file
    when it writes the search page, after this (``builder-inited``).
    """
    app.config.html_search_scorer = str(_write_search_scorer(Path(app.doctreedir) / "search_scorer.js"))


copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True


#: The page download menu's print entry: the theme's zh_CN catalogue words it in traditional Chinese (列印成 PDF).
PRINT_TOOLTIP = "打印本页为 PDF"


def _download_menu_in_simplified_chinese_with_the_book(app, pagename, templatename, context, doctree):
    """Reword the theme's "print to PDF" entry of the page's download menu, and add the whole lecture's PDF to it.

    Runs after sphinx-book-theme fills ``header_buttons`` (priority 501); the template translates each tooltip
    again, and a string the catalogue does not hold stays as it is.
    """
    for group in context.get("header_buttons", []):
        buttons = group.get("buttons", [])
        for button in buttons:
            if button.get("label") == "download-pdf-button":
                button["tooltip"] = PRINT_TOOLTIP
        if group.get("label") == "download-buttons" and HAS_PDF:
            buttons.append(
                {
                    "type": "link",
                    "url": context["pathto"]("_static/schedlab.pdf", 1),
                    "text": "整本讲义",
                    "tooltip": "下载整本讲义（PDF）",
                    "icon": "fas fa-book",
                    "label": "download-book-pdf-button",
                }
            )


def _serve_pdf(app, exception):
    """Copy the whole lecture's PDF into the HTML site's _static, where every page links it."""
    if exception is None and app.builder.name == "html" and HAS_PDF:
        shutil.copyfile(PDF, Path(app.outdir) / "_static" / PDF.name)


def _load_plotly(app, pagename, templatename, context, doctree):
    """Load plotly.min.js (served from _static) on a page that holds an interactive Plotly figure."""
    if doctree is not None and "plotly-graph-div" in doctree.astext() + str(context.get("body", "")):
        app.add_js_file("plotly.min.js")


def _caption_as_alt_text(app, doctree, docname):
    """Give each figure's image its caption as alt text (myst-nb's default is the file's hash name)."""
    from docutils import nodes

    for figure in doctree.findall(nodes.figure):
        caption = next(figure.findall(nodes.caption), None)
        if caption is not None:
            for image in figure.findall(nodes.image):
                image["alt"] = " ".join(caption.astext().split())


#: The heading of the section that ends each chapter of the PDF with the chapter's solutions.
SOLUTIONS_HEADING = "本章练习的解答"


def _gather_solutions_at_chapter_ends(app, doctree, docname):
    """In the PDF, move every exercise's solution to the end of its chapter (a section headed SOLUTIONS_HEADING).

    On the site a solution is folded under its exercise; paper cannot fold, and a solution printed right under
    its exercise answers it before the reader tries. The LaTeX builder resolves the whole book as one doctree
    under the root document: each section directly under the root's title is a chapter (book/index.md's parts).
    Where a solution stood, a line says where it went. Other builders are left alone.
    """
    if app.builder.name != "latex" or docname != app.config.root_doc:
        return
    from docutils import nodes
    from sphinx import addnodes
    from sphinx_exercise.nodes import solution_node

    def page_of(node):  # the page a node was inlined from (inline_all_toctrees marks its sections with it)
        while not (isinstance(node, nodes.section) and "docname" in node):
            node = node.parent
        return node["docname"]

    book = next(iter(doctree.findall(nodes.section)))
    for chapter in [child for child in book.children if isinstance(child, nodes.section)]:
        solutions = list(chapter.findall(solution_node))
        if not solutions:
            continue
        gathered = nodes.section(ids=[f"solutions-{chapter['ids'][0]}"])
        gathered += nodes.title(text=SOLUTIONS_HEADING)
        for solution in solutions:
            page = page_of(solution)
            if not isinstance(gathered[-1], addnodes.start_of_file) or gathered[-1]["docname"] != page:
                gathered += addnodes.start_of_file(docname=page)  # so its tables' labels stay the page's own
            solution.replace_self(nodes.paragraph(text="（解答在本章末尾。）"))
            gathered[-1] += solution
        chapter += gathered


#: What one line of a PDF table holds, in display_width units (footnotesize on the A4 text width), and what
#: each column's padding takes of it.
PDF_LINE_WIDTH = 80
PDF_COLUMN_PADDING = 3


def _unbreakable_width(word: str) -> int:
    """The widest run of ``word`` LaTeX cannot break: xeCJK breaks between CJK characters, not inside "4096×4096"."""
    runs = re.split(r"[\u2e80-\uffff]", word)
    return max(max((display_width(run) for run in runs), default=0), 4 if word else 0)  # at least two CJK characters


def _column_widths(words: list[int], wants: list[int]) -> list[int]:
    """Each column's width: first its widest unbreakable word, then what the line has left, shared in proportion
    to what each column's longest cell still wants beyond that.

    >>> _column_widths([14, 22, 4], [14, 24, 40])  # 91 - 40 = 51 left, 38 wanted: every column gets its want
    [14, 24, 40]
    >>> _column_widths([14, 30, 4], [14, 40, 40])  # 91 - 48 = 43 left for 46 wanted: shared, the words kept
    [14, 39, 37]
    """
    room = PDF_LINE_WIDTH - PDF_COLUMN_PADDING * len(words) - sum(words)
    extra = [max(want - word, 0) for word, want in zip(words, wants)]
    if room <= 0 or not sum(extra):
        return [max(word, 1) for word in words]
    share = min(1.0, room / sum(extra))
    return [max(word + int(e * share), 1) for word, e in zip(words, extra)]


def _fit_tables_to_the_page(app, doctree, docname):
    """In the PDF, every table breaks across pages and its columns wrap, a number or identifier never inside.

    Sphinx sets a table of up to 30 rows with ``tabulary``, which cannot break across pages (the last rows ran
    over the footer) and squeezes a column below its widest number (65536 printed as 6553); a longer table it
    sets with ``longtable`` in unwrapped ``l`` columns (an identifier column ran off the page). Here each column
    gets a relative width (``colwidths-given``: Sphinx's wrapping ``\\X`` columns): its widest unbreakable word
    first (a shape such as 4096×4096×4096 kept whole), then a share of the rest of the line towards its longest
    cell (capped at 40), so a long sentence wraps and a number never does (:func:`_column_widths`).
    """
    if app.builder.name != "latex" or docname != app.config.root_doc:
        return
    from docutils import nodes

    for table in doctree.findall(nodes.table):
        tgroup = next(iter(table.findall(nodes.tgroup)), None)
        if tgroup is None or any(True for _ in tgroup.findall(nodes.table)):
            continue  # no table body, or a nested table: left as Sphinx sets it
        colspecs = [c for c in tgroup.children if isinstance(c, nodes.colspec)]
        words, wants = [1] * len(colspecs), [1] * len(colspecs)
        for row in tgroup.findall(nodes.row):
            entries = [e for e in row.children if isinstance(e, nodes.entry)]
            if len(entries) != len(colspecs):
                break  # a spanning cell: keep Sphinx's own layout
            for i, entry in enumerate(entries):
                text = " ".join(entry.astext().split())
                words[i] = max(words[i], *(_unbreakable_width(w) for w in text.split(" ")))
                wants[i] = max(wants[i], min(display_width(text), 40))
        else:
            for colspec, width in zip(colspecs, _column_widths(words, wants)):
                colspec["colwidth"] = width + PDF_COLUMN_PADDING  # Sphinx takes the padding out of each column's share
            table["classes"] += ["colwidths-given", "longtable"]


def setup(app):
    # The notebook kernels run with book/ as their working directory: let them import schedlab.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    os.environ.setdefault("MPLBACKEND", "Agg")
    # The package sources' hash, twice: "env" makes a package edit re-read (re-execute) every page; "html"
    # makes the html builder write every page again even when `make html`'s doctest step (which shares
    # the doctrees) has already re-read them and left it nothing to read.
    app.add_config_value("schedlab_sources_hash", SCHEDLAB_HASH, "env")
    app.add_config_value("schedlab_sources_hash_html", SCHEDLAB_HASH, "html")
    app.connect("html-page-context", _load_plotly)
    app.connect("html-page-context", _download_menu_in_simplified_chinese_with_the_book, priority=502)
    app.connect("doctree-resolved", _gather_solutions_at_chapter_ends)
    app.connect("doctree-resolved", _fit_tables_to_the_page)
    app.connect("build-finished", _serve_pdf)
    app.connect("doctree-resolved", _caption_as_alt_text)
    app.connect("builder-inited", _use_search_scorer)


# -- PDF (`make pdf`: the LaTeX builder, then latexmk with xelatex) ------------------------------------
# xelatex with xeCJK (Sphinx loads it for zh_CN under xelatex) typesets the Chinese in Noto CJK (Debian's
# fonts-noto-cjk). A page's tables reach LaTeX as MyST tables (schedlab.render.table.Table._repr_markdown_), its
# figures as their PNGs: an interactive figure's static twin (schedlab.figures.style.Interactive).
latex_engine = "xelatex"
latex_documents = [("index", "schedlab.tex", project, author, "manual")]
latex_elements = {
    "papersize": "a4paper",
    "pointsize": "10pt",
    "fontpkg": r"""
\setmainfont{FreeSerif}
\setsansfont{FreeSans}
\setmonofont{FreeMono}
\setCJKmainfont{Noto Serif CJK SC}
\setCJKsansfont{Noto Sans CJK SC}
\setCJKmonofont{Noto Sans Mono CJK SC}
""",
    # Sphinx loads babel in English for zh_CN (babel has no Chinese): its "Contents" and fncychap's "CHAPTER 1"
    # would head the Chinese book. Without babel the names are set here; chapters head "第 1 章" (titlesec,
    # which Sphinx loads) and the running header reads "第 1 章 ..." (Sphinx's \@chappos, meant for Japanese).
    "babel": "",
    "fncychap": "",
    "preamble": r"""
\setlength{\emergencystretch}{3em}
\renewcommand{\contentsname}{目录}
\renewcommand{\chaptername}{第}
\renewcommand{\bibname}{参考文献}
\renewcommand{\indexname}{索引}
\renewcommand{\appendixname}{附录}
\makeatletter\def\@chappos{章}\makeatother
\titleformat{\chapter}[display]{\normalfont\sffamily\huge}{\LARGE 第\,\thechapter\,章}{1ex}{}
\titlespacing*{\chapter}{0pt}{0pt}{2em}
\setlength{\headheight}{14pt}% fancyhdr: the running head in Chinese type is 12.2 pt tall
% Tables (conf.py's _fit_tables_to_the_page makes each a longtable of wrapping columns) in a smaller type
\usepackage{etoolbox}
\AtBeginEnvironment{longtable}{\footnotesize}
\AtBeginEnvironment{tabulary}{\footnotesize}
""",
    "figure_align": "H",
    "printindex": "",  # no index: the glossary is the lecture's list of terms
}
latex_use_xindy = False  # xindy (Sphinx's default under xelatex) is one more Debian package, for an index not printed
latex_show_urls = "no"
