"""Figures of the chapter 换一块 GPU: one shape's landscape on each GPU, and the hardware-transfer matrices."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, PercentFormatter

from schedlab.core.landscape import Landscape, tflops
from schedlab.figures.style import fmt_times, ink_on, new_figure
from schedlab.render.labels import lecture_name, lecture_short
from schedlab.studies.gpus import HardwareTransfer

__all__ = ["gpu_landscapes", "hardware_transfer_grid"]


def gpu_landscapes(landscapes, labels) -> Figure:
    """One shape on several GPUs: the cumulative share of configurations reaching each TFLOP/s.

    Parameters
    ----------
    landscapes : sequence of Landscape
        The same shape on each GPU.
    labels : sequence of str
        One name per landscape (the profile names).

    Returns
    -------
    matplotlib.figure.Figure
        One axes; ``ax.lines[2 i]`` is GPU ``i``'s curve (x: TFLOP/s, ascending; y: share of its
        launchable configurations at least that fast, falling from 1), each with its own dash pattern so
        equal curves stay visible, and ``ax.lines[2 i + 1]`` the marker at its best.
    """
    landscapes, labels = list(landscapes), list(labels)
    if not landscapes or len(landscapes) != len(labels):
        raise ValueError("landscapes and labels must be non-empty and of the same length")
    if not all(isinstance(land, Landscape) for land in landscapes):
        raise ValueError("landscapes must hold schedlab.core.landscape.Landscape records")
    shape = landscapes[0].shape
    if any(land.shape != shape for land in landscapes):
        raise ValueError("every landscape must be of the same shape")
    flop = 2 * np.prod(shape, dtype=float)
    fig = new_figure(0.85)
    ax = fig.subplots()
    for i, (land, label) in enumerate(zip(landscapes, labels)):
        rate = np.sort(tflops(flop, np.asarray(land.time_s, dtype=float)))
        share = 1 - np.arange(rate.size) / rate.size  # configs at least this fast
        ax.step(
            rate,
            share,
            where="post",
            color=f"C{i}",
            linewidth=1.8,
            linestyle=("-", "--", "-.", ":")[i % 4],
            label=f"{label}：{rate.size} 个能启动，最快 {rate[-1]:.0f} TFLOPS",
        )
        ax.plot([rate[-1]], [share[-1]], "o", color=f"C{i}", markersize=5)
    ax.set_xscale("log")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("配置的 TFLOPS（对数坐标）")
    ax.set_ylabel("至少这么快的配置的比例")
    # below the axes: inside, every corner of it is crossed by some GPU's curve
    fig.legend(loc="outside lower center", fontsize=9)
    ax.set_title(f"{lecture_name(shape)}：同一个空间在四块 GPU 上")
    return fig


def hardware_transfer_grid(transfers) -> Figure:
    """One heat map per shape: GPU ``i``'s optimum run on GPU ``j``, over GPU ``j``'s best (one log colour scale).

    Parameters
    ----------
    transfers : sequence of HardwareTransfer
        One record per shape, all over the same GPUs.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per shape (``ax.images[0]`` holds its matrix) and a shared colour bar.
    """
    transfers = list(transfers)
    if not transfers or not all(isinstance(t, HardwareTransfer) for t in transfers):
        raise ValueError("transfers must be a non-empty sequence of HardwareTransfer")
    gpus = transfers[0].gpus
    if any(t.gpus != gpus for t in transfers):
        raise ValueError("every transfer must be over the same GPUs")
    finite = np.concatenate([t.matrix[np.isfinite(t.matrix)] for t in transfers])
    norm = LogNorm(vmin=1.0, vmax=max(float(finite.max()), 1.01))
    cmap = colormaps["OrRd"].with_extremes(bad="#e6e6e6")
    cols = min(2, len(transfers))
    rows = -(-len(transfers) // cols)
    # the GPU names are written once per row and column of panels (the panels share their axes),
    # so a cell gets the width its value needs; the column names slant at 45 degrees, which keeps
    # neighbours apart however long the profile names are
    fig = new_figure(0.35 + 0.075 * len(gpus) * rows + 0.012 * max(len(g) for g in gpus))
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False, sharex=True, sharey=True)).ravel()
    for ax in axes[len(transfers) :]:
        ax.set_visible(False)
    for ax, t in zip(axes, transfers):
        m = np.asarray(t.matrix, dtype=float)
        im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, norm=norm, aspect="auto")
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                x = m[i, j]
                text = f"{x:.2f}" if np.isfinite(x) else "不能\n启动"
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    fontsize=9,
                    linespacing=1.0,
                    color=ink_on(cmap(norm(x))) if np.isfinite(x) else "black",
                )
        ax.set_xticks(range(len(gpus)), gpus, fontsize=9, rotation=45, ha="right", rotation_mode="anchor")
        ax.set_yticks(range(len(gpus)), gpus, fontsize=9)
        ax.set_xticks(np.arange(len(gpus) + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(len(gpus) + 1) - 0.5, minor=True)
        ax.tick_params(which="both", length=0)
        ax.grid(False)
        ax.set_axisbelow(False)  # white cell borders over the image
        ax.grid(which="minor", color="white", linewidth=1.2)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(lecture_short(t.shape), fontsize=10)
    cbar = fig.colorbar(im, ax=list(axes[: len(transfers)]), location="bottom", fraction=0.04, pad=0.02, aspect=30)
    cbar.set_label("时间 / 该列 GPU 自己的最优（对数色标）")
    cbar.ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 1.2, 1.5, 2.0, 3.0)))
    cbar.ax.xaxis.set_major_formatter(FuncFormatter(fmt_times))
    cbar.ax.xaxis.set_minor_formatter(NullFormatter())
    cbar.outline.set_visible(False)
    fig.suptitle("行：最优配置来自哪块 GPU；列：用在哪块 GPU 上", fontsize=10)
    return fig
