"""Figures of the shapes page (demo 3): what one shape's optimum costs on another, and where the optima sit under the roofline."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from schedlab.core.hardware import H100_TC, Hardware
from schedlab.core.shapes import as_mnk
from schedlab.figures.style import Interactive, fmt_times, ink_on, new_figure
from schedlab.render.labels import CONFIG_HEADER, lecture_name, shape_short
from schedlab.render.table import fmt_percent
from schedlab.studies.shapes import Transfer

__all__ = ["transfer_heatmap", "transfer_explorer", "roofline"]


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
                    color=ink_on(cmap(norm(x))),
                )
            else:
                ax.text(j, i, "不能启动", ha="center", va="center", fontsize=9, color="#555555")
    rows = [f"{name}\n{opt.as_tuple()}" for name, opt in zip(names, transfer.optima)]
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), rows, fontsize=9)
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


def transfer_explorer(transfer: Transfer) -> Interactive:
    """:func:`transfer_heatmap` to explore: hovering a cell names both shapes, the optimum and its cost.

    Colour is ``log10`` of the ratio (the static figure's log colour scale); a cell whose optimum
    cannot launch on the column's shape is empty and reads "不能启动". The static twin for paper is
    :func:`transfer_heatmap`.

    Returns
    -------
    Interactive
        ``plot.data[0]`` is the heat map: ``z[i][j]`` is ``log10(transfer.matrix[i, j])`` (``None`` where
        infinite) and ``text[i][j]`` the ratio as printed.
    """
    import plotly.graph_objects as go

    m = np.asarray(transfer.matrix, dtype=float)
    names = [shape_short(s) for s in transfer.shapes]
    # row names without "的最优" (the y axis's title says it) and a colour bar under the map: on a
    # 342 px phone column the cells keep the width their values need
    rows = names
    finite = np.isfinite(m)
    z = np.where(finite, np.log10(np.where(finite, m, 1.0)), np.nan)
    text = [[f"{x:.2f}" if np.isfinite(x) else "不能启动" for x in row] for row in m]
    hover = [
        [
            f"最优来自 {lecture_name(transfer.shapes[i])}<br>{CONFIG_HEADER} = {transfer.optima[i].as_tuple()}<br>"
            f"用在 {lecture_name(transfer.shapes[j])}：" + (f"慢 {m[i, j]:.2f} 倍" if finite[i, j] else "不能启动")
            for j in range(m.shape[1])
        ]
        for i in range(m.shape[0])
    ]
    top = float(z[finite].max()) if finite.any() else 0.0
    ticks = [t for t in (1, 1.5, 2, 3, 5, 10, 20, 50, 100) if np.log10(t) <= max(top, 0.01) + 1e-9]
    plot = go.Figure(
        go.Heatmap(
            z=[[None if np.isnan(v) else float(v) for v in row] for row in z],
            x=names,
            y=rows,
            text=text,
            texttemplate="%{text}",
            textfont={"size": 14},
            customdata=hover,
            hovertemplate="%{customdata}<extra></extra>",
            colorscale="OrRd",
            zmin=0.0,
            zmax=max(top, 0.01),
            colorbar={
                "title": {"text": "慢几倍", "side": "top"},
                "orientation": "h",
                "y": -0.08,
                "yanchor": "top",
                "thickness": 12,
                "tickvals": [float(np.log10(t)) for t in ticks],
                "ticktext": [f"{t:g}×" for t in ticks],
            },
        )
    )
    plot.update_layout(
        title={
            "text": "把一种形状的最优配置<br>用在另一种形状上：慢几倍",
            "font": {"size": 15},
            "yref": "container",  # at the top, above the column names (which a phone slants)
            "y": 0.94,  # the anchor is the last line's: the first sits one line higher
            "yanchor": "top",
        },
        xaxis={"title": {"text": "用在", "standoff": 4}, "side": "top", "automargin": True},
        yaxis={"title": {"text": "最优配置来自"}, "autorange": "reversed", "automargin": True},
        margin={"l": 10, "r": 10, "t": 150, "b": 10},
        height=480,
        template="plotly_white",
        font={"size": 13},
    )
    return Interactive(plot, transfer_heatmap(transfer))


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
    fig = new_figure(0.8)
    ax = fig.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.plot(xs, np.minimum(bw * xs, peak), color="#333333", linewidth=2.0, label="屋顶", zorder=2)
    ax.plot(xs[xs > ridge], bw * xs[xs > ridge], color="#333333", linewidth=0.8, linestyle=":", zorder=1)
    # a decade below the slowest point's: the row of labels under the compute roof lives there
    y_lo = 10 ** np.floor(np.log10(achieved.min() / 2)) / 10
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, peak * 3)
    # the texts under the roof lines stand on white, so the grid, the ridge line and the dotted
    # continuation of the HBM roof pass behind them
    paper = dict(facecolor="white", edgecolor="none", pad=1.0)
    ax.text(
        x_hi / 1.15, peak * 1.12, f"Tensor Core 峰值 {peak:.0f} TFLOPS", ha="right", va="bottom", fontsize=9, bbox=paper
    )
    # the HBM label lies along its roof, low on it (left of every point), lifted by a factor: at
    # (x, lift bw x) the direction (1, lift bw) in data units runs parallel to the roof on log axes
    x_bw, lift = max(x_lo * 1.2, y_lo / bw * 1.3), 1.4
    ax.text(
        x_bw,
        lift * bw * x_bw,
        f"HBM {hw.hbm_bw_bytes_per_s / 1e12:.2f} TB/s",
        ha="left",
        va="bottom",
        fontsize=9,
        rotation=np.degrees(np.arctan2(lift * bw, 1.0)),
        transform_rotates_text=True,
        rotation_mode="anchor",
    )
    ax.axvline(ridge, color="#999999", linewidth=0.8, linestyle="--", zorder=1)
    # the ridge's label above the compute roof's, left of the line (the empty top left)
    ax.text(ridge / 1.1, peak * 2.3, f"脊点 {ridge:.0f} FLOP/B", ha="right", va="center", fontsize=9, color="#595959")
    ax.scatter(intensity, achieved, s=42, color="C1", edgecolor="white", linewidth=0.8, zorder=3)
    roof = np.minimum(bw * intensity, peak)
    # One label per point, "name / TFLOPS / share of the roof", each with a leader line. A point near
    # or past the ridge is labelled in a row along the bottom of the axes, under the compute roof
    # where nothing else is drawn: the row's labels a quarter of the axes apart from the right, in
    # the points' order of intensity, so no two leader lines cross. A memory-bound point is labelled
    # in the empty top left, above its roof.
    crowded = intensity >= ridge / 2
    order = [i for i in np.argsort(intensity) if crowded[i]]
    slot = {i: 1 - (len(order) - k - 0.5) / (len(order) + 1) for k, i in enumerate(order)}
    leader = dict(arrowstyle="-", color="#888888", linewidth=0.7, shrinkA=2, shrinkB=4)
    for i in np.argsort(intensity):
        text = (
            f"{shape_short(transfer.shapes[i])}\n{achieved[i]:.0f} TFLOPS\n屋顶的 {fmt_percent(achieved[i] / roof[i])}"
        )
        if crowded[i]:
            where = dict(xytext=(slot[i], 0.03), textcoords="axes fraction", ha="center", va="bottom")
            arrow = dict(leader, relpos=(0.5, 1.0))
        else:
            where = dict(xytext=(x_lo * 1.3, min(achieved[i] * 4, peak / 2)), ha="left", va="bottom")
            arrow = dict(leader, relpos=(1.0, 0.0))
        ax.annotate(
            text, xy=(intensity[i], achieved[i]), fontsize=9, linespacing=1.15, arrowprops=arrow, bbox=paper, **where
        )
    ax.set_xlabel("算术强度（FLOP / 字节；字节按最少的 HBM 流量 (MK + KN + MN) × 2）")
    ax.set_ylabel("TFLOPS")
    ax.grid(True, which="major")
    ax.set_title("屋顶线：每种形状的最优配置（模型）在哪里")
    return fig
