"""Price every shape a real workload has: time and peak memory of all launchable configs on large shapes.

Run from the repository root::

    .venv/bin/python benchmarks/bench_large_shapes.py [--repeats N] [--profile h100-lecture]

For 8832 x 99584 x 2688 (an LM head), 2**20 x 2**20 x 2**20, shapes at the edge of what the model
prices (their byte counts just inside int64: 2**20 x 2**20 x (2**25 - 9), 1 x 2**20 x 2**40,
2**30 x 2**30 x 16), a 250,112-deep K (a vocabulary projection's backward pass) and a grid of 7 LLMs x
9 token counts x 8 GEMMs, it prints the cold wall and CPU time (``schedlab.clear_caches()`` first,
best of N) of ``evaluate_many([shape], configs)`` two ways: with ``terms=("time_s",)`` (the engine
skips replays an HBM bound shows cannot matter) and with ``("time_s", "bytes_hbm")`` (every launch
order replayed), and the peak memory that call allocates (``tracemalloc``, in a separate run: tracing
slows it); the issue's aim is under 1 s and 1 GiB per shape. For the LM head it also times the HBM replay
of every launch order wave by wave (``method="exact"``) beside the closed form (``"auto"``) and
reports their largest difference. Wall-clock numbers depend on the machine and its load; nothing
here asserts on them.

The LLM dimensions are the published Hugging Face ``config.json`` values (hidden_size,
intermediate_size, num_attention_heads, num_key_value_heads, head_dim, vocab_size) of
meta-llama/Meta-Llama-3-8B, meta-llama/Meta-Llama-3-70B, meta-llama/Llama-3.1-405B,
mistralai/Mistral-7B-v0.1, Qwen/Qwen2-7B, Qwen/Qwen2-72B and google/gemma-2-9b. The 8 GEMMs are a
decoder layer's ``nn.Linear`` modules in Hugging Face's Llama-style models (q_proj, k_proj, v_proj,
o_proj, gate_proj, up_proj, down_proj) and the lm_head, as ``C[M, N] = A[M, K] @ B[K, N]`` with ``M``
the tokens.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc

import numpy as np

from schedlab.core.caching import clear_caches
from schedlab.core.hardware import profile
from schedlab.core.launch import launchable
from schedlab.core.model.engine import evaluate_many
from schedlab.core.model.hbm import hbm_term
from schedlab.core.model.terms import blocks_per_wave, occupancy

#: name -> (hidden_size, intermediate_size, num_attention_heads, num_key_value_heads, head_dim, vocab_size)
LLMS = {
    "Llama-3-8B": (4096, 14336, 32, 8, 128, 128256),
    "Llama-3-70B": (8192, 28672, 64, 8, 128, 128256),
    "Llama-3.1-405B": (16384, 53248, 128, 8, 128, 128256),
    "Mistral-7B-v0.1": (4096, 14336, 32, 8, 128, 32000),
    "Qwen2-7B": (3584, 18944, 28, 4, 128, 152064),
    "Qwen2-72B": (8192, 29568, 64, 8, 128, 152064),
    "gemma-2-9b": (3584, 14336, 16, 8, 256, 256000),
}
#: Tokens per GEMM (M): decode batches to long prefills.
TOKENS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536)
LM_HEAD = (8832, 99584, 2688)
#: One shape per row of the table: the LM head, 2**20 cubed, three at the edge of int64 counts, a deep K.
SINGLE = (
    LM_HEAD,
    (2**20, 2**20, 2**20),
    (2**20, 2**20, 2**25 - 9),
    (1, 2**20, 2**40),
    (2**30, 2**30, 16),
    (8192, 4096, 250_112),
)


def gemms(hidden, inter, heads, kv_heads, head_dim, vocab):
    """The 8 (name, N, K) of one model."""
    q, kv = heads * head_dim, kv_heads * head_dim
    return (
        ("q_proj", q, hidden),
        ("k_proj", kv, hidden),
        ("v_proj", kv, hidden),
        ("o_proj", hidden, q),
        ("gate_proj", inter, hidden),
        ("up_proj", inter, hidden),
        ("down_proj", hidden, inter),
        ("lm_head", vocab, hidden),
    )


def grid():
    return [(M, N, K) for dims in LLMS.values() for M in TOKENS for _, N, K in gemms(*dims)]


def price(shape, arr, hw, terms):
    """(wall, CPU) seconds of one cold call."""
    clear_caches()
    start, cpu = time.perf_counter(), time.process_time()
    evaluate_many([shape], arr, hw, terms=terms)
    return time.perf_counter() - start, time.process_time() - cpu


def peak_mib(shape, arr, hw, terms):
    clear_caches()
    tracemalloc.start()
    evaluate_many([shape], arr, hw, terms=terms)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def launch_orders(arr, hw):
    """The distinct (bm, bn, group, per_wave) of the configs: what the HBM replay prices."""
    per_wave = blocks_per_wave(occupancy(arr, hw)[-1], hw)
    return sorted({(int(r[0]), int(r[1]), int(r[5]), int(p)) for r, p in zip(arr, per_wave)})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--profile", default="h100-lecture", help="hardware profile (default h100-lecture)")
    args = parser.parse_args(argv)
    hw = profile(args.profile)
    arr = launchable(hw).array
    print(f"{hw.name}: {len(arr)} launchable configs; cold, best of {args.repeats}")
    both = (("time_s",), ("time_s", "bytes_hbm"))
    print(f"{'shape':>32}  {'time_s s':>9}  {'CPU s':>6}  {'+bytes s':>9}  {'CPU s':>6}  {'peak MiB':>8}")
    for shape in SINGLE:
        t = [min(price(shape, arr, hw, terms) for _ in range(args.repeats)) for terms in both]
        print(
            f"{'x'.join(map(str, shape)):>32}  {t[0][0]:9.3f}  {t[0][1]:6.3f}  {t[1][0]:9.3f}  {t[1][1]:6.3f}  "
            f"{peak_mib(shape, arr, hw, both[1]):8.1f}"
        )

    shapes = grid()
    refused_before = sum(-(-M // 16) * -(-N // 16) > 2**21 for M, N, _ in shapes)
    print(
        f"\n{len(LLMS)} LLMs x {len(TOKENS)} token counts x 8 GEMMs = {len(shapes)} shapes "
        f"({refused_before} over the former MAX_TILES = 2**21), one shape per call:"
    )
    for terms in both:
        times = np.array([price(s, arr, hw, terms)[0] for s in shapes])
        worst = shapes[int(times.argmax())]
        print(
            f"  terms={terms}: total {times.sum():.2f} s, median {np.median(times):.3f} s, "
            f"max {times.max():.3f} s ({'x'.join(map(str, worst))})"
        )
    big = max(shapes, key=lambda s: s[0] * s[1])
    print(f"  peak MiB of the largest grid shape {'x'.join(map(str, big))}: {peak_mib(big, arr, hw, both[1]):.1f}")

    combos = tuple(np.array(x) for x in zip(*launch_orders(arr, hw)))
    rows = {}
    for method in ("exact", "auto"):
        best = float("inf")
        for _ in range(args.repeats):
            clear_caches()
            start = time.perf_counter()
            rows[method] = hbm_term(*LM_HEAD, combos, hw, method=method)[0]
            best = min(best, time.perf_counter() - start)
        rows[method + " s"] = best
    diff = np.abs(rows["exact"] - rows["auto"]).max()
    print(
        f"\nHBM replay of the LM head's {len(combos[0])} launch orders in one pass: wave by wave "
        f"{rows['exact s']:.2f} s, closed form past 2**8 waves {rows['auto s']:.2f} s "
        f"({rows['exact s'] / rows['auto s']:.1f}x); largest difference {diff:g} bytes"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
