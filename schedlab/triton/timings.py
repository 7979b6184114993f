"""Real kernel times: Triton tutorial 03's kernel timed on the GPU of this machine, config by config.

``python -m schedlab.triton.timings -o DIR`` (a CUDA GPU, PyTorch and Triton needed) times the kernel that
:mod:`schedlab.triton.compiler` compiles, for each shape of :data:`SHAPES` (``--shapes holdout``:
:data:`HOLDOUT_SHAPES`) and each config of
:func:`configs_for` (Inductor's mm list as Inductor adapts it to the shape, the tutorial's own autotune
list, and a factorial probe of BLOCK_K x num_warps x num_stages on three tiles), with
``triton.testing.do_bench`` as Inductor and the tutorial time their candidates: the L2 cache cleared
before every run, the median of the runs. Inputs are FP16 ``torch.randn`` matrices, row-major, the
output FP16; every config's result is compared with ``torch.matmul``'s, whose own time is written
beside (``cublas.csv``).

It writes ``DIR/timings.csv`` (one row per shape and config: time, the compiled kernel's registers,
spills and shared memory, or why it did not run) and ``DIR/machine.txt`` (GPU, driver, versions, clocks
before and after), rewriting them after every shape, so a run stopped at ``--deadline-s`` (or killed)
leaves every finished shape on disk. The kernels are compiled first, in parallel processes that fill
Triton's on-disk cache, so the timed loop only launches.
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from schedlab.core.files import write_atomically
from schedlab.core.knobs import GemmConfig
from schedlab.triton.compiler import TUTORIAL_GROUP_M, tutorial_kernel
from schedlab.triton.configs import TUTORIAL_CONFIGS, inductor_configs

__all__ = [
    "SHAPES",
    "HOLDOUT_SHAPES",
    "FRESH_SHAPES",
    "SHAPE_SETS",
    "PROBE_CONFIGS",
    "configs_for",
    "compile_jobs",
    "COLUMNS",
    "main",
]

_HIDDEN, _INTER, _QKV = 4096, 14336, 6144  # Llama-3-8B: hidden_size, intermediate_size, q+k+v outputs
_LLM = tuple(
    (m, n, k)
    for m in (16, 64, 256, 1024, 4096, 16384)
    for n, k in ((_QKV, _HIDDEN), (_HIDDEN, _HIDDEN), (_INTER, _HIDDEN), (_HIDDEN, _INTER))
)
_SHORT_K = tuple((m, n, k) for m in (4096, 16384) for n in (1024, 4096, 14336) for k in (64, 128, 200, 256))
_TALL_M = ((32768, 1024, 1024), (32768, 4096, 1024), (32768, 1024, 4096), (32768, 4096, 512))
_DEEP_K = ((1024, 1024, 16384), (4096, 4096, 16384), (256, 4096, 28672), (1024, 8192, 28672), (64, 4096, 65536))
_SQUARE = tuple((d, d, d) for d in (512, 1024, 2048, 4096, 8192))
#: The shapes timed, interleaved by family (Llama-3-8B's layers at six token counts, short K, tall M,
#: deep K, squares; 4096^3 once) so that a run cut short by its deadline still covers every family.
SHAPES = tuple(
    dict.fromkeys(s for group in itertools.zip_longest(_LLM, _SHORT_K, _TALL_M, _DEEP_K, _SQUARE) for s in group if s)
)

#: Shapes for a check out of sample, timed after the model was last changed on :data:`SHAPES`' times:
#: Llama-3-70B's projections (N x K = 10240 x 8192, 8192 x 8192, 28672 x 8192, 8192 x 28672) at five token
#: counts, Qwen2-7B's (18944 x 3584, 3584 x 18944, 4608 x 3584) at two, other short K (96, 160, 384) and
#: squares that are not powers of two; every dimension a multiple of 16.
_HOLDOUT = (
    [
        (m, n, k)
        for m in (32, 128, 512, 2048, 8192)
        for n, k in ((10240, 8192), (8192, 8192), (28672, 8192), (8192, 28672))
    ]
    + [(m, n, k) for m in (128, 4096) for n, k in ((18944, 3584), (3584, 18944), (4608, 3584))]
    + [(m, n, k) for m in (2048, 8192, 32768) for n in (2048, 8192) for k in (96, 160, 384)]
    + [(d, d, d) for d in (1536, 3072, 6144)]
)
HOLDOUT_SHAPES = tuple(s for s in dict.fromkeys(_HOLDOUT) if s not in SHAPES)  # 8192^3 is in SHAPES
_FRESH = (
    [
        (m, n, k)
        for m in (48, 384, 3072)
        for n, k in ((8192, 3584), (3584, 4096), (28672, 3584), (3584, 14336), (8192, 29568))
    ]
    + [(m, n, k) for m in (6144, 24576) for n in (3072, 12288) for k in (144, 288)]
    + [(2560, 2560, 2560), (5120, 5120, 640), (12288, 768, 768), (768, 12288, 3072)]
)
#: A third set, timed after every change the first two informed: gemma-2-9b's and Qwen2-72B's projections at
#: 48, 384 and 3072 tokens, short K of 144 and 288, four rectangles; every dimension a multiple of 16.
FRESH_SHAPES = tuple(s for s in dict.fromkeys(_FRESH) if s not in SHAPES and s not in HOLDOUT_SHAPES)
#: The shape sets the script can time, by the name ``--shapes`` takes.
SHAPE_SETS = {"main": SHAPES, "holdout": HOLDOUT_SHAPES, "fresh": FRESH_SHAPES}

#: A factorial probe around the tiles large GEMMs use: BLOCK_K x num_warps x num_stages on 64x64, 64x128
#: and 128x128 (whether each launches is the GPU's answer, recorded).
PROBE_CONFIGS = tuple(
    GemmConfig(bm=bm, bn=bn, bk=bk, warps=w, stages=s, group=TUTORIAL_GROUP_M)
    for (bm, bn), bk, w, s in itertools.product(((64, 64), (64, 128), (128, 128)), (32, 64, 128), (2, 4, 8), (2, 3, 4))
)

COLUMNS = (
    "M", "N", "K", "bm", "bn", "bk", "group", "warps", "stages",
    "time_us", "time_p20_us", "time_p80_us", "n_regs", "n_spills", "shared_bytes", "max_rel_err", "status",
)  # fmt: skip


def configs_for(shape, probe: bool = True) -> tuple[GemmConfig, ...]:
    """Inductor's adapted list, then the tutorial's list, then (``probe``) :data:`PROBE_CONFIGS`, without repeats."""
    return tuple(dict.fromkeys((*inductor_configs(shape), *TUTORIAL_CONFIGS, *(PROBE_CONFIGS if probe else ()))))


def compile_jobs(shapes, probe: bool = True) -> list[tuple[tuple[int, int, int], GemmConfig]]:
    """One ``(shape, config)`` per kernel Triton compiles for ``shapes``: per class of shapes alike in which of
    M, N, K are multiples of 16 (what Triton specialises an integer on, and so the strides), its first shape
    with each config any shape of the class times.

    Examples
    --------
    >>> jobs = compile_jobs([(256, 256, 256), (512, 512, 512), (512, 512, 200)], probe=False)
    >>> sorted({shape for shape, _ in jobs})  # the second shape shares the first one's kernels
    [(256, 256, 256), (512, 512, 200)]
    """
    by_class: dict[tuple[bool, ...], tuple[tuple[int, int, int], dict]] = {}
    for shape in shapes:
        first, configs = by_class.setdefault(tuple(d % 16 == 0 for d in shape), (tuple(shape), {}))
        configs.update(dict.fromkeys(configs_for(shape, probe=probe)))
    return [(first, config) for first, configs in by_class.values() for config in configs]


def _launch_args(c: GemmConfig) -> dict:
    return dict(
        BLOCK_SIZE_M=c.bm,
        BLOCK_SIZE_N=c.bn,
        BLOCK_SIZE_K=c.bk,
        GROUP_SIZE_M=c.group,
        num_warps=c.warps,
        num_stages=c.stages,
    )


def _precompile(job) -> str:
    """Compile one config for one shape's integer specialisation into Triton's cache (in a worker process)."""
    import torch

    (M, N, K), c = job
    try:
        # dtypes stand for 16-byte aligned tensors; the integers carry the shape's divisibility
        tutorial_kernel().warmup(
            torch.float16, torch.float16, torch.float16, M, N, K, K, 1, N, 1, N, 1, grid=(1,), **_launch_args(c)
        )
        return ""
    except Exception as err:  # recorded by the timed loop, which compiles again and names it
        return f"{type(err).__name__}"


def _times_us(quantiles_ms) -> dict:
    """do_bench's median, 20 % and 80 % quantiles (ms) as microseconds to the nanosecond."""
    return {f"time{q}_us": round(t * 1e3, 3) for q, t in zip(("", "_p20", "_p80"), quantiles_ms)}


