"""Behaviour of the search strategies and the comparison analyses (schedlab.tuning).

The rules every tuner obeys -- it measures only launchable configs, never more than its
budget, never the same config twice -- are checked on every strategy, on the lecture's
shapes and on shapes hypothesis draws; what else every registered strategy must do -- find
the optimum with the whole budget, replay through a Measurer, depend on its seed alone,
agree with its core -- is tests/test_strategies_registry.py. Correctness is checked against
brute force over the landscape: the optimum found by exhaustive search, the local optima that coordinate
descent reports. No test asserts on wall-clock time.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.core.hardware import H100_TC
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.launch import static_valid
from schedlab.core.shapes import LECTURE_SHAPES, llm_shapes
from schedlab.studies.sensitivity import sensitivity
from schedlab.tuning.compare import compare, descent_local_optima
from schedlab.tuning.features import feature_names
from schedlab.tuning.harness import SearchTrace, run_strategy, trials_to_within
from schedlab.tuning.measurer import DEFAULT_SHAPES, BudgetExhausted, Measurer, search_context
from schedlab.tuning.strategies import CORES, STRATEGIES
from schedlab.tuning.strategies.coordinate_descent import coordinate_descent
from schedlab.tuning.strategies.exhaustive import exhaustive
from schedlab.tuning.strategies.model_guided import model_guided
from schedlab.tuning.strategies.random_search import random_search
from tests.strategies import examples, hardware, launchable_configs, shapes, unlaunchable_configs

SQUARE = (4096, 4096, 4096)
DECODE = (16, 4096, 4096)
N_LAUNCHABLE = 3744
FAST = examples(0.25)

strategy_names = st.sampled_from(tuple(STRATEGIES))


def run(name, shape=SQUARE, budget=120, seed=0, noise=0.03, hw=H100_TC):
    return STRATEGIES[name](shape, budget, seed, noise=noise, hw=hw)


def check_rules(trace: SearchTrace, budget: int, hw=H100_TC):
    """The tuner's rules, checked from scratch on one trace."""
    assert 1 <= len(trace) <= min(budget, N_LAUNCHABLE)
    assert all(static_valid(c, hw) for c in trace.configs), "measured a config that cannot launch"
    assert len(set(trace.configs)) == len(trace), "charged twice for one config"
    land = landscape(trace.shape, hw)
    true = np.array([land.time_of(c) for c in trace.configs])
    np.testing.assert_array_equal(trace.true_s, true)
    # best so far: the true time of the config with the lowest measured time up to each point
    believed = [trace.configs[int(np.argmin(trace.measured_s[: k + 1]))] for k in range(len(trace))]
    np.testing.assert_array_equal(trace.best_so_far_s, [land.time_of(c) for c in believed])
    assert trace.optimum_s == land.best_time_s
    assert (trace.best_so_far_s >= trace.optimum_s).all()


# --- the rules, for every strategy ------------------------------------------------------------


@pytest.mark.parametrize("name", tuple(STRATEGIES))
@pytest.mark.parametrize("shape", [s.mnk for s in LECTURE_SHAPES], ids=[s.key for s in LECTURE_SHAPES])
def test_rules_on_lecture_shapes(name, shape):
    check_rules(run(name, shape, budget=150, seed=7), 150)


@FAST
@given(
    name=strategy_names,
    shape=shapes(),
    budget=st.integers(1, 400),
    seed=st.integers(0, 2**32),
    noise=st.sampled_from((0.0, 0.03, 0.3)),
)
def test_rules_on_any_shape_and_budget(name, shape, budget, seed, noise):
    trace = run(name, shape, budget, seed, noise)
    check_rules(trace, budget)
    if name != "descent":  # only coordinate descent without restarts may stop early
        assert len(trace) == budget


@examples(0.06)
@given(name=strategy_names, hw=hardware(), seed=st.integers(0, 1000))
def test_rules_on_perturbed_hardware(name, hw, seed):
    check_rules(run(name, DECODE, 80, seed, hw=hw), 80, hw)


@pytest.mark.parametrize("name", tuple(STRATEGIES))
def test_no_noise_measures_the_model_exactly(name):
    trace = run(name, SQUARE, budget=100, seed=3, noise=0)
    np.testing.assert_array_equal(trace.measured_s, trace.true_s)
    # without noise the believed best only ever gets better
    assert (np.diff(trace.best_so_far_s) <= 0).all()


