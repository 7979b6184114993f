"""schedlab.triton.hook inside Triton's own autotuner (the ``triton`` package from PyPI; no GPU).

Each test builds ``triton.Config`` objects and a real ``triton.runtime.autotuner.Autotuner``
with ``triton.autotune`` around ``triton.jit`` on a trivial kernel with the tutorial's
arguments, and reaches Triton's own ``Autotuner.prune_configs``, so that a change in how
Triton calls ``perf_model`` or ``early_config_prune`` fails here. ``prune_configs`` reads
the call's arguments from ``Autotuner.nargs``, which ``Autotuner.run`` sets as
``dict(zip(arg_names, args))``; the tests set it the same way. One test goes through
``Autotuner.run`` itself: there only the GPU is stubbed -- the kernel launch
(``JITFunction.run``, replaced by a recorder) and the timer (``do_bench=``, a public argument
of ``triton.autotune``).
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest

triton = pytest.importorskip("triton")  # the `test` extra installs it; importorskip names it if missing
tl = pytest.importorskip("triton.language")
from triton.runtime.autotuner import Autotuner  # noqa: E402

from schedlab.core.knobs import GemmConfig  # noqa: E402
from schedlab.triton.configs import TUTORIAL_CONFIGS, inductor_configs  # noqa: E402
from schedlab.triton.hook import INDUCTOR_KEYS, Pruner, config_kwargs, read_config  # noqa: E402

FP16 = np.zeros(1, np.float16)  # stands for a torch tensor: Triton and the hook read only .dtype


def triton_configs(configs, keys=None):
    kw = {} if keys is None else {"keys": keys}
    return [triton.Config(config_kwargs(c, **kw), num_warps=c.warps, num_stages=c.stages) for c in configs]


def autotuned(configs, prune_configs_by, do_bench=None):
    """The tutorial's argument list under ``triton.autotune``; the body is never compiled."""

    @triton.autotune(configs=configs, key=["M", "N", "K"], prune_configs_by=prune_configs_by, do_bench=do_bench)
    @triton.jit
    def matmul_kernel(
        a_ptr,
        b_ptr,
        c_ptr,
        M,
        N,
        K,
        BLOCK_SIZE_M: tl.constexpr,
        BLOCK_SIZE_N: tl.constexpr,
        BLOCK_SIZE_K: tl.constexpr,
        GROUP_SIZE_M: tl.constexpr,
    ):
        pass

    assert isinstance(matmul_kernel, Autotuner)
    return matmul_kernel


def triton_prune(tuner, M, N, K, a=FP16, **kwargs):
    """Triton's own pruning, called as ``Autotuner.run`` calls it."""
    tuner.nargs = dict(zip(tuner.arg_names, (a, a, a, M, N, K)))
    try:
        return tuner.prune_configs(kwargs)
    finally:
        tuner.nargs = None


SHAPES = [(4096, 4096, 4096), (16, 4096, 4096), (512, 14336, 4096), (2048, 2048, 512)]


@pytest.mark.parametrize("shape", SHAPES)
def test_early_config_prune_through_triton(shape):
    configs = triton_configs(TUTORIAL_CONFIGS)
    pruner = Pruner("h100-sxm", top_k=4)
    kept = triton_prune(autotuned(configs, pruner.prune_configs_by()), *shape)
    assert kept == list(pruner.prune(configs, shape).kept)
    assert 1 <= len(kept) <= 4 and all(k in configs for k in kept)
    ours = [read_config(c) for c in kept]
    assert all(c.bk < 128 for c in ours)  # the big fp8 configs cannot launch with 2-byte inputs


@pytest.mark.parametrize("shape", SHAPES)
def test_perf_model_through_triton_matches_early_prune(shape):
    configs = triton_configs(TUTORIAL_CONFIGS)
    pruner = Pruner("a100-sxm4")
    by_model = triton_prune(autotuned(configs, {"perf_model": pruner.perf_model, "top_k": 4}), *shape)
    assert by_model == list(Pruner("a100-sxm4", top_k=4).prune(configs, shape).kept)