def _smi() -> str:
    query = "name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu"
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv"], capture_output=True, text=True, timeout=30
        )
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError) as err:
        return f"nvidia-smi failed: {err}"


def _write(path: Path, rows: list[dict]) -> None:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=list(rows[0]) if rows else COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(path, lambda f: f.write(text.getvalue().encode()))


def _time_shape(shape, configs, bench, deadline):
    """One row per config of ``configs`` on ``shape`` (stops early past ``deadline``), and cuBLAS's time."""
    import torch

    M, N, K = shape
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn((M, K), device="cuda", dtype=torch.float16, generator=gen)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16, generator=gen)
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    ref = torch.matmul(a, b)
    scale = float(ref.abs().max()) or 1.0
    kernel = tutorial_kernel()
    rows = []
    for cfg in configs:
        if time.monotonic() > deadline:
            break
        row = dict(zip(("M", "N", "K"), shape)) | {
            k: getattr(cfg, k) for k in ("bm", "bn", "bk", "group", "warps", "stages")
        }
        grid = (((M + cfg.bm - 1) // cfg.bm) * ((N + cfg.bn - 1) // cfg.bn),)

        def run(cfg=cfg, grid=grid):
            strides = (*a.stride(), *b.stride(), *c.stride())
            return kernel[grid](a, b, c, M, N, K, *strides, **_launch_args(cfg))

        try:
            c.zero_()
            compiled = run()
            err = float((c.float() - ref.float()).abs().max()) / scale
            row |= _times_us(bench(run, quantiles=[0.5, 0.2, 0.8]))
            row |= dict(max_rel_err=f"{err:.2e}", status="ok" if err < 1e-2 else "wrong")
            row |= {key: getattr(compiled, key, "") for key in ("n_regs", "n_spills")}
            row["shared_bytes"] = getattr(getattr(compiled, "metadata", None), "shared", "")
        except Exception as err:
            row["status"] = f"{type(err).__name__}: {str(err).splitlines()[0][:160] if str(err) else ''}"
        rows.append({k: row.get(k, "") for k in COLUMNS})
    cublas = dict(M=M, N=N, K=K) | _times_us(bench(lambda: torch.matmul(a, b, out=c), quantiles=[0.5, 0.2, 0.8]))
    return rows, cublas


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m schedlab.triton.timings", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-o", "--output", type=Path, required=True, help="folder for timings.csv, cublas.csv, machine.txt"
    )
    parser.add_argument(
        "--deadline-s", type=float, default=360.0, help="stop starting shapes this many seconds after the start"
    )
    parser.add_argument(
        "--grace-s", type=float, default=30.0, help="a shape begun before the deadline stops this much after it"
    )
    parser.add_argument("--warmup-ms", type=float, default=3.0, help="do_bench's warmup (default 3 ms)")
    parser.add_argument("--rep-ms", type=float, default=10.0, help="do_bench's timed repetitions (default 10 ms)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="compiler processes")
    parser.add_argument("--shapes", choices=SHAPE_SETS, default="main", help="which shape set to time (default main)")
    parser.add_argument("--no-probe", action="store_true", help="time Inductor's and the tutorial's lists only")
    parser.add_argument("--limit", type=int, default=None, help="time only the first LIMIT shapes")
    args = parser.parse_args(argv)
    start = time.monotonic()
    deadline = start + args.deadline_s

    import torch
    import triton
    from triton.testing import do_bench

    args.output.mkdir(parents=True, exist_ok=True)
    shapes = SHAPE_SETS[args.shapes][: args.limit]
    machine = [
        f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"gpu: {torch.cuda.get_device_name()} ({torch.cuda.get_device_properties(0).multi_processor_count} SMs)",
        f"torch {torch.__version__}, triton {triton.__version__}, python {platform.python_version()}",
        f"do_bench warmup {args.warmup_ms} ms, rep {args.rep_ms} ms, median and 20/80 % quantiles",
        "nvidia-smi before:",
        _smi(),
    ]
    (args.output / "machine.txt").write_text("\n".join(machine) + "\n")
    print("\n".join(machine), flush=True)

    jobs = compile_jobs(shapes, probe=not args.no_probe)
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        failed = sum(bool(f.result()) for f in as_completed([pool.submit(_precompile, j) for j in jobs]))
    print(f"compiled {len(jobs)} kernels ({failed} failed) in {time.monotonic() - start:.0f} s", flush=True)

    def bench(fn, quantiles):
        return do_bench(fn, warmup=args.warmup_ms, rep=args.rep_ms, quantiles=quantiles)

    rows, cublas = [], []
    for i, shape in enumerate(shapes, 1):
        if time.monotonic() > deadline:
            print(f"deadline: stopped before shape {i} of {len(shapes)}", flush=True)
            break
        shape_rows, shape_cublas = _time_shape(
            shape, configs_for(shape, probe=not args.no_probe), bench, deadline + args.grace_s
        )
        torch.cuda.empty_cache()  # the shape's matrices are gone with _time_shape's frame
        rows += shape_rows
        cublas.append(shape_cublas)
        ok = [r for r in shape_rows if r["status"] == "ok"]
        best = min(ok, key=lambda r: r["time_us"]) if ok else None
        print(
            f"[{time.monotonic() - start:5.0f} s] {i}/{len(shapes)} {shape}: {len(ok)}/{len(shape_rows)} ran"
            + (
                f", best {best['time_us']:.1f} us {best['bm']}x{best['bn']}x{best['bk']} w{best['warps']} s{best['stages']}"
                if best
                else ""
            )
            + f", cuBLAS {shape_cublas['time_us']:.1f} us",
            flush=True,
        )
        if i == 1 and not ok:
            print("no config ran on the first shape; statuses:", {r["status"] for r in shape_rows}, flush=True)
            _write(args.output / "timings.csv", rows)
            return 1
        _write(args.output / "timings.csv", rows)
        _write(args.output / "cublas.csv", cublas)
    with (args.output / "machine.txt").open("a") as f:
        f.write("nvidia-smi after:\n" + _smi() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
