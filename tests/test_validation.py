"""Bad input is refused with a ValueError whose message names the offending argument."""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest

from schedlab.core.hardware import H100_TC, Hardware
from schedlab.core.knobs import GemmConfig, config_array
from schedlab.core.landscape import landscape
from schedlab.core.launch import launchable, reasons
from schedlab.core.model import hbm_bytes
from schedlab.core.model.engine import evaluate, explain, gemm_time
from schedlab.core.shapes import check_shape
from schedlab.studies.sensitivity import sensitivity
from schedlab.studies.shapes import transfer
from schedlab.studies.space import space_summary

GOOD = (256, 128, 32, 8, 4, 1)
SQUARE = (4096, 4096, 4096)
KNOBS = ("bm", "bn", "bk", "warps", "stages", "group")


def _with(position, value):
    values = list(GOOD)
    values[position] = value
    return values


# --- GemmConfig ---------------------------------------------------------------------------


class TestGemmConfigValues:
    def test_bm_outside_space_names_knob_and_allowed_values(self):
        with pytest.raises(ValueError) as info:
            GemmConfig(48, 128, 32, 8, 4, 1)
        msg = str(info.value)
        assert "bm" in msg and "48" in msg
        assert "(16, 32, 64, 128, 256)" in msg

    @pytest.mark.parametrize(
        "position, bad",
        [(0, 8), (1, 512), (2, 256), (3, 16), (4, 0), (4, 6), (5, 2), (5, -1)],
    )
    def test_every_knob_outside_space(self, position, bad):
        with pytest.raises(ValueError, match=KNOBS[position]):
            GemmConfig(*_with(position, bad))

    @pytest.mark.parametrize(
        "position, bad",
        [
            (0, 64.0),
            (0, "64"),
            (0, True),
            (0, None),
            (0, 64 + 0j),
            (0, [64]),
            (2, 32.0),
            (2, "32"),
            (2, True),
            (2, None),
        ],
    )
    def test_non_integers_refused(self, position, bad):
        with pytest.raises(ValueError, match=KNOBS[position]):
            GemmConfig(*_with(position, bad))

    def test_bool_refused_even_where_its_int_value_would_be_allowed(self):
        # True == 1 is a valid warps / stages / group value, but a bool is not a knob value
        for position in (3, 4, 5):
            with pytest.raises(ValueError, match=KNOBS[position]):
                GemmConfig(*_with(position, True))

    @pytest.mark.parametrize("kind", [np.int16, np.int32, np.int64, np.uint16, np.uint64])
    def test_numpy_integers_accepted(self, kind):
        cfg = GemmConfig(*(kind(v) for v in GOOD))
        assert cfg == GemmConfig(*GOOD)

    def test_numpy_float_refused(self):
        with pytest.raises(ValueError, match="bm"):
            GemmConfig(np.float64(256), 128, 32, 8, 4, 1)

    def test_missing_argument_is_a_type_error(self):
        with pytest.raises(TypeError):
            GemmConfig(256, 128, 32, 8, 4)


# --- shapes -------------------------------------------------------------------------------


BAD_DIMS = [0, -1, 1.5, True, "16", None, 16.0, np.float64(16)]


class TestShape:
    @pytest.mark.parametrize("bad", BAD_DIMS)
    @pytest.mark.parametrize("axis, name", [(0, "M"), (1, "N"), (2, "K")])
    def test_gemm_time_names_the_dimension(self, axis, name, bad):
        shape = list(SQUARE)
        shape[axis] = bad
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            gemm_time(GemmConfig(*GOOD), *shape)

    @pytest.mark.parametrize("axis, name", [(0, "M"), (1, "N"), (2, "K")])
    def test_evaluate_and_explain_name_the_dimension(self, axis, name):
        shape = list(SQUARE)
        shape[axis] = 0
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            evaluate([GemmConfig(*GOOD)], *shape)
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            explain(GemmConfig(*GOOD), *shape)

    def test_first_bad_dimension_is_named(self):
        with pytest.raises(ValueError, match=r"^M "):
            check_shape(0, -1, "x")

    @pytest.mark.parametrize("kind", [np.int32, np.int64, np.uint32])
    def test_numpy_integer_dimensions_accepted(self, kind):
        t = gemm_time(GemmConfig(*GOOD), *(kind(d) for d in SQUARE))
        assert t == gemm_time(GemmConfig(*GOOD), *SQUARE)

    def test_smallest_shape_accepted(self):
        assert np.isfinite(gemm_time(GemmConfig(*GOOD), 1, 1, 1))


