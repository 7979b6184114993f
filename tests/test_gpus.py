"""Several GPUs: the profiles, their sources, and that each one's space and optimum follow from its parameters."""

import dataclasses

import numpy as np
import pytest

from schedlab.core.hardware import (
    A100_SXM4,
    DEFAULT_PROFILE,
    H100_SXM,
    H100_TC,
    H200_SXM,
    PROFILES,
    Hardware,
    KiB,
    MiB,
    check_hardware,
    lecture_machine_replaced,
    profile,
)
from schedlab.core.knobs import GemmConfig, all_configs
from schedlab.core.landscape import landscape
from schedlab.core.launch import launchable
from schedlab.core.model.engine import evaluate, explain
from schedlab.core.profile_sources import PROFILE_SOURCES
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.render.labels import launch_reason_label
from schedlab.studies.claims import seed_claims
from schedlab.studies.gpus import HardwareTransfer, hardware_transfer
from schedlab.studies.space import space_summary
from schedlab.studies.triton_check import operand_bytes

SQUARE = (4096, 4096, 4096)
DECODE = (16, 4096, 4096)
FIELDS = [f.name for f in dataclasses.fields(Hardware) if f.name != "name"]


# --- the profiles ---------------------------------------------------------------------------------


def test_the_four_profiles_and_the_default():
    assert tuple(PROFILES) == ("h100-lecture", "h100-sxm", "a100-sxm4", "h200-sxm")
    assert DEFAULT_PROFILE == "h100-lecture"
    assert PROFILES["h100-lecture"] is H100_TC  # the lecture's machine, the very object every default uses
    assert check_hardware(None) is PROFILES[DEFAULT_PROFILE]
    assert landscape(SQUARE, A100_SXM4).hw is A100_SXM4 and landscape(SQUARE).hw is H100_TC


def test_a_profile_knows_its_key_and_label():
    assert [hw.key for hw in PROFILES.values()] == list(PROFILES)
    assert [hw.label for hw in PROFILES.values()] == list(PROFILES)
    mine = dataclasses.replace(A100_SXM4, name="my A100", n_sm=100)
    assert mine.key == "" and mine.label == "my A100"


@pytest.mark.parametrize("name", list(PROFILES))
def test_every_field_of_every_profile_has_a_source(name):
    sources = PROFILE_SOURCES[name]
    assert set(sources) == set(FIELDS)
    assert all(isinstance(text, str) and len(text) > 10 for text in sources.values())


@pytest.mark.parametrize("name", ["h100-sxm", "a100-sxm4", "h200-sxm"])
def test_a_field_that_differs_from_the_lecture_says_why(name):
    """A value changed from the lecture's cannot keep the lecture's source text."""
    hw, sources = PROFILES[name], PROFILE_SOURCES[name]
    for field in FIELDS:
        if getattr(hw, field) != getattr(H100_TC, field):
            assert sources[field] != PROFILE_SOURCES["h100-lecture"][field], field


def test_unsourced_values_are_said_to_be_unsourced():
    """The fields no published measurement was found for say so, in the text the book shows; the one
    value chosen by looking at outcomes says that too, and a value fitted to measurements says which (issue 15
    and issue 24: say what each value rests on)."""
    for name in ("h100-sxm", "a100-sxm4", "h200-sxm"):
        assert PROFILE_SOURCES[name]["l2_port_bytes_per_clk_per_sm"].startswith("Unsourced")
        assert PROFILE_SOURCES[name]["pipeline_overlap"].startswith("Assumption, not measured")
        for field in ("l2_bw_bytes_per_s", "hbm_bw_bytes_per_s", "tc_flop_per_clk_per_sm"):
            assert "measured" in PROFILE_SOURCES[name][field].lower(), (name, field)
    assert "measured" in PROFILE_SOURCES["a100-sxm4"]["mem_latency_s"].lower()
    for name in ("h100-sxm", "h200-sxm"):  # the GH100's loaded latency: fitted to the shipped H200 timings
        assert PROFILE_SOURCES[name]["mem_latency_s"].startswith("Fitted, loaded")
        assert "schedlab/data/triton-timings/h200-run1" in PROFILE_SOURCES[name]["mem_latency_s"]


