"""Real Triton times (schedlab/data/triton-timings), their reader, and the rank check that holds the model to them."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from schedlab.core.files import InputFileError
from schedlab.core.hardware import H200_SXM
from schedlab.core.knobs import GemmConfig, config_array
from schedlab.core.launch import launchable_mask, reasons
from schedlab.core.resources import reserved_smem_bytes
from schedlab.core.shapes import row_alignment
from schedlab.core.triton_timings import SHIPPED_RUNS, TIMINGS_DIR, read_run, shipped_run
from schedlab.studies.triton_check import (
    CONFIG_SETS,
    H200_SETS,
    h200_checks,
    overlap_sweep,
    rank_check,
    refused_but_ran,
    repeat_check,
)
from schedlab.triton.configs import inductor_configs
from schedlab.triton.timings import COLUMNS, PROBE_CONFIGS, SHAPE_SETS, SHAPES, compile_jobs, configs_for

# ---------------------------------------------------------------- the shipped runs


@pytest.mark.parametrize("name", SHIPPED_RUNS)
def test_each_run_timed_the_script_s_shapes_and_configurations_and_every_result_was_right(name):
    run = shipped_run(name)
    shape_set = next((key for key in ("holdout", "fresh") if key in name), "main")
    shapes = SHAPE_SETS[shape_set]
    assert run.shape_list() == list(shapes)
    for shape in shapes:
        timed = {tuple(c) for c, s in zip(run.configs.tolist(), run.shapes.tolist()) if tuple(s) == shape}
        assert timed == {c.as_tuple() for c in configs_for(shape, probe=shape_set != "fresh")}  # fresh: --no-probe
    # a wrong result has status "wrong"; every row either ran right or Triton refused its shared memory
    assert {s if s == "ok" else s.split(":")[0] for s in run.status} == {"ok", "OutOfResources"}
    assert "NVIDIA H200" in run.machine and set(run.cublas_s) == set(shapes)


@pytest.mark.parametrize("names", [SHIPPED_RUNS[:2], SHIPPED_RUNS[2:4], SHIPPED_RUNS[4:]])
def test_the_two_runs_of_a_shape_set_time_the_same_rows(names):
    first, second = (shipped_run(name) for name in names)
    assert np.array_equal(first.shapes, second.shapes) and np.array_equal(first.configs, second.configs)
    assert np.array_equal(np.isnan(first.time_s), np.isnan(second.time_s))


def _refused_by_model(run):
    """Each row's refusal, asked of :func:`reasons` one configuration at a time (the scalar path)."""
    return np.array(
        [
            bool(reasons(GemmConfig(*config), H200_SXM, row_alignment(*shape)))
            for shape, config in zip(run.shapes.tolist(), run.configs.tolist())
        ]
    )


@pytest.mark.parametrize("name", SHIPPED_RUNS[::2])
def test_the_model_refuses_exactly_what_the_gpu_refused(name):
    # K = 200 included: Triton specialises an integer on divisibility by 16 only, so it cannot prove A's rows
    # aligned, copies A without cp.async and keeps one A buffer; pipelines over 227 KiB when aligned fit
    run = shipped_run(name)
    ran = ~np.isnan(run.time_s)
    assert np.array_equal(_refused_by_model(run), ~ran)
    assert not refused_but_ran(run, H200_SXM).any()


def test_where_k_is_not_a_multiple_of_16_the_gpu_ran_configurations_an_aligned_shape_refuses():
    run = shipped_run("h200-run1")
    unaligned = run.shapes[:, 2] % 16 != 0
    assert unaligned.sum() > 500  # the six K = 200 shapes
    ran = ~np.isnan(run.time_s)
    refused_if_aligned = ~launchable_mask(run.configs, H200_SXM)
    assert (ran & refused_if_aligned & unaligned).any() and not (ran & refused_if_aligned & ~unaligned).any()


def test_the_gpu_reserved_the_shared_memory_the_model_reserves():
    # Triton 3.6 on the H200 against the model (the pipeline's buffers for the shape's row alignment, or the
    # 3.9 record's where the epilogue needs more): every distinct configuration that ran, K = 200 included
    checked = set()
    for name in SHIPPED_RUNS[::2]:
        with open(TIMINGS_DIR / name / "timings.csv", newline="") as f:
            for row in csv.DictReader(f):
                if row["status"] != "ok":
                    continue
                config = tuple(int(row[k]) for k in ("bm", "bn", "bk", "warps", "stages", "group"))
                alignment = row_alignment(int(row["M"]), int(row["N"]), int(row["K"]))
                key = (config[:5], alignment)
                if key in checked:
                    continue
                checked.add(key)
                model = int(reserved_smem_bytes(config_array([config]), H200_SXM, alignment)[0])
                assert model == int(row["shared_bytes"]), (config, alignment)
    assert len(checked) > 200 and any(not a.k_aligned for _, a in checked)