@pytest.mark.parametrize("name", tuple(STRATEGIES))
def test_noise_is_multiplicative_and_seeded(name):
    trace = run(name, SQUARE, budget=100, seed=3, noise=0.03)
    log_noise = np.log(trace.measured_s / trace.true_s)
    assert np.abs(log_noise).max() < 6 * 0.03 and np.abs(log_noise).max() > 0


# --- correctness against brute force -------------------------------------------------------------


@pytest.mark.parametrize("shape", [s.mnk for s in LECTURE_SHAPES], ids=[s.key for s in LECTURE_SHAPES])
def test_exhaustive_with_everything_finds_the_optimum_exactly(shape):
    land = landscape(shape)
    trace = exhaustive(shape, budget=N_LAUNCHABLE, seed=0, noise=0)
    assert len(trace) == N_LAUNCHABLE
    assert trace.configs == land.configs  # SPACE order
    assert trace.best == land.best
    assert trace.best_so_far_s[-1] == land.best_time_s
    assert trials_to_within(trace, 1.0) == land.configs.index(land.best) + 1


def test_exhaustive_budget_above_the_space_is_capped():
    assert len(exhaustive(DECODE, budget=10_000, seed=0)) == N_LAUNCHABLE


def _hand_trace(best_so_far, optimum=1.0):
    k = len(best_so_far)
    cfgs = landscape(SQUARE).configs[:k]
    arr = np.asarray(best_so_far, dtype=float)
    return SearchTrace(
        strategy="hand",
        shape=SQUARE,
        seed=0,
        budget=k,
        noise=0.0,
        configs=cfgs,
        indices=np.arange(k),
        measured_s=arr,
        true_s=arr,
        best_so_far_s=arr,
        optimum_s=optimum,
    )


def test_trials_to_within_on_a_hand_built_trace():
    trace = _hand_trace([3.0, 2.0, 1.06, 1.05, 1.0])
    assert trials_to_within(trace) == 4  # 1.05 is within 5 %: the bound is inclusive
    assert trials_to_within(trace, 1.10) == 3
    assert trials_to_within(trace, 1.0) == 5
    assert trials_to_within(trace, 3.0) == 1
    assert trials_to_within(_hand_trace([3.0, 2.0])) is None
    with pytest.raises(ValueError, match="factor"):
        trials_to_within(trace, 0.9)


def _is_local_optimum(shape, cfg: GemmConfig) -> bool:
    """Brute force: no single-knob change (to any value) makes cfg faster."""
    s = sensitivity(shape, base=cfg)
    return all(r >= 1.0 for values in s.ratios.values() for _, r in values)


@pytest.mark.parametrize("shape", [SQUARE, (512, 14336, 4096), (2048, 2048, 512), DECODE, (64, 6144, 4096)])
@pytest.mark.parametrize("seed", range(6))
def test_descent_stops_in_a_true_local_optimum(shape, seed):
    trace = coordinate_descent(shape, budget=N_LAUNCHABLE, seed=seed, noise=0, restarts=False)
    (descent,) = trace.info["descents"]
    assert descent.local and trace.info["local_optimum"] == descent.end
    assert descent.start == trace.configs[0]
    assert _is_local_optimum(shape, descent.end)
    assert descent.ratio == landscape(shape).time_of(descent.end) / landscape(shape).best_time_s
    assert trace.best == descent.end or landscape(shape).time_of(trace.best) == landscape(shape).time_of(descent.end)


def test_descent_with_restarts_reports_every_descent():
    trace = coordinate_descent(SQUARE, budget=300, seed=1, noise=0)
    descents = trace.info["descents"]
    assert len(descents) > 1 and len(trace) == 300
    assert all(d.local for d in descents[:-1])
    for d in descents:
        if d.local:
            assert _is_local_optimum(SQUARE, d.end)


def test_descent_out_of_budget_is_not_called_local():
    trace = coordinate_descent(SQUARE, budget=5, seed=0, noise=0, restarts=False)
    (descent,) = trace.info["descents"]
    assert not descent.local and trace.info["local_optimum"] is None and len(trace) == 5


@pytest.mark.parametrize("shape", [SQUARE, DECODE])
def test_descent_local_optima_are_real_and_counted(shape):
    lo = descent_local_optima(shape, seeds=range(40))
    assert lo.runs == 40 and sum(k for _, _, k in lo.where) == lo.bad
    assert 0 <= lo.rate <= 1
    best = landscape(shape).best_time_s
    for cfg, ratio, _ in lo.where:
        assert ratio > 1.05 and ratio == landscape(shape).time_of(cfg) / best
        assert _is_local_optimum(shape, cfg)
    # the same run, seed by seed
    stuck = [
        coordinate_descent(shape, N_LAUNCHABLE, s, noise=0, restarts=False).info["descents"][0].ratio > 1.05
        for s in range(40)
    ]
    assert sum(stuck) == lo.bad


