"""Package faces that find their topic modules themselves and import each on first use.

:mod:`schedlab.render` and :mod:`schedlab.figures` re-export every public name of their
modules, so ``render.top_table(...)`` and ``figures.launch_map()`` work; a chapter added as a
new module there is re-exported without touching any list. :func:`lazy_face` gives such a
package its ``__getattr__`` and ``__dir__`` (PEP 562): the modules are found with
:func:`pkgutil.iter_modules`, their ``__all__`` is read from the source without importing
them, and a module is imported only when one of its names is first asked for, so importing
the face (the console does) costs no chapter's studies.

Examples
--------
>>> from schedlab import render
>>> render.cover_table.__module__, "cover_table" in dir(render)
('schedlab.render.buckets', True)
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterable

__all__ = ["declared_all", "lazy_face"]


def declared_all(path: str) -> tuple[str, ...]:
    """The names a module's source lists in its top-level ``__all__``, read without importing it.

    Raises
    ------
    ImportError
        If the module has no ``__all__`` written as a literal list or tuple of strings.

    Examples
    --------
    >>> import schedlab.render.labels as labels
    >>> declared_all(labels.__file__) == tuple(labels.__all__)
    True
    """
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            try:
                names = ast.literal_eval(node.value)
            except ValueError:
                break
            if isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names):
                return tuple(names)
            break
    raise ImportError(f"{path} must list its public names in a literal __all__ (a list of strings)")


def lazy_face(package: str, path: Iterable[str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` re-exporting its modules' ``__all__``, each loaded on first use.

    Every module of ``path`` whose name does not start with ``_`` is a topic module. The
    face's ``__all__`` is the union of theirs; a name listed by two modules is an error.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    path : iterable of str
        The package's ``__path__``.

    Examples
    --------
    >>> import schedlab.figures
    >>> getattr_, dir_ = lazy_face("schedlab.figures", schedlab.figures.__path__)
    >>> getattr_("launch_map").__module__, "guide_sweep" in dir_()
    ('schedlab.figures.space', True)
    """
    path = tuple(path)
    owners: dict[str, str] = {}

    def exports() -> dict[str, str]:
        if not owners:
            for info in pkgutil.iter_modules(path):
                if info.name.startswith("_"):
                    continue
                for name in declared_all(info.module_finder.find_spec(info.name).origin):
                    if name in owners:
                        raise ImportError(f"{package}: {name!r} is listed by both .{owners[name]} and .{info.name}")
                    owners[name] = info.name
        return owners

    def getattr_(name: str):
        if name == "__all__":
            return sorted(exports())
        module = exports().get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)  # asked once, then an ordinary attribute
        return value

    def dir_() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports()))

    return getattr_, dir_
