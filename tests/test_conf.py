"""conf.py is only configuration: importing it writes nothing, changes no environment variable, and needs no wheel.

Sphinx (and a test's throwaway book) imports it; what a build needs written (the search scorer) is written when
the build starts. Without `dist/`'s wheel the site leaves the wheel's download link and the notebooks' install
cell out.
"""

import os
import runpy
import shutil
import sys

from tests.site_build import ROOT


def files_under(folder):
    return {path.relative_to(folder): path.stat().st_mtime_ns for path in folder.rglob("*")}


def test_importing_conf_writes_nothing_and_needs_no_wheel(tmp_path, monkeypatch):
    # what conf.py reads at import: the package sources and the figure style (hashed), pyproject.toml, book/_search
    for name in ("conf.py", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "schedlab", tmp_path / "schedlab", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "book").mkdir()
    shutil.copytree(ROOT / "book" / "_search", tmp_path / "book" / "_search")
    monkeypatch.setattr(sys, "path", list(sys.path))  # conf.py puts its folders on it, as Sphinx needs
    before, environment = files_under(tmp_path), dict(os.environ)

    conf = runpy.run_path(str(tmp_path / "conf.py"))

    assert files_under(tmp_path) == before, "importing conf.py wrote files"
    assert dict(os.environ) == environment, "importing conf.py changed the environment"
    assert not conf["HAS_WHEEL"]
    assert not any(path.endswith(".whl") for path in conf["html_static_path"])
    footer = conf["html_theme_options"]["extra_footer"]
    assert "CC BY 4.0" in footer and ".whl" not in footer and "%pip" not in footer, footer
    assert conf["schedlab_wheel"] == "", "notebooks would install a wheel the site does not serve"