def test_datasheet_facts():
    """The nominal numbers the datasheets and whitepapers print, recomputed from the fields."""
    assert 108 * 2048 * A100_SXM4.clock_hz / 1e12 == pytest.approx(312, rel=2e-3)  # A100: 312 dense FP16 TFLOPS
    assert H100_TC.peak_flops / 1e12 == pytest.approx(989.4, rel=1e-9)  # H100 SXM5: 989.4
    assert (A100_SXM4.n_sm, A100_SXM4.l2_bytes, A100_SXM4.smem_per_sm, A100_SXM4.smem_limit) == (
        108,
        40 * MiB,
        164 * KiB,
        163 * KiB,
    )
    assert H200_SXM.hbm_bw_bytes_per_s / H100_SXM.hbm_bw_bytes_per_s == pytest.approx(4.8 / 3.35)
    # the H200 is the H100 SXM's chip with other memory: every other field equal
    assert [f for f in FIELDS if getattr(H200_SXM, f) != getattr(H100_SXM, f)] == ["hbm_bw_bytes_per_s"]


def test_h100_sxm_tensor_rate_is_the_measured_matmul_rate():
    """[MAMF] measured 794.5 TFLOPS on an H100 SXM; the profile's peak is that, to the integer FLOP/clk."""
    assert H100_SXM.peak_flops / 1e12 == pytest.approx(794.5, abs=132 * H100_SXM.clock_hz / 1e12)


def test_profile_by_name():
    assert profile("a100-sxm4") is A100_SXM4
    assert profile("h100-lecture") is H100_TC
    fewer = dataclasses.replace(H100_TC, n_sm=114)
    # the book's perturbation guards (and they alone) replace the lecture's machine, name and default together
    with lecture_machine_replaced(fewer):
        assert profile("h100-lecture") is fewer and check_hardware(None) is fewer and profile("h100-sxm") is H100_SXM
        assert hardware_transfer(SQUARE).hardware[0] is fewer
    assert profile("h100-lecture") is H100_TC and check_hardware(None) is H100_TC
    with pytest.raises(ValueError, match=r"unknown GPU 'b200'; known: h100-lecture, h100-sxm, a100-sxm4, h200-sxm"):
        profile("b200")
    with pytest.raises(ValueError, match="unknown GPU 3"):
        profile(3)


# --- validation of the new field ---------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_l2_partitions_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="l2_partitions"):
        dataclasses.replace(H100_TC, l2_partitions=bad)


def test_more_partitions_than_l2_bytes_refused():
    with pytest.raises(ValueError, match=r"l2_partitions \(64\) exceeds l2_bytes \(32\)"):
        dataclasses.replace(H100_TC, l2_bytes=32, l2_partitions=64)


def test_partitions_act_through_the_shared_capacity_only():
    """Two sections of 100 MiB hold shared panels exactly as one cache of 50 MiB (the replay's rule)."""
    split = dataclasses.replace(H100_TC, l2_bytes=100 * MiB, l2_partitions=2)
    assert split.l2_bytes_shared == H100_TC.l2_bytes
    for shape in LECTURE_SHAPES:
        np.testing.assert_array_equal(landscape(shape.mnk, split).time_s, landscape(shape.mnk, H100_TC).time_s)


def test_a_split_l2_loses_reuse_when_a_wave_overflows_one_section():
    """Halving the capacity that survives between waves can only add HBM traffic, never remove it."""
    from schedlab.core.model import hbm_bytes

    split = dataclasses.replace(H100_TC, l2_partitions=2)
    one, two = (hbm_bytes(16384, 16384, 4096, 128, 128, 1, 132, hw) for hw in (H100_TC, split))
    assert two > one


