"""The lecture's four demos on the console (``python -m schedlab demos``), one function each.

Every number printed comes from :mod:`schedlab.studies` / :mod:`schedlab.core.model` and is
formatted by :mod:`schedlab.render`; the observations are sentences built around those
numbers, never numbers typed into the text. :data:`DEMOS` numbers them for the command line
(:mod:`schedlab.cli.main`), which also reuses :data:`NEAR`, :data:`NEAR_TEXT` and :func:`bottleneck_phrase`.
"""

from __future__ import annotations

import numpy as np

from schedlab.console import print_header, print_observations, print_render_table
from schedlab.core.hardware import Hardware
from schedlab.core.knobs import SPACE, GemmConfig
from schedlab.core.landscape import TIE_RTOL, landscape
from schedlab.core.launch import reasons
from schedlab.core.model import explain
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.render.labels import KNOB_LABELS, TERM_LABELS, fmt_shape, launch_reason_label, shape_short
from schedlab.render.landscape import top_table
from schedlab.render.sensitivity import sensitivity_table
from schedlab.render.shapes import optima_table, transfer_table
from schedlab.render.space import knob_table, reasons_table
from schedlab.render.table import fmt_config, fmt_percent, fmt_ratio, fmt_tflops, fmt_time
from schedlab.studies.sensitivity import sensitivity
from schedlab.studies.shapes import transfer
from schedlab.studies.space import space_summary

__all__ = [
    "DEMOS",
    "FAR",
    "NEAR",
    "NEAR_TEXT",
    "SQUARE",
    "bottleneck_phrase",
    "demo1_space",
    "demo2_landscape",
    "demo3_shapes",
    "demo4_sensitivity",
]

#: The square shape of demos 2 and 4.
SQUARE = (4096, 4096, 4096)
#: "Within 5 %" and "within 2x" of the best, and the first as printed ("5 %").
NEAR, FAR = 1.05, 2.0
NEAR_TEXT = fmt_percent(NEAR - 1)
_FAR_TEXT = f"{FAR:g} 倍"


def _join(items, sep="、") -> str:
    return sep.join(map(str, items))


def _span(values) -> str:
    """``a–b`` for a contiguous run of integers, else ``a、b、c``; ``a`` for one value."""
    values = sorted(set(values))
    if len(values) == 1:
        return str(values[0])
    if values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}–{values[-1]}"
    return _join(values)


def _tied_terms(bd) -> list[str]:
    """Terms other than the bottleneck that equal it (the model's max picks the first)."""
    worst = bd.terms()[bd.bottleneck]
    return [name for name, t in bd.terms().items() if name != bd.bottleneck and t >= worst * (1 - TIE_RTOL)]


def bottleneck_phrase(bd) -> str:
    """The bottleneck's Chinese name in quotes, with any tied terms."""
    ties = _tied_terms(bd)
    quoted = [f"\u201c{TERM_LABELS[name]}\u201d" for name in [bd.bottleneck, *ties]]
    return quoted[0] + (f"（与{'、'.join(quoted[1:])}持平）" if ties else "")


def _ratio_span(lo: float, hi: float) -> str:
    a, b = fmt_ratio(lo), fmt_ratio(hi)
    return a if a == b else f"{a}–{b}"


# --- demo 1 -------------------------------------------------------------------------------


