"""The ``export`` and ``tuners`` subcommands of ``python -m schedlab``.

::

    python -m schedlab export 4096 4096 4096 -o cache.json            # a Kernel Tuner cache file
    python -m schedlab export 4096 4096 4096 --noise 0 --t4 t4.json   # and T4 results
    python -m schedlab tuners 4096 4096 4096 --seeds 50 -o schedlab/data/tuner-runs-4096x4096x4096.npz
    python -m schedlab tuners 4096 4096 4096 --sigma 0.05 0.1 0.2 --seeds 20 -o schedlab/data/guide-runs-4096x4096x4096.npz

``tuners`` records the real tuners' runs (:func:`schedlab.tuning.records.record_runs`) that the
search page replays; with ``--sigma`` it records Kernel Tuner's ``bayes_opt`` and Optuna's TPE on
the guides page's field truths instead (:func:`schedlab.studies.guides.record_guide_runs`). It is
the documented command that regenerates ``schedlab/data``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from schedlab.cli.args import add_shape_arguments, int_in, noise_sigma
from schedlab.cli.progress import progress_bar, report_to
from schedlab.core.files import check_writable
from schedlab.core.hardware import DEFAULT_PROFILE
from schedlab.core.landscape import landscape
from schedlab.studies.guides import REAL, record_guide_runs
from schedlab.tuning.cache import write_json
from schedlab.tuning.export import cache_document, t4_document
from schedlab.tuning.measurer import DEFAULT_BUDGET, DEFAULT_NOISE
from schedlab.tuning.records import load_runs, record_runs, update_runs
from schedlab.tuning.tuners import TUNERS

__all__ = ["export_arguments", "cmd_export", "tuners_arguments", "cmd_tuners"]

#: Most seeds ``tuners`` records (each seed runs every tuner: seconds per seed).
MAX_TUNER_SEEDS = 1000


def _write(document: dict, path: Path):
    """``document`` as strict JSON (no NaN or Infinity) to ``path``, or to stdout for ``-``."""
    if str(path) == "-":
        sys.stdout.write(json.dumps(document, allow_nan=False) + "\n")
        return "stdout"
    return write_json(document, path)


def cmd_export(args) -> int:
    shape = (args.M, args.N, args.K)
    outputs = [(args.output, cache_document)] + ([(args.t4, t4_document)] if args.t4 is not None else [])
    targets = [str(p) if str(p) == "-" else str(p.resolve()) for p, _ in outputs]
    if len(set(targets)) != len(targets):
        raise ValueError(f"-o and --t4 name the same file ({args.output}); give two outputs")
    for path, _ in outputs:  # every path checked before any is written
        if str(path) != "-":
            check_writable(path)
    written = [_write(document(shape, args.noise, args.seed, args.hw), path) for path, document in outputs]
    for label, path in zip(("Kernel Tuner 缓存文件 / cache file", "T4 结果 / T4 results"), written):
        if path != "stdout":
            print(f"{label}: {path}")
    return 0


def cmd_tuners(args) -> int:
    shape = (args.M, args.N, args.K)
    kind = "guide-runs" if args.sigma else "tuner-runs"
    output = check_writable(args.output or f"{kind}-{args.M}x{args.N}x{args.K}.npz")  # before minutes of work
    if args.sigma:
        bad = [t for t in args.tuner or () if t not in REAL]
        if bad:
            raise SystemExit(f"--sigma records only {', '.join(REAL)}, not {', '.join(bad)}")
        if args.gpu != DEFAULT_PROFILE:  # the guide study's truths are fields over the lecture's machine
            raise SystemExit(f"--sigma records on the lecture's machine ({DEFAULT_PROFILE}) only, not on {args.gpu}")
        with progress_bar(desc="调优器", unit="组") as bar:
            runs = record_guide_runs(
                shape, args.sigma, args.tuner or REAL, range(args.seeds), args.budget, args.noise, report_to(bar)
            )
        print(f"σ {runs.sigmas} × {len(runs.names)} 个调优器 × {len(runs.seeds)} 个种子: {runs.save(output)}")
        return 0
    budget = min(args.budget, len(landscape(shape, args.hw).configs))  # no more than the space holds
    old = None
    if args.update:
        if not args.tuner or not output.exists():
            raise SystemExit("--update needs --tuner NAME ... and an existing output file to update")
        old = load_runs(output)  # ValueError naming it if it holds no runs: checked before the work
        wanted = {"seeds": tuple(range(args.seeds)), "budget": budget, "noise": args.noise}
        differ = [k for k, v in wanted.items() if getattr(old, k) != v]
        if differ:
            raise ValueError(f"{output} was recorded with other {', '.join(differ)}; record all of it again")
    with progress_bar(desc="调优器", unit="次运行") as bar:
        runs = record_runs(
            shape,
            args.tuner or tuple(TUNERS),
            range(args.seeds),
            budget,
            args.noise,
            args.hw,
            progress=report_to(bar),
        )
    if old is not None:
        runs = update_runs(old, runs)
    print(f"{len(runs.names)} 个调优器 × {len(runs.seeds)} 个种子 / tuners x seeds: {runs.save(output)}")
    return 0


def export_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "把 M×N×K 上每个配置的测量时间（模型时间乘以这个种子的对数正态噪声，和 Measurer 一样）"
        "写成 Kernel Tuner 的缓存文件，不能启动的标为 InvalidConfig；任何调优器都可以用"
        " kernel_tuner.tune_cache 在上面跑。 / Write the landscape as a Kernel Tuner cache file."
    )
    add_shape_arguments(p)
    p.add_argument("-o", "--output", type=Path, default=Path("cache.json"), help="输出文件（默认 cache.json）")
    p.add_argument(
        "--noise",
        type=noise_sigma,
        default=DEFAULT_NOISE,
        help=f"对数正态噪声的 σ（默认 {DEFAULT_NOISE:g}；0 写模型时间） / noise sigma",
    )
    p.add_argument("--seed", type=int_in(0, 2**32 - 1), default=0, help="噪声的种子（默认 0）")
    p.add_argument("--t4", type=Path, default=None, help="另写一份 T4 格式的结果 / also write T4 results here")


def tuners_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "在 M×N×K 上让 Kernel Tuner 的策略（模拟模式）和 Optuna 的采样器按本讲的规则各跑"
        " --seeds 个种子，把每次测量的顺序存成 .npz（搜索一页读它）。很慢：每个种子几十秒。"
        " / Record the real tuners' measurement orders (slow)."
    )
    add_shape_arguments(p)
    p.add_argument("--seeds", type=int_in(1, MAX_TUNER_SEEDS), default=50, help="种子数 0 … n−1（默认 50）")
    p.add_argument(
        "--budget", type=int_in(1, 10**6), default=DEFAULT_BUDGET, help=f"每次最多测几个配置（默认 {DEFAULT_BUDGET}）"
    )
    p.add_argument("--noise", type=noise_sigma, default=DEFAULT_NOISE, help=f"噪声 σ（默认 {DEFAULT_NOISE:g}）")
    p.add_argument(
        "--tuner",
        nargs="+",
        action="extend",
        choices=tuple(TUNERS),
        metavar="NAME",
        help=f"只跑这些（默认全部）：{', '.join(TUNERS)}",
    )
    p.add_argument(
        "--update",
        action="store_true",
        help="只重录 --tuner 列出的调优器，其余保留输出文件里的（规则没变的才允许） / re-record only these",
    )
    p.add_argument(
        "--sigma",
        nargs="+",
        type=float,
        default=None,
        help="改为在这些 σ 的效应场真相上记录 bayes_opt 和 TPE（引导一页） / record on field truths instead",
    )
    p.add_argument(
        "-o", "--output", type=Path, default=None, help="输出 .npz（默认 tuner-runs-MxNxK.npz 或 guide-runs-MxNxK.npz）"
    )
