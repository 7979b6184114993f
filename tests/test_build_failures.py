"""The site build fails loudly: a failing cell, or a figure glyph the fonts lack, is an error, not a warning."""

import shutil
import subprocess
import sys

import pytest

from tests.site_build import ROOT

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# 坏页

"""


def build_one_page(tmp_path, body):
    """Build a one-page book with the project's conf.py and a cache of its own; return the process."""
    src = tmp_path / "book"
    src.mkdir()
    shutil.copy(ROOT / "book" / "matplotlibrc", src / "matplotlibrc")  # as for the real pages
    (src / "index.md").write_text(HEADER + body, encoding="utf-8")
    cmd = [sys.executable, "-m", "sphinx", "-c", str(ROOT), "-W", "--keep-going",
           "-D", f"nb_execution_cache_path={tmp_path / 'cache'}", "-b", "html", str(src), str(tmp_path / "html")]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("control", [False, True], ids=["failing", "control"])
def test_a_failing_cell_fails_the_build_with_its_traceback(tmp_path, control):
    code = "x = 1 / 1" if control else "from schedlab import GemmConfig\nGemmConfig(48, 128, 32, 8, 4, 1)"
    proc = build_one_page(tmp_path, f"```{{code-cell}} ipython3\n{code}\n```\n")
    log = proc.stdout + proc.stderr
    if control:
        assert proc.returncode == 0, log[-3000:]
    else:
        assert proc.returncode != 0
        assert "Traceback" in log and "bm must be one of" in log, log[-3000:]


@pytest.mark.parametrize("label", ["共享内存", "\U0001F600"], ids=["cjk", "emoji-missing"])
def test_a_missing_glyph_in_a_figure_fails_the_build(tmp_path, label):
    code = ("import matplotlib.pyplot as plt\n"
            f"fig, ax = plt.subplots()\nax.set_title({label!r})\nfig.savefig('/dev/null', format='png')\nplt.close(fig)")
    proc = build_one_page(tmp_path, f"```{{code-cell}} ipython3\n{code}\n```\n")
    log = proc.stdout + proc.stderr
    if label == "共享内存":  # the book's CJK font has these glyphs: the build passes
        assert proc.returncode == 0, log[-3000:]
    else:
        assert proc.returncode != 0
        assert "stderr was found in the cell outputs" in log, log[-3000:]
