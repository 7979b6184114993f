"""``python -m schedlab``: the lecture's four demos on the console, and two small tools.

::

    python -m schedlab                 # the four demos (same as `demos`)
    python -m schedlab demos 1 3       # only demos 1 and 3
    python -m schedlab top 512 14336 4096 -n 10
    python -m schedlab explain 256 128 32 8 4 1  4096 4096 4096
    python -m schedlab search 4096 4096 4096 --strategy random model --seeds 100
    python -m schedlab buckets 4096 4096 --M-max 512 --tol 0.05

Every number printed comes from :mod:`schedlab.analysis` / :mod:`schedlab.model`
and is formatted by :mod:`schedlab.render`; the observations are sentences built
around those numbers, never numbers typed into the text.
"""

from __future__ import annotations

import argparse
import io
import os
import sys

import numpy as np

from . import cli_tuners, render
from .analysis import LECTURE_SHAPES, landscape, sensitivity, space_summary, transfer
from .console import print_header, print_observations, print_render_table
from .hardware import H100_TC
from .model import TERMS, explain
from .search import DEFAULT_BUDGET, DEFAULT_NOISE, STRATEGIES, compare
from .space import SPACE, GemmConfig, reasons

__all__ = ["main", "DEMOS"]

SQUARE = (4096, 4096, 4096)
_TIE = 1 + 1e-9  # time/best at or below this counts as "as fast as the best"
NEAR, FAR = 1.05, 2.0  # "within 5 %" and "within 2x" of the best
_NEAR_S = render.fmt_percent(NEAR - 1)
_FAR_S = f"{FAR:g} 倍"


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
    return [name for name, t in bd.terms().items() if name != bd.bottleneck and t >= worst * (1 - 1e-9)]


def _term(bd) -> str:
    """The bottleneck's Chinese name in quotes, with any tied terms."""
    ties = _tied_terms(bd)
    quoted = [f"\u201c{TERMS[name]}\u201d" for name in [bd.bottleneck, *ties]]
    return quoted[0] + (f"（与{'、'.join(quoted[1:])}持平）" if ties else "")


def _ratio_span(lo: float, hi: float) -> str:
    a, b = render.fmt_ratio(lo), render.fmt_ratio(hi)
    return a if a == b else f"{a}–{b}"


# --- demo 1 -------------------------------------------------------------------------------


def demo1_space() -> None:
    print_header("演示 1：调度的旋钮和配置空间")
    print_render_table(render.knob_table())
    s = space_summary()
    pruned = s.n_configs - s.n_launchable
    multi = sum(n for k, n in s.n_by_failures.items() if k >= 2)
    print(f"\n一共 {s.n_configs} 个组合，能启动的 {s.n_launchable} 个（{render.fmt_percent(s.launchable_fraction)}）。")
    print_render_table(render.reasons_table(s))
    why = {  # what each pruning rule means, keyed by Reason.code
        "registers": "warp 分到的块越大，累加器占的寄存器越多",
        "mma": "warp 分到的块比一条 mma 还小",
        "smem": "stages × (BM + BN) × BK × 2 字节放不下",
    }
    counted = "；".join(f"\u201c{r.message}\u201d{n} 个" + (f"（{why[r.code]}）" if r.code in why else "")
                       for r, n in s.reason_counts)
    print_observations([
        "在 Halide / TVM 里，这些是调度原语的参数：split 的大小（块）、bind 到线程（warp 数）、cache_read 到共享内存再加流水线"
        "（stages）、块的顺序（GROUP_M）。在 Triton 里，算法（块级的程序，第 10 讲 §10）只写一次，这些作为 tl.constexpr 的元参数"
        "交给 @triton.autotune。",
        f"{s.n_configs} 个组合里有 {pruned} 个（{render.fmt_percent(pruned / s.n_configs)}）根本不能启动，"
        f"其中 {multi} 个同时有两个或更多原因。按原因数：{counted}。",
        "这些都不用测量就能判断——调优器先把它们剪掉（Triton 也会剪掉共享内存超限的配置），"
        f"后面的演示只在能启动的 {s.n_launchable} 个配置里比较。",
    ])


