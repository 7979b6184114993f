"""Progress of long console commands: one tqdm bar on stderr, the same for every subcommand.

The bar is drawn on a terminal only (tqdm's ``disable=None``: a log file gets no carriage returns),
appears only for runs longer than :data:`PROGRESS_DELAY_S`, and is gone when the run ends, so stdout
holds only the tables.
"""

from __future__ import annotations

import sys

__all__ = ["PROGRESS_DELAY_S", "progress_bar", "report_to"]

#: A run shorter than this shows no progress bar (tqdm's ``delay``).
PROGRESS_DELAY_S = 1.0


def progress_bar(iterable=None, **options):
    """A tqdm bar over ``iterable`` (or updated by hand) with the console's settings; ``options`` as tqdm's."""
    from tqdm import tqdm

    return tqdm(
        iterable,
        file=sys.stderr,
        delay=PROGRESS_DELAY_S,
        leave=False,
        disable=None,
        dynamic_ncols=True,
        **options,
    )


def report_to(bar):
    """The ``progress(done, total, label)`` callback of the studies (compare, tuners) that moves ``bar``."""

    def progress(done: int, total: int, label: str) -> None:
        bar.total = total
        bar.set_postfix_str(label, refresh=False)
        bar.update(done - bar.n)

    return progress