# --- the space on each GPU follows from its parameters -----------------------------------------------


def _pipeline_bytes(cfg: GemmConfig, bytes_per_element: int) -> int:
    """Shared memory of the software pipeline: stages x (BM + BN) x BK elements."""
    return cfg.stages * (cfg.bm + cfg.bn) * cfg.bk * bytes_per_element


def _triton_buffers(cfg: GemmConfig, hopper: bool) -> int:
    """Triton's pipeline buffers, counted from the knobs: stages with Hopper's wgmma (4k warps, BM a multiple
    of 64), else stages - 1 (at least 1); the rule its compiler applied when compiled for sm_80 and sm_90."""
    wgmma = hopper and cfg.warps % 4 == 0 and cfg.bm % 64 == 0
    return cfg.stages if wgmma else max(cfg.stages - 1, 1)


def test_a100_prunes_exactly_the_pipelines_over_its_163_kib():
    """Under Triton's rules only shared memory refuses: the A100 refuses exactly the configs whose Ampere
    pipeline (stages - 1 buffers) needs more than 163 KiB."""
    assert A100_SXM4.launch_rules == "triton-sm80"
    over = {c for c in all_configs() if _triton_buffers(c, False) * (c.bm + c.bn) * c.bk * 2 > 163 * 1024}
    assert set(all_configs()) - set(launchable(A100_SXM4).configs) == over
    summary = space_summary(A100_SXM4)
    assert [(r.code, n) for r, n in summary.reason_counts] == [("smem", len(over))]
    assert "163 KiB" in launch_reason_label(summary.reason_counts[0][0], A100_SXM4)


def test_the_a100_loses_the_deepest_pipelines_of_the_big_tiles():
    """256 x 128 with BK = 64: 4 stages hold 3 buffers on the A100 (144 KiB) and fit, 5 (192 KiB) do not;
    Hopper's wgmma keeps a buffer more, so on h100-sxm 5 stages need 240 KiB and do not fit either."""
    four, five = GemmConfig(256, 128, 64, 8, 4, 1), GemmConfig(256, 128, 64, 8, 5, 1)
    assert four in launchable(A100_SXM4).index and five not in launchable(A100_SXM4).index
    assert four in launchable(H100_SXM).index and five not in launchable(H100_SXM).index


@pytest.mark.parametrize("name", ["h100-sxm", "h200-sxm"])
def test_same_limits_same_space(name):
    """The calibrated H100 and the H200 share the lecture's per-block limit (227 KiB) and Triton's sm_90 rules:
    they refuse exactly the configs whose Hopper pipeline needs more than 227 KiB."""
    over = {c for c in all_configs() if _triton_buffers(c, True) * (c.bm + c.bn) * c.bk * 2 > 227 * 1024}
    assert set(all_configs()) - set(launchable(PROFILES[name]).configs) == over


# --- the optimum on each GPU follows from its parameters ---------------------------------------------


def _l2_floor_s(cfg: GemmConfig, M: int, N: int, K: int, hw: Hardware) -> float:
    """Every block reads its A and B panels through L2 once: blocks x (BM + BN) x K elements at the L2 rate."""
    return operand_bytes((M, N, K), cfg.as_tuple(), hw.bytes_per_element) / hw.l2_bw_bytes_per_s


def test_h100_sxm_square_optimum_is_no_longer_l2_bound():
    """Issue 15: the old calibration's 5.5 TB/s L2 made 4096³ L2-bound at 455 TFLOPS, while measured Triton
    kernels of large GEMMs reach 517-634. The L2 measured on the GH100 (13.4 TB/s at least, an H200) lets the
    optimum's tile stream its panels in less time than its tensor cores take: its L2 floor is below its
    time, the tensor cores bind, and the prediction lies inside the measured range."""
    land = landscape(SQUARE, H100_SXM)
    best = land.best
    assert _l2_floor_s(best, *SQUARE, H100_SXM) < 0.9 * land.best_time_s
    assert explain(best, *SQUARE, H100_SXM).bottleneck == "t_tc_s"
    assert 517 <= land.best_tflops <= 634
    # the lecture's 12 TB/s L2 leaves the same GEMM on the tensor cores too (claim C4: 850-950 TFLOPS)
    lecture = landscape(SQUARE, H100_TC)
    assert explain(lecture.best, *SQUARE, H100_TC).bottleneck == "t_tc_s"
    assert lecture.best_time_s > _l2_floor_s(lecture.best, *SQUARE, H100_TC)
    assert lecture.best_tflops > 0.85 * H100_TC.peak_flops / 1e12


