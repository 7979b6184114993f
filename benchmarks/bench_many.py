"""Many shapes at once: a per-shape ``evaluate`` loop against one ``evaluate_many`` call, side by side.

Run from the repository root::

    python benchmarks/bench_many.py [--side 64] [--K 4096] [--loop-shapes 512]

The grid is ``side x side`` shapes ``(M, N, K)`` with ``M, N`` in ``64, 128, ..., 64 * side``, each
priced on all 3744 launchable configurations. The loop is timed on ``--loop-shapes`` shapes spread
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
    parser.add_argument("--side", type=int, default=64, help="grid side: side x side (M, N) shapes")
    parser.add_argument("--K", type=int, default=4096)
    parser.add_argument("--loop-shapes", type=int, default=512, help="shapes the loop prices (0: all)")
    args = parser.parse_args(argv)
    arr = launchable().array
    dims = [64 * i for i in range(1, args.side + 1)]
    shapes = [(M, N, args.K) for M in dims for N in dims]
    n_loop = len(shapes) if args.loop_shapes <= 0 else min(args.loop_shapes, len(shapes))
    # the loop's sample spreads over the grid (every k-th shape), so small and large shapes both count
    sample = shapes[:: max(1, len(shapes) // n_loop)][:n_loop]

    def run_loop():
        return np.stack([evaluate(arr, *s).time_s for s in sample])

    def run_many():
        return evaluate_many(shapes, arr)["time_s"]

    loop, loop_s, loop_cpu_s = timed(run_loop)
    many, many_s, many_cpu_s = timed(run_many)
    loop_peak, many_peak = peak_bytes(run_loop), peak_bytes(run_many)
    best_map, map_s, map_cpu_s = timed(
        lambda: evaluate_many(shapes, arr)["time_s"].argmin(axis=1).reshape(args.side, args.side)
    )

    rows = {tuple(s): i for i, s in enumerate(shapes)}
    identical = np.array_equal(many[[rows[s] for s in sample]], loop)
    loop_rate = len(sample) * len(arr) / loop_s
    many_rate = len(shapes) * len(arr) / many_s
    print(
        f"{args.side} x {args.side} shapes (M, N in 64..{dims[-1]}, K = {args.K}) x {len(arr)} configurations; "
        f"evaluate_many chunk bound {MANY_CHUNK_CELLS} cells"
    )
    print(f"{'path':<34}{'shapes':>8}{'wall s':>10}{'CPU s':>8}{'M evals/s':>12}{'peak MiB':>10}")
    print(
        f"{'per-shape loop of evaluate':<34}{len(sample):>8}{loop_s:>10.2f}{loop_cpu_s:>8.2f}"
        f"{loop_rate / 1e6:>12.2f}{loop_peak / 2**20:>10.0f}"
    )
    print(
        f"{'evaluate_many (one call)':<34}{len(shapes):>8}{many_s:>10.2f}{many_cpu_s:>8.2f}"
        f"{many_rate / 1e6:>12.2f}{many_peak / 2**20:>10.0f}"
    )
    print(
        f"batched / loop rate: {many_rate / loop_rate:.2f}x; loop extrapolated to the grid: "
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
