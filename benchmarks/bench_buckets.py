"""Time the bucket sweeps over M and the learned cost model: one command, a plain-text report.

    .venv/bin/python benchmarks/bench_buckets.py            # decode + prefill sweeps, tile map, learned model
    .venv/bin/python benchmarks/bench_buckets.py --quick    # decode sweeps and the learned model only
    .venv/bin/python benchmarks/bench_buckets.py --every-m  # also check each decode cover at every M = 1..512 (slow)

"Cold" clears every cache the evaluation has (the HBM replay in ``schedlab.core.model`` and the
launch orders behind it, ``schedlab.core.landscape._landscape``, ``schedlab.tuning.covers._sweep``);
"warm" clears only the result caches (landscapes, sweeps) and keeps the model's own caches, so
it shows what those save; "cached" is a second call of the same sweep. Wall-clock numbers
depend on the machine and its load; nothing here asserts on them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import schedlab.core.landscape as landscape_module
from schedlab.core.caching import clear_caches
from schedlab.core.landscape import landscape
from schedlab.core.shapes import LLAMA8B_PROJECTIONS, study_shapes
from schedlab.studies import buckets
from schedlab.tuning import learned
from schedlab.tuning.covers import DECODE_MS, _sweep, exact_cover, greedy_cover, power_of_two_cover, sweep
from schedlab.tuning.features import FEATURE_SETS
from schedlab.tuning.regression import fit


def clear(hbm: bool) -> None:
    landscape_module._landscape.cache_clear()
    _sweep.cache_clear()
    if hbm:
        clear_caches()


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def bench_sweeps(label: str, Ms) -> float:
    print(f"\n== {label}: {len(Ms)} values of M from {Ms[0]} to {Ms[-1]}, 3744 configs each")
    print(
        f"{'projection':10s} {'cold s':>8s} {'cold cfg/s':>11s} {'warm s':>8s} {'cached s':>9s} "
        f"{'greedy':>6s} {'exact':>5s} {'pow2':>4s} {'pow2 worst':>10s} {'pow2 mean':>9s} {'up worst':>8s} {'cover s':>8s}"
    )
    total = 0.0
    for name, N, K in LLAMA8B_PROJECTIONS:
        clear(hbm=True)
        sw, cold = timed(sweep, N, K, Ms)
        clear(hbm=False)
        _, warm = timed(sweep, N, K, Ms)
        _, cached = timed(sweep, N, K, Ms)
        start = time.perf_counter()
        g, e, p = greedy_cover(sw), exact_cover(sw), power_of_two_cover(sw)
        up = power_of_two_cover(sw, rounding="up")
        cover_s = time.perf_counter() - start
        total += cold + cover_s
        print(
            f"{name:10s} {cold:8.2f} {sw.n_evaluated / cold:11,.0f} {warm:8.2f} {cached:9.4f} "
            f"{g.n_configs:6d} {e.n_configs if e else '-':>5} {p.n_configs:4d} {p.worst:10.3f} {p.mean:9.3f} {up.worst:8.3f} "
            f"{cover_s:8.3f}"
        )
    print(f"total (cold sweeps + covers): {total:.1f} s")
    return total


def bench_landscape_path(Ms, N=4096, K=4096) -> None:
    clear(hbm=True)
    _, cold = timed(lambda: [landscape((M, N, K)) for M in Ms])
    _, warm = timed(lambda: [landscape((M, N, K)) for M in Ms])
    n = len(Ms) * 3744
    print(
        f"\n== landscape over the same M (O projection): cold {cold:.2f} s ({n / cold:,.0f} cfg/s), "
        f"second pass {warm:.4f} s (its cache holds 256 shapes)"
    )


def bench_tiles() -> float:
    clear(hbm=True)
    tm, t = timed(buckets.optimal_tiles)
    n = len(tm.Ms) * len(tm.Ns) * 3744
    print(f"\n== optimal_tiles: {len(tm.Ms)} x {len(tm.Ns)} shapes in {t:.2f} s ({n / t:,.0f} cfg/s); tiles {tm.tiles}")
    return t


def bench_learned() -> float:
    shapes = study_shapes()
    clear(hbm=True)
    _, land_s = timed(lambda: [landscape(s.mnk) for s in shapes])
    print(f"\n== learned model: {len(shapes)} study shapes, landscapes (cold) {land_s:.2f} s")
    total = land_s
    for fs in FEATURE_SETS:
        m, fit_s = timed(fit, shapes, fs)
        _, pred_s = timed(m.predict_log_time, landscape(shapes[0].mnk).configs, shapes[0].mnk)
        print(
            f"fit on all {len(shapes)} shapes, {fs:12s}: {fit_s:.3f} s; predict one shape (3744 configs): "
            f"{pred_s * 1e3:.1f} ms; train log-RMSE {m.train_rmse:.3f}"
        )
    print(
        f"{'split':10s} {'features':12s} {'total s':>7s} {'fit s':>6s} {'pred s':>6s}  "
        "geomean top-1 regret: model / fixed / nearest"
    )
    for split in learned.SPLITS:
        for fs in FEATURE_SETS:
            cv, t = timed(learned.cross_validate, split, fs)
            if fs == "tile":
                total += t
            print(
                f"{split:10s} {fs:12s} {t:7.2f} {cv.fit_s:6.2f} {cv.predict_s:6.2f}  "
                + " / ".join(f"{cv.geomean_regret(m):.3f}" for m in learned.METHODS)
            )
    return total


def check_every_m() -> None:
    print("\n== decode covers (found on DECODE_MS) checked at every M = 1..512")
    for s in buckets.bucket_study(Ms=DECODE_MS):
        for cover in (s.greedy, s.exact):
            slow, t = timed(buckets.check_every_m, cover, s.sweep.N, s.sweep.K)
            print(
                f"{s.name:8s} {cover.method:7s} {cover.n_configs} configs: worst {slow.max():.4f} at "
                f"M={int(np.argmax(slow)) + 1}, {int((slow > 1.05).sum())} M over 5 % ({t:.1f} s)"
            )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="decode sweeps and the learned model only")
    ap.add_argument("--every-m", action="store_true", help="check the decode covers at every M (slow: minutes)")
    args = ap.parse_args(argv)
    decode = bench_sweeps("decode", DECODE_MS)
    prefill = tiles = 0.0
    if not args.quick:
        prefill = bench_sweeps("prefill", buckets.PREFILL_MS)
        bench_landscape_path(DECODE_MS[:16])
        tiles = bench_tiles()
    learn = bench_learned()
    print(
        f"\nbook-build cost, cold: decode {decode:.1f} s + prefill {prefill:.1f} s + tile map {tiles:.1f} s; "
        f"learned (landscapes + tile cross-validations) {learn:.1f} s"
    )
    if args.every_m:
        check_every_m()


if __name__ == "__main__":
    main()
