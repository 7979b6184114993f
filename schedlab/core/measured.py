"""A measured landscape: every configuration of a Kernel Tuner cache file with its recorded times.

:class:`MeasuredLandscape` holds the knobs (``tune_params``, any names, any values), one row per
configuration with a valid time, its mean time and its recorded repeats, and apart the
configurations that could not run. :func:`schedlab.tuning.cache.read_cache` reads one from any
Kernel Tuner :cite:`vanwerkhoven2019kerneltuner` cache file and
:func:`schedlab.tuning.cache.to_cache` writes it back as one (what a tuner replays);
:func:`save_compact` / :func:`load_compact` keep it in a small ``.npz`` (what the book ships).

The compact file
----------------
- ``knobs``: ``(n, k)`` each configuration's value of each knob, as its position in
  ``tune_params[knob]`` (the values themselves, any JSON type, are in ``tune_params_json``);
- ``time_ms``: the recorded mean times, as float64 (exact);
- the repeats, as a multiset per configuration (their order is not kept): when every repeat is
  a whole number of nanoseconds, as integer ticks of their greatest common divisor
  (``tick_ns``; CUDA events give multiples of 32 ns), sorted and stored as differences
  (``repeat_steps``: the first tick, then the gaps), which compress well and decode to the
  recorded values within a relative :data:`REPEAT_RTOL` (the JSON's decimal rounding);
  otherwise as float64 milliseconds (``repeats_ms``);
- ``unlaunchable``: the knob positions of the entries without a valid time;
- ``device``, ``kernel``, ``problem_size_json``, ``source``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import numpy as np

from schedlab.core.files import write_atomically

__all__ = [
    "REPEAT_RTOL",
    "MeasuredLandscape",
    "save_compact",
    "load_compact",
]

#: Relative difference allowed between a repeat and its whole number of nanoseconds (JSON writes
#: ``75.374592`` as ``75.37459199999999``): a few units in the last place.
REPEAT_RTOL = 1e-13
_NS_PER_MS = 1e6


@dataclass(frozen=True, eq=False)
class MeasuredLandscape:
    """The configurations of one kernel on one device with a recorded time, and their repeats.

    Attributes
    ----------
    device, kernel : str
        ``device_name`` and ``kernel_name`` of the cache.
    problem_size : tuple
        ``problem_size`` of the cache (``()`` if it records none).
    tune_params : mapping of str to tuple
        Knob name -> its values, in the cache's ``tune_params_keys`` order.
    knobs : ndarray (n, k) of int
        Configuration ``i``'s value of knob ``j`` is ``tune_params[j-th knob][knobs[i, j]]``.
    time_ms : ndarray (n,)
        The recorded (mean) time of each configuration, in milliseconds.
    repeats_ms : ndarray (n, r) or None
        The ``r`` recorded repeats of each configuration (``None`` if the cache records none).
    unlaunchable : ndarray (u, k) of int
        Knob positions of the entries that have no valid time (could not compile or run).
    source : str
        Where it was read from.
    """

    device: str
    kernel: str
    problem_size: tuple
    tune_params: Mapping[str, tuple]
    knobs: np.ndarray = field(repr=False)
    time_ms: np.ndarray = field(repr=False)
    repeats_ms: np.ndarray | None = field(repr=False)
    unlaunchable: np.ndarray = field(repr=False)
    source: str = ""

    @property
    def n_configs(self) -> int:
        """Configurations with a valid time."""
        return len(self.time_ms)

    @property
    def knob_names(self) -> tuple[str, ...]:
        return tuple(self.tune_params)

    @property
    def grid_size(self) -> int:
        """Points of the full grid ``prod(len(values))``, measured or not."""
        return math.prod(len(v) for v in self.tune_params.values())

    @property
    def best_index(self) -> int:
        return int(np.argmin(self.time_ms))

    @property
    def best_time_ms(self) -> float:
        return float(self.time_ms[self.best_index])

    @property
    def ratio(self) -> np.ndarray:
        """Each configuration's time over the best."""
        return self.time_ms / self.best_time_ms

    def n_within(self, factor: float) -> int:
        """How many configurations run within ``factor`` x the best time (``1.05`` for 5 %)."""
        return int((self.time_ms <= factor * self.best_time_ms).sum())

    def config(self, i: int) -> dict:
        """Configuration ``i`` as ``{knob: value}``."""
        return {k: values[v] for (k, values), v in zip(self.tune_params.items(), self.knobs[i].tolist())}

    def varying(self) -> tuple[int, ...]:
        """Positions of the knobs that take more than one value in ``tune_params`` (the others are constants)."""
        return tuple(j for j, values in enumerate(self.tune_params.values()) if len(values) > 1)


