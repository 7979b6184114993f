"""The lecture's pages, read from book/, and the site built once per test run (as `make html` builds it).

Under pytest-xdist each worker has its own session, so a session fixture runs once per worker: the first
worker to take a file lock builds, the others wait on it and reuse that build. Under `make test` the site
is already built (`make test` runs `make html` first), so that build finds nothing to do.
"""

import fcntl
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
HTML = ROOT / "_build" / "html"
#: The Makefile's sphinx-build options: -T shows a failing cell's traceback, -W makes every warning an error.
SPHINX_OPTIONS = ["-T", "-W", "--keep-going", "-j", "auto"]
SPHINX_HTML = [
    sys.executable,
    "-m",
    "sphinx",
    "-c",
    ".",
    "-d",
    "_build/doctrees",
    *SPHINX_OPTIONS,
    "-b",
    "html",
    "book",
    "_build/html",
]


def _is_notebook(page: Path) -> bool:
    """Whether MyST-NB executes the page: its front matter names a kernel."""
    front = re.match(r"---\n(.*?)\n---\n", page.read_text(encoding="utf-8"), re.S)
    return bool(front and re.search(r"^kernelspec:", front[1], re.M))


#: Every page of the site, without suffix: each book/*.md (a new page is found, not listed).
PAGES = tuple(sorted(page.stem for page in BOOK.glob("*.md")))
#: The pages MyST-NB executes (the others, the glossary and the references, have no code).
NOTEBOOK_PAGES = tuple(page for page in PAGES if _is_notebook(BOOK / f"{page}.md"))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """Build (or bring up to date) the site with every warning an error, once per run; return the HTML folder."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above the workers' own
    result = shared / "site-build.log"
    with open(shared / "site-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not result.exists():
            proc = subprocess.run(SPHINX_HTML, cwd=ROOT, capture_output=True, text=True)
            result.write_text(f"{proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}", encoding="utf-8")
    returncode, log = result.read_text(encoding="utf-8").split("\n", 1)
    assert returncode == "0", f"sphinx-build -W failed:\n{log}"
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
    index, *others = pages
    toctree = "\n```{toctree}\n:hidden:\n" + "\n".join(others) + "\n```\n" if others else ""
    for name, body in pages.items():
        text = NOTEBOOK_HEADER + body + (toctree if name == index else "")
        (src / f"{name}.md").write_text(text, encoding="utf-8")
    return src


def sphinx_command(src: Path, out: Path, doctrees: Path, builder: str = "html") -> list[str]:
    """sphinx-build of `src` into `out` with the project's conf.py and the Makefile's options, doctrees of its own."""
    return [
        sys.executable,
        "-m",
        "sphinx",
        "-c",
        str(ROOT),
        "-d",
        str(doctrees),
        *SPHINX_OPTIONS,
        "-b",
        builder,
        str(src),
        str(out),
    ]
