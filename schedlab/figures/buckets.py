"""Figures of shape buckets (:mod:`schedlab.studies.buckets`): the optimum along ``M`` and the optimal tile map."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from schedlab.figures.style import fmt_times, ink_on, new_figure, text_color
from schedlab.render.labels import cover_label
from schedlab.render.table import fmt_percent
from schedlab.studies.buckets import TileMap
from schedlab.tuning.covers import Cover, Sweep

__all__ = ["bucket_optima", "tile_map"]


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
        Output of :func:`schedlab.tuning.covers.sweep`.
    cover : Cover
        A cover of the same grid (e.g. :func:`schedlab.tuning.covers.greedy_cover`).
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
        raise ValueError("bucket_optima needs a schedlab.tuning.covers.Sweep and a Cover")
    for c in (cover, baseline):
        if c is not None and tuple(c.Ms) != tuple(sweep.Ms):
            raise ValueError("the cover and the baseline must be on the sweep's grid of M")
    Ms = np.array(sweep.Ms, dtype=float)
    optima = sweep.optima
    chosen = [cover.configs[j] for j in cover.choice]
    rows = list(dict.fromkeys([c for pair in zip(optima, chosen) for c in pair]))
    row = {c: i for i, c in enumerate(rows)}
    colors = {c: f"C{i % 8}" for i, c in enumerate(cover.configs)}

    fig = new_figure(0.9 + 0.05 * len(rows))
    axes = fig.subplots(3, 1, sharex=True, gridspec_kw={"height_ratios": [0.5 + 0.14 * len(rows), 1.4, 1.4]})
    ax = axes[0]
    ax.scatter(Ms, [row[c] for c in optima], s=16, color="#333333", zorder=3, label="这个 M 的最优")
    ax.scatter(
        Ms,
        [row[c] for c in chosen],
        s=70,
        facecolor="none",
        edgecolor=[colors[c] for c in chosen],
        linewidth=1.3,
        zorder=2,
        label="覆盖在这个 M 用的配置",
    )
    ax.set_yticks(range(len(rows)), [str(c.as_tuple()) for c in rows], fontsize=9)
    for label, c in zip(ax.get_yticklabels(), rows):
        if c in colors:
            label.set_color(text_color(colors[c]))
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper right", fontsize=9, frameon=True, framealpha=0.9, edgecolor="none")
    ax.set_title(f"每个 M 的最优配置（共 {len(set(optima))} 个不同的）\n和覆盖的选择", fontsize=10)

    ax = axes[1]
    ax.plot(Ms, sweep.best_time_s * 1e6, color="#333333", linewidth=1.2, marker="o", markersize=2.5)
    ax.set_ylim(0, float(sweep.best_time_s.max()) * 1e6 * 1.1)
    ax.set_ylabel("最优时间（µs）")

    ax = axes[2]
    ax.scatter(
        Ms,
        cover.slowdown,
        s=14,
        color=[colors[c] for c in chosen],
        zorder=3,
        label=f"{cover_label(cover.method)}：{cover.n_configs} 个配置",
    )
    if baseline is not None:
        ax.plot(
            Ms,
            baseline.slowdown,
            color="#8a8a8a",
            linestyle="none",
            marker="x",
            markersize=4,
            zorder=2,
            label=f"{cover_label(baseline.method)}：{baseline.n_configs} 个配置",
        )
    tol = 1.0 + cover.tol
    ax.axhline(
        tol, color="#555555", linestyle="--", linewidth=0.9, zorder=1, label=f"最优的 {fmt_percent(cover.tol, None)}"
    )
    top = max(tol, float(cover.slowdown.max()), float(baseline.slowdown.max()) if baseline is not None else 0.0)
    ax.set_ylim(0.98, 1.0 + (top - 1.0) * 1.08 + 0.02)
    ax.yaxis.set_major_formatter(FuncFormatter(fmt_times))
    ax.set_ylabel("时间 / 最优")
    # the legend below the M axis: inside the panel it sat on the worst power-of-two point
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.32), fontsize=9, ncol=1)
    ax.set_xlabel("M（token 数）")
    ticks = [M for M in (1, 64, 128, 192, 256, 320, 384, 448, 512, 1024, 2048, 4096, 8192) if Ms[0] <= M <= Ms[-1]]
    ax.set_xticks(ticks)
    ax.set_xlim(Ms[0] - 0.02 * (Ms[-1] - Ms[0]) - 0.5, Ms[-1] + 0.02 * (Ms[-1] - Ms[0]) + 0.5)
    fig.suptitle(
        f"N = {sweep.N}，K = {sweep.K}：M 从 {sweep.Ms[0]} 到 {sweep.Ms[-1]}，\n"
        f"{len(sweep.Ms)} 个 M 用 {cover.n_configs} 个配置覆盖",
        fontsize=11,
    )
    return fig


def tile_map(tilemap: TileMap) -> Figure:
    """The optimal tile ``BM×BN`` at every ``(M, N)`` of a :class:`~schedlab.studies.buckets.TileMap`.

    Cells are coloured by ``log2(BM BN)`` (the tile's area) and labelled with the tile and the
    optimum's TFLOP/s; ``M`` grows upwards.

    Parameters
    ----------
    tilemap : TileMap
        Output of :func:`schedlab.studies.buckets.optimal_tiles`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes and a colour bar; ``ax.images[0]`` holds ``log2(bm * bn)`` (rows ``Ms``,
        columns ``Ns``).
    """
    if not isinstance(tilemap, TileMap):
        raise ValueError(f"tile_map needs a schedlab.studies.buckets.TileMap, got {type(tilemap).__name__}")
    bm, bn = np.asarray(tilemap.bm), np.asarray(tilemap.bn)
    area = np.log2(bm * bn).astype(float)
    cmap = colormaps["Blues"]
    norm = Normalize(vmin=float(area.min()) - 2.0, vmax=float(area.max()) + 1.0)
    fig = new_figure(0.3 + 0.1 * len(tilemap.Ms))  # a row holds two lines of 9 pt text with room around them
    ax = fig.subplots()
    im = ax.imshow(area, cmap=cmap, norm=norm, aspect="auto", origin="lower")
    for i in range(area.shape[0]):
        for j in range(area.shape[1]):
            ax.text(
                j,
                i,
                f"{bm[i, j]}×{bn[i, j]}\n{tilemap.tflops[i, j]:.0f}",
                ha="center",
                va="center",
                fontsize=9,
                color=ink_on(cmap(norm(area[i, j]))),
                linespacing=1.2,
            )
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
    cbar.set_ticks(ticks, labels=[f"{2**t}" for t in ticks])
    cbar.set_label("块的面积 BM × BN（对数色标）")
    cbar.ax.grid(False)
    cbar.outline.set_visible(False)
    ax.set_title(f"每个 (M, N) 上最优配置的块形 BM×BN\n和它的 TFLOPS（格子里的第二行；K = {tilemap.K}）")
    return fig
