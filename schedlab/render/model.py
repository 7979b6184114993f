"""Tables of the model page: where one configuration's time goes (:func:`schedlab.core.model.explain`), and how the model ranks real times."""

from __future__ import annotations

import math

from schedlab.core.model import Breakdown
from schedlab.render.labels import TERM_LABELS, fmt_shape
from schedlab.render.table import Table, fmt_config, fmt_percent, fmt_tflops, fmt_time
from schedlab.studies.triton_check import RankCheck

__all__ = ["breakdown_table", "breakdown_summary_table", "SET_LABELS", "CHECK_LABELS", "timing_check_table"]


# --- explain: where the time goes ---------------------------------------------------------


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)


def breakdown_table(bd: Breakdown) -> Table:
    """The six per-k-step terms of the first wave, their share of the step, and the bottleneck.

    The step is the largest term (or, with one stage, latency plus the largest other term),
    so a share is ``term / step``; terms equal to the bottleneck are marked as ties.

    Examples
    --------
    >>> from schedlab.core.knobs import GemmConfig
    >>> from schedlab.core.model.engine import explain
    >>> best = GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1)
    >>> t = breakdown_table(explain(best, 4096, 4096, 4096))
    >>> t.headers
    ('项', '含义', '每步时间', '占一步', '')
    >>> t.rows[0]
    ('t_tc_s', 'Tensor Core 计算', '280 ns', '100%', '◀ 瓶颈')
    >>> t.rows[1][-1]
    '= 瓶颈（持平）'
    """
    terms = bd.terms()
    worst = terms[bd.bottleneck]
    rows = []
    for name, label in TERM_LABELS.items():
        t = terms[name]
        if name == bd.bottleneck:
            mark = "◀ 瓶颈"
        elif _same(t, worst):
            mark = "= 瓶颈（持平）"
        else:
            mark = ""
        rows.append((name, label, fmt_time(t), fmt_percent(t / bd.t_step_s), mark))
    title = (
        f"{fmt_config(bd.config)} 在 {fmt_shape(bd.shape)} 上：每个 k 步 {fmt_time(bd.t_step_s)}，"
        f"瓶颈是\u201c{TERM_LABELS[bd.bottleneck]}\u201d"
    )
    return Table(title, ("项", "含义", "每步时间", "占一步", ""), rows)


def breakdown_summary_table(bd: Breakdown) -> Table:
    """Grid, occupancy, waves and the whole time of one configuration on one shape.

    Examples
    --------
    >>> from schedlab.core.knobs import GemmConfig
    >>> from schedlab.core.model.engine import explain
    >>> best = GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1)
    >>> t = breakdown_summary_table(explain(best, 4096, 4096, 4096))
    >>> dict(t.rows)["波数"], dict(t.rows)["总时间"], dict(t.rows)["TFLOPS"]
    ('4', '149.0 µs', '922')
    """
    rows = [
        ("块数（网格）", str(bd.blocks)),
        ("每个 SM 驻留的块", str(bd.blocks_per_sm)),
        ("波数", str(bd.waves)),
        ("k 步数", str(bd.k_steps)),
        ("每步时间（第一波）", fmt_time(bd.t_step_s)),
        ("流水线填充（各波合计）", fmt_time(bd.fill_s)),
        *([("主循环前的指令（各波合计）", fmt_time(bd.preamble_s))] if bd.preamble_s > 0 else []),
        ("收尾写 C（各波合计）", fmt_time(bd.epilogue_s)),
        ("HBM 流量", f"{bd.bytes_hbm / 2**20:.1f} MiB"),
        ("总时间", fmt_time(bd.time_s)),
        ("TFLOPS", fmt_tflops(bd.tflops)),
    ]
    return Table(f"{fmt_config(bd.config)} 在 {fmt_shape(bd.shape)} 上", ("量", "值"), rows)


#: Each H200 shape set's name (the keys of :data:`schedlab.studies.triton_check.H200_SETS`).
SET_LABELS = {"main": "主集", "holdout": "留出集", "fresh": "新集"}

#: What each of :func:`schedlab.studies.triton_check.h200_checks`' checks is, as the timing table labels it.
CHECK_LABELS = {
    check: f"{who}，{name}"
    for key, name in SET_LABELS.items()
    for check, who in ((key, "模型"), (f"{key}-repeat", "再测一遍"))
}


def timing_check_table(checks: dict[str, RankCheck]) -> Table:
    """One row per check (:data:`CHECK_LABELS`): how well it ranks each shape's configurations against the measured times.

    Examples
    --------
    >>> from schedlab.studies.triton_check import h200_checks
    >>> t = timing_check_table(h200_checks())
    >>> t.headers[:3], [row[0] for row in t.rows]
    (('谁来排', '形状', '首选在最优的 10% 以内'), ['模型，主集', '再测一遍，主集', '模型，留出集', '再测一遍，留出集', '模型，新集', '再测一遍，新集'])
    """
    rows = []
    for key, check in checks.items():
        rows.append(
            (
                CHECK_LABELS[key],
                str(len(check.shapes)),
                f"{check.n_within}（{fmt_percent(check.within)}）",
                f"{check.median_spearman:.2f}",
                fmt_percent(float(check.top4.mean())),
                fmt_percent(float(check.top8.mean())),
                fmt_percent(check.kept, 1),
                f"{check.median_abs_log_ratio:.2f}",
            )
        )
    headers = (
        "谁来排",
        "形状",
        "首选在最优的 10% 以内",
        "Spearman 中位数",
        "前 4 含最优（5% 内）",
        "前 8 含最优（5% 内）",
        "首选保住的性能",
        "模型 / 实测，|log| 中位数",
    )
    return Table("H200 上 Triton 的真实计时：模型怎么给每个形状的配置排序", headers, rows)
