"""The console's own subcommands: ``demos``, ``top``, ``explain``, ``search`` and ``gpus``.

Each has ``<name>_arguments(parser)`` (its description and arguments, added by :func:`schedlab.cli.main.build_parser`
only when it is the subcommand given) and ``cmd_<name>(args)`` (runs it, ``args.hw`` the machine). The demos
themselves are :mod:`schedlab.cli.demos`.
"""

from __future__ import annotations

import argparse

from schedlab.cli.args import add_shape_arguments, int_up_to, noise_sigma, positive_int
from schedlab.cli.demos import DEMOS, NEAR, NEAR_TEXT, bottleneck_phrase
from schedlab.cli.progress import progress_bar, report_to
from schedlab.console import print_render_table
from schedlab.core.hardware import DEFAULT_PROFILE, PROFILES, profile
from schedlab.core.knobs import SPACE, GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.model import explain
from schedlab.core.profile_sources import PROFILE_SOURCES
from schedlab.render.appendix import hardware_table
from schedlab.render.gpus import profiles_table
from schedlab.render.labels import KNOB_LABELS, STRATEGY_LABELS, fmt_shape
from schedlab.render.landscape import top_table
from schedlab.render.model import breakdown_summary_table, breakdown_table
from schedlab.render.search import search_shape_table
from schedlab.render.table import fmt_config, fmt_percent, fmt_ratio, fmt_time
from schedlab.tuning.compare import compare
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE
from schedlab.tuning.strategies import STRATEGIES


def cmd_demos(args) -> int:
    for i in sorted(set(args.which or DEMOS)):
        DEMOS[i](args.hw)
    return 0


def cmd_top(args) -> int:
    shape = (args.M, args.N, args.K)
    land = landscape(shape, args.hw)  # validates the shape (ValueError names M, N or K)
    print_render_table(top_table(land, k=args.n))
    bd = explain(land.best, *land.shape, args.hw)
    q = land.quantiles()
    print(
        f"\n离最快 {NEAR_TEXT} 以内的 {land.n_within(NEAR)} 个；中位数慢 {fmt_ratio(q[50])} 倍；"
        f"最快配置 {fmt_config(land.best)} 的瓶颈是{bottleneck_phrase(bd)}。"
    )
    return 0


def cmd_explain(args) -> int:
    cfg = GemmConfig(args.BM, args.BN, args.BK, args.WARPS, args.STAGES, args.GROUP)  # ValueError names the knob
    bd = explain(cfg, args.M, args.N, args.K, args.hw)  # ValueError if it cannot launch or the shape is bad
    print_render_table(breakdown_summary_table(bd))
    print()
    print_render_table(breakdown_table(bd))
    land = landscape(bd.shape, args.hw)
    rank = int((land.time_s < bd.time_s * (1 - 1e-12)).sum()) + 1
    print(
        f"\n瓶颈：{bottleneck_phrase(bd)}。"
        f"在 {fmt_shape(bd.shape)} 的 {len(land.configs)} 个能启动的配置里排第 {rank}，"
        f"是最快的 {fmt_ratio(bd.time_s / land.best_time_s)} 倍（最快 {fmt_config(land.best)}，"
        f"{fmt_time(land.best_time_s)}）。"
    )
    return 0


# --- search -------------------------------------------------------------------------------

#: Most seeds one `search` run may ask for (memory grows with seeds × 3744 configs).
MAX_SEEDS = 1000


def cmd_search(args) -> int:
    shape = (args.M, args.N, args.K)
    land = landscape(shape, args.hw)  # validates the shape (ValueError names M, N or K)
    chosen = set(args.strategy or STRATEGIES)
    names = tuple(name for name in STRATEGIES if name in chosen)  # the comparison's order, no repeats
    with progress_bar(total=len(names), desc="搜索", unit="个策略") as bar:
        comparison = compare(
            [shape],
            names,
            seeds=range(args.seeds),
            budget=args.budget,
            noise=args.noise,
            hw=args.hw,
            progress=report_to(bar),
        )
    print_render_table(search_shape_table(comparison, shape))
    n, k = len(land.configs), land.n_within(NEAR)
    print(
        f"\n{n} 个能启动的配置里，离最优 {NEAR_TEXT} 以内的有 {k} 个（随机抽一个抽中的概率 {fmt_percent(k / n, 1)}）；"
        f"最优 {fmt_config(land.best)}，{fmt_time(land.best_time_s)}。"
        f"表里的次数按配置的真实（无噪声）时间判断，调优器自己只看得到带噪声的测量。"
    )
    return 0


