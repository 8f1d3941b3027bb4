"""Numbers as a page prints them, and numbers worked out from printed numbers.

What a student can recompute from the figures on a page comes out as printed. A sum, a difference
or a logarithm of shown numbers is therefore either worked from the numbers as shown (`worked`),
or its operands are printed with enough digits that the exact result and the result recomputed
from them round alike (`enough_digits`). Zero never prints as "-0.00" (`fixed`).

Every front end formats through here: the Streamlit pages, the Gradio tabs and the engine's own
sentences (`engine.transformer.ladder`, ...).

Numbers follow the reader's language (engine.i18n): `fixed(0.298)` is "0,298" in Spanish and "0.298" in Chinese, in
a sentence, a table and a chart's labels alike; `latex` writes the same number for a formula ("0{,}298": KaTeX reads
a bare comma as punctuation and spaces it), `vega_locale` for a chart's own axes (Vega-Lite's `config.locale`).
Code panels, link values and what a student types keep Python's numbers (`python_fixed`): they are read back as
Python. English (and every language whose symbols are English's) goes the old way, character for character.
"""
from __future__ import annotations

import functools
import math
from typing import Callable

import numpy as np

from engine import i18n

MOST_DIGITS = 8   # enough_digits never asks for more decimals than this


def fixed(value: float, digits: int = 3) -> str:
    """`value` with `digits` decimals, as a page prints it in the reader's language: never "-0.000", and nan and
    inf spelled out."""
    return localized(python_fixed(value, digits))


def python_fixed(value: float, digits: int = 3) -> str:
    """`fixed` as Python writes it, whatever the language: for code, links and numbers read back."""
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
        return float(python_fixed(value, digits))
    return np.array([float(python_fixed(v, digits)) for v in np.ravel(value)]).reshape(np.shape(value))


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
        if all(python_fixed(a, places) == python_fixed(b, places) for a, b in zip(exact, recomputed)):
            return digits
    return most


SIGNIFICANT_FORMAT = ".3g"   # d3's format of `significant`, for a chart's tooltip


def significant(value: float) -> str:
    """A size that can be anything from 1e-17 to 10, to three significant digits (5.55e-17, 0.749, 2.4): one way
    of writing it wherever it appears (a table, a bar's label, a tooltip with SIGNIFICANT_FORMAT); 0 as 0."""
    value = float(value)
    return "0" if value == 0 else localized(f"{value:.3g}")


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
        return ["0" if v == 0 else localized(f"{v:.{digits - 1}e}") for v in values]
    decimals = max(0, digits - 1 - math.floor(math.log10(largest)))
    return [fixed(v, decimals) for v in values]


# --- the reader's language: its decimal sign, its group sign, its minus -------------------------------------------

@functools.lru_cache(maxsize=None)
def symbols(locale: str, numbering: str = "latn") -> tuple[str, str, str]:
    """(decimal sign, group sign, minus sign) of a Babel locale, in the given digits."""
    from babel import numbers as babel_numbers

    return (babel_numbers.get_decimal_symbol(locale, numbering_system=numbering),
            babel_numbers.get_group_symbol(locale, numbering_system=numbering),
            babel_numbers.get_minus_sign_symbol(locale, numbering_system=numbering))


PYTHON_SYMBOLS = (".", ",", "-")


@functools.lru_cache(maxsize=None)
def _swap(locale: str, numbering: str) -> dict | None:
    """The str.translate table from Python's symbols to the locale's; None where they are the same."""
    found = symbols(locale, numbering)
    if found == PYTHON_SYMBOLS:
        return None
    return {ord(python): local for python, local in zip(PYTHON_SYMBOLS, found)}


def _reader_swap() -> dict | None:
    if i18n.is_source():
        return None
    language = i18n.current()
    return _swap(language.locale, language.numbering)


def localized(text: str) -> str:
    """A number Python wrote ("-1,234.5", "5.55e-17") with the reader's symbols ("-1.234,5" in Spanish). Only
    number text: a sentence's own commas would be changed too."""
    table = _reader_swap()
    return text if table is None else text.translate(table)


def grouped(value: float) -> str:
    """A count or a size with its thousands grouped as the reader writes them (2,359,296; 2.359.296 in Spanish)."""
    if _reader_swap() is None:
        return f"{value:,}"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{value!r} is not a number")
    from babel.numbers import format_decimal

    language = i18n.current()
    return format_decimal(value, locale=language.locale, numbering_system=language.numbering,
                          decimal_quantization=False, group_separator=True)


def latex(value: float, digits: int = 3) -> str:
    """A number as a formula writes it (no nan or inf: ui.formula.number spells those): the reader's decimal sign,
    a comma braced ("0{,}298") so that KaTeX does not space it as punctuation; the minus is TeX's own."""
    text = python_fixed(value, digits)
    table = _reader_swap()
    if table is None:
        return text
    decimal = table.get(ord("."), ".")
    return text.replace(".", "{,}" if decimal == "," else decimal)


def latex_grouped(value: float) -> str:
    """A count as a formula writes it: grouped as the reader groups (`grouped`), each comma braced ("28{,}860") so that
    KaTeX does not space it as punctuation ("28, 860")."""
    return grouped(value).replace(",", "{,}")


def latex_significant(value: float, figures: int = 4) -> str:
    """A count or a fraction in a formula to `figures` significant figures, grouped, in the reader's signs
    ("0{,}02019" and "1.234" in Spanish); large or tiny ones as a mantissa times a power of ten."""
    if value == 0 or 1e-3 <= abs(value) < 1e6:
        text = localized(f"{value:,.{figures}g}")
        return text.replace(",", "{,}")
    mantissa, exponent = f"{value:.2e}".split("e")
    return localized(f"{float(mantissa):g}").replace(",", "{,}") + rf" \times 10^{{{int(exponent)}}}"


def vega_locale() -> dict | None:
    """The reader's number symbols as Vega-Lite's `config.locale` (d3-format's number locale: axes, legends and
    `format` strings); None for a language that writes numbers as English does."""
    if _reader_swap() is None:
        return None
    language = i18n.current()
    decimal, group, _minus = symbols(language.locale, language.numbering)
    # no "minus": d3's own (U+2212), as an English chart draws it; axes run left to right in every language
    return {"number": {"decimal": decimal, "thousands": group, "grouping": [3], "currency": ["", ""]}}


# what a printed number may carry besides Python's signs, in any of the app's languages: a direction mark (Arabic's
# minus is U+200E before "-"), d3's minus, a group sign (a comma, or a space that does not break)
NUMBER_SIGNS = str.maketrans({"\u200e": None, "\u200f": None, "\u061c": None, "\u2212": "-", ",": None,
                              "\u00a0": None, "\u202f": None})


def is_number(text: object) -> bool:
    """Whether a printed cell is a number, in any language's signs (Arabic's U+200E "-0.52", "28,860", d3's "−1")."""
    try:
        float(str(text).translate(NUMBER_SIGNS))
    except ValueError:
        return False
    return True
