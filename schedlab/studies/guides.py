"""A guide that is not the truth: how good must a cost model be before it beats blind search?

In the search chapter every tuner measures the very model that guides it, so a guide that
ranks by the model is right by construction. Here the measurements come from a *truth* that
differs from the lecture's model, and each guided tuner keeps what the lecture knows:

Truths (what one measurement returns, before the 3 % timing noise of :mod:`schedlab.tuning`):

- :func:`effects_field`: the lecture's model times ``x exp(sigma f)``, ``f`` a seeded field of
  *unmodelled effects* (bank conflicts, instruction scheduling, register allocation: effects
  the analytical model does not price). ``f`` is standard normal for every configuration and
  correlated over tile families: half of its variance is shared by every configuration of one
  tile ``(BM, BN)``, a quarter by one compiled inner loop ``(BM, BN, BK, warps)``, a quarter is
  the configuration's own. So the truth is log-normal around the model with log-sd ``sigma``
  and two configurations of one tile are off in the same direction (correlation 0.5; 0.75 if
  they share ``BK`` and warps). Seed ``s`` draws its own field (``default_rng([2, s])``), so
  the seeds of a study are different machines, not only different noise.
- another hardware profile: the model's times on that machine (its launchable set pruned by
  its own limits, as a tuner on it would).

Guided tuners (:data:`GUIDED`):

``top-k model``     Triton's ``prune_configs_by`` with a ``perf_model`` and ``top_k``: rank every
                    launchable configuration by the lecture's cost model (the lecture's machine, ``H100_TC``) and
                    measure them in that order (``k`` = the trials spent).
``top-k learned``   the same ranking from :func:`schedlab.tuning.regression.fit`'s ridge, trained on the
                    lecture machine's landscapes of the other projections (never on the shape itself).
``model-guided``    :func:`schedlab.tuning.strategies.model_guided.model_guided`: an online ridge on static features,
                    fitted to the measurements of the truth, from
                    :data:`~schedlab.tuning.measurer.INITIAL_SAMPLES` random starting measurements
                    (the rule for every tuner that fits a model). It never sees a model time; its
                    features (which include the model's own ``tiling()`` quantities: waves,
                    resident blocks, padding) are computed for the machine it measures.

Blind tuners (:data:`BLIND`): random search, coordinate descent, simulated annealing and the
evolutionary search of :mod:`schedlab.tuning`, under the same rules (budget of unique
launchable measurements, same noise stream ``default_rng([0, s])``, same seeds).

Real tuners (:data:`REAL`): Kernel Tuner's ``bayes_opt`` and Optuna's TPE
(:mod:`schedlab.tuning.tuners`), which fit models of their own to the measurements; they run
live (seconds per run) unless ``cores`` gives recorded ones (:func:`record_guide_runs`,
:func:`recorded_guide_cores`).

:func:`guide_study` reports, for each truth and tuner, trials until the believed-best
configuration is truly within 5 % of the *truth's* optimum, over the seeds, as medians with
order-statistic 95 % intervals; :func:`guide_family` tests a guide against every blind tuner, seed
by seed (sign test, Holm over the family).

Every tuner runs through :func:`schedlab.tuning.harness.run_seeds` under the search chapter's
measurement rules; only the measured times change: the noise factors times the truth's factor.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.checks import check_int, check_number, check_sequence
from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import SPACE, config_array, knob_positions
from schedlab.core.landscape import landscape
from schedlab.core.shapes import as_mnk, study_shapes
from schedlab.core.stats import ALPHA, Interval, paired_family, trials_interval
from schedlab.tuning.harness import first_within, run_seeds
from schedlab.tuning.measurer import (
    DEFAULT_BUDGET,
    DEFAULT_NOISE,
    INITIAL_SAMPLES,
    check_factor,
    check_noise,
    check_seeds,
    noise_factors,
    search_context,
)
from schedlab.tuning.neighbours import neighbour_tables
from schedlab.tuning.records import Runs, load_runs, record, recorded_cores
from schedlab.tuning.regression import fit
from schedlab.tuning.strategies import CORES
from schedlab.tuning.tuners import tuner_core

__all__ = [
    "FIELD_SIGMAS",
    "FIELD_SHARES",
    "GUIDED",
    "BLIND",
    "REAL",
    "TUNERS",
    "record_guide_runs",
    "load_guide_runs",
    "recorded_guide_cores",
    "truth_factors",
    "Truth",
    "GuideStudy",
    "effects_field",
    "field_truth",
    "machine_truth",
    "guide_ranking",
    "guide_study",
    "guide_family",
]

#: The unmodelled-effects sigmas the chapter sweeps (log-sd of the field: 0, 5, 10 and 20 %).
FIELD_SIGMAS = (0.0, 0.05, 0.10, 0.20)
#: Shares of the field's variance: the tile family (BM, BN), the compiled inner loop
#: (BM, BN, BK, warps), the configuration itself. They sum to one, so ``f`` is standard normal.
FIELD_SHARES = {"tile": 0.5, "kernel": 0.25, "config": 0.25}
#: Tuners that use a guide from the lecture, and tuners that only measure.
GUIDED = ("top-k model", "top-k learned", "model-guided")
BLIND = ("random", "descent", "annealing", "evolutionary")
#: Real tuners that fit their own model to the measurements (:mod:`schedlab.tuning.tuners`).
REAL = ("kt_bayes_opt", "optuna_tpe")
TUNERS = GUIDED + BLIND + REAL

_FIELD_STREAM = 2  # search uses streams 0 (noise) and 1 (the strategy's own choices)
_SIZES = tuple(len(v) for v in SPACE.values())
_CORE_OF = {"model-guided": "model", **{name: name for name in BLIND}}


def _check_sigma(sigma) -> float:
    return check_number("sigma", sigma, minimum=0, maximum=1)


def effects_field(configs, sigma: float, seed: int) -> np.ndarray:
    """The multiplicative unmodelled-effects factor ``exp(sigma f)`` of each configuration.

    ``f = sqrt(.5) a[BM, BN] + sqrt(.25) b[BM, BN, BK, warps] + sqrt(.25) c[config]`` with
    ``a``, ``b``, ``c`` independent standard normals drawn from ``default_rng([2, seed])`` over
    the whole knob grid, so a configuration's factor does not depend on the shape, on the
    hardware or on which other configurations are asked for.

    Parameters
    ----------
    configs : sequence of GemmConfig or array-like of shape (n, 6)
    sigma : float
        Log-sd of the field, in ``[0, 1]`` (``0.05``: typical effects of 5 %).
    seed : int
        The field's seed (one "machine").

    Examples
    --------
    >>> from schedlab.core.knobs import GemmConfig
    >>> a = GemmConfig(bm=128, bn=128, bk=32, warps=4, stages=3, group=1)
    >>> b = GemmConfig(bm=128, bn=128, bk=64, warps=4, stages=3, group=8)
    >>> c = GemmConfig(bm=16, bn=16, bk=16, warps=1, stages=1, group=1)
    >>> f = effects_field([a, b, c], 0.1, seed=0)
    >>> f.shape, bool((f > 0).all()), effects_field([a], 0.0, seed=0).tolist()
    ((3,), True, [1.0])
    >>> bool(effects_field([c], 0.1, seed=0)[0] == f[2])  # the same config, the same factor
    True
    """
    sigma = _check_sigma(sigma)
    seed = check_int("seed", seed, minimum=0)
    return _field(knob_positions(config_array(configs)), sigma, seed)


def _field(idx: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    """:func:`effects_field` of the configurations whose ``SPACE`` positions are ``idx`` (checked arguments)."""
    if sigma == 0:
        return np.ones(len(idx))
    rng = np.random.default_rng([_FIELD_STREAM, seed])
    tile = rng.standard_normal(_SIZES[:2])
    kernel = rng.standard_normal(_SIZES[:4])
    own = rng.standard_normal(_SIZES)
    f = (
        math.sqrt(FIELD_SHARES["tile"]) * tile[idx[:, 0], idx[:, 1]]
        + math.sqrt(FIELD_SHARES["kernel"]) * kernel[idx[:, 0], idx[:, 1], idx[:, 2], idx[:, 3]]
        + math.sqrt(FIELD_SHARES["config"]) * own[tuple(idx.T)]
    )
    return np.exp(sigma * f)


@dataclass(frozen=True, eq=False)
class Truth:
    """What the measurements of one study see: a machine, and per seed a factor on its model times.

    ``time_s(seed) = landscape(shape, hw).time_s * factor(seed)``; with ``sigma = 0`` the factor
    is one: the machine's plain model times.
    """

    name: str
    hw: Hardware
    kind: str  # "field" (the model on hw times an effects field) or "machine" (hw's model times)
    sigma: float = 0.0

    def factor(self, configs, seed: int) -> np.ndarray:
        """Per configuration, the truth's time over ``hw``'s model time for ``seed``."""
        return effects_field(configs, self.sigma, seed)


def field_truth(sigma: float, hw: Hardware | None = None) -> Truth:
    """The model on ``hw`` (default: the lecture's machine) times the unmodelled-effects field of log-sd ``sigma``.

    Examples
    --------
    >>> field_truth(0.05).name
    'σ = 5 %'
    """
    sigma = _check_sigma(sigma)
    return Truth(name=f"σ = {100 * sigma:g} %", hw=check_hardware(hw), kind="field", sigma=sigma)


def machine_truth(hw: Hardware) -> Truth:
    """The model's times on another machine (the guides still use the lecture's machine, H100_TC)."""
    hw = check_hardware(hw)
    return Truth(name=hw.name, hw=hw, kind="machine")


def guide_ranking(guide: str, shape, hw: Hardware | None = None, guide_hw: Hardware | None = None) -> np.ndarray:
    """Indices into ``landscape(shape, hw).configs``, best first by ``guide`` on ``guide_hw``.

    ``guide`` is ``"top-k model"`` (the cost model's times) or ``"top-k learned"`` (the ridge of
    :func:`schedlab.tuning.regression.fit` trained on the landscapes of every study shape of the other
    projections). Ties keep ``SPACE`` order; a configuration the guide's machine cannot
    launch ranks last.

    Examples
    --------
    >>> order = guide_ranking("top-k model", (4096, 4096, 4096))
    >>> land = landscape((4096, 4096, 4096))
    >>> land.configs[order[0]] == land.best
    True
    """
    if guide not in ("top-k model", "top-k learned"):
        raise ValueError(f"guide must be 'top-k model' or 'top-k learned', got {guide!r}")
    return _ranking(guide, as_mnk(shape), check_hardware(hw), check_hardware(guide_hw))


@memoised(maxsize=64)
def _ranking(guide: str, mnk: tuple[int, int, int], hw: Hardware, guide_hw: Hardware) -> np.ndarray:
    land = landscape(mnk, hw)
    glands = landscape(mnk, guide_hw)
    if guide == "top-k model":
        score = np.array([glands.time_of(c) for c in land.configs])
    else:
        model = fit(_training_shapes(mnk), hw=guide_hw)
        score = model.predict_log_time(land.configs, mnk)
        score = np.where([c in glands.index for c in land.configs], score, np.inf)
    order = np.argsort(score, kind="stable")
    order.flags.writeable = False
    return order


def _training_shapes(mnk) -> tuple:
    """The learned guide's training shapes: every study shape outside ``mnk``'s projection ``(N, K)``."""
    return tuple(s for s in study_shapes() if (s.N, s.K) != (mnk[1], mnk[2]))


# --- the study ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GuideStudy:
    """Trials until the believed best is truly within ``factor`` of the truth's optimum.

    ``trials[t, j, s]``: truth ``truths[t]``, tuner ``tuners[j]``, seed ``seeds[s]`` (``inf``
    when the budget ran out first).
    """

    shape: tuple[int, int, int]
    truths: tuple[Truth, ...]
    tuners: tuple[str, ...]
    seeds: tuple[int, ...]
    budget: int
    noise: float
    factor: float
    trials: np.ndarray = field(repr=False)

    def _truth_index(self, truth) -> int:
        names = [t.name for t in self.truths]
        name = truth.name if isinstance(truth, Truth) else truth
        if name not in names:
            raise ValueError(f"truth must be one of {names}, got {truth!r}")
        return names.index(name)

    def cell(self, truth, tuner: str) -> Interval:
        """Trials to within ``factor`` of ``tuner`` on ``truth``: :func:`~schedlab.core.stats.trials_interval`."""
        if tuner not in self.tuners:
            raise ValueError(f"tuner must be one of {self.tuners}, got {tuner!r}")
        return trials_interval(self.trials[self._truth_index(truth), self.tuners.index(tuner)])

    def lowest_blind(self, truth) -> str:
        """The blind tuner with the lowest median on ``truth`` (the first in :data:`BLIND` order on ties).

        A description, not a verdict: whether it needs fewer trials than the others is
        :func:`guide_family`'s question.
        """
        blind = [b for b in BLIND if b in self.tuners]
        if not blind:
            raise ValueError("this study ran no blind tuner")
        return min(blind, key=lambda b: self.cell(truth, b).estimate)


def guide_family(studies, guide: str = "top-k model", alpha: float = ALPHA) -> dict:
    """``guide`` against every blind tuner, on every truth of every study: one family, Holm over all of it.

    The family is every comparison the guides page reads a verdict from (the guide against each
    blind tuner, for each shape and truth), so a verdict on any one of them keeps the family's level.
    Returns ``{(shape, truth name, blind tuner): PairVerdict}`` (:func:`schedlab.core.stats.paired_family`);
    ``fewer`` names the key of whichever needed fewer trials where Holm separates them.

    Examples
    --------
    >>> g = guide_study((4096, 4096, 4096), [field_truth(0.0)], ["top-k model", "random"], seeds=range(8))
    >>> v = guide_family([g])[(4096, 4096, 4096), "σ = 0 %", "random"]
    >>> v.wins, v.p_value == 2 / 256, v.fewer[2]  # the guide's first pick is the optimum on all 8 seeds
    (8, True, 'top-k model')
    """
    samples, pairs = {}, []
    for study in studies:
        if guide not in study.tuners:
            raise ValueError(f"guide must be one of {study.tuners}, got {guide!r}")
        for t, truth in enumerate(study.truths):
            for j, name in enumerate(study.tuners):
                samples[study.shape, truth.name, name] = study.trials[t, j]
            pairs += [
                ((study.shape, truth.name, guide), (study.shape, truth.name, b)) for b in BLIND if b in study.tuners
            ]
    return {v.b: v for v in paired_family(samples, pairs, alpha)}


def _core_ranked(context, seeds, budget, factors, ranking):
    """A strategy core (:func:`schedlab.tuning.harness.run_seeds`) that measures in a guide's order, every seed alike."""
    return np.tile(np.asarray(ranking[:budget], dtype=np.int64), (len(seeds), 1)), None


