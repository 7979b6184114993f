"""Recorded runs of the real tuners and their replay: one record, one file format, one machine identity.

The real tuners (:mod:`schedlab.tuning.tuners`) take seconds per run (Kernel Tuner's ``bayes_opt``
about 4 s, Optuna's TPE about 5 s), too slow for a page build: :func:`record` runs them once on a
search context and :meth:`Runs.save` / :func:`load_runs` keep the orders in a small ``.npz``;
:func:`recorded_cores` replays them as strategy cores. A core asked for anything that was not
recorded raises ``ValueError`` naming it (and the command that records it) rather than silently
running a tuner for minutes.

Runs hold only for what they were recorded on, and say so:

- ``landscape``: what was tuned (:func:`landscape_key`): the model's shape ``"MxNxK"`` or a measured
  landscape's source file;
- ``machine``: :func:`machine_identity` of that landscape: on the model, every field of its
  :class:`~schedlab.core.hardware.Hardware`; on a measured landscape, a digest of its knobs,
  configurations and repeats;
- the seeds, the budget and the tuners' options under the rules
  (:func:`~schedlab.tuning.tuners.rules_record`);
- the truths they measured: ``orders[t]`` holds the runs that measured truth ``sigmas[t]`` with
  lognormal noise ``noise`` (``sigma = 0``: the model itself; ``sigma > 0``: the unmodelled-effects
  field of :mod:`schedlab.studies.guides`); on a measured landscape ``noise`` is ``None``: seed ``s``
  measures the recorded repeats :func:`schedlab.tuning.measured.repeat_factors` draws.

The book's runs live in :data:`BOOK_DATA`: ``tuner-runs-*.npz`` (the search page, :func:`book_runs`),
``guide-runs-*.npz`` (the guides page) and ``measured/runs-*.npz`` (the measured page).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from schedlab.core.checks import check_int
from schedlab.core.files import write_atomically
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.landscape import Landscape
from schedlab.core.measured import MeasuredLandscape
from schedlab.core.shapes import as_mnk
from schedlab.tuning.harness import measurements_used, run_seeds
from schedlab.tuning.measured import measured_context, repeat_factors
from schedlab.tuning.measurer import (
    DEFAULT_BUDGET,
    DEFAULT_NOISE,
    SearchContext,
    check_noise,
    check_seeds,
    noise_factors,
    search_context,
)
from schedlab.tuning.tuners import TUNERS, check_tuner, recorded_options, rules_record, tuner_core, versions

__all__ = [
    "BOOK_DATA",
    "BOOK_MEASURED",
    "machine_identity",
    "landscape_key",
    "Runs",
    "record",
    "record_runs",
    "record_measured_runs",
    "update_runs",
    "load_runs",
    "recorded_cores",
    "book_runs",
    "book_measured_runs",
]

#: Where the book's recorded runs live: ``schedlab/data``, inside the package, so the wheel and a
#: downloaded notebook carry them.
BOOK_DATA = Path(__file__).resolve().parents[1] / "data"
#: The measured landscapes (compact ``.npz``) and their recorded tuner runs (``runs-*.npz``).
BOOK_MEASURED = BOOK_DATA / "measured"


def machine_identity(land) -> str:
    """What recorded runs hold for: the machine of a model landscape, or a measured landscape's data.

    For a :class:`~schedlab.core.landscape.Landscape` (or a :class:`~schedlab.core.hardware.Hardware`):
    every field of the machine as JSON; a field at its declared default is left out (such a field was
    added with a default that keeps the model's numbers, ``l2_partitions=1``, so runs recorded before
    it existed still match). For a :class:`~schedlab.core.measured.MeasuredLandscape`: a digest of
    what a tuner meets there, its knobs, configurations and repeats (to the picosecond, so a cache
    file and its compact copy agree).

    Examples
    --------
    >>> from schedlab.core.hardware import H100_TC
    >>> json.loads(machine_identity(H100_TC))["n_sm"]
    132
    """
    if isinstance(land, MeasuredLandscape):
        h = hashlib.sha256(json.dumps({k: list(map(str, v)) for k, v in land.tune_params.items()}).encode())
        repeats = np.round(np.sort(land.repeats_ms, axis=1), 9)
        for a in (land.knobs, land.time_ms, repeats):
            h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
        return h.hexdigest()[:16]
    hw = check_hardware(land if isinstance(land, Hardware) else land.hw)
    values = {
        f.name: getattr(hw, f.name)
        for f in dataclasses.fields(hw)
        if f.default is dataclasses.MISSING or getattr(hw, f.name) != f.default
    }
    return json.dumps(values, sort_keys=True, default=str)


def landscape_key(land) -> str:
    """The name runs record their landscape by: ``"MxNxK"`` on the model, the source file of a measured one.

    ``land`` is a :class:`~schedlab.core.landscape.Landscape`, a
    :class:`~schedlab.core.measured.MeasuredLandscape`, or a model shape (``(M, N, K)`` or a ``Shape``).

    Examples
    --------
    >>> landscape_key((4096, 4096, 4096))
    '4096x4096x4096'
    """
    if isinstance(land, MeasuredLandscape):
        return land.source
    return "x".join(map(str, land.shape if isinstance(land, Landscape) else as_mnk(land)))


def _command(context: SearchContext) -> str:
    """The command that records runs on ``context``'s landscape."""
    if isinstance(context.land, MeasuredLandscape):
        return "python -m schedlab measured-tuners"
    return f"python -m schedlab tuners {' '.join(map(str, context.mnk))}"


