"""Behaviour of the learned cross-shape cost model (schedlab.tuning.learned)."""

import numpy as np
import pytest

from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.shapes import study_shapes
from schedlab.tuning import learned as L
from schedlab.tuning.features import FEATURE_SETS, features
from schedlab.tuning.regression import fit, fit_boosted


@pytest.fixture(scope="module")
def all_shapes():
    return study_shapes()


@pytest.fixture(scope="module")
def cvs():
    return {split: L.cross_validate(split) for split in L.SPLITS}


@pytest.mark.parametrize("feature_set", list(FEATURE_SETS))
@pytest.mark.parametrize("mnk", [(1, 6144, 4096), (17, 28672, 4096), (4096, 4096, 4096), (2048, 2048, 512), (1, 1, 1)])
def test_features_finite_and_shape_correct(feature_set, mnk):
    land = landscape(mnk)
    X = features(land.configs, mnk, feature_set)
    assert X.shape == (len(land.configs), len(FEATURE_SETS[feature_set]))
    assert np.isfinite(X).all()


def test_features_of_one_config_by_hand():
    names = FEATURE_SETS["tile"]
    f = dict(zip(names, features([GemmConfig(128, 64, 32, 4, 3, 8)], (100, 1000, 1000))[0]))
    assert f["bm"] == 7 and f["bn"] == 6 and f["group8"] == 1 and f["group4"] == 0
    assert f["wm"] == 6 and f["wn"] == 5  # 4 warps: 2 x 2
    assert f["pad_m"] == pytest.approx(np.log2(128 / 100))
    assert f["pad_n"] == pytest.approx(np.log2(1024 / 1000))
    assert f["blocks"] == pytest.approx(np.log2(16))
    assert f["k_steps"] == pytest.approx(np.log2(32))
    assert f["intensity"] == pytest.approx(np.log2(100 * 64 / 164))
    assert f["one_stage"] == 0 and f["in_flight"] == 1


def test_features_reject_bad_input():
    with pytest.raises(ValueError, match="feature_set"):
        features([GemmConfig(16, 16, 16, 1, 1, 1)], (1, 1, 1), "nope")
    with pytest.raises(ValueError):
        features([GemmConfig(16, 16, 16, 1, 1, 1)], (0, 1, 1))


def test_study_shapes_are_distinct_and_include_lecture_and_llm(all_shapes):
    mnks = [s.mnk for s in all_shapes]
    assert len(mnks) == len(set(mnks)) == 22
    assert (512, 14336, 4096) in mnks and (2048, 2048, 512) in mnks and (1, 28672, 4096) in mnks


@pytest.mark.parametrize("split", L.SPLITS)
def test_held_out_shapes_never_in_training(split, all_shapes):
    seen = set()
    for _group, train, test in L.folds(split):
        train_mnk = {s.mnk for s in train}
        assert test and train
        assert not train_mnk & {s.mnk for s in test}
        for held in test:
            if split in ("projection", "both"):
                assert all((s.N, s.K) != (held.N, held.K) for s in train)
            if split in ("tokens", "both"):
                assert all(s.M != held.M for s in train)
        seen |= {s.mnk for s in test}
    assert seen == {s.mnk for s in all_shapes}  # every shape is held out once


def test_cross_validation_records_respect_the_split(cvs):
    for cv in cvs.values():
        assert len(cv.results) == 22
        for r in cv.results:
            assert r.shape not in r.train_shapes
            assert r.nearest_shape in r.train_shapes


def test_regret_is_at_least_one_and_falls_with_k(cvs):
    for cv in cvs.values():
        for r in cv.results:
            for method in L.METHODS:
                top = [r.regret(method, k) for k in L.TOP_K]
                assert all(x >= 1.0 for x in top)
                assert top == sorted(top, reverse=True)
            true_best = landscape(r.shape).best_time_s
            assert r.best_time_s == true_best
            assert r.regret("model", 1) == pytest.approx(landscape(r.shape).time_of(r.pick("model")) / true_best)


def test_hit_rate_matches_regrets(cvs):
    cv = cvs["projection"]
    for method in L.METHODS:
        for k in L.TOP_K:
            assert cv.hit_rate(method, k) == np.mean(cv.regrets(method, k) <= 1.05)
            assert 1.0 <= cv.geomean_regret(method, k) <= cv.worst_regret(method, k)


def test_tile_model_beats_both_baselines_on_held_out_shapes(cvs):
    for cv in cvs.values():
        for k in L.TOP_K:
            assert cv.geomean_regret("model", k) <= cv.geomean_regret("fixed", k)
            assert cv.geomean_regret("model", k) <= cv.geomean_regret("nearest", k)


def test_model_trained_on_all_shapes_fits_them_better_than_one_fixed_config(all_shapes):
    model = fit(all_shapes)
    fixed = L.fixed_ranking(all_shapes)[0][0]
    model_regret, fixed_regret = [], []
    for s in all_shapes:
        land = landscape(s.mnk)
        model_regret.append(land.time_of(model.rank(s.mnk, k=1)[0]) / land.best_time_s)
        fixed_regret.append(land.time_of(fixed) / land.best_time_s)
    gmean = lambda x: float(np.exp(np.mean(np.log(x))))  # noqa: E731
    assert min(model_regret) >= 1.0
    assert gmean(model_regret) < gmean(fixed_regret)
    assert model.train_rmse < 0.5  # log-time error on the training rows