def test_gh100_l2_is_what_the_h200_s_fastest_deep_k_kernel_drew_through_it():
    """The GH100 profiles' L2 is the rate at which the fastest measured config of 1024 x 1024 x 16384 (one wave)
    loaded its tiles' A and B panels on the H200 (schedlab/data/triton-timings), to 0.05 TB/s: a lower bound."""
    from schedlab.core.triton_timings import shipped_run

    configs, times = shipped_run("h200-run1").on_shape((1024, 1024, 16384))
    best = int(times.argmin())
    drawn = operand_bytes((1024, 1024, 16384), configs[best]) / times[best]
    assert H100_SXM.l2_bw_bytes_per_s == H200_SXM.l2_bw_bytes_per_s == pytest.approx(drawn, abs=0.05e12)
    assert evaluate(configs[best : best + 1], 1024, 1024, 16384, H200_SXM).waves[0] == 1  # every tile at once


def test_gh100_loaded_latency_is_the_fit_on_the_h200_s_main_run():
    """h100-sxm's (and h200-sxm's) memory latency is the grid value under which the model ranks the H200's main
    timing run best (schedlab.studies.triton_check.latency_fit), above the unloaded 375 ns it starts from."""
    from schedlab.core.triton_timings import shipped_run
    from schedlab.studies.triton_check import LATENCY_GRID_S, latency_fit

    best, scores = latency_fit(shipped_run("h200-run1"), H200_SXM)
    assert H100_SXM.mem_latency_s == H200_SXM.mem_latency_s == best > LATENCY_GRID_S[0]
    assert max(scores) > scores[0]


def test_a100_tensor_rate_is_the_measured_matmul_rate():
    """[MAMF] measured 271.2 TFLOPS on an A100 SXM; the profile's peak is that, to the integer FLOP/clk."""
    assert A100_SXM4.peak_flops / 1e12 == pytest.approx(271.2, abs=108 * A100_SXM4.clock_hz / 1e12)


def test_launch_is_the_part_of_the_smallest_published_time_the_model_leaves():
    """h100-sxm's launch and prologue is derived from triton#2339's cuBLAS time on 2048 x 512 x 512
    (102.6 TFLOPS, i.e. 10.47 us): that time less the model's best without a launch (to 0.1 us)."""
    measured_s = 2 * 2048 * 512 * 512 / 102.6e12
    without = landscape((2048, 512, 512), dataclasses.replace(H100_SXM, t_launch_s=0.0)).best_time_s
    assert H100_SXM.t_launch_s == pytest.approx(measured_s - without, abs=0.05e-6)
    assert A100_SXM4.t_launch_s == H100_SXM.t_launch_s == H200_SXM.t_launch_s


@pytest.mark.parametrize("name", list(PROFILES))
def test_no_profile_beats_its_rooflines(name):
    """Tensor-core peak and HBM (A, B read once, C written once) bound every GPU's optimum on every shape."""
    hw = PROFILES[name]
    for shape in LECTURE_SHAPES:
        M, N, K = shape.mnk
        land = landscape(shape.mnk, hw)
        assert land.best_tflops * 1e12 <= hw.peak_flops
        assert land.best_time_s >= (M * K + K * N + M * N) * hw.bytes_per_element / hw.hbm_bw_bytes_per_s