@dataclass(frozen=True, eq=False)
class Runs:
    """Recorded real-tuner runs on one landscape: ``orders[truth, tuner, seed]``, launchable indices, ``-1`` padded.

    See the module for what each field says the runs hold for.

    Examples
    --------
    >>> runs = load_runs(BOOK_DATA / "tuner-runs-4096x4096x4096.npz")
    >>> runs.landscape, runs.sigmas, runs.orders.shape == (1, len(runs.names), len(runs.seeds), runs.budget)
    ('4096x4096x4096', (0.0,), True)
    >>> bool((runs.used("optuna_tpe") < runs.budget).any())  # TPE stops proposing new configs before its budget
    True
    """

    landscape: str
    machine: str
    names: tuple[str, ...]
    seeds: tuple[int, ...]
    budget: int
    noise: float | None  # None: a measured landscape's own repeats
    sigmas: tuple[float, ...]
    rules: str  # every tuner's options under the rules (rules_record): replays check them
    versions: str
    orders: np.ndarray = field(repr=False)  # (sigmas, names, seeds, budget)

    def _rows(self, name: str, sigma: float) -> np.ndarray:
        if name not in self.names:
            raise ValueError(f"name must be one of {self.names}, got {name!r}")
        if sigma not in self.sigmas:
            raise ValueError(f"sigma must be one of {self.sigmas}, got {sigma!r}")
        return self.orders[self.sigmas.index(sigma), self.names.index(name)]

    def used(self, name: str, sigma: float = 0.0) -> np.ndarray:
        """Measurements each seed's run of ``name`` used (fewer than the budget: it stopped on its own)."""
        return measurements_used(self._rows(name, sigma))

    def order(self, name: str, seed: int, sigma: float = 0.0) -> np.ndarray:
        """The recorded order of ``name`` with ``seed`` (padding dropped)."""
        rows = self._rows(name, sigma)
        if seed not in self.seeds:
            raise ValueError(f"seed {seed!r} was not recorded (seeds {self.seeds[0]}..{self.seeds[-1]})")
        row = rows[self.seeds.index(seed)]
        return row[row >= 0]

    def save(self, path) -> Path:
        """Write the runs to ``path`` as an ``.npz`` archive, under exactly that name, whole or not at all.

        Returns the path (see :func:`~schedlab.core.files.write_atomically`).
        """
        arrays = {
            "landscape": self.landscape,
            "machine": self.machine,
            "names": np.array(self.names),
            "seeds": np.array(self.seeds),
            "budget": self.budget,
            "noise": math.nan if self.noise is None else self.noise,
            "sigmas": np.array(self.sigmas, dtype=float),
            "rules": self.rules,
            "versions": self.versions,
            "orders": self.orders.astype(np.int32),
        }
        return write_atomically(path, lambda f: np.savez_compressed(f, **arrays))  # to an open file: no ".npz" added


