"""Demo 4 (the sensitivity page): one knob at a time around a base configuration."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from schedlab.core.checks import check_int
from schedlab.core.hardware import Hardware
from schedlab.core.knobs import SPACE, GemmConfig
from schedlab.core.landscape import landscape
from schedlab.core.model import evaluate
from schedlab.core.shapes import as_mnk


class Step(NamedTuple):
    """One knob moved from the base: its new ``value`` and ``ratio`` = time / base time."""

    value: int
    ratio: float


@dataclass(frozen=True)
class Sensitivity:
    """Time/base for every value of every knob, the other knobs held at ``base``.

    ``ratios[knob]`` is a tuple of ``(value, time/base)`` in ``SPACE`` order, ``inf`` where
    the changed config cannot launch.
    """

    shape: tuple[int, int, int]
    base: GemmConfig
    base_time_s: float
    ratios: dict[str, tuple[tuple[int, float], ...]]

    def step_down(self, knob: str, steps: int = 1) -> Step | None:
        """``knob`` ``steps`` values below the base's in ``SPACE`` (``None`` below the smallest).

        Examples
        --------
        >>> s = sensitivity((4096, 4096, 4096))
        >>> s.step_down("bm").value, round(s.step_down("bm").ratio, 2), s.step_down("warps", 4)
        (128, 1.48, None)
        """
        if knob not in SPACE:
            raise ValueError(f"knob must be one of {tuple(SPACE)}, got {knob!r}")
        i = SPACE[knob].index(getattr(self.base, knob)) - check_int("steps", steps, minimum=1)
        return Step(*self.ratios[knob][i]) if i >= 0 else None


def sensitivity(shape, base: GemmConfig | None = None, hw: Hardware | None = None) -> Sensitivity:
    """Change one knob at a time around ``base`` (default: the shape's optimum).

    Examples
    --------
    >>> s = sensitivity((4096, 4096, 4096))
    >>> s.ratios["warps"]
    ((1, inf), (2, inf), (4, inf), (8, 1.0))
    """
    mnk = as_mnk(shape)
    if base is not None and not isinstance(base, GemmConfig):
        raise ValueError(f"base must be a GemmConfig or None, got {base!r} ({type(base).__name__})")
    land = landscape(mnk, hw)
    base = land.best if base is None else base
    values = base.as_tuple()
    rows, cells = [], []
    for j, knob in enumerate(SPACE):
        for v in SPACE[knob]:
            rows.append(values[:j] + (v,) + values[j + 1 :])
            cells.append((knob, v))
    time_s = evaluate(np.array(rows), *mnk, hw).time_s
    base_time = float(evaluate([base], *mnk, hw).time_s[0])
    if not np.isfinite(base_time):
        raise ValueError(f"base config {values} cannot launch")
    ratios: dict[str, list] = {k: [] for k in SPACE}
    for (knob, v), t in zip(cells, time_s):
        ratios[knob].append((v, float(t / base_time)))
    return Sensitivity(shape=mnk, base=base, base_time_s=base_time, ratios={k: tuple(v) for k, v in ratios.items()})
