"""Which configurations can launch on a machine, and why the others cannot.

Pruning needs no measurement. Which rules apply is part of the machine
(:attr:`~schedlab.core.hardware.Hardware.launch_rules`). Under the seed lecture's
rules a configuration cannot launch when its pipeline overflows shared memory,
when a warp's tile is smaller than one tensor-core instruction, or when its
accumulator overflows the registers. Under Triton's (read from its compiler) only
shared memory refuses: the compiler lays out any number of warps on any tile and
spills registers it lacks.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from schedlab.core.caching import memoised
from schedlab.core.hardware import Hardware, KiB, check_hardware
from schedlab.core.knobs import GemmConfig, all_configs, config_array
from schedlab.core.resources import accumulator_registers, occupancy, pipeline_smem_bytes, warp_grid
from schedlab.core.shapes import ALIGNED, RowAlignment

__all__ = ["Reason", "launch_checks", "launchable_mask", "reasons", "static_valid", "Launchable", "launchable"]


class Reason(NamedTuple):
    """Why a configuration cannot launch: a short code and a message for errors and logs (English).

    The lecture's wording of each reason is :func:`schedlab.render.labels.launch_reason_label`.
    """

    code: str
    message: str


def launch_checks(
    arr: np.ndarray, hw: Hardware | None = None, alignment: RowAlignment = ALIGNED
) -> dict[str, np.ndarray]:
    """Vectorised pruning: for an ``(n, 6)`` config array, one boolean array per failure code.

    Which codes apply is ``hw.launch_rules`` (:data:`~schedlab.core.hardware.LAUNCH_RULES`). Under Triton's
    rules the answer depends on the shape through ``alignment``, its
    :class:`~schedlab.core.shapes.RowAlignment` (:func:`~schedlab.core.shapes.row_alignment`): an operand
    whose rows are not aligned keeps one shared buffer, so more configurations fit.

    Notes
    -----
    ``"seed"`` rules. With the warp grid ``(wy, wx)`` and warp tile ``wm = bm / wy``, ``wn = bn / wx``:

    - ``smem``: :func:`pipeline_smem_bytes` ``> smem_limit``;
    - ``mma``: ``wm < 16`` or ``wn < 8`` (the warp tile is smaller than one m16n8 mma);
    - ``registers`` (only when the mma check passes): ``wm * wn / 32 + 40 > 255``,
      one FP32 accumulator register per output element per thread plus the rest;
    - ``occupancy`` (only when the others pass): one block needs more registers, threads or shared
      memory than one SM has (:func:`occupancy` gives 0 resident blocks). Never on the four profiles.

    Triton's rules (``"triton-sm80"``, ``"triton-sm90"``), as its compiler decides:

    - ``smem``: :func:`pipeline_smem_bytes` (Triton's buffers, :func:`pipeline_buffers`, for ``alignment``)
      ``> smem_limit``: ``CompiledKernel._init_handles`` (``python/triton/compiler/compiler.py``)
      raises ``OutOfResources`` when the kernel's ``shared`` exceeds the device's opt-in maximum,
      and the autotuner (``Autotuner._bench``, ``python/triton/runtime/autotuner.py``) skips it;
    - no ``mma`` rule: ``warpsPerTileV2`` / ``warpsPerTileV3`` (:func:`triton_warps_per_tile`) lay
      out any warp count on any tile;
    - no ``registers`` rule: ptxas caps a thread at 255 registers and spills the rest to local
      memory, so the kernel runs, slowly (:func:`occupancy` reads the registers the compiler reported:
      :mod:`schedlab.core.compiler_record`);
    - ``occupancy`` as above.

    Examples
    --------
    >>> from schedlab.core.hardware import A100_SXM4
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> arr = config_array([GemmConfig(16, 64, 32, 4, 3, 8)])
    >>> {code: bool(m[0]) for code, m in launch_checks(arr).items()}
    {'smem': False, 'mma': True, 'registers': False, 'occupancy': False}
    >>> {code: bool(m[0]) for code, m in launch_checks(arr, A100_SXM4).items()}
    {'smem': False, 'occupancy': False}
    >>> from schedlab.core.hardware import H100_SXM
    >>> from schedlab.core.shapes import row_alignment
    >>> arr = config_array([GemmConfig(128, 128, 128, 4, 4, 8)])  # 4 x 64 KiB of buffers: too many
    >>> bool(launch_checks(arr, H100_SXM)["smem"][0]), bool(launch_checks(arr, H100_SXM, row_alignment(4096, 4096, 200))["smem"][0])
    (True, False)
    """
    hw = check_hardware(hw)
    bm, bn, bk, warps, stages = (arr[:, j] for j in range(5))
    smem = pipeline_smem_bytes(bm, bn, bk, warps, stages, hw, alignment) > hw.smem_limit
    if hw.launch_rules == "seed":
        wy, wx = warp_grid(warps)
        wm, wn = bm // wy, bn // wx
        mma = (wm < hw.mma_m) | (wn < hw.mma_n)
        regs = ~mma & (accumulator_registers(arr, hw) + hw.base_regs_per_thread > hw.max_regs_per_thread)
        checks = {"smem": smem, "mma": mma, "registers": regs}
    else:
        checks = {"smem": smem}
    failed = np.any(np.stack(list(checks.values())), axis=0)
    return {**checks, "occupancy": ~failed & (occupancy(arr, hw, alignment)[-1] == 0)}


def launchable_mask(arr: np.ndarray, hw: Hardware | None = None, alignment: RowAlignment = ALIGNED) -> np.ndarray:
    """For an ``(n, 6)`` config array, True where no check of :func:`launch_checks` fails.

    Examples
    --------
    >>> from schedlab.core.hardware import H100_SXM
    >>> from schedlab.core.knobs import GemmConfig, config_array
    >>> from schedlab.core.shapes import row_alignment
    >>> arr = config_array([GemmConfig(128, 128, 128, 4, 4, 8), GemmConfig(128, 128, 64, 4, 4, 8)])
    >>> launchable_mask(arr, H100_SXM).tolist(), launchable_mask(arr, H100_SXM, row_alignment(4096, 4096, 200)).tolist()
    ([False, True], [True, True])
    """
    return ~np.any(np.stack(list(launch_checks(arr, hw, alignment).values())), axis=0)


def _messages(hw: Hardware) -> dict[str, str]:
    buffers = "" if hw.launch_rules == "seed" else " (Triton's pipeline buffers)"
    return {
        "smem": f"shared memory{buffers} over {hw.smem_limit // KiB} KiB",
        "mma": f"a warp's tile smaller than one mma ({hw.mma_m}x{hw.mma_n})",
        "registers": f"over {hw.max_regs_per_thread} registers per thread",
        "occupancy": "one block needs more registers, threads or shared memory than an SM has",
    }


def reasons(cfg: GemmConfig, hw: Hardware | None = None, alignment: RowAlignment = ALIGNED) -> tuple[Reason, ...]:
    """Every reason ``cfg`` cannot launch on ``hw`` (on a shape whose rows are aligned as ``alignment``); empty when it can.

    Examples
    --------
    >>> from schedlab.core.knobs import GemmConfig
    >>> [r.code for r in reasons(GemmConfig(bm=256, bn=256, bk=128, warps=8, stages=5, group=1))]
    ['smem', 'registers']
    >>> reasons(GemmConfig(bm=256, bn=128, bk=32, warps=8, stages=4, group=1))
    ()
    """
    hw = check_hardware(hw)
    checks = launch_checks(config_array([cfg]), hw, alignment)
    messages = _messages(hw)
    return tuple(Reason(code, messages[code]) for code, failed in checks.items() if failed[0])


def static_valid(cfg: GemmConfig, hw: Hardware | None = None, alignment: RowAlignment = ALIGNED) -> bool:
    """True when ``cfg`` can launch on ``hw`` (no pruning reason applies) on a shape aligned as ``alignment``."""
    return not reasons(cfg, hw, alignment)


class Launchable(NamedTuple):
    """The configurations that can launch on one machine, in ``SPACE`` order.

    ``configs[i]`` is row ``i`` of ``array`` (read-only, ``(n, 6)`` int64) and ``index[configs[i]] == i``.
    """

    configs: tuple[GemmConfig, ...]
    array: np.ndarray
    index: MappingProxyType


def launchable(hw: Hardware | None = None, alignment: RowAlignment = ALIGNED) -> Launchable:
    """The launchable configurations on ``hw`` for shapes whose rows are aligned as ``alignment`` (computed once each).

    The default, :data:`~schedlab.core.shapes.ALIGNED`, is every shape whose ``N`` and ``K`` are multiples of 16.

    Examples
    --------
    >>> space = launchable()
    >>> len(space.configs), space.array.shape, space.index[space.configs[5]]
    (3744, (3744, 6), 5)
    """
    return _launchable(check_hardware(hw), RowAlignment(*map(bool, alignment)))


@memoised(maxsize=16)
def _launchable(hw: Hardware, alignment: RowAlignment) -> Launchable:
    configs = all_configs()
    arr = config_array(configs)
    ok = launchable_mask(arr, hw, alignment)
    array = arr[ok]
    array.flags.writeable = False
    kept = tuple(c for c, good in zip(configs, ok) if good)
    return Launchable(kept, array, MappingProxyType({c: i for i, c in enumerate(kept)}))
