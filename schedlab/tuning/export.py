"""A landscape as a Kernel Tuner cache file (or a T4 results file), so any tuner can be benchmarked on it.

:func:`cache_document` writes one shape's landscape, measured with this chapter's noise, in Kernel
Tuner's cache schema (:mod:`schedlab.tuning.cache`), so a tuner written anywhere can be run on this
chapter's landscapes under its rules, and :func:`t4_document` writes the same results in the T4
"open autotuning results" schema that Kernel Tuner validates its output against. Kernel Tuner's
``tune_kernel(..., simulation_mode=True, cache=FILE)`` charges a first visit to an unlaunchable
entry as an evaluation unless it is given
:func:`~schedlab.tuning.kernel_tuner_adapter.launchable_restriction`; ``tune_cache`` prunes it.

The noise model
---------------
``time = model_time * exp(noise * z)``, one standard normal ``z`` per launchable
configuration drawn from ``numpy.random.default_rng([0, seed])`` over the launchable
configurations in ``SPACE`` order: exactly the value :class:`schedlab.tuning.measurer.Measurer`
returns for that configuration and seed, so a tuner run on the file meets the machine
this chapter's strategies meet. ``noise=0`` writes the model's times.
"""

from __future__ import annotations

import numpy as np

from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.landscape import landscape
from schedlab.tuning.cache import INVALID, cache_from_times
from schedlab.tuning.measurer import DEFAULT_NOISE, Measurer

__all__ = ["cache_document", "t4_document", "measured_times_s"]


def measured_times_s(shape, noise: float = DEFAULT_NOISE, seed: int = 0, hw: Hardware | None = None) -> np.ndarray:
    """What :class:`~schedlab.tuning.measurer.Measurer` measures for every launchable config (seconds).

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
        The cache file's contents; :func:`schedlab.tuning.cache.write_json` writes it.

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
        "schedlab.SPACE order (as schedlab.tuning.measurer.Measurer); 'InvalidConfig': cannot launch"
    )
    return cache_from_times(
        shape,
        measured_times_s(shape, noise, seed, hw),
        hw,
        {"noise_sigma": noise, "seed": seed, "noise_model": noise_model},
    )


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
        valid = entry["time"] != INVALID
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
