"""The hook inside kernels in the wild (issue 27): it warns and keeps the list instead of raising in the launch path.

Every test goes through Triton's own ``Autotuner.prune_configs`` (as ``tests/test_autotune.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")

from schedlab.triton.configs import TUTORIAL_CONFIGS  # noqa: E402
from schedlab.triton.device import gpu_of_device  # noqa: E402
from schedlab.triton.hook import Pruner, read_config  # noqa: E402
from tests.test_autotune import FP16, autotuned, triton_configs, triton_prune  # noqa: E402

GOOD = triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_warps=4)


@pytest.mark.parametrize(
    "odd",
    [
        triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 16}),
        triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_stages=6),
        triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_warps=16),
        triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_ctas=2),
    ],
)
def test_a_config_outside_the_model_is_kept_unranked_with_a_warning(odd):
    with pytest.warns(UserWarning, match="kept unranked"):
        kept = triton_prune(autotuned([odd, GOOD], Pruner("h100-sxm").prune_configs_by()), 4096, 4096, 4096)
    assert kept == [GOOD, odd]  # ranked first, the undescribed one at the end
    with pytest.raises(ValueError):
        triton_prune(autotuned([odd, GOOD], Pruner("h100-sxm", strict=True).prune_configs_by()), 4096, 4096, 4096)


@pytest.mark.parametrize("dtype", [np.float32, np.int8])
def test_other_element_types_keep_the_list(dtype):
    configs = triton_configs(TUTORIAL_CONFIGS)
    with pytest.warns(UserWarning, match="every config kept.*dtype"):
        kept = triton_prune(
            autotuned(configs, Pruner("h100-sxm", top_k=2).prune_configs_by()), 64, 64, 64, a=np.zeros(1, dtype)
        )
    assert kept == configs


def test_lower_case_argument_names():
    @triton.autotune(configs=[GOOD], key=["m"], prune_configs_by=Pruner("h100-sxm").prune_configs_by())
    @triton.jit
    def kernel(a, b, c, m, n, k, BLOCK_SIZE_M: tl.constexpr):
        pass

    kernel.nargs = dict(zip(kernel.arg_names, (FP16, FP16, FP16, 512, 512, 512)))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # read, not warned about
        assert kernel.prune_configs({}) == [GOOD]


def test_no_group_knob_prices_group_one():
    plain = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "num_warps": 4, "num_stages": 3}
    assert read_config(plain).group == 1
    kept = triton_prune(
        autotuned([triton.Config(dict(list(plain.items())[:3]))], Pruner("h100-sxm").prune_configs_by()),
        4096,
        4096,
        4096,
    )
    assert len(kept) == 1


def test_split_k_and_maxnreg_are_kept_unranked_at_the_end():
    split = triton.Config({**GOOD.kwargs, "SPLIT_K": 4}, num_warps=4)
    capped = triton.Config(dict(GOOD.kwargs), num_warps=4, maxnreg=128)
    with pytest.warns(UserWarning, match="SPLIT_K=4.*maxnreg=128|maxnreg=128.*SPLIT_K=4"):
        kept = triton_prune(autotuned([split, capped, GOOD], Pruner("h100-sxm").prune_configs_by()), 4096, 4096, 4096)
    assert kept == [GOOD, split, capped]


def test_a_repeated_list_is_measured_once():
    configs = triton_configs(TUTORIAL_CONFIGS[:4])
    twice = configs + triton_configs(TUTORIAL_CONFIGS[:4])
    kept = triton_prune(autotuned(twice, Pruner("h100-sxm", top_k=4).prune_configs_by()), 4096, 4096, 4096)
    assert len(kept) == 4 and len({read_config(c) for c in kept}) == 4


@pytest.mark.parametrize(
    "device, name",
    [((9, 0, 80 * 2**30), "h100-sxm"), ((9, 0, 141 * 10**9), "h200-sxm"), ((8, 0, 40 * 2**30), "a100-sxm4")],
)
def test_the_gpu_found_from_the_device(device, name):
    assert gpu_of_device(device) == name
    assert Pruner(device=lambda: device).hw.name == Pruner(name).hw.name


@pytest.mark.parametrize("device", [(8, 9, 24 * 2**30), None])
def test_an_unknown_device_warns_once_and_keeps_the_list(device):
    configs = triton_configs(TUTORIAL_CONFIGS)
    with pytest.warns(UserWarning, match="no profile of this GPU"):
        pruner = Pruner(top_k=2, device=lambda: device)
    with pytest.warns(UserWarning, match="every config kept"):
        assert triton_prune(autotuned(configs, pruner.prune_configs_by()), 4096, 4096, 4096) == configs