def load_runs(path) -> Runs:
    """Read runs written by :meth:`Runs.save`; ``ValueError`` naming the file if it holds no runs."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as f:
            noise = float(f["noise"])
            return Runs(
                landscape=str(f["landscape"]),
                machine=str(f["machine"]),
                names=tuple(str(x) for x in f["names"]),
                seeds=tuple(int(x) for x in f["seeds"]),
                budget=int(f["budget"]),
                noise=None if math.isnan(noise) else noise,
                sigmas=tuple(float(x) for x in f["sigmas"]),
                rules=str(f["rules"]),
                versions=str(f["versions"]),
                orders=f["orders"].astype(np.int64),
            )
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"{path}: not recorded tuner runs ({e})") from None


def record(
    context: SearchContext,
    factors: Mapping[float, Callable[[int], np.ndarray]],
    names=tuple(TUNERS),
    seeds=range(50),
    budget: int = DEFAULT_BUDGET,
    noise: float | None = DEFAULT_NOISE,
    progress=None,
) -> Runs:
    """Run every tuner in ``names`` live (:func:`~schedlab.tuning.tuners.tuner_core`) for every seed and truth.

    ``factors[sigma](seed)`` is what seed ``seed`` measures over ``context.times`` on truth ``sigma``
    (``noise`` the lognormal noise inside it, or ``None`` on a measured landscape). The budget is
    capped at the context's configurations. ``progress(done, total, label)``, if given, is called
    after each run.
    """
    names = tuple(names)
    for name in names:
        check_tuner(name)
    seeds = check_seeds(seeds)
    if not names or not factors:
        raise ValueError("names and factors must each hold at least one entry")
    budget = min(check_int("budget", budget, minimum=1), context.n_configs)
    sigmas = tuple(float(s) for s in factors)
    orders = np.full((len(sigmas), len(names), len(seeds), budget), -1, dtype=np.int64)
    total, done = orders[..., 0].size, 0
    for t, sigma in enumerate(sigmas):
        for j, name in enumerate(names):
            core = tuner_core(name)
            for k, seed in enumerate(seeds):
                fac = np.asarray(factors[sigma](seed))[None, :]
                orders[t, j, k] = run_seeds(core, context, (seed,), budget, fac)[0][0]
                done += 1
                if progress is not None:
                    label = f"{name} seed {seed}" if sigmas == (0.0,) else f"{name} σ = {sigma:g} seed {seed}"
                    progress(done, total, label)
    return Runs(
        landscape=landscape_key(context.land),
        machine=machine_identity(context.land),
        names=names,
        seeds=seeds,
        budget=budget,
        noise=noise,
        sigmas=sigmas,
        rules=rules_record(budget),
        versions=versions(),
        orders=orders,
    )


def record_runs(
    shape,
    names=tuple(TUNERS),
    seeds=range(50),
    budget: int = DEFAULT_BUDGET,
    noise: float = DEFAULT_NOISE,
    hw: Hardware | None = None,
    progress=None,
) -> Runs:
    """:func:`record` on the model's landscape of ``shape`` on ``hw``, measured with lognormal ``noise``."""
    noise = check_noise(noise)
    context = search_context(shape, hw)
    return record(
        context, {0.0: lambda s: noise_factors(s, noise, context.n_configs)}, names, seeds, budget, noise, progress
    )


def record_measured_runs(
    measured: MeasuredLandscape, names=tuple(TUNERS), seeds=range(20), budget: int = DEFAULT_BUDGET, progress=None
) -> Runs:
    """:func:`record` on a measured landscape, each seed measuring its recorded repeats."""
    return record(
        measured_context(measured), {0.0: lambda s: repeat_factors(measured, s)}, names, seeds, budget, None, progress
    )


def update_runs(old: Runs, new: Runs) -> Runs:
    """``old`` with the tuners of ``new`` replaced (or added), under ``new``'s rules.

    For re-recording only the tuners whose options changed (``python -m schedlab tuners ... --tuner
    NAME --update``): both must hold the same landscape, machine, seeds, budget, noise and truths, and
    a tuner kept from ``old`` must run with the same options under both rules (:func:`rules_record`),
    so the result is what recording everything again would give.
    """
    same = ("landscape", "machine", "seeds", "budget", "noise", "sigmas")
    differ = [a for a in same if getattr(old, a) != getattr(new, a)]
    if differ:
        raise ValueError(f"runs to update must agree on {', '.join(differ)}; record all of them again")
    kept = [name for name in old.names if name not in new.names]
    changed = [
        name
        for name in kept
        if recorded_options(old.rules, old.budget, name) != recorded_options(new.rules, new.budget, name)
    ]
    if changed:
        raise ValueError(f"{', '.join(changed)} ran under other options in the old runs; record them again too")
    names = tuple(name for name in TUNERS if name in kept or name in new.names)
    source = {name: new if name in new.names else old for name in names}
    orders = np.stack([source[name].orders[:, source[name].names.index(name)] for name in names], axis=1)
    return dataclasses.replace(new, names=names, orders=orders)


def _zero_truth(sigma: float, seeds, noise: float, context: SearchContext) -> np.ndarray | None:
    """The factors of the model itself (``sigma = 0``) with lognormal ``noise``; ``None`` for another truth."""
    if sigma != 0:
        return None
    return np.stack([noise_factors(s, noise, context.n_configs) for s in seeds])


