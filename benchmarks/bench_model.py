"""Time the vectorised cost model against the seed's scalar loop, and the console command.

Run from the repository root::

    python benchmarks/bench_model.py [--repeats N]

For each lecture shape it prices all launchable configurations two ways,
(a) ``evaluate(arr, M, N, K)`` in one numpy pass and (b) ``[gemm_time(c, M, N, K) for c in configs]``,
cold (model caches cleared before every repeat) and warm (caches filled by a previous call),
checks that both give bit-identical times, and prints best-of-N wall times, the
scalar/vector ratio and configurations per second. Finally it times ``python -m schedlab``
as a subprocess when ``schedlab/__main__.py`` exists. It also times the terms issue 24 added (the
tensor-core rate by instruction path, the epilogue's shared-memory passes) on ``h100-sxm``: the
profile against itself with those terms neutral, cold, on Triton's launchable set; the issue of the code
before the k-loop against the term off, warm; and reading the
compiler's record of registers (:mod:`schedlab.core.compiler_record`), cold; and the shared-memory bytes by
Triton's layout (``smem_read_bytes`` and ``smem_fill_bytes``) against the seed's warp grid; and the lecture's
four shapes with K one element short of a multiple of 16 (so A's rows are not aligned and the model reads the
record's other kind, :class:`~schedlab.core.shapes.RowAlignment`) against the shapes themselves, cold, and
``evaluate_many`` on both sets at once against the two sets apart.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from wcwidth import wcswidth

from schedlab.core.caching import clear_caches
from schedlab.core.compiler_record import compiled_resources
from schedlab.core.hardware import H100_SXM, H100_TC
from schedlab.core.knobs import all_configs, config_array
from schedlab.core.launch import launch_checks, launchable_mask
from schedlab.core.model.engine import evaluate, evaluate_many, gemm_time
from schedlab.core.resources import smem_fill_bytes, smem_read_bytes
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.render.labels import shape_short

ROOT = Path(__file__).resolve().parent.parent


def best_of(fn, repeats: int, cold: bool) -> tuple[float, object]:
    """Best wall time of ``repeats`` calls of ``fn`` (caches cleared before each call when ``cold``)."""
    best, result = float("inf"), None
    if not cold:
        result = fn()  # fill the caches
    for _ in range(repeats):
        if cold:
            clear_caches()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def launchable():
    configs = all_configs()
    arr = config_array(configs)
    checks = launch_checks(arr, H100_TC)
    ok = ~(checks["smem"] | checks["mma"] | checks["registers"])
    return [c for c, good in zip(configs, ok) if good], arr[ok]


def ljust(text: str, width: int) -> str:
    """Left-justify by display width (the shape names are Chinese, two columns per character)."""
    return text + " " * max(0, width - wcswidth(text))


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1e3:9.2f} ms"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="best of N for the vectorised core (default 5)")
    parser.add_argument("--scalar-repeats", type=int, default=2, help="best of N for the scalar loop (default 2)")
    parser.add_argument("--cli-repeats", type=int, default=3, help="best of N for python -m schedlab (default 3)")
    args = parser.parse_args(argv)

    configs, arr = launchable()
    n = len(configs)
    print(
        f"schedlab model benchmark: {n} launchable configs, numpy {np.__version__}, "
        f"python {sys.version.split()[0]}, best of {args.repeats} (vector) / {args.scalar_repeats} (scalar)"
    )
    print()
    header = (
        f"{'shape':<30}{'mode':<6}{'vector evaluate':>17}{'scalar loop':>15}{'ratio':>9}"
        f"{'vector cfg/s':>15}{'scalar cfg/s':>15}  identical"
    )
    print(header)
    print("-" * len(header))

    all_identical = True
    totals = {"cold": [0.0, 0.0], "warm": [0.0, 0.0]}
    for shape in LECTURE_SHAPES:
        M, N, K = shape.mnk
        for mode in ("cold", "warm"):
            cold = mode == "cold"
            t_vec, vec = best_of(lambda M=M, N=N, K=K: evaluate(arr, M, N, K).time_s, args.repeats, cold)
            t_sca, sca = best_of(
                lambda M=M, N=N, K=K: [gemm_time(c, M, N, K) for c in configs], args.scalar_repeats, cold
            )
            identical = np.array_equal(vec, np.array(sca))
            all_identical &= identical
            totals[mode][0] += t_vec
            totals[mode][1] += t_sca
            label = f"{shape_short(shape)} {M}x{N}x{K}"
            print(
                f"{ljust(label, 30)}{mode:<6}{fmt_s(t_vec):>17}{fmt_s(t_sca):>15}"
                f"{t_sca / t_vec:>8.0f}x{n / t_vec:>15,.0f}{n / t_sca:>15,.0f}  {'yes' if identical else 'NO'}"
            )
    print("-" * len(header))
    for mode, (t_vec, t_sca) in totals.items():
        k = len(LECTURE_SHAPES) * n
        print(
            f"{'all four shapes':<30}{mode:<6}{fmt_s(t_vec):>17}{fmt_s(t_sca):>15}"
            f"{t_sca / t_vec:>8.0f}x{k / t_vec:>15,.0f}{k / t_sca:>15,.0f}"
        )
    print()

    # the issue-24 terms: the same machine with and without them, cold (caches cleared every repeat)
    triton_arr = config_array(all_configs())
    triton_arr = triton_arr[launchable_mask(triton_arr, H100_SXM)]
    neutral = dataclasses.replace(H100_SXM, mma_sync_fraction=1.0, epilogue_smem_passes=0)
    cost = {}
    for hw in (neutral, H100_SXM):
        cost[hw] = sum(
            best_of(lambda s=s, hw=hw: evaluate(triton_arr, *s.mnk, hw), args.repeats, True)[0] for s in LECTURE_SHAPES
        )
    print(
        f"h100-sxm, {len(triton_arr)} launchable configs x 4 shapes, cold: {fmt_s(cost[H100_SXM])} with the tensor-core "
        f"path and epilogue terms, {fmt_s(cost[neutral])} without ({cost[H100_SXM] / cost[neutral]:.2f}x)"
    )
    # the code before the k-loop: its issue priced from the record against the term off (no instructions), warm
    import schedlab.core.model.terms as terms

    def preamble_cost() -> float:
        return sum(
            best_of(lambda s=s: evaluate(triton_arr, *s.mnk, H100_SXM), args.repeats, False)[0] for s in LECTURE_SHAPES
        )

    with_preamble_s = preamble_cost()
    recorded = terms.preamble_instructions
    terms.preamble_instructions = lambda arr, hw, alignment: np.zeros(len(arr), dtype=np.int64)
    try:
        without_preamble_s = preamble_cost()
    finally:
        terms.preamble_instructions = recorded
    print(
        f"h100-sxm, the same, warm: {fmt_s(with_preamble_s)} with the issue of the code before the k-loop, "
        f"{fmt_s(without_preamble_s)} without ({with_preamble_s / without_preamble_s:.2f}x)"
    )
    # the registers Triton's profiles read from the compiler's record: reading it once per target, cold
    read_s = best_of(lambda: compiled_resources(triton_arr, H100_SXM.launch_rules), args.repeats, True)[0]
    print(
        f"compiler record (schedlab/data/triton-registers.csv), read and looked up for {len(triton_arr)} configs, "
        f"cold: {fmt_s(read_s)} ({read_s / cost[H100_SXM] * 100:.1f} % of the 4 cold evaluations above, paid once per target)"
    )
    # the shared-memory bytes per k-step: Triton's layout and instructions plus the stage's fill (h100-sxm)
    # against the seed's warp-grid formula on the same configs (warm: both are plain numpy on the array)
    triton_s = best_of(
        lambda: smem_read_bytes(triton_arr, H100_SXM) + smem_fill_bytes(triton_arr, H100_SXM), args.repeats, False
    )[0]
    seed_s = best_of(lambda: smem_read_bytes(triton_arr, H100_TC), args.repeats, False)[0]
    print(
        f"shared-memory bytes per k-step for {len(triton_arr)} configs: {fmt_s(triton_s)} by Triton's layout and the "
        f"fill, {fmt_s(seed_s)} by the seed's grid ({triton_s / seed_s:.1f}x; {triton_s / cost[H100_SXM] * 100:.1f} % "
        f"of the 4 cold evaluations above)"
    )
    # shapes whose K is not a multiple of 16: the record's unaligned kind, priced apart by evaluate_many
    aligned_shapes = [s.mnk for s in LECTURE_SHAPES]
    unaligned_shapes = [(M, N, K - 1) for M, N, K in aligned_shapes]
    unaligned_s = sum(
        best_of(lambda s=s: evaluate(triton_arr, *s, H100_SXM), args.repeats, True)[0] for s in unaligned_shapes
    )
    mixed_s = best_of(
        lambda: evaluate_many(aligned_shapes + unaligned_shapes, triton_arr, H100_SXM), args.repeats, True
    )[0]
    apart_s = sum(
        best_of(lambda shapes=shapes: evaluate_many(shapes, triton_arr, H100_SXM), args.repeats, True)[0]
        for shapes in (aligned_shapes, unaligned_shapes)
    )
    print(
        f"h100-sxm, the 4 shapes with K - 1 (A's rows unaligned), cold: {fmt_s(unaligned_s)} against "
        f"{fmt_s(cost[H100_SXM])} aligned ({unaligned_s / cost[H100_SXM]:.2f}x); evaluate_many of all 8 at once "
        f"{fmt_s(mixed_s)}, of each kind apart {fmt_s(apart_s)} ({mixed_s / apart_s:.2f}x)"
    )
    print()

    main_py = ROOT / "schedlab" / "__main__.py"
    if main_py.exists():
        env = dict(os.environ, PYTHONIOENCODING="utf-8")
        cmd = [sys.executable, "-m", "schedlab"]
        best, rc = float("inf"), None
        for _ in range(args.cli_repeats):
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            best = min(best, time.perf_counter() - t0)
            rc = proc.returncode
            if rc != 0:
                break
        status = "ok" if rc == 0 else f"exit code {rc}: {proc.stderr.decode(errors='replace').strip()[-200:]}"
        print(f"python -m schedlab (subprocess, best of {args.cli_repeats}): {best:.3f} s  [{status}]")
    else:
        print("python -m schedlab: skipped (schedlab/__main__.py does not exist yet)")

    print()
    print("vector and scalar times identical on every shape:", "yes" if all_identical else "NO")
    return 0 if all_identical else 1


if __name__ == "__main__":
    sys.exit(main())
