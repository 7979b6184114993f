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
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import numpy as np

from schedlab.core.files import MAX_INPUT_BYTES, InputFileError, write_atomically

__all__ = [
    "REPEAT_RTOL",
    "MAX_CONFIGS",
    "MeasuredLandscape",
    "problem_size_of",
    "row_keys",
    "duplicate_row",
    "save_compact",
    "load_compact",
]

#: Relative difference allowed between a repeat and its whole number of nanoseconds (JSON writes
#: ``75.374592`` as ``75.37459199999999``): a few units in the last place.
REPEAT_RTOL = 1e-13
_NS_PER_MS = 1e6
#: Most configurations (entries) a cache or compact file may hold: a bound on what reading costs.
MAX_CONFIGS = 1_000_000


def problem_size_of(value, source) -> tuple:
    """A cache's ``problem_size`` as a tuple: Kernel Tuner writes a list, a bare int (1-D) or ``null``.

    Examples
    --------
    >>> problem_size_of(4096, "c.json"), problem_size_of(None, "c.json"), problem_size_of([64, 32], "c.json")
    ((4096,), (), (64, 32))
    >>> problem_size_of("4096x4096", "c.json")
    Traceback (most recent call last):
    ...
    schedlab.core.files.InputFileError: c.json: problem_size must be an integer, a list of integers or null, got '4096x4096'
    """
    if value is None:
        return ()
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        return tuple(value)
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    raise InputFileError(f"{source}: problem_size must be an integer, a list of integers or null, got {text}")


def row_keys(rows: np.ndarray) -> np.ndarray:
    """Each row of the 2-D integer array ``rows`` as one bytes key (big-endian, so the keys sort as the rows do).

    Examples
    --------
    >>> keys = row_keys(np.array([[1, 0], [0, 2], [0, 1]]))
    >>> np.argsort(keys).tolist(), bool(keys[0] == row_keys(np.array([[1, 0]]))[0])
    ([2, 1, 0], True)
    """
    rows = np.ascontiguousarray(rows, dtype=">i8")
    return rows.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


def duplicate_row(rows: np.ndarray) -> int | None:
    """The index of a row of the 2-D integer array ``rows`` that repeats an earlier one, or ``None``.

    Examples
    --------
    >>> duplicate_row(np.array([[0, 1], [1, 0], [0, 1]])), duplicate_row(np.zeros((0, 3), int))
    (2, None)
    """
    keys = row_keys(rows)
    _, first = np.unique(keys, return_index=True)
    if len(first) == len(keys):
        return None
    return int(np.setdiff1d(np.arange(len(keys)), first)[0])


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


_NEED = ("device", "kernel", "problem_size_json", "tune_params_json", "knobs", "time_ms", "unlaunchable")
_OPTIONAL = ("source", "repeat_steps", "tick_ns", "repeats_ms")


def _read_known(path: Path, max_bytes: int) -> dict:
    """The known arrays of the ``.npz`` at ``path``, each read only once its uncompressed size is within the cap."""
    if not path.is_file():  # a pipe or a device is refused before it is opened (opening a pipe blocks)
        raise InputFileError(f"cannot read {path}: {'not a regular file' if path.exists() else 'no such file'}")
    try:
        with np.load(path, allow_pickle=False) as f:
            if not hasattr(f, "files"):
                raise InputFileError(f"{path}: not a compact measured landscape (a .npy array, not an .npz)")
            missing = [k for k in _NEED if k not in f.files]
            if missing:
                raise InputFileError(f"{path}: not a compact measured landscape (missing {', '.join(missing)})")
            known = [k for k in (*_NEED, *_OPTIONAL) if k in f.files]
            size = sum(f.zip.getinfo(f"{k}.npy").file_size for k in known)
            if size > max_bytes:
                raise InputFileError(f"{path}: its arrays hold more than {max_bytes} bytes (the cap on what is read)")
            return {k: f[k] for k in known}
    except InputFileError:
        raise
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as e:  # not an npz, or broken
        raise InputFileError(f"{path}: not a compact measured landscape ({type(e).__name__}: {e})") from None


def _text(data: dict, key: str, path) -> str:
    a = data[key]
    if a.dtype.kind != "U" or a.ndim != 0:
        raise InputFileError(f"{path}: {key} must be a text scalar, got {a.dtype} of shape {a.shape}")
    return str(a)


