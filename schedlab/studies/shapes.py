"""Demo 3 (the shapes page): each shape's optimum and what it costs on the other shapes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.checks import check_sequence
from schedlab.core.hardware import Hardware
from schedlab.core.knobs import GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.shapes import LECTURE_SHAPES, as_mnk

__all__ = ["Transfer", "transfer", "cross_costs"]


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
    return Transfer(shapes=shapes, **cross_costs([landscape(as_mnk(s), hw) for s in shapes]))


def cross_costs(lands) -> dict:
    """Each landscape's optimum, and its cost on every landscape: the fields shared by :class:`Transfer`
    and the GPU chapter's :class:`~schedlab.studies.gpus.HardwareTransfer`.

    ``matrix[i, j]`` is the time of landscape ``i``'s optimum on landscape ``j`` over ``j``'s best
    (``inf`` where it cannot launch there).

    Examples
    --------
    >>> costs = cross_costs([landscape((4096, 4096, 4096)), landscape((16, 4096, 4096))])
    >>> sorted(costs), costs["matrix"].diagonal().tolist()
    (['best_tflops', 'best_time_s', 'matrix', 'optima'], [1.0, 1.0])
    """
    optima = tuple(land.best for land in lands)
    return dict(
        optima=optima,
        best_time_s=np.array([land.best_time_s for land in lands]),
        best_tflops=np.array([land.best_tflops for land in lands]),
        matrix=np.array([[land.time_of(opt) / land.best_time_s for land in lands] for opt in optima]),
    )
