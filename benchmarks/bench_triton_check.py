"""How well the model ranks real Triton times: the shipped H200 runs, by shape family, beside the GPU's own repeat.

Run from the repository root::

    .venv/bin/python benchmarks/bench_triton_check.py [--profile h200-sxm] [--configs inductor|timed]

For each shipped pair of runs (``schedlab/data/triton-timings``: the main shapes, the held-out shapes
timed after the resident-blocks rule, the fresh shapes timed after every change) it prints the measures of
:func:`schedlab.studies.triton_check.rank_check` for the model on the first run and, in the model's
place, the second run of the same shapes (what the measurement itself reaches), over all shapes and per
family: decode (M <= 64), short K (K <= 384), and the rest. Then the shapes where the model's first pick
is more than 10 % off, with the pick and the measured best. It asserts nothing.
"""

from __future__ import annotations

import argparse

import numpy as np

from schedlab.core.hardware import profile
from schedlab.core.triton_timings import shipped_run
from schedlab.studies.triton_check import CONFIG_SETS, WITHIN, RankCheck, rank_check, repeat_check

PAIRS = (
    ("main", "h200-run1", "h200-run2"),
    ("holdout", "h200-holdout-run1", "h200-holdout-run2"),
    ("fresh", "h200-fresh-run1", "h200-fresh-run2"),
)


def family(shape) -> str:
    M, _, K = shape
    return "decode" if M <= 64 else "short K" if K <= 384 else "other"


def line(label: str, check: RankCheck) -> str:
    return (
        f"  {label:<22} n={len(check.shapes):<3} within 10 % {check.n_within:>3} ({check.within:5.1%})"
        f"  median regret {check.median_regret:.3f}  Spearman {check.median_spearman:.3f}"
        f"  top4 {check.top4.mean():5.1%}  top8 {check.top8.mean():5.1%}  kept {check.kept:6.2%}"
        f"  |log(model/measured)| {check.median_abs_log_ratio:.3f}"
        f" (median ratio {np.exp(np.median(np.log(check.model_over_measured))):.2f})"
    )


def fmt(row) -> str:
    bm, bn, bk, warps, stages, _ = (int(v) for v in row)
    return f"{bm}x{bn}x{bk} w{warps} s{stages}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="h200-sxm", help="the model's machine (default h200-sxm)")
    parser.add_argument("--configs", choices=CONFIG_SETS, default="inductor", help="which configurations to rank")
    args = parser.parse_args(argv)
    hw = profile(args.profile)
    for name, first, second in PAIRS:
        run = shipped_run(first)
        model = rank_check(run, hw, args.configs)
        repeat = repeat_check(run, shipped_run(second), args.configs)
        print(f"{name} ({first}), {args.configs} configurations, model {args.profile}:")
        print(line("model", model))
        print(line("GPU again", repeat))
        for fam in ("decode", "short K", "other"):
            keep = [family(s) == fam for s in model.shapes]
            if any(keep):
                print(line(f"model, {fam}", model.subset(keep)))
        for shape, regret, pick, best in zip(model.shapes, model.regret, model.picks, model.bests):
            if regret > WITHIN:
                print(f"    {str(shape):<22} regret {regret:.2f}: picked {fmt(pick)}, measured best {fmt(best)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