def truth_factors(truth: Truth, seeds, noise: float) -> np.ndarray:
    """``(seeds, n_configs)``: what seed ``s`` measures over the model time of ``truth.hw`` (truth x noise).

    Examples
    --------
    >>> f = truth_factors(field_truth(0.0), [3], 0.03)
    >>> bool(np.array_equal(f[0], noise_factors(3, 0.03, len(f[0]))))
    True
    """
    if not isinstance(truth, Truth):
        raise ValueError(f"truth must be a Truth, got {type(truth).__name__}")
    seeds = check_seeds(seeds)
    noise = check_noise(noise)
    knobs = neighbour_tables(truth.hw).knobs  # the launchable configs of truth.hw, whatever the shape
    n = len(knobs)
    world = np.stack([_field(knobs, truth.sigma, s) for s in seeds])
    return world * np.stack([noise_factors(s, noise, n) for s in seeds])


def _core_of(name: str, cores):
    """The strategy core ``name`` runs with: a blind one, model-guided under the rules, or a real tuner."""
    if name in _CORE_OF:
        core = CORES[_CORE_OF[name]]
        if name == "model-guided":
            return functools.partial(core, initial=INITIAL_SAMPLES)
        return core
    if cores is not None and name in cores:
        return cores[name]
    return tuner_core(name)  # the real tuners: live, seconds per run