# --- configs given to evaluate() ----------------------------------------------------------


class TestEvaluateConfigs:
    def test_int_array_with_value_outside_space(self):
        arr = np.array([GOOD, _with(0, 48)], dtype=np.int64)
        with pytest.raises(ValueError, match="bm") as info:
            evaluate(arr, *SQUARE)
        assert "48" in str(info.value)

    @pytest.mark.parametrize("position", range(6))
    def test_bad_value_in_each_column(self, position):
        arr = np.array([GOOD, GOOD, _with(position, 7)], dtype=np.int32)  # 7 is in no column
        with pytest.raises(ValueError, match=KNOBS[position]):
            evaluate(arr, *SQUARE)

    def test_float_array_refused(self):
        with pytest.raises(ValueError, match="bm"):
            evaluate(np.array([GOOD], dtype=float), *SQUARE)

    def test_list_of_rows_with_string(self):
        with pytest.raises(ValueError, match="bk"):
            evaluate([GOOD, _with(2, "32")], *SQUARE)

    def test_list_of_rows_with_bool(self):
        with pytest.raises(ValueError, match="group"):
            evaluate([_with(5, True)], *SQUARE)

    def test_bool_array_refused(self):
        with pytest.raises(ValueError):
            evaluate(np.ones((1, 6), dtype=bool), *SQUARE)

    @pytest.mark.parametrize("shape", [(3, 5), (6,), (1, 7), (2, 3, 6)])
    def test_wrong_array_shape(self, shape):
        with pytest.raises(ValueError, match="columns"):
            evaluate(np.full(shape, 16, dtype=np.int64), *SQUARE)

    def test_flat_tuple_of_knobs_is_a_value_error(self):
        """One config's knob values passed without the outer list: a wrong-shape input,
        which config_array documents as a ValueError (as it is for the same data as an array)."""
        with pytest.raises(ValueError, match="columns"):
            evaluate(GOOD, *SQUARE)
        with pytest.raises(ValueError, match="columns"):
            config_array(list(GOOD))

    def test_mixed_rows_and_configs_accepted(self):
        t = evaluate([GemmConfig(*GOOD), GOOD, np.array(GOOD)], *SQUARE).time_s
        assert t[0] == t[1] == t[2]

    def test_empty_list_gives_empty_result(self):
        t = evaluate([], *SQUARE)
        assert t.time_s.shape == (0,)

    def test_gemm_time_and_explain_want_a_gemmconfig(self):
        with pytest.raises(ValueError, match="GemmConfig"):
            gemm_time(GOOD, *SQUARE)
        with pytest.raises(ValueError, match="GemmConfig"):
            explain(GOOD, *SQUARE)


# --- explain on an unlaunchable config ----------------------------------------------------


class TestExplainUnlaunchable:
    def test_lists_every_reason(self):
        cfg = GemmConfig(256, 256, 128, 8, 5, 1)  # shared memory and registers both overflow
        with pytest.raises(ValueError) as info:
            explain(cfg, *SQUARE)
        msg = str(info.value)
        assert str(cfg.as_tuple()) in msg
        for r in reasons(cfg):
            assert r.message in msg
        assert len(reasons(cfg)) == 2

    def test_mma_reason(self):
        cfg = GemmConfig(16, 16, 16, 8, 1, 1)
        with pytest.raises(ValueError, match="mma"):
            explain(cfg, *SQUARE)


# --- Hardware -----------------------------------------------------------------------------


#: The time terms a machine may not pay at all (issue 15): zero is their neutral value.
TIME_TERMS = [
    "t_launch_s",
    "t_launch_graph_s",
    "t_k_step_clk",
    "pipeline_overlap",
    "epilogue_smem_passes",
    "resident_blocks_overlap",
]
NUMERIC_FIELDS = [f.name for f in dataclasses.fields(Hardware) if f.name != "name" and f.name not in TIME_TERMS]