def _array(data: dict, key: str, kinds: str, ndim: int, path) -> np.ndarray:
    a = data[key]
    if a.dtype.kind not in kinds or a.ndim != ndim:
        raise InputFileError(
            f"{path}: {key} must be a {ndim}-D {'integer' if 'i' in kinds else 'float'} array, "
            f"got {a.dtype} of shape {a.shape}"
        )
    return a


def _json(text: str, key: str, path):
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise InputFileError(f"{path}: {key} is not JSON ({e})") from None


def load_compact(path, max_bytes: int = MAX_INPUT_BYTES) -> MeasuredLandscape:
    """Read a landscape written by :func:`save_compact`, checked as strictly as a cache file.

    Only the arrays the format names are read (each after its size is checked against ``max_bytes``),
    with ``allow_pickle=False``. Raises :class:`~schedlab.core.files.InputFileError` naming ``path``
    (the path given) if it is not one: a missing or mistyped array, a knob position outside its
    values, a configuration twice, a time or repeat that is not a positive finite number, more than
    :data:`MAX_CONFIGS` configurations.
    """
    path = Path(path)
    data = _read_known(path, max_bytes)
    params = _json(_text(data, "tune_params_json", path), "tune_params_json", path)
    if not isinstance(params, dict) or not params or not all(isinstance(v, list) and v for v in params.values()):
        raise InputFileError(f"{path}: tune_params_json must be an object of non-empty lists of values")
    k = len(params)
    sizes = np.array([len(v) for v in params.values()])
    knobs = _array(data, "knobs", "iu", 2, path)
    time_ms = _array(data, "time_ms", "f", 1, path)
    unlaunchable = _array(data, "unlaunchable", "iu", min(data["unlaunchable"].ndim, 2), path)
    n = len(time_ms)
    if knobs.shape != (n, k) or unlaunchable.size % k:
        raise InputFileError(
            f"{path}: knobs {knobs.shape}, time_ms {time_ms.shape} and unlaunchable "
            f"{unlaunchable.shape} do not hold one row of {k} knobs per configuration"
        )
    if not 1 <= n + len(unlaunchable) // k <= MAX_CONFIGS:
        raise InputFileError(f"{path}: holds {n} configurations with a time; must hold 1 … {MAX_CONFIGS}")
    unlaunchable = unlaunchable.reshape(-1, k).astype(np.int64)
    rows = np.concatenate([knobs.astype(np.int64), unlaunchable])
    if ((rows < 0) | (rows >= sizes)).any():
        raise InputFileError(f"{path}: a knob position lies outside its tune_params values")
    if duplicate_row(rows) is not None:
        raise InputFileError(f"{path}: a configuration is recorded twice")
    if not (np.isfinite(time_ms) & (time_ms > 0)).all():
        raise InputFileError(f"{path}: time_ms holds a time that is not a positive finite number")
    repeats = _repeats(data, n, path)
    return MeasuredLandscape(
        device=_text(data, "device", path),
        kernel=_text(data, "kernel", path),
        problem_size=problem_size_of(_json(_text(data, "problem_size_json", path), "problem_size_json", path), path),
        tune_params=MappingProxyType({str(name): tuple(v) for name, v in params.items()}),
        knobs=knobs.astype(np.int64),
        time_ms=time_ms.astype(float),
        repeats_ms=repeats,
        unlaunchable=unlaunchable,
        source=_text(data, "source", path) if "source" in data else path.name,
    )


def _repeats(data: dict, n: int, path) -> np.ndarray | None:
    """The repeats of a compact file (ticks or float ms), checked: ``(n, r)``, every one positive and finite."""
    if "repeat_steps" in data:
        steps = _array(data, "repeat_steps", "iu", 2, path)
        tick = _array(data, "tick_ns", "iu", 0, path)
        if steps.shape[0] != n or steps.shape[1] < 1 or (steps < 0).any() or int(tick) <= 0 or (steps[:, 0] <= 0).any():
            raise InputFileError(
                f"{path}: repeat_steps and tick_ns do not hold positive repeats, one row per configuration"
            )
        repeats = np.cumsum(steps.astype(np.int64), axis=1) * int(tick) / _NS_PER_MS
    elif "repeats_ms" in data:
        repeats = _array(data, "repeats_ms", "f", 2, path).astype(float)
        if repeats.shape[0] != n or repeats.shape[1] < 1:
            raise InputFileError(f"{path}: repeats_ms must hold one row of repeats per configuration")
    else:
        return None
    if not (np.isfinite(repeats) & (repeats > 0)).all():
        raise InputFileError(f"{path}: a repeat is not a positive finite number")
    return repeats