def test_fit_is_deterministic_and_rank_covers_the_launchable_space():
    a = fit([(4096, 4096, 4096), (16, 4096, 4096)])
    b = fit([(16, 4096, 4096), (4096, 4096, 4096), (16, 4096, 4096)])  # order and duplicates do not matter
    assert np.allclose(a.coef, b.coef) and a.intercept == pytest.approx(b.intercept)
    ranked = a.rank((512, 4096, 4096))
    assert len(ranked) == len(set(ranked)) == 3744


def test_fixed_ranking_is_the_geometric_mean_slowdown():
    shapes = [(4096, 4096, 4096), (16, 4096, 4096)]
    order, gmean = L.fixed_ranking(shapes)
    lands = [landscape(s) for s in shapes]
    for cfg, g in list(zip(order, gmean))[:5]:
        expect = np.sqrt(np.prod([land.time_of(cfg) / land.best_time_s for land in lands]))
        assert g == pytest.approx(expect)
    assert list(gmean) == sorted(gmean)


def test_nearest_shape_uses_log_distance():
    cands = [(1, 4096, 4096), (4096, 4096, 4096)]
    assert L.nearest_shape((32, 4096, 4096), cands) == (1, 4096, 4096)  # log2: 5 from 1, 7 from 4096
    assert L.nearest_shape((128, 4096, 4096), cands) == (4096, 4096, 4096)
    with pytest.raises(ValueError):
        L.nearest_shape((1, 1, 1), [])


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="split"):
        L.folds("random")
    with pytest.raises(ValueError, match="alpha"):
        fit([(16, 16, 16)], alpha=-1)
    with pytest.raises(ValueError):
        fit([])


# --- the penalty by nested cross-validation, and the boosted baseline ---------------------------


def test_chosen_penalty_has_the_lowest_inner_held_out_error():
    train = [s for s in study_shapes() if (s.N, s.K) != (4096, 4096)]
    alphas = (1e-6, 1e-3, 1e-1, 10.0)
    sse = []
    for a in alphas:  # by hand, through fit and predict_log_time
        err = 0.0
        for _, inner_train, inner_test in L.folds("projection", train):
            model = fit(inner_train, alpha=a)
            for s in inner_test:
                land = landscape(s.mnk)
                err += float(np.sum((model.predict_log_time(land.configs, s) - np.log(land.time_s)) ** 2))
        sse.append(err)
    assert L.choose_alpha(train, "projection", alphas=alphas) == alphas[int(np.argmin(sse))]
    assert min(sse) < max(sse)  # the choice is not a tie of equal fits


def test_nested_penalties_are_chosen_on_each_folds_training_shapes_only():
    cv = L.cross_validate("tokens", alpha="nested")
    assert cv.alpha == "nested" and len(cv.alphas) == len(L.folds("tokens"))
    for (_, train, _), chosen in zip(L.folds("tokens"), cv.alphas):
        assert chosen == L.choose_alpha(train, "tokens")


def test_ridge_on_knobs_ranks_every_shape_alike():
    # knob features differ between configs; shape features only add a constant per shape: one ranking for all
    model = fit(study_shapes()[:10], "knobs")
    configs = landscape((16, 4096, 4096)).configs
    gap = model.predict_log_time(configs, (16, 4096, 4096)) - model.predict_log_time(configs, (4096, 14336, 4096))
    assert np.allclose(gap, gap[0], rtol=0, atol=1e-9)  # one offset per shape: the same ranking up to rounding


def test_boosted_model_is_seeded_and_ranks_from_what_it_learned():
    train = [(4096, 4096, 4096), (16, 4096, 4096), (512, 14336, 4096)]
    a, b = fit_boosted(train, seed=1), fit_boosted(train, seed=1)
    X = landscape((2048, 4096, 4096)).configs
    assert np.array_equal(a.predict_log_time(X, (2048, 4096, 4096)), b.predict_log_time(X, (2048, 4096, 4096)))
    assert a.rank((16, 4096, 4096)) != a.rank((4096, 4096, 4096))  # unlike the knob ridge: per-shape rankings
    on_train = a.predict_log_time(landscape((4096, 4096, 4096)).configs, (4096, 4096, 4096))
    assert np.sqrt(np.mean((on_train - np.log(landscape((4096, 4096, 4096)).time_s)) ** 2)) < 0.2


def test_boosted_cross_validation_records_its_model():
    cv = L.cross_validate("projection", "knobs", model="boosted")
    assert cv.model == "boosted" and cv.alpha is None and cv.alphas == ()
    assert all(r.shape not in r.train_shapes for r in cv.results)
    assert 1.0 <= cv.geomean_regret("model") < L.cross_validate("projection", "knobs").geomean_regret("model")


def test_nested_and_boosted_arguments_are_checked():
    with pytest.raises(ValueError, match="model"):
        L.cross_validate(model="forest")
    with pytest.raises(ValueError, match="alpha"):
        L.cross_validate(alpha="best")
    with pytest.raises(ValueError, match="boosted"):
        L.cross_validate(alpha="nested", model="boosted")
    with pytest.raises(ValueError, match="two"):
        L.choose_alpha(study_shapes()[:1], "projection")
    with pytest.raises(ValueError, match="alphas"):
        L.choose_alpha(study_shapes(), alphas=(-1.0,))
    with pytest.raises(ValueError, match="seed"):
        fit_boosted([(4096, 4096, 4096)], seed=-1)