def test_h200_bandwidth_speeds_up_decode_by_at_most_its_bandwidth_ratio():
    """Decode is HBM-bound: the H200's 1.43 x bandwidth makes it faster, but by no more than that ratio."""
    h100, h200 = landscape(DECODE, H100_SXM), landscape(DECODE, H200_SXM)
    ratio = h100.best_time_s / h200.best_time_s
    assert 1 < ratio <= H200_SXM.hbm_bw_bytes_per_s / H100_SXM.hbm_bw_bytes_per_s
    # the compute-bound square GEMM (same chip, same L2, the same best) gains only the share of its HBM
    # time that the pipeline leaves unhidden: (1 - p) x (its HBM time on the H100 - on the H200)
    square_h100, square_h200 = landscape(SQUARE, H100_SXM), landscape(SQUARE, H200_SXM)
    assert square_h200.best == square_h100.best
    hbm_h100, hbm_h200 = (explain(square_h100.best, *SQUARE, hw) for hw in (H100_SXM, H200_SXM))
    unhidden = 1 - H100_SXM.pipeline_overlap
    gained = unhidden * (hbm_h100.t_hbm_s - hbm_h200.t_hbm_s) * hbm_h100.waves * hbm_h100.k_steps
    assert square_h100.best_time_s - square_h200.best_time_s == pytest.approx(gained, rel=1e-9)


def test_lecture_claims_hold_on_the_default_profile():
    """C1-C8 evaluated on PROFILES['h100-lecture'] (tests/test_seed_claims.py checks them independently)."""
    claims = seed_claims(PROFILES[DEFAULT_PROFILE])
    assert [c.id for c in claims if not c.holds] == []


# --- hardware transfer ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def square_transfer():
    return hardware_transfer(SQUARE)


def test_hardware_transfer_record(square_transfer):
    t = square_transfer
    assert isinstance(t, HardwareTransfer)
    assert t.gpus == tuple(PROFILES) and t.hardware == tuple(PROFILES.values()) and t.shape == SQUARE
    np.testing.assert_array_equal(np.diag(t.matrix), 1.0)
    assert t.matrix.shape == (4, 4) and np.all(t.matrix >= 1.0)  # nobody beats a GPU's own best
    for i, hw in enumerate(t.hardware):
        land = landscape(SQUARE, hw)
        assert t.optima[i] == land.best and t.best_time_s[i] == land.best_time_s
        for j, other in enumerate(t.hardware):
            assert t.matrix[i, j] == landscape(SQUARE, other).time_of(t.optima[i]) / t.best_time_s[j]


def test_a_config_that_cannot_launch_elsewhere_costs_inf():
    """An optimum whose pipeline needs more than 163 KiB cannot run on the A100: its cell is inf.

    A 2 us memory latency needs deep pipelines to hide it (Little's law), so the big shapes' optima
    there take 4 stages of BK = 64 (192 KiB). (Under the seed's rules on both: Triton's A100 keeps one
    buffer fewer, so every pipeline that fits the lecture's 227 KiB fits it.)"""
    slow = dataclasses.replace(H100_TC, name="H100 with 2 us latency", mem_latency_s=2e-6)
    a100 = dataclasses.replace(A100_SXM4, name="A100, seed rules", launch_rules="seed")
    deep = 0
    for shape in LECTURE_SHAPES:
        t = hardware_transfer(shape.mnk, [H100_TC, slow, a100])
        for i, opt in enumerate(t.optima):
            fits = _pipeline_bytes(opt, 2) <= 163 * 1024
            assert np.isfinite(t.matrix[i, 2]) == fits
            deep += not fits
    assert deep >= 3  # the inf cells were exercised


def test_identical_gpus_transfer_perfectly():
    t = hardware_transfer(DECODE, ["h100-lecture", dataclasses.replace(H100_TC, name="copy")])
    np.testing.assert_array_equal(t.matrix, 1.0)
    assert t.gpus == ("h100-lecture", "copy")


