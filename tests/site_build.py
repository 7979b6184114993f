"""Build the lecture site once per test session (incremental and cached, as `make html` does).

Every build with the project's conf.py waits for the clone's build lock (``conf.BUILD_LOCK``), so this
one never races a `make html` running at the same time.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
EXECUTED = ROOT / "_build" / "jupyter_execute"
#: The Makefile's sphinx-build options: -T shows a failing cell's traceback, -W makes every warning an error.
SPHINX_OPTIONS = ["-T", "-W", "--keep-going", "-j", "auto"]
SPHINX_HTML = [sys.executable, "-m", "sphinx", "-c", ".", "-d", "_build/doctrees", *SPHINX_OPTIONS, "-b", "html",
               "book", "_build/html"]
#: The lecture's pages without suffix, each a notebook the build executes; a new one must be added here.
NOTEBOOK_PAGES = ("index", "space", "landscape", "shapes", "gpus", "sensitivity", "searching", "guides", "buckets",
                  "model")
#: Every page of the site (each gets the checks that apply to all pages): the notebooks, the glossary and
#: the references page (plain Markdown: no code, tables or figures).
PAGES = NOTEBOOK_PAGES + ("glossary", "references")


@pytest.fixture(scope="session")
def built_site() -> Path:
    """Build (or bring up to date) the site with every warning an error; return the HTML folder."""
    proc = subprocess.run(SPHINX_HTML, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"sphinx-build -W failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return HTML


#: The front matter that makes a Markdown page a notebook MyST-NB executes.
NOTEBOOK_HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

"""


def write_book(folder: Path, pages: dict[str, str]) -> Path:
    """Write a throwaway book into `folder`/book: each page is `NOTEBOOK_HEADER` + its Markdown body.

    The first page is the index; it lists the others in a hidden toctree (else -W fails the build).
    """
    src = folder / "book"
    src.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "book" / "matplotlibrc", src / "matplotlibrc")  # the kernels' figure style, as for the book
    index, *others = pages
    toctree = "\n```{toctree}\n:hidden:\n" + "\n".join(others) + "\n```\n" if others else ""
    for name, body in pages.items():
        text = NOTEBOOK_HEADER + body + (toctree if name == index else "")
        (src / f"{name}.md").write_text(text, encoding="utf-8")
    return src


def sphinx_command(src: Path, out: Path, doctrees: Path, cache: Path, builder: str = "html") -> list[str]:
    """sphinx-build of `src` into `out` with the project's conf.py and the Makefile's options, but doctrees
    and execution cache of its own (the build lock is still the clone's)."""
    return [sys.executable, "-m", "sphinx", "-c", str(ROOT), "-d", str(doctrees), *SPHINX_OPTIONS,
            "-D", f"nb_execution_cache_path={cache}", "-b", builder, str(src), str(out)]
