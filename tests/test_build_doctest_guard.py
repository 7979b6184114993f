"""`make html` fails when a page's doctest guard fails: a changed hardware number cannot leave stale prose.

Runs the real Makefile on a copy of the working tree (this clone's .venv, never reinstalled) whose H100
clock is 10 % slower, so that the numbers the pages' prose states no longer hold. The copy keeps only the
pages whose guards the clock breaks cheaply (the perturbation tests in test_book_guards.py cover every
page), and its sphinx-build neither executes the notebooks nor turns warnings into errors (the pages'
glue values and links to the pages left out would be warnings): the build can only fail on a doctest.
"""

import re
import shutil
import subprocess

import pytest

from tests.site_build import ROOT

pytestmark = [pytest.mark.build, pytest.mark.slow]

VENV = ROOT / ".venv"
CLOCK = "    clock_hz=989.4e12 / (132 * 4096),\n"
KEPT_PAGES = {"index", "model", "landscape"}  # their guards fail on a slower clock, in seconds
FENCE = re.compile(r"```\{doctest\}\n((?::[^\n]*\n)*)")  # a doctest fence and its option lines
SPHINX = f"{VENV}/bin/sphinx-build -c . -d _build/doctrees -T --keep-going -j auto -D nb_execution_mode=off"


def hide_guards(page_text):
    """Give every doctest fence the ``:hide:`` option (readers do not see the guards; they must still run)."""
    return FENCE.sub(lambda m: m[0] if ":hide:" in m[1] else "```{doctest}\n:hide:\n" + m[1], page_text)


def test_a_changed_hardware_number_fails_make_html(tmp_path):
    repo = tmp_path / "repo"
    # The working tree without build output, wheel or environment; copytree keeps file times, which make compares.
    shutil.copytree(
        ROOT,
        repo,
        ignore=shutil.ignore_patterns(
            ".venv", "_build", "dist", ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis"
        ),
    )
    hardware = repo / "schedlab" / "core" / "hardware.py"
    assert CLOCK in hardware.read_text(encoding="utf-8"), "the H100 clock line changed: update CLOCK"
    hardware.write_text(
        hardware.read_text(encoding="utf-8").replace(CLOCK, "    clock_hz=0.9 * 989.4e12 / (132 * 4096),\n"),
        encoding="utf-8",
    )
    for page in (repo / "book").glob("*.md"):
        if page.stem in KEPT_PAGES:
            page.write_text(hide_guards(page.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            page.unlink()
    (repo / "book" / "_search" / "words.txt").write_text("", encoding="utf-8")  # its terms are on the pages left out
    make_html = ["make", "html", f"VENV={VENV}", "-o", str(VENV / ".installed"), f"SPHINX={SPHINX}"]

    for attempt in ("first", "again"):  # a failed guard is not forgotten by the next build
        proc = subprocess.run(make_html, cwd=repo, capture_output=True, text=True, timeout=600)
        log = proc.stdout + proc.stderr
        assert proc.returncode != 0, f"{attempt}: make html passed with a 10 % slower clock\n{log[-3000:]}"
        failed_pages = set(re.findall(r'^File "(\w+)\.md", line \d+, in default\nFailed example:', log, re.M))
        assert failed_pages, f"{attempt}: make html failed, but not on a doctest guard\n{log[-3000:]}"
        assert not (repo / "_build" / "html" / "index.html").exists(), "the stale site was written"
