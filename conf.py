"""Sphinx configuration of the lecture site: `sphinx-build -c . book _build/html` (see the Makefile)."""

import fcntl
import hashlib
import importlib.metadata
import os
import shutil
import sys
from pathlib import Path

from sphinx.util import logging

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
# The notebook kernels run with book/ as their working directory: let them import schedlab.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
os.environ.setdefault("MPLBACKEND", "Agg")
logger = logging.getLogger(__name__)

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
    "sphinxcontrib.bibtex",  # {cite} roles and the references page, from book/references.bib
]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "matplotlibrc"]
numfig = True
math_numfig = True
math_eqref_format = "({number})"
numfig_format = {"figure": "图 %s", "table": "表 %s", "code-block": "代码 %s", "section": "%s 节"}

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
bibtex_bibfiles = ["book/references.bib"]  # relative to the folder of conf.py
bibtex_default_style = "alpha"  # labels such as [Lit61]: a citation never looks like a numbered footnote

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
CACHE_ROOT = ROOT / "_build" / ".jupyter_cache"
nb_execution_cache_path = str(CACHE_ROOT / SCHEDLAB_HASH)
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
    """Put the page's executed notebook next to its source so the theme offers an .ipynb download.

    myst-nb's ``jupyter_execute/<page>.ipynb`` has the outputs only when it executed the page: on a cache
    hit it holds the bare cells. Merge the cached outputs in (jupyter-cache's own merge) and number the
    cell ids (the Markdown reader draws random ones on every read), so every build offers the same file.
    """
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if executed.exists():
        import nbformat
        from jupyter_cache import get_cache

        notebook = nbformat.read(executed, as_version=4)
        try:
            _, notebook = get_cache(app.config.nb_execution_cache_path).merge_match_into_notebook(notebook)
        except KeyError:  # not in the cache: executed without caching (outputs kept) or never run
            pass
        for number, cell in enumerate(notebook.cells):
            cell.id = f"cell-{number}"
        target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(nbformat.writes(notebook), encoding="utf-8")
        context["ipynb_source"] = f"{pagename}.ipynb"


def _caption_as_alt_text(app, doctree, docname):
    """Give each figure's image its caption as alt text (myst-nb's default is the file's hash name)."""
    from docutils import nodes

    for figure in doctree.findall(nodes.figure):
        caption = next(figure.findall(nodes.caption), None)
        if caption is not None:
            for image in figure.findall(nodes.image):
                image["alt"] = " ".join(caption.astext().split())


# -- Build machinery ----------------------------------------------------------------------
#: Every Sphinx build with this conf.py (`make html`, `make doctest`, the tests' builds) holds this lock
#: from its setup to its exit: two builds at once in one clone race on the execution cache's database,
#: the shared doctrees and the output folders.
BUILD_LOCK = ROOT / "_build" / "build.lock"
_held_lock = []  # the open lock file: closing it (at process exit) releases the lock


def _hold_build_lock():
    """Wait until no other build of this clone runs, then hold the lock until this process exits."""
    BUILD_LOCK.parent.mkdir(parents=True, exist_ok=True)
    lock_file = BUILD_LOCK.open("a")  # not inherited by kernels (PEP 446); forked -j readers share it
    try:
        fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        logger.info("waiting for another build of this clone to finish (lock: %s)", BUILD_LOCK)
        fcntl.flock(lock_file, fcntl.LOCK_EX)
    _held_lock.append(lock_file)


def _prepare_execution_cache(app):
    """Create the cache database, then drop the caches of older package sources (under the lock).

    Creating it here, once, keeps the parallel (-j) readers from racing to create its tables. Only
    folders in the project's own `CACHE_ROOT` are pruned, never siblings of a ``-D`` cache path.
    """
    from jupyter_cache import get_cache

    cache_path = Path(app.config.nb_execution_cache_path)
    get_cache(str(cache_path)).list_cache_records()
    if cache_path.parent == CACHE_ROOT:
        for stale in CACHE_ROOT.iterdir():
            if stale.is_dir() and stale != cache_path:
                shutil.rmtree(stale)  # keyed on sources that no longer exist: can never be hit again