class TestHardware:
    @pytest.mark.parametrize("field", NUMERIC_FIELDS)
    @pytest.mark.parametrize("bad", [0, -1])
    def test_non_positive_field(self, field, bad):
        with pytest.raises(ValueError, match=field):
            dataclasses.replace(H100_TC, **{field: bad})

    @pytest.mark.parametrize("field", TIME_TERMS)
    @pytest.mark.parametrize("bad", [-1e-9, float("inf"), float("nan")])
    def test_time_terms_are_zero_or_positive_and_finite(self, field, bad):
        with pytest.raises(ValueError, match=field):
            dataclasses.replace(H100_TC, **{field: bad})

    @pytest.mark.parametrize("field", TIME_TERMS)
    def test_time_terms_may_be_zero(self, field):
        assert getattr(dataclasses.replace(H100_TC, **{field: 0}), field) == 0.0

    def test_overlap_is_a_fraction(self):
        with pytest.raises(ValueError, match="pipeline_overlap must be at most 1"):
            dataclasses.replace(H100_TC, pipeline_overlap=1.01)

    def test_mma_sync_fraction_is_at_most_the_fastest_path(self):
        with pytest.raises(ValueError, match="mma_sync_fraction must be at most 1"):
            dataclasses.replace(H100_TC, mma_sync_fraction=1.5)

    @pytest.mark.parametrize("bad", [True, "1", None, float("nan")])
    def test_non_number_field(self, bad):
        with pytest.raises(ValueError, match="clock_hz"):
            dataclasses.replace(H100_TC, clock_hz=bad)

    def test_smem_limit_above_smem_per_sm(self):
        with pytest.raises(ValueError, match="smem_limit"):
            dataclasses.replace(H100_TC, smem_limit=H100_TC.smem_per_sm + 1)

    def test_frozen(self):
        with pytest.raises(AttributeError):
            H100_TC.n_sm = 1

    # issue 8: values a machine cannot have were accepted, or refused with a numpy error
    @pytest.mark.parametrize("field", ["clock_hz", "hbm_bw_bytes_per_s", "l2_bw_bytes_per_s", "mem_latency_s"])
    @pytest.mark.parametrize("bad", [float("inf"), float("nan"), np.float64("inf")])
    def test_rates_must_be_finite(self, field, bad):
        with pytest.raises(ValueError, match=field):
            dataclasses.replace(H100_TC, **{field: bad})

    @pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Hardware) if f.type == "int"])
    @pytest.mark.parametrize("bad", [0.5, 132.0, np.float64(2.0), float("inf")])
    def test_counts_must_be_integers(self, field, bad):
        with pytest.raises(ValueError, match=field):
            dataclasses.replace(H100_TC, **{field: bad})

    @pytest.mark.parametrize("kind", [np.int32, np.int64, np.uint16])
    def test_numpy_integer_counts_accepted_as_int(self, kind):
        hw = dataclasses.replace(H100_TC, n_sm=kind(132))
        assert hw == H100_TC and type(hw.n_sm) is int
        assert gemm_time(GemmConfig(*GOOD), *SQUARE, hw) == gemm_time(GemmConfig(*GOOD), *SQUARE)

    def test_name_must_be_a_string(self):
        with pytest.raises(TypeError, match="name"):
            dataclasses.replace(H100_TC, name=None)


# --- other API arguments (issue 8) -----------------------------------------------------------