def demo1_space(hw: Hardware) -> None:
    print_header("演示 1：调度的旋钮和配置空间")
    print_render_table(knob_table())
    s = space_summary(hw)
    pruned = s.n_configs - s.n_launchable
    multi = sum(n for k, n in s.n_by_failures.items() if k >= 2)
    print(f"\n一共 {s.n_configs} 个组合，能启动的 {s.n_launchable} 个（{fmt_percent(s.launchable_fraction)}）。")
    print_render_table(reasons_table(s))
    why = {  # what each pruning rule means, keyed by Reason.code
        "registers": "warp 分到的块越大，累加器占的寄存器越多",
        "mma": "warp 分到的块比一条 mma 还小",
        "smem": "stages × (BM + BN) × BK × 2 字节放不下",
    }
    counted = "；".join(
        f"\u201c{launch_reason_label(r, hw)}\u201d{n} 个" + (f"（{why[r.code]}）" if r.code in why else "")
        for r, n in s.reason_counts
    )
    print_observations(
        [
            "在 Halide / TVM 里，这些是调度原语的参数：split 的大小（块）、bind 到线程（warp 数）、cache_read 到共享内存再加流水线"
            "（stages）、块的顺序（GROUP_M）。在 Triton 里，算法（块级的程序，第 10 讲 §10）只写一次，这些作为 tl.constexpr 的元参数"
            "交给 @triton.autotune。",
            f"{s.n_configs} 个组合里有 {pruned} 个（{fmt_percent(pruned / s.n_configs)}）根本不能启动，"
            f"其中 {multi} 个同时有两个或更多原因。按原因数：{counted}。",
            "这些都不用测量就能判断——调优器先把它们剪掉（Triton 也会剪掉共享内存超限的配置），"
            f"后面的演示只在能启动的 {s.n_launchable} 个配置里比较。",
        ]
    )


# --- demo 2 -------------------------------------------------------------------------------


def demo2_landscape(hw: Hardware) -> None:
    shape_s = fmt_shape(SQUARE)
    print_header(f"演示 2：{shape_s} FP16 矩阵乘法的\u201c地形\u201d（模型时间）")
    land = landscape(SQUARE, hw)
    print_render_table(top_table(land, k=6))
    q = land.quantiles()
    n5, n2 = land.n_within(NEAR), land.n_within(FAR)
    print(
        f"\n能启动的 {len(land.configs)} 个配置里：离最快 {NEAR_TEXT} 以内的 {n5} 个、{_FAR_TEXT}以内的 {n2} 个；相对最快的分位数："
        + "、".join(f"{'中位数' if p == 50 else f'{p}%'} {fmt_ratio(v)}" for p, v in q.items())
        + "。"
    )

    best = land.best
    fastest, *slower = land.tie_groups(2)
    ties = fastest.configs
    tied = set(ties)
    tiles = sorted({(c.bm, c.bn, c.warps) for c in ties})
    pairs: dict[int, list[int]] = {}
    for c in ties:
        pairs.setdefault(c.bk, []).append(c.stages)
    depth = min(c.bk * (c.stages - 1) for c in ties)
    same_tile = [c for c in land.configs if (c.bm, c.bn, c.warps) in tiles]
    depth_rule = all((c in tied) == (c.bk * (c.stages - 1) >= depth) for c in same_tile)
    groups = sorted({c.group for c in ties})
    bd = explain(best, *SQUARE, hw)
    tile_s = "；".join(f"{bm}×{bn} 的块、{w} 个 warp" for bm, bn, w in tiles)
    obs1 = (
        f"和最快一样快的有 {len(ties)} 个配置，都是 {tile_s}；BK 和 stages 只要合起来藏得住延迟就一样快（"
        + "、".join(f"BK = {bk} 配 {_span(st)} 级" for bk, st in sorted(pairs.items()))
        + (f"，即 BK × (stages − 1) ≥ {depth}" if depth_rule else "")
        + "）"
    )
    if groups == list(SPACE["group"]):
        obs1 += f"；GROUP_M 取 {_join(groups, ' / ')} 都一样"
    obs1 += (
        f"。最优点的瓶颈是{bottleneck_phrase(bd)}，每个 k 步 {fmt_time(bd.terms()[bd.bottleneck])}。"
        "和第 10 讲 §8 的分析一致：块要大到每次乘加分到的共享内存 / L2 字节够少，流水线要深到藏住延迟，又不能大到共享内存放不下。"
    )
    obs2 = f"\u201c好\u201d的配置很稀少：{len(land.configs)} 个里只有 {n5} 个在最快的 {NEAR_TEXT} 以内"
    if slower:
        obs2 += f"（没和最快打平的配置至少慢 {fmt_percent(slower[0].ratio - 1)}）"
    obs2 += f"，随便选一个（中位数）要慢 {fmt_ratio(q[50], 1)} 倍。这就是为什么要搜索，而且搜索要聪明（04 脚本）。"
    frac = land.best_tflops * 1e12 / hw.peak_flops
    obs3 = (
        f"这个模型给出的最高 {fmt_tflops(land.best_tflops)} TFLOPS，是 {hw.label} 稠密 FP16 峰值"
        f"（{fmt_tflops(hw.peak_flops / 1e12)} TFLOPS）的 {fmt_percent(frac)}——比真实的 cuBLAS 乐观："
        "模型没有算功耗导致的降频、指令开销、TMA / WGMMA 的细节。用它研究搜索策略没问题，不要拿它的绝对数字去预测真机。"
    )
    print_observations([obs1, obs2, obs3])


