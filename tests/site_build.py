"""Build the lecture site once per test session (incremental and cached, as `make html` does)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
EXECUTED = ROOT / "_build" / "jupyter_execute"
SPHINX_HTML = [sys.executable, "-m", "sphinx", "-c", ".", "-d", "_build/doctrees", "-W", "--keep-going", "-b", "html",
               "book", "_build/html"]
#: Every page of the site, without suffix; a new page must be added here (and gets all site checks).
PAGES = ("index", "space", "landscape", "shapes", "sensitivity", "searching", "buckets", "model")


@pytest.fixture(scope="session")
def built_site() -> Path:
    """Build (or bring up to date) the site with every warning an error; return the HTML folder."""
    proc = subprocess.run(SPHINX_HTML, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"sphinx-build -W failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return HTML
