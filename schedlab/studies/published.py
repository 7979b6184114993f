"""Published GEMM throughputs measured on real GPUs, each with its source, to set beside the model.

These are other people's measurements, copied from where they were published (the source names
the page): single shapes (:data:`H100_MEASUREMENTS`, :func:`published_comparison`) and summaries of
many measured shapes (:data:`TRITON_LARGE_GEMMS`, :func:`range_comparison`). :func:`time_parts`
splits one predicted time into the terms that explain how far it is from an ideal kernel's.
The model page (its section on the model and measurements) sets every calibrated profile beside them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from schedlab.core.checks import check_sequence
from schedlab.core.hardware import resolve_gpu
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.model import explain, gemm_time
from schedlab.core.shapes import as_mnk, llm_shapes

__all__ = [
    "Measurement",
    "H100_MEASUREMENTS",
    "PublishedComparison",
    "published_comparison",
    "MeasuredRange",
    "TRITON_LARGE_GEMMS",
    "LARGE_SHAPES",
    "RangeComparison",
    "range_comparison",
    "TIME_PARTS",
    "time_parts",
]


class Measurement(NamedTuple):
    """One published throughput: a shape, the library, TFLOP/s, the GPU as reported, and where it was published."""

    M: int
    N: int
    K: int
    library: str
    tflops: float
    gpu: str
    source: str

    @property
    def mnk(self) -> tuple[int, int, int]:
        return (self.M, self.N, self.K)


_TRITON_2339 = (
    "triton-lang/triton issue #2339 (2023-09-19): Triton main with ENABLE_TMA=1, ENABLE_MMA_V3=1, "
    "tutorial 10 matmul benchmark, FP16; the H100's form factor is not stated"
)
_MAMF = (
    "S. Bekman, Machine Learning Engineering, compute/accelerator/README.md, Maximum Achievable Matmul FLOPS: "
    "BF16 torch.matmul, torch 2.7.0+cu126, best shape of a search"
)

#: Throughputs of FP16/BF16 GEMMs on H100s as published, cuBLAS and Triton side by side where both were run.
H100_MEASUREMENTS = (
    Measurement(2048, 512, 512, "cuBLAS", 102.6, "H100", _TRITON_2339),
    Measurement(2048, 512, 512, "Triton", 77.9, "H100", _TRITON_2339),
    Measurement(2048, 1024, 1024, "cuBLAS", 243.1, "H100", _TRITON_2339),
    Measurement(2048, 1024, 1024, "Triton", 206.8, "H100", _TRITON_2339),
    Measurement(2048, 2048, 2048, "cuBLAS", 515.2, "H100", _TRITON_2339),
    Measurement(2048, 2048, 2048, "Triton", 295.1, "H100", _TRITON_2339),
    Measurement(2048, 4096, 4096, "cuBLAS", 613.7, "H100", _TRITON_2339),
    Measurement(2048, 4096, 4096, "Triton", 346.3, "H100", _TRITON_2339),
    Measurement(2048, 8192, 8192, "cuBLAS", 721.6, "H100", _TRITON_2339),
    Measurement(2048, 8192, 8192, "Triton", 369.8, "H100", _TRITON_2339),
    Measurement(2048, 2048, 13312, "cuBLAS", 794.5, "H100 SXM", _MAMF),
)


@dataclass(frozen=True)
class PublishedComparison:
    """Published throughputs beside the model's best on each GPU profile, per shape.

    ``measured_tflops[i, j]`` is library ``j``'s published TFLOP/s on ``shapes[i]`` (NaN where none
    was published); ``predicted_tflops[i, k]`` the model's best on ``shapes[i]`` on ``gpus[k]``.
    """

    shapes: tuple[tuple[int, int, int], ...]
    libraries: tuple[str, ...]
    measured_tflops: np.ndarray
    gpus: tuple[str, ...]
    predicted_tflops: np.ndarray
    sources: tuple[str, ...]


def published_comparison(measurements=None, gpus=("h100-lecture", "h100-sxm")) -> PublishedComparison:
    """Set published measurements (default :data:`H100_MEASUREMENTS`) beside the model.

    Examples
    --------
    >>> c = published_comparison()
    >>> c.libraries, c.gpus, c.shapes[2]
    (('cuBLAS', 'Triton'), ('h100-lecture', 'h100-sxm'), (2048, 2048, 2048))
    >>> c.measured_tflops[2].tolist()
    [515.2, 295.1]
    """
    measurements = check_sequence(
        H100_MEASUREMENTS if measurements is None else measurements,
        "measurements",
        "schedlab.studies.published.Measurement",
    )
    if not measurements or not all(isinstance(m, Measurement) for m in measurements):
        raise ValueError("measurements must be a non-empty sequence of schedlab.studies.published.Measurement")
    machines = [resolve_gpu(g) for g in check_sequence(gpus, "gpus", "profile names or Hardware")]
    shapes = tuple(dict.fromkeys(as_mnk(m.mnk) for m in measurements))
    libraries = tuple(dict.fromkeys(m.library for m in measurements))
    measured = np.full((len(shapes), len(libraries)), np.nan)
    for m in measurements:
        measured[shapes.index(m.mnk), libraries.index(m.library)] = m.tflops
    predicted = np.array([[landscape(s, hw).best_tflops for hw in machines] for s in shapes])
    sources = tuple("；".join(dict.fromkeys(m.source for m in measurements if m.mnk == s)) for s in shapes)
    return PublishedComparison(
        shapes=shapes,
        libraries=libraries,
        measured_tflops=measured,
        gpus=tuple(hw.label for hw in machines),
        predicted_tflops=predicted,
        sources=sources,
    )


# --- summaries of many measured shapes ----------------------------------------------------------


class MeasuredRange(NamedTuple):
    """A published summary of measurements on many shapes: the best measured configuration's TFLOP/s,
    its lowest, median and highest over ``shapes`` problems, on the GPU a profile models."""

    profile: str
    library: str
    low: float
    median: float
    high: float
    shapes: int
    condition: str
    source: str


_ISSUE15 = (
    "schedlab issue 15 (2026), reporting a held-back check: real Triton FP16/BF16 matmul timings from "
    "production workloads (GROUP_M 8, Inductor's mm configurations, 17-29 measured per problem); the best "
    "measured configuration of each problem whose dimensions are all at least 2048"
)

#: Measured Triton throughput of large GEMMs (every dimension at least 2048) as issue 15 reports it.
TRITON_LARGE_GEMMS = (
    MeasuredRange("h100-sxm", "Triton", 517.0, 595.0, 634.0, 30, "M, N, K ≥ 2048", _ISSUE15),
    MeasuredRange("a100-sxm4", "Triton", 183.0, 226.0, 241.0, 258, "M, N, K ≥ 2048", _ISSUE15),
)

#: Large GEMMs to price beside them: the Llama-3-8B projections at 2048, 4096 and 8192 tokens
#: (every dimension at least 2048; the measured problems themselves are not published).
LARGE_SHAPES = tuple(s.mnk for s in llm_shapes((2048, 4096, 8192)))


@dataclass(frozen=True)
class RangeComparison:
    """Each summary beside the model: ``predicted_tflops[i]`` holds the best TFLOP/s of profile
    ``ranges[i].profile`` on every shape of ``shapes``."""

    ranges: tuple[MeasuredRange, ...]
    shapes: tuple[tuple[int, int, int], ...]
    predicted_tflops: np.ndarray

    def predicted_summary(self, i: int) -> tuple[float, float, float]:
        """The lowest, median and highest predicted TFLOP/s beside ``ranges[i]``."""
        x = self.predicted_tflops[i]
        return float(x.min()), float(np.median(x)), float(x.max())


def range_comparison(ranges=TRITON_LARGE_GEMMS, shapes=LARGE_SHAPES) -> RangeComparison:
    """Price ``shapes`` on each range's profile, its best configuration per shape.

    Examples
    --------
    >>> c = range_comparison(shapes=[(4096, 4096, 4096)])
    >>> [r.profile for r in c.ranges], c.predicted_tflops.shape
    (['h100-sxm', 'a100-sxm4'], (2, 1))
    """
    ranges = check_sequence(ranges, "ranges", "schedlab.studies.published.MeasuredRange")
    if not ranges or not all(isinstance(r, MeasuredRange) for r in ranges):
        raise ValueError("ranges must be a non-empty sequence of schedlab.studies.published.MeasuredRange")
    mnk = tuple(as_mnk(s) for s in check_sequence(shapes, "shapes", "(M, N, K)"))
    if not mnk:
        raise ValueError("shapes must hold at least one (M, N, K)")
    predicted = np.array([[landscape(s, resolve_gpu(r.profile)).best_tflops for s in mnk] for r in ranges])
    return RangeComparison(ranges=tuple(ranges), shapes=mnk, predicted_tflops=predicted)


# --- where one predicted time goes ----------------------------------------------------------------

#: The parts :func:`time_parts` splits a time into, in order (their names:
#: :data:`schedlab.render.labels.TIME_PART_LABELS`).
TIME_PARTS = ("launch_s", "preamble_s", "fill_epilogue_s", "steps_s", "k_step_clocks_s", "overlap_loss_s")


def time_parts(cfg: GemmConfig, shape, gpu) -> dict[str, float]:
    """Split ``cfg``'s model time on ``shape`` into :data:`TIME_PARTS` (seconds), which sum to it.

    Each part is what one term adds, priced by the model itself with the terms switched on one by
    one: ``launch_s`` is ``hw.t_launch_s``; ``steps_s``, ``preamble_s`` and ``fill_epilogue_s`` split
    the time of an ideal kernel (no launch, no unhidden clocks, perfect overlap) into its k-steps (the
    slowest resource of each, or the L2 or HBM queue), the issue of its blocks' code before the k-loop
    (0 under the seed's rules) and its fills and epilogues; ``k_step_clocks_s`` is
    what ``hw.t_k_step_clk`` adds to that, ``overlap_loss_s`` what ``hw.pipeline_overlap`` adds then.

    Examples
    --------
    >>> from schedlab.core.hardware import H100_SXM
    >>> cfg = GemmConfig(128, 256, 64, 8, 3, 1)
    >>> parts = time_parts(cfg, (4096, 4096, 4096), "h100-sxm")
    >>> list(parts) == list(TIME_PARTS)
    True
    >>> bool(abs(sum(parts.values()) - gemm_time(cfg, 4096, 4096, 4096, H100_SXM)) < 1e-12)
    True
    >>> round(parts["launch_s"] * 1e6, 1)
    6.6
    """
    hw = resolve_gpu(gpu)
    M, N, K = as_mnk(shape)
    ideal = dataclasses.replace(hw, t_launch_s=0.0, t_k_step_clk=0.0, pipeline_overlap=1.0)
    clocks = dataclasses.replace(ideal, t_k_step_clk=hw.t_k_step_clk)
    overlap = dataclasses.replace(clocks, pipeline_overlap=hw.pipeline_overlap)
    t_ideal, t_clocks, t_overlap = (gemm_time(cfg, M, N, K, h) for h in (ideal, clocks, overlap))
    if not np.isfinite(t_ideal):
        raise ValueError(f"config {cfg.as_tuple()} cannot launch on {hw.name}")
    b = explain(cfg, M, N, K, ideal)
    fill_epilogue_s = b.fill_s + b.epilogue_s
    return {
        "launch_s": gemm_time(cfg, M, N, K, hw) - t_overlap,
        "preamble_s": b.preamble_s,
        "fill_epilogue_s": fill_epilogue_s,
        "steps_s": t_ideal - b.preamble_s - fill_epilogue_s,
        "k_step_clocks_s": t_clocks - t_ideal,
        "overlap_loss_s": t_overlap - t_clocks,
    }