def recorded_cores(runs: Iterable[Runs], other_machine: str = "raise", truth_factors=None) -> dict:
    """Strategy cores that replay recorded runs instead of running the tuners (name -> core).

    ``runs`` is an iterable of :class:`Runs` (any landscapes, any truths). A core looks for the runs
    of its landscape (:func:`landscape_key`) holding its tuner, and replays the one whose truth gives
    exactly the ``factors`` it is asked to measure; anything not recorded raises ``ValueError``.

    ``truth_factors(sigma, seeds, noise, context)`` gives a truth's factors (default: only
    ``sigma = 0``, the model with its noise; :mod:`schedlab.studies.guides` passes its field truths).

    ``other_machine`` says what happens when the model's machine is not the one the runs were
    recorded on (:func:`machine_identity` differs): ``"raise"`` (``ValueError``), or ``"warn"``:
    replay anyway with a ``RuntimeWarning`` saying the numbers do not hold -- what a page does so that
    its build runs on to the doctest guards that catch it. A measured landscape that is not the one
    recorded always raises.
    """
    if other_machine not in ("raise", "warn"):
        raise ValueError(f"other_machine must be 'raise' or 'warn', got {other_machine!r}")
    runs = tuple(runs)
    if not runs or not all(isinstance(r, Runs) for r in runs):
        raise ValueError("runs must be a non-empty iterable of Runs")
    truth_factors = _zero_truth if truth_factors is None else truth_factors

    def replay(name, r: Runs, context, seeds, budget, factors):
        """Replayed orders, or a ``ValueError`` saying why ``r`` does not hold them."""
        where = f"{name} on {r.landscape}"
        measured = isinstance(context.land, MeasuredLandscape)
        if r.machine != machine_identity(context.land):
            if measured:
                return ValueError(f"runs recorded on {r.landscape} do not match {context.land.source}: re-record them")
            message = (
                f"{where}: runs were recorded on a machine with other parameters than this one ({context.land.hw.name}); they hold "
                f"only for the machine they were recorded on (re-record them with: {_command(context)})"
            )
            if other_machine == "raise":
                return ValueError(message)
            warnings.warn(message, RuntimeWarning, stacklevel=4)
        if not set(seeds) <= set(r.seeds) or r.budget != budget:
            return ValueError(
                f"{where} with seeds {seeds[0]}..{seeds[-1]} and budget {budget} was not recorded "
                f"(recorded: seeds {r.seeds[0]}..{r.seeds[-1]}, budget {r.budget}); record it with: {_command(context)}"
            )
        if recorded_options(r.rules, r.budget, name) != recorded_options(rules_record(budget), budget, name):
            return ValueError(
                f"{where}: runs were recorded with other options than the rules give it now "
                f"(schedlab.tuning.tuners.rules_record); re-record them with: {_command(context)}"
            )
        rows = [r.seeds.index(s) for s in seeds]
        for t, sigma in enumerate(r.sigmas):
            if r.noise is None or np.array_equal(factors, truth_factors(sigma, seeds, r.noise, context)):
                return r.orders[t, r.names.index(name)][rows].copy()
        return ValueError(
            f"{where} with this noise and truth was not recorded (recorded with noise {r.noise:g} on the truths "
            f"σ in {r.sigmas}); record it with: {_command(context)}" + (" --sigma ..." if r.sigmas != (0.0,) else "")
        )

    def make(name):
        def core(context, seeds, budget, factors, **_):
            key = landscape_key(context.land)
            candidates = [r for r in runs if r.landscape == key and name in r.names]
            if not candidates:
                raise ValueError(f"{name} on {key} was not recorded; record it with: {_command(context)}")
            failures = []
            for r in candidates:
                got = replay(name, r, context, seeds, budget, factors)
                if not isinstance(got, ValueError):
                    return got, None
                failures.append(got)
            raise failures[0]

        core.__name__ = core.__qualname__ = f"recorded_core_{name}"
        return core

    names = {name for r in runs for name in r.names}
    return {name: make(name) for name in TUNERS if name in names}


def book_runs(folder=None) -> tuple[Runs, ...]:
    """Every ``tuner-runs-*.npz`` in ``folder`` (default :data:`BOOK_DATA`), whatever the working directory.

    Examples
    --------
    >>> sorted(r.landscape for r in book_runs())[-1]
    '4096x4096x4096'
    """
    folder = BOOK_DATA if folder is None else Path(folder)
    paths = sorted(folder.glob("tuner-runs-*.npz"))
    if not paths:
        raise ValueError(f"no recorded runs (tuner-runs-*.npz) in {folder}; record them with python -m schedlab tuners")
    return tuple(load_runs(p) for p in paths)


def book_measured_runs(folder=None) -> tuple[Runs, ...]:
    """Every ``runs-*.npz`` in ``folder`` (default :data:`BOOK_MEASURED`): the real tuners on measured landscapes."""
    folder = BOOK_MEASURED if folder is None else Path(folder)
    return tuple(load_runs(p) for p in sorted(folder.glob("runs-*.npz")))