@pytest.mark.parametrize("strides", ["runtime", "constant"])
def test_perf_model_and_early_prune_agree_under_either_strides_on_an_unaligned_k(strides):
    # K = 200: with strides as arguments A is loaded element by element (one buffer, more configs fit and each
    # k-step waits); with strides compiled in its rows are 16-byte aligned: both hooks price the same kernel
    shape = (4096, 4096, 200)
    configs = triton_configs(TUTORIAL_CONFIGS)
    pruner = Pruner("h100-sxm", strides=strides)
    by_model = triton_prune(autotuned(configs, {"perf_model": pruner.perf_model, "top_k": 4}), *shape)
    pruned = Pruner("h100-sxm", top_k=4, strides=strides).prune(configs, shape)
    assert by_model == list(pruned.kept)
    estimates = [
        pruner.perf_model(M=shape[0], N=shape[1], K=shape[2], a_ptr=FP16, **c.all_kwargs()) for c in pruned.kept
    ]
    assert estimates == pytest.approx(list(pruned.estimates_ms))


def test_inductor_spelling_and_estimates():
    shape = (512, 4096, 4096)
    listed = inductor_configs(shape)
    configs = triton_configs(listed, INDUCTOR_KEYS)
    result = Pruner("h100-lecture", top_k=8).prune(configs, shape)
    assert len(result.kept) == 8 and list(result.estimates_ms) == sorted(result.estimates_ms)
    assert result.skipped_share == pytest.approx(1 - 8 / len(listed))
    assert [read_config(c) for c in configs] == list(listed)


def test_run_measures_only_the_kept_configs():
    """Through ``Autotuner.run``: Triton times exactly what the hook kept, then launches its fastest."""
    configs = triton_configs(TUTORIAL_CONFIGS)
    launched = []

    def do_bench(kernel_call, quantiles):
        kernel_call()
        return [float(len(launched))] * 3  # the first one timed is the fastest

    tuner = autotuned(configs, Pruner("h100-sxm", top_k=3).prune_configs_by(), do_bench=do_bench)
    tuner.fn.run = lambda *args, **kwargs: launched.append(kwargs)  # the launch: the one GPU call stubbed
    tuner.run(FP16, FP16, FP16, 4096, 4096, 4096)
    expected = [c.all_kwargs() for c in Pruner("h100-sxm", top_k=3).prune(configs, (4096, 4096, 4096)).kept]
    assert launched == expected + expected[:1]
    assert tuner.best_config.all_kwargs() == expected[0]


def test_unlaunchable_dropped_with_reasons(caplog):
    configs = triton_configs(TUTORIAL_CONFIGS)
    with caplog.at_level(logging.INFO, logger="schedlab.triton.hook"):
        kept = triton_prune(autotuned(configs, Pruner("h100-sxm").prune_configs_by()), 4096, 4096, 4096)
    assert len(kept) == 11  # the five big fp8 configs overflow shared memory with 2-byte inputs
    assert len(caplog.records) == 5 and all("cannot launch on H100 SXM" in r.getMessage() for r in caplog.records)
    assert all("shared memory (Triton's pipeline buffers) over 227 KiB" in r.getMessage() for r in caplog.records)


def test_none_launchable_keeps_the_first_and_warns():
    big = GemmConfig(bm=256, bn=256, bk=128, warps=8, stages=5, group=8)
    configs = triton_configs([big, GemmConfig(bm=256, bn=256, bk=128, warps=4, stages=4, group=8)])
    tuner = autotuned(configs, Pruner("a100-sxm4").prune_configs_by())
    with pytest.warns(UserWarning, match="none of the 2 configs can launch on A100"):
        kept = triton_prune(tuner, 4096, 4096, 4096)
    assert kept == configs[:1]  # Triton raises AutotunerError on an empty list