# --- demo 2 -------------------------------------------------------------------------------


def demo2_landscape() -> None:
    shape_s = render.fmt_shape(SQUARE)
    print_header(f"演示 2：{shape_s} FP16 矩阵乘法的\u201c地形\u201d（模型时间）")
    land = landscape(SQUARE)
    print_render_table(render.top_table(land, k=6))
    q = land.quantiles()
    n5, n2 = land.n_within(NEAR), land.n_within(FAR)
    print(f"\n能启动的 {len(land.configs)} 个配置里：离最快 {_NEAR_S} 以内的 {n5} 个、{_FAR_S}以内的 {n2} 个；相对最快的分位数："
          + "、".join(f"{'中位数' if p == 50 else f'{p}%'} {render.fmt_ratio(v)}" for p, v in q.items()) + "。")

    best = land.best
    ratio = land.ratio
    ties = [c for c, r in zip(land.configs, ratio) if r <= _TIE]
    tiles = sorted({(c.bm, c.bn, c.warps) for c in ties})
    pairs: dict[int, list[int]] = {}
    for c in ties:
        pairs.setdefault(c.bk, []).append(c.stages)
    depth = min(c.bk * (c.stages - 1) for c in ties)
    same_tile = [(c, r) for c, r in zip(land.configs, ratio) if (c.bm, c.bn, c.warps) in tiles]
    depth_rule = all((r <= _TIE) == (c.bk * (c.stages - 1) >= depth) for c, r in same_tile)
    groups = sorted({c.group for c in ties})
    bd = explain(best, *SQUARE)
    nxt = ratio[ratio > _TIE]
    tile_s = "；".join(f"{bm}×{bn} 的块、{w} 个 warp" for bm, bn, w in tiles)
    obs1 = (f"和最快一样快的有 {len(ties)} 个配置，都是 {tile_s}；BK 和 stages 只要合起来藏得住延迟就一样快（"
            + "、".join(f"BK = {bk} 配 {_span(st)} 级" for bk, st in sorted(pairs.items()))
            + (f"，即 BK × (stages − 1) ≥ {depth}" if depth_rule else "") + "）")
    if groups == list(SPACE["group"]):
        obs1 += f"；GROUP_M 取 {_join(groups, ' / ')} 都一样"
    obs1 += (f"。最优点的瓶颈是{_term(bd)}，每个 k 步 {render.fmt_time(bd.terms()[bd.bottleneck])}。"
             "和第 10 讲 §8 的分析一致：块要大到每次乘加分到的共享内存 / L2 字节够少，流水线要深到藏住延迟，又不能大到共享内存放不下。")
    obs2 = f"\u201c好\u201d的配置很稀少：{len(land.configs)} 个里只有 {n5} 个在最快的 {_NEAR_S} 以内"
    if nxt.size:
        obs2 += f"（没和最快打平的配置至少慢 {render.fmt_percent(nxt.min() - 1)}）"
    obs2 += f"，随便选一个（中位数）要慢 {render.fmt_ratio(q[50], 1)} 倍。这就是为什么要搜索，而且搜索要聪明（04 脚本）。"
    frac = land.best_tflops * 1e12 / H100_TC.peak_flops
    obs3 = (f"这个模型给出的最高 {render.fmt_tflops(land.best_tflops)} TFLOPS，是 H100 稠密 FP16 峰值"
            f"（{render.fmt_tflops(H100_TC.peak_flops / 1e12)} TFLOPS）的 {render.fmt_percent(frac)}——比真实的 cuBLAS 乐观："
            "模型没有算功耗导致的降频、指令开销、TMA / WGMMA 的细节。用它研究搜索策略没问题，不要拿它的绝对数字去预测真机。")
    print_observations([obs1, obs2, obs3])