# --- demo 3 -------------------------------------------------------------------------------


def demo3_shapes(hw: Hardware) -> None:
    print_header("演示 3：形状一变，最优配置就变")
    tr = transfer(LECTURE_SHAPES, hw)
    print_render_table(optima_table(tr))
    print()
    print_render_table(transfer_table(tr))

    shapes, optima, m = tr.shapes, tr.optima, tr.matrix
    n = len(shapes)
    thin = min(range(n), key=lambda i: shapes[i].M)  # the decode shape: fewest rows
    others = [i for i in range(n) if i != thin]
    big = max(range(n), key=lambda i: shapes[i].flop)
    sharing = [i for i in range(n) if optima[i] == optima[big]]
    t_opt, big_opt = optima[thin], optima[big]
    bd_thin = explain(t_opt, *shapes[thin].mnk, hw)
    bd_big_on_thin = explain(big_opt, *shapes[thin].mnk, hw)
    on_thin = m[big, thin]
    thin_elsewhere = m[thin, others]

    obs1 = (
        f"大 GEMM 喜欢大块、深流水线（{shape_short(shapes[big])} 的最优 {fmt_config(big_opt)}）；"
        f"decode 那种 M = {shapes[thin].M} 的\u201c细长\u201d矩阵乘法，最优是 {t_opt.bm}×{t_opt.bn} 的小块、"
        f"{bd_thin.blocks} 个块，瓶颈是{bottleneck_phrase(bd_thin)}"
        "——要让尽量多的 SM 一起读权重（第 1 讲），而不是让少数几个块各自算一大块补齐的 0。"
    )
    same = "、".join(shape_short(shapes[i]) for i in sharing)
    obs2 = (
        f"{same} 这 {len(sharing)} 种形状的最优恰好是同一个配置"
        if len(sharing) > 1
        else f"{shape_short(shapes[big])} 的最优配置是它自己独有的"
    )
    obs2 += (
        f"；把它用在 decode 形状上慢 {fmt_ratio(on_thin)} 倍（M = {shapes[thin].M} 要补齐到 {big_opt.bm} 行，"
        f"而且只有 {bd_big_on_thin.blocks} 个块，{hw.n_sm} 个 SM 大部分闲着）；反过来，decode 的最优"
        f"（{t_opt.bm}×{t_opt.bn} 的小块）用在另外 {len(others)} 种形状上慢 "
        f"{_ratio_span(thin_elsewhere.min(), thin_elsewhere.max())} 倍。"
        "所以 cuBLAS 为不同的形状准备了很多个内核和一套启发式，Triton 的 @triton.autotune 按 key（例如 M、N、K）分别调优并缓存结果。"
    )
    obs3 = (
        "推理里的形状很多：decode 的批大小一直在变（M = 1 … 几百），prefill 的长度也在变，每层还有 QKV、O、gate/up、down 四种 N×K。"
        "实际的做法是按桶调优（第 12 讲 §8 的桶）、加缓存，或者用学到的代价模型直接预测（04 脚本演示 1）。"
    )
    print_observations([obs1, obs2, obs3])


