"""Published GEMM throughputs measured on real H100s, each with its source, to set beside the model.

These are other people's measurements, copied from where they were published (the source names
the page); nothing here is computed. The model page sets the ``h100-lecture`` and ``h100-sxm``
profiles' predictions beside them.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Measurement", "H100_MEASUREMENTS"]


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


_TRITON_2339 = ("triton-lang/triton issue #2339 (2023-09-19): Triton main with ENABLE_TMA=1, ENABLE_MMA_V3=1, "
                "tutorial 10 matmul benchmark, FP16; the H100's form factor is not stated")
_MAMF = ("S. Bekman, Machine Learning Engineering, compute/accelerator/README.md, Maximum Achievable Matmul FLOPS: "
         "BF16 torch.matmul, torch 2.7.0+cu126, best shape of a search")

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
