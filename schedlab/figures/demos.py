"""Figures of the four demos, the roofline and ``explain``: which configurations launch, the
landscape, shape transfer, one knob at a time, where the optima sit, where one time goes."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import LogNorm, Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, PercentFormatter

from schedlab.core.hardware import H100_TC, Hardware
from schedlab.core.landscape import Landscape
from schedlab.core.model import TERMS, Breakdown
from schedlab.core.space import SPACE, WARP_GRID, all_configs, as_mnk, config_array, launch_checks, reasons
from schedlab.figures.style import fmt_times, new_figure
from schedlab.render.labels import KNOB_GLOSSES, KNOB_LABELS, lecture_name, shape_short
from schedlab.studies.sensitivity import Sensitivity
from schedlab.studies.shapes import Transfer

__all__ = [
    "REASON_STYLE",
    "launch_map",
    "landscape_cdf",
    "transfer_heatmap",
    "sensitivity_chart",
    "roofline",
    "breakdown_chart",
]


#: Launch-map cell of a (BM, BN, warps) that cannot launch, per pruning code: (face colour, short label).
REASON_STYLE = {
    "mma": ("#d4d4d4", "小于\nmma"),
    "registers": ("#f3c9a5", "寄存器\n不够"),
    "smem": ("#c9dcee", "共享\n内存"),
}
_INFEASIBLE = "#9a9a9a"  # hatch colour of "不能启动"


# --- demo 1: which configurations launch -----------------------------------------------


def _launch_grid(hw: Hardware):
    """Counts per (bm, bn, warps) of launchable (bk, stages) pairs, and per-code 'fails everywhere' masks."""
    configs = all_configs()
    dims = tuple(len(v) for v in SPACE.values())
    axis = {k: j for j, k in enumerate(SPACE)}
    checks = launch_checks(config_array(configs), hw)
    failed = {code: mask.reshape(dims) for code, mask in checks.items()}
    ok = ~np.any(np.stack(list(failed.values())), axis=0)
    # a (bk, stages) pair launches when it launches for every GROUP_M (launch does not depend on it)
    pair_ok = ok.all(axis=axis["group"])
    counts = pair_ok.sum(axis=(axis["bk"], axis["stages"]))  # -> (bm, bn, warps)
    n_pairs = dims[axis["bk"]] * dims[axis["stages"]]
    other = (axis["bk"], axis["stages"], axis["group"])
    everywhere = {code: m.all(axis=other) for code, m in failed.items()}  # (bm, bn, warps)
    somewhere = {code: m.any(axis=other) for code, m in failed.items()}
    messages = {}
    for code, m in checks.items():
        if m.any():
            example = configs[int(np.argmax(m))]
            messages[code] = next(r.message for r in reasons(example, hw) if r.code == code)
    return counts, n_pairs, everywhere, somewhere, messages


def launch_map(hw: Hardware = H100_TC) -> Figure:
    """Which (BM, BN, num_warps) can launch, and why not.

    One panel per ``num_warps`` (rows BM, columns BN). A cell shows how many of the
    ``BK × num_stages`` pairs launch; a cell where none does is filled by the reason
    that rules out every pair (warp tile smaller than one mma, or registers).
    Computed from :func:`schedlab.core.space.launch_checks`.

    Parameters
    ----------
    hw : Hardware
        Machine whose limits prune the space.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per ``num_warps`` value; ``ax.images[0]`` holds the launchable fraction
        (masked where it is 0).
    """
    counts, n_pairs, everywhere, somewhere, messages = _launch_grid(hw)
    bms, bns, warps = SPACE["bm"], SPACE["bn"], SPACE["warps"]
    fig = new_figure(1.08)
    axes = fig.subplots(2, 2, sharex=True, sharey=True).ravel()
    cmap = colormaps["Greens"]
    norm = Normalize(vmin=-0.6, vmax=2.4)  # light greens: black text stays readable, 1/20 still green
    used = set()
    for w_i, (ax, w) in enumerate(zip(axes, warps)):
        frac = counts[:, :, w_i] / n_pairs
        ax.imshow(np.ma.masked_equal(frac, 0.0), cmap=cmap, norm=norm, aspect="equal")
        for i in range(len(bms)):
            for j in range(len(bns)):
                n = int(counts[i, j, w_i])
                if n:
                    ax.text(j, i, f"{n}/{n_pairs}", ha="center", va="center", fontsize=8, color="#1a1a1a")
                    continue
                codes = [c for c in everywhere if everywhere[c][i, j, w_i]] or [
                    c for c in somewhere if somewhere[c][i, j, w_i]
                ]
                code = codes[0]
                used.add(code)
                face, label = REASON_STYLE.get(code, ("#dddddd", code))
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=face, edgecolor="none", linewidth=0.0))
                ax.text(j, i, label, ha="center", va="center", fontsize=7, color="#333333", linespacing=1.0)
        wy, wx = WARP_GRID[w]
        ax.set_title(f"num_warps = {w}（warp 排成 {wy}×{wx}）", fontsize=10)
        ax.set_xticks(range(len(bns)), [str(v) for v in bns])
        ax.set_yticks(range(len(bms)), [str(v) for v in bms])
        ax.set_xticks(np.arange(len(bns) + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(len(bms) + 1) - 0.5, minor=True)
        ax.tick_params(which="both", length=0)
        ax.grid(False)
        ax.set_axisbelow(False)  # the white cell borders go over the image and the reason patches
        ax.grid(which="minor", color="white", linewidth=1.5)
        for spine in ax.spines.values():
            spine.set_visible(False)
    for ax in axes[2:]:
        ax.set_xlabel("BLOCK_N")
    for ax in axes[::2]:
        ax.set_ylabel("BLOCK_M")
    partial_codes = [
        c for c in somewhere if np.any(somewhere[c] & (counts > 0))
    ]  # why some pairs of a launchable cell fail
    handles = [
        Patch(facecolor=REASON_STYLE.get(c, ("#dddddd",))[0], edgecolor="none", label=messages[c])
        for c in everywhere
        if c in used
    ]
    handles.append(
        Patch(
            facecolor=cmap(norm(0.6)),
            edgecolor="none",
            label=f"n/{n_pairs}：BK × stages 的 {n_pairs} 种组合里能启动 n 种"
            + ("；其余" + "、".join(messages[c] for c in partial_codes) if partial_codes else ""),
        )
    )
    fig.legend(handles=handles, loc="outside lower center", ncol=1, fontsize=8.5)
    fig.suptitle("哪些 (BLOCK_M, BLOCK_N, num_warps) 能启动")
    return fig


# --- demo 2: the landscape --------------------------------------------------------------


def landscape_cdf(landscape: Landscape) -> Figure:
    """Distribution of time/best over the launchable configurations (CDF, log x).

    Vertical lines at 1.05× and 2× carry :meth:`Landscape.n_within`; the median
    (:meth:`Landscape.quantiles`) is marked on the curve.

    Parameters
    ----------
    landscape : Landscape
        Model times of every launchable configuration on one shape.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; ``ax.lines[0]`` is the CDF (x: sorted time/best, y: cumulative fraction).
    """
    ratio = np.sort(np.asarray(landscape.ratio, dtype=float))
    n = ratio.size
    frac = np.arange(1, n + 1) / n
    fig = new_figure(4 / 7)
    ax = fig.subplots()
    ax.step(ratio, frac, where="post", color="C0", linewidth=1.8, label="配置的累积比例")
    ax.set_xscale("log")
    ax.set_xlim(0.95, ratio[-1] * 1.15)
    ax.set_ylim(0, 1.09)
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(fmt_times))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_yticks(np.linspace(0, 1, 6))

    for factor, y_text, color in ((1.05, 0.92, "C2"), (2.0, 0.76, "C1")):
        k = landscape.n_within(factor)
        ax.axvline(factor, color=color, linestyle="--", linewidth=1.2)
        ax.text(
            factor * 1.04,
            y_text,
            f"{factor:g}× 以内：{k} 个（{k / n:.1%}）",
            color=color,
            fontsize=9,
            va="center",
            bbox=dict(facecolor="white", edgecolor="none", pad=1.0),
        )
        ax.plot([factor], [k / n], "o", color=color, markersize=5, zorder=3)
    median = landscape.quantiles((50,))[50]
    ax.plot([median], [0.5], "o", color="C3", markersize=6, zorder=3)
    ax.annotate(
        f"中位数：慢 {median:.2f} 倍",
        xy=(median, 0.5),
        xytext=(median * 1.5, 0.38),
        fontsize=9,
        color="C3",
        arrowprops=dict(arrowstyle="-", color="C3", linewidth=0.8),
    )
    ax.annotate(
        f"最慢 {ratio[-1]:.1f}×",
        xy=(ratio[-1], 1.0),
        xytext=(0, 4),
        textcoords="offset points",
        ha="right",
        va="bottom",
        fontsize=8.5,
        color="#444444",
    )
    ax.set_xlabel("时间 / 最快配置的时间（对数坐标）")
    ax.set_ylabel("配置的累积比例")
    ax.set_title(f"{lecture_name(landscape.shape)}：{n} 个能启动的配置离最快有多远")
    return fig


# --- demo 3: shape transfer -------------------------------------------------------------


def transfer_heatmap(transfer: Transfer) -> Figure:
    """The transfer matrix as a heat map with a log colour scale.

    Cell ``(i, j)`` is the time of shape ``i``'s optimum on shape ``j`` over shape
    ``j``'s own best (``transfer.matrix``), annotated ``f"{x:.2f}"``.

    Parameters
    ----------
    transfer : Transfer
        Optima per shape and their cross costs.

    Returns
    -------
    matplotlib.figure.Figure
        The heat map (``ax.images[0]`` holds the matrix) and its colour bar.
    """
    m = np.asarray(transfer.matrix, dtype=float)
    names = [shape_short(s) for s in transfer.shapes]
    finite = m[np.isfinite(m)]
    vmin = min(1.0, float(finite.min())) if finite.size else 1.0
    vmax = max(float(finite.max()) if finite.size else 1.0, vmin * 1.01)
    norm = LogNorm(vmin=vmin, vmax=vmax)
    cmap = colormaps["OrRd"].with_extremes(bad="#e6e6e6")
    fig = new_figure(min(0.45 + 0.04 * len(names), 0.9))
    ax = fig.subplots()
    im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, norm=norm, aspect="auto")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            x = m[i, j]
            if np.isfinite(x):
                ax.text(
                    j,
                    i,
                    f"{x:.2f}",
                    ha="center",
                    va="center",
                    fontsize=11,
                    color="white" if norm(x) > 0.6 else "#1a1a1a",
                )
            else:
                ax.text(j, i, "不能启动", ha="center", va="center", fontsize=9, color="#555555")
    rows = [f"{name}\n{opt.as_tuple()}" for name, opt in zip(names, transfer.optima)]
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), rows, fontsize=8.5)
    ax.xaxis.set_ticks_position("top")
    ax.xaxis.set_label_position("top")
    ax.tick_params(length=0)
    ax.set_xlabel("用在")
    ax.set_ylabel("最优配置来自")
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    cbar = fig.colorbar(im, ax=ax, fraction=0.05, pad=0.02)
    cbar.set_label("时间 / 该列形状自己的最优（对数色标）")
    cbar.ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    cbar.ax.yaxis.set_major_formatter(FuncFormatter(fmt_times))
    cbar.ax.yaxis.set_minor_formatter(NullFormatter())
    cbar.ax.grid(False)
    cbar.outline.set_visible(False)
    ax.set_title("把一种形状的最优配置用在另一种形状上：慢几倍", pad=10)
    return fig


# --- demo 4: one knob at a time ---------------------------------------------------------


def sensitivity_chart(sensitivity: Sensitivity) -> Figure:
    """One panel per knob: time/base for each of its values, the other knobs at the base.

    Bars (log y, shared) give ``time / base`` for the values that launch, annotated;
    values that cannot launch are a hatched column labelled 不能启动; the base
    configuration's own value is the highlighted bar.

    Parameters
    ----------
    sensitivity : Sensitivity
        Output of :func:`schedlab.studies.sensitivity.sensitivity`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per knob, in ``SPACE`` order; ``ax.containers[0]`` holds the finite bars.
    """
    knobs = list(sensitivity.ratios)
    finite = np.array([r for k in knobs for _, r in sensitivity.ratios[k] if np.isfinite(r)] or [1.0])
    lo = min(1.0, float(finite.min())) / 1.25
    hi = max(1.0, float(finite.max())) * 1.9
    ncols = 3
    nrows = -(-len(knobs) // ncols)
    fig = new_figure(0.36 * nrows + 0.08)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, sharey=True)).ravel()
    base = dict(zip(SPACE, sensitivity.base.as_tuple()))
    for ax, knob in zip(axes, knobs):
        pairs = sensitivity.ratios[knob]
        xs = np.arange(len(pairs))
        ok = [(x, v, r) for x, (v, r) in zip(xs, pairs) if np.isfinite(r)]
        colors = ["C1" if v == base.get(knob) else "C0" for _, v, _ in ok]
        ax.set_yscale("log")
        ax.set_ylim(lo, hi)
        bars = ax.bar([x for x, _, _ in ok], [r for _, _, r in ok], width=0.7, color=colors)
        for rect, (_, _, r) in zip(bars, ok):
            ax.text(rect.get_x() + rect.get_width() / 2, r * 1.06, f"{r:.2f}", ha="center", va="bottom", fontsize=7.5)
        for x, (_, r) in zip(xs, pairs):
            if not np.isfinite(r):
                ax.axvspan(x - 0.35, x + 0.35, facecolor="none", edgecolor=_INFEASIBLE, hatch="///", linewidth=0.0)
                ax.text(
                    x,
                    np.sqrt(lo * hi),
                    "不能启动",
                    rotation=90,
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="#444444",
                    bbox=dict(facecolor="white", edgecolor="none", pad=1.0),
                )
        ax.axhline(1.0, color="#555555", linewidth=0.8, zorder=0.5)
        ax.set_xticks(xs, [str(v) for v, _ in pairs])
        for label, (v, _) in zip(ax.get_xticklabels(), pairs):
            if v == base.get(knob):
                label.set_color("C1")
        ax.set_xlim(-0.6, len(pairs) - 0.4)
        ax.grid(axis="x", visible=False)
        name, gloss = KNOB_LABELS.get(knob, knob), KNOB_GLOSSES.get(knob, "")
        ax.set_title(f"{name}（{gloss}）" if gloss else name, fontsize=10)
    ax0 = axes[0]
    ax0.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax0.yaxis.set_major_formatter(FuncFormatter(fmt_times))
    ax0.yaxis.set_minor_formatter(NullFormatter())
    for ax in axes[::ncols]:
        ax.set_ylabel("时间 / 基准")
    for ax in axes[len(knobs) :]:
        ax.set_visible(False)
    handles = [
        Patch(facecolor="C1", label="基准配置的取值"),
        Patch(facecolor="C0", label="改成这个取值"),
        Patch(facecolor="none", edgecolor=_INFEASIBLE, hatch="///", label="不能启动"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=3)
    fig.suptitle(f"在 {sensitivity.base.as_tuple()} 附近一次只改一个旋钮：{lecture_name(sensitivity.shape)}")
    return fig


# --- where the optima sit: roofline -----------------------------------------------------


def roofline(transfer: Transfer, hw: Hardware = H100_TC) -> Figure:
    """Log-log roofline with each shape's optimum at its model TFLOPS.

    The arithmetic intensity uses the minimum HBM traffic, each operand read or
    written once: ``2 M N K / ((M K + K N + M N) * bytes_per_element)``.

    Parameters
    ----------
    transfer : Transfer
        Gives the shapes and their optima's TFLOPS (``transfer.best_tflops``).
    hw : Hardware
        Gives the compute roof (``peak_flops``) and the HBM roof (``hbm_bw_bytes_per_s``).

    Returns
    -------
    matplotlib.figure.Figure
        One axes; the shapes are ``ax.collections[0]`` (offsets: intensity, TFLOPS).
    """
    mnk = np.array([as_mnk(s) for s in transfer.shapes], dtype=float)
    M, N, K = mnk.T
    intensity = 2 * M * N * K / ((M * K + K * N + M * N) * hw.bytes_per_element)
    achieved = np.asarray(transfer.best_tflops, dtype=float)
    peak = hw.peak_flops / 1e12
    bw = hw.hbm_bw_bytes_per_s / 1e12  # TB/s = TFLOP/s per FLOP/byte
    ridge = peak / bw
    x_lo = 10 ** np.floor(np.log10(min(intensity.min(), ridge) / 2))
    x_hi = 10 ** np.ceil(np.log10(max(intensity.max(), ridge) * 2))
    xs = np.geomspace(x_lo, x_hi, 400)
    fig = new_figure(4.4 / 7)
    ax = fig.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.plot(xs, np.minimum(bw * xs, peak), color="#333333", linewidth=2.0, label="屋顶", zorder=2)
    ax.plot(xs[xs > ridge], bw * xs[xs > ridge], color="#333333", linewidth=0.8, linestyle=":", zorder=1)
    y_lo = 10 ** np.floor(np.log10(achieved.min() / 2))
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, peak * 3)
    ax.text(x_hi / 1.15, peak * 1.12, f"Tensor Core 峰值 {peak:.0f} TFLOPS", ha="right", va="bottom", fontsize=9)
    # the HBM label lies along its roof: the roof's direction in data units is (1, bw)
    x_bw = max(x_lo * 1.5, y_lo / bw * 1.3)
    ax.text(
        x_bw,
        bw * x_bw * 1.25,
        f"HBM {hw.hbm_bw_bytes_per_s / 1e12:.2f} TB/s",
        ha="left",
        va="bottom",
        fontsize=9,
        rotation=np.degrees(np.arctan2(bw, 1.0)),
        transform_rotates_text=True,
        rotation_mode="anchor",
    )
    ax.axvline(ridge, color="#999999", linewidth=0.8, linestyle="--", zorder=1)
    ax.text(ridge * 1.08, y_lo * 1.15, f"脊点 {ridge:.0f} FLOP/B", fontsize=8.5, color="#666666", va="bottom")
    ax.scatter(intensity, achieved, s=42, color="C1", edgecolor="white", linewidth=0.8, zorder=3)
    roof = np.minimum(bw * intensity, peak)
    # a memory-bound point is labelled above its roof, in the empty upper left; points near or
    # past the ridge crowd under the compute roof, so their labels are stacked in a column under
    # the HBM roof left of the ridge, each with a leader line
    crowded = intensity >= ridge / 2
    y_label = peak / 6
    for i in np.argsort(intensity):
        text = f"{shape_short(transfer.shapes[i])}\n{achieved[i]:.0f} TFLOPS（屋顶的 {achieved[i] / roof[i]:.0%}）"
        if crowded[i]:
            ax.annotate(
                text,
                xy=(intensity[i], achieved[i]),
                xytext=(ridge / 1.3, y_label),
                ha="right",
                va="center",
                fontsize=8.5,
                linespacing=1.15,
                arrowprops=dict(
                    arrowstyle="-", color="#888888", linewidth=0.7, shrinkA=3, shrinkB=4, relpos=(1.0, 0.5)
                ),
            )
            y_label *= 0.42
        else:
            ax.annotate(
                text,
                xy=(intensity[i], achieved[i]),
                xytext=(-10, 10),
                textcoords="offset points",
                ha="right",
                va="bottom",
                fontsize=8.5,
                linespacing=1.15,
            )
    ax.set_xlabel("算术强度（FLOP / 字节；字节按最少的 HBM 流量 (MK + KN + MN) × 2）")
    ax.set_ylabel("TFLOPS")
    ax.grid(True, which="major")
    ax.set_title("屋顶线：每种形状的最优配置（模型）在哪里")
    return fig


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
    fig = new_figure(3.3 / 7)
    ax = fig.subplots()
    ys = np.arange(len(names))
    colors = ["C1" if k == breakdown.bottleneck else "#9fb7cc" for k in names]
    bars = ax.barh(ys, ns, height=0.62, color=colors)
    ax.set_yticks(ys, [TERMS[k] for k in names])
    ax.invert_yaxis()
    step_ns = breakdown.t_step_s * 1e9
    x_max = max(float(np.nanmax(ns)), step_ns)
    ax.set_xlim(0, x_max * 1.45)
    for rect, k, v in zip(bars, names, ns):
        note = ""
        if k == breakdown.bottleneck:
            note = "  ← 瓶颈"
        elif np.isclose(v, top, rtol=1e-9):
            note = "  （与瓶颈持平）"
        # the values form a column right of the k-step line, so no label crosses it
        ax.text(
            x_max * 1.025,
            rect.get_y() + rect.get_height() / 2,
            f"{v:.1f} ns{note}",
            va="center",
            fontsize=8.5,
            color="C1" if k == breakdown.bottleneck else "#222222",
        )
    ax.axvline(step_ns, color="#555555", linestyle="--", linewidth=1.0)
    ax.text(
        step_ns,
        -0.75,
        f"每个 k 步 {step_ns:.1f} ns",
        ha="center",
        va="bottom",
        fontsize=8.5,
        color="#444444",
        bbox=dict(facecolor="white", edgecolor="none", pad=1.0),
    )
    ax.set_ylim(len(names) - 0.5, -1.1)
    ax.grid(axis="y", visible=False)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel("每个 k 步的时间（ns，第一波）")
    M, N, K = breakdown.shape
    ax.set_title(
        f"{breakdown.config.as_tuple()} 在 {M}×{N}×{K} 上：{breakdown.tflops:.0f} TFLOPS，"
        f"{breakdown.waves} 波 × {breakdown.k_steps} 步，每 SM {breakdown.blocks_per_sm} 块",
        fontsize=10,
    )
    return fig
