"""A rebuild writes exactly what a clean build writes: the same files with the same bytes.

Nothing in the output folder is excluded from the comparison. The doctrees and the execution cache
live outside it (``-d``; ``nb_execution_cache_path``).
"""

import json
import subprocess
import sys

import pytest

from tests.site_build import NOTEBOOK_PAGES, ROOT, SPHINX_OPTIONS, sphinx_command, write_book

FIGURE_PAGE = """# 图

质能关系 $E = mc^2$ 让页面带上 MathJax。

```{{code-cell}} ipython3
import io

import matplotlib.pyplot as plt
from IPython.display import Image

fig, ax = plt.subplots(figsize=(2, 2))
ax.plot([0, 1], [0, {slope}])
png = io.BytesIO()
fig.savefig(png, format="png")
plt.close(fig)
Image(png.getvalue())
```
"""


def files(folder):
    """Every file under `folder`, by relative path, with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def assert_same_output(rebuilt, clean):
    got, want = files(rebuilt), files(clean)
    assert sorted(got.keys() - want.keys()) == [], "only in the rebuild (stale?)"
    assert sorted(want.keys() - got.keys()) == [], "only in the clean build"
    assert sorted(name for name in want if got[name] != want[name]) == [], "files whose bytes differ"


def run(cmd):
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_a_rebuild_after_a_figure_changed_equals_a_clean_build(tmp_path):
    """Build, change one page's figure, rebuild in place; then build from nothing elsewhere (fresh output,
    doctrees, execution folder) with the same cache. The old PNG must be gone, every asset link the same,
    and the notebook downloads the same whether a page was executed or taken from the cache."""
    pages = {"index": "# 首页\n\n```{code-cell} ipython3\nprint(6 * 7)\n```\n", "figure": FIGURE_PAGE.format(slope=1)}
    cache = tmp_path / "cache"
    first = tmp_path / "first"
    src = write_book(first, pages)
    build_first = sphinx_command(src, first / "html", first / "doctrees", cache)
    run(build_first)
    (old_png,) = (first / "html" / "_images").glob("*.png")

    write_book(first, {**pages, "figure": FIGURE_PAGE.format(slope=2)})
    run(build_first)
    assert not old_png.exists()

    clean = tmp_path / "clean"
    run(sphinx_command(write_book(clean, {**pages, "figure": FIGURE_PAGE.format(slope=2)}),
                       clean / "html", clean / "doctrees", cache))
    assert_same_output(first / "html", clean / "html")



def test_a_rebuild_after_a_word_left_a_page_equals_a_clean_build(tmp_path):
    """A word an edit removed from the only page that used it leaves the search index, as in a clean build
    (Sphinx kept it with an empty page list)."""
    pages = {"index": "# 首页\n\n孤零零的词 zanzibar 只在这里。\n", "second": "# 第二页\n\n别的话。\n"}
    cache = tmp_path / "cache"
    first = tmp_path / "first"
    build_first = sphinx_command(write_book(first, pages), first / "html", first / "doctrees", cache)
    run(build_first)
    assert "zanzibar" in (first / "html" / "searchindex.js").read_text(encoding="utf-8")
    edited = {**pages, "index": "# 首页\n\n这里不再有那个词。\n"}
    write_book(first, edited)
    run(build_first)
    clean = tmp_path / "clean"
    run(sphinx_command(write_book(clean, edited), clean / "html", clean / "doctrees", cache))
    assert "zanzibar" not in (first / "html" / "searchindex.js").read_text(encoding="utf-8")
    assert_same_output(first / "html", clean / "html")

def test_the_sites_rebuild_equals_a_clean_build(built_site, tmp_path):
    """The site as `make html` left it (incremental builds over time) against one built from nothing but the
    execution cache, as after `make clean`."""
    clean = tmp_path / "html"
    run([sys.executable, "-m", "sphinx", "-c", ".", "-d", str(tmp_path / "doctrees"), *SPHINX_OPTIONS,
         "-b", "html", "book", str(clean)])
    assert_same_output(built_site, clean)


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_the_notebook_download_is_the_executed_notebook(built_site, page):
    """The .ipynb the theme offers has every code cell's outputs, also when the build took the page from the
    execution cache (myst-nb then writes the bare cells)."""
    notebook = json.loads((built_site / "_sources" / f"{page}.ipynb").read_text(encoding="utf-8"))
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert code and all(isinstance(cell["execution_count"], int) for cell in code)
    assert any(cell["outputs"] for cell in code)
