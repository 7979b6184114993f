"""Time pricing every launchable configuration on the largest shapes the model accepts, next to 4096³.

Run from the repository root::

    python benchmarks/bench_limits.py [--repeats N]

The HBM replay walks every wave of every (tile, group, wave size), so its cost grows with the
number of output tiles; ``schedlab.core.space.MAX_TILES`` and ``MAX_K`` bound it. For each shape this
prints the best-of-N cold wall time of ``evaluate`` over all launchable configs (model caches
cleared before each repeat), its ratio to the 4096³ time, and the process's peak resident memory.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from schedlab import H100_TC, clear_caches, evaluate, launchable
from schedlab.core.space import MAX_K, MAX_TILES

SHAPES = [(4096, 4096, 4096), (16 * 1024, 16 * 2048, MAX_K), (16, 16 * MAX_TILES, MAX_K), (16 * MAX_TILES, 16, MAX_K)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="best of N (default 3)")
    args = parser.parse_args(argv)
    arr = launchable(H100_TC).array
    print(f"{len(arr)} launchable configs, cold, best of {args.repeats}")
    base = None
    for shape in SHAPES:
        best = float("inf")
        for _ in range(args.repeats):
            clear_caches()
            t0 = time.perf_counter()
            evaluate(arr, *shape)
            best = min(best, time.perf_counter() - t0)
        base = base or best
        rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{'x'.join(map(str, shape)):>28}  {best * 1e3:9.1f} ms  {best / base:7.1f}x 4096³  "
            f"peak RSS so far {rss_mib:6.0f} MiB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
