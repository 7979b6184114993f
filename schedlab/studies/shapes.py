"""Demo 3 (the shapes page): each shape's optimum and what it costs on the other shapes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.hardware import Hardware
from schedlab.core.landscape import landscape
from schedlab.core.shapes import LECTURE_SHAPES
from schedlab.core.space import GemmConfig, as_mnk, check_sequence

@dataclass(frozen=True)
class Transfer:
    """Each shape's optimum, and what it costs on every other shape.

    ``matrix[i, j]`` is the time of shape ``i``'s optimum on shape ``j`` over shape ``j``'s best.
    """

    shapes: tuple
    optima: tuple[GemmConfig, ...]
    best_time_s: np.ndarray
    best_tflops: np.ndarray
    matrix: np.ndarray


def transfer(shapes=LECTURE_SHAPES, hw: Hardware | None = None) -> Transfer:
    """Optima per shape and the transfer matrix.

    Examples
    --------
    >>> t = transfer()
    >>> [c.as_tuple()[:2] for c in t.optima]
    [(256, 128), (256, 128), (256, 128), (16, 16)]
    """
    shapes = check_sequence(shapes, "shapes", "(M, N, K)")
    if not shapes:
        raise ValueError("shapes must name at least one (M, N, K)")
    lands = [landscape(as_mnk(s), hw) for s in shapes]
    optima = tuple(land.best for land in lands)
    matrix = np.array([[land_b.time_of(opt) / land_b.best_time_s for land_b in lands] for opt in optima])
    return Transfer(
        shapes=shapes,
        optima=optima,
        best_time_s=np.array([land.best_time_s for land in lands]),
        best_tflops=np.array([land.best_tflops for land in lands]),
        matrix=matrix,
    )