@pytest.mark.parametrize(
    "gpus, error, match",
    [
        ([], ValueError, "at least one"),
        (["b200"], ValueError, "unknown GPU 'b200'"),
        ([3], TypeError, "gpus must hold profile names"),
        ("h100-sxm", TypeError, "gpus must be a sequence"),
        (["h100-sxm", "h100-sxm"], ValueError, "distinct"),
    ],
)
def test_hardware_transfer_refuses_bad_gpus(gpus, error, match):
    with pytest.raises(error, match=match):
        hardware_transfer(SQUARE, gpus)


def test_hardware_transfer_refuses_bad_shape():
    with pytest.raises(ValueError, match="K must be a positive integer"):
        hardware_transfer((16, 16, 0))


# --- published measurements beside the model -----------------------------------------------------


def test_published_comparison_lines_up_measurements_and_predictions():
    from schedlab.studies.published import H100_MEASUREMENTS, published_comparison

    c = published_comparison()
    assert len(c.shapes) == len({m.mnk for m in H100_MEASUREMENTS})
    for m in H100_MEASUREMENTS:
        i, j = c.shapes.index(m.mnk), c.libraries.index(m.library)
        assert c.measured_tflops[i, j] == m.tflops and m.source in c.sources[i]
    assert np.isnan(c.measured_tflops[c.shapes.index((2048, 2048, 13312)), c.libraries.index("Triton")])
    for k, name in enumerate(c.gpus):
        for i, shape in enumerate(c.shapes):
            assert c.predicted_tflops[i, k] == landscape(shape, PROFILES[name]).best_tflops
    # the calibrated profile predicts less than the lecture's everywhere (slower tensor cores, L2 and HBM)
    assert np.all(c.predicted_tflops[:, 1] < c.predicted_tflops[:, 0])


def test_published_comparison_refuses_what_is_not_a_measurement():
    from schedlab.studies.published import published_comparison

    with pytest.raises(ValueError, match="Measurement"):
        published_comparison([(2048, 2048, 2048, "cuBLAS", 515.2)])
    with pytest.raises(ValueError, match="non-empty"):
        published_comparison([])


# --- the chapter's tables and figures -------------------------------------------------------------


def test_profiles_table_shows_each_profile_in_its_column():
    from schedlab.render.gpus import profiles_table

    t = profiles_table()
    assert t.headers[2:] == tuple(PROFILES)
    rows = {r[0]: r[2:] for r in t.rows}
    assert rows["SM 数"] == tuple(str(hw.n_sm) for hw in PROFILES.values())
    assert rows["每 SM 的共享内存 / 每块最多"][2] == "164 / 163"
    assert rows["L2 容量（分几段）"] == ("50（1 段）", "50（2 段）", "40（2 段）", "50（2 段）")


@pytest.mark.parametrize("name", ["h100-sxm", "a100-sxm4", "h200-sxm"])
def test_profile_sources_table_lists_exactly_the_fields_sourced_apart_from_the_lecture(name):
    from schedlab.render.gpus import profile_sources_table

    t = profile_sources_table(name)
    shown = [r[4] for r in t.rows]
    assert shown == [f for f in FIELDS if PROFILE_SOURCES[name][f] != PROFILE_SOURCES["h100-lecture"][f]]
    assert all(r[3] == PROFILE_SOURCES[name][r[4]] for r in t.rows)  # the profile's source, not a "changed" mark


def test_hardware_transfer_table_marks_what_cannot_launch():
    from schedlab.render.gpus import hardware_transfer_table

    slow = dataclasses.replace(H100_TC, name="slow", mem_latency_s=2e-6)
    a100 = dataclasses.replace(A100_SXM4, name="a100-seed", launch_rules="seed")
    t = hardware_transfer(SQUARE, [slow, a100])
    table = hardware_transfer_table(t)
    assert table.headers == ("最优来自", "配置", "自己的 TFLOPS", "用在 slow", "用在 a100-seed")
    assert table.rows[0][4] == "不能启动" and table.rows[1][3] != "不能启动"


