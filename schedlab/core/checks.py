"""Argument checks shared by every module: one place that says what counts as an integer or a number.

A ``bool`` is an ``int`` to Python but never a count, a size or a factor here, so each check
refuses it; numpy's integer and floating scalars are accepted. Every error is a ``ValueError``
that names the argument and repeats what it got.

Examples
--------
>>> check_int("k", 3, minimum=1), check_number("noise", 0.03, minimum=0, maximum=1)
(3, 0.03)
>>> check_int("k", True, minimum=1)
Traceback (most recent call last):
...
ValueError: k must be a positive integer, got True
>>> check_number("factor", float("inf"), minimum=1)
Traceback (most recent call last):
...
ValueError: factor must be a finite number >= 1, got inf
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

__all__ = ["is_integer", "is_number", "is_finite_number", "check_int", "check_number", "check_real", "check_sequence"]


def is_integer(value) -> bool:
    """Whether ``value`` is an integer (Python or numpy) and not a ``bool``."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and type(value).__name__ != "bool_"


def is_number(value) -> bool:
    """Whether ``value`` is a real number (Python or numpy, integer or floating) and not a ``bool``."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and type(value).__name__ != "bool_"


def is_finite_number(value) -> bool:
    """Whether ``value`` is a real number (:func:`is_number`) that is finite as a float: an integer too
    large for a float (``10**400``, which ``math.isfinite`` cannot take) is not.

    Examples
    --------
    >>> is_finite_number(2), is_finite_number(float("nan")), is_finite_number(10**400), is_finite_number(True)
    (True, False, False, False)
    """
    if not is_number(value):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _bounds(minimum, maximum) -> str:
    if minimum is not None and maximum is not None:
        return f" in [{minimum:g}, {maximum:g}]"
    if minimum is not None:
        return f" >= {minimum:g}"
    if maximum is not None:
        return f" <= {maximum:g}"
    return ""


def check_int(name: str, value, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an ``int`` if it is an integer in ``[minimum, maximum]``; else a ``ValueError`` naming ``name``.

    Examples
    --------
    >>> check_int("seed", 0, minimum=0)
    0
    >>> check_int("n", 2.0, minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: n must be a positive integer, got 2.0
    """
    if not is_integer(value) or (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        if minimum == 1 and maximum is None:
            what = "a positive integer"
        elif minimum == 0 and maximum is None:
            what = "a non-negative integer"
        else:
            what = "an integer" + _bounds(minimum, maximum)
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return int(value)


def check_number(name: str, value, minimum: float | None = None, maximum: float | None = None) -> float:
    """``value`` as a ``float`` if it is a finite real number in ``[minimum, maximum]``; else a ``ValueError``.

    Examples
    --------
    >>> check_number("sigma", 1, minimum=0, maximum=1)
    1.0
    >>> check_number("alpha", -1.0, minimum=0)
    Traceback (most recent call last):
    ...
    ValueError: alpha must be a finite number >= 0, got -1.0
    >>> check_number("noise", 10**400)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: noise must be a finite number, got 1000...
    """
    if (
        not is_finite_number(value)
        or (minimum is not None and value < minimum)
        or (maximum is not None and value > maximum)
    ):
        raise ValueError(f"{name} must be a finite number{_bounds(minimum, maximum)}, got {value!r}")
    return float(value)


def check_real(x, what: str) -> float:
    """``x`` as a float, ``inf`` and NaN included (a table shows them as missing); a ``ValueError`` naming
    ``what`` unless it is a real number (bool is not).

    Examples
    --------
    >>> check_real(3, "ratio"), check_real(float("inf"), "ratio")
    (3.0, inf)
    """
    if not is_number(x):
        raise ValueError(f"{what} must be a real number, got {x!r} ({type(x).__name__})")
    return float(x)


def check_sequence(value, name: str, what: str) -> tuple:
    """``value`` as a tuple when it is an iterable (not a string); otherwise a TypeError naming ``name``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence of {what}, got {value!r} ({type(value).__name__})")
    return tuple(value)
