"""``python -m schedlab``: the lecture's four demos on the console, and the tools beside them.

::

    python -m schedlab                 # the four demos (same as `demos`)
    python -m schedlab demos 1 3       # only demos 1 and 3
    python -m schedlab top 512 14336 4096 -n 10
    python -m schedlab explain 256 128 32 8 4 1  4096 4096 4096
    python -m schedlab search 4096 4096 4096 --strategy random model --seeds 100
    python -m schedlab buckets 4096 4096 --M-max 512 --tol 0.05
    python -m schedlab top 4096 4096 4096 --gpu a100-sxm4   # any subcommand on another GPU
    python -m schedlab gpus --sources --gpu h100-sxm         # the GPU profiles, and one's sources
    python -m schedlab export 4096 4096 4096 -o cache.json     # a Kernel Tuner cache file
    python -m schedlab tuners 4096 4096 4096 --seeds 50       # record the real tuners' runs
    python -m schedlab measured CACHE.json.gz -o schedlab/data/measured   # a real measured landscape

The demos themselves are :mod:`schedlab.cli.demos`; this module holds the command line
(argparse) and the tools. Every number printed comes from :mod:`schedlab.studies` /
:mod:`schedlab.core.model` and is formatted by :mod:`schedlab.render`; the observations are
sentences built around those numbers, never numbers typed into the text.
"""

from __future__ import annotations

import argparse
import io
import os
import sys

import numpy as np

from schedlab.cli import measured as cli_measured
from schedlab.cli import prune as cli_prune
from schedlab.cli import tuners as cli_tuners
from schedlab.cli.args import add_shape_arguments, int_up_to, noise_sigma, number_in, positive_int
from schedlab.cli.demos import DEMOS, NEAR, NEAR_TEXT, bottleneck_phrase
from schedlab.cli.progress import progress_bar, report_to
from schedlab.console import print_render_table
from schedlab.core.hardware import DEFAULT_PROFILE, PROFILES, Hardware, profile
from schedlab.core.knobs import SPACE, GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.model import explain
from schedlab.core.profile_sources import PROFILE_SOURCES
from schedlab.core.shapes import LLAMA8B_PROJECTIONS, check_shape
from schedlab.render.appendix import hardware_table
from schedlab.render.buckets import bucket_table, cover_table
from schedlab.render.gpus import profiles_table
from schedlab.render.labels import KNOB_LABELS, STRATEGY_LABELS, fmt_shape
from schedlab.render.landscape import top_table
from schedlab.render.model import breakdown_summary_table, breakdown_table
from schedlab.render.search import search_shape_table
from schedlab.render.table import fmt_config, fmt_percent, fmt_ratio, fmt_time
from schedlab.studies import buckets
from schedlab.tuning.compare import compare
from schedlab.tuning.covers import (
    Sweep,
    decode_ms,
    exact_cover,
    greedy_cover,
    interval_cover,
    power_of_two_cover,
    sweep,
)
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE
from schedlab.tuning.strategies import STRATEGIES

__all__ = ["main", "build_parser"]


