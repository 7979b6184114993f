"""The seed lecture's claims C1-C8, evaluated live on the model (for the book's appendix).

Each :class:`Claim` holds the quantities the seed's claim is about, measured on the model, and
whether they fall in the accepted ranges; what each claim says and how its values read is
:mod:`schedlab.render.claims`'s. ``tests/test_seed_claims.py`` checks the same claims
independently, with the tolerances written beside each assertion.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

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
    """One claim: the model's values of the quantities it is about, and whether they are in the accepted range."""

    id: str
    values: Mapping[str, object]
    holds: bool


def _claim(id: str, holds, **values) -> Claim:
    return Claim(id, MappingProxyType(values), bool(holds))


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

    claims.append(
        _claim(
            "C1",
            summary.n_configs == 6000 and summary.n_launchable == 3744,
            n_configs=summary.n_configs,
            n_launchable=summary.n_launchable,
            fraction=summary.launchable_fraction,
        )
    )

    fastest = tuple(
        sorted({(c.bm, c.bn, c.warps) for c, t in zip(square.configs, square.time_s) if t <= 1.01 * best_t})
    )
    claims.append(_claim("C2", set(fastest) == {(256, 128, 8)}, fastest=fastest))

    ties = square.ties()
    claims.append(
        _claim(
            "C3",
            ties.worst_pair <= 1.01 and ties.group_spread <= 1.01,
            worst_pair=ties.worst_pair,
            group_spread=ties.group_spread,
        )
    )

    claims.append(
        _claim(
            "C4",
            850 <= square.best_tflops <= 950,
            tflops=square.best_tflops,
            peak_share=square.best_tflops * 1e12 / hw.peak_flops,
        )
    )

    n5, median = square.n_within(1.05), square.quantiles()[50]
    share = n5 / len(square.configs)
    claims.append(_claim("C5", share <= 0.02 and median >= 3, n_within=n5, share=share, median=median))

    tr = transfer(LECTURE_SHAPES, hw)
    decode = tr.optima[3]
    same = len(set(tr.optima[:3])) == 1
    claims.append(
        _claim("C6", same and (decode.bm, decode.bn) == (16, 16), same=same, decode_tile=(decode.bm, decode.bn))
    )

    big_on_decode = tr.matrix[0, 3]
    decode_on_others = tr.matrix[3, :3]
    claims.append(
        _claim(
            "C7",
            2.5 <= big_on_decode <= 3.6 and bool(np.all((5.6 <= decode_on_others) & (decode_on_others <= 16))),
            big_on_decode=big_on_decode,
            decode_on_others=(decode_on_others.min(), decode_on_others.max()),
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
    claims.append(_claim("C8", holds, smaller=(min(smaller), max(smaller)), stages=(st[1], st[4], st[5])))
    return tuple(claims)
