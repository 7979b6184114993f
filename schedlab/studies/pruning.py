"""How much of Inductor's list the model's ``early_config_prune`` skips, per GPU profile and shape family.

On the model's own landscapes the model is the truth, so the question is not whether the
hook keeps a good config (it keeps the list's best) but how much measuring a tolerance saves:
:func:`skip_shares` runs :class:`schedlab.triton.hook.Pruner` with ``within=tol`` on Inductor's
list for each shape (adapted to it, :func:`~schedlab.triton.configs.inductor_configs`)
and reports the share of the list left unmeasured -- configs that cannot launch, and configs the
model puts more than ``tol`` behind the list's best, the loss skipping them risks if the model
ranks right. The families are the Llama-3-8B projections (:func:`schedlab.core.shapes.llm_shapes`)
at decode batches (``M <= 64``) and prefill lengths.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.hardware import PROFILES
from schedlab.core.shapes import LLM_TOKENS, llm_shapes
from schedlab.triton.configs import inductor_configs
from schedlab.triton.hook import INDUCTOR_KEYS, Pruner, flat_config

__all__ = ["FAMILIES", "SkipShares", "skip_shares"]

#: Shape family -> its token counts M (each over the four Llama-3-8B projections).
FAMILIES = {"decode": tuple(m for m in LLM_TOKENS if m <= 64), "prefill": tuple(m for m in LLM_TOKENS if m > 64)}


@dataclass(frozen=True)
class SkipShares:
    """``share[g, f]``: mean share of Inductor's list skipped on profile ``gpus[g]``, family ``families[f]``."""

    gpus: tuple[str, ...]
    families: tuple[str, ...]
    tol: float
    share: np.ndarray
    n_shapes: tuple[int, ...]


def skip_shares(gpus=tuple(PROFILES), tol: float = 0.05) -> SkipShares:
    """Mean share of Inductor's list a within-``tol`` prune skips, per profile and shape family.

    Examples
    --------
    >>> s = skip_shares(("h100-sxm",))
    >>> s.families, s.n_shapes, bool(0.5 < s.share.min() and s.share.max() < 1)
    (('decode', 'prefill'), (12, 8), True)
    """
    gpus = tuple(gpus)
    share = np.zeros((len(gpus), len(FAMILIES)))
    n_shapes = []
    for f, tokens in enumerate(FAMILIES.values()):
        shapes = [s.mnk for s in llm_shapes(tokens)]
        n_shapes.append(len(shapes))
        for g, gpu in enumerate(gpus):
            pruner = Pruner(gpu, within=tol, keys=INDUCTOR_KEYS)
            lists = [[flat_config(c, INDUCTOR_KEYS) for c in inductor_configs(s)] for s in shapes]
            share[g, f] = np.mean([pruner.prune(configs, s).skipped_share for configs, s in zip(lists, shapes)])
    return SkipShares(gpus, tuple(FAMILIES), tol, share, tuple(n_shapes))