# --- tools --------------------------------------------------------------------------------


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schedlab",
        description="GPU 矩阵乘法内核的调度空间（H100 解析模型，第 13 讲）。不带子命令时运行全部四个演示。"
        " / The schedule space of a GPU matmul kernel on an analytical H100 model.",
    )
    parser.set_defaults(func=cmd_demos, which=None, command="demos")
    sub = parser.add_subparsers(title="子命令 / subcommands", dest="command")

    p = sub.add_parser(
        "demos",
        help="讲义的四个演示 / the lecture's demos",
        description="运行讲义的演示（默认全部）：1 配置空间与剪枝，2 4096³ 的地形，3 形状与迁移，4 单参数敏感性。",
    )
    p.add_argument(
        "which",
        nargs="*",
        type=_demo_number,
        metavar="N",
        help="要运行的演示编号 1–4（默认全部） / demo numbers, default all",
    )
    p.set_defaults(func=cmd_demos)

    p = sub.add_parser(
        "top",
        help="某个形状上最快的配置 / fastest configs for a shape",
        description="列出 M×N×K FP16 矩阵乘法上模型时间最短的配置。",
    )
    add_shape_arguments(p)
    p.add_argument("-n", type=positive_int, default=10, help="列出几个（默认 10） / how many (default 10)")
    p.set_defaults(func=cmd_top)

    p = sub.add_parser(
        "explain",
        help="一个配置的时间花在哪里 / where one config's time goes",
        description="把一个配置在 M×N×K 上的模型时间拆成各项，并指出瓶颈。"
        f" 旋钮取值：BM, BN ∈ {SPACE['bm']}；BK ∈ {SPACE['bk']}；WARPS ∈ {SPACE['warps']}；"
        f"STAGES ∈ {SPACE['stages']}；GROUP ∈ {SPACE['group']}。",
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
    p.set_defaults(func=cmd_explain)

    labels = "；".join(f"{name}：{STRATEGY_LABELS[name]}" for name in STRATEGIES)
    p = sub.add_parser(
        "search",
        help="比较搜索策略：测多少次才到最优的 5%% 以内 / compare tuning strategies",
        description="在 M×N×K 上用模型当\u201c硬件\u201d，让每种搜索策略用同样的预算、各跑 --seeds 个种子，"
        "报告相信的最优配置第一次真的落在最优的 5% 以内时用了几次测量"
        "（中位数、90% 分位数、预算内到达的比例）。"
        f"策略：{labels}。"
        " / Trials until a strategy's believed-best config is within 5% of the optimum.",
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
    p.set_defaults(func=cmd_search)
    _add_buckets_parser(sub)  # defined in the "buckets" section at the end
    cli_tuners.add_parsers(sub)  # export, tuners (schedlab.cli.tuners)
    cli_prune.add_parsers(sub)  # prune (schedlab.cli.prune)
    cli_measured.add_parsers(sub)  # measured, measured-tuners (schedlab.cli.measured)

    p = sub.add_parser(
        "gpus",
        help="模型里的几块 GPU 和它们的主要参数 / the GPU profiles",
        description="列出模型里的 GPU 参数集（--gpu 可选的名字）和每块的主要参数；--sources 再列出 --gpu 所选那块"
        "每个参数的来源。 / The GPU profiles and their key numbers; --sources: where each comes from.",
    )
    p.add_argument("--sources", action="store_true", help="列出 --gpu 所选 GPU 每个参数的来源 / list the sources")
    p.set_defaults(func=cmd_gpus)

    # --gpu before the subcommand or after it, each collected in its own list (a subparser fills a namespace
    # of its own); main() refuses more than one in all
    _add_gpu_option(parser, "gpu")
    for sub_parser in sub.choices.values():
        _add_gpu_option(sub_parser, "sub_gpu")
    return parser


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


def _add_gpu_option(parser: argparse.ArgumentParser, dest: str) -> None:
    """``--gpu NAME``: the machine every number is computed on (checked in :func:`main`, one line if unknown).

    Every ``--gpu`` given is appended to ``dest``; :func:`_chosen_gpu` takes the one allowed.
    """
    parser.add_argument(
        "--gpu",
        dest=dest,
        action="append",
        metavar="NAME",
        help=f"用哪块 GPU 的参数（默认 {DEFAULT_PROFILE}；可选 {', '.join(PROFILES)}）"
        " / GPU profile (see `schedlab gpus`)",
    )


def _tolerant_streams() -> None:
    """Never die on a console that cannot encode Chinese: replace what it cannot show."""
    for stream in (sys.stdout, sys.stderr):
        enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if enc != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


def _chosen_gpu(parser: argparse.ArgumentParser, args) -> str:
    """The one ``--gpu`` of the command line, before or after the subcommand, or the default; a usage error if repeated."""
    given = [*(args.gpu or ()), *(getattr(args, "sub_gpu", None) or ())]
    if len(given) > 1:
        parser.error(f"--gpu 只能给一次 / --gpu given more than once: {' '.join(given)}")
    return given[0] if given else DEFAULT_PROFILE


def main(argv=None) -> int:
    """Entry point of ``python -m schedlab`` and the ``schedlab`` script; returns the exit status."""
    _tolerant_streams()
    label = "schedlab"
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
            args.gpu = _chosen_gpu(parser, args)
        except SystemExit:  # --help or a usage error: its text is written now, not at interpreter exit
            _flush_streams()
            raise
        label = f"schedlab {args.command}"
        args.hw = profile(args.gpu)  # the one place a name becomes a machine; ValueError naming the known GPUs
        status = args.func(args)
        _flush_streams()  # a write error surfaces here, not at interpreter exit
        return status
    except ValueError as err:
        print(f"{label}: 错误 / error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `python -m schedlab | head`: the reader has all it wanted
        _discard(sys.stdout)  # the idiom of the signal module's "Note on SIGPIPE"
        return 0
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT
        print(f"\n{label}: 已中断 / interrupted", file=sys.stderr)
        return 130
    except OSError as err:  # e.g. `> /dev/full`, or a full disk under an output file: it could not be written
        _discard(sys.stdout)
        what = f"{err.filename}: {err.strerror}" if err.filename else err.strerror or err
        print(f"{label}: 错误 / error: 无法写出 / cannot write output: {what}", file=sys.stderr)
        return 1


def _flush_streams() -> None:
    """Write out what stdout holds (an OSError if it cannot); what stderr cannot take is dropped: nowhere to say so."""
    if sys.stderr is not None:
        try:
            sys.stderr.flush()
        except OSError:
            _discard(sys.stderr)
    if sys.stdout is not None:  # None when the process started with its stdout closed
        sys.stdout.flush()


def _discard(stream) -> None:
    """Point ``stream``'s file descriptor at /dev/null, so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):  # a stream without a file descriptor
        pass


# --- buckets ------------------------------------------------------------------------------------

#: Largest ``--M-max`` of `buckets` (the sweep evaluates every launchable config about twice per 16 rows).
MAX_M = 4096


def _bucket_sweep(N: int, K: int, Ms: tuple[int, ...], hw: Hardware):
    """:func:`schedlab.tuning.covers.sweep` one ``M`` at a time, with a progress bar on stderr for long sweeps."""
    rows, elapsed, one = [], 0.0, None
    with progress_bar(Ms, desc="扫描 M", unit="个 M") as bar:
        for M in bar:
            one = sweep(N, K, Ms=(M,), hw=hw)
            rows.append(one.time_s[0])
            elapsed += one.elapsed_s
    return Sweep(N=N, K=K, Ms=Ms, configs=one.configs, time_s=np.stack(rows), elapsed_s=elapsed)


def cmd_buckets(args) -> int:
    _, N, K = check_shape(1, args.N, args.K)  # ValueError names N or K
    Ms = decode_ms(args.M_max)
    tol = args.tol
    sw = _bucket_sweep(N, K, Ms, args.hw)
    greedy, exact = greedy_cover(sw, tol), exact_cover(sw, tol)
    down = power_of_two_cover(sw, tol)
    top_power = 1 << (Ms[-1] - 1).bit_length()
    up = power_of_two_cover(sw, tol, "up") if top_power in Ms else None
    name = next((n for n, n_, k_ in LLAMA8B_PROJECTIONS if (n_, k_) == (N, K)), "—")
    study = buckets.BucketStudy(
        name=name,
        sweep=sw,
        greedy=greedy,
        exact=exact,
        intervals=interval_cover(sw, tol),
        power_of_two=down,
        power_of_two_up=up,
    )
    tol_s = fmt_percent(tol, 1) if round(100 * tol) != 100 * tol else fmt_percent(tol)
    print(
        f"M × {N} × {K}：M = {Ms[0]} … {Ms[-1]} 的 {len(Ms)} 个 M（1 和每个 16 行区间的两端 16j、16j + 1），"
        f"每个 M 都要在自己最优的 {tol_s} 以内。"
    )
    print_render_table(cover_table(greedy))
    print()
    print_render_table(bucket_table([study]))

    if exact is None:
        verdict = "精确搜索超过了节点预算，没能确认贪心用的是不是最少"
    elif study.greedy_optimal:
        verdict = f"精确搜索确认 {exact.n_configs} 个就是最少"
    else:
        verdict = f"精确搜索找到只用 {exact.n_configs} 个配置的覆盖（贪心用了 {greedy.n_configs} 个）"
    worst_m = sw.Ms[int(np.argmax(down.slowdown))]
    lines = [
        f"{verdict}。按 2 的幂向下取用 {down.n_configs} 个配置，最坏慢 {fmt_ratio(down.worst)} 倍（M = {worst_m}）"
    ]
    if up is not None:
        lines.append(
            f"向上取用 {up.n_configs} 个，最坏慢 {fmt_ratio(up.worst)} 倍（M = {sw.Ms[int(np.argmax(up.slowdown))]}）"
        )
    else:
        lines.append(f"向上取要用 M = {top_power} 的最优，它不在 1 … {Ms[-1]} 里，略去")
    print("\n" + "；".join(lines) + f"。（{sw.n_evaluated} 次模型求值，{sw.elapsed_s:.1f} s）")
    return 0


_m_max = int_up_to(MAX_M)
_tolerance = number_in(0.0, 10.0)


def _add_buckets_parser(sub) -> None:
    p = sub.add_parser(
        "buckets",
        help="decode 的各个 M 要几个配置，和按 2 的幂分桶比 / bucket covers over M",
        description="固定一种投影的 N、K，在 M = 1 … --M-max 上（1 和每个 16 行区间的两端）算出每个 M 的最优，"
        "找出最少几个配置能让每个 M 都在自己最优的 --tol 以内（贪心集合覆盖，并用精确搜索核对），"
        "按 M 列出各段用哪个配置，并和按 2 的幂分桶（向下取、向上取）比较。"
        " / The fewest configs keeping every M within --tol of its optimum, vs power-of-two buckets.",
    )
    for name in ("N", "K"):
        p.add_argument(name, type=int, help=f"GEMM 的 {name}（正整数；例如 Llama-3-8B 的 O 投影 {name} = 4096）")
    p.add_argument(
        "--M-max", dest="M_max", type=_m_max, default=512, help=f"M 的上限（默认 512，最大 {MAX_M}） / largest M"
    )
    p.add_argument(
        "--tol",
        type=_tolerance,
        default=0.05,
        help="容差：每个 M 允许比自己的最优慢多少（默认 0.05，即 5%%） / tolerance",
    )
    p.set_defaults(func=cmd_buckets)