def test_model_guided_beats_random_search_on_the_square():
    """The learned model pays for itself: fewer measurements to get within 5 % on 4096^3."""
    seeds = range(30)
    never = math.inf
    guided = [trials_to_within(model_guided(SQUARE, 300, s)) or never for s in seeds]
    rand = [trials_to_within(random_search(SQUARE, 300, s)) or never for s in seeds]
    assert np.median(guided) < np.median(rand)


# --- the comparison ----------------------------------------------------------------------------


def test_compare_equals_the_strategies_run_seed_by_seed():
    shapes_ = [SQUARE, (1, 6144, 4096)]
    seeds = [0, 4, 9]
    calls = []
    c = compare(
        shapes_,
        tuple(STRATEGIES),
        seeds=seeds,
        budget=80,
        noise=0.03,
        progress=lambda done, total, label: calls.append((done, total)),
    )
    assert calls == [(k, 12) for k in range(1, 13)]
    assert c.trials.shape == (2, 6, 3) and c.curve_median.shape == (2, 6, 80)
    for i, shape in enumerate(shapes_):
        for j, name in enumerate(STRATEGIES):
            traces = [STRATEGIES[name](shape, 80, s, noise=0.03) for s in seeds]
            expected = [trials_to_within(t) or math.inf for t in traces]
            np.testing.assert_array_equal(c.trials[i, j], expected)
            ratios = np.array([np.pad(t.ratio, (0, 80 - len(t)), mode="edge") for t in traces])
            np.testing.assert_allclose(c.curve_median[i, j], np.median(ratios, axis=0))


def backwards_core(context, seeds, budget, factors, **_):
    """A strategy from elsewhere, kept to run_seeds' contract: the launchable configs in reverse SPACE order."""
    order = np.arange(context.n_configs)[::-1][:budget]
    return np.tile(order, (len(seeds), 1)), None


def test_a_core_registered_elsewhere_joins_the_comparison_under_the_same_rules():
    cores = {**CORES, "backwards": backwards_core}
    c = compare([SQUARE, DECODE], ["random", "backwards"], seeds=[0, 5], budget=60, cores=cores)
    assert c.strategies == ("random", "backwards")
    for i, shape in enumerate((SQUARE, DECODE)):
        for k, seed in enumerate(c.seeds):
            trace = run_strategy("backwards", shape, budget=60, seed=seed, cores=cores)
            check_rules(trace, 60)
            m = Measurer(shape, budget=60, seed=seed)  # the same noise as every built-in strategy meets
            np.testing.assert_array_equal(trace.measured_s, [m.measure_config(cfg) for cfg in trace.configs])
            assert trace.configs[0] == landscape(shape).configs[-1]
            assert c.trials[i, 1, k] == (trials_to_within(trace) or math.inf)
    # the default registry is the six, untouched by the copy above
    assert tuple(CORES) == tuple(STRATEGIES) and "backwards" not in CORES
    with pytest.raises(ValueError, match="strategy"):
        compare([SQUARE], ["backwards"], seeds=[0])
    with pytest.raises(TypeError):
        CORES["backwards"] = backwards_core  # read-only: extend a copy


def test_compare_refuses_a_registry_that_is_not_names_to_cores():
    with pytest.raises(ValueError, match="cores"):
        compare([SQUARE], seeds=[0], cores={"backwards": 3})


def test_compare_summaries():
    c = compare([SQUARE, DECODE], ["random", "model"], seeds=range(20), budget=100, noise=0)
    assert c.reached.shape == (2, 2)
    for i in range(2):
        for j in range(2):
            t = c.trials[i, j]
            assert c.reached[i, j] == np.isfinite(t).mean()
            assert c.median[i, j] in t and c.p90[i, j] in t  # order statistics, not interpolations
            assert c.median[i, j] <= c.p90[i, j]
    assert c.cell(DECODE, "model") == c.cell(1, model_guided)
    # without noise every best-so-far curve falls, so its median and band do too
    for curve in (c.curve_median, c.curve_p10, c.curve_p90):
        assert (np.diff(curve, axis=-1) <= 0).all() and (curve >= 1).all()
    assert (c.curve_p10 <= c.curve_median).all() and (c.curve_median <= c.curve_p90).all()
    s = c.summary("model")
    assert s.estimate == np.median(c.median[:, 1]) or s.estimate in c.median[:, 1]