def _ticks(repeats_ms: np.ndarray) -> tuple[np.ndarray, int] | None:
    """The repeats as integer ticks of their gcd in ns, if every one is a whole number of ns."""
    ns = np.rint(repeats_ms * _NS_PER_MS)
    if not np.allclose(ns / _NS_PER_MS, repeats_ms, rtol=REPEAT_RTOL, atol=0) or ns.max() >= 2**62:
        return None
    ns = ns.astype(np.int64)
    tick = int(np.gcd.reduce(ns.ravel()))
    return ns // tick, tick


def save_compact(measured: MeasuredLandscape, path) -> Path:
    """Write ``measured`` to ``path`` as a compact ``.npz`` (see the module's "The compact file"), whole or not at all.

    The repeats are kept as a multiset (sorted): :func:`load_compact` returns each configuration's
    repeats in ascending order.
    """
    fields = dict(
        device=measured.device,
        kernel=measured.kernel,
        problem_size_json=json.dumps(list(measured.problem_size)),
        tune_params_json=json.dumps({k: list(v) for k, v in measured.tune_params.items()}),
        knobs=measured.knobs.astype(np.uint8 if measured.knobs.max(initial=0) < 256 else np.int64),
        time_ms=measured.time_ms,
        unlaunchable=measured.unlaunchable.astype(np.int64),
        source=measured.source,
    )
    if measured.repeats_ms is not None:
        ticked = _ticks(np.sort(measured.repeats_ms, axis=1))
        if ticked is None:
            fields["repeats_ms"] = np.sort(measured.repeats_ms, axis=1)
        else:
            ticks, tick = ticked
            steps = np.diff(ticks, axis=1, prepend=0)
            fields.update(repeat_steps=steps.astype(np.uint32 if steps.max() < 2**32 else np.int64), tick_ns=tick)
    return write_atomically(path, lambda f: np.savez_compressed(f, **fields))


def load_compact(path) -> MeasuredLandscape:
    """Read a landscape written by :func:`save_compact`; ``ValueError`` naming the file if it is not one."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as f:
            data = {k: f[k] for k in f.files}
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not a compact measured landscape ({e})") from None
    need = ("device", "kernel", "problem_size_json", "tune_params_json", "knobs", "time_ms", "unlaunchable")
    missing = [k for k in need if k not in data]
    if missing:
        raise ValueError(f"{path}: not a compact measured landscape (missing {', '.join(missing)})")
    if "repeat_steps" in data:
        repeats = np.cumsum(data["repeat_steps"].astype(np.int64), axis=1) * int(data["tick_ns"]) / _NS_PER_MS
    else:
        repeats = data.get("repeats_ms")
    params = json.loads(str(data["tune_params_json"]))
    return MeasuredLandscape(
        device=str(data["device"]),
        kernel=str(data["kernel"]),
        problem_size=tuple(json.loads(str(data["problem_size_json"]))),
        tune_params=MappingProxyType({k: tuple(v) for k, v in params.items()}),
        knobs=data["knobs"].astype(np.int64),
        time_ms=data["time_ms"],
        repeats_ms=repeats,
        unlaunchable=data["unlaunchable"].reshape(-1, len(params)),
        source=str(data.get("source", path.name)),
    )