def guide_study(
    shape,
    truths,
    tuners=GUIDED + BLIND,
    seeds=range(100),
    budget: int = DEFAULT_BUDGET,
    noise: float = DEFAULT_NOISE,
    factor: float = 1.05,
    cores=None,
) -> GuideStudy:
    """Run every tuner on every truth for every seed; count trials to within ``factor`` of the truth's optimum.

    Parameters
    ----------
    shape : (M, N, K) or Shape
    truths : iterable of Truth
        From :func:`field_truth` and :func:`machine_truth`.
    tuners : iterable of str
        Names from :data:`TUNERS` (default: the guided and blind ones; the real tuners of :data:`REAL`
        take seconds per run, so they are named explicitly, with recorded ``cores`` for a page).
    seeds : iterable of int
        Seed ``s`` fixes the noise and the tuner's choices as in :mod:`schedlab.tuning`, and the
        field of a :func:`field_truth`.
    budget : int
        Unique launchable measurements per run.
    noise : float
        Sigma of the lognormal timing noise on top of the truth.
    factor : float
        Good enough: within ``factor`` of the truth's optimum.
    cores : mapping of str to core, optional
        Cores for the real tuners (:func:`recorded_guide_cores`); a real tuner not in it runs live.

    Examples
    --------
    >>> g = guide_study((4096, 4096, 4096), [field_truth(0.0)], ["top-k model", "random"], seeds=range(8))
    >>> g.trials.shape, g.cell("σ = 0 %", "top-k model").estimate  # guide = truth: the first pick is the optimum
    ((1, 2, 8), 1.0)
    """
    mnk = as_mnk(shape)
    truths = tuple(check_sequence(truths, "truths", "Truth"))
    if not truths or not all(isinstance(t, Truth) for t in truths):
        raise ValueError("truths must be a non-empty sequence of Truth (field_truth, machine_truth)")
    tuners = tuple(tuners)
    bad = [t for t in tuners if t not in TUNERS]
    if not tuners or bad:
        raise ValueError(f"tuners must name some of {TUNERS}, got {bad or tuners!r}")
    seeds = check_seeds(seeds)
    noise = check_noise(noise)
    factor = check_factor(factor)
    budget = check_int("budget", budget, minimum=1)
    trials = np.empty((len(truths), len(tuners), len(seeds)))
    for t, truth in enumerate(truths):
        ctx = search_context(mnk, truth.hw)
        b = min(budget, ctx.n_configs)
        factors = truth_factors(truth, seeds, noise)
        world = np.stack([_field(ctx.neighbours.knobs, truth.sigma, s) for s in seeds])  # truth / model, per seed
        true_s = ctx.times[None, :] * world
        optimum = true_s.min(axis=1, keepdims=True)
        for j, name in enumerate(tuners):
            if name in GUIDED[:2]:
                ranking = guide_ranking(name, mnk, truth.hw)
                _, believed, _ = run_seeds(_core_ranked, ctx, seeds, b, factors, ranking=ranking)
            else:
                _, believed, _ = run_seeds(_core_of(name, cores), ctx, seeds, b, factors)
            best = np.take_along_axis(true_s, believed, axis=1)
            trials[t, j] = first_within(best / optimum, 1.0, factor)
    return GuideStudy(
        shape=mnk, truths=truths, tuners=tuners, seeds=seeds, budget=budget, noise=noise, factor=factor, trials=trials
    )