def test_published_table_rows_follow_the_comparison():
    from schedlab.render.gpus import published_table
    from schedlab.studies.published import published_comparison

    c = published_comparison()
    t = published_table(c)
    assert len(t.rows) == len(c.shapes)
    assert t.rows[-1][2] == "—"  # no Triton number was published for the MAMF shape


def test_gpu_figures_draw_one_curve_and_one_matrix_per_item():
    from schedlab.figures.gpus import gpu_landscapes, hardware_transfer_grid

    lands = [landscape(SQUARE, hw) for hw in PROFILES.values()]
    fig = gpu_landscapes(lands, list(PROFILES))
    curves = fig.axes[0].lines[::2]  # a curve and its end marker per GPU
    assert len(curves) == 4
    for line, land in zip(curves, lands):
        x = line.get_xdata()
        assert x[-1] == pytest.approx(land.best_tflops) and len(x) == len(land.configs)
    transfers = [hardware_transfer(s.mnk) for s in LECTURE_SHAPES]
    grid = hardware_transfer_grid(transfers)
    images = [ax.images[0].get_array() for ax in grid.axes if ax.images]
    assert len(images) == 4
    for image, t in zip(images, transfers):
        np.testing.assert_array_equal(np.ma.filled(image, np.inf), t.matrix)


def test_gpu_figures_refuse_mismatched_input():
    from schedlab.figures.gpus import gpu_landscapes, hardware_transfer_grid

    with pytest.raises(ValueError, match="same length"):
        gpu_landscapes([landscape(SQUARE)], [])
    with pytest.raises(ValueError, match="same shape"):
        gpu_landscapes([landscape(SQUARE), landscape(DECODE)], ["a", "b"])
    with pytest.raises(ValueError, match="same GPUs"):
        hardware_transfer_grid([hardware_transfer(SQUARE), hardware_transfer(SQUARE, ["h100-sxm"])])


# --- the console: --gpu on every subcommand, and `gpus` ------------------------------------------


def run_console(argv, capsys):
    from schedlab.cli.main import main

    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_gpus_on_another_gpu_keeps_every_profile_in_its_own_column(capsys):
    """`gpus --gpu a100-sxm4` once printed the A100's numbers in the h100-lecture column and called the A100 the
    default (the --gpu machine travelled in a context variable that profile("h100-lecture") read back)."""
    status, out, err = run_console(["gpus", "--gpu", "a100-sxm4"], capsys)
    assert status == 0 and err == ""
    sm_row = next(line for line in out.splitlines() if line.startswith("SM 数")).split()
    assert sm_row[-4:] == [str(hw.n_sm) for hw in PROFILES.values()] == ["132", "132", "108", "132"]
    assert f"h100-lecture：{H100_TC.name}（默认）" in out and f"a100-sxm4：{A100_SXM4.name}\n" in out
    _, lecture_out, _ = run_console(["gpus"], capsys)
    assert out == lecture_out  # --gpu chooses the machine of --sources, and nothing in the overview


def test_the_console_resolves_the_gpu_once_and_passes_it(capsys, monkeypatch):
    """No module reads the machine from ambient state: the demos receive the --gpu machine as an argument."""
    from schedlab.cli.demos import DEMOS

    seen = []
    monkeypatch.setitem(DEMOS, 2, seen.append)
    assert run_console(["demos", "2", "--gpu", "h200-sxm"], capsys)[0] == 0
    assert seen == [H200_SXM]
    import schedlab.core.hardware as hardware

    assert not hasattr(hardware, "using") and not hasattr(hardware, "default")