# --- demo 4 -------------------------------------------------------------------------------


def demo4_sensitivity(hw: Hardware) -> None:
    print_header(f"演示 4：在最优点附近一次只改一个参数（{fmt_shape(SQUARE)}）")
    sens = sensitivity(SQUARE, hw=hw)
    print_render_table(sensitivity_table(sens))

    base = dict(zip(SPACE, sens.base.as_tuple()))
    ratios = {k: dict(v) for k, v in sens.ratios.items()}
    label = KNOB_LABELS

    blocks = []
    for knob in ("bm", "bn"):
        one, two = sens.step_down(knob, 1), sens.step_down(knob, 2)
        if one and np.isfinite(one.ratio):
            text = f"{label[knob]} 小一号（{one.value}）慢 {fmt_ratio(one.ratio)} 倍"
            if two and np.isfinite(two.ratio):
                text += f"、再小一号（{two.value}）慢 {fmt_ratio(two.ratio)} 倍"
            blocks.append(text)
    failing = []  # (knob, values, reason messages) where the changed config cannot launch
    for knob, cells in ratios.items():
        by_reason: dict[str, list[int]] = {}
        for v, r in cells.items():
            if not np.isfinite(r):
                cfg = GemmConfig(**{**base, knob: v})
                for why in reasons(cfg, hw):
                    by_reason.setdefault(launch_reason_label(why, hw), []).append(v)
        failing += [(knob, vs, msg) for msg, vs in by_reason.items()]
    fail_s = "；".join(f"{label[k]} = {_join(vs, ' / ')}：{msg}" for k, vs, msg in failing)

    def worst(knobs):
        return max((r for k in knobs for r in ratios[k].values() if np.isfinite(r)), default=1.0)

    most = worst(("bm", "bn")) >= worst(k for k in ratios if k not in ("bm", "bn"))
    obs1 = (
        f"块大小{'最' if most else '很'}敏感：" + "，".join(blocks) + "（复用不够，第 10 讲 §8.3 的账）。"
        if blocks
        else ""
    )
    obs1 += f"不能启动的邻居（—）各有原因——{fail_s}。" if failing else "所有邻居都能启动。"

    st = ratios["stages"]
    s_vals = SPACE["stages"]
    flat_after = [v for v in s_vals if v > base["stages"] and np.isfinite(st[v]) and st[v] <= 1 + TIE_RTOL]
    upto = [st[v] for v in s_vals if v <= base["stages"] and np.isfinite(st[v])]
    trend = "越多越好" if all(a >= b for a, b in zip(upto, upto[1:])) else "的影响并不单调"
    obs2 = (
        f"stages {trend}（{s_vals[0]} → {base['stages']} 级：{fmt_ratio(st[s_vals[0]])} → "
        f"{fmt_ratio(st[base['stages']])}），直到够藏住延迟"
    )
    obs2 += f"；{_join(flat_after, ' / ')} 级不再变好。" if flat_after else "。"
    g = ratios["group"]
    bd = explain(sens.base, *sens.shape, hw)
    if all(np.isfinite(r) and r <= 1 + TIE_RTOL for r in g.values()) and bd.bottleneck != "t_hbm_s":
        obs2 += (
            f"GROUP_M 怎么取都一样：最优点的瓶颈是{bottleneck_phrase(bd)}，L2 分组省下的 HBM 流量"
            f"（HBM 项只占一步的 {fmt_percent(bd.t_hbm_s / bd.t_step_s)}）不影响时间。"
        )
    obs3 = (
        "参数之间有很强的相互作用（块越大，能用的 stages 越少；warp 数决定每个 warp 的块），所以\u201c一次调一个参数\u201d的"
        "坐标下降容易卡在局部最优——这是自动调优要面对的地形。"
    )
    print_observations([o for o in (obs1, obs2, obs3) if o])


DEMOS = {1: demo1_space, 2: demo2_landscape, 3: demo3_shapes, 4: demo4_sensitivity}