# --- recorded runs of the real tuners ----------------------------------------------------------


def record_guide_runs(
    shape,
    sigmas,
    names=REAL,
    seeds=range(20),
    budget: int = DEFAULT_BUDGET,
    noise: float = DEFAULT_NOISE,
    progress=None,
) -> Runs:
    """Run each real tuner in ``names`` on each field truth ``sigmas`` of ``shape`` (the lecture's machine), live.

    :func:`schedlab.tuning.records.record` with the truths' factors (:func:`truth_factors`);
    :func:`recorded_guide_cores` replays them in :func:`guide_study`. ``progress(done, total,
    label)``, if given, is called after each run.
    """
    sigmas = tuple(_check_sigma(x) for x in sigmas)
    names = tuple(names)
    if not sigmas or not names or any(n not in REAL for n in names):
        raise ValueError(f"sigmas must be non-empty and names some of {REAL}, got {sigmas!r}, {names!r}")
    noise = check_noise(noise)
    factors = {sigma: (lambda s, sigma=sigma: truth_factors(field_truth(sigma), [s], noise)[0]) for sigma in sigmas}
    return record(search_context(as_mnk(shape)), factors, names, seeds, budget, noise, progress)


def _field_factors(sigma: float, seeds, noise: float, context) -> np.ndarray:
    """The factors of field truth ``sigma`` on ``context``'s machine: what a recorded run on it measured."""
    return truth_factors(field_truth(sigma, context.land.hw), seeds, noise)


