"""What a student downloads runs and reads as the page: each page's zip (its notebook and the site's wheel), run in
one fresh virtual environment that holds only what ``schedlab[notebook]`` asks for.

Nothing is fetched. The environment is made with ``python -m venv`` (pip from ensurepip); the distributions that
the wheel's ``notebook`` extra requires, followed requirement by requirement from the wheel's own metadata, are
linked in from the environment running the tests; then pip installs the wheel with ``--no-index``, so it fails
if a requirement is missing. That proves the extra is enough to run every page (Sphinx, myst-nb and the test
tools are absent) and that the wheel installs offline with it; it does not prove that PyPI serves those versions.
The environment is made once per run, shared by the xdist workers through a file lock (as ``built_site``).
"""

import fcntl
import html
import json
import os
import re
import subprocess
import sys
import time
import zipfile
from importlib.metadata import distribution
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.site_build import NOTEBOOK_PAGES, ROOT

sys.path.insert(0, str(ROOT / "book" / "_ext"))
from notebook_download import EXTRA  # noqa: E402
from page_notebook import MYST_LEFT  # noqa: E402

pytestmark = pytest.mark.site
#: Text a cell prints when a figure's Chinese would draw as boxes (matplotlib's, then schedlab's warning).
MISSING_GLYPH = re.compile(r"Glyph \d+ .*missing from|MissingCJKFontWarning|no CJK font found")


def _wheel(site: Path) -> Path:
    wheels = sorted((site / "_static").glob("schedlab-*.whl"))
    assert len(wheels) == 1, f"the site serves {len(wheels)} wheels: {wheels}"
    return wheels[0]


def _requirement_closure(requires: list[str], extras: set[str]) -> dict:
    """Every distribution (of the running environment) that ``requires`` needs under ``extras``, recursively."""
    found, seen, todo = {}, set(), [(line, frozenset(extras)) for line in requires]
    while todo:
        line, active = todo.pop()
        req = Requirement(line)
        if req.marker and not any(req.marker.evaluate({"extra": extra}) for extra in active or {""}):
            continue
        key = (canonicalize_name(req.name), frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        dist = distribution(req.name)  # PackageNotFoundError: the test environment lacks a run-time requirement
        found[key[0]] = dist
        todo += [(sub, frozenset(req.extras)) for sub in dist.requires or []]
    return found


def _link_distributions(dists: dict, site_packages: Path) -> None:
    """Link each distribution's top-level files and folders (its RECORD) into ``site_packages``."""
    for name, dist in sorted(dists.items()):
        assert dist.files is not None, f"{name} has no RECORD: cannot tell its files"
        tops = {f.parts[0] for f in dist.files if f.parts[0] not in ("..", "__pycache__")}
        for top in sorted(tops):
            source, target = Path(dist.locate_file(top)), site_packages / top
            if target.is_symlink() and target.resolve() == source.resolve():
                continue
            assert not target.exists(), f"{name}: {top} is already there (from another distribution)"
            target.symlink_to(source)


def _make_venv(folder: Path, wheel: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True)
    python = folder / "bin" / "python"
    site_packages = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    metadata = zipfile.ZipFile(wheel).read(f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info/METADATA")
    requires = re.findall(r"^Requires-Dist: (.+)$", metadata.decode(), re.M)
    _link_distributions(_requirement_closure(requires, {EXTRA}), site_packages)
    offline = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONPATH": ""}
    proc = subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "--quiet", f"{wheel}[{EXTRA}]"],
        capture_output=True,
        text=True,
        env=offline,
    )
    assert proc.returncode == 0, f"pip install {wheel.name}[{EXTRA}] offline failed:\n{proc.stdout}\n{proc.stderr}"
    check = subprocess.run([python, "-c", "import sphinx"], capture_output=True, env=offline)
    assert check.returncode != 0, "Sphinx is importable in the notebook environment: it is not a fresh one"
    return python


@pytest.fixture(scope="session")
def notebook_python(built_site, tmp_path_factory) -> Path:
    """The Python of a fresh venv holding the site's wheel and its notebook extra, made once per run."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    folder, done = shared / "notebook-venv", shared / "notebook-venv.done"
    with open(shared / "notebook-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            start = time.perf_counter()
            _make_venv(folder, _wheel(built_site))
            done.write_text(f"{time.perf_counter() - start:.1f}", encoding="utf-8")
    return folder / "bin" / "python"


def _kernel_manager(python: Path, folder: Path):
    """A kernel manager whose kernel is ``python``'s ipykernel, offline, with no PYTHONPATH from the test run."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    spec = folder / "kernels" / "schedlab-notebook"
    spec.mkdir(parents=True, exist_ok=True)
    kernel = {
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "schedlab (notebook extra)",
        "language": "python",
        "env": {"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONPATH": ""},
    }
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    specs = KernelSpecManager(kernel_dirs=[str(spec.parent)])
    return KernelManager(kernel_name="schedlab-notebook", kernel_spec_manager=specs)


def _markdown(notebook) -> str:
    return "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def _has_png(cell) -> bool:
    return any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_page_zip_holds_the_notebook_and_the_wheel(built_site, page):
    names = zipfile.ZipFile(built_site / "_sources" / f"{page}.zip").namelist()
    assert sorted(names) == sorted([f"{page}.ipynb", _wheel(built_site).name]), f"{page}.zip holds {names}"
    assert f"_sources/{page}.zip" in (built_site / f"{page}.html").read_text(encoding="utf-8"), f"{page}: no .zip"


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_downloaded_notebook_reads_as_the_page(built_site, page):
    """No MyST syntax left in the Markdown, and every number the page shows (its glued values) is in it."""
    notebook = nbformat.read(built_site / "_sources" / f"{page}.ipynb", as_version=4)
    text = _markdown(notebook)
    left = {kind: pattern.findall(text)[:3] for kind, pattern in MYST_LEFT.items() if pattern.search(text)}
    assert not left, f"{page}: MyST syntax left in the notebook's Markdown: {left}"
    shown = re.findall(r'<span class="pasted-text">([^<]*)</span>', (built_site / f"{page}.html").read_text("utf-8"))
    missing = [html.unescape(value) for value in shown if html.unescape(value) not in text]
    assert not missing, f"{page}: the page shows {missing[:5]} but the notebook's text does not"


@pytest.mark.slow
@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_downloaded_notebook_runs_with_the_notebook_extra_alone(built_site, notebook_python, tmp_path, page):
    """The zip unpacked, every cell run (the install cell first, offline) in the fresh venv: no error, every figure
    drawn again, and no missing-glyph warning."""
    from nbclient import NotebookClient

    zipfile.ZipFile(built_site / "_sources" / f"{page}.zip").extractall(tmp_path)
    downloaded = nbformat.read(tmp_path / f"{page}.ipynb", as_version=4)
    ran = nbformat.from_dict(downloaded)
    for cell in ran.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    client = NotebookClient(
        ran, km=_kernel_manager(notebook_python, tmp_path), timeout=600, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # CellExecutionError (with the cell and its traceback) on the first failing cell
    for before, after in zip(downloaded.cells, ran.cells):
        if before.cell_type == "code" and _has_png(before):
            assert _has_png(after), f"{page}: a figure was not drawn in the notebook: {after.source[:120]!r}"
        for out in after.get("outputs", []):
            text = "".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
            assert not MISSING_GLYPH.search(text), f"{page}: {text[:300]}"