# --- demo 3 -------------------------------------------------------------------------------


def demo3_shapes() -> None:
    print_header("演示 3：形状一变，最优配置就变")
    tr = transfer(LECTURE_SHAPES)
    print_render_table(render.optima_table(tr))
    print()
    print_render_table(render.transfer_table(tr))

    shapes, optima, m = tr.shapes, tr.optima, tr.matrix
    n = len(shapes)
    thin = min(range(n), key=lambda i: shapes[i].M)  # the decode shape: fewest rows
    others = [i for i in range(n) if i != thin]
    big = max(range(n), key=lambda i: shapes[i].flop)
    sharing = [i for i in range(n) if optima[i] == optima[big]]
    t_opt, big_opt = optima[thin], optima[big]
    bd_thin = explain(t_opt, *shapes[thin].mnk)
    bd_big_on_thin = explain(big_opt, *shapes[thin].mnk)
    on_thin = m[big, thin]
    thin_elsewhere = m[thin, others]

    obs1 = (f"大 GEMM 喜欢大块、深流水线（{render.shape_short(shapes[big])} 的最优 {render.fmt_config(big_opt)}）；"
            f"decode 那种 M = {shapes[thin].M} 的\u201c细长\u201d矩阵乘法，最优是 {t_opt.bm}×{t_opt.bn} 的小块、"
            f"{bd_thin.blocks} 个块，瓶颈是{_term(bd_thin)}"
            "——要让尽量多的 SM 一起读权重（第 1 讲），而不是让少数几个块各自算一大块补齐的 0。")
    same = "、".join(render.shape_short(shapes[i]) for i in sharing)
    obs2 = (f"{same} 这 {len(sharing)} 种形状的最优恰好是同一个配置" if len(sharing) > 1
            else f"{render.shape_short(shapes[big])} 的最优配置是它自己独有的")
    obs2 += (f"；把它用在 decode 形状上慢 {render.fmt_ratio(on_thin)} 倍（M = {shapes[thin].M} 要补齐到 {big_opt.bm} 行，"
             f"而且只有 {bd_big_on_thin.blocks} 个块，{H100_TC.n_sm} 个 SM 大部分闲着）；反过来，decode 的最优"
             f"（{t_opt.bm}×{t_opt.bn} 的小块）用在另外 {len(others)} 种形状上慢 "
             f"{_ratio_span(thin_elsewhere.min(), thin_elsewhere.max())} 倍。"
             "所以 cuBLAS 为不同的形状准备了很多个内核和一套启发式，Triton 的 @triton.autotune 按 key（例如 M、N、K）分别调优并缓存结果。")
    obs3 = ("推理里的形状很多：decode 的批大小一直在变（M = 1 … 几百），prefill 的长度也在变，每层还有 QKV、O、gate/up、down 四种 N×K。"
            "实际的做法是按桶调优（第 12 讲 §8 的桶）、加缓存，或者用学到的代价模型直接预测（04 脚本演示 1）。")
    print_observations([obs1, obs2, obs3])


# --- demo 4 -------------------------------------------------------------------------------


