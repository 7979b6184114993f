"""The ``prune`` subcommand of ``python -m schedlab``: a Triton config list cut to the few worth measuring.

::

    python -m schedlab prune 512 4096 4096 --gpu h100-sxm --configs inductor --top 4
    python -m schedlab prune 4096 4096 4096 --configs my-configs.json --json

It runs :meth:`schedlab.triton.hook.Pruner.prune`, the same code ``triton.autotune`` calls through
``prune_configs_by``, and prints the kept configs as ``triton.Config(...)`` lines, best
estimate first. ``--configs`` takes ``tutorial`` (Triton's matmul tutorial's list), ``inductor``
(Inductor's mm list, adapted to the shape as Inductor does) or a JSON file holding a list of
configs, each Triton's ``Config.__dict__`` (as its autotune cache stores it) or flat keyword
arguments with ``num_warps`` and ``num_stages``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from schedlab.cli.args import add_shape_arguments, positive_int
from schedlab.core.shapes import STRIDES, check_shape
from schedlab.render.labels import launch_reason_label
from schedlab.render.table import fmt_ratio, fmt_share, fmt_time
from schedlab.triton.configs import TUTORIAL_CONFIGS, inductor_configs
from schedlab.triton.hook import INDUCTOR_KEYS, TUTORIAL_KEYS, Pruner, config_record, flat_config, triton_source

__all__ = ["prune_arguments", "cmd_prune"]

#: ``--configs`` names -> the list for a shape, spelled as its source spells it.
LISTS = {
    "tutorial": lambda shape: [flat_config(c, TUTORIAL_KEYS) for c in TUTORIAL_CONFIGS],
    "inductor": lambda shape: [flat_config(c, INDUCTOR_KEYS) for c in inductor_configs(shape)],
}


def _load(source: str, shape) -> list:
    if source in LISTS:
        return LISTS[source](shape)
    path = Path(source)
    if not path.is_file():
        raise ValueError(f"--configs must be {', '.join(LISTS)} or a JSON file; no such file: {source}")
    try:
        configs = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"cannot read {source} as JSON: {err}") from None
    if not isinstance(configs, list) or not configs or not all(isinstance(c, dict) for c in configs):
        raise ValueError(f"{source} must hold a non-empty JSON list of config objects")
    return configs


def _listing(result, configs) -> list[dict]:
    """Every config of the list once: kept (ranked with its estimate, or unranked with ``null``) or dropped."""
    rows = [
        {**config_record(c), "kept": True, "estimate_ms": (float(t) if t is not None else None)}
        for c, t in zip(result.kept, [*result.estimates_ms, *[None] * len(result.unranked)])
    ]
    rows += [
        {**config_record(configs[i]), "kept": False, "estimate_ms": None, "reasons": [r.code for r in why]}
        for i, why in result.dropped.items()
    ]
    return rows


def cmd_prune(args) -> int:
    shape = check_shape(args.M, args.N, args.K)  # ValueError names M, N or K
    configs = _load(args.configs, shape)
    pruner = Pruner(args.gpu, top_k=args.top, strides=args.strides)
    result = pruner.prune(configs, shape)  # unreadable configs kept unranked, with their reasons in notes
    if not result.estimates_ms and result.notes:
        raise ValueError(f"no config of {args.configs} can be estimated: {result.notes[0]}")
    if args.json:
        rows = _listing(result, configs)
        doc = {
            "gpu": args.gpu,
            "shape": list(shape),
            "configs": args.configs,
            "strides": args.strides,
            "top": args.top,
            "n_listed": result.n_listed,
            "duplicates": result.duplicates,
            "skipped_share": result.skipped_share,
            "kept": [{k: v for k, v in r.items() if k != "kept"} for r in rows if r["kept"]],
            "dropped": [
                {k: v for k, v in r.items() if k not in ("kept", "estimate_ms")} for r in rows if not r["kept"]
            ],
            "not_estimated": list(result.notes),
        }
        print(json.dumps(doc, ensure_ascii=False, indent=2, allow_nan=False))
        return 0
    best = result.estimates_ms[0] if result.estimates_ms else None
    for c, t in zip(result.kept, result.estimates_ms):
        print(f"{triton_source(c)},  # {fmt_time(t / 1e3)}, {fmt_ratio(t / best)}×")
    for c, note in zip(result.unranked, result.notes):
        print(f"{triton_source(c)},  # 未估计 / not estimated: {note.split(': ', 1)[-1]}")
    n_drop = len(result.dropped)
    why = sorted({launch_reason_label(r, pruner.hw) for rs in result.dropped.values() for r in rs})
    skipped = fmt_share(result.skipped_share)
    print(
        f"\n# {pruner.hw.name}，{'×'.join(map(str, shape))}：{result.n_listed} 个配置留下 {len(result.kept)} 个，"
        f"跳过 {skipped}"
        + (f"（其中 {n_drop} 个不能启动：{'；'.join(why)}）" if n_drop else "")
        + f"。 / kept {len(result.kept)} of {result.n_listed}, skipped {skipped}"
    )
    return 0


def prune_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "用模型给一张 Triton 配置列表排序：不能启动的去掉，留下估计最快的 --top 个，"
        "打印成可以直接贴进 @triton.autotune 的 triton.Config(...) 行，附每个的估计时间和跳过的比例。"
        "和 schedlab.triton.hook.Pruner 交给 prune_configs_by 的是同一段代码。"
        " / Keep the --top configs of a list with the best estimates, as triton.Config lines."
    )
    add_shape_arguments(p)
    p.add_argument(
        "--configs",
        default="tutorial",
        metavar="{tutorial,inductor,FILE}",
        help="哪张列表：tutorial（Triton 矩阵乘法教程）、inductor（Inductor 的 mm 列表，按形状截过）"
        "或一个 JSON 文件（triton.Config.__dict__ 或平铺的关键字参数的列表）；默认 tutorial",
    )
    p.add_argument("--top", type=positive_int, default=4, help="留下几个（默认 4） / how many to keep")
    p.add_argument(
        "--strides",
        choices=STRIDES,
        default="runtime",
        help="内核怎么知道步长：runtime（作为参数传入，教程 03 和多数 triton.autotune 内核；默认）或 constant"
        "（编成常数，静态形状下的 Inductor mm 模板）。N 或 K 不是 16 的倍数时它决定哪个操作数逐元素读"
        " / what the kernel knows of its strides",
    )
    p.add_argument("--json", action="store_true", help="输出 JSON / print JSON")
