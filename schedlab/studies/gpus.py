"""Hardware transfer (the GPU chapter): each GPU's optimum on one shape, and what it costs on the others."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.checks import check_sequence
from schedlab.core.hardware import PROFILES, Hardware, resolve_gpu
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.shapes import as_mnk
from schedlab.studies.shapes import cross_costs


@dataclass(frozen=True)
class HardwareTransfer:
    """Each GPU's optimum on one shape, and what it costs on every other GPU.

    ``matrix[i, j]`` is the time of GPU ``i``'s optimum run on GPU ``j`` over GPU ``j``'s own
    best time: 1 on the diagonal, ``inf`` where GPU ``i``'s optimum cannot launch on GPU ``j``.
    """

    shape: tuple[int, int, int]
    gpus: tuple[str, ...]
    hardware: tuple[Hardware, ...]
    optima: tuple[GemmConfig, ...]
    best_time_s: np.ndarray
    best_tflops: np.ndarray
    matrix: np.ndarray


def hardware_transfer(shape, gpus=tuple(PROFILES)) -> HardwareTransfer:
    """Tune ``shape`` on every GPU and run each GPU's optimum on every other one.

    Parameters
    ----------
    shape : Shape or (M, N, K)
        One GEMM shape.
    gpus : sequence of str or Hardware
        Profile names from :data:`~schedlab.core.hardware.PROFILES` (default: all of them) or machines.

    Examples
    --------
    >>> t = hardware_transfer((4096, 4096, 4096), ["h100-lecture", "a100-sxm4"])
    >>> t.gpus, [c.as_tuple() for c in t.optima]
    (('h100-lecture', 'a100-sxm4'), [(256, 128, 32, 8, 4, 1), (128, 256, 128, 8, 2, 1)])
    >>> t.matrix.round(2).tolist()  # BLOCK_K 32 pays 4 x the k-steps on the A100; 128 x 256 reads 1.25 x the lecture's smem
    [[1.0, 1.08], [1.24, 1.0]]
    """
    mnk = as_mnk(shape)
    machines = tuple(resolve_gpu(g) for g in check_sequence(gpus, "gpus", "profile names or Hardware"))
    if not machines:
        raise ValueError("gpus must name at least one GPU")
    labels = tuple(hw.label for hw in machines)
    if len(set(machines)) != len(machines):  # compared by value: one name may label two machines
        raise ValueError(f"gpus must be distinct machines, got {labels}")
    lands = [landscape(mnk, hw) for hw in machines]
    return HardwareTransfer(shape=mnk, gpus=labels, hardware=machines, **cross_costs(lands))