# ---------------------------------------------------------------- the reader


def _write_run(folder, rows, cublas=None):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "timings.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        writer.writerows({k: row.get(k, "") for k in COLUMNS} for row in rows)
    shapes = dict.fromkeys((r["M"], r["N"], r["K"]) for r in rows)
    with open(folder / "cublas.csv", "w", newline="") as f:
        f.write("M,N,K,time_us\n")
        f.writelines(f"{m},{n},{k},{cublas or 1.0}\n" for m, n, k in shapes)
    (folder / "machine.txt").write_text("gpu: test\n")
    return folder


def _row(time_us, bm=64, shape=(256, 256, 256), status="ok"):
    M, N, K = shape
    return dict(M=M, N=N, K=K, bm=bm, bn=64, bk=32, group=8, warps=4, stages=3, time_us=time_us, status=status)


def test_the_reader_keeps_times_in_seconds_and_refusals_as_nan(tmp_path):
    run = read_run(_write_run(tmp_path / "r", [_row(10.0), _row("", bm=128, status="OutOfResources: smem")]))
    assert run.time_s[0] == pytest.approx(10e-6) and math.isnan(run.time_s[1])
    assert run.configs.tolist() == [[64, 64, 32, 4, 3, 8], [128, 64, 32, 4, 3, 8]]
    assert run.name == "r" and run.cublas_s == {(256, 256, 256): pytest.approx(1e-6)}
    with pytest.raises(ValueError):
        run.time_s[0] = 1.0


@pytest.mark.parametrize(
    "rows, message",
    [
        ([_row(10.0), _row(11.0)], "line 3: shape (256, 256, 256) and configuration (64, 64, 32, 4, 3, 8) timed twice"),
        ([_row("fast")], "line 2: time_us is 'fast', not a number"),
        ([_row(-1.0)], "line 2: time_us is -1.0, not a positive time"),
        ([_row(10.0, bm=0)], "line 2: bm is 0, not positive"),
        ([_row(10.0, bm="x")], "line 2: bm is 'x', not an integer"),
        ([], "no rows"),
    ],
)
def test_a_damaged_run_is_refused_by_file_and_line(tmp_path, rows, message):
    folder = _write_run(tmp_path / "r", rows)
    with pytest.raises(InputFileError, match="timings.csv") as err:
        read_run(folder)
    assert message in str(err.value)


def test_a_run_without_its_time_column_or_files_is_refused(tmp_path):
    folder = _write_run(tmp_path / "r", [_row(10.0)])
    (folder / "timings.csv").write_text("M,N,K\n1,2,3\n")
    with pytest.raises(InputFileError, match="no column bm, bn, bk, warps, stages, group, time_us, status"):
        read_run(folder)
    with pytest.raises(InputFileError, match="cannot read .*missing.*timings.csv"):
        read_run(tmp_path / "missing")
    with pytest.raises(
        ValueError, match="no shipped Triton run 'a100'; there are h200-run1, h200-run2, h200-holdout-run1"
    ):
        shipped_run("a100")


# ---------------------------------------------------------------- the rank check


def _two_shape_run(tmp_path, name, times):
    """A run of 4 configurations on each of two shapes, ``times[shape][i]`` microseconds."""
    rows = [_row(t, bm=bm, shape=shape) for shape, ts in times.items() for bm, t in zip((16, 32, 64, 128), ts)]
    return read_run(_write_run(tmp_path / name, rows))


def test_a_model_that_is_the_measurement_ranks_perfectly(tmp_path):
    times = {(256, 256, 256): (4.0, 3.0, 2.0, 1.0), (512, 512, 512): (1.0, 2.0, 3.0, 5.0)}
    run = _two_shape_run(tmp_path, "a", times)
    check = repeat_check(run, run, config_set="timed")
    assert check.within == 1 and check.median_regret == 1 and check.median_spearman == 1 and check.kept == 1
    assert check.top4.all() and check.median_abs_log_ratio == 0
    assert check.bests.tolist() == [[128, 64, 32, 4, 3, 8], [16, 64, 32, 4, 3, 8]]


def test_a_reversed_model_picks_the_slowest_and_correlates_minus_one(tmp_path):
    run = _two_shape_run(tmp_path, "a", {(256, 256, 256): (4.0, 3.0, 2.0, 1.0), (512, 512, 512): (1.0, 2.0, 3.0, 5.0)})
    reversed_run = _two_shape_run(
        tmp_path, "b", {(256, 256, 256): (1.0, 2.0, 3.0, 4.0), (512, 512, 512): (5.0, 3.0, 2.0, 1.0)}
    )
    check = repeat_check(run, reversed_run, config_set="timed")
    assert check.regret.tolist() == [4.0, 5.0] and check.within == 0
    assert check.spearman.tolist() == pytest.approx([-1.0, -1.0])
    assert check.kept == pytest.approx(1 / math.sqrt(20))
    assert check.subset([True, False]).regret.tolist() == [4.0]


