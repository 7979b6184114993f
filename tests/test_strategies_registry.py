"""Every strategy of the registry (schedlab.tuning.strategies), checked in one loop.

A strategy is one module: its public function and its core, registered once. Whatever the
module, the same things must hold -- with the whole budget it finds the optimum, it never
charges more than its budget (replayed through a Measurer), the seed alone fixes its trace,
and its public function is its core run for one seed. A strategy added as a module is
checked here without a test of its own.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from schedlab.core.hardware import H100_TC
from schedlab.core.landscape import landscape
from schedlab.tuning.harness import run_seeds, trials_to_within
from schedlab.tuning.measurer import Measurer, noise_factors, search_context
from schedlab.tuning.strategies import CORES, MODULES, STRATEGIES, modules

SQUARE = (4096, 4096, 4096)
DECODE = (16, 4096, 4096)
N_LAUNCHABLE = 3744
#: The registry's order: the comparison's tables and the recorded results depend on it.
ORDER = ("exhaustive", "random", "descent", "annealing", "evolutionary", "model")


def test_the_registry_holds_the_six_in_order_and_is_read_only():
    assert tuple(CORES) == tuple(STRATEGIES) == ORDER == tuple(modules())
    assert len(CORES) == len(STRATEGIES) == len(MODULES)
    for name, module in modules().items():
        assert CORES[name] is module.core
        assert STRATEGIES[name] is getattr(module, module.__name__.rpartition(".")[2])  # named like its module
    assert "grid" not in CORES and CORES.get("grid") is None
    for registry in (CORES, STRATEGIES):
        with pytest.raises(TypeError):
            registry["grid"] = CORES["random"]
        with pytest.raises(KeyError):
            registry["grid"]


def test_importing_the_harness_loads_no_strategy_module_until_the_registry_is_read():
    code = (
        "import sys, schedlab.tuning.harness, schedlab.tuning.strategies as s\n"
        "loaded = lambda: sorted(m for m in sys.modules if m.startswith('schedlab.tuning.strategies.'))\n"
        "print(len(loaded())); s.CORES['random']; print(len(loaded()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["0", str(len(MODULES))]


@pytest.mark.parametrize("name", ORDER)
def test_every_strategy_keeps_the_registry_contract(name):
    strategy, core = STRATEGIES[name], CORES[name]

    # with the whole budget and no noise it measures every launchable config, so it finds the optimum
    land = landscape(SQUARE)
    full = strategy(SQUARE, N_LAUNCHABLE, 0, noise=0)
    assert full.strategy == name and len(full) == N_LAUNCHABLE and set(full.configs) == set(land.configs)
    assert full.best_so_far_s[-1] == land.best_time_s == full.optimum_s
    first_optimal = min(k for k, c in enumerate(full.configs) if land.time_of(c) == land.best_time_s)
    assert trials_to_within(full, 1.0) == 1 + first_optimal

    # it respects its budget: replayed through a Measurer with the same seed, noise and budget
    for budget in (1, 17, 150):
        trace = strategy(DECODE, budget, 11, noise=0.05)
        m = Measurer(DECODE, budget=budget, seed=11, noise=0.05)
        np.testing.assert_array_equal(trace.measured_s, [m.measure_config(c) for c in trace.configs])
        assert m.count == len(trace) <= budget  # a config beyond the budget: BudgetExhausted above

    # the seed alone fixes the trace: the same seed, the same trace; another seed, another
    a, b, c = (strategy(SQUARE, 120, s, noise=0.03) for s in (5, 5, 6))
    assert a == b and a != c
    if name == "exhaustive":  # its order is fixed; only the noise differs
        assert a.configs == c.configs and not np.array_equal(a.measured_s, c.measured_s)
    else:
        assert a.configs != c.configs

    # the public function is the core run for one seed, and a seed's run ignores the seeds beside it
    seeds, budget = (6, 0, 5), 120
    context = search_context(SQUARE, H100_TC)
    factors = np.stack([noise_factors(s, 0.03, context.n_configs) for s in seeds])
    order, believed, infos = run_seeds(core, context, seeds, budget, factors)
    for row, seed in enumerate(seeds):
        trace = strategy(SQUARE, budget, seed, noise=0.03)
        k = len(trace)
        np.testing.assert_array_equal(order[row, :k], trace.indices)
        assert (order[row, k:] == -1).all()
        np.testing.assert_array_equal(context.times[believed[row, :k]], trace.best_so_far_s)
        assert infos is None or set(infos[row]) <= set(trace.info)