_seed_count = int_up_to(MAX_SEEDS)


def _demo_number(text: str) -> int:
    # (`choices` with nargs="*" rejects an empty list on Python 3.11, hence a type)
    try:
        value = int(text)
    except ValueError:
        value = None
    if value not in DEMOS:
        raise argparse.ArgumentTypeError(
            f"没有这个演示 / no such demo: {text!r}（可选 {', '.join(map(str, sorted(DEMOS)))}）"
        )
    return value


def cmd_gpus(args) -> int:
    names = tuple(PROFILES)
    print_render_table(profiles_table(names))
    print()
    for name in names:
        print(f"{name}：{profile(name).name}" + ("（默认）" if name == DEFAULT_PROFILE else ""))
    if args.sources:
        print()
        print_render_table(hardware_table(args.hw, PROFILE_SOURCES[args.gpu]))
    return 0


# --- arguments -----------------------------------------------------------------------------


def demos_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "运行讲义的演示（默认全部）：1 配置空间与剪枝，2 4096³ 的地形，3 形状与迁移，4 单参数敏感性。"
    p.add_argument(
        "which",
        nargs="*",
        type=_demo_number,
        metavar="N",
        help="要运行的演示编号 1–4（默认全部） / demo numbers, default all",
    )


def top_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "列出 M×N×K FP16 矩阵乘法上模型时间最短的配置。"
    add_shape_arguments(p)
    p.add_argument("-n", type=positive_int, default=10, help="列出几个（默认 10） / how many (default 10)")


def explain_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "把一个配置在 M×N×K 上的模型时间拆成各项，并指出瓶颈。"
        f" 旋钮取值：BM, BN ∈ {SPACE['bm']}；BK ∈ {SPACE['bk']}；WARPS ∈ {SPACE['warps']}；"
        f"STAGES ∈ {SPACE['stages']}；GROUP ∈ {SPACE['group']}。"
    )
    for name, knob in (
        ("BM", "bm"),
        ("BN", "bn"),
        ("BK", "bk"),
        ("WARPS", "warps"),
        ("STAGES", "stages"),
        ("GROUP", "group"),
    ):
        p.add_argument(name, type=int, help=f"{KNOB_LABELS[knob]}，取 {' / '.join(map(str, SPACE[knob]))}")
    add_shape_arguments(p)


def search_arguments(p: argparse.ArgumentParser) -> None:
    labels = "；".join(f"{name}：{STRATEGY_LABELS[name]}" for name in STRATEGIES)
    p.description = (
        "在 M×N×K 上用模型当\u201c硬件\u201d，让每种搜索策略用同样的预算、各跑 --seeds 个种子，"
        "报告相信的最优配置第一次真的落在最优的 5% 以内时用了几次测量"
        "（中位数、90% 分位数、预算内到达的比例）。"
        f"策略：{labels}。"
        " / Trials until a strategy's believed-best config is within 5% of the optimum."
    )
    add_shape_arguments(p)
    p.add_argument(
        "--strategy",
        nargs="+",
        action="extend",
        choices=tuple(STRATEGIES),
        metavar="NAME",
        help=f"只比较这些策略（可写多个，默认全部）：{', '.join(STRATEGIES)}",
    )
    p.add_argument(
        "--seeds",
        type=_seed_count,
        default=100,
        help=f"每种策略跑几个种子（0 … n−1，默认 100，最多 {MAX_SEEDS}） / number of seeds",
    )
    p.add_argument(
        "--budget",
        type=positive_int,
        default=DEFAULT_BUDGET,
        help=f"每次搜索最多测几个配置（默认 {DEFAULT_BUDGET}） / measurements per run",
    )
    p.add_argument(
        "--noise",
        type=noise_sigma,
        default=DEFAULT_NOISE,
        help=f"测量噪声：对数正态因子的 σ（默认 {DEFAULT_NOISE:g}，即约 {100 * DEFAULT_NOISE:g}%%） / noise sigma",
    )


def gpus_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "列出模型里的 GPU 参数集（--gpu 可选的名字）和每块的主要参数；--sources 再列出 --gpu 所选那块"
        "每个参数的来源。 / The GPU profiles and their key numbers; --sources: where each comes from."
    )
    p.add_argument("--sources", action="store_true", help="列出 --gpu 所选 GPU 每个参数的来源 / list the sources")
