"""The site build fails loudly: a failing cell, or a figure glyph the fonts lack, is an error, not a warning."""

import re
import subprocess

import pytest

from tests.site_build import ROOT, SPHINX_OPTIONS, sphinx_command, write_book

pytestmark = pytest.mark.build


def build_one_page(tmp_path, body):
    """Build a one-page book as `make html` builds (conf.py, options); return the process."""
    src = write_book(tmp_path, {"index": f"# 坏页\n\n{body}"})
    cmd = sphinx_command(src, tmp_path / "html", tmp_path / "doctrees")
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_tests_build_with_the_makefiles_sphinx_options():
    """The builds here stand for `make html`: its sphinx-build commands carry exactly these options."""
    dry_run = subprocess.run(
        ["make", "-n", "-B", "-o", ".venv/.installed", "html"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    commands = [line.split() for line in dry_run.splitlines() if "sphinx-build" in line]
    assert [cmd[cmd.index("-b") + 1] for cmd in commands] == ["doctest", "html"], dry_run
    for cmd in commands:
        options = cmd[cmd.index("-d") + 2 : cmd.index("-b")]
        assert options == SPHINX_OPTIONS, dry_run


@pytest.mark.parametrize("control", [False, True], ids=["failing", "control"])
def test_a_failing_cell_fails_the_build_with_its_traceback(tmp_path, control):
    code = "x = 1 / 1" if control else "from schedlab import GemmConfig\nGemmConfig(48, 128, 32, 8, 4, 1)"
    proc = build_one_page(tmp_path, f"```{{code-cell}} ipython3\n{code}\n```\n")
    log = proc.stdout + proc.stderr
    if control:
        assert proc.returncode == 0, log[-3000:]
    else:
        assert proc.returncode != 0
        # The cell's own traceback (IPython's, coloured) with the failing line, not only "ExecutionError: <page>"
        plain = re.sub(r"\x1b\[[0-9;]*m", "", log)
        assert "ExecutionError" in plain, log[-3000:]
        assert "----> 2 GemmConfig(48, 128, 32, 8, 4, 1)" in plain, log[-3000:]
        assert re.search(r"ValueError: bm must be one of .*, got 48", plain), log[-3000:]


@pytest.mark.parametrize("label", ["共享内存", "\U0001f600"], ids=["cjk", "emoji-missing"])
def test_a_missing_glyph_in_a_figure_fails_the_build(tmp_path, label):
    code = (  # matplotlib itself, in the lecture's style (its CJK font), as the package draws
        "import matplotlib.pyplot as plt\nfrom schedlab.figures.style import apply_style\napply_style()\n"
        f"fig, ax = plt.subplots()\nax.set_title({label!r})\nfig.savefig('/dev/null', format='png')\nplt.close(fig)"
    )
    proc = build_one_page(tmp_path, f"```{{code-cell}} ipython3\n{code}\n```\n")
    log = proc.stdout + proc.stderr
    if label == "共享内存":  # the book's CJK font has these glyphs: the build passes
        assert proc.returncode == 0, log[-3000:]
    else:
        assert proc.returncode != 0
        assert "stderr was found in the cell outputs" in log, log[-3000:]
