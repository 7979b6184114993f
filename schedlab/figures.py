"""Figures of the lecture: analysis records in, :class:`matplotlib.figure.Figure` out.

Every function here is pure: it reads the records of :mod:`schedlab.analysis`
(or asks :mod:`schedlab.space` which configurations launch) and draws them; no
number is computed twice. The figures are built with :class:`~matplotlib.figure.Figure`
directly, not through :mod:`matplotlib.pyplot`, so nothing is registered with a
GUI or notebook backend and nothing needs closing; in a notebook a returned figure
still displays once (it has ``_repr_png_``). Fonts and style are not set
here: the book's ``book/matplotlibrc`` sets them (a CJK font is needed for the
Chinese labels).

Examples
--------
>>> from schedlab.analysis import transfer
>>> fig = transfer_heatmap(transfer())
>>> len(fig.axes)  # the heat map and its colour bar
2
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib import colormaps, rcParams
from matplotlib.colors import LogNorm, Normalize
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import (FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator,
                               PercentFormatter)

from .analysis import LECTURE_SHAPES, Landscape, Sensitivity, Transfer, as_mnk
from .hardware import H100_TC, Hardware
from .model import TERMS, Breakdown
from .render import STRATEGY_LABELS
from .compare import Comparison
from .space import SPACE, WARP_GRID, all_configs, config_array, launch_checks, reasons

__all__ = [
    "KNOB_LABELS",
    "launch_map",
    "landscape_cdf",
    "transfer_heatmap",
    "sensitivity_chart",
    "roofline",
    "breakdown_chart",
    "search_curves",
]

#: Knob -> (Triton name, Chinese gloss) for panel titles.
KNOB_LABELS = {
    "bm": ("BLOCK_M", "块的行数"),
    "bn": ("BLOCK_N", "块的列数"),
    "bk": ("BLOCK_K", "每步沿 K 读多少"),
    "warps": ("num_warps", "每块的 warp 数"),
    "stages": ("num_stages", "流水线级数"),
    "group": ("GROUP_M", "启动顺序分组"),
}

#: Launch-map cell of a (BM, BN, warps) that cannot launch, per pruning code: (face colour, short label).
_REASON_STYLE = {
    "mma": ("#d4d4d4", "小于\nmma"),
    "registers": ("#f3c9a5", "寄存器\n不够"),
    "smem": ("#c9dcee", "共享\n内存"),
}
_INFEASIBLE = "#9a9a9a"  # hatch colour of "不能启动"


class _ShownFigure(Figure):
    """A :class:`~matplotlib.figure.Figure` that IPython shows as PNG on its own.

    A figure made without :mod:`matplotlib.pyplot` is known to no backend, so a notebook
    shows it only as ``<Figure ...>`` unless ``%matplotlib inline`` registered a formatter.
    ``_repr_png_`` makes it display (and ``myst_nb.glue`` store it) in any kernel; where the
    inline backend is active its formatter takes precedence, and the figure still appears once.
    """

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=self.dpi, bbox_inches="tight")
        return buf.getvalue()


def _figure(height_ratio: float, width: float | None = None) -> Figure:
    """A constrained-layout figure as wide as the rc default, ``height_ratio`` times as tall."""
    w = rcParams["figure.figsize"][0] if width is None else width
    return _ShownFigure(figsize=(w, w * height_ratio), layout="constrained")


def _shape_label(shape) -> str:
    """``Shape.short`` for a :class:`~schedlab.analysis.Shape`, ``"M×N×K"`` for a tuple."""
    if hasattr(shape, "short"):
        return shape.short
    return "×".join(str(x) for x in as_mnk(shape))


def _lecture_name(mnk) -> str:
    """``"M×N×K"``, after the lecture's short name when the shape is one of the lecture's."""
    dims = "×".join(str(x) for x in mnk)
    for s in LECTURE_SHAPES:
        if s.mnk == tuple(mnk) and s.short != dims:
            return f"{s.short}（{dims}）"
    return dims


def _times(x, _pos=None) -> str:
    return f"{x:g}×"


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
    Computed from :func:`schedlab.space.launch_checks`.

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
    fig = _figure(1.08)
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
                codes = [c for c in everywhere if everywhere[c][i, j, w_i]] or \
                        [c for c in somewhere if somewhere[c][i, j, w_i]]
                code = codes[0]
                used.add(code)
                face, label = _REASON_STYLE.get(code, ("#dddddd", code))
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
    partial_codes = [c for c in somewhere
                     if np.any(somewhere[c] & (counts > 0))]  # why some pairs of a launchable cell fail
    handles = [Patch(facecolor=_REASON_STYLE.get(c, ("#dddddd",))[0], edgecolor="none", label=messages[c])
               for c in everywhere if c in used]
    handles.append(Patch(facecolor=cmap(norm(0.6)), edgecolor="none",
                         label=f"n/{n_pairs}：BK × stages 的 {n_pairs} 种组合里能启动 n 种"
                               + ("；其余" + "、".join(messages[c] for c in partial_codes) if partial_codes else "")))
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
    fig = _figure(4 / 7)
    ax = fig.subplots()
    ax.step(ratio, frac, where="post", color="C0", linewidth=1.8, label="配置的累积比例")
    ax.set_xscale("log")
    ax.set_xlim(0.95, ratio[-1] * 1.15)
    ax.set_ylim(0, 1.09)
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(_times))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_yticks(np.linspace(0, 1, 6))

    for factor, y_text, color in ((1.05, 0.92, "C2"), (2.0, 0.76, "C1")):
        k = landscape.n_within(factor)
        ax.axvline(factor, color=color, linestyle="--", linewidth=1.2)
        ax.text(factor * 1.04, y_text, f"{factor:g}× 以内：{k} 个（{k / n:.1%}）", color=color, fontsize=9,
                va="center", bbox=dict(facecolor="white", edgecolor="none", pad=1.0))
        ax.plot([factor], [k / n], "o", color=color, markersize=5, zorder=3)
    median = landscape.quantiles((50,))[50]
    ax.plot([median], [0.5], "o", color="C3", markersize=6, zorder=3)
    ax.annotate(f"中位数：慢 {median:.2f} 倍", xy=(median, 0.5), xytext=(median * 1.5, 0.38), fontsize=9,
                color="C3", arrowprops=dict(arrowstyle="-", color="C3", linewidth=0.8))
    ax.annotate(f"最慢 {ratio[-1]:.1f}×", xy=(ratio[-1], 1.0), xytext=(0, 4), textcoords="offset points",
                ha="right", va="bottom", fontsize=8.5, color="#444444")
    ax.set_xlabel("时间 / 最快配置的时间（对数坐标）")
    ax.set_ylabel("配置的累积比例")
    ax.set_title(f"{_lecture_name(landscape.shape)}：{n} 个能启动的配置离最快有多远")
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
    names = [_shape_label(s) for s in transfer.shapes]
    finite = m[np.isfinite(m)]
    vmin = min(1.0, float(finite.min())) if finite.size else 1.0
    vmax = max(float(finite.max()) if finite.size else 1.0, vmin * 1.01)
    norm = LogNorm(vmin=vmin, vmax=vmax)
    cmap = colormaps["OrRd"].with_extremes(bad="#e6e6e6")
    fig = _figure(min(0.45 + 0.04 * len(names), 0.9))
    ax = fig.subplots()
    im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, norm=norm, aspect="auto")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            x = m[i, j]
            if np.isfinite(x):
                ax.text(j, i, f"{x:.2f}", ha="center", va="center", fontsize=11,
                        color="white" if norm(x) > 0.6 else "#1a1a1a")
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
    cbar.ax.yaxis.set_major_formatter(FuncFormatter(_times))
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
        Output of :func:`schedlab.analysis.sensitivity`.

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
    fig = _figure(0.36 * nrows + 0.08)
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
        for x, (v, r) in zip(xs, pairs):
            if not np.isfinite(r):
                ax.axvspan(x - 0.35, x + 0.35, facecolor="none", edgecolor=_INFEASIBLE, hatch="///",
                           linewidth=0.0)
                ax.text(x, np.sqrt(lo * hi), "不能启动", rotation=90, ha="center", va="center", fontsize=8,
                        color="#444444", bbox=dict(facecolor="white", edgecolor="none", pad=1.0))
        ax.axhline(1.0, color="#555555", linewidth=0.8, zorder=0.5)
        ax.set_xticks(xs, [str(v) for v, _ in pairs])
        for label, (v, _) in zip(ax.get_xticklabels(), pairs):
            if v == base.get(knob):
                label.set_color("C1")
        ax.set_xlim(-0.6, len(pairs) - 0.4)
        ax.grid(axis="x", visible=False)
        name, gloss = KNOB_LABELS.get(knob, (knob, ""))
        ax.set_title(f"{name}（{gloss}）" if gloss else name, fontsize=10)
    ax0 = axes[0]
    ax0.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax0.yaxis.set_major_formatter(FuncFormatter(_times))
    ax0.yaxis.set_minor_formatter(NullFormatter())
    for ax in axes[::ncols]:
        ax.set_ylabel("时间 / 基准")
    for ax in axes[len(knobs):]:
        ax.set_visible(False)
    handles = [Patch(facecolor="C1", label="基准配置的取值"), Patch(facecolor="C0", label="改成这个取值"),
               Patch(facecolor="none", edgecolor=_INFEASIBLE, hatch="///", label="不能启动")]
    fig.legend(handles=handles, loc="outside lower center", ncol=3)
    fig.suptitle(f"在 {sensitivity.base.as_tuple()} 附近一次只改一个旋钮：{_lecture_name(sensitivity.shape)}")
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
    fig = _figure(4.4 / 7)
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
    ax.text(x_bw, bw * x_bw * 1.25, f"HBM {hw.hbm_bw_bytes_per_s / 1e12:.2f} TB/s", ha="left", va="bottom",
            fontsize=9, rotation=np.degrees(np.arctan2(bw, 1.0)), transform_rotates_text=True,
            rotation_mode="anchor")
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
        text = f"{_shape_label(transfer.shapes[i])}\n{achieved[i]:.0f} TFLOPS（屋顶的 {achieved[i] / roof[i]:.0%}）"
        if crowded[i]:
            ax.annotate(text, xy=(intensity[i], achieved[i]), xytext=(ridge / 1.3, y_label), ha="right",
                        va="center", fontsize=8.5, linespacing=1.15,
                        arrowprops=dict(arrowstyle="-", color="#888888", linewidth=0.7, shrinkA=3, shrinkB=4,
                                        relpos=(1.0, 0.5)))
            y_label *= 0.42
        else:
            ax.annotate(text, xy=(intensity[i], achieved[i]), xytext=(-10, 10), textcoords="offset points",
                        ha="right", va="bottom", fontsize=8.5, linespacing=1.15)
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
        Output of :func:`schedlab.model.explain`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; ``ax.containers[0]`` holds the bars in :data:`schedlab.model.TERMS` order.
    """
    terms = breakdown.terms()
    names = list(TERMS)
    ns = np.array([terms[k] * 1e9 for k in names])
    top = ns[names.index(breakdown.bottleneck)]
    fig = _figure(3.3 / 7)
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
        ax.text(x_max * 1.025, rect.get_y() + rect.get_height() / 2, f"{v:.1f} ns{note}", va="center",
                fontsize=8.5, color="C1" if k == breakdown.bottleneck else "#222222")
    ax.axvline(step_ns, color="#555555", linestyle="--", linewidth=1.0)
    ax.text(step_ns, -0.75, f"每个 k 步 {step_ns:.1f} ns", ha="center", va="bottom", fontsize=8.5, color="#444444",
            bbox=dict(facecolor="white", edgecolor="none", pad=1.0))
    ax.set_ylim(len(names) - 0.5, -1.1)
    ax.grid(axis="y", visible=False)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel("每个 k 步的时间（ns，第一波）")
    M, N, K = breakdown.shape
    ax.set_title(f"{breakdown.config.as_tuple()} 在 {M}×{N}×{K} 上：{breakdown.tflops:.0f} TFLOPS，"
                 f"{breakdown.waves} 波 × {breakdown.k_steps} 步，每 SM {breakdown.blocks_per_sm} 块", fontsize=10)
    return fig


