"""Demo 1 (the space page): how many configurations there are, how many launch, and why the others do not."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.core.hardware import Hardware, check_hardware
from schedlab.core.knobs import all_configs, config_array
from schedlab.core.launch import Reason, launch_checks, reasons


@dataclass(frozen=True)
class SpaceSummary:
    """How many configurations there are, how many can launch, and why the others cannot."""

    n_configs: int
    n_launchable: int
    reason_counts: tuple[tuple[Reason, int], ...]  # most frequent first; a config may count under several
    n_by_failures: dict[int, int]  # number of reasons -> configs
    hw: Hardware  # the machine whose rules these are

    @property
    def launchable_fraction(self) -> float:
        return self.n_launchable / self.n_configs


def space_summary(hw: Hardware | None = None) -> SpaceSummary:
    """Count the space and the pruning reasons.

    Examples
    --------
    >>> s = space_summary()
    >>> s.n_configs, s.n_launchable
    (6000, 3744)
    >>> [(r.code, n) for r, n in s.reason_counts]
    [('registers', 1200), ('mma', 900), ('smem', 384)]
    """
    hw = check_hardware(hw)
    arr = config_array(all_configs())
    checks = launch_checks(arr, hw)
    failed = np.stack(list(checks.values()), axis=1)
    # one example config per code gives the code's message for this hardware
    messages = {}
    for j, code in enumerate(checks):
        if not failed[:, j].any():
            continue
        example = all_configs()[int(np.argmax(failed[:, j]))]
        messages[code] = next(r for r in reasons(example, hw) if r.code == code)
    counts = sorted(
        ((messages[code], int(failed[:, j].sum())) for j, code in enumerate(checks) if code in messages),
        key=lambda rc: -rc[1],
    )
    n_fail = failed.sum(axis=1)
    return SpaceSummary(
        n_configs=len(arr),
        n_launchable=int((n_fail == 0).sum()),
        reason_counts=tuple((r, n) for r, n in counts if n),
        n_by_failures={int(k): int((n_fail == k).sum()) for k in np.unique(n_fail)},
        hw=hw,
    )
