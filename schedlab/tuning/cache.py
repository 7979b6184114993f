"""The Kernel Tuner cache file, read and written in one place.

Kernel Tuner :cite:`vanwerkhoven2019kerneltuner` records every configuration it benchmarks in a
JSON *cache file*; in *simulation mode* (``kernel_tuner.tune_cache``) its search strategies replay
a tuning run from such a file with no GPU: a configuration's "measurement" is a lookup.

- :func:`read_cache` reads any cache file (JSON, plain or gzip-compressed) as a
  :class:`~schedlab.core.measured.MeasuredLandscape`: the knobs (``tune_params``, any names, any
  values), one row per configuration with a valid time, its mean time (``time``) and its recorded
  repeats (``times``). An entry whose ``time`` is not a positive finite number (:data:`INVALID`,
  ``"CompilationFailedConfig"``, ``"RuntimeFailedConfig"``, ...) is a configuration that could not
  run: it is kept apart, in ``MeasuredLandscape.unlaunchable``.
- :func:`to_cache` writes a measured landscape back as a cache (what a tuner replays), and
  :func:`cache_from_times` writes one of the model's landscapes: the six knobs under Triton's names
  (``BLOCK_M``, ``BLOCK_N``, ``BLOCK_K``, ``num_warps``, ``num_stages``, ``GROUP_M``) with their
  ``SPACE`` values, one entry per point of the full 6000-point grid keyed ``"bm,bn,bk,warps,stages,
  group"``. A launchable configuration has ``time`` (measured milliseconds, Kernel Tuner's unit),
  ``times`` (the one measurement), ``model_time`` (the model's noise-free milliseconds: the truth a
  benchmark scores against) and zero compile, verification and benchmark times; one that cannot
  launch has ``time: "InvalidConfig"``, which Kernel Tuner reads as failing its restrictions:
  ``tune_cache`` prunes it before any strategy can spend a measurement on it. A ``schedlab`` block
  holds the hardware and what the caller notes (:func:`schedlab.tuning.export.cache_document`: the
  noise model).
- :func:`write_json` writes a document whole or not at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

import numpy as np

from schedlab.core.checks import is_finite_number
from schedlab.core.files import MAX_INPUT_BYTES, InputFileError, read_input, write_atomically
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import SPACE, TRITON_NAMES, all_configs
from schedlab.core.landscape import landscape
from schedlab.core.measured import MAX_CONFIGS, MeasuredLandscape, problem_size_of
from schedlab.core.shapes import as_mnk

__all__ = ["INVALID", "KERNEL_NAME", "read_cache", "to_cache", "cache_from_times", "write_json"]

#: Kernel Tuner's marker of a configuration that fails its restrictions.
INVALID = "InvalidConfig"
#: The kernel name written into the model's cache files (Kernel Tuner checks it when it reads a cache).
KERNEL_NAME = "schedlab_matmul"
_REQUIRED = ("tune_params_keys", "tune_params", "cache")
_MS_PER_S = 1e3


#: Entries between two calls of ``read_cache``'s ``progress``.
_PROGRESS_EVERY = 10_000


def _fail(source: str, message: str):
    raise InputFileError(f"{source}: not a Kernel Tuner cache file: {message}")


def _load_json(path: Path, max_bytes: int):
    raw = read_input(path, max_bytes)  # a regular file, gzip undone, capped: InputFileError naming path
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as e:  # not UTF-8, not JSON, an integer over 4300 digits, deep nesting
        _fail(str(path), f"not JSON ({type(e).__name__}: {str(e)[:120]})")


def _is_time(x) -> bool:
    return is_finite_number(x) and x > 0  # an integer of 400 digits is no time


def read_cache(path, max_bytes: int = MAX_INPUT_BYTES, progress=None) -> MeasuredLandscape:
    """Read a Kernel Tuner cache file (JSON, plain or gzip) as a :class:`MeasuredLandscape`.

    Parameters
    ----------
    path : str or Path
        A regular file (a device or a pipe is refused without reading it).
    max_bytes : int
        Most bytes of JSON read (after gzip); a larger file is refused.
    progress : callable, optional
        ``progress(done, total, label)`` every 10,000 entries (the console's bar).

    Raises
    ------
    schedlab.core.files.InputFileError
        A ValueError naming the file (the path given) and what is wrong, in one line: not a
        regular file, over ``max_bytes``, not JSON, a missing field, ``tune_params_keys`` that
        disagree with ``tune_params``, a knob value listed twice, more than
        :data:`~schedlab.core.measured.MAX_CONFIGS` entries, a ``problem_size`` that is not an
        integer, a list of them or null, an entry whose values are not among ``tune_params``, one
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
    doc = _load_json(path, max_bytes)
    if not isinstance(doc, dict):
        _fail(source, f"the top level is a {type(doc).__name__}, not an object")
    missing = [k for k in _REQUIRED if k not in doc]
    if missing:
        _fail(source, f"missing field(s) {', '.join(missing)}")
    keys, params, cache = doc["tune_params_keys"], doc["tune_params"], doc["cache"]
    if not isinstance(params, dict) or not isinstance(keys, list) or list(keys) != list(params):
        _fail(source, f"tune_params_keys {keys!r} must list the knobs of tune_params in order")
    if not params:
        _fail(source, "tune_params names no knob")
    if not isinstance(cache, dict):
        _fail(source, "cache must be an object of entries")
    if len(cache) > MAX_CONFIGS:
        _fail(source, f"{len(cache)} entries, more than the {MAX_CONFIGS} read (the cap on configurations)")
    for k, values in params.items():
        if not isinstance(values, list) or not values:
            _fail(source, f"tune_params[{k!r}] must be a non-empty list of values")
    lookup = [{str(v): i for i, v in enumerate(values)} for values in params.values()]
    for k, values, table in zip(params, params.values(), lookup):
        if len(table) != len(values):
            _fail(source, f"tune_params[{k!r}] lists a value twice")
    problem_size = problem_size_of(doc.get("problem_size"), source)
    valid_rows, times, repeats, bad_rows, seen = [], [], [], [], set()
    for done, (key, entry) in enumerate(cache.items()):
        if progress is not None and done % _PROGRESS_EVERY == 0:
            progress(done, len(cache), path.name)
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
        problem_size=problem_size,
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


def cache_from_times(shape, measured_s, hw: Hardware | None = None, note=None) -> dict:
    """A Kernel Tuner cache of ``shape`` whose launchable config ``i`` measured ``measured_s[i]`` seconds.

    :func:`schedlab.tuning.export.cache_document` passes the Measurer's values; :mod:`schedlab.tuning.tuners`
    passes a strategy core's ``times * factors``. ``note`` (a dict) joins the ``schedlab`` block.
    """
    mnk = as_mnk(shape)
    hw = check_hardware(hw)
    land = landscape(mnk, hw)
    measured_ms = np.asarray(measured_s, dtype=float) * _MS_PER_S
    if measured_ms.shape != land.time_s.shape or not np.all(measured_ms > 0):
        raise ValueError(
            f"measured_s must hold one positive time per launchable config ({land.time_s.shape}), "
            f"got shape {measured_ms.shape}"
        )
    model_ms = land.time_s * _MS_PER_S
    keys = [TRITON_NAMES[k] for k in SPACE]
    cache = {}
    for cfg in all_configs():
        values = cfg.as_tuple()
        entry = dict(zip(keys, values))
        i = land.index.get(cfg)
        if i is None:
            entry["time"] = INVALID
        else:
            t = float(measured_ms[i])
            entry.update(time=t, times=[t], model_time=float(model_ms[i]))
        entry.update(compile_time=0.0, verification_time=0.0, benchmark_time=0.0)
        cache[",".join(map(str, values))] = entry
    return {
        "device_name": f"schedlab model of {hw.name}",
        "kernel_name": KERNEL_NAME,
        "problem_size": list(mnk),
        "tune_params_keys": keys,
        "tune_params": {TRITON_NAMES[k]: list(v) for k, v in SPACE.items()},
        "objective": "time",
        "schedlab": {"hardware": hw.name, "time_unit": "ms", **(note or {})},
        "cache": cache,
    }


def write_json(doc: dict, path) -> Path:
    """Write ``doc`` as JSON to ``path``, whole or not at all (:func:`~schedlab.core.files.write_atomically`).

    A ValueError naming ``path`` if it cannot be written (a missing folder, a folder); returns the path.
    """
    text = json.dumps(doc).encode()
    return write_atomically(path, lambda f: f.write(text))
