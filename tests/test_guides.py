"""The guide-vs-truth study (schedlab.studies.guides), the surrogate ablation (schedlab.tuning.surrogates) and their view."""

from dataclasses import replace

import numpy as np
import pytest

from schedlab.core.hardware import H100_TC, KiB
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.launch import launchable
from schedlab.figures.guides import guide_sweep
from schedlab.render.guides import guide_table
from schedlab.studies import guides
from schedlab.tuning import surrogates
from schedlab.tuning.compare import compare, ruled_cores
from schedlab.tuning.features import SURROGATES, surrogate_features

SQUARE = (4096, 4096, 4096)
BLIND_AND_MODEL = ["random", "descent", "annealing", "evolutionary", "model"]


def test_field_is_lognormal_with_the_stated_sigma_and_family_correlation():
    land = landscape(SQUARE)
    f = np.log(np.stack([guides.effects_field(land.configs, 0.1, s) for s in range(200)]))
    assert abs(f.std() / 0.1 - 1) < 0.05 and abs(f.mean()) < 0.01
    z = f / 0.1  # standard normal per config
    i = land.index[GemmConfig(128, 128, 32, 4, 3, 1)]
    same_tile = land.index[GemmConfig(128, 128, 64, 8, 2, 8)]  # same (BM, BN), other BK, warps
    same_kernel = land.index[GemmConfig(128, 128, 32, 4, 4, 8)]  # same (BM, BN, BK, warps)
    other = land.index[GemmConfig(64, 32, 32, 4, 3, 1)]
    corr = lambda a, b: np.corrcoef(z[:, a], z[:, b])[0, 1]  # noqa: E731
    assert abs(corr(i, same_tile) - 0.5) < 0.15
    assert abs(corr(i, same_kernel) - 0.75) < 0.1
    assert abs(corr(i, other)) < 0.2


def test_field_depends_on_the_config_and_seed_only():
    a = landscape(SQUARE).configs[:50]
    assert np.array_equal(guides.effects_field(a, 0.2, 3), guides.effects_field(list(reversed(a)), 0.2, 3)[::-1])
    assert not np.array_equal(guides.effects_field(a, 0.2, 3), guides.effects_field(a, 0.2, 4))
    assert np.array_equal(guides.effects_field(a, 0.0, 3), np.ones(50))


@pytest.mark.parametrize("sigma", [-0.1, 1.5, float("nan"), "0.1", True])
def test_field_rejects_a_bad_sigma(sigma):
    with pytest.raises(ValueError, match="sigma"):
        guides.field_truth(sigma)


def test_blind_tuners_on_the_plain_model_are_the_search_chapters_runs():
    seeds = range(12)
    g = guides.guide_study(SQUARE, [guides.field_truth(0.0)], ["model-guided", *guides.BLIND], seeds=seeds)
    c = compare([SQUARE], ["model", *guides.BLIND], seeds=seeds, cores=ruled_cores())  # the same rules
    assert np.array_equal(g.trials[0], c.trials[0])


def test_recorded_real_tuners_replay_their_live_runs_and_refuse_what_was_not_recorded(tmp_path):
    truths = [guides.field_truth(0.2)]
    runs = guides.record_guide_runs(SQUARE, [0.2], ["kt_bayes_opt"], seeds=[0, 1], budget=25)
    again = guides.load_guide_runs(runs.save(tmp_path / "g.npz"))
    cores = guides.recorded_guide_cores(again)
    live = guides.guide_study(SQUARE, truths, ["kt_bayes_opt"], seeds=[0, 1], budget=25)
    replay = guides.guide_study(SQUARE, truths, ["kt_bayes_opt"], seeds=[0, 1], budget=25, cores=cores)
    assert np.array_equal(live.trials, replay.trials)
    with pytest.raises(ValueError, match="was not recorded"):
        guides.guide_study(SQUARE, [guides.field_truth(0.05)], ["kt_bayes_opt"], seeds=[0], budget=25, cores=cores)
    with pytest.raises(ValueError, match="was not recorded"):
        guides.guide_study(SQUARE, truths, ["kt_bayes_opt"], seeds=[0], budget=24, cores=cores)


def test_truth_factors_are_the_field_times_the_noise():
    f = guides.truth_factors(guides.field_truth(0.1), [4], 0.03)[0]
    land = landscape(SQUARE)
    from schedlab.tuning.measurer import noise_factors

    expected = guides.effects_field(land.configs, 0.1, 4) * noise_factors(4, 0.03, len(land.configs))
    assert np.allclose(f, expected, rtol=1e-12)


def test_a_machine_truth_is_that_machines_search():
    small = replace(H100_TC, name="small smem", smem_per_sm=164 * KiB, smem_limit=163 * KiB, n_sm=108)
    seeds = range(8)
    g = guides.guide_study(SQUARE, [guides.machine_truth(small)], list(guides.BLIND), seeds=seeds)
    c = compare([SQUARE], list(guides.BLIND), seeds=seeds, hw=small)
    assert np.array_equal(g.trials[0], c.trials[0])


