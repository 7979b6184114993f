"""Figures of the space page (demo 1): which configurations launch, and why the others do not."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from schedlab.core.hardware import H100_TC, Hardware
from schedlab.core.knobs import SPACE, WARP_GRID, all_configs, config_array
from schedlab.core.launch import launch_checks, reasons
from schedlab.figures.style import new_figure
from schedlab.render.labels import launch_reason_label

__all__ = ["launch_map", "REASON_STYLE"]


#: Launch-map cell of a (BM, BN, warps) that cannot launch, per pruning code: (face colour, short label).
REASON_STYLE = {
    "mma": ("#d4d4d4", "小于\nmma"),
    "registers": ("#f3c9a5", "寄存器\n不够"),
    "smem": ("#c9dcee", "共享\n内存"),
    "occupancy": ("#e2d4ef", "SM\n放不下"),
}


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
            messages[code] = next(launch_reason_label(r, hw) for r in reasons(example, hw) if r.code == code)
    return counts, n_pairs, everywhere, somewhere, messages


def launch_map(hw: Hardware = H100_TC) -> Figure:
    """Which (BM, BN, num_warps) can launch, and why not.

    One panel per ``num_warps`` (rows BM, columns BN). A cell shows how many of the
    ``BK × num_stages`` pairs launch; a cell where none does is filled by the reason
    that rules out every pair (warp tile smaller than one mma, or registers).
    Computed from :func:`schedlab.core.launch.launch_checks`.

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
    # a cell holds a two-line reason label (2 × 9 pt) with room around it: the figure is tall, and
    # as wide as the house width (wider, its 9 pt would show under 9 CSS px on a phone)
    fig = new_figure(1.4)
    axes = fig.subplots(2, 2, sharex=True, sharey=True).ravel()
    cmap = colormaps["Greens"]
    norm = Normalize(vmin=-0.6, vmax=2.4)  # light greens: black text stays readable, 1/20 still green
    used = set()
    for w_i, (ax, w) in enumerate(zip(axes, warps)):
        frac = counts[:, :, w_i] / n_pairs
        ax.imshow(np.ma.masked_equal(frac, 0.0), cmap=cmap, norm=norm, aspect="auto")  # fill the width: 2x sharp
        for i in range(len(bms)):
            for j in range(len(bns)):
                n = int(counts[i, j, w_i])
                if n:
                    ax.text(j, i, f"{n}/{n_pairs}", ha="center", va="center", fontsize=9, color="#1a1a1a")
                    continue
                codes = [c for c in everywhere if everywhere[c][i, j, w_i]] or [
                    c for c in somewhere if somewhere[c][i, j, w_i]
                ]
                code = codes[0]
                used.add(code)
                face, label = REASON_STYLE.get(code, ("#dddddd", code))
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=face, edgecolor="none", linewidth=0.0))
                ax.text(j, i, label, ha="center", va="center", fontsize=9, color="#333333", linespacing=1.0)
        wy, wx = WARP_GRID[w]
        ax.set_title(f"num_warps = {w}（warp 排成 {wy}×{wx}）", fontsize=10)
        ax.set_xticks(range(len(bns)), [str(v) for v in bns])
        ax.set_yticks(range(len(bms)), [str(v) for v in bms])
        ax.set_xticks(np.arange(len(bns) + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(len(bms) + 1) - 0.5, minor=True)
        ax.tick_params(which="both", length=0)
        ax.grid(False)
        ax.set_axisbelow(False)  # the white cell borders go over the image and the reason patches
        ax.grid(which="minor", color="white", linewidth=1.2)
        for spine in ax.spines.values():
            spine.set_visible(False)
    # the axes are named once, in the title: a y label beside each left panel would take the width
    # a cell needs for its label
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
    fig.legend(handles=handles, loc="outside lower center", ncol=1, fontsize=9)
    fig.suptitle("哪些 (BLOCK_M, BLOCK_N, num_warps) 能启动\n（每格一个块形：行是 BLOCK_M，列是 BLOCK_N）")
    return fig
