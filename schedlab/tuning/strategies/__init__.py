"""The strategy registry: one module per strategy, imported on first use of :data:`CORES` or :data:`STRATEGIES`.

Each module named in :data:`MODULES` holds one strategy, as Kernel Tuner's
``kernel_tuner/strategies/`` does:

- ``NAME``, the strategy's name in the registry (and in every table and recorded result);
- its public function, named like the module: ``(shape, budget, seed, noise=..., hw=...) ->
  SearchTrace``, a documented wrapper of :func:`~schedlab.tuning.harness.run_strategy`;
- ``core``, which runs many seeds at once (the contract:
  :func:`~schedlab.tuning.harness.run_seeds`);
- its tuning constants as module data, listed with the public function in its ``__all__``
  (what :mod:`schedlab.tuning` re-exports).

Adding a strategy is adding a module with those three names and naming it in :data:`MODULES`,
whose order is the order the comparison reports strategies in. :data:`CORES` (name -> core) and
:data:`STRATEGIES` (name -> public function) are both read off the same modules, so they cannot
disagree. Both are read-only mappings; a module adding a strategy of its own passes
``{**CORES, name: core}`` to :func:`~schedlab.tuning.harness.run_strategy` and
:func:`schedlab.tuning.compare.compare` (``cores=``).

This module imports no strategy module (and nothing of the harness, which imports it) until a
registry is first read.

Examples
--------
>>> tuple(CORES) == tuple(STRATEGIES) == ("exhaustive", "random", "descent", "annealing", "evolutionary", "model")
True
>>> STRATEGIES["random"].__name__, CORES["random"].__module__
('random_search', 'schedlab.tuning.strategies.random_search')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache
from importlib import import_module
from types import MappingProxyType, ModuleType

__all__ = ["MODULES", "CORES", "STRATEGIES", "modules"]

#: The strategy modules of this package, in the order the comparison reports their strategies
#: (the tables and the recorded results depend on this order).
MODULES = ("exhaustive", "random_search", "coordinate_descent", "simulated_annealing", "evolutionary", "model_guided")


@cache
def modules() -> Mapping[str, ModuleType]:
    """Strategy name -> its module, in :data:`MODULES` order; the first call imports them all."""
    loaded = {}
    for stem in MODULES:
        module = import_module(f"{__name__}.{stem}")
        if module.NAME in loaded:
            raise RuntimeError(f"strategy name {module.NAME!r} is claimed by two modules")
        loaded[module.NAME] = module
    return MappingProxyType(loaded)


class _Registry(Mapping):
    """A read-only view, strategy name -> ``entry(module)``, over :func:`modules`."""

    def __init__(self, entry: Callable[[ModuleType], object]):
        self._entry = entry

    def __getitem__(self, name: str):
        return self._entry(modules()[name])

    def __iter__(self) -> Iterator[str]:
        return iter(modules())

    def __len__(self) -> int:
        return len(modules())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self)!r})"


#: Strategy name -> core (the contract: :func:`~schedlab.tuning.harness.run_seeds`), in the
#: order the comparison reports them. Read-only; extend a copy: ``{**CORES, name: core}``.
CORES: Mapping = _Registry(lambda module: module.core)

#: Strategy name -> public function, the same names in the same order as :data:`CORES`.
STRATEGIES: Mapping = _Registry(lambda module: getattr(module, module.__name__.rpartition(".")[2]))
