"""What the seed's claims C1-C8 say, in the lecture's words, and how the model's values read (the appendix table).

:func:`schedlab.studies.claims.seed_claims` measures each claim on the model; :func:`claim_row`
gives the table's row for one: its id, the seed's statement, the accepted range and the model's
values as text.

Examples
--------
>>> from schedlab.studies.claims import seed_claims
>>> claim_row(seed_claims()[0])
('C1', '6000 个组合里能启动 3744 个（62%）', '6000 / 3744', '6000 / 3744（62%）')
"""

from __future__ import annotations

import numpy as np

from schedlab.render.table import fmt_percent

__all__ = ["CLAIM_TEXT", "claim_value", "claim_row"]


def _fmt_range(lo, hi, unit="×"):
    return f"{lo:g}–{hi:g}{unit}"


#: Claim id -> (what the seed says, the range the model must reach).
CLAIM_TEXT = {
    "C1": ("6000 个组合里能启动 3744 个（62%）", "6000 / 3744"),
    "C2": ("4096³ 上最快的配置都是 256×128 的块、8 个 warp", "1% 以内全是 256×128、8 warp"),
    "C3": ("(BK, stages) = (32,4) (32,5) (64,3) (128,2) 一样快；GROUP_M 不起作用", "1% 以内；GROUP_M 影响 ≤ 1%"),
    "C4": ("最快的约 900 TFLOPS（稠密峰值的九成）", "850–950 TFLOPS"),
    "C5": ("好配置很稀少；随便选一个（中位数）要慢好几倍", "5% 以内 ≤ 2%；中位数 ≥ 3×"),
    "C6": ("前三种形状的最优是同一个配置；decode 的最优是 16×16 的小块", "同一配置；BM = BN = 16"),
    "C7": (
        "大 GEMM 的最优用在 decode 上慢约 3 倍；反过来慢 6.6–14 倍",
        f"{_fmt_range(2.5, 3.6)}；{_fmt_range(5.6, 16)}",
    ),
    "C8": (
        "块小一号慢 1.5–3 倍；stages 1 → 4：3.67 → 1.00，5 级不再变好",
        "1.45–3×；3.67× ± 10%；st5 = st4；BK=128 放不下",
    ),
}


def _ratio(x: float) -> str:
    """A time ratio as the claims table writes it: two decimals, or 不能启动 where the config cannot launch."""
    return f"{x:.2f}" if np.isfinite(x) else "不能启动"


def claim_value(claim) -> str:
    """The model's values of ``claim`` (a :class:`~schedlab.studies.claims.Claim`) as the appendix table writes them."""
    v = claim.values
    if claim.id == "C1":
        return f"{v['n_configs']} / {v['n_launchable']}（{fmt_percent(v['fraction'])}）"
    if claim.id == "C2":
        return "、".join(f"{bm}×{bn}/{w} warp" for bm, bn, w in v["fastest"])
    if claim.id == "C3":
        return f"最慢 {v['worst_pair']:.3f}×；GROUP_M 最多 {v['group_spread']:.3f}×"
    if claim.id == "C4":
        return f"{v['tflops']:.0f} TFLOPS（{fmt_percent(v['peak_share'])}）"
    if claim.id == "C5":
        return f"{v['n_within']} 个（{fmt_percent(v['share'], 1)}）；中位数 {v['median']:.2f}×"
    if claim.id == "C6":
        bm, bn = v["decode_tile"]
        return f"{'相同' if v['same'] else '不同'}；decode {bm}×{bn}"
    if claim.id == "C7":
        lo, hi = v["decode_on_others"]
        return f"{v['big_on_decode']:.2f}×；{lo:.1f}–{hi:.1f}×"
    if claim.id == "C8":
        lo, hi = v["smaller"]
        st1, st4, st5 = v["stages"]
        return f"{lo:.2f}–{hi:.2f}×；{_ratio(st1)} → {_ratio(st4)}，5 级 {_ratio(st5)}"
    raise ValueError(f"claim must be one of {tuple(CLAIM_TEXT)}, got {claim.id!r}")


def claim_row(claim) -> tuple[str, str, str, str]:
    """``(id, statement, target, value)`` of ``claim``: the appendix table's text for it."""
    statement, target = CLAIM_TEXT[claim.id]
    return claim.id, statement, target, claim_value(claim)