def load_guide_runs(path) -> Runs:
    """The guides' recorded runs in ``path`` (:func:`schedlab.tuning.records.load_runs`): field truths, ``σ > 0``.

    ``ValueError`` if the file holds runs on the model itself only (``σ = 0``: the search page's).
    """
    runs = load_runs(path)
    if not any(sigma > 0 for sigma in runs.sigmas):
        raise ValueError(f"{path}: runs on the model itself (σ = 0), not on field truths; load them with load_runs")
    return runs


def recorded_guide_cores(runs: Runs, fallback=None) -> dict:
    """Cores (name -> core) that replay ``runs`` in :func:`guide_study`; anything not recorded raises ``ValueError``.

    :func:`schedlab.tuning.records.recorded_cores` with the field truths: a core replays the recorded
    truth whose factors (:func:`truth_factors`) for these seeds are the ``factors`` it is given, on the
    recorded shape, machine, budget and rules. A truth not recorded goes to ``fallback[name]`` if
    given (the search page's recorded runs, which hold ``σ = 0``).
    """
    if not isinstance(runs, Runs):
        raise ValueError(f"runs must be Runs, got {type(runs).__name__}")
    own = recorded_cores([runs], truth_factors=_field_factors)

    def make(name):
        def core(context, seeds, budget, factors, **_):
            try:
                return own[name](context, seeds, budget, factors)
            except ValueError:
                if fallback is None or name not in fallback:
                    raise
            return fallback[name](context, seeds, budget, factors)

        core.__name__ = core.__qualname__ = f"recorded_guide_core_{name}"
        return core

    return {name: make(name) for name in own}
