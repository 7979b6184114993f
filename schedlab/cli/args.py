"""argparse types of the console edition: each parses one option and says in one line what is wrong.

Shared by :mod:`schedlab.cli.main` and :mod:`schedlab.cli.tuners`.
"""

from __future__ import annotations

import argparse

import numpy as np

from schedlab.tuning.measurer import MAX_NOISE

__all__ = ["add_shape_arguments", "positive_int", "int_up_to", "int_in", "number_in", "noise_sigma"]


def add_shape_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the positional ``M N K`` of a GEMM shape to a subcommand's ``parser`` (checked by the model)."""
    for name in ("M", "N", "K"):
        parser.add_argument(name, type=int, help=f"GEMM 的 {name}（正整数）")


def int_in(low: int, high: int):
    """An argparse type: an integer in ``[low, high]``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"不是整数 / not an integer: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"必须在 {low} … {high} 之间 / must be in {low} … {high}: {value}")
        return value

    return parse


def positive_int(text: str) -> int:
    """An argparse type: a positive integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"不是整数 / not an integer: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"必须是正整数 / must be positive: {value}")
    return value


def int_up_to(maximum: int):
    """An argparse type: a positive integer no larger than ``maximum``."""

    def parse(text: str) -> int:
        value = positive_int(text)
        if value > maximum:
            raise argparse.ArgumentTypeError(f"最大 {maximum} / at most {maximum}: {value}")
        return value

    return parse


def number_in(low: float, high: float | None = None):
    """An argparse type: a finite number ``>= low`` and, when given, ``< high``."""
    where = f"[{low:g}, {high:g})" if high is not None else f">= {low:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"不是数 / not a number: {text!r}") from None
        if not (np.isfinite(value) and value >= low and (high is None or value < high)):
            raise argparse.ArgumentTypeError(f"必须是有限的数，{where} / must be a finite number {where}: {text!r}")
        return value

    return parse


_non_negative = number_in(0.0)


def noise_sigma(text: str) -> float:
    """An argparse type: a noise sigma in ``[0, MAX_NOISE]``."""
    value = _non_negative(text)
    if value > MAX_NOISE:
        raise argparse.ArgumentTypeError(f"最大 {MAX_NOISE:g} / at most {MAX_NOISE:g}: {text!r}")
    return value
