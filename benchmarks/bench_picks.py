"""What the model picks from Inductor's config list on production-like shapes, counted by knob.

Run from the repository root::

    .venv/bin/python benchmarks/bench_picks.py [--profile h100-sxm] [--profile a100-sxm4] [--whole-space]

For every shape of ``bench_large_shapes.grid()`` (7 LLMs x 9 token counts x 8 GEMMs, dimensions from
the models' published ``config.json``) and a short-K set (``M`` in 1024, 4096, 8192, 16384, ``N`` in
1024, 4096, 14336, ``K`` in 64, 128, 200, 256), it prices Inductor's mm list as Inductor adapts it to
the shape (:func:`schedlab.triton.configs.inductor_configs`) and takes the model's first pick (the
fastest modelled config; ties to the earlier config of the list). It prints how many picks have each
BLOCK_K, num_warps and num_stages, over all shapes and over the short-K (K <= 256) and tall-M
(M > 4096) ones. ``--whole-space`` also counts the first pick over every launchable config.

The first pick is ``argmin`` of the modelled times, so among tied configs it is the earliest: in the
whole space (ordered by knob, 1 warp first) an HBM-bound shape, where the model prices many tiles and
warp counts the same, "picks" 1 warp by order alone. So each line also counts ``<4 warps only``: the
shapes where every config within :data:`TIE` of the fastest has fewer than 4 warps, the picks the
model makes for a reason rather than by order.

What won on real GPUs is not here (that data is private); issue 24 reports its aggregates: on an
H100 the measured best has num_warps < 4 on 11 of 365 problems, and BLOCK_K 64 with 4-8 warps and 3
stages wins on most. This script shows what the model picks, nothing more; it asserts nothing.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_large_shapes import grid  # noqa: E402

from schedlab.core.hardware import profile  # noqa: E402
from schedlab.core.launch import launchable  # noqa: E402
from schedlab.core.model.engine import evaluate  # noqa: E402
from schedlab.triton.configs import inductor_configs  # noqa: E402

#: Configs within this relative distance of the fastest count as tied with it: 0.1 %, far below the 5 %
#: the lecture calls "within" and below any measurement's noise.
TIE = 1e-3

SHORT_K = tuple((M, N, K) for M in (1024, 4096, 8192, 16384) for N in (1024, 4096, 14336) for K in (64, 128, 200, 256))


def shapes():
    """The LLM grid and the short-K set, without repeats, in order."""
    return list(dict.fromkeys(grid() + list(SHORT_K)))


def first_pick(shape, hw, whole_space=False):
    """The model's first pick on ``shape`` and whether every config tied with it (:data:`TIE`) has < 4 warps."""
    configs = launchable(hw).array if whole_space else inductor_configs(shape)
    t = evaluate(configs, *shape, hw).time_s
    pick = configs[int(np.argmin(t))]
    warps = configs[:, 3] if whole_space else np.array([c.warps for c in configs])
    few_only = bool(np.all(warps[t <= t.min() * (1 + TIE)] < 4))
    return tuple(int(v) for v in (pick if whole_space else pick.as_tuple())), few_only


def counts(picks):
    """{knob: Counter of values} for BLOCK_K (index 2), num_warps (3), num_stages (4)."""
    return {name: collections.Counter(p[j] for p in picks) for name, j in (("BLOCK_K", 2), ("warps", 3), ("stages", 4))}


def show(label, picks):
    """One line of counts for ``picks``, a list of :func:`first_pick` results."""
    c = counts([p for p, _ in picks])
    parts = [f"{name} " + " ".join(f"{v}:{n}" for v, n in sorted(c[name].items())) for name in c]
    parts.append(f"<4 warps only: {sum(few for _, few in picks)}")
    print(f"  {label:<14} n={len(picks):<4} " + " | ".join(parts))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="append", help="hardware profile (repeatable; default h100-sxm, a100-sxm4)")
    parser.add_argument("--whole-space", action="store_true", help="also the first pick over every launchable config")
    args = parser.parse_args(argv)
    todo = shapes()
    for name in args.profile or ["h100-sxm", "a100-sxm4"]:
        hw = profile(name)
        for whole in (False, True) if args.whole_space else (False,):
            picks = {s: first_pick(s, hw, whole) for s in todo}
            print(f"{name}, first pick over {'every launchable config' if whole else 'inductor_configs(shape)'}:")
            show("all", list(picks.values()))
            show("K <= 256", [p for s, p in picks.items() if s[2] <= 256])
            show("M > 4096", [p for s, p in picks.items() if s[0] > 4096])
            show("M >= 1024", [p for s, p in picks.items() if s[0] >= 1024])
            show("M > 16", [p for s, p in picks.items() if s[0] > 16])
    return 0


if __name__ == "__main__":
    sys.exit(main())