# --- search: best so far, measurement by measurement ------------------------------------------


def search_curves(comparison: Comparison, shape) -> Figure:
    """Best-so-far curves on one shape, one panel per strategy: median and 10–90 % band over the seeds.

    After ``k`` measurements a tuner believes the best-measured config is best; the curve
    is that config's true time over the shape's optimum: ``comparison.curve_median`` as a
    line, ``curve_p10`` .. ``curve_p90`` as a band. Every panel also shows the other
    strategies' medians in grey, so the panels compare at a glance. Both axes are
    logarithmic; a dashed line marks the goal, ``comparison.factor``. A panel's title gives
    the strategy's median trials to the goal (:meth:`Comparison.cell`).

    Parameters
    ----------
    comparison : Comparison
        Output of :func:`schedlab.compare.compare`.
    shape : Shape, (M, N, K) or int
        A shape of the comparison (or its index).

    Returns
    -------
    matplotlib.figure.Figure
        One axes per strategy, in ``comparison.strategies`` order; in each, ``ax.lines[0]``
        is the strategy's median (x: measurements ``1 .. budget``) and ``ax.collections[0]``
        its band.
    """
    i = comparison.shape_index(shape)
    mnk = as_mnk(comparison.shapes[i])
    names = comparison.strategies
    x = np.arange(1, comparison.budget + 1)
    ncols = min(3, len(names))
    nrows = -(-len(names) // ncols)
    fig = _figure(0.3 * nrows + 0.1)
    axes = np.atleast_1d(fig.subplots(nrows, ncols, sharex=True, sharey=True)).ravel()
    top = max(float(np.max(comparison.curve_p90[i])), comparison.factor)
    goal = f"{100 * (comparison.factor - 1):.6g}%"
    for j, (ax, name) in enumerate(zip(axes, names)):
        color = f"C{j}"
        ax.plot(x, comparison.curve_median[i, j], color=color, linewidth=1.8, zorder=3)
        ax.fill_between(x, comparison.curve_p10[i, j], comparison.curve_p90[i, j], color=color, alpha=0.2,
                        linewidth=0.0, zorder=2)
        for other in range(len(names)):
            if other != j:
                ax.plot(x, comparison.curve_median[i, other], color="#b5b5b5", linewidth=0.8, zorder=1)
        ax.axhline(comparison.factor, color="#555555", linestyle="--", linewidth=0.9, zorder=2.5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        median = comparison.cell(i, name).median
        reached = f"中位数 {median:.0f} 次" if np.isfinite(median) else "过半没到"
        ax.set_title(f"{STRATEGY_LABELS.get(name, name)}：{reached}", fontsize=10, color=color)
    ax0 = axes[0]
    ax0.set_xlim(1, comparison.budget)
    ax0.set_ylim(0.97, top * 1.15)
    ax0.yaxis.set_major_locator(FixedLocator([t for t in (1, 1.5, 2, 3, 5, 10, 20, 50, 100) if t <= top * 1.15]))
    ax0.yaxis.set_major_formatter(FuncFormatter(_times))
    ax0.yaxis.set_minor_locator(NullLocator())
    ax0.xaxis.set_major_locator(FixedLocator([t for t in (1, 3, 10, 30, 100, 300, 1000, 3000)
                                              if t <= comparison.budget]))
    ax0.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos=None: f"{v:.0f}"))
    ax0.xaxis.set_minor_locator(NullLocator())
    for ax in axes[len(names):]:
        ax.set_visible(False)
    for ax in axes[::ncols]:
        ax.set_ylabel("时间 / 最优")
    for ax in axes[(nrows - 1) * ncols:]:
        ax.set_xlabel("测量次数")
    handles = [Line2D([], [], color="#333333", linewidth=1.8, label="这个策略：中位数"),
               Patch(facecolor="#333333", alpha=0.2, label="10%–90% 的种子"),
               Line2D([], [], color="#b5b5b5", linewidth=0.8, label="其他策略的中位数"),
               Line2D([], [], color="#555555", linestyle="--", linewidth=0.9, label=f"最优的 {goal} 以内")]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=8.5)
    fig.suptitle(f"{_lecture_name(mnk)}：测了 k 次之后，相信的最优配置有多好（{len(comparison.seeds)} 个种子）",
                 fontsize=11)
    return fig


