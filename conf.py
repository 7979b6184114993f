"""Sphinx configuration of the lecture site: `sphinx-build -c . book _build/html` (see the Makefile)."""

import hashlib
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
# The notebook kernels run with book/ as their working directory: let them import schedlab.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
os.environ.setdefault("MPLBACKEND", "Agg")

# -- Project ----------------------------------------------------------------------------
project = "GPU 矩阵乘法的调度空间"
author = "CS349E"
copyright = "2026, CS349E"
language = "zh_CN"  # Chinese search splits words with jieba (a dependency)

extensions = [
    "myst_nb",
    "sphinx.ext.doctest",
    "sphinx_copybutton",
    "sphinx_exercise",  # exercises with solutions in dropdowns, code cells allowed inside
    "sphinx_togglebutton",  # collapses those dropdowns: without it every solution shows open
    "sphinx-mathjax-offline",  # MathJax served from _static: no CDN at view time
]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "matplotlibrc"]
numfig = True
math_numfig = True
math_eqref_format = "({number})"
numfig_format = {"figure": "图 %s", "table": "表 %s", "code-block": "代码 %s", "section": "%s 节"}

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]

# -- Execution --------------------------------------------------------------------------
# jupyter-cache keys a page on its code cells only; key the cache folder on the package
# sources and the figure style too, so an edit to schedlab/ re-executes every page.
_inputs = sorted((ROOT / "schedlab").rglob("*.py")) + [ROOT / "book" / "matplotlibrc"]
_digest = hashlib.sha256()
for path in _inputs:
    if path.exists():
        _digest.update(path.relative_to(ROOT).as_posix().encode())
        _digest.update(path.read_bytes())
SCHEDLAB_HASH = _digest.hexdigest()[:16]

nb_execution_mode = "cache"
nb_execution_cache_path = str(ROOT / "_build" / ".jupyter_cache" / SCHEDLAB_HASH)
# Caches of older package sources can never be hit again: drop them.
for _stale in (ROOT / "_build" / ".jupyter_cache").glob("*"):
    if _stale.name != SCHEDLAB_HASH and _stale.is_dir():
        shutil.rmtree(_stale, ignore_errors=True)
# Create the cache database here, once: with -j, parallel readers would race to create its tables.
from jupyter_cache import get_cache  # noqa: E402

get_cache(nb_execution_cache_path).list_cache_records()
nb_execution_timeout = 300
nb_execution_raise_on_error = True  # a failing cell fails the build ...
nb_execution_show_tb = True  # ... with its traceback in the log
nb_output_stderr = "warn"  # stderr in a cell (e.g. a missing glyph) becomes a warning, and -W an error
nb_render_markdown_format = "myst"
nb_ipywidgets_js = {}  # no widget JavaScript from a CDN
nb_merge_streams = True
nb_code_prompt_show = "显示代码"  # label of collapsed (hide-input) cells, in the pages' language
nb_code_prompt_hide = "隐藏代码"

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
html_static_path = ["book/_static"]
html_favicon = "book/_static/favicon.svg"
html_css_files = ["custom.css"]  # table padding for the pages' HTML tables
html_last_updated_fmt = None
html_show_sourcelink = True
html_copy_source = True


# -- Search -------------------------------------------------------------------------------
# Sphinx's Chinese search cuts the pages into words with jieba. The lecture's own terms that
# jieba's dictionary cuts apart (屋顶线 -> 屋顶 / 线) are in book/_search/words.txt, a jieba user
# dictionary, so that a reader who types one finds it; book/_search/search.js ranks the page
# that uses a term most first and keeps code and TeX out of the result snippets.
SEARCH_DIR = ROOT / "book" / "_search"
html_search_options = {"dict": str(SEARCH_DIR / "words.txt")}


def _write_search_scorer(out: Path) -> Path:
    """Write search.js after LECTURE_TERM_COUNTS (term -> {page: uses in its source}); return ``out``."""
    import json

    terms = SEARCH_DIR.joinpath("words.txt").read_text(encoding="utf-8").split()
    sources = {page.stem: page.read_text(encoding="utf-8") for page in sorted((ROOT / "book").glob("*.md"))}
    counts = {t: {page: text.count(t) for page, text in sources.items() if t in text} for t in terms}
    missing = [t for t, pages in counts.items() if not pages]
    if missing:
        raise ValueError(f"book/_search/words.txt: {missing} appear on no page; remove them")
    code = f"const LECTURE_TERM_COUNTS = {json.dumps(counts, ensure_ascii=False)};\n\n"
    code += SEARCH_DIR.joinpath("search.js").read_text(encoding="utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f"{out.name}.{os.getpid()}")  # concurrent builds each replace it whole
    partial.write_text(code, encoding="utf-8")
    os.replace(partial, out)
    return out


html_search_scorer = str(_write_search_scorer(ROOT / "_build" / "search_scorer.js"))

copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True


def _offer_notebook_download(app, pagename, templatename, context, doctree):
    """Write the executed notebook, outputs included, next to the page's source: the theme offers it.

    myst-nb writes ``jupyter_execute/<page>.ipynb`` without outputs when it took them from the
    execution cache (it saves the notebook it read, not the one merged with the cache), so a
    ``make clean && make html`` left every download empty: merge the cached outputs back in here.
    """
    import nbformat

    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.exists():
        return
    notebook = nbformat.read(executed, as_version=4)
    try:
        _, notebook = get_cache(app.config.nb_execution_cache_path).merge_match_into_notebook(notebook)
    except KeyError:  # not in the cache: not executed with caching, so executed (outputs kept) or never run
        pass
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def _caption_as_alt_text(app, doctree, docname):
    """Give each figure's image its caption as alt text (myst-nb's default is the file's hash name)."""
    from docutils import nodes

    for figure in doctree.findall(nodes.figure):
        caption = next(figure.findall(nodes.caption), None)
        if caption is not None:
            for image in figure.findall(nodes.image):
                image["alt"] = " ".join(caption.astext().split())


def _chinese_search_with_its_stemmer():
    """Sphinx 9's zh search ships english-stemmer.js but names ``ChineseStemmer`` in language_data.js,
    a ReferenceError on every page; name the stemmer it actually ships."""
    from sphinx.search.zh import SearchChinese

    class SearchChineseEnglishStemmer(SearchChinese):
        language_name = "English"  # only used to name the JS stemmer (and in a log line)

    return SearchChineseEnglishStemmer


def setup(app):
    app.add_search_language(_chinese_search_with_its_stemmer())
    # sphinx-mathjax-offline only copies files when the build finishes; it is safe in parallel
    # but does not say so, and -W would turn Sphinx's "assuming it isn't" into an error.
    mathjax = app.extensions["sphinx-mathjax-offline"]
    mathjax.parallel_read_safe = mathjax.parallel_write_safe = True
    # before sphinx_book_theme's header buttons (priority 501)
    app.connect("html-page-context", _offer_notebook_download, priority=500)
    app.connect("doctree-resolved", _caption_as_alt_text)