def demo4_sensitivity() -> None:
    print_header(f"演示 4：在最优点附近一次只改一个参数（{render.fmt_shape(SQUARE)}）")
    sens = sensitivity(SQUARE)
    print_render_table(render.sensitivity_table(sens))

    base = dict(zip(SPACE, sens.base.as_tuple()))
    ratios = {k: dict(v) for k, v in sens.ratios.items()}
    label = render.KNOB_LABELS

    def smaller(knob, steps=1):
        vals = SPACE[knob]
        i = vals.index(base[knob]) - steps
        return (vals[i], ratios[knob][vals[i]]) if i >= 0 else None

    blocks = []
    for knob in ("bm", "bn"):
        one, two = smaller(knob, 1), smaller(knob, 2)
        if one and np.isfinite(one[1]):
            text = f"{label[knob]} 小一号（{one[0]}）慢 {render.fmt_ratio(one[1])} 倍"
            if two and np.isfinite(two[1]):
                text += f"、再小一号（{two[0]}）慢 {render.fmt_ratio(two[1])} 倍"
            blocks.append(text)
    failing = []  # (knob, values, reason messages) where the changed config cannot launch
    for knob, cells in ratios.items():
        by_reason: dict[str, list[int]] = {}
        for v, r in cells.items():
            if not np.isfinite(r):
                cfg = GemmConfig(**{**base, knob: v})
                for why in reasons(cfg):
                    by_reason.setdefault(why.message, []).append(v)
        failing += [(knob, vs, msg) for msg, vs in by_reason.items()]
    fail_s = "；".join(f"{label[k]} = {_join(vs, ' / ')}：{msg}" for k, vs, msg in failing)
    def worst(knobs):
        return max((r for k in knobs for r in ratios[k].values() if np.isfinite(r)), default=1.0)

    most = worst(("bm", "bn")) >= worst(k for k in ratios if k not in ("bm", "bn"))
    obs1 = (f"块大小{'最' if most else '很'}敏感：" + "，".join(blocks) + "（复用不够，第 10 讲 §8.3 的账）。"
            if blocks else "")
    obs1 += f"不能启动的邻居（—）各有原因——{fail_s}。" if failing else "所有邻居都能启动。"

    st = ratios["stages"]
    s_vals = SPACE["stages"]
    flat_after = [v for v in s_vals if v > base["stages"] and np.isfinite(st[v]) and st[v] <= _TIE]
    upto = [st[v] for v in s_vals if v <= base["stages"] and np.isfinite(st[v])]
    trend = "越多越好" if all(a >= b for a, b in zip(upto, upto[1:])) else "的影响并不单调"
    obs2 = (f"stages {trend}（{s_vals[0]} → {base['stages']} 级：{render.fmt_ratio(st[s_vals[0]])} → "
            f"{render.fmt_ratio(st[base['stages']])}），直到够藏住延迟")
    obs2 += f"；{_join(flat_after, ' / ')} 级不再变好。" if flat_after else "。"
    g = ratios["group"]
    bd = explain(sens.base, *sens.shape)
    if all(np.isfinite(r) and r <= _TIE for r in g.values()) and bd.bottleneck != "t_hbm_s":
        obs2 += (f"GROUP_M 怎么取都一样：最优点的瓶颈是{_term(bd)}，L2 分组省下的 HBM 流量"
                 f"（HBM 项只占一步的 {render.fmt_percent(bd.t_hbm_s / bd.t_step_s)}）不影响时间。")
    obs3 = ("参数之间有很强的相互作用（块越大，能用的 stages 越少；warp 数决定每个 warp 的块），所以\u201c一次调一个参数\u201d的"
            "坐标下降容易卡在局部最优——这是自动调优要面对的地形。")
    print_observations([o for o in (obs1, obs2, obs3) if o])


DEMOS = {1: demo1_space, 2: demo2_landscape, 3: demo3_shapes, 4: demo4_sensitivity}


# --- tools --------------------------------------------------------------------------------


def cmd_demos(args) -> int:
    for i in sorted(set(args.which or DEMOS)):
        DEMOS[i]()
    return 0


def cmd_top(args) -> int:
    shape = (args.M, args.N, args.K)
    land = landscape(shape)  # validates the shape (ValueError names M, N or K)
    print_render_table(render.top_table(land, k=args.n))
    bd = explain(land.best, *land.shape)
    q = land.quantiles()
    print(f"\n离最快 {_NEAR_S} 以内的 {land.n_within(NEAR)} 个；中位数慢 {render.fmt_ratio(q[50])} 倍；"
          f"最快配置 {render.fmt_config(land.best)} 的瓶颈是{_term(bd)}。")
    return 0