class TestApiArguments:
    @pytest.mark.parametrize("bad", [None, 5, 2.5, "256,128,32,8,4,1", object()])
    def test_configs_not_a_sequence(self, bad):
        with pytest.raises(TypeError, match="configs"):
            evaluate(bad, *SQUARE)

    @pytest.mark.parametrize(
        "call",
        [
            lambda hw: evaluate([GemmConfig(*GOOD)], *SQUARE, hw),
            lambda hw: gemm_time(GemmConfig(*GOOD), *SQUARE, hw),
            lambda hw: explain(GemmConfig(*GOOD), *SQUARE, hw),
            lambda hw: landscape(SQUARE, hw),
            lambda hw: transfer([SQUARE], hw),
            lambda hw: sensitivity(SQUARE, hw=hw),
            lambda hw: space_summary(hw),
            lambda hw: reasons(GemmConfig(*GOOD), hw),
            lambda hw: hbm_bytes(*SQUARE, 256, 128, 1, 132, hw),
        ],
        ids=[
            "evaluate",
            "gemm_time",
            "explain",
            "landscape",
            "transfer",
            "sensitivity",
            "space_summary",
            "reasons",
            "hbm_bytes",
        ],
    )
    @pytest.mark.parametrize("bad", [5, "H100", dataclasses.asdict(H100_TC)], ids=["int", "str", "dict"])
    def test_hw_not_hardware(self, call, bad):
        with pytest.raises(TypeError, match=r"\bhw\b"):
            call(bad)

    def test_hw_none_is_the_lecture_machine_and_a_machine_is_passed(self):
        fewer = dataclasses.replace(H100_TC, n_sm=114)
        assert landscape(SQUARE, None) is landscape(SQUARE, H100_TC)
        # == not `is`: the cache hands back the first equal machine it priced (a profile may equal H100_TC)
        assert landscape(SQUARE, fewer).hw == fewer
        assert landscape(SQUARE, fewer).best_time_s > landscape(SQUARE).best_time_s  # more waves
        assert landscape(SQUARE).hw == H100_TC

    @pytest.mark.parametrize("bad", [None, 5, 4096])
    def test_shapes_not_a_sequence(self, bad):
        with pytest.raises(TypeError, match="shapes"):
            transfer(bad)

    def test_shapes_empty_or_malformed(self):
        with pytest.raises(ValueError, match="shapes"):
            transfer([])
        with pytest.raises(ValueError, match="shape"):
            transfer([(4096, 4096)])

    @pytest.mark.parametrize("bad", [GOOD, "best", 3])
    def test_base_not_a_config(self, bad):
        with pytest.raises(ValueError, match="base"):
            sensitivity(SQUARE, base=bad)

    @pytest.mark.parametrize("bad", [0, -1, 2.5, True, None, "3"])
    def test_k_not_a_positive_integer(self, bad):
        with pytest.raises(ValueError, match=r"\bk\b"):
            landscape(SQUARE).top(bad)

    @pytest.mark.parametrize("bad", [None, "4096", (4096, 4096), (4096, 4096, 4096, 1)])
    def test_shape_not_three_dimensions(self, bad):
        with pytest.raises(ValueError, match="shape"):
            landscape(bad)

    @pytest.mark.parametrize(
        "call, name",
        [
            (lambda: importlib.import_module("schedlab.tuning.compare").compare(None), "shapes"),
            (lambda: importlib.import_module("schedlab.tuning.regression").fit(None), "shapes"),
            (lambda: importlib.import_module("schedlab.studies.buckets").sweep(4096, 4096, Ms=None), "Ms"),
            (
                lambda: importlib.import_module("schedlab.tuning.features").features(
                    [GemmConfig(*GOOD)], SQUARE, hw="H100"
                ),
                "hw",
            ),
        ],
        ids=["compare", "fit", "sweep", "features"],
    )
    def test_other_modules_name_the_argument(self, call, name):
        with pytest.raises(TypeError, match=rf"\b{name}\b"):
            call()

    @pytest.mark.parametrize("bad", [1e308, 1.5, float("inf"), -0.1])
    def test_noise_out_of_range(self, bad):
        from schedlab.tuning.strategies.random_search import random_search

        with pytest.raises(ValueError, match="noise"):
            random_search(SQUARE, budget=2, noise=bad)


class TestEvaluateMany:
    def test_refuses_unknown_terms_and_bad_shapes(self):
        from schedlab.core.model import evaluate_many

        with pytest.raises(ValueError, match="terms"):
            evaluate_many([SQUARE], [GemmConfig(*GOOD)], terms=("time",))
        with pytest.raises(TypeError, match="shapes"):
            evaluate_many(4096, [GemmConfig(*GOOD)])
        with pytest.raises(ValueError, match=r"\bM\b"):
            evaluate_many([SQUARE, (0, 4096, 4096)], [GemmConfig(*GOOD)])
        with pytest.raises(TypeError, match=r"\bhw\b"):
            evaluate_many([SQUARE], [GemmConfig(*GOOD)], "H100")

    def test_no_shapes_gives_empty_rows(self):
        from schedlab.core.model import evaluate_many

        assert evaluate_many([], [GemmConfig(*GOOD)])["time_s"].shape == (0, 1)


# --- machines the model cannot price -------------------------------------------------------


def test_a_block_that_fits_no_sm_cannot_launch_and_says_why():
    few_regs = dataclasses.replace(H100_TC, regs_per_sm=32768)
    land = landscape((4096, 4096, 4096), few_regs)
    assert np.isfinite(land.time_s).all() and np.isfinite(land.best_time_s)
    dropped = set(launchable().configs) - set(land.configs)
    assert len(dropped) == 96
    assert {r.code for cfg in dropped for r in reasons(cfg, few_regs)} == {"occupancy"}


@pytest.mark.parametrize("field", ["n_sm", "l2_bytes", "max_blocks_per_sm"])
def test_a_count_past_a_c_int_is_refused_by_name(field):
    with pytest.raises(ValueError, match=f"Hardware.{field} must be at most 2147483647"):
        dataclasses.replace(H100_TC, **{field: 10**30})


def test_a_machine_where_nothing_launches_says_so():
    tiny = dataclasses.replace(H100_TC, smem_limit=1)
    with pytest.raises(ValueError, match="no configuration can launch on"):
        landscape((64, 64, 64), tiny)
