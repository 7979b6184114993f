"""Table of the statistics page: a family of paired sign tests under the Bonferroni and Holm corrections."""

from __future__ import annotations

from schedlab.render.labels import STRATEGY_LABELS, TUNER_LABELS
from schedlab.render.table import Table
from schedlab.studies.statistics import Correction, PairTest

__all__ = ["fmt_p", "correction_table"]

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def fmt_p(p: float) -> str:
    """A p-value: three decimals, or two significant digits in scientific notation below 0.001.

    Examples
    --------
    >>> fmt_p(0.5681), fmt_p(0.0094), fmt_p(5.6141e-06)
    ('0.568', '0.009', '5.6×10⁻⁶')
    """
    if not 0 <= p <= 1:
        raise ValueError(f"a p-value must lie in [0, 1], got {p!r}")
    if not 0 < p < 0.001:
        return f"{p:.3f}"
    mantissa, exponent = f"{p:.1e}".split("e")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def _label(name: str) -> str:
    return STRATEGY_LABELS.get(name) or TUNER_LABELS[name]


def correction_table(tests: tuple[PairTest, ...], verdicts: tuple[Correction, ...]) -> Table:
    """One row per paired test: wins and losses, the p-value, and whether it passes alone, after Bonferroni, after Holm.

    Examples
    --------
    >>> from schedlab.studies.statistics import PairTest, corrections
    >>> tests = (PairTest("model", "random", 40, 10, 0, 1.2e-5), PairTest("descent", "annealing", 20, 25, 5, 0.55))
    >>> t = correction_table(tests, corrections([t.p_value for t in tests]))
    >>> t.rows[0]
    ('代价模型引导 对 随机搜索', '40\xa0:\xa010\xa0:\xa00', '1.2×10⁻⁵', '是', '是', '0.025', '是')
    """
    if len(tests) != len(verdicts):
        raise ValueError(f"tests and verdicts must pair up, got {len(tests)} and {len(verdicts)}")
    yes = {True: "是", False: "否"}
    rows = [
        (
            f"{_label(t.a)} 对 {_label(t.b)}",
            f"{t.wins}\u00a0:\u00a0{t.losses}\u00a0:\u00a0{t.ties}",  # no-break spaces: one line in a narrow column
            fmt_p(t.p_value),
            yes[v.alone],
            yes[v.bonferroni],
            f"{v.holm_threshold:.3g}",
            yes[v.holm],
        )
        for t, v in zip(tests, verdicts)
    ]
    m = len(tests)
    return Table(
        f"{m} 对配对符号检验：单看（p ≤ 0.05）、Bonferroni（p ≤ 0.05 / {m}）和 Holm（按 p 从小到大，门槛依次放宽）各判哪些显著",
        ("A 对 B", "A 赢 : 输 : 平", "p 值", "单看", "Bonferroni", "Holm 门槛", "Holm"),
        rows,
    )