def cmd_explain(args) -> int:
    cfg = GemmConfig(args.BM, args.BN, args.BK, args.WARPS, args.STAGES, args.GROUP)  # ValueError names the knob
    bd = explain(cfg, args.M, args.N, args.K)  # ValueError if it cannot launch or the shape is bad
    print_render_table(render.breakdown_summary_table(bd))
    print()
    print_render_table(render.breakdown_table(bd))
    land = landscape(bd.shape)
    rank = int((land.time_s < bd.time_s * (1 - 1e-12)).sum()) + 1
    print(f"\n瓶颈：{_term(bd)}。"
          f"在 {render.fmt_shape(bd.shape)} 的 {len(land.configs)} 个能启动的配置里排第 {rank}，"
          f"是最快的 {render.fmt_ratio(bd.time_s / land.best_time_s)} 倍（最快 {render.fmt_config(land.best)}，"
          f"{render.fmt_time(land.best_time_s)}）。")
    return 0


# --- search -------------------------------------------------------------------------------

#: A search run shorter than this shows no progress bar (tqdm's ``delay``).
PROGRESS_DELAY_S = 1.0
#: Most seeds one `search` run may ask for (memory grows with seeds × 3744 configs).
MAX_SEEDS = 1000


def cmd_search(args) -> int:
    shape = (args.M, args.N, args.K)
    land = landscape(shape)  # validates the shape (ValueError names M, N or K)
    chosen = set(args.strategy or STRATEGIES)
    names = tuple(name for name in STRATEGIES if name in chosen)  # the comparison's order, no repeats
    from tqdm import tqdm

    with tqdm(total=len(names), desc="搜索", unit="个策略", file=sys.stderr, delay=PROGRESS_DELAY_S, leave=False,
              disable=None, dynamic_ncols=True) as bar:

        def progress(done: int, total: int, label: str) -> None:
            bar.set_postfix_str(label, refresh=False)
            bar.update(done - bar.n)

        comparison = compare([shape], names, seeds=range(args.seeds), budget=args.budget, noise=args.noise,
                             progress=progress)
    print_render_table(render.search_shape_table(comparison, shape))
    n, k = len(land.configs), land.n_within(NEAR)
    print(f"\n{n} 个能启动的配置里，离最优 {_NEAR_S} 以内的有 {k} 个（随机抽一个抽中的概率 {render.fmt_percent(k / n, 1)}）；"
          f"最优 {render.fmt_config(land.best)}，{render.fmt_time(land.best_time_s)}。"
          f"表里的次数按配置的真实（无噪声）时间判断，调优器自己只看得到带噪声的测量。")
    return 0


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"不是整数 / not an integer: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"必须是正整数 / must be positive: {value}")
    return value


def _int_up_to(maximum: int):
    """An argparse type: a positive integer no larger than ``maximum``."""
    def parse(text: str) -> int:
        value = _positive_int(text)
        if value > maximum:
            raise argparse.ArgumentTypeError(f"最大 {maximum} / at most {maximum}: {value}")
        return value
    return parse


def _number_in(low: float, high: float | None = None):
    """An argparse type: a finite number ``>= low`` and, when given, ``< high``."""
    where = f"[{low:g}, {high:g})" if high is not None else f">= {low:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"不是数 / not a number: {text!r}") from None
        if not (np.isfinite(value) and value >= low and (high is None or value < high)):
            raise argparse.ArgumentTypeError(f"必须是有限的数，{where} / must be a finite number {where}: {text!r}")
        return value
    return parse


_seed_count = _int_up_to(MAX_SEEDS)
_non_negative = _number_in(0.0)


