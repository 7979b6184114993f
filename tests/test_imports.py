"""How names are imported: the top-level table names each name's defining module, and the console's
``--help`` imports no numerical library.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import subprocess
import sys

import pytest

import schedlab


def _defined_at_top_level(module) -> set[str]:
    """Names a module's source binds by ``def``, ``class`` or assignment (not by an import)."""
    names = set()
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@pytest.mark.parametrize("name", sorted(schedlab.HOMES))
def test_every_top_level_name_is_defined_in_the_module_the_table_names(name):
    module = importlib.import_module(schedlab.HOMES[name])
    assert name in _defined_at_top_level(module), f"{name} is not defined in {module.__name__}"
    assert getattr(schedlab, name) is getattr(module, name)


def test_all_is_the_table():
    assert schedlab.__all__ == list(schedlab.HOMES)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        schedlab.no_such_name  # noqa: B018


@pytest.mark.parametrize("package", ["schedlab.render", "schedlab.figures"])
def test_render_and_figures_re_export_nothing(package):
    """A table or figure is imported from its chapter's module: the packages hold no names of their own."""
    face = importlib.import_module(package)
    assert not hasattr(face, "__getattr__")
    assert {n for n in vars(face) if not n.startswith("__")} <= {m.split(".")[-1] for m in sys.modules}


@pytest.mark.parametrize("argv", [["--help"], ["top", "--help"], ["--gpu", "a100-sxm4", "prune", "-h"]])
def test_help_imports_no_numerical_library_it_does_not_need(argv):
    """``python -m schedlab --help`` imports no subcommand module (numpy, scipy, the render tables); a
    subcommand's ``--help`` imports that subcommand's module alone."""
    code = (
        "import json, sys\n"
        "from schedlab.cli.main import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "mods = ['numpy', 'scipy', 'matplotlib', 'schedlab.render.table', 'schedlab.cli.tools', 'schedlab.cli.prune']\n"
        "print(json.dumps({m: m in sys.modules for m in mods}), file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded = json.loads(out.stderr.strip().splitlines()[-1])
    if argv == ["--help"]:
        assert not any(loaded.values()), loaded
    else:
        assert loaded["schedlab.cli.tools"] == (argv[0] == "top")
        assert loaded["schedlab.cli.prune"] == ("prune" in argv)
