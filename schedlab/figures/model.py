"""Figures of the model page: where one configuration's time goes (:func:`schedlab.core.model.explain`),
the registers Triton's compiler gives a configuration against the lecture's account, and how the model
ranks real Triton times (:func:`schedlab.studies.triton_check.h200_checks`)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from schedlab.core.hardware import Hardware
from schedlab.core.launch import launchable
from schedlab.core.model import TERMS, Breakdown
from schedlab.core.resources import accumulator_registers, registers_per_thread
from schedlab.figures.style import fmt_times, new_figure, text_color
from schedlab.render.labels import TERM_LABELS
from schedlab.studies.triton_check import WITHIN, RankCheck

__all__ = ["breakdown_chart", "registers_chart", "timing_check_chart", "overlap_sweep_chart"]


# --- one configuration: where its time goes ---------------------------------------------


def breakdown_chart(breakdown: Breakdown) -> Figure:
    """Horizontal bars of the six per-k-step terms (first wave), in ns, bottleneck highlighted.

    A dashed line marks the k-step time the model charges (``t_step_s``); terms tied
    with the bottleneck are labelled as such.

    Parameters
    ----------
    breakdown : Breakdown
        Output of :func:`schedlab.core.model.explain`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; ``ax.containers[0]`` holds the bars in :data:`schedlab.core.model.TERMS` order.
    """
    terms = breakdown.terms()
    names = list(TERMS)
    ns = np.array([terms[k] * 1e9 for k in names])
    top = ns[names.index(breakdown.bottleneck)]
    fig = new_figure(0.56)
    ax = fig.subplots()
    ys = np.arange(len(names))
    colors = ["C1" if k == breakdown.bottleneck else "#9fb7cc" for k in names]
    bars = ax.barh(ys, ns, height=0.62, color=colors)
    ax.set_yticks(ys, [TERM_LABELS[k] for k in names])
    ax.invert_yaxis()
    step_ns = breakdown.t_step_s * 1e9
    x_max = max(float(np.nanmax(ns)), step_ns)
    ax.set_xlim(0, x_max * 1.1)
    for rect, k, v in zip(bars, names, ns):
        note = ""
        if k == breakdown.bottleneck:
            note = "  ← 瓶颈"
        elif np.isclose(v, top, rtol=1e-9):
            note = "  （与瓶颈持平）"
        # the values form a column right of the axes, one line each, so no label crosses the
        # k-step line or another row (the layout makes room for the column)
        ax.text(
            1.03,
            rect.get_y() + rect.get_height() / 2,
            f"{v:.1f} ns{note}",
            va="center",
            fontsize=9,
            color=text_color("C1") if k == breakdown.bottleneck else "#222222",
            transform=ax.get_yaxis_transform(),
        )
    ax.axvline(step_ns, color="#555555", linestyle="--", linewidth=1.0)
    ax.text(
        step_ns,
        -0.9,
        f"每个 k 步 {step_ns:.1f} ns",
        ha="center",
        va="bottom",
        fontsize=9,
        color="#444444",
        bbox=dict(facecolor="white", edgecolor="none", pad=1.0),
    )
    ax.set_ylim(len(names) - 0.5, -1.7)  # room above the bars for the k-step label, apart from the title
    ax.grid(axis="y", visible=False)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel("每个 k 步的时间（ns，第一波）")
    M, N, K = breakdown.shape
    ax.set_title(
        f"{breakdown.config.as_tuple()} 在 {M}×{N}×{K} 上：{breakdown.tflops:.0f} TFLOPS，\n"
        f"{breakdown.waves} 波 × {breakdown.k_steps} 步，每 SM {breakdown.blocks_per_sm} 块",
        fontsize=10,
    )
    return fig


# --- registers: the compiler's record against the lecture's account -----------------------------------


def registers_chart(hw: Hardware, lecture_base: int) -> Figure:
    """Registers per thread Triton compiled (y) against the accumulator's (x), one dot per launchable tile on ``hw``.

    Dots are coloured by num_warps; a dashed line is the lecture's account, the accumulator plus
    ``lecture_base``; a dotted line the most a thread may hold (``hw.max_regs_per_thread``: above it
    ptxas spills). Configurations differing only in GROUP_M are one dot.

    Parameters
    ----------
    hw : Hardware
        A profile under Triton's rules (its registers come from
        :func:`schedlab.core.compiler_record.compiled_resources`).
    lecture_base : int
        The lecture's registers besides the accumulator (``H100_TC.base_regs_per_thread``).

    Returns
    -------
    matplotlib.figure.Figure
        One axes; ``ax.collections`` holds one scatter per warp count, in increasing order.
    """
    arr = np.unique(launchable(hw).array[:, :5], axis=0)
    arr = np.column_stack([arr, np.ones(len(arr), dtype=arr.dtype)])
    acc = accumulator_registers(arr, hw)
    regs = registers_per_thread(arr, hw)
    fig = new_figure(0.62)
    ax = fig.subplots()
    for i, warps in enumerate(sorted(set(arr[:, 3].tolist()))):
        at = arr[:, 3] == warps
        ax.scatter(acc[at], regs[at], s=14, alpha=0.55, color=f"C{i}", label=f"{warps} 个 warp", linewidths=0)
    xs = np.array([float(acc.min()), float(acc.max())])
    ax.plot(xs, np.minimum(xs + lecture_base, hw.max_regs_per_thread), "--", color="#444444", linewidth=1.2,
            label=f"讲义的估计：累加器 + {lecture_base}")  # fmt: skip
    ax.axhline(hw.max_regs_per_thread, color="#777777", linestyle=":", linewidth=1.0)
    ax.text(xs[0], hw.max_regs_per_thread + 4, f"每线程上限 {hw.max_regs_per_thread}，再多就溢出", fontsize=9,
            color="#444444", va="bottom")  # fmt: skip
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, hw.max_regs_per_thread + 30)
    ax.set_xlabel("每线程的累加器寄存器（个，对数轴）")
    ax.set_ylabel("编译出来的寄存器（个）")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.01), ncol=3, fontsize=9)  # above: dots fill the axes
    return fig


def timing_check_chart(checks: dict[str, RankCheck], labels: dict[str, str]) -> Figure:
    """Per shape, the model's first pick against the measured best (top) and its time of that best (bottom).

    x is the measured best time of the shape (µs, log axis); top, the regret (measured time of the
    model's first pick over the best) with a dashed line at :data:`~schedlab.studies.triton_check.WITHIN`;
    bottom, the model's time of the measured best over its measured time, with a dashed line at 1.

    Parameters
    ----------
    checks : dict of RankCheck
        The model's checks to draw, one colour each, in order (e.g. ``"main"`` and ``"holdout"`` of
        :func:`~schedlab.studies.triton_check.h200_checks`).
    labels : dict of str
        The legend's name for each key of ``checks``.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes; each holds one scatter per check, in order.
    """
    fig = new_figure(0.9)
    top, bottom = fig.subplots(2, 1, sharex=True)
    markers = ("o", "s", "^", "D")
    for i, (key, check) in enumerate(checks.items()):
        best_us = 1e6 * check.best_s
        style = dict(s=22, alpha=0.75, color=f"C{i}", marker=markers[i % len(markers)], linewidths=0, label=labels[key])
        top.scatter(best_us, check.regret, **style)
        bottom.scatter(best_us, check.model_over_measured, **style)
    top.axhline(WITHIN, color="#444444", linestyle="--", linewidth=1.0)
    bottom.axhline(1.0, color="#444444", linestyle="--", linewidth=1.0)
    top.set_ylabel("首选的实测时间 / 最优")
    bottom.set_ylabel("模型 / 实测（最优配置）")
    bottom.set_yscale("log")
    bottom.set_ylim(0.6, 1.8)
    bottom.set_yticks([0.7, 1.0, 1.4], minor=False)
    bottom.yaxis.set_minor_formatter("")
    for ax in (top, bottom):
        ax.yaxis.set_major_formatter(fmt_times)
    bottom.set_xscale("log")
    bottom.set_xlabel("形状上实测最快的时间（µs，对数轴）")
    top.legend(loc="lower center", bbox_to_anchor=(0.5, 1.01), ncol=len(checks), fontsize=9)
    return fig


def overlap_sweep_chart(sweep: dict[float, dict[str, RankCheck]], labels: dict[str, str], chosen: float) -> Figure:
    """What the pipeline overlap trades: per set, the first picks within 10 % (left) and the level (right).

    x is the overlap ``p`` (:func:`~schedlab.studies.triton_check.overlap_sweep`); left, the share of the
    set's shapes whose first pick is within :data:`~schedlab.studies.triton_check.WITHIN` of the best; right,
    the median over its shapes of the model's time of the measured best over its measured time (log axis,
    dashed at 1). A dotted line marks ``chosen``, the profile's overlap.

    Parameters
    ----------
    sweep : dict
        ``{overlap: {set key: RankCheck}}``, as :func:`~schedlab.studies.triton_check.overlap_sweep` returns it.
    labels : dict of str
        The legend's name for each set key.
    chosen : float
        The overlap the profile holds.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes; each holds one line per set, in the order of ``sweep``'s first entry.
    """
    if not sweep:
        raise ValueError("sweep holds no overlap to draw")
    fig = new_figure(0.5)
    picks, level = fig.subplots(1, 2)
    overlaps = sorted(sweep)
    markers = ("o", "s", "^", "D")
    for i, key in enumerate(sweep[overlaps[0]]):
        style = dict(color=f"C{i}", marker=markers[i % len(markers)], markersize=5, label=labels[key])
        picks.plot(overlaps, [100 * sweep[p][key].within for p in overlaps], **style)
        level.plot(overlaps, [np.median(sweep[p][key].model_over_measured) for p in overlaps], **style)
    level.axhline(1.0, color="#444444", linestyle="--", linewidth=1.0)
    level.set_yscale("log")
    level.yaxis.set_major_formatter(fmt_times)
    level.yaxis.set_minor_formatter(fmt_times)
    for ax in (picks, level):
        ax.axvline(chosen, color="#444444", linestyle=":", linewidth=1.0)
        ax.set_xlabel("流水线藏住的比例 p")
    picks.set_ylabel("首选在一成以内（%）")
    level.set_ylabel("模型 / 实测（中位数）")
    fig.legend(*picks.get_legend_handles_labels(), loc="outside upper center", ncol=len(labels), fontsize=9)
    return fig