def _noise(text: str) -> float:
    """An argparse type: a noise sigma in ``[0, MAX_NOISE]``."""
    from .search import MAX_NOISE

    value = _non_negative(text)
    if value > MAX_NOISE:
        raise argparse.ArgumentTypeError(f"最大 {MAX_NOISE:g} / at most {MAX_NOISE:g}: {text!r}")
    return value


def _demo_number(text: str) -> int:
    # (`choices` with nargs="*" rejects an empty list on Python 3.11, hence a type)
    try:
        value = int(text)
    except ValueError:
        value = None
    if value not in DEMOS:
        raise argparse.ArgumentTypeError(f"没有这个演示 / no such demo: {text!r}（可选 {_join(sorted(DEMOS), ', ')}）")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schedlab",
        description="GPU 矩阵乘法内核的调度空间（H100 解析模型，第 13 讲）。不带子命令时运行全部四个演示。"
                    " / The schedule space of a GPU matmul kernel on an analytical H100 model.",
    )
    parser.set_defaults(func=cmd_demos, which=None, command="demos")
    sub = parser.add_subparsers(title="子命令 / subcommands", dest="command")

    p = sub.add_parser("demos", help="讲义的四个演示 / the lecture's demos",
                       description="运行讲义的演示（默认全部）：1 配置空间与剪枝，2 4096³ 的地形，3 形状与迁移，4 单参数敏感性。")
    p.add_argument("which", nargs="*", type=_demo_number, metavar="N",
                   help="要运行的演示编号 1–4（默认全部） / demo numbers, default all")
    p.set_defaults(func=cmd_demos)

    p = sub.add_parser("top", help="某个形状上最快的配置 / fastest configs for a shape",
                       description="列出 M×N×K FP16 矩阵乘法上模型时间最短的配置。")
    for name in ("M", "N", "K"):
        p.add_argument(name, type=int, help=f"GEMM 的 {name}（正整数）")
    p.add_argument("-n", type=_positive_int, default=10, help="列出几个（默认 10） / how many (default 10)")
    p.set_defaults(func=cmd_top)

    p = sub.add_parser("explain", help="一个配置的时间花在哪里 / where one config's time goes",
                       description="把一个配置在 M×N×K 上的模型时间拆成各项，并指出瓶颈。"
                                   f" 旋钮取值：BM, BN ∈ {SPACE['bm']}；BK ∈ {SPACE['bk']}；WARPS ∈ {SPACE['warps']}；"
                                   f"STAGES ∈ {SPACE['stages']}；GROUP ∈ {SPACE['group']}。")
    for name, knob in (("BM", "bm"), ("BN", "bn"), ("BK", "bk"), ("WARPS", "warps"), ("STAGES", "stages"),
                       ("GROUP", "group")):
        p.add_argument(name, type=int, help=f"{render.KNOB_LABELS[knob]}，取 {' / '.join(map(str, SPACE[knob]))}")
    for name in ("M", "N", "K"):
        p.add_argument(name, type=int, help=f"GEMM 的 {name}（正整数）")
    p.set_defaults(func=cmd_explain)

    labels = "；".join(f"{name}：{render.STRATEGY_LABELS[name]}" for name in STRATEGIES)
    p = sub.add_parser("search", help="比较搜索策略：测多少次才到最优的 5%% 以内 / compare tuning strategies",
                       description="在 M×N×K 上用模型当\u201c硬件\u201d，让每种搜索策略用同样的预算、各跑 --seeds 个种子，"
                                   "报告相信的最优配置第一次真的落在最优的 5% 以内时用了几次测量"
                                   "（中位数、90% 分位数、预算内到达的比例）。"
                                   f"策略：{labels}。"
                                   " / Trials until a strategy's believed-best config is within 5% of the optimum.")
    for name in ("M", "N", "K"):
        p.add_argument(name, type=int, help=f"GEMM 的 {name}（正整数）")
    p.add_argument("--strategy", nargs="+", action="extend", choices=tuple(STRATEGIES), metavar="NAME",
                   help=f"只比较这些策略（可写多个，默认全部）：{', '.join(STRATEGIES)}")
    p.add_argument("--seeds", type=_seed_count, default=100,
                   help=f"每种策略跑几个种子（0 … n−1，默认 100，最多 {MAX_SEEDS}） / number of seeds")
    p.add_argument("--budget", type=_positive_int, default=DEFAULT_BUDGET,
                   help=f"每次搜索最多测几个配置（默认 {DEFAULT_BUDGET}） / measurements per run")
    p.add_argument("--noise", type=_noise, default=DEFAULT_NOISE,
                   help=f"测量噪声：对数正态因子的 σ（默认 {DEFAULT_NOISE:g}，即约 {100 * DEFAULT_NOISE:g}%%） / noise sigma")
    p.set_defaults(func=cmd_search)
    _add_buckets_parser(sub)  # defined in the "learned cost model and buckets" section at the end
    cli_tuners.add_parsers(sub)  # export, tuners
    return parser