# --- learned cost model and buckets -----------------------------------------------------------
# (appended section: figures of schedlab.buckets)

from .buckets import Cover, Sweep, TileMap  # noqa: E402
from .render import COVER_LABELS  # noqa: E402

__all__ += ["bucket_optima", "tile_map"]


def _cover_name(cover: Cover) -> str:
    return COVER_LABELS.get(cover.method, cover.method)


def bucket_optima(sweep: Sweep, cover: Cover, baseline: Cover | None = None) -> Figure:
    """How the optimum changes with ``M`` for one ``(N, K)``, and what a cover uses instead.

    Three panels sharing the ``M`` axis. Top: one row per configuration that is an optimum
    somewhere or that the cover uses (in order of first use); a dot marks each ``M``'s optimum,
    a ring the cover's choice there, coloured per cover configuration (as are the row labels
    of the cover's configurations). Middle: the optimum's time. Bottom: the cover's slowdown
    (time / that ``M``'s optimum), the ``baseline`` cover's (e.g. power-of-two buckets) if
    given, and the tolerance as a dashed line.

    Parameters
    ----------
    sweep : Sweep
        Output of :func:`schedlab.buckets.sweep`.
    cover : Cover
        A cover of the same grid (e.g. :func:`schedlab.buckets.greedy_cover`).
    baseline : Cover, optional
        Another cover of the same grid to compare with.

    Returns
    -------
    matplotlib.figure.Figure
        Three axes. ``axes[0].collections[0]`` are the optima (offsets: ``M``, row) and
        ``collections[1]`` the cover's choices; the row labels are the configurations.
        ``axes[1].lines[0]`` is the optimum's time in µs; ``axes[2].collections[0]`` the
        cover's slowdown and, with a baseline, ``axes[2].lines[0]`` the baseline's.
    """
    if not isinstance(sweep, Sweep) or not isinstance(cover, Cover):
        raise ValueError("bucket_optima needs a schedlab.buckets.Sweep and a Cover")
    for c in (cover, baseline):
        if c is not None and tuple(c.Ms) != tuple(sweep.Ms):
            raise ValueError("the cover and the baseline must be on the sweep's grid of M")
    Ms = np.array(sweep.Ms, dtype=float)
    optima = sweep.optima
    chosen = [cover.configs[j] for j in cover.choice]
    rows = list(dict.fromkeys([c for pair in zip(optima, chosen) for c in pair]))
    row = {c: i for i, c in enumerate(rows)}
    colors = {c: f"C{i % 8}" for i, c in enumerate(cover.configs)}

    fig = _figure(0.55 + 0.03 * len(rows))
    axes = fig.subplots(3, 1, sharex=True, gridspec_kw={"height_ratios": [0.5 + 0.14 * len(rows), 1.4, 1.4]})
    ax = axes[0]
    ax.scatter(Ms, [row[c] for c in optima], s=16, color="#333333", zorder=3, label="这个 M 的最优")
    ax.scatter(Ms, [row[c] for c in chosen], s=70, facecolor="none", edgecolor=[colors[c] for c in chosen],
               linewidth=1.3, zorder=2, label="覆盖在这个 M 用的配置")
    ax.set_yticks(range(len(rows)), [str(c.as_tuple()) for c in rows], fontsize=8)
    for label, c in zip(ax.get_yticklabels(), rows):
        if c in colors:
            label.set_color(colors[c])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper right", fontsize=8.5, frameon=True, framealpha=0.9, edgecolor="none")
    ax.set_title(f"每个 M 的最优配置（共 {len(set(optima))} 个不同的）和覆盖的选择", fontsize=10)

    ax = axes[1]
    ax.plot(Ms, sweep.best_time_s * 1e6, color="#333333", linewidth=1.2, marker="o", markersize=2.5)
    ax.set_ylim(0, float(sweep.best_time_s.max()) * 1e6 * 1.1)
    ax.set_ylabel("最优时间（µs）")

    ax = axes[2]
    ax.scatter(Ms, cover.slowdown, s=14, color=[colors[c] for c in chosen], zorder=3,
               label=f"{_cover_name(cover)}：{cover.n_configs} 个配置")
    if baseline is not None:
        ax.plot(Ms, baseline.slowdown, color="#8a8a8a", linestyle="none", marker="x", markersize=4, zorder=2,
                label=f"{_cover_name(baseline)}：{baseline.n_configs} 个配置")
    tol = 1.0 + cover.tol
    ax.axhline(tol, color="#555555", linestyle="--", linewidth=0.9, zorder=1, label=f"最优的 {100 * cover.tol:.6g}%")
    top = max(tol, float(cover.slowdown.max()), float(baseline.slowdown.max()) if baseline is not None else 0.0)
    ax.set_ylim(0.98, 1.0 + (top - 1.0) * 1.3 + 0.02)  # room for the legend
    ax.yaxis.set_major_formatter(FuncFormatter(_times))
    ax.set_ylabel("时间 / 最优")
    ax.legend(loc="upper left", fontsize=8.5, ncol=3)
    ax.set_xlabel("M（token 数）")
    ticks = [M for M in (1, 64, 128, 192, 256, 320, 384, 448, 512, 1024, 2048, 4096, 8192) if Ms[0] <= M <= Ms[-1]]
    ax.set_xticks(ticks)
    ax.set_xlim(Ms[0] - 0.02 * (Ms[-1] - Ms[0]) - 0.5, Ms[-1] + 0.02 * (Ms[-1] - Ms[0]) + 0.5)
    fig.suptitle(f"N = {sweep.N}，K = {sweep.K}：M 从 {sweep.Ms[0]} 到 {sweep.Ms[-1]}，"
                 f"{len(sweep.Ms)} 个 M 用 {cover.n_configs} 个配置覆盖", fontsize=11)
    return fig


