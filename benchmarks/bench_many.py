"""Many shapes at once: a per-shape ``evaluate`` loop against one ``evaluate_many`` call, side by side.

Run from the repository root::

    python benchmarks/bench_many.py [--grid square|wide] [--side 64] [--K 4096] [--loop-shapes 512] [--gpu NAME]

The ``square`` grid (the default) is ``side x side`` shapes ``(M, N, K)`` with ``M, N`` in
``64, 128, ..., 64 * side``; the ``wide`` grid (issue 23's) is ``M`` in ``unique(rint(geomspace(1,
16384, 64)))`` (57 values) by ``N`` in ``rint(geomspace(128, 32768, 64))`` (64 values), 3648 shapes,
decode batches to prefills. Each shape is priced on all launchable configurations of ``--gpu`` (the
lecture's machine by default, 3744 configurations; a Triton profile prices 5652-5718, and with its
``pipeline_overlap`` below 1 replays every launch order, where the lecture's machine skips the orders
whose HBM time provably hides behind the SMs). The loop is timed on ``--loop-shapes`` shapes spread
over the grid (every shape when 0) and its rate extrapolated to the grid; the batched call prices
the whole grid. Both start cold (``schedlab.clear_caches()``). Prints the wall and CPU seconds of
each (CPU: this process's own time; on a shared machine the wall time also counts other processes'
turns), their evaluations per second and ratio, the time of the best-configuration map over the
grid (a cold ``evaluate_many`` and the ``argmin`` per shape), and the peak memory each path
allocates (``tracemalloc``: numpy reports its buffers there), measured in separate runs since
tracing slows allocation. Exits with status 1 unless the batched times equal the loop's bit for
bit on the shapes the loop priced.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

import numpy as np

from schedlab.core.caching import clear_caches
from schedlab.core.hardware import PROFILES, profile
from schedlab.core.launch import launchable
from schedlab.core.model.engine import MANY_CHUNK_CELLS, evaluate, evaluate_many


def timed(fn):
    """(result, wall seconds, CPU seconds of this process) of one cold call."""
    clear_caches()
    start, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - start, time.process_time() - cpu


def peak_bytes(fn) -> int:
    """Peak bytes traced while one cold call of ``fn`` runs (a separate run: tracing slows allocations)."""
    clear_caches()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", choices=("square", "wide"), default="square", help="which grid (default square)")
    parser.add_argument("--side", type=int, default=64, help="square grid side: side x side (M, N) shapes")
    parser.add_argument("--K", type=int, default=4096)
    parser.add_argument("--loop-shapes", type=int, default=512, help="shapes the loop prices (0: all)")
    parser.add_argument("--gpu", choices=list(PROFILES), default="h100-lecture", help="profile (default h100-lecture)")
    args = parser.parse_args(argv)
    hw = profile(args.gpu)
    arr = launchable(hw).array
    if args.grid == "wide":
        ms = np.unique(np.rint(np.geomspace(1, 16384, 64)).astype(int)).tolist()
        ns = np.rint(np.geomspace(128, 32768, 64)).astype(int).tolist()
    else:
        ms = ns = [64 * i for i in range(1, args.side + 1)]
    shapes = [(M, N, args.K) for M in ms for N in ns]
    n_loop = len(shapes) if args.loop_shapes <= 0 else min(args.loop_shapes, len(shapes))
    # the loop's sample spreads over the grid (every k-th shape), so small and large shapes both count
    sample = shapes[:: max(1, len(shapes) // n_loop)][:n_loop]

    def run_loop():
        return np.stack([evaluate(arr, *s, hw).time_s for s in sample])

    def run_many():
        return evaluate_many(shapes, arr, hw)["time_s"]

    loop, loop_s, loop_cpu_s = timed(run_loop)
    many, many_s, many_cpu_s = timed(run_many)
    loop_peak, many_peak = peak_bytes(run_loop), peak_bytes(run_many)
    best_map, map_s, map_cpu_s = timed(
        lambda: evaluate_many(shapes, arr, hw)["time_s"].argmin(axis=1).reshape(len(ms), len(ns))
    )

    rows = {tuple(s): i for i, s in enumerate(shapes)}
    identical = np.array_equal(many[[rows[s] for s in sample]], loop)
    loop_evals, many_evals = len(sample) * len(arr), len(shapes) * len(arr)
    print(
        f"{args.gpu}: {len(ms)} x {len(ns)} shapes (M in {ms[0]}..{ms[-1]}, N in {ns[0]}..{ns[-1]}, K = {args.K}) x "
        f"{len(arr)} configurations; evaluate_many chunk bound {MANY_CHUNK_CELLS} cells"
    )
    print(f"{'path':<28}{'shapes':>8}{'wall s':>9}{'CPU s':>8}{'M evals/s':>11}{'M evals/CPU s':>15}{'peak MiB':>10}")
    for name, n, wall, cpu, evals, peak in (
        ("per-shape loop of evaluate", len(sample), loop_s, loop_cpu_s, loop_evals, loop_peak),
        ("evaluate_many (one call)", len(shapes), many_s, many_cpu_s, many_evals, many_peak),
    ):
        print(
            f"{name:<28}{n:>8}{wall:>9.2f}{cpu:>8.2f}{evals / wall / 1e6:>11.2f}{evals / cpu / 1e6:>15.2f}"
            f"{peak / 2**20:>10.0f}"
        )
    print(
        f"batched / loop rate: {many_evals / many_s / (loop_evals / loop_s):.2f}x wall, "
        f"{many_evals / many_cpu_s / (loop_evals / loop_cpu_s):.2f}x CPU; loop extrapolated to the grid: "
        f"{len(shapes) / len(sample) * loop_s:.1f} s"
    )
    print(
        f"best-configuration map over {len(shapes)} shapes (evaluate_many + argmin, cold): {map_s:.2f} s "
        f"({map_cpu_s:.2f} s CPU); "
        f"{len(np.unique(best_map))} distinct optima"
    )
    print(f"identical to the loop on its {len(sample)} shapes: {identical}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