def test_default_shapes_hold_every_study_shape_once():
    """A shape listed twice would count twice in every median over shapes."""
    mnks = [s.mnk for s in DEFAULT_SHAPES]
    assert len(set(mnks)) == len(mnks)
    assert set(mnks) == {s.mnk for s in LECTURE_SHAPES} | {s.mnk for s in llm_shapes()}


def test_compare_without_shapes_studies_every_default_shape_in_its_own_row():
    """Row i of the default comparison is DEFAULT_SHAPES[i]'s runs, not another shape's."""
    c = compare(strategies=["random"], seeds=[0, 1], budget=40, noise=0)
    assert c.shapes == DEFAULT_SHAPES
    for i, shape in enumerate(DEFAULT_SHAPES):
        for k, seed in enumerate(c.seeds):
            trials = trials_to_within(random_search(shape, 40, seed, noise=0))
            assert c.trials[i, 0, k] == (math.inf if trials is None else trials)


# --- the measurer and validation -----------------------------------------------------------------


@FAST
@given(cfg=launchable_configs, noise=st.sampled_from((0.0, 0.1)), seed=st.integers(0, 100))
def test_measurer_charges_once(cfg, noise, seed):
    m = Measurer(SQUARE, budget=3, seed=seed, noise=noise)
    t = m.measure_config(cfg)
    assert m.measure_config(cfg) == t and m.count == 1
    if noise == 0:
        assert t == landscape(SQUARE).time_of(cfg)


@FAST
@given(cfg=unlaunchable_configs)
def test_measurer_refuses_unlaunchable_configs_without_charging(cfg):
    m = Measurer(SQUARE, budget=3)
    with pytest.raises(ValueError, match="cannot launch"):
        m.measure_config(cfg)
    assert m.count == 0


def test_measurer_budget():
    m = Measurer(DECODE, budget=2, noise=0)
    m.measure(0), m.measure(1), m.measure(0)
    with pytest.raises(BudgetExhausted):
        m.measure(2)
    assert m.count == 2 and m.remaining == 0 and not m.is_measured(2)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(budget=0), "budget"),
        (dict(budget=True), "budget"),
        (dict(budget=2.5), "budget"),
        (dict(seed=-1), "seed"),
        (dict(noise=-0.1), "noise"),
        (dict(noise=math.nan), "noise"),
        (dict(shape=(0, 4, 4)), "M"),
        (dict(shape=(4, 4)), "shape"),
        (dict(hw="H100"), "hw"),
    ],
)
@pytest.mark.parametrize("name", tuple(STRATEGIES))
def test_invalid_arguments_are_refused(name, kwargs, match):
    args = dict(shape=SQUARE, budget=10, seed=0, noise=0.03, hw=H100_TC) | kwargs
    with pytest.raises(TypeError if match == "hw" else ValueError, match=match):  # a wrong type: TypeError
        STRATEGIES[name](**args)


def test_compare_refuses_unknown_strategies_and_empty_inputs():
    with pytest.raises(ValueError, match="strategy"):
        compare([SQUARE], ["grid"], seeds=[0])
    with pytest.raises(ValueError, match="seeds"):
        compare([SQUARE], ["random"], seeds=[])
    with pytest.raises(ValueError, match="shapes"):
        compare([], ["random"], seeds=[0])


def test_feature_names_match_the_feature_matrix():
    X = search_context(SQUARE, H100_TC).features
    assert X.shape == (N_LAUNCHABLE, len(feature_names()))
    assert np.isfinite(X).all()


@pytest.mark.parametrize(
    "order, match",
    [
        (lambda n, b: np.zeros((1, b), dtype=np.int64), "twice"),
        (lambda n, b: np.full((1, b), n, dtype=np.int64), "outside"),
        (lambda n, b: np.concatenate([[-1], np.arange(b - 1)])[None, :], "padded"),
        (lambda n, b: np.arange(b, dtype=float)[None, :], "int array"),
        (lambda n, b: np.arange(b - 1)[None, :], "int array"),
    ],
    ids=["repeat", "out of range", "padding first", "floats", "short"],
)
def test_a_core_breaking_the_contract_is_named(order, match):
    def broken_core(context, seeds, budget, factors, **_):
        return order(context.n_configs, budget), None

    with pytest.raises(ValueError, match=rf"core broken_core .*{match}"):
        run_strategy("broken", SQUARE, budget=10, cores={"broken": broken_core})
    with pytest.raises(ValueError, match=rf"core broken_core .*{match}"):
        compare([SQUARE], seeds=[0], budget=10, cores={"broken": broken_core})
