"""`make html` after an edit under schedlab/ writes every page again, not only those whose sources changed.

A package edit changes conf.py's hash of the package sources: the doctest step of `make html` re-reads
(re-executes) every page into the environment the html step shares, and the html step must then write
every page, not only those whose Markdown is newer than their output. Runs the real
Makefile on a copy of the repository whose book is two small pages (this clone's .venv, never
reinstalled; no wheel, which the pages do not need: conf.py then leaves its download link out), edits one
hardware number, and builds again.
"""

import shutil
import subprocess
import tomllib

import pytest

from tests.site_build import ROOT, write_book

pytestmark = [pytest.mark.build, pytest.mark.slow]

VENV = ROOT / ".venv"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
WHEEL = f"dist/schedlab-{VERSION}-py3-none-any.whl"  # the Makefile's; -o: make html does not build it
PAGE = (
    "# {title}\n\n```{{code-cell}} ipython3\nimport schedlab\nprint({title!r}, 'n_sm =', schedlab.H100_TC.n_sm)\n```\n"
)
N_SM = "    n_sm=132,\n"


def make_html(repo):
    proc = subprocess.run(
        ["make", "html", f"VENV={VENV}", "-o", str(VENV / ".installed"), "-o", WHEEL],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]


def test_a_package_edit_rewrites_every_page(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(
        ROOT,
        repo,
        ignore=shutil.ignore_patterns(
            ".venv", "_build", "dist", ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis", "book"
        ),
    )
    book = write_book(repo, {"index": PAGE.format(title="一"), "second": PAGE.format(title="二")})
    for name in ("references.bib", "_static", "_ext"):  # what conf.py reads besides the pages
        copy = shutil.copytree if (ROOT / "book" / name).is_dir() else shutil.copy
        copy(ROOT / "book" / name, book / name)
    (book / "_search").mkdir()
    shutil.copy(ROOT / "book" / "_search" / "search.js", book / "_search" / "search.js")
    (book / "_search" / "words.txt").write_text("", encoding="utf-8")
    make_html(repo)
    for page in ("index", "second"):
        assert "n_sm = 132" in (repo / "_build" / "html" / f"{page}.html").read_text(encoding="utf-8")

    hardware = repo / "schedlab" / "core" / "hardware.py"
    assert N_SM in hardware.read_text(encoding="utf-8"), "the H100's n_sm line changed: update N_SM"
    hardware.write_text(hardware.read_text(encoding="utf-8").replace(N_SM, "    n_sm=114,\n", 1), encoding="utf-8")
    make_html(repo)
    for page in ("index", "second"):
        html = (repo / "_build" / "html" / f"{page}.html").read_text(encoding="utf-8")
        assert "n_sm = 114" in html and "n_sm = 132" not in html, f"{page}.html kept the old model's output"
