"""A landscape as a Kernel Tuner cache file, so any tuner can be benchmarked on it.

Kernel Tuner :cite:`vanwerkhoven2019kerneltuner` records every configuration it
benchmarks in a JSON *cache file*; in *simulation mode* (``kernel_tuner.tune_cache``)
its search strategies replay a tuning run from such a file with no GPU: a
configuration's "measurement" is a lookup. :func:`cache_document` writes one shape's
landscape in that schema, so a tuner written anywhere can be run on this chapter's
landscapes under its rules, and :func:`t4_document` writes the same results in the
T4 "open autotuning results" schema that Kernel Tuner validates its output against.

The cache file
--------------
- ``tune_params``: the six knobs under Triton's names (``BLOCK_M``, ``BLOCK_N``,
  ``BLOCK_K``, ``num_warps``, ``num_stages``, ``GROUP_M``) with their ``SPACE`` values.
- ``cache``: one entry per point of the full 6000-point grid, keyed ``"bm,bn,bk,warps,
  stages,group"``. A launchable configuration has ``time`` (measured milliseconds,
  Kernel Tuner's unit), ``times`` (the one measurement), ``model_time`` (the model's
  noise-free milliseconds: the truth a benchmark scores against) and zero compile,
  verification and benchmark times. A configuration that cannot launch (shared memory,
  tensor-core tile or registers, see :mod:`schedlab.core.space`) has ``time:
  "InvalidConfig"``, which Kernel Tuner reads as a configuration that fails its
  restrictions: ``tune_cache`` prunes it before any strategy can spend a measurement
  on it. Kernel Tuner's ``tune_kernel(..., simulation_mode=True, cache=FILE)`` does not: it
  charges a first visit to such an entry as an evaluation unless it is given the same
  restriction, :func:`launchable_restriction` (``restrictions=[launchable_restriction()]``).
- ``schedlab``: the hardware, the noise sigma and seed, and the noise model in words.

The noise model
---------------
``time = model_time * exp(noise * z)``, one standard normal ``z`` per launchable
configuration drawn from ``numpy.random.default_rng([0, seed])`` over the launchable
configurations in ``SPACE`` order: exactly the value :class:`schedlab.studies.search.Measurer`
returns for that configuration and seed, so a tuner run on the file meets the machine
this chapter's strategies meet. ``noise=0`` writes the model's times.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from schedlab.core.files import write_atomically
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.landscape import landscape
from schedlab.core.space import SPACE, TRITON_NAMES, all_configs, as_mnk, launchable
from schedlab.studies.search import DEFAULT_NOISE, Measurer

__all__ = [
    "KERNEL_NAME",
    "cache_document",
    "cache_from_times",
    "launchable_restriction",
    "t4_document",
    "write_json",
    "measured_times_s",
]

#: The kernel name written into exported files (Kernel Tuner checks it when it reads a cache).
KERNEL_NAME = "schedlab_matmul"
_INVALID = "InvalidConfig"  # Kernel Tuner's marker of a configuration that fails its restrictions
_MS_PER_S = 1e3


def launchable_restriction(hw: Hardware | None = None):
    """A Kernel Tuner restriction that passes exactly the configurations that can launch on ``hw``.

    Kernel Tuner calls it with a dict of one configuration's values under the Triton names of
    :data:`~schedlab.core.space.TRITON_NAMES`; with it, ``tune_kernel`` in simulation mode prunes
    what ``tune_cache`` prunes, and spends no evaluation on a configuration that cannot launch.
    (A plain function, not a lambda: Kernel Tuner rewrites lambdas into strings it parses.)

    Examples
    --------
    >>> ok = launchable_restriction()
    >>> ok(dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=32, num_warps=8, num_stages=4, GROUP_M=1))
    True
    >>> ok(dict(BLOCK_M=256, BLOCK_N=256, BLOCK_K=128, num_warps=8, num_stages=5, GROUP_M=1))  # too much smem
    False
    """
    hw = check_hardware(hw)
    ok = frozenset(c.as_tuple() for c in launchable(hw).configs)
    keys = tuple(TRITON_NAMES[k] for k in SPACE)

    def can_launch(params) -> bool:
        return tuple(params[k] for k in keys) in ok

    return can_launch


def measured_times_s(shape, noise: float = DEFAULT_NOISE, seed: int = 0, hw: Hardware | None = None) -> np.ndarray:
    """What :class:`~schedlab.studies.search.Measurer` measures for every launchable config (seconds).

    Read through a Measurer whose budget covers every config, so the exported file and
    the chapter's strategies share one noise stream by construction.

    Examples
    --------
    >>> t = measured_times_s((4096, 4096, 4096), noise=0)
    >>> bool((t == landscape((4096, 4096, 4096)).time_s).all())
    True
    """
    hw = check_hardware(hw)
    n = len(landscape(shape, hw).configs)
    m = Measurer(shape, budget=n, seed=seed, noise=noise, hw=hw)
    return np.array([m.measure(i) for i in range(n)])


def _device_name(hw: Hardware) -> str:
    return f"schedlab model of {hw.name}"


def cache_document(shape, noise: float = DEFAULT_NOISE, seed: int = 0, hw: Hardware | None = None) -> dict:
    """One shape's landscape as a Kernel Tuner cache file (a JSON-ready dict).

    Parameters
    ----------
    shape : (M, N, K) or Shape
    noise : float
        Sigma of the lognormal measurement noise (``0``: the model's times).
    seed : int
        Seeds the noise (see the module's noise model).
    hw : Hardware

    Returns
    -------
    dict
        The cache file's contents; :func:`write_json` writes it.

    Examples
    --------
    >>> doc = cache_document((4096, 4096, 4096), noise=0)
    >>> doc["tune_params_keys"], len(doc["cache"]), doc["problem_size"]
    (['BLOCK_M', 'BLOCK_N', 'BLOCK_K', 'num_warps', 'num_stages', 'GROUP_M'], 6000, [4096, 4096, 4096])
    >>> doc["cache"]["256,256,128,8,5,1"]["time"]  # overflows shared memory: pruned, never measured
    'InvalidConfig'
    """
    noise_model = (
        "time = model_time * exp(noise_sigma * z), one z ~ N(0, 1) per launchable config, "
        "drawn by numpy.random.default_rng([0, seed]) over the launchable configs in "
        "schedlab.SPACE order (as schedlab.studies.search.Measurer); 'InvalidConfig': cannot launch"
    )
    return cache_from_times(
        shape,
        measured_times_s(shape, noise, seed, hw),
        hw,
        {"noise_sigma": noise, "seed": seed, "noise_model": noise_model},
    )


def cache_from_times(shape, measured_s, hw: Hardware | None = None, note=None) -> dict:
    """A Kernel Tuner cache of ``shape`` whose launchable config ``i`` measured ``measured_s[i]`` seconds.

    :func:`cache_document` passes the Measurer's values; :mod:`schedlab.studies.tuners` passes a
    strategy core's ``times * factors``. ``note`` (a dict) joins the ``schedlab`` block.
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
            entry["time"] = _INVALID
        else:
            t = float(measured_ms[i])
            entry.update(time=t, times=[t], model_time=float(model_ms[i]))
        entry.update(compile_time=0.0, verification_time=0.0, benchmark_time=0.0)
        cache[",".join(map(str, values))] = entry
    return {
        "device_name": _device_name(hw),
        "kernel_name": KERNEL_NAME,
        "problem_size": list(mnk),
        "tune_params_keys": keys,
        "tune_params": {TRITON_NAMES[k]: list(v) for k, v in SPACE.items()},
        "objective": "time",
        "schedlab": {"hardware": hw.name, "time_unit": "ms", **(note or {})},
        "cache": cache,
    }


def t4_document(shape, noise: float = DEFAULT_NOISE, seed: int = 0, hw: Hardware | None = None) -> dict:
    """The same results in the T4 autotuning-results schema (version 1.0.0), as Kernel Tuner writes them.

    Each configuration of the grid is one result: ``invalidity`` is ``"correct"`` for a
    launchable one (its measured ``time`` and noise-free ``model_time`` in milliseconds
    under ``measurements``) and ``"constraints"`` for one that cannot launch. T4 has no
    field for a noise model, so it lives in the cache file only.

    Examples
    --------
    >>> doc = t4_document((4096, 4096, 4096), noise=0)
    >>> doc["schema_version"], len(doc["results"]), doc["results"][0]["invalidity"]
    ('1.0.0', 6000, 'correct')
    """
    cache = cache_document(shape, noise, seed, hw)
    keys = cache["tune_params_keys"]
    results = []
    for entry in cache["cache"].values():
        valid = entry["time"] != _INVALID
        measured = [{"name": name, "value": entry[name], "unit": "ms"} for name in ("time", "model_time") if valid]
        results.append(
            {
                "configuration": {k: entry[k] for k in keys},
                "times": {
                    "compilation_time": 0.0,
                    "runtimes": entry.get("times", []),
                    "framework": 0.0,
                    "search_algorithm": 0.0,
                    "validation": 0.0,
                },
                "invalidity": "correct" if valid else "constraints",
                "correctness": 1,
                "measurements": measured,
                "objectives": ["time"],
            }
        )
    return {"schema_version": "1.0.0", "results": results, "metadata": {"timeunit": "milliseconds"}}


def write_json(doc: dict, path) -> Path:
    """Write ``doc`` as JSON to ``path``, whole or not at all (:func:`~schedlab.core.files.write_atomically`).

    A ValueError naming ``path`` if it cannot be written (a missing folder, a folder); returns the path.
    """
    text = json.dumps(doc).encode()
    return write_atomically(path, lambda f: f.write(text))