def test_the_check_refuses_an_unknown_config_set_and_a_run_that_lacks_configurations(tmp_path):
    run = _two_shape_run(tmp_path, "a", {(256, 256, 256): (4.0, 3.0, 2.0, 1.0)})
    with pytest.raises(ValueError, match="config_set must be one of inductor, timed, got 'all'"):
        rank_check(run, H200_SXM, config_set="all")
    short = read_run(_write_run(tmp_path / "short", [_row(1.0, bm=16), _row(2.0, bm=32)]))
    with pytest.raises(ValueError, match=r"short did not time \(64, 64, 32, 4, 3, 8\) on \(256, 256, 256\)"):
        repeat_check(run, short, config_set="timed")
    with pytest.raises(ValueError, match="fewer than 2 configurations of the inductor set ran"):
        rank_check(run, H200_SXM)


def test_the_overlap_sweep_holds_the_profile_s_overlap_and_a_larger_overlap_prices_every_config_faster():
    # p max + (1 - p) sum falls as p grows (a sum is at least its largest term), so the model's time of each
    # shape's measured best can only fall; at the profile's own overlap the sweep is h200_checks' check
    sweep = overlap_sweep(H200_SXM, grid=(0.8, H200_SXM.pipeline_overlap, 1.0))
    checks = h200_checks()
    for key in H200_SETS:
        at_profile = sweep[H200_SXM.pipeline_overlap][key]
        assert at_profile.regret.tolist() == checks[key].regret.tolist()
        assert at_profile.model_over_measured.tolist() == checks[key].model_over_measured.tolist()
        ratios = [sweep[p][key].model_over_measured for p in sorted(sweep)]
        assert all(np.all(faster <= slower) for slower, faster in zip(ratios, ratios[1:]))
        assert ratios[-1].max() < ratios[0].max()


def test_the_code_before_the_k_loop_is_what_ranks_the_short_k_shapes(monkeypatch):
    # the evidence for pricing the preamble's issue unhidden: without it the main set's short-K shapes (K <= 256,
    # a few k-steps a block, thousands of blocks) rank worse and their best configurations are priced faster
    import schedlab.core.model.terms as terms

    run = shipped_run("h200-run1")
    short = [s[2] <= 256 for s in run.shape_list()]
    with_it = rank_check(run, H200_SXM).subset(short)
    monkeypatch.setattr(terms, "preamble_instructions", lambda arr, hw, alignment: np.zeros(len(arr), dtype=int))
    without = rank_check(run, H200_SXM).subset(short)
    assert with_it.n_within > without.n_within and with_it.median_spearman > without.median_spearman
    assert np.all(with_it.model_over_measured > without.model_over_measured)


@pytest.mark.parametrize("config_set", CONFIG_SETS)
def test_the_inductor_set_is_inductor_s_adapted_list_and_the_timed_set_everything(config_set):
    run = shipped_run("h200-run1")
    check = rank_check(run, H200_SXM, config_set)
    for shape, n in zip(check.shapes, check.n_configs):
        configs, _ = run.on_shape(shape)
        expected = len(configs) if config_set == "timed" else len(inductor_configs(shape))
        assert n == expected  # every config of Inductor's list launched on the H200


def test_the_script_times_inductor_s_list_first_then_the_tutorial_s_then_the_probe():
    assert len(SHAPES) == len(set(SHAPES)) == 61 and len(PROBE_CONFIGS) == 81
    holdout, fresh = SHAPE_SETS["holdout"], SHAPE_SETS["fresh"]
    assert len(holdout) == len(set(holdout)) == 46 and not set(holdout) & set(SHAPES)
    assert len(fresh) == len(set(fresh)) == 27 and not set(fresh) & (set(SHAPES) | set(holdout))
    shape = (16, 4096, 4096)
    listed = inductor_configs(shape)
    assert configs_for(shape)[: len(listed)] == listed


@pytest.mark.parametrize("shape_set", list(SHAPE_SETS))
def test_the_script_compiles_each_kernel_it_times_once_per_divisibility_class(shape_set):
    shapes = SHAPE_SETS[shape_set]
    jobs = compile_jobs(shapes)
    assert len(jobs) == len(set(jobs))
    cls = lambda shape: tuple(d % 16 == 0 for d in shape)  # noqa: E731
    compiled = {(cls(shape), config) for shape, config in jobs}
    assert len(compiled) == len(jobs)  # one shape stands for its class
    assert compiled == {(cls(shape), config) for shape in shapes for config in configs_for(shape)}
