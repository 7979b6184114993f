"""The seed lecture's claims C1-C8, evaluated live on the model (for the book's appendix).

``tests/test_seed_claims.py`` checks the same claims independently, with the
tolerances written beside each assertion.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.landscape import landscape
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.studies.sensitivity import sensitivity
from schedlab.studies.shapes import transfer
from schedlab.studies.space import space_summary

__all__ = ["Claim", "seed_claims"]


@dataclass(frozen=True)
class Claim:
    """One claim: what the seed says, the target range we accept, our model's value, and whether it holds."""

    id: str
    statement: str
    target: str
    value: str
    holds: bool


def _fmt_range(lo, hi, unit="×"):
    return f"{lo:g}–{hi:g}{unit}"


def seed_claims(hw: Hardware | None = None) -> tuple[Claim, ...]:
    """Evaluate C1-C8 on ``hw``.

    Examples
    --------
    >>> claims = seed_claims()
    >>> [c.id for c in claims]
    ['C1', 'C2', 'C3', 'C4', 'C5', 'C6', 'C7', 'C8']
    >>> all(c.holds for c in claims)
    True
    """
    hw = check_hardware(hw)
    summary = space_summary(hw)
    square = landscape(LECTURE_SHAPES[0].mnk, hw)
    best_t = square.best_time_s
    claims = []

    frac = summary.launchable_fraction
    claims.append(
        Claim(
            "C1",
            "6000 个组合里能启动 3744 个（62%）",
            "6000 / 3744",
            f"{summary.n_configs} / {summary.n_launchable}（{frac:.0%}）",
            summary.n_configs == 6000 and summary.n_launchable == 3744,
        )
    )

    fastest = {(c.bm, c.bn, c.warps) for c, t in zip(square.configs, square.time_s) if t <= 1.01 * best_t}
    claims.append(
        Claim(
            "C2",
            "4096³ 上最快的配置都是 256×128 的块、8 个 warp",
            "1% 以内全是 256×128、8 warp",
            "、".join(f"{bm}×{bn}/{w} warp" for bm, bn, w in sorted(fastest)),
            fastest == {(256, 128, 8)},
        )
    )

    ties = square.ties()
    claims.append(
        Claim(
            "C3",
            "(BK, stages) = (32,4) (32,5) (64,3) (128,2) 一样快；GROUP_M 不起作用",
            "1% 以内；GROUP_M 影响 ≤ 1%",
            f"最慢 {ties.worst_pair:.3f}×；GROUP_M 最多 {ties.group_spread:.3f}×",
            bool(ties.worst_pair <= 1.01 and ties.group_spread <= 1.01),
        )
    )

    claims.append(
        Claim(
            "C4",
            "最快的约 900 TFLOPS（稠密峰值的九成）",
            "850–950 TFLOPS",
            f"{square.best_tflops:.0f} TFLOPS（{square.best_tflops * 1e12 / hw.peak_flops:.0%}）",
            850 <= square.best_tflops <= 950,
        )
    )

    n5, median = square.n_within(1.05), square.quantiles()[50]
    share = n5 / len(square.configs)
    claims.append(
        Claim(
            "C5",
            "好配置很稀少；随便选一个（中位数）要慢好几倍",
            "5% 以内 ≤ 2%；中位数 ≥ 3×",
            f"{n5} 个（{share:.1%}）；中位数 {median:.2f}×",
            share <= 0.02 and median >= 3,
        )
    )

    tr = transfer(LECTURE_SHAPES, hw)
    decode = tr.optima[3]
    claims.append(
        Claim(
            "C6",
            "前三种形状的最优是同一个配置；decode 的最优是 16×16 的小块",
            "同一配置；BM = BN = 16",
            f"{'相同' if len(set(tr.optima[:3])) == 1 else '不同'}；decode {decode.bm}×{decode.bn}",
            len(set(tr.optima[:3])) == 1 and (decode.bm, decode.bn) == (16, 16),
        )
    )

    big_on_decode = tr.matrix[0, 3]
    decode_on_others = tr.matrix[3, :3]
    claims.append(
        Claim(
            "C7",
            "大 GEMM 的最优用在 decode 上慢约 3 倍；反过来慢 6.6–14 倍",
            f"{_fmt_range(2.5, 3.6)}；{_fmt_range(5.6, 16)}",
            f"{big_on_decode:.2f}×；{decode_on_others.min():.1f}–{decode_on_others.max():.1f}×",
            2.5 <= big_on_decode <= 3.6 and bool(np.all((5.6 <= decode_on_others) & (decode_on_others <= 16))),
        )
    )

    sens = sensitivity(LECTURE_SHAPES[0].mnk, hw=hw)
    r = {k: dict(v) for k, v in sens.ratios.items()}
    steps = [sens.step_down(k) for k in ("bm", "bn")]
    smaller = [step.ratio if step else np.nan for step in steps]  # NaN: no smaller tile, the claim fails
    st = r["stages"]
    holds = (
        all(1.45 <= x <= 3 for x in smaller)
        and np.isinf(r["bm"][16])
        and np.isinf(r["bm"][32])
        and all(np.isinf(r["warps"][w]) for w in (1, 2, 4))
        and abs(st[1] / 3.67 - 1) <= 0.10
        and st[4] == 1.0
        and st[5] == st[4]
        and np.isinf(r["bk"][128])
    )
    claims.append(
        Claim(
            "C8",
            "块小一号慢 1.5–3 倍；stages 1 → 4：3.67 → 1.00，5 级不再变好",
            "1.45–3×；3.67× ± 10%；st5 = st4；BK=128 放不下",
            f"{min(smaller):.2f}–{max(smaller):.2f}×；{_ratio(st[1])} → {_ratio(st[4])}，5 级 {_ratio(st[5])}",
            bool(holds),
        )
    )
    return tuple(claims)


def _ratio(x: float) -> str:
    """A time ratio as the claims table writes it: two decimals, or 不能启动 where the config cannot launch."""
    return f"{x:.2f}" if np.isfinite(x) else "不能启动"