def _tolerant_streams() -> None:
    """Never die on a console that cannot encode Chinese: replace what it cannot show."""
    for stream in (sys.stdout, sys.stderr):
        enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if enc != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


def main(argv=None) -> int:
    """Entry point of ``python -m schedlab`` and the ``schedlab`` script; returns the exit status."""
    _tolerant_streams()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # a write error surfaces here, not at interpreter exit
        return status
    except ValueError as err:
        print(f"schedlab {args.command}: 错误 / error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `python -m schedlab | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT
        print(f"\nschedlab {args.command}: 已中断 / interrupted", file=sys.stderr)
        return 130
    except OSError as err:  # e.g. `> /dev/full`: the output could not be written
        _discard_stdout()
        print(f"schedlab {args.command}: 错误 / error: 无法写出 / cannot write output: {err.strerror or err}",
              file=sys.stderr)
        return 1


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of unwritten output cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):  # stdout without a file descriptor
        pass


# --- learned cost model and buckets -----------------------------------------------------------
# (appended section: `python -m schedlab buckets N K`)

#: A `buckets` sweep shorter than this shows no progress bar (tqdm's ``delay``).
BUCKETS_PROGRESS_DELAY_S = 1.0
#: Largest ``--M-max`` of `buckets` (the sweep evaluates every launchable config about twice per 16 rows).
MAX_M = 4096


def bucket_grid(m_max: int) -> tuple[int, ...]:
    """Token counts of `buckets`: 1, both ends ``16 j + 1`` and ``16 (j + 1)`` of every 16-row interval, and ``m_max``.

    ``bucket_grid(512)`` is :data:`schedlab.buckets.DECODE_MS`.
    """
    return tuple(sorted({1, m_max} | set(range(16, m_max + 1, 16)) | set(range(17, m_max + 1, 16))))


def _bucket_sweep(N: int, K: int, Ms: tuple[int, ...]):
    """:func:`schedlab.buckets.sweep` one ``M`` at a time, with a progress bar on stderr for long sweeps."""
    from tqdm import tqdm

    from . import buckets as B

    rows, elapsed, one = [], 0.0, None
    with tqdm(Ms, desc="扫描 M", unit="个 M", file=sys.stderr, delay=BUCKETS_PROGRESS_DELAY_S, leave=False,
              disable=None, dynamic_ncols=True) as bar:
        for M in bar:
            one = B.sweep(N, K, Ms=(M,))
            rows.append(one.time_s[0])
            elapsed += one.elapsed_s
    return B.Sweep(N=N, K=K, Ms=Ms, configs=one.configs, time_s=np.stack(rows), elapsed_s=elapsed)


