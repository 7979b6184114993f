"""Real Triton kernel times, as :mod:`schedlab.triton.timings` records them on a GPU.

A run is a folder: ``timings.csv`` (one row per shape and configuration: the median time of
``triton.testing.do_bench`` in microseconds, or the reason the configuration did not run),
``cublas.csv`` (``torch.matmul`` on the same shapes) and ``machine.txt`` (GPU, versions, clocks).
:func:`read_run` reads one into a :class:`TimedRun` of plain arrays; the runs this package ships
(:data:`SHIPPED_RUNS`, on an H200) are read by name with :func:`shipped_run`.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.files import InputFileError, read_input
from schedlab.core.measured import duplicate_row

__all__ = ["TimedRun", "read_run", "SHIPPED_RUNS", "shipped_run", "TIMINGS_DIR"]

#: Where the shipped runs live (package data).
TIMINGS_DIR = Path(__file__).resolve().parents[1] / "data" / "triton-timings"
#: The runs shipped with the package, on H200s, two passes over each of the script's shape sets: the main
#: shapes; the held-out ones, timed after the model's resident-blocks rule changed on the main ones; the fresh
#: ones, timed after every change (without the probe configurations).
SHIPPED_RUNS = (
    "h200-run1", "h200-run2", "h200-holdout-run1", "h200-holdout-run2", "h200-fresh-run1", "h200-fresh-run2",
)  # fmt: skip

_KNOBS = ("bm", "bn", "bk", "warps", "stages", "group")  # the order of the engine's config arrays
_SHAPE = ("M", "N", "K")


@dataclass(frozen=True, eq=False)
class TimedRun:
    """Triton kernel times on one GPU: row ``i`` is configuration ``configs[i]`` on shape ``shapes[i]``.

    ``time_s[i]`` is the median time in seconds, NaN where the configuration did not run
    (``status[i]`` says why: Triton's ``OutOfResources`` for a pipeline over the shared memory);
    ``cublas_s`` maps each shape to ``torch.matmul``'s median time on it; ``machine`` is the run's
    ``machine.txt``.
    """

    name: str
    shapes: np.ndarray  # (n, 3) int64: M, N, K
    configs: np.ndarray  # (n, 6) int64: bm, bn, bk, warps, stages, group
    time_s: np.ndarray  # (n,) float64, NaN where status is not "ok"
    status: tuple[str, ...]
    cublas_s: dict
    machine: str

    def shape_list(self) -> list[tuple[int, int, int]]:
        """The distinct shapes, in the order the run timed them."""
        return list(dict.fromkeys(map(tuple, self.shapes.tolist())))

    def on_shape(self, shape) -> tuple[np.ndarray, np.ndarray]:
        """``(configs, time_s)`` of the configurations that ran on ``shape``."""
        rows = np.all(self.shapes == np.asarray(shape), axis=1) & ~np.isnan(self.time_s)
        return self.configs[rows], self.time_s[rows]


def _rows(path: Path, columns: tuple[str, ...]) -> list[dict]:
    text = bytes(read_input(path)).decode("utf-8", errors="strict")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in columns if c not in (reader.fieldnames or ())]
    if missing:
        raise InputFileError(f"{path}: no column {', '.join(missing)}")
    return list(reader)


def _int(row: dict, key: str, path: Path, line: int) -> int:
    try:
        value = int(row[key])
    except (TypeError, ValueError):
        raise InputFileError(f"{path}, line {line}: {key} is {row[key]!r}, not an integer") from None
    if value < 1:
        raise InputFileError(f"{path}, line {line}: {key} is {value}, not positive")
    return value


def _time_us(row: dict, key: str, path: Path, line: int) -> float:
    try:
        value = float(row[key])
    except (TypeError, ValueError):
        raise InputFileError(f"{path}, line {line}: {key} is {row[key]!r}, not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise InputFileError(f"{path}, line {line}: {key} is {value}, not a positive time")
    return value


def read_run(folder) -> TimedRun:
    """Read the run in ``folder`` (``timings.csv``, ``cublas.csv``, ``machine.txt``).

    Every shape and knob must be a positive integer, every ``ok`` row a positive finite time, and no
    (shape, configuration) may appear twice; an :class:`~schedlab.core.files.InputFileError` names the
    file, the line and the fault otherwise.

    Examples
    --------
    >>> run = shipped_run("h200-run1")
    >>> len(run.shape_list()), run.configs.shape[1], int(np.isnan(run.time_s).sum()) > 0
    (61, 6, True)
    """
    folder = Path(folder)
    path = folder / "timings.csv"
    shapes, configs, times, status = [], [], [], []
    for line, row in enumerate(_rows(path, (*_SHAPE, *_KNOBS, "time_us", "status")), 2):
        shapes.append(tuple(_int(row, k, path, line) for k in _SHAPE))
        configs.append(tuple(_int(row, k, path, line) for k in _KNOBS))
        ok = row["status"] == "ok"
        times.append(_time_us(row, "time_us", path, line) * 1e-6 if ok else math.nan)
        status.append(row["status"])
    if not shapes:
        raise InputFileError(f"{path}: no rows")
    twice = duplicate_row(np.column_stack([shapes, configs]))
    if twice is not None:
        raise InputFileError(
            f"{path}, line {twice + 2}: shape {shapes[twice]} and configuration {configs[twice]} timed twice"
        )
    cublas_path = folder / "cublas.csv"
    cublas = {
        tuple(_int(row, k, cublas_path, line) for k in _SHAPE): _time_us(row, "time_us", cublas_path, line) * 1e-6
        for line, row in enumerate(_rows(cublas_path, (*_SHAPE, "time_us")), 2)
    }
    machine = bytes(read_input(folder / "machine.txt")).decode("utf-8")
    arrays = np.array(shapes, dtype=np.int64), np.array(configs, dtype=np.int64), np.array(times)
    for array in arrays:
        array.flags.writeable = False
    return TimedRun(folder.name, *arrays, tuple(status), MappingProxyType(cublas), machine)


@memoised(maxsize=4)
def shipped_run(name: str) -> TimedRun:
    """One of :data:`SHIPPED_RUNS`, read once; a ValueError names the runs there are otherwise."""
    if name not in SHIPPED_RUNS:
        raise ValueError(f"no shipped Triton run {name!r}; there are {', '.join(SHIPPED_RUNS)}")
    return read_run(TIMINGS_DIR / name)
