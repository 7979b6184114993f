"""Published GEMM throughputs measured on real H100s, each with its source, to set beside the model.

These are other people's measurements, copied from where they were published (the source names
the page); :func:`published_comparison` sets the model's predictions beside them. The model page sets the ``h100-lecture`` and ``h100-sxm``
profiles' predictions beside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from schedlab.core.hardware import resolve_gpu
from schedlab.core.landscape import landscape
from schedlab.core.space import as_mnk, check_sequence

__all__ = ["Measurement", "H100_MEASUREMENTS", "PublishedComparison", "published_comparison"]


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
    pairs = [resolve_gpu(g) for g in check_sequence(gpus, "gpus", "profile names or Hardware")]
    shapes = tuple(dict.fromkeys(as_mnk(m.mnk) for m in measurements))
    libraries = tuple(dict.fromkeys(m.library for m in measurements))
    measured = np.full((len(shapes), len(libraries)), np.nan)
    for m in measurements:
        measured[shapes.index(m.mnk), libraries.index(m.library)] = m.tflops
    predicted = np.array([[landscape(s, hw).best_tflops for _label, hw in pairs] for s in shapes])
    sources = tuple("；".join(dict.fromkeys(m.source for m in measurements if m.mnk == s)) for s in shapes)
    return PublishedComparison(
        shapes=shapes,
        libraries=libraries,
        measured_tflops=measured,
        gpus=tuple(label for label, _hw in pairs),
        predicted_tflops=predicted,
        sources=sources,
    )
