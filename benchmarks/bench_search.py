"""What the search comparison costs, and how fast the vectorised cost model is.

Run from the repository root::

    .venv/bin/python benchmarks/bench_search.py            # about half a minute
    .venv/bin/python benchmarks/bench_search.py --quick    # skip the full 24-shape comparison

Prints three tables:

1. the cost model: configs per second of :func:`schedlab.core.model.evaluate` over all 3744
   launchable configs, cold (the HBM-replay and launch-order caches cleared first) and
   warm, and of :func:`schedlab.core.landscape.landscape` cold;
2. per strategy: seconds for 100 seeds on 4096^3 at the default budget, runs per second and
   measurements per second (a measurement is one model evaluation looked up in the landscape);
3. the whole comparison (24 shapes x 6 strategies x 100 seeds), cold and warm.

Times are wall-clock and depend on the machine and its load; the best of a few repeats
is reported for the short measurements.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

import schedlab.core.model as model
import schedlab.tuning as search
import schedlab.tuning.compare as compare
from schedlab.core.caching import clear_caches
from schedlab.core.knobs import config_array
from schedlab.core.landscape import landscape

SHAPE = (4096, 4096, 4096)


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def clear_model_caches():
    clear_caches()  # every memoised table: landscapes and search contexts included


def table(headers, rows):
    cells = [headers] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[j]) for r in cells) for j in range(len(headers))]
    line = lambda r: "  ".join(c.rjust(w) if j else c.ljust(w) for j, (c, w) in enumerate(zip(r, widths)))  # noqa: E731
    print(line(cells[0]))
    print("  ".join("-" * w for w in widths))
    for r in cells[1:]:
        print(line(r))
    print()


def bench_model(repeats: int):
    arr = config_array(landscape(SHAPE).configs)
    n = len(arr)

    def cold():
        clear_model_caches()
        model.evaluate(arr, *SHAPE)

    def landscape_cold():
        clear_model_caches()
        landscape(SHAPE)

    model.evaluate(arr, *SHAPE)
    rows = []
    for label, fn in (
        ("evaluate, cold caches", cold),
        ("evaluate, warm caches", lambda: model.evaluate(arr, *SHAPE)),
        ("landscape(), cold", landscape_cold),
    ):
        s = best_of(fn, repeats)
        rows.append([label, f"{s * 1e3:.1f}", f"{n / s:,.0f}"])
    print(f"Cost model: {n} launchable configs on {'x'.join(map(str, SHAPE))}")
    table(["call", "ms", "configs/s"], rows)


def bench_strategies(repeats: int, seeds: int):
    search.search_context(SHAPE)  # landscape and tables built once, as in a book build
    rows = []
    for name in search.STRATEGIES:
        s = best_of(lambda name=name: compare.compare([SHAPE], [name], seeds=range(seeds)), repeats)
        measurements = seeds * search.DEFAULT_BUDGET
        one = best_of(lambda name=name: search.STRATEGIES[name](SHAPE, search.DEFAULT_BUDGET, 0), repeats)
        rows.append([name, f"{s:.3f}", f"{seeds / s:,.0f}", f"{measurements / s:,.0f}", f"{one * 1e3:.1f}"])
    print(
        f"Strategies: {seeds} seeds x budget {search.DEFAULT_BUDGET} on {'x'.join(map(str, SHAPE))} "
        f"(noise {search.DEFAULT_NOISE})"
    )
    table(["strategy", "s / 100 seeds", "runs/s", "measurements/s", "one trace, ms"], rows)


def bench_comparison():
    clear_model_caches()
    rows = []
    total = len(search.DEFAULT_SHAPES) * len(search.STRATEGIES)
    for label in ("cold (landscapes computed)", "warm (landscapes cached)"):
        t = time.perf_counter()

        def progress(done, total_, what, label=label):
            print(f"\r  {label}: {done}/{total_} {what:<28}", end="", file=sys.stderr, flush=True)

        c = compare.compare(progress=progress if sys.stderr.isatty() else None)
        s = time.perf_counter() - t
        if sys.stderr.isatty():
            print("\r" + " " * 70 + "\r", end="", file=sys.stderr)
        runs = c.trials.size
        rows.append([label, f"{s:.2f}", f"{runs:,}", f"{runs * c.budget / s:,.0f}"])
    print(
        f"Full comparison: {len(search.DEFAULT_SHAPES)} shapes x {len(search.STRATEGIES)} strategies x 100 seeds "
        f"({total} cells)"
    )
    table(["", "seconds", "runs", "measurements/s"], rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip the full 24-shape comparison")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of each short measurement (best is kept)")
    args = parser.parse_args(argv)
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}\n"
    )
    bench_model(args.repeats)
    bench_strategies(args.repeats, 100)
    if not args.quick:
        bench_comparison()


if __name__ == "__main__":
    main()
