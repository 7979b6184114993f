"""The table of the autotune hook's savings (:mod:`schedlab.studies.pruning`) on the search chapter."""

from __future__ import annotations

from schedlab.core.hardware import profile
from schedlab.render.table import Table, fmt_percent
from schedlab.studies.pruning import FAMILIES, SkipShares

__all__ = ["skip_table"]

_FAMILY_LABELS = {"decode": "decode（M ≤ 64）", "prefill": "prefill（M ≥ 512）"}


def skip_table(shares: SkipShares) -> Table:
    """One row per GPU profile, one column per shape family: the mean share of Inductor's list skipped.

    Examples
    --------
    >>> from schedlab.studies.pruning import skip_shares
    >>> skip_table(skip_shares(("a100-sxm4",))).headers
    ('GPU', 'decode（M ≤ 64）', 'prefill（M ≥ 512）')
    """
    if not isinstance(shares, SkipShares):
        raise ValueError(f"shares must be a SkipShares, got {type(shares).__name__}")
    rows = [(profile(gpu).name,) + tuple(fmt_percent(x) for x in shares.share[g]) for g, gpu in enumerate(shares.gpus)]
    title = (
        f"Inductor 的列表里模型让 early_config_prune 跳过的比例（不能启动的，和估计比列表最好的慢 {fmt_percent(shares.tol)} "
        f"以上的），各族 Llama-3-8B 投影形状的平均（{', '.join(f'{f} {n} 个' for f, n in zip(FAMILIES, shares.n_shapes))}）"
    )
    return Table(title, ("GPU",) + tuple(_FAMILY_LABELS[f] for f in shares.families), rows)