def test_top_on_another_gpu_prints_that_gpus_optimum(capsys):
    from schedlab.render.table import fmt_config, fmt_time

    status, out, err = run_console(["top", "4096", "4096", "4096", "-n", "3", "--gpu", "a100-sxm4"], capsys)
    assert status == 0 and err == ""
    a100 = landscape(SQUARE, A100_SXM4)
    assert fmt_config(a100.best) in out and fmt_time(a100.best_time_s) in out
    assert fmt_time(landscape(SQUARE, H100_TC).best_time_s) not in out
    # the default is the lecture's machine, and --gpu may come before the subcommand too
    _, default_out, _ = run_console(["top", "4096", "4096", "4096", "-n", "3"], capsys)
    _, lecture_out, _ = run_console(["--gpu", "h100-lecture", "top", "4096", "4096", "4096", "-n", "3"], capsys)
    assert default_out == lecture_out and fmt_time(landscape(SQUARE).best_time_s) in default_out
    _, before_out, _ = run_console(["--gpu", "a100-sxm4", "top", "4096", "4096", "4096", "-n", "3"], capsys)
    assert before_out == out


def test_explain_on_the_h200_uses_its_bandwidth(capsys):
    from schedlab.render.table import fmt_time

    cfg = landscape(DECODE, H200_SXM).best
    status, out, _ = run_console(["explain", *map(str, cfg.as_tuple()), *map(str, DECODE), "--gpu", "h200-sxm"], capsys)
    assert status == 0
    assert fmt_time(explain(cfg, *DECODE, H200_SXM).time_s) in out


@pytest.mark.parametrize(
    "argv",
    [
        ["top", "64", "64", "64", "--gpu", "b200"],
        ["--gpu", "b200", "explain", "256", "128", "32", "8", "4", "1", "4096", "4096", "4096"],
        ["gpus", "--gpu", "b200"],
        ["demos", "1", "--gpu", "b200"],
    ],
)
def test_unknown_gpu_is_one_line_listing_the_known_ones(argv, capsys):
    status, out, err = run_console(argv, capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1
    assert "unknown GPU 'b200'; known: h100-lecture, h100-sxm, a100-sxm4, h200-sxm" in err


def test_every_subcommand_takes_gpu():
    from schedlab.cli.main import build_parser

    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.dest == "command").choices
    assert {"demos", "top", "explain", "search", "buckets", "gpus"} <= set(subcommands)
    for name, sub in subcommands.items():
        assert any("--gpu" in a.option_strings for a in sub._actions), name


def test_gpus_lists_every_profile_with_its_key_numbers(capsys):
    status, out, _ = run_console(["gpus"], capsys)
    assert status == 0
    for name, hw in PROFILES.items():
        assert name in out and hw.name in out
    for label in ("SM 数", "Tensor Core 峰值", "HBM 带宽"):
        assert label in out
    assert "164 / 163" in out  # the A100's shared memory per SM and per block


def test_gpus_sources_of_the_chosen_profile(capsys):
    status, out, _ = run_console(["gpus", "--sources", "--gpu", "a100-sxm4"], capsys)
    assert status == 0
    assert PROFILE_SOURCES["a100-sxm4"]["smem_limit"][:40] in out


def test_demo_on_another_gpu_counts_its_space(capsys):
    status, out, _ = run_console(["demos", "1", "--gpu", "a100-sxm4"], capsys)
    assert status == 0
    assert str(len(launchable(A100_SXM4).configs)) in out and "3744" not in out


def test_hardware_transfer_tells_machines_apart_by_value_not_by_name():
    fewer = dataclasses.replace(H100_TC, n_sm=114)  # same name, another machine
    t = hardware_transfer((4096, 4096, 4096), [H100_TC, fewer])
    assert t.hardware == (H100_TC, fewer) and t.matrix.shape == (2, 2)
    with pytest.raises(ValueError, match="gpus must be distinct machines"):
        hardware_transfer((4096, 4096, 4096), ["h100-lecture", H100_TC])  # one machine under two names


def test_every_time_part_has_one_label():
    from schedlab.render.labels import TIME_PART_LABELS
    from schedlab.studies.published import TIME_PARTS

    assert tuple(TIME_PART_LABELS) == TIME_PARTS
