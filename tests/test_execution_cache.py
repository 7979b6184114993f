"""conf.py's guard on jupyter-cache's truncation: a page another parallel reader is caching survives.

Replays the interleaving that failed a CI build ("Notebook file does not exist for cache record PK"):
reader A truncates after caching its page; between A's query of the records to keep and its query of
all the others, reader B inserts its record and has not yet written its notebook file.
"""

import nbformat
import pytest
from jupyter_cache import get_cache
from jupyter_cache.cache.db import NbCacheRecord
from jupyter_cache.cache.main import CacheBundleIn, JupyterCacheBase
from sqlalchemy.orm import Query

import conf


def executed_page(text):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"print({text!r})")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def insert_after_the_keep_query(monkeypatch, cache):
    """After the first query that has a LIMIT (the records to keep), insert reader B's record."""
    all_rows = Query.all

    def all_then_insert(query):
        rows = all_rows(query)
        if query._limit_clause is not None and not inserted:
            inserted.append(NbCacheRecord.create_record(uri="b.ipynb", hashkey="b" * 32, db=cache.db).pk)
        return rows

    inserted = []
    monkeypatch.setattr(Query, "all", all_then_insert)
    return inserted


@pytest.fixture
def cache(tmp_path, monkeypatch):
    for method in ("truncate_caches", "cache_notebook_bundle"):  # the guard replaces them; restored after
        monkeypatch.setattr(JupyterCacheBase, method, getattr(JupyterCacheBase, method))
    cache = get_cache(str(tmp_path / "cache"))
    cache.cache_notebook_bundle(CacheBundleIn(executed_page("a"), "a.ipynb"), check_validity=False)
    return cache


def test_unguarded_truncation_removes_a_record_being_written(cache, monkeypatch):
    """The failure itself, so the replay is known to reproduce it."""
    insert_after_the_keep_query(monkeypatch, cache)
    with pytest.raises(KeyError, match="Notebook file does not exist"):
        cache.truncate_caches()


def test_guarded_truncation_leaves_a_record_being_written(cache, monkeypatch):
    conf.guard_execution_cache_truncation()
    inserted = insert_after_the_keep_query(monkeypatch, cache)
    cache.truncate_caches()
    assert not inserted, "the guard queried the records to keep although the cache is under its limit"
    assert len(cache.list_cache_records()) == 1


def test_guarded_truncation_still_drops_the_oldest_over_the_limit(cache):
    conf.guard_execution_cache_truncation()
    cache.change_cache_limit(1)
    cache.cache_notebook_bundle(CacheBundleIn(executed_page("b"), "b.ipynb"), check_validity=False)
    assert [record.uri for record in cache.list_cache_records()] == ["b.ipynb"]