def tile_map(tilemap: TileMap) -> Figure:
    """The optimal tile ``BM×BN`` at every ``(M, N)`` of a :class:`~schedlab.buckets.TileMap`.

    Cells are coloured by ``log2(BM BN)`` (the tile's area) and labelled with the tile and the
    optimum's TFLOP/s; ``M`` grows upwards.

    Parameters
    ----------
    tilemap : TileMap
        Output of :func:`schedlab.buckets.optimal_tiles`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes and a colour bar; ``ax.images[0]`` holds ``log2(bm * bn)`` (rows ``Ms``,
        columns ``Ns``).
    """
    if not isinstance(tilemap, TileMap):
        raise ValueError(f"tile_map needs a schedlab.buckets.TileMap, got {type(tilemap).__name__}")
    bm, bn = np.asarray(tilemap.bm), np.asarray(tilemap.bn)
    area = np.log2(bm * bn).astype(float)
    cmap = colormaps["Blues"]
    norm = Normalize(vmin=float(area.min()) - 2.0, vmax=float(area.max()) + 1.0)
    fig = _figure(0.12 + 0.07 * len(tilemap.Ms))
    ax = fig.subplots()
    im = ax.imshow(area, cmap=cmap, norm=norm, aspect="auto", origin="lower")
    for i in range(area.shape[0]):
        for j in range(area.shape[1]):
            ax.text(j, i, f"{bm[i, j]}×{bn[i, j]}\n{tilemap.tflops[i, j]:.0f} TFLOPS", ha="center", va="center",
                    fontsize=8.5, color="white" if norm(area[i, j]) > 0.6 else "#1a1a1a", linespacing=1.2)
    ax.set_xticks(range(len(tilemap.Ns)), [str(n) for n in tilemap.Ns])
    ax.set_yticks(range(len(tilemap.Ms)), [str(m) for m in tilemap.Ms])
    ax.set_xticks(np.arange(len(tilemap.Ns) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(tilemap.Ms) + 1) - 0.5, minor=True)
    ax.tick_params(which="both", length=0)
    ax.grid(False)
    ax.set_axisbelow(False)
    ax.grid(which="minor", color="white", linewidth=1.5)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xlabel(f"N（K = {tilemap.K}）")
    ax.set_ylabel("M")
    cbar = fig.colorbar(im, ax=ax, fraction=0.05, pad=0.02)
    ticks = sorted({int(a) for a in area.ravel()})
    cbar.set_ticks(ticks, labels=[f"{2 ** t}" for t in ticks])
    cbar.set_label("块的面积 BM × BN（对数色标）")
    cbar.ax.grid(False)
    cbar.outline.set_visible(False)
    ax.set_title(f"每个 (M, N) 上最优配置的块形 BM×BN 和它的 TFLOPS（K = {tilemap.K}）")
    return fig
