"""Each page's download: a notebook that reads as the page and installs the site's wheel, and one zip of both.

sphinx-book-theme offers an ``.ipynb`` in a page's download menu when ``ipynb_source`` is in its context (it sets
it itself only for launch buttons). Here that notebook is MyST-NB's executed one (``jupyter_execute/PAGE.ipynb``)
rewritten by :func:`page_notebook.page_notebook` with the build's glue records and resolved references, after an
install cell; ``PAGE.zip`` beside it in ``_sources/`` holds the notebook and the wheel, so one download runs.
A build without the wheel (``HAS_WHEEL`` false in conf.py: a test's throwaway book) offers the notebook alone,
with no install cell.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import nbformat
from page_notebook import Refs, page_notebook

#: The pip extra the install cell asks for: what the package needs to run a page (pyproject.toml), no Sphinx.
EXTRA = "notebook"


def install_cell(wheel_name: str):
    """The first cell: install the wheel beside the notebook with the light extra, or say what to do without it."""
    source = f"""# 运行本页之前先安装 schedlab（只装运行需要的包，不装 Sphinx）。
# 本页下载菜单里的 .zip 里有这个笔记本和 {wheel_name}：解压到同一个文件夹，在那里打开笔记本。
from importlib.util import find_spec
from pathlib import Path

if Path("{wheel_name}").is_file():
    %pip install --quiet "./{wheel_name}[{EXTRA}]"
elif find_spec("schedlab") is None:
    raise FileNotFoundError(
        "笔记本旁边没有 {wheel_name}：请从本页下载菜单下载 .zip（笔记本和 wheel 都在里面）并解压，"
        "或从本站每页页脚下载 wheel 放到笔记本旁边，再运行这一格。"
    )"""
    cell = nbformat.v4.new_code_cell(source)
    cell.id = "install-schedlab"
    cell.metadata["tags"] = ["install"]
    return cell


def build_refs(app) -> Refs:
    """What every label, document, equation, numbered figure or exercise and citation of the build shows as."""
    env = app.env
    std = env.domaindata["std"]
    titles = {label: str(title) for label, (_doc, _id, title) in std["labels"].items() if title}
    titles.update({doc: title.astext() for doc, title in env.titles.items()})
    formats = app.config.numfig_format
    numbers, equations = {}, {}
    anchors = {label: (doc, anchor) for label, (doc, anchor) in std["anonlabels"].items()}
    by_anchor = {(doc, anchor): label for label, (doc, anchor) in anchors.items()}
    for doc, kinds in env.toc_fignumbers.items():
        for kind, ids in kinds.items():
            for anchor, number in ids.items():
                shown = ".".join(map(str, number))
                if kind == "displaymath":
                    equations[anchor.removeprefix("equation-")] = app.config.math_eqref_format.format(number=shown)
                elif kind in formats:
                    numbers[by_anchor.get((doc, anchor), anchor)] = formats[kind] % shown
    citations = {}
    for citation in env.domaindata.get("cite", {}).get("citations", []):
        citations[citation.key] = citation.formatted_entry.label
    return Refs(titles=titles, numbers=numbers, equations=equations, citations=citations)


def _offer_download(app, pagename, templatename, context, doctree):
    """Write ``_sources/PAGE.ipynb`` (and ``PAGE.zip`` with the wheel) and put the notebook in the download menu."""
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.exists():
        return
    glue_file = executed.with_name(f"{pagename}.glue.json")
    glue = json.loads(glue_file.read_text(encoding="utf-8")) if glue_file.exists() else {}
    wheel = app.config.schedlab_wheel
    first = [install_cell(Path(wheel).name)] if wheel else []
    if not hasattr(app, "_schedlab_refs"):
        app._schedlab_refs = build_refs(app)  # the environment is final once pages are written
    notebook = page_notebook(nbformat.read(executed, as_version=4), glue, app._schedlab_refs, pagename, first)
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    context["ipynb_source"] = f"{pagename}.ipynb"
    if wheel:
        with zipfile.ZipFile(target.with_suffix(".zip"), "w") as bundle:  # the wheel is already compressed
            bundle.write(target, target.name, compress_type=zipfile.ZIP_DEFLATED)
            bundle.write(wheel, Path(wheel).name)


def _add_zip_button(app, pagename, templatename, context, doctree):
    """A ``.zip`` entry (the notebook and the wheel) in the theme's download menu, after the ``.ipynb`` one."""
    if not (app.config.schedlab_wheel and context.get("ipynb_source")):
        return
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"].insert(
                1,
                {
                    "type": "link",
                    "url": f"{context['pathto']('_sources', 1)}/{pagename}.zip",
                    "text": ".zip",
                    "tooltip": "笔记本和 schedlab 的 wheel：解压后运行",
                    "icon": "fas fa-file-archive",
                    "label": "download-zip-button",
                },
            )


def setup(app):
    # the wheel the notebooks install ("" for none); conf.py sets it when `make wheel` has built it
    app.add_config_value("schedlab_wheel", "", "html")
    app.connect("html-page-context", _offer_download, priority=500)  # before the theme's buttons (501)
    app.connect("html-page-context", _add_zip_button, priority=502)  # after them
    return {"parallel_read_safe": True, "parallel_write_safe": True}
