"""Numbers as a page prints them, and numbers worked out from printed numbers.

What a student can recompute from the figures on a page comes out as printed. A sum, a difference
or a logarithm of shown numbers is therefore either worked from the numbers as shown (`worked`),
or its operands are printed with enough digits that the exact result and the result recomputed
from them round alike (`enough_digits`). Zero never prints as "-0.00" (`fixed`).

Every front end formats through here: the Streamlit pages, the Gradio tabs and the engine's own
sentences (`engine.transformer.ladder`, ...).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

MOST_DIGITS = 8   # enough_digits never asks for more decimals than this


def fixed(value: float, digits: int = 3) -> str:
    """`value` with `digits` decimals, as a page prints it: never "-0.000", and nan and inf spelled out."""
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def shown(value, digits: int = 3):
    """The number a student reads off the page: `value` (a number or an array) rounded as `fixed` prints it."""
    if np.ndim(value) == 0:
        return float(fixed(value, digits))
    return np.array([float(fixed(v, digits)) for v in np.ravel(value)]).reshape(np.shape(value))


def worked(fn: Callable, *operands, digits: int = 3):
    """fn applied to the operands as shown with `digits` decimals: what a student with a calculator gets."""
    return fn(*(shown(operand, digits) for operand in operands))


def enough_digits(fn: Callable, *operands, least: int = 3, result_digits: int | None = None,
                  most: int = MOST_DIGITS) -> int:
    """The fewest decimals (at least `least`) for the operands such that fn of the operands as shown, and fn of
    the exact operands, print alike with `result_digits` decimals (None: as many as the operands). fn may return
    a number or an array (every element must agree). Gives `most` where no count up to it is enough."""
    exact = np.ravel(fn(*operands))
    for digits in range(least, most + 1):
        places = digits if result_digits is None else result_digits
        recomputed = np.ravel(worked(fn, *operands, digits=digits))
        if all(fixed(a, places) == fixed(b, places) for a, b in zip(exact, recomputed)):
            return digits
    return most


SIGNIFICANT_FORMAT = ".3g"   # d3's format of `significant`, for a chart's tooltip


def significant(value: float) -> str:
    """A size that can be anything from 1e-17 to 10, to three significant digits (5.55e-17, 0.749, 2.4): one way
    of writing it wherever it appears (a table, a bar's label, a tooltip with SIGNIFICANT_FORMAT); 0 as 0."""
    value = float(value)
    return "0" if value == 0 else f"{value:.3g}"


TINY = 1e-4   # below this, a set of sizes shown together is rounding noise, written in exponent form


def alike(values, digits: int = 3) -> list[str]:
    """Numbers shown together (one chart's labels, one table's column) written one way: as many decimals as give the
    largest `digits` significant digits (0.749 with 0.170, 0.375, 0.044: not 0.17, 0.375, 0.0443), or, where even the
    largest is below TINY (rounding, 5.55e-17), every one in exponent form; an exact 0 as 0."""
    values = [float(v) for v in values]
    largest = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
    if largest == 0:
        return [fixed(v, 0) if v == 0 else fixed(v) for v in values]
    if largest < TINY:
        return ["0" if v == 0 else f"{v:.{digits - 1}e}" for v in values]
    decimals = max(0, digits - 1 - math.floor(math.log10(largest)))
    return [fixed(v, decimals) for v in values]