def test_without_noise_a_ranking_needs_the_position_of_its_first_truly_good_config():
    land = landscape(SQUARE)
    g = guides.guide_study(
        SQUARE, [guides.field_truth(0.2)], ["top-k model", "top-k learned"], seeds=range(6), noise=0.0
    )
    model_order = np.argsort(land.time_s, kind="stable")
    for s in range(6):
        true_s = land.time_s * guides.effects_field(land.configs, 0.2, s)
        good = true_s[model_order] <= 1.05 * true_s.min()
        assert g.trials[0, 0, s] == np.argmax(good) + 1
        learned_order = guides.guide_ranking("top-k learned", SQUARE)
        assert g.trials[0, 1, s] == np.argmax(true_s[learned_order] <= 1.05 * true_s.min()) + 1


def test_the_learned_guide_never_trains_on_the_shape_it_ranks():
    train = guides._training_shapes(SQUARE)
    assert train and all((s.N, s.K) != (4096, 4096) for s in train)


def test_guide_equal_to_truth_finds_the_optimum_first():
    g = guides.guide_study((16, 4096, 4096), [guides.field_truth(0.0)], ["top-k model"], seeds=range(20))
    assert (g.trials == 1).all()


def test_study_rejects_bad_arguments():
    with pytest.raises(ValueError, match="tuners"):
        guides.guide_study(SQUARE, [guides.field_truth(0.0)], ["bayes"])
    with pytest.raises(ValueError, match="truths"):
        guides.guide_study(SQUARE, [0.05])
    with pytest.raises(ValueError, match="seed"):
        guides.guide_study(SQUARE, [guides.field_truth(0.0)], seeds=[])
    with pytest.raises(ValueError, match="guide"):
        guides.guide_ranking("random", SQUARE)
    g = guides.guide_study(SQUARE, [guides.field_truth(0.0)], ["random"], seeds=range(3))
    with pytest.raises(ValueError, match="truth"):
        g.cell("σ = 5 %", "random")
    with pytest.raises(ValueError, match="blind"):
        guides.guide_study(SQUARE, [guides.field_truth(0.0)], ["top-k model"], seeds=range(2)).best_blind("σ = 0 %")


def test_ablation_with_our_features_is_model_guided_search():
    seeds = range(10)
    a = surrogates.ablation([SQUARE], ["ours"], seeds=seeds)
    c = compare([SQUARE], ["model"], seeds=seeds)
    assert np.array_equal(a.trials[0, 0], c.trials[0, 0])


def test_surrogate_features_are_standardised_and_say_what_they_hold():
    for name in SURROGATES:
        X = surrogate_features(name, SQUARE)
        sd = X.std(axis=0)  # 1, or 0 for a column constant on this shape (no padding on 4096^3)
        assert np.allclose(X.mean(axis=0), 0) and np.all(np.isclose(sd, 1) | np.isclose(sd, 0))
    onehot = surrogate_features("one-hot", SQUARE)
    assert np.linalg.matrix_rank(onehot) == onehot.shape[1] - 6  # centred, each knob's indicators sum to zero
    with pytest.raises(ValueError, match="surrogate"):
        surrogate_features("cubic", SQUARE)


def test_extreme_points_by_linear_program():
    points = np.log2(launchable(H100_TC).array.astype(float))
    land = landscape(SQUARE)
    smallest = land.index[GemmConfig(16, 16, 16, 1, 1, 1)]  # lowest sum of log-knobs: a vertex
    inner = land.index[GemmConfig(64, 64, 32, 2, 3, 4)]  # every knob strictly inside its range
    assert surrogates._extreme(points, smallest)
    assert not surrogates._extreme(points, inner)


def test_hull_vertex_optimum_is_on_the_plateau_or_none():
    for shape in [SQUARE, (16, 4096, 4096), (64, 4096, 4096)]:
        land = landscape(shape)
        c = surrogates.hull_vertex_optimum(shape)
        if c is not None:
            assert land.time_of(c) <= 1.05 * land.best_time_s
    assert surrogates.hull_vertex_optimum((64, 4096, 4096)) is None


def test_plateau_counts_ties():
    land = landscape((16, 4096, 4096))
    p = surrogates.plateau((16, 4096, 4096))
    assert p.n_within == land.n_within(1.05)
    assert p.next_ratio > 1.05 and p.n_times == len(land.tie_groups(within=1.05))


def test_view_tables_and_figure():
    g = guides.guide_study(
        SQUARE, [guides.field_truth(0.0), guides.field_truth(0.1)], ["top-k model", "random"], seeds=range(6)
    )
    t = guide_table(g)
    assert t.headers == ("调优器", "σ = 0 %", "σ = 10 %") and len(t.rows) == 2
    fig = guide_sweep([g])
    ax = fig.axes[0]
    assert list(ax.lines[0].get_xdata()) == [0.0, 10.0]
    with pytest.raises(ValueError, match="GuideStudy"):
        guide_table("x")
