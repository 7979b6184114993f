"""Workarounds for two open Sphinx bugs, each applied only on the Sphinx versions it was checked on.

Both use Sphinx's public extension API (``app.add_search_language``, the ``env-get-outdated`` event).
Remove a workaround once the Sphinx version that fixes its issue is the one pyproject.toml allows.
"""

import sphinx
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: The Sphinx releases (major, minor) each workaround was checked on (every 9.0.x has both bugs).
CHECKED_ON = (9, 0)


def chinese_search_stemmer():
    """Sphinx 9's zh search ships english-stemmer.js but its language_data.js says
    ``window.Stemmer = ChineseStemmer``: a ReferenceError on every page and a search page that never answers.
    https://github.com/sphinx-doc/sphinx/issues/14229 (fixed by sphinx-doc/sphinx#14416, not yet released).
    Name the stemmer it actually ships; jieba still cuts the words (the class is SearchChinese)."""
    from sphinx.search.zh import SearchChinese

    class SearchChineseEnglishStemmer(SearchChinese):
        language_name = "English"  # only names the JS stemmer (and a log line)

    return SearchChineseEnglishStemmer


def reread_pages_with_index_entries(app, env, added, changed, removed):
    """Re-read the pages with index entries (the glossary's terms) on every build: the search index keeps
    the index entries only of the pages a build writes, so an incremental build drops those of the
    unchanged pages. https://github.com/sphinx-doc/sphinx/issues/12599"""
    entries = env.domains.index_domain.entries
    return sorted(page for page, page_entries in entries.items() if page_entries and page in env.found_docs)


def setup(app: Sphinx):
    if sphinx.version_info[:2] == CHECKED_ON:
        app.add_search_language(chinese_search_stemmer())
        app.connect("env-get-outdated", reread_pages_with_index_entries)
    else:
        logger.info(
            "book/_ext/sphinx_upstream_fixes.py: not applied on Sphinx %s (checked on %d.%d); check "
            "sphinx-doc/sphinx#14229 and #12599 and delete the workarounds fixed there",
            sphinx.__display_version__,
            *CHECKED_ON,
        )
    return {"parallel_read_safe": True, "parallel_write_safe": True}
