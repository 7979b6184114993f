"""The ``measured`` and ``measured-tuners`` subcommands of ``python -m schedlab``: real landscapes.

::

    python -m schedlab measured ../shared/data/benchmark_hub/*.json.gz             # structure and search on each
    python -m schedlab measured ../shared/data/benchmark_hub/*.json.gz -o schedlab/data/measured   # and the compact copies
    python -m schedlab measured-tuners schedlab/data/measured/*.npz --seeds 10 -o schedlab/data/measured

``measured`` reads any Kernel Tuner cache file (JSON, plain or gzip) or compact ``.npz``, prints
its structure beside the model's 4096³ and the trials-to-5 % of this package's model-free
strategies on it; with ``-o`` it writes the compact copies the book ships (the command that
regenerates ``schedlab/data/measured``). ``measured-tuners`` records the real tuners' runs on each
(slow: about a minute per seed and landscape) as ``runs-<name>.npz``, which the page replays.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from schedlab.cli.args import int_in
from schedlab.cli.progress import progress_bar, report_to
from schedlab.console import print_render_table
from schedlab.core.files import check_writable
from schedlab.core.measured import load_compact, save_compact
from schedlab.render.measured import measured_trials_table, structure_table
from schedlab.studies.measured import MEASURED_BUDGET, compare_measured, model_structure, structure
from schedlab.tuning.cache import read_cache
from schedlab.tuning.measured import measured_context, repeat_factors
from schedlab.tuning.records import record_measured_runs
from schedlab.tuning.tuners import TUNERS

__all__ = ["measured_arguments", "cmd_measured", "measured_tuners_arguments", "cmd_measured_tuners"]


def _read(path: Path):
    """A cache file or a compact ``.npz``, as a MeasuredLandscape (a progress bar on a terminal for a long read)."""
    if path.suffix == ".npz":
        return load_compact(path)
    with progress_bar(desc=path.name, unit="项") as bar:
        return read_cache(path, progress=report_to(bar))


def _stem(path: Path) -> str:
    return path.name.removesuffix(".gz").removesuffix(".json").removesuffix(".npz")


def _distinct_stems(paths) -> None:
    """Refuse two inputs that would share an output name (``d1/x.json`` and ``d2/x.json.gz``: both ``x``)."""
    if len(set(paths)) != len(paths):
        raise ValueError(f"a file is given twice: {' '.join(str(p) for p in paths)}")
    seen: dict[str, Path] = {}
    for path in paths:
        other = seen.setdefault(_stem(path), path)
        if other != path:
            raise ValueError(f"{other} and {path} would both be written as {_stem(path)}.npz; rename one")


def _context(path: Path, m):
    """``measured_context(m)`` once ``m`` has repeats to draw from; a refusal names the path given."""
    try:
        repeat_factors(m, 0)
        return measured_context(m)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None


def cmd_measured(args) -> int:
    _distinct_stems(args.caches)
    lands = {path: _read(path) for path in args.caches}
    contexts = {_stem(p): _context(p, m) for p, m in lands.items()}  # every file read and checked ...
    if args.output is not None:
        if args.output.exists() and not args.output.is_dir():
            raise ValueError(f"cannot write into {args.output}: it is not a folder")
        args.output.mkdir(parents=True, exist_ok=True)
        outputs = {path: check_writable(args.output / f"{_stem(path)}.npz") for path in lands}
        for path, m in lands.items():  # ... before any is written
            print(f"紧凑副本 / compact copy: {save_compact(m, outputs[path])}")
    print_render_table(structure_table([structure(c, n) for n, c in contexts.items()] + [model_structure()]))
    factors = {_stem(p): (lambda s, m=m: repeat_factors(m, s)) for p, m in lands.items()}
    print()
    comparison = compare_measured(contexts, factors, seeds=range(args.seeds))
    print_render_table(measured_trials_table(comparison))
    print_render_table(measured_trials_table(comparison, column="reach"))
    return 0


def cmd_measured_tuners(args) -> int:
    _distinct_stems(args.landscapes)
    lands = {path: _read(path) for path in args.landscapes}  # every file read and checked before any work
    for path, m in lands.items():
        _context(path, m)
    args.output.mkdir(parents=True, exist_ok=True)
    tag = f"-{args.tag}" if args.tag else ""
    outputs = {path: check_writable(args.output / f"runs-{_stem(path)}{tag}.npz") for path in lands}
    for path, m in lands.items():
        output = outputs[path]
        with progress_bar(desc=_stem(path), unit="次运行") as bar:
            runs = record_measured_runs(m, args.tuner or tuple(TUNERS), range(args.seeds), args.budget, report_to(bar))
        print(f"{len(runs.names)} 个调优器 × {len(runs.seeds)} 个种子 / tuners x seeds: {runs.save(output)}")
    return 0


def measured_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "读 Kernel Tuner 的缓存文件（JSON 或 .gz，或本包写的紧凑 .npz），打印它的结构（和模型的 4096³ 并列）"
        "和本包不靠模型的策略在上面测到 5% 以内要几次；-o 另写紧凑副本（书用的 schedlab/data/measured 就是这样生成的）。"
        " / Read Kernel Tuner cache files as measured landscapes."
    )
    p.add_argument("caches", nargs="+", type=Path, help="Kernel Tuner 缓存文件（.json / .json.gz）或紧凑 .npz")
    p.add_argument("-o", "--output", type=Path, default=None, help="把紧凑副本写进这个文件夹")
    p.add_argument("--seeds", type=int_in(2, 1000), default=50, help="种子数（默认 50）")


def measured_tuners_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "让 Kernel Tuner 的策略和 Optuna 的采样器在每个真机地形上按本讲的规则各跑 --seeds 个种子，"
        "每次测量取一次记录下的重复测量；存成 runs-<名字>.npz（真实的地形一页读它）。很慢。"
        " / Record the real tuners' runs on measured landscapes (slow)."
    )
    p.add_argument("landscapes", nargs="+", type=Path, help="Kernel Tuner 缓存文件或紧凑 .npz")
    p.add_argument("--seeds", type=int_in(1, 1000), default=10, help="种子数 0 … n−1（默认 10）")
    p.add_argument(
        "--budget", type=int_in(1, 10**6), default=MEASURED_BUDGET, help=f"每次最多测几个（默认 {MEASURED_BUDGET}）"
    )
    p.add_argument("--tuner", nargs="+", action="extend", choices=tuple(TUNERS), metavar="NAME", help="只跑这些")
    p.add_argument("-o", "--output", type=Path, default=Path("."), help="输出文件夹（默认当前文件夹）")
    p.add_argument("--tag", default="", help="输出文件名 runs-<名字>-<tag>.npz 的后缀（分批记录时区分）")
