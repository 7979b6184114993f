"""The model inside Triton's autotuner: prune a config list to the few worth measuring.

``@triton.autotune`` compiles and times every config of its list for every new shape
(its ``key``). It takes a model to cut that cost, through ``prune_configs_by``
(``triton/runtime/autotuner.py``, ``Autotuner.prune_configs``):

- ``"early_config_prune": g`` -- Triton calls ``g(configs, named_args, **kwargs)`` and
  measures the configs it returns (at least one, or Triton raises);
- ``"perf_model": f, "top_k": k`` -- Triton calls ``f(**named_args, **kwargs,
  **config.all_kwargs())`` for each config and measures the ``k`` lowest estimates.

:class:`Pruner` gives both for one GPU profile. It reads ``M``, ``N``, ``K`` and the
element type from the kernel's arguments (names in :data:`TUTORIAL_ARGS`, as Triton's
matmul tutorial spells them, or your own), the tiles and ``GROUP_M`` from each
``triton.Config``'s keyword arguments (either spelling of :data:`KNOB_KEYS`, or your own)
and ``num_warps`` / ``num_stages`` from the config. ::

    import triton
    from schedlab.triton.hook import Pruner

    @triton.autotune(configs=get_autotune_config(), key=["M", "N", "K"],
                     prune_configs_by=Pruner("h100-sxm", top_k=4).prune_configs_by())
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, ...): ...

What it decides, and why:

- A config the profile cannot launch (shared memory, registers, a warp tile under one mma)
  is dropped by :meth:`Pruner.early_config_prune`, each with its reasons
  (:func:`schedlab.core.launch.reasons`) logged on the ``schedlab.triton.hook`` logger at INFO.
  If no config of the list can launch, the first listed is kept (no estimate ranks them) and a
  warning says so: Triton raises on an empty list.
- The model prices every real shape; one it refuses (:func:`schedlab.core.shapes.check_shape`: an
  empty dimension, or counts that would overflow 64-bit integers) does not stop the autotuner: the list is
  kept whole, with a warning. :meth:`Pruner.perf_model` cannot keep a list whole (Triton's
  ``top_k`` cuts it), so there it estimates every config at 0 and Triton keeps the list's first
  ``top_k``; this is why :meth:`Pruner.prune_configs_by` hands Triton ``early_config_prune`` alone.
- Inside Triton's launch path it never raises (unless ``strict=True``): a config the model does
  not describe (a knob value outside ``SPACE`` such as ``GROUP_SIZE_M=16`` or ``num_warps=16``,
  ``num_ctas`` other than 1, ``SPLIT_K`` other than 1, ``maxnreg`` set, a knob spelled in none of
  the expected ways) is kept unranked after the ranked ones, with a warning; an element type
  other than fp16 or bf16 (the model prices 2-byte tensor-core inputs), arguments it cannot find,
  or a GPU it cannot name keep the whole list, with a warning. With ``strict=True`` each is a
  ValueError naming it. A kernel without a GROUP knob is priced as GROUP 1 (row-major launch
  order); repeated configs are measured once.
- With no ``gpu`` named, the GPU is the one Triton targets (its compute capability and memory:
  9.0 is ``h100-sxm`` or, over 100 GiB, ``h200-sxm``; 8.0 is ``a100-sxm4``).

Estimates are the model's kernel time in milliseconds, the unit of ``triton.testing.do_bench``.
This module imports nothing from Triton: a ``triton.Config`` is read through its ``kwargs``,
``num_warps``, ``num_stages`` and ``num_ctas`` attributes, and a plain mapping (Triton's
``Config.__dict__``, as its autotune cache stores it, or flat keyword arguments) reads the same.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from schedlab.core.checks import check_int, is_number
from schedlab.core.hardware import Hardware, resolve_gpu
from schedlab.core.knobs import TRITON_NAMES, GemmConfig
from schedlab.core.launch import reasons
from schedlab.core.model import evaluate
from schedlab.core.shapes import as_mnk, check_strides, row_alignment
from schedlab.triton.device import cuda_device, gpu_of_device

__all__ = [
    "TUTORIAL_ARGS",
    "KNOB_KEYS",
    "TUTORIAL_KEYS",
    "INDUCTOR_KEYS",
    "DTYPES",
    "UNMODELLED",
    "Pruned",
    "Pruner",
    "read_config",
    "config_kwargs",
    "flat_config",
    "config_record",
    "triton_source",
]

log = logging.getLogger(__name__)

#: Where the shape and the element type are read from: the argument names of Triton's matmul
#: tutorial kernel, ``matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, ...)``, and the lower-case
#: ``(a, b, c, m, n, k)`` many kernels use; ``dtype`` names the tensor argument whose ``.dtype``
#: is the element type. The first spelling the kernel has is read.
TUTORIAL_ARGS = MappingProxyType({"M": ("M", "m"), "N": ("N", "n"), "K": ("K", "k"), "dtype": ("a_ptr", "a", "A")})
#: Settings the model does not price, with the value it assumes: a config that sets another is kept unranked.
UNMODELLED = MappingProxyType({"SPLIT_K": 1, "maxnreg": None})
#: Triton's matmul tutorial's keys (``BLOCK_SIZE_M`` ...) and PyTorch Inductor's (``BLOCK_M`` ...).
TUTORIAL_KEYS = MappingProxyType(
    {"bm": "BLOCK_SIZE_M", "bn": "BLOCK_SIZE_N", "bk": "BLOCK_SIZE_K", "group": "GROUP_SIZE_M"}
)
INDUCTOR_KEYS = MappingProxyType({knob: TRITON_NAMES[knob] for knob in TUTORIAL_KEYS})
#: Knob -> the keyword spellings accepted for it, by default: the tutorial's and Inductor's.
KNOB_KEYS = MappingProxyType({knob: (TUTORIAL_KEYS[knob], INDUCTOR_KEYS[knob]) for knob in TUTORIAL_KEYS})
#: Element types the model prices (2-byte tensor-core inputs), as ``str(dtype)`` ends for torch
#: (``torch.float16``), numpy (``float16``) and Triton (``fp16``).
DTYPES = frozenset({"float16", "half", "fp16", "bfloat16", "bf16"})


def _spellings(keys) -> MappingProxyType:
    if not isinstance(keys, Mapping) or set(keys) != set(KNOB_KEYS):
        raise ValueError(f"keys must map each of {tuple(KNOB_KEYS)} to its keyword spelling(s), got {keys!r}")
    out = {}
    for knob, names in keys.items():
        names = (names,) if isinstance(names, str) else tuple(names)
        if not names or not all(isinstance(n, str) for n in names):
            raise ValueError(f"keys[{knob!r}] must be a keyword name or a tuple of them, got {keys[knob]!r}")
        out[knob] = names
    return MappingProxyType(out)


def _parts(config) -> tuple[Mapping, object, object, object]:
    """``(kwargs, num_warps, num_stages, num_ctas)`` of a ``triton.Config``, its ``__dict__`` or flat kwargs."""
    if not isinstance(config, Mapping):
        if not all(hasattr(config, a) for a in ("kwargs", "num_warps", "num_stages")):
            raise ValueError(f"a config must be a triton.Config or a mapping, got {config!r} ({type(config).__name__})")
        return config.kwargs, config.num_warps, config.num_stages, getattr(config, "num_ctas", 1)
    if "kwargs" in config:  # Config.__dict__, as Triton's autotune cache writes it
        return config["kwargs"], config.get("num_warps", 4), config.get("num_stages", 3), config.get("num_ctas", 1)
    meta = {k: v for k, v in config.items() if k not in ("num_warps", "num_stages", "num_ctas", "maxnreg")}
    return meta, config.get("num_warps", 4), config.get("num_stages", 3), config.get("num_ctas", 1)


def _unmodelled(config) -> list[str]:
    """The settings of ``config`` the model does not price (:data:`UNMODELLED`), as ``name=value``."""
    meta = _parts(config)[0]
    given = {
        **meta,
        "maxnreg": config.get("maxnreg") if isinstance(config, Mapping) else getattr(config, "maxnreg", None),
    }
    return [f"{k}={given[k]!r}" for k, default in UNMODELLED.items() if given.get(k, default) != default]


def _label(config) -> str:
    """``config`` as its ``triton.Config(...)`` source, or its repr if it is not a config at all."""
    try:
        return triton_source(config)
    except ValueError:
        return repr(config)


def _identity(config) -> str:
    """What makes two configs the same launch: their record and any unmodelled setting."""
    r = config_record(config)
    return repr(
        (sorted(r["kwargs"].items(), key=repr), r["num_warps"], r["num_stages"], r["num_ctas"], _unmodelled(config))
    )


def read_config(config, keys=KNOB_KEYS) -> GemmConfig:
    """The :class:`GemmConfig` a ``triton.Config`` (or a mapping, see the module) describes.

    ``num_warps`` and ``num_stages`` default to ``triton.Config``'s (4 and 3) when a mapping
    leaves them out.

    Parameters
    ----------
    config : triton.Config or mapping
        The config; its keyword arguments must name each knob in exactly one of its spellings.
    keys : mapping
        Knob (``bm``, ``bn``, ``bk``, ``group``) -> keyword name or tuple of accepted names.

    Raises
    ------
    ValueError
        Naming the knob whose keyword is missing (with the keywords the config has) or given twice,
        a value outside ``SPACE``, or ``num_ctas`` other than 1.

    Examples
    --------
    >>> read_config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8, "num_warps": 4, "num_stages": 4})
    GemmConfig(bm=64, bn=128, bk=32, warps=4, stages=4, group=8)
    >>> read_config({"BM": 64, "BN": 128, "BK": 32, "GROUP_M": 8})
    Traceback (most recent call last):
    ...
    ValueError: config has no keyword for bm (expected one of BLOCK_SIZE_M, BLOCK_M; it has BM, BN, BK, GROUP_M); pass keys= with its spelling
    """
    keys = _spellings(keys)
    meta, warps, stages, ctas = _parts(config)
    if ctas != 1:
        raise ValueError(f"num_ctas = {ctas!r}: the model prices one-block launches (num_ctas = 1)")
    knobs = {}
    for knob, names in keys.items():
        found = [n for n in names if n in meta]
        if not found and knob == "group":  # a kernel without grouped launch order: GROUP 1, row-major
            knobs[knob] = 1
            continue
        if not found:
            raise ValueError(
                f"config has no keyword for {knob} (expected one of {', '.join(names)}; it has "
                f"{', '.join(map(str, meta)) or 'none'}); pass keys= with its spelling"
            )
        if len(found) > 1:
            raise ValueError(f"config gives {knob} twice, as {' and '.join(found)}")
        knobs[knob] = meta[found[0]]
    try:
        return GemmConfig(warps=warps, stages=stages, **knobs)
    except ValueError as err:
        raise ValueError(f"config {dict(meta)}, num_warps={warps}, num_stages={stages}: {err}") from None


def config_kwargs(cfg: GemmConfig, keys=TUTORIAL_KEYS) -> dict[str, int]:
    """The keyword arguments of ``triton.Config`` for ``cfg``, spelled by ``keys`` (one name per knob).

    Examples
    --------
    >>> config_kwargs(GemmConfig(bm=64, bn=128, bk=32, warps=4, stages=4, group=8), INDUCTOR_KEYS)
    {'BLOCK_M': 64, 'BLOCK_N': 128, 'BLOCK_K': 32, 'GROUP_M': 8}
    """
    return {_spellings(keys)[k][0]: getattr(cfg, k) for k in KNOB_KEYS}


def flat_config(cfg: GemmConfig, keys=TUTORIAL_KEYS) -> dict[str, int]:
    """``cfg`` as flat keyword arguments with ``num_warps`` and ``num_stages``: a config :func:`read_config` reads.

    Examples
    --------
    >>> flat_config(GemmConfig(bm=64, bn=128, bk=32, warps=4, stages=4, group=8), INDUCTOR_KEYS)
    {'BLOCK_M': 64, 'BLOCK_N': 128, 'BLOCK_K': 32, 'GROUP_M': 8, 'num_warps': 4, 'num_stages': 4}
    """
    return {**config_kwargs(cfg, keys), "num_warps": cfg.warps, "num_stages": cfg.stages}


def config_record(config) -> dict:
    """A config as Triton's ``Config.__dict__`` holds it: ``kwargs``, ``num_warps``, ``num_stages``, ``num_ctas``.

    Examples
    --------
    >>> config_record({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8, "num_warps": 8})
    {'kwargs': {'BLOCK_M': 64, 'BLOCK_N': 128, 'BLOCK_K': 32, 'GROUP_M': 8}, 'num_warps': 8, 'num_stages': 3, 'num_ctas': 1}
    """
    meta, warps, stages, ctas = _parts(config)
    return {"kwargs": dict(meta), "num_warps": warps, "num_stages": stages, "num_ctas": ctas}


def triton_source(config) -> str:
    """The ``triton.Config(...)`` expression that builds ``config``, ready to paste into a list.

    Examples
    --------
    >>> triton_source({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8, "num_warps": 8})
    "triton.Config({'BLOCK_M': 64, 'BLOCK_N': 128, 'BLOCK_K': 32, 'GROUP_M': 8}, num_warps=8, num_stages=3)"
    """
    r = config_record(config)
    ctas = "" if r["num_ctas"] == 1 else f", num_ctas={r['num_ctas']}"
    return f"triton.Config({r['kwargs']!r}, num_warps={r['num_warps']}, num_stages={r['num_stages']}{ctas})"


@dataclass(frozen=True)
class Pruned:
    """What :meth:`Pruner.prune` kept of a list, and why the rest went.

    ``kept`` holds the list's own entries: first the ranked ones, best estimate first, with
    ``estimates_ms`` beside them, then ``unranked`` ones (configs the model does not describe, each
    with its reason in ``notes``); ``dropped`` maps the index in the list of each config that cannot
    launch to its :class:`~schedlab.core.launch.Reason` s. ``refused`` is the reason the whole list
    was kept unranked (a shape the model refuses, an element type it does not price, no GPU);
    ``duplicates`` counts the repeated entries left out.
    """

    shape: tuple
    n_listed: int
    kept: tuple
    estimates_ms: tuple[float, ...]
    dropped: Mapping = field(default_factory=dict)
    refused: str | None = None
    notes: tuple[str, ...] = ()
    duplicates: int = 0

    @property
    def unranked(self) -> tuple:
        """The kept configs without an estimate, after the ranked ones."""
        return self.kept[len(self.estimates_ms) :]

    @property
    def skipped_share(self) -> float:
        """The share of the list not measured: ``1 - len(kept) / n_listed``."""
        return 1.0 - len(self.kept) / self.n_listed


@dataclass(frozen=True)
class Pruner:
    """``prune_configs_by`` hooks for one GPU profile (see the module for what they decide).

    Parameters
    ----------
    gpu : str or Hardware or None
        A name of :data:`schedlab.core.hardware.PROFILES` or a machine; ``None`` (the default):
        the CUDA device's (:func:`gpu_of_device` of ``device()``).
    top_k : int, optional
        Keep at most this many ranked configs, best estimate first (default: no limit).
    within : float, optional
        Keep only configs estimated within ``1 + within`` of the list's best estimate.
    args : mapping
        ``M``, ``N``, ``K``, ``dtype`` -> the kernel argument name(s) holding it (:data:`TUTORIAL_ARGS`).
    keys : mapping
        Knob -> keyword spelling(s) in the configs (:data:`KNOB_KEYS`).
    strict : bool
        Raise a ValueError where the default warns and keeps configs unranked.
    strides : {"runtime", "constant"}
        What the kernel knows of its operands' strides (:data:`~schedlab.core.shapes.STRIDES`): arguments, as in
        tutorial 03 and most ``triton.autotune`` kernels (the default), or compiled-in constants, as in
        Inductor's mm template with static shapes. It decides, when ``N`` or ``K`` is not a multiple of 16,
        which operand is loaded element by element (and so which configs fit shared memory).
    device : callable
        Returns ``(major, minor, memory_bytes)`` of the GPU, or ``None`` (:func:`cuda_device`); read
        only when ``gpu`` is ``None``.

    Examples
    --------
    >>> from schedlab.triton.configs import TUTORIAL_CONFIGS
    >>> listed = [flat_config(c) for c in TUTORIAL_CONFIGS]
    >>> p = Pruner("h100-sxm", top_k=4).prune(listed, (4096, 4096, 4096))
    >>> len(p.kept), p.skipped_share, sorted(p.dropped) == [8, 9, 10, 11, 12]
    (4, 0.75, True)
    >>> read_config(p.kept[0])
    GemmConfig(bm=128, bn=256, bk=64, warps=8, stages=3, group=8)
    >>> Pruner(None, device=lambda: (9, 0, 141 * 10**9)).hw.name == Pruner("h200-sxm").hw.name
    True
    """

    gpu: str | Hardware | None = None
    top_k: int | None = None
    within: float | None = None
    args: Mapping = field(default_factory=lambda: TUTORIAL_ARGS)
    keys: Mapping = field(default_factory=lambda: KNOB_KEYS)
    strict: bool = False
    strides: str = "runtime"
    device: Callable = field(default=cuda_device, repr=False)
    hw: Hardware | None = field(init=False, repr=False)  # the machine ``gpu`` names; None: no profile fits

    def __post_init__(self):
        gpu = self.gpu
        if gpu is None:
            found = self.device()
            gpu = gpu_of_device(found)
            if gpu is None:
                message = f"schedlab has no profile of this GPU ({found}); configs are kept unpruned"
                if self.strict:
                    raise ValueError(message)
                warnings.warn(message, stacklevel=3)
        object.__setattr__(self, "hw", None if gpu is None else resolve_gpu(gpu))
        check_strides(self.strides)
        if self.top_k is not None:
            check_int("top_k", self.top_k, minimum=1)
        if self.within is not None and not (is_number(self.within) and 0 <= self.within < float("inf")):
            raise ValueError(f"within must be a finite number >= 0, got {self.within!r}")
        if not isinstance(self.args, Mapping) or set(self.args) != set(TUTORIAL_ARGS):
            raise ValueError(
                f"args must map each of {tuple(TUTORIAL_ARGS)} to a kernel argument name, got {self.args!r}"
            )
        names = {k: (v,) if isinstance(v, str) else tuple(v) for k, v in self.args.items()}
        object.__setattr__(self, "args", MappingProxyType(names))
        object.__setattr__(self, "keys", _spellings(self.keys))

    def _describe(self, config) -> GemmConfig | str:
        """``config`` as a GemmConfig, or why the model does not describe it (a ValueError when strict)."""
        try:
            unmodelled = _unmodelled(config)
            if unmodelled:
                raise ValueError(f"{', '.join(unmodelled)} is not modelled")
            return read_config(config, self.keys)
        except ValueError as err:
            if self.strict:
                raise
            return f"{_label(config)}: {err}"

    def prune(self, configs, shape) -> Pruned:
        """Drop what cannot launch on ``shape``, rank the rest by estimate, keep ``top_k`` / ``within``.

        Repeated configs count once; configs the model does not describe follow the ranked ones
        unranked (see the module). ValueError only with ``strict=True``.
        """
        listed = list(configs)
        first: dict[str, int] = {}
        for i, c in enumerate(listed):
            first.setdefault(_identity(c), i)
        at = list(first.values())  # each config's first place in the list
        configs = [listed[i] for i in at]
        ours = [self._describe(c) for c in configs]
        duplicates = len(listed) - len(configs)
        try:
            if self.hw is None:
                raise ValueError("no GPU profile to estimate on")
            mnk = as_mnk(shape)
        except ValueError as err:
            if self.strict:
                raise
            return Pruned(tuple(shape), len(listed), tuple(configs), (), {}, str(err), duplicates=duplicates)
        priced = [i for i, c in enumerate(ours) if isinstance(c, GemmConfig)]
        unpriced = [i for i, c in enumerate(ours) if not isinstance(c, GemmConfig)]
        time_s = np.full(len(configs), np.nan)
        if priced:
            time_s[priced] = evaluate([ours[i] for i in priced], *mnk, self.hw, self.strides).time_s
        alignment = row_alignment(*mnk, self.hw, self.strides)
        dropped = {i: reasons(ours[i], self.hw, alignment) for i in priced if not np.isfinite(time_s[i])}
        ok = np.flatnonzero(np.isfinite(time_s))
        order = ok[np.argsort(time_s[ok], kind="stable")]
        if self.within is not None and len(order):
            order = order[time_s[order] <= time_s[order[0]] * (1 + self.within) * (1 + 1e-12)]
        order = order[: self.top_k]
        tail = unpriced if unpriced or len(order) else [0]  # never empty: Triton raises on an empty list
        return Pruned(
            mnk,
            len(listed),
            tuple(configs[i] for i in [*order.tolist(), *tail]),
            tuple(1e3 * time_s[order]),
            {at[i]: why for i, why in dropped.items() if i not in tail},
            notes=tuple(ours[i] for i in unpriced),
            duplicates=duplicates,
        )

    def _arg(self, what: str, named_args: Mapping):
        names = self.args[what]
        found = [n for n in names if n in named_args]
        if not found:
            raise ValueError(
                f"the kernel has no argument {' or '.join(map(repr, names))} for {what} "
                f"(it has {', '.join(named_args)}); pass args= with its name"
            )
        return named_args[found[0]]

    def shape_of(self, named_args: Mapping) -> tuple:
        """``(M, N, K)`` from the kernel's arguments, after checking the element type (ValueError naming it)."""
        tensor = self._arg("dtype", named_args)
        dtype = getattr(tensor, "dtype", None)
        if dtype is None:
            raise ValueError(f"kernel argument {self.args['dtype'][0]!r} has no dtype: {type(tensor).__name__}")
        if str(dtype).rsplit(".", 1)[-1] not in DTYPES:
            raise ValueError(
                f"kernel argument {self.args['dtype'][0]!r} has dtype {dtype}; the model prices 2-byte tensor-core "
                f"inputs ({', '.join(sorted(DTYPES))})"
            )
        return tuple(self._arg(d, named_args) for d in ("M", "N", "K"))

    def early_config_prune(self, configs, named_args, **kwargs) -> list:
        """Triton's ``early_config_prune``: the configs worth measuring, best estimate first (never empty).

        Never raises unless ``strict``: what it cannot read keeps the list (a warning says why).
        """
        configs = list(configs)
        if not configs:
            return configs
        try:
            result = self.prune(configs, self.shape_of({**named_args, **kwargs}))
        except ValueError as err:
            if self.strict:
                raise
            warnings.warn(f"schedlab cannot estimate these configs, every config kept: {err}", stacklevel=2)
            return configs
        if result.refused is not None:
            warnings.warn(f"schedlab cannot estimate this shape, every config kept: {result.refused}", stacklevel=2)
            return list(result.kept)
        for i, why in result.dropped.items():
            log.info("%s cannot launch on %s: %s", configs[i], self.hw.name, "; ".join(r.message for r in why))
        if result.notes:
            warnings.warn(
                f"{len(result.notes)} config(s) kept unranked at the end, the model does not describe them: "
                + "; ".join(result.notes),
                stacklevel=2,
            )
        elif not result.estimates_ms:
            warnings.warn(
                f"none of the {len(result.kept) + len(result.dropped)} configs can launch on {self.hw.name}; "
                "the first listed is kept",
                stacklevel=2,
            )
        return list(result.kept)

    def perf_model(self, **kwargs) -> float:
        """Triton's ``perf_model``: one config's estimated time in ms (``inf`` if it cannot launch).

        Without ``strict``, a config or shape it cannot price is estimated at 0 with a warning.
        """
        try:
            shape = self.shape_of(kwargs)
            if self.hw is None:
                raise ValueError("no GPU profile to estimate on")
            M, N, K = as_mnk(shape)
            return float(1e3 * evaluate([read_config(kwargs, self.keys)], M, N, K, self.hw, self.strides).time_s[0])
        except ValueError as err:
            if self.strict:
                raise
            warnings.warn(f"schedlab cannot estimate this shape or config, every estimate is 0: {err}", stacklevel=2)
            return 0.0

    def prune_configs_by(self) -> dict:
        """The ``prune_configs_by`` argument of ``triton.autotune``: ``early_config_prune`` alone (see the module)."""
        return {"early_config_prune": self.early_config_prune}
