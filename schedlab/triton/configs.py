"""Triton's autotuner as it is used: short curated config lists, and a perf model's top k.

``@triton.autotune`` measures every config of the list it is given and keeps the
fastest. Nobody hands it the whole space; they hand it a short list someone curated.
Two such lists, with their knob values copied from the sources (facts, not choices):

- :data:`TUTORIAL_CONFIGS`: ``get_cuda_autotune_config()`` of Triton's matmul tutorial,
  ``python/tutorials/03-matrix-multiplication.py`` (triton-lang/triton, commit
  ``7649d87c``): eight configs for fp16 and eight marked "good config for fp8 inputs",
  all with ``GROUP_SIZE_M = 8``.
- :data:`INDUCTOR_MM_CONFIGS`: ``BaseConfigHeuristic.mm_configs`` of PyTorch Inductor,
  ``torch/_inductor/template_heuristics.py`` (pytorch/pytorch, commit ``0006fb6e``;
  earlier releases kept the same list in ``torch/_inductor/kernel/mm_common.py``),
  ``(BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps)`` with ``group_m = 8``.
  Inductor adapts the list to the shape before tuning (:func:`inductor_configs`):
  each block is clamped to the next power of two of its dimension (at least 16) and
  ``num_warps`` to ``BLOCK_M * BLOCK_N / 256``, then repeats are dropped.

How they map onto this space: every knob value of both lists is a value of ``SPACE``;
nothing needs rounding. What does not map: the tutorial's fp8 configs are meant for
one-byte inputs, and this model prices fp16, so the larger of them overflow shared
memory here and are pruned (free, as any tuner prunes them); Inductor's list is one
of several (persistent-TMA, int8, scaled-mm and exhaustive lists are not used here),
and Inductor also tunes ``EVEN_K``/``ALLOW_TF32`` flags this kernel does not have.

:func:`measure_list` measures a list whole under this chapter's rules (each launchable
config once, with the seed's noise, the fastest measured kept), and :func:`top_k` is
``prune_configs_by={"perf_model": ..., "top_k": k}``: rank every config of a list by
a perf model, measure the best ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.checks import check_int
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.shapes import as_mnk
from schedlab.tuning.measurer import DEFAULT_NOISE, Measurer

__all__ = [
    "TUTORIAL_FP16_CONFIGS",
    "TUTORIAL_FP8_CONFIGS",
    "TUTORIAL_CONFIGS",
    "INDUCTOR_MM_CONFIGS",
    "inductor_configs",
    "ListResult",
    "measure_list",
    "top_k",
]


def _cfg(bm, bn, bk, group, stages, warps) -> GemmConfig:
    return GemmConfig(bm=bm, bn=bn, bk=bk, warps=warps, stages=stages, group=group)


#: Triton tutorial 03's CUDA autotune list for fp16: (BLOCK_SIZE_M, _N, _K, GROUP_SIZE_M, num_stages, num_warps).
TUTORIAL_FP16_CONFIGS = tuple(
    _cfg(*c)
    for c in [
        (128, 256, 64, 8, 3, 8),
        (64, 256, 32, 8, 4, 4),
        (128, 128, 32, 8, 4, 4),
        (128, 64, 32, 8, 4, 4),
        (64, 128, 32, 8, 4, 4),
        (128, 32, 32, 8, 4, 4),
        (64, 32, 32, 8, 5, 2),
        (32, 64, 32, 8, 5, 2),
    ]
)
#: The same list's entries under the comment "Good config for fp8 inputs."
TUTORIAL_FP8_CONFIGS = tuple(
    _cfg(*c)
    for c in [
        (128, 256, 128, 8, 3, 8),
        (256, 128, 128, 8, 3, 8),
        (256, 64, 128, 8, 4, 4),
        (64, 256, 128, 8, 4, 4),
        (128, 128, 128, 8, 4, 4),
        (128, 64, 64, 8, 4, 4),
        (64, 128, 64, 8, 4, 4),
        (128, 32, 64, 8, 4, 4),
    ]
)
#: The whole list, in the tutorial's order: what ``@triton.autotune(configs=get_autotune_config())`` measures.
TUTORIAL_CONFIGS = TUTORIAL_FP16_CONFIGS + TUTORIAL_FP8_CONFIGS

#: Inductor's mm_configs: (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps), group_m = 8.
INDUCTOR_MM_CONFIGS = tuple(
    _cfg(bm, bn, bk, 8, s, w)
    for bm, bn, bk, s, w in [
        (32, 32, 16, 1, 2),
        (32, 32, 128, 2, 4),
        (32, 64, 32, 5, 8),
        (64, 32, 32, 5, 8),
        (64, 32, 128, 5, 4),
        (64, 64, 16, 2, 4),
        (64, 64, 32, 2, 4),
        (64, 64, 64, 3, 8),
        (64, 64, 128, 5, 4),
        (64, 128, 32, 3, 4),
        (64, 128, 32, 4, 8),
        (64, 128, 64, 3, 4),
        (64, 128, 128, 4, 4),
        (128, 64, 32, 3, 4),
        (128, 64, 32, 4, 8),
        (128, 128, 32, 2, 8),
        (128, 128, 32, 3, 4),
        (128, 128, 64, 3, 4),
        (128, 128, 64, 5, 8),
    ]
)

_MIN_BLOCK = 16  # Inductor's smallest block (fp16)


def _next_pow2(x: int) -> int:
    return 1 << (int(x) - 1).bit_length()


def inductor_configs(shape) -> tuple[GemmConfig, ...]:
    """Inductor's mm list as it tunes ``shape``: blocks clamped to the shape, warps to the tile, repeats dropped.

    Examples
    --------
    >>> len(inductor_configs((4096, 4096, 4096))), len(inductor_configs((16, 4096, 4096)))
    (19, 17)
    >>> inductor_configs((16, 4096, 4096))[0].as_tuple()  # BLOCK_M 32 -> 16, 2 warps fit a 16x32 tile
    (16, 32, 16, 2, 1, 8)
    """
    M, N, K = as_mnk(shape)
    m, n, k = (max(_next_pow2(d), _MIN_BLOCK) for d in (M, N, K))
    out: dict[GemmConfig, None] = {}
    for c in INDUCTOR_MM_CONFIGS:
        bm, bn, bk = max(min(c.bm, m), _MIN_BLOCK), max(min(c.bn, n), _MIN_BLOCK), max(min(c.bk, k), _MIN_BLOCK)
        warps = min(c.warps, bm * bn // 256)
        out.setdefault(GemmConfig(bm=bm, bn=bn, bk=bk, warps=warps, stages=c.stages, group=c.group), None)
    return tuple(out)


@dataclass(frozen=True)
class ListResult:
    """A config list measured whole on one shape, over seeds.

    ``n_listed`` configs were listed, ``n_launchable`` of them could launch (each
    measured once: the run's cost); ``best_ratio`` is the list's best true time over the
    shape's optimum (what a noise-free tuner gets); ``ratios[s]`` is the true time of
    the config seed ``s`` measured fastest, over the optimum.
    """

    shape: tuple[int, int, int]
    n_listed: int
    n_launchable: int
    best_ratio: float
    ratios: np.ndarray

    def reached(self, factor: float = 1.05) -> float:
        """Fraction of seeds whose kept config is truly within ``factor`` of the optimum."""
        return float(np.mean(self.ratios <= factor * (1 + 1e-12)))


def measure_list(
    shape, configs, seeds=range(100), noise: float = DEFAULT_NOISE, hw: Hardware | None = None
) -> ListResult:
    """Measure every launchable config of ``configs`` once per seed and keep the fastest measured.

    Examples
    --------
    >>> r = measure_list((4096, 4096, 4096), TUTORIAL_CONFIGS, seeds=range(5))
    >>> r.n_listed, r.n_launchable <= r.n_listed, bool(r.best_ratio <= r.ratios.min())
    (16, True, True)
    """
    mnk = as_mnk(shape)
    hw = check_hardware(hw)
    land = landscape(mnk, hw)
    configs = tuple(dict.fromkeys(configs))
    for c in configs:
        if not isinstance(c, GemmConfig):
            raise ValueError(f"configs must hold GemmConfig, got {c!r}")
    idx = [land.index[c] for c in configs if c in land.index]
    seeds = tuple(seeds)
    if not idx:
        raise ValueError(f"none of the {len(configs)} configs can launch on {hw.name}")
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    ratios = []
    for s in seeds:
        m = Measurer(mnk, budget=len(idx), seed=s, noise=noise, hw=hw)
        measured = [m.measure(i) for i in idx]
        ratios.append(land.ratio[idx[int(np.argmin(measured))]])
    return ListResult(
        shape=mnk,
        n_listed=len(configs),
        n_launchable=len(idx),
        best_ratio=float(land.ratio[idx].min()),
        ratios=np.array(ratios),
    )


def top_k(
    shape,
    k: int = 10,
    guide_s=None,
    configs=None,
    seeds=range(100),
    noise: float = DEFAULT_NOISE,
    hw: Hardware | None = None,
) -> ListResult:
    """``prune_configs_by`` with a perf model: rank ``configs`` by ``guide_s``, measure the best ``k``.

    Parameters
    ----------
    k : int
        How many of the best-ranked configs are measured (Triton's ``top_k``).
    guide_s : array, optional
        The perf model's estimate for each launchable config of ``landscape(shape, hw)``
        (default: the model itself -- a perfect perf model, the best case).
    configs : iterable of GemmConfig, optional
        The list pruned (default: every launchable config).

    Examples
    --------
    >>> r = top_k((4096, 4096, 4096), k=10, seeds=range(5))
    >>> r.n_launchable, r.best_ratio
    (10, 1.0)
    """
    check_int("k", k, minimum=1)
    land = landscape(shape, hw)
    guide = land.time_s if guide_s is None else np.asarray(guide_s, dtype=float)
    if guide.shape != land.time_s.shape:
        raise ValueError(
            f"guide_s must hold one estimate per launchable config ({land.time_s.shape}), got shape {guide.shape}"
        )
    pool = (
        np.arange(len(land.configs))
        if configs is None
        else np.array([land.index[c] for c in dict.fromkeys(configs) if c in land.index], dtype=np.int64)
    )
    ranked = pool[np.argsort(guide[pool], kind="stable")[:k]]
    return measure_list(shape, [land.configs[i] for i in ranked], seeds, noise, hw)
