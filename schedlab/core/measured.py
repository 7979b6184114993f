"""A measured landscape: every configuration of a Kernel Tuner cache file with its recorded times.

:func:`read_cache` reads any Kernel Tuner :cite:`vanwerkhoven2019kerneltuner` cache file (JSON,
plain or gzip-compressed) -- the inverse of ``python -m schedlab export``
(:func:`schedlab.studies.export.cache_document`) -- as a :class:`MeasuredLandscape`: the knobs
(``tune_params``, any names, any values), one row per configuration with a valid time, its mean
time (``time``) and its recorded repeats (``times``). An entry whose ``time`` is not a positive
finite number (``"InvalidConfig"``, ``"CompilationFailedConfig"``, ``"RuntimeFailedConfig"``, ...)
is a configuration that could not run: it is kept apart, in :attr:`MeasuredLandscape.unlaunchable`.

:func:`save_compact` / :func:`load_compact` keep a landscape in a small ``.npz`` (what the book
ships); :func:`to_cache` writes it back as a Kernel Tuner cache (what a tuner replays).

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

import gzip
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import numpy as np

from schedlab.core.files import write_atomically

__all__ = [
    "INVALID",
    "REPEAT_RTOL",
    "MeasuredLandscape",
    "read_cache",
    "to_cache",
    "save_compact",
    "load_compact",
]

#: Kernel Tuner's marker of a configuration that fails its restrictions (written by :func:`to_cache`).
INVALID = "InvalidConfig"
#: Relative difference allowed between a repeat and its whole number of nanoseconds (JSON writes
#: ``75.374592`` as ``75.37459199999999``): a few units in the last place.
REPEAT_RTOL = 1e-13
_NS_PER_MS = 1e6
_REQUIRED = ("tune_params_keys", "tune_params", "cache")


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


def _fail(source: str, message: str):
    raise ValueError(f"{source}: not a Kernel Tuner cache file: {message}")


def _load_json(path: Path):
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read Kernel Tuner cache {path}: {e.strerror or e}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            _fail(str(path), f"broken gzip data ({e})")
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        _fail(str(path), f"not JSON ({e})")


def _is_time(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def read_cache(path) -> MeasuredLandscape:
    """Read a Kernel Tuner cache file (JSON, plain or gzip) as a :class:`MeasuredLandscape`.

    Parameters
    ----------
    path : str or Path

    Raises
    ------
    ValueError
        Naming the file and what is wrong: not JSON, a missing field, ``tune_params_keys`` that
        disagree with ``tune_params``, an entry whose values are not among ``tune_params``, one
        configuration twice, a repeat that is not a positive number, entries recording different
        numbers of repeats, or no entry with a valid time.

    Notes
    -----
    A configuration's knob values are read from its entry's fields (Kernel Tuner writes each
    knob there), else from its key (the values joined by commas); either is matched to
    ``tune_params`` by its text, so integer, float and string values all work.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> doc = {"tune_params_keys": ["a", "b"], "tune_params": {"a": [1, 2], "b": ["x", "y"]},
    ...        "cache": {"1,x": {"time": 2.0, "times": [1.9, 2.1]}, "2,x": {"time": 1.0, "times": [1.0, 1.0]},
    ...                  "2,y": {"time": "CompilationFailedConfig"}}}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "cache.json"
    >>> _ = path.write_text(json.dumps(doc))
    >>> m = read_cache(path)
    >>> m.n_configs, m.config(m.best_index), len(m.unlaunchable), m.repeats_ms.tolist()
    (2, {'a': 2, 'b': 'x'}, 1, [[1.9, 2.1], [1.0, 1.0]])
    """
    path = Path(path)
    source = str(path)
    doc = _load_json(path)
    if not isinstance(doc, dict):
        _fail(source, f"the top level is a {type(doc).__name__}, not an object")
    missing = [k for k in _REQUIRED if k not in doc]
    if missing:
        _fail(source, f"missing field(s) {', '.join(missing)}")
    keys, params, cache = doc["tune_params_keys"], doc["tune_params"], doc["cache"]
    if not isinstance(params, dict) or not isinstance(keys, list) or list(keys) != list(params):
        _fail(source, f"tune_params_keys {keys!r} must list the knobs of tune_params in order")
    if not isinstance(cache, dict):
        _fail(source, "cache must be an object of entries")
    for k, values in params.items():
        if not isinstance(values, list) or not values:
            _fail(source, f"tune_params[{k!r}] must be a non-empty list of values")
    lookup = [{str(v): i for i, v in enumerate(values)} for values in params.values()]
    valid_rows, times, repeats, bad_rows, seen = [], [], [], [], set()
    for key, entry in cache.items():
        if not isinstance(entry, dict) or "time" not in entry:
            _fail(source, f"entry {key!r} has no time")
        parts = str(key).split(",")
        texts = [str(entry[k]) if k in entry else None for k in keys]
        if any(t is None for t in texts):
            if len(parts) != len(keys):
                _fail(source, f"entry key {key!r} does not hold one value per knob ({len(keys)})")
            texts = parts
        try:
            row = tuple(lookup[j][t] for j, t in enumerate(texts))
        except KeyError as e:
            _fail(source, f"entry {key!r} has a value {e.args[0]!r} that is not in tune_params")
        if row in seen:
            _fail(source, f"entry {key!r} repeats a configuration")
        seen.add(row)
        if not _is_time(entry["time"]):
            bad_rows.append(row)
            continue
        valid_rows.append(row)
        times.append(float(entry["time"]))
        rep = entry.get("times")
        if rep is not None and (not isinstance(rep, list) or not rep or not all(_is_time(x) for x in rep)):
            _fail(source, f"entry {key!r}: times must be a non-empty list of positive times, got {rep!r}")
        repeats.append(rep)
    if not valid_rows:
        _fail(source, "no entry has a valid time")
    lengths = {len(r) for r in repeats if r is not None}
    if any(r is None for r in repeats) and lengths:
        _fail(source, "some entries record their repeats (times) and some do not")
    if len(lengths) > 1:
        _fail(source, f"entries record different numbers of repeats ({sorted(lengths)})")
    k = len(keys)
    return MeasuredLandscape(
        device=str(doc.get("device_name", "")),
        kernel=str(doc.get("kernel_name", "")),
        problem_size=tuple(doc.get("problem_size", ())),
        tune_params=MappingProxyType({name: tuple(values) for name, values in params.items()}),
        knobs=np.array(valid_rows, dtype=np.int64).reshape(-1, k),
        time_ms=np.array(times),
        repeats_ms=np.array(repeats, dtype=float) if lengths else None,
        unlaunchable=np.array(bad_rows, dtype=np.int64).reshape(-1, k),
        source=path.name,
    )


def to_cache(measured: MeasuredLandscape, time_ms=None) -> dict:
    """``measured`` as a Kernel Tuner cache (a JSON-ready dict); ``time_ms`` replaces the recorded times.

    Every configuration with a time gets ``time`` (and ``times``: the recorded repeats, or the one
    given time); every unlaunchable one ``time: "InvalidConfig"``, which Kernel Tuner's
    ``tune_cache`` reads as failing its restrictions. Grid points that the cache never recorded
    are left out.

    Examples
    --------
    >>> m = MeasuredLandscape("gpu", "k", (), MappingProxyType({"a": (1, 2, 4)}), np.array([[0], [2]]),
    ...                       np.array([2.0, 1.0]), None, np.array([[1]]))
    >>> to_cache(m)["cache"]
    {'1': {'a': 1, 'time': 2.0, 'times': [2.0]}, '4': {'a': 4, 'time': 1.0, 'times': [1.0]}, '2': {'a': 2, 'time': 'InvalidConfig'}}
    """
    given = time_ms is not None
    time_ms = measured.time_ms if time_ms is None else np.asarray(time_ms, dtype=float)
    if time_ms.shape != measured.time_ms.shape or not np.all(time_ms > 0):
        raise ValueError(f"time_ms must hold one positive time per configuration ({measured.n_configs})")
    names = measured.knob_names
    values = list(measured.tune_params.values())

    def config(row):
        return {k: values[j][v] for j, (k, v) in enumerate(zip(names, row))}

    cache = {}
    for i, row in enumerate(measured.knobs.tolist()):
        entry = config(row)
        t = float(time_ms[i])
        reps = [t] if given or measured.repeats_ms is None else measured.repeats_ms[i].tolist()
        entry.update(time=t, times=reps)
        cache[",".join(str(x) for x in list(entry.values())[: len(names)])] = entry
    for row in measured.unlaunchable.tolist():
        entry = config(row)
        key = ",".join(str(x) for x in entry.values())
        entry["time"] = INVALID
        cache[key] = entry
    return {
        "device_name": measured.device,
        "kernel_name": measured.kernel,
        "problem_size": list(measured.problem_size),
        "tune_params_keys": list(names),
        "tune_params": {k: list(v) for k, v in measured.tune_params.items()},
        "objective": "time",
        "cache": cache,
    }


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