def cmd_buckets(args) -> int:
    from . import buckets as B
    from .analysis import LLAMA8B_PROJECTIONS
    from .space import check_shape

    _, N, K = check_shape(1, args.N, args.K)  # ValueError names N or K
    Ms = bucket_grid(args.M_max)
    tol = args.tol
    sw = _bucket_sweep(N, K, Ms)
    greedy, exact = B.greedy_cover(sw, tol), B.exact_cover(sw, tol)
    down = B.power_of_two_cover(sw, tol)
    top_power = 1 << (Ms[-1] - 1).bit_length()
    up = B.power_of_two_cover(sw, tol, "up") if top_power in Ms else None
    name = next((n for n, n_, k_ in LLAMA8B_PROJECTIONS if (n_, k_) == (N, K)), "—")
    study = B.BucketStudy(name=name, sweep=sw, greedy=greedy, exact=exact, intervals=B.interval_cover(sw, tol),
                          power_of_two=down, power_of_two_up=up)
    tol_s = render.fmt_percent(tol, 1) if round(100 * tol) != 100 * tol else render.fmt_percent(tol)
    print(f"M × {N} × {K}：M = {Ms[0]} … {Ms[-1]} 的 {len(Ms)} 个 M（1 和每个 16 行区间的两端 16j、16j + 1），"
          f"每个 M 都要在自己最优的 {tol_s} 以内。")
    print_render_table(render.cover_table(greedy))
    print()
    print_render_table(render.bucket_table([study]))

    if exact is None:
        verdict = "精确搜索超过了节点预算，没能确认贪心用的是不是最少"
    elif study.greedy_optimal:
        verdict = f"精确搜索确认 {exact.n_configs} 个就是最少"
    else:
        verdict = f"精确搜索找到只用 {exact.n_configs} 个配置的覆盖（贪心用了 {greedy.n_configs} 个）"
    worst_m = sw.Ms[int(np.argmax(down.slowdown))]
    lines = [f"{verdict}。按 2 的幂向下取用 {down.n_configs} 个配置，最坏慢 {render.fmt_ratio(down.worst)} 倍"
             f"（M = {worst_m}）"]
    if up is not None:
        lines.append(f"向上取用 {up.n_configs} 个，最坏慢 {render.fmt_ratio(up.worst)} 倍"
                     f"（M = {sw.Ms[int(np.argmax(up.slowdown))]}）")
    else:
        lines.append(f"向上取要用 M = {top_power} 的最优，它不在 1 … {Ms[-1]} 里，略去")
    print("\n" + "；".join(lines) + f"。（{sw.n_evaluated} 次模型求值，{sw.elapsed_s:.1f} s）")
    return 0


_m_max = _int_up_to(MAX_M)
_tolerance = _number_in(0.0, 10.0)


def _add_buckets_parser(sub) -> None:
    p = sub.add_parser("buckets", help="decode 的各个 M 要几个配置，和按 2 的幂分桶比 / bucket covers over M",
                       description="固定一种投影的 N、K，在 M = 1 … --M-max 上（1 和每个 16 行区间的两端）算出每个 M 的最优，"
                                   "找出最少几个配置能让每个 M 都在自己最优的 --tol 以内（贪心集合覆盖，并用精确搜索核对），"
                                   "按 M 列出各段用哪个配置，并和按 2 的幂分桶（向下取、向上取）比较。"
                                   " / The fewest configs keeping every M within --tol of its optimum, vs power-of-two buckets.")
    for name in ("N", "K"):
        p.add_argument(name, type=int, help=f"GEMM 的 {name}（正整数；例如 Llama-3-8B 的 O 投影 {name} = 4096）")
    p.add_argument("--M-max", dest="M_max", type=_m_max, default=512,
                   help=f"M 的上限（默认 512，最大 {MAX_M}） / largest M")
    p.add_argument("--tol", type=_tolerance, default=0.05,
                   help="容差：每个 M 允许比自己的最优慢多少（默认 0.05，即 5%%） / tolerance")
    p.set_defaults(func=cmd_buckets)


if __name__ == "__main__":
    sys.exit(main())
