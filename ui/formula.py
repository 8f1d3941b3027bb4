"""Formulas beside the numbers: the chapter's symbols, then the same formula filled in."""
from __future__ import annotations

import numpy as np
import streamlit as st

from engine import markup
from engine.charts import handout as paper_handout
from engine.numbers import fixed
from ui import recording


def number(value: float, digits: int = 3) -> str:
    """A number as LaTeX: rounded, with inf and nan spelled out."""
    if np.isnan(value):
        return r"\text{nan}"
    if np.isinf(value):
        return r"\infty" if value > 0 else r"-\infty"
    return fixed(value, digits)   # never "-0.000"


def latex_text(label: str) -> str:
    """A token name made safe inside LaTeX \\text{...} (engine.markup.latex_text)."""
    return markup.latex_text(label)


def word(label: str) -> str:
    """A word or token placed in a formula: \\text{...} with LaTeX's special characters escaped (GloVe's words
    hold $ _ % & # \\ { } ^; 'us$' unescaped broke the Embedding page's formula). Every word in a formula goes
    through here."""
    return r"\text{" + latex_text(label) + "}"


def latex_vector(values, digits: int = 3) -> str:
    """A row vector as a LaTeX bmatrix."""
    return r"\begin{bmatrix}" + " & ".join(number(v, digits) for v in np.ravel(values)) + r"\end{bmatrix}"


def latex_matrix(values, digits: int = 3) -> str:
    """A matrix as a LaTeX bmatrix, one row per line."""
    rows = np.atleast_2d(values)
    body = r" \\ ".join(" & ".join(number(v, digits) for v in row) for row in rows)
    return r"\begin{bmatrix}" + body + r"\end{bmatrix}"


def formula_with_numbers(formula: str, numbers: str, caption: str | None = None, *, stacked: bool = False) -> None:
    """The formula in the chapter's symbols on the left, this row's numbers on the right;
    `stacked` puts them on two full-width lines, for numbers too long to share a row."""
    if stacked:
        st.latex(formula)
        st.latex(numbers)
    else:
        left, right = st.columns([1, 3], vertical_alignment="center")
        with left:
            st.latex(formula)
        with right:
            st.latex(numbers)
    if caption:
        st.caption(caption)
    recording.add(paper_handout.Formula(formula, numbers, caption or ""))