@pytest.mark.parametrize("shape", [(0, 4096, 4096), (2**62, 4096, 4096)])
def test_refused_shape_keeps_the_list(shape):
    """An empty dimension, or counts that would overflow int64 (2**20 x 2**20 x 64, refused before issue 24
    by MAX_MN = 2**18, is now priced: see the next test)."""
    configs = triton_configs(TUTORIAL_CONFIGS)
    with pytest.warns(UserWarning, match="every config kept"):
        kept = triton_prune(autotuned(configs, Pruner("h100-sxm", top_k=2).prune_configs_by()), *shape)
    assert kept == configs
    with pytest.warns(UserWarning, match="every estimate is 0"):
        first = triton_prune(autotuned(configs, {"perf_model": Pruner("h100-sxm").perf_model, "top_k": 2}), *shape)
    assert first == configs[:2]  # Triton's top_k still cuts: the reason prune_configs_by() avoids perf_model


@pytest.mark.parametrize("shape", [(2**20, 2**20, 64), (8192, 4096, 250_112), (16, 256_000, 4096)])
def test_real_shapes_past_the_old_limits_are_pruned(shape):
    """Issue 24: the hook never refuses a real shape; these (over the old MAX_MN = 2**18 or MAX_K = 2**17,
    or both sides of a vocabulary projection) are cut to top_k like any other, without a warning."""
    configs = triton_configs(TUTORIAL_CONFIGS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept = triton_prune(autotuned(configs, Pruner("h100-sxm", top_k=2).prune_configs_by()), *shape)
    assert len(kept) == 2 and all(c in configs for c in kept)


def test_unknown_spelling_raises_through_triton_when_strict():
    configs = [triton.Config({"BM": 64, "BN": 64, "BK": 32, "GROUP_SIZE_M": 8}), *triton_configs(TUTORIAL_CONFIGS)]
    strict = Pruner("h100-sxm", strict=True)
    for hooks in (strict.prune_configs_by(), {"perf_model": strict.perf_model, "top_k": 2}):
        with pytest.raises(ValueError, match="no keyword for bm .*BLOCK_SIZE_M, BLOCK_M.*BM, BN, BK"):
            triton_prune(autotuned(configs, hooks), 4096, 4096, 4096)


@pytest.mark.parametrize(
    "a, match",
    [(np.zeros(1, np.float32), "dtype float32"), (3, "has no dtype: int")],
)
def test_unknown_dtype_raises_through_triton_when_strict(a, match):
    tuner = autotuned(triton_configs(TUTORIAL_CONFIGS), Pruner("h100-sxm", strict=True).prune_configs_by())
    with pytest.raises(ValueError, match=match):
        triton_prune(tuner, 4096, 4096, 4096, a=a)


def test_argument_names_configurable():
    configs = triton_configs(TUTORIAL_CONFIGS)
    pruner = Pruner("h100-sxm", top_k=2, args={"M": "N", "N": "M", "K": "K", "dtype": "b_ptr"})
    kept = triton_prune(autotuned(configs, pruner.prune_configs_by()), 4096, 16, 4096)  # M and N swapped
    assert kept == list(Pruner("h100-sxm", top_k=2).prune(configs, (16, 4096, 4096)).kept)
    with pytest.raises(ValueError, match="no argument 'x_ptr' for dtype"):
        triton_prune(
            autotuned(
                configs, Pruner("h100-sxm", args={**pruner.args, "dtype": "x_ptr"}, strict=True).prune_configs_by()
            ),
            1,
            1,
            1,
        )


@pytest.mark.parametrize(
    "config, match",
    [
        (triton.Config({"BLOCK_M": 64, "BLOCK_SIZE_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}), "bm twice"),
        (
            triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=16),
            "warps must be one of",
        ),
        (triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_ctas=2), "num_ctas = 2"),
    ],
)
def test_configs_the_model_does_not_describe(config, match):
    with pytest.raises(ValueError, match=match):
        read_config(config)


def test_config_dict_as_tritons_cache_stores_it():
    c = triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=4, num_stages=4)
    assert read_config(c.__dict__) == read_config(c) == GemmConfig(bm=64, bn=128, bk=32, warps=4, stages=4, group=8)