def _checked_on(dist, series, workaround):
    """Whether `dist` is installed in the version `series` (a prefix, e.g. ``"9."``) that `workaround`
    was checked on (pyproject.toml pins it); otherwise warn, an error under -W, and skip it."""
    installed = importlib.metadata.version(dist)
    if installed.startswith(series):
        return True
    logger.warning("%s %s is installed but the workaround for %s was checked on %s*: check whether it is "
                   "still needed, then update its version guard in conf.py and the pin in pyproject.toml",
                   dist, installed, workaround, series)
    return False


def guard_execution_cache_truncation():
    """Make jupyter-cache safe for parallel readers: truncation a no-op while the cache holds no more
    records than its limit, and caching one notebook at a time.

    After caching a page, each parallel (-j) reader truncates the cache: it lists the records to keep,
    then, in a second query, every record not in that list. A record another reader inserts between
    the two queries (before writing its notebook file) is taken for an old one and removed, and the
    build fails with "Notebook file does not exist for cache record PK". Our cache holds one record
    per page and version of its code, far below the limit (1000), so a count decides it in one query.
    """
    from jupyter_cache.cache.db import NbCacheRecord, session_context
    from jupyter_cache.cache.main import JupyterCacheBase

    if getattr(JupyterCacheBase.cache_notebook_bundle, "guarded", False):
        return  # already guarded in this process: a second lock on the same file would wait for ever
    truncate_caches = JupyterCacheBase.truncate_caches

    def truncate_caches_over_the_limit(cache):
        with session_context(cache.db) as session:
            records = session.query(NbCacheRecord).count()
        if records > cache.get_cache_limit():
            truncate_caches(cache)

    JupyterCacheBase.truncate_caches = truncate_caches_over_the_limit
    cache_notebook_bundle = JupyterCacheBase.cache_notebook_bundle

    def cache_notebook_bundle_in_turn(cache, *args, **kwargs):
        """Two readers caching notebooks with the same code (pages without code cells, say) at once both
        found its folder missing and the second's mkdir failed (FileExistsError): they take turns."""
        with open(Path(cache.path) / "caching.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            return cache_notebook_bundle(cache, *args, **kwargs)

    cache_notebook_bundle_in_turn.guarded = True
    JupyterCacheBase.cache_notebook_bundle = cache_notebook_bundle_in_turn


def _chinese_search_with_its_stemmer():
    """Sphinx 9's zh search ships english-stemmer.js but names ``ChineseStemmer`` in language_data.js,
    a ReferenceError on every page; name the stemmer it actually ships."""
    from sphinx.search.zh import SearchChinese

    class SearchChineseEnglishStemmer(SearchChinese):
        language_name = "English"  # only used to name the JS stemmer (and in a log line)

    return SearchChineseEnglishStemmer


def _copy_late_assets_before_writing(app):
    """Copy the CSS/JS that myst-nb, sphinx-exercise and sphinx-mathjax-offline copy into ``_static`` only
    when the build finishes, before the pages are written.

    Sphinx appends ``?v=<checksum>`` to an asset's link only when the file is in the output folder as
    the page is written: without this a clean build links them bare and a rebuild with ``?v=``.
    Their own build-finished handlers do the copying (they run again at the end; identical files are
    left alone).
    """
    if app.builder.format != "html":
        return
    from myst_nb.sphinx_ext import add_global_html_resources
    from sphinx_exercise import copy_asset_files

    mathjax_offline = app.extensions["sphinx-mathjax-offline"].module
    (Path(app.outdir) / "_static").mkdir(exist_ok=True)  # myst-nb's copy needs it; Sphinx makes it later
    for copy_assets in (add_global_html_resources, copy_asset_files, mathjax_offline.copy_mathjax_files):
        copy_assets(app, None)


def _drop_stale_images(app, exception):
    """Delete the files in ``_images`` that no page shows any more (Sphinx copies images, never deletes).

    A re-executed page whose figure changed gets a new content-named PNG; the old one stayed, so a
    rebuild's output differed from a clean build's. `app.env.images` maps each image of the current
    pages to ``(docnames, name in _images)``.
    """
    if exception is not None or app.builder.format != "html":
        return
    shown = {name for _docnames, name in app.env.images.values()}
    for path in (Path(app.outdir) / app.builder.imagedir).glob("*"):
        if path.name not in shown:
            path.unlink()
    # Sphinx keeps the previous build's .buildinfo as .buildinfo.bak when the configuration changed
    # (e.g. an extension added): a leftover a clean build does not have.
    (Path(app.outdir) / ".buildinfo.bak").unlink(missing_ok=True)


def _prune_search_words_of_no_page():
    """Make Sphinx's search index forget words that no page uses any more.

    Before a rebuild writes pages again, ``IndexBuilder.prune`` takes those pages out of every word's
    page set but keeps the word: a word that an edit removed stayed in ``searchindex.js`` with an empty
    page list, so a rebuild's index differed from a clean build's. Words of the re-written pages are
    added back as they are fed.
    """
    from sphinx.search import IndexBuilder

    prune = IndexBuilder.prune

    def prune_and_drop_empty_words(indexer, docnames):
        prune(indexer, docnames)
        for mapping in (indexer._mapping, indexer._title_mapping):
            for word in [word for word, pages in mapping.items() if not pages]:
                del mapping[word]

    IndexBuilder.prune = prune_and_drop_empty_words


def _reread_pages_with_index_entries(app, env, added, changed, removed):
    """Re-read every page with index entries (the glossary's terms, any ``{index}``) on every build:
    Sphinx's search index keeps the index entries only of the pages it writes, so a rebuild that
    skipped an unchanged page dropped its entries from ``searchindex.js`` and differed from a clean
    build."""
    entries = env.domains.index_domain.entries
    return sorted(page for page, page_entries in entries.items() if page_entries and page in env.found_docs)


def setup(app):
    _hold_build_lock()  # before Sphinx loads the pickled environment that other builds write
    # The html build's record of its inputs (.buildinfo) holds the package sources' hash: `make html`
    # reads the pages in its doctest step, into the environment both builds share, so after an edit
    # under schedlab/ the html step found nothing to re-read, and pages whose sources had not changed
    # kept their old output. A changed hash makes the html builder write every page again.
    app.add_config_value("schedlab_sources_hash", SCHEDLAB_HASH, "html")
    app.connect("builder-inited", _prepare_execution_cache)
    # Workarounds that reach into other packages, each applied only on the versions it was checked on.
    if _checked_on("sphinx", "9.", "the zh search's stemmer name, the stale-image pruning (env.images) and the "
                   "index entries kept by rebuilds (env.domains.index_domain), the search words of no page (IndexBuilder.prune)"):
        app.add_search_language(_chinese_search_with_its_stemmer())
        app.connect("build-finished", _drop_stale_images)
        app.connect("env-get-outdated", _reread_pages_with_index_entries)
        _prune_search_words_of_no_page()
    if _checked_on("jupyter-cache", "1.", "its truncation racing with parallel readers"):
        guard_execution_cache_truncation()
    if _checked_on("sphinx-mathjax-offline", "0.0.", "its parallel-safety flags and its late asset copy"):
        # It only copies files when the build finishes; it is safe in parallel but does not say so,
        # and -W would turn Sphinx's "assuming it isn't" into an error.
        mathjax = app.extensions["sphinx-mathjax-offline"]
        mathjax.parallel_read_safe = mathjax.parallel_write_safe = True
        if all([_checked_on(dist, series, "its late asset copy")
                for dist, series in [("myst-nb", "1."), ("sphinx-exercise", "1.")]]):
            app.connect("builder-inited", _copy_late_assets_before_writing)
    # before sphinx_book_theme's header buttons (priority 501)
    app.connect("html-page-context", _offer_notebook_download, priority=500)
    app.connect("doctree-resolved", _caption_as_alt_text)
