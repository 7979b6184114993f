"""The console's ``buckets``: the fewest configs that serve every decode batch M, against power-of-two buckets."""

from __future__ import annotations

import argparse

import numpy as np

from schedlab.cli.args import int_up_to, number_in
from schedlab.cli.progress import progress_bar
from schedlab.console import print_render_table
from schedlab.core.hardware import Hardware
from schedlab.core.shapes import LLAMA8B_PROJECTIONS, check_shape
from schedlab.render.buckets import bucket_table, cover_table
from schedlab.render.table import fmt_percent, fmt_ratio
from schedlab.studies import buckets
from schedlab.tuning.covers import (
    Sweep,
    decode_ms,
    exact_cover,
    greedy_cover,
    interval_cover,
    power_of_two_cover,
    sweep,
)

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


def buckets_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "固定一种投影的 N、K，在 M = 1 … --M-max 上（1 和每个 16 行区间的两端）算出每个 M 的最优，"
        "找出最少几个配置能让每个 M 都在自己最优的 --tol 以内（贪心集合覆盖，并用精确搜索核对），"
        "按 M 列出各段用哪个配置，并和按 2 的幂分桶（向下取、向上取）比较。"
        " / The fewest configs keeping every M within --tol of its optimum, vs power-of-two buckets."
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
