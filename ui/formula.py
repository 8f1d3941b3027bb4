"""Formulas beside the numbers: the chapter's symbols, then the same formula filled in."""
from __future__ import annotations

import numpy as np
import streamlit as st

from engine import markup
from engine.charts import handout as paper_handout
from engine import numbers
from ui import recording


def number(value: float, digits: int = 3) -> str:
    """A number as LaTeX: rounded, with inf and nan spelled out, in the reader's decimal sign (engine.numbers.latex:
    "0{,}298" in Spanish). Every number in a formula goes through here, never engine.numbers.fixed (a prose number:
    in Arabic its minus carries a direction mark that has no place in TeX)."""
    if np.isnan(value):
        return r"\text{nan}"
    if np.isinf(value):
        return r"\infty" if value > 0 else r"-\infty"
    return numbers.latex(value, digits)   # never "-0.000"


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


def aligned_lines(latex: str) -> list[str]:
    """A formula written as one aligned block (\\begin{aligned} ... \\end{aligned}) as its lines, each on its own
    (the alignment marks & dropped); any other formula as it is. On a phone each line then breaks where it must
    (ui/shell.py lets a formula break after = or +; an aligned block is one unbreakable box)."""
    text = latex.strip()
    begin, end = r"\begin{aligned}", r"\end{aligned}"
    if not (text.startswith(begin) and text.endswith(end)) or text.count(begin) != 1:
        return [latex]
    body = text[len(begin):-len(end)]
    lines, depth, current, i = [], 0, "", 0
    while i < len(body):
        if body.startswith(r"\\", i) and depth == 0:
            lines.append(current)
            current, i = "", i + 2
            continue
        char = body[i]
        if body.startswith(r"\begin{", i) or body.startswith(r"\end{", i):
            depth += 1 if body.startswith(r"\begin{", i) else -1
        elif char == "{" and (i == 0 or body[i - 1] != "\\"):
            depth += 1
        elif char == "}" and (i == 0 or body[i - 1] != "\\"):
            depth -= 1
        if char == "&" and depth == 0 and (i == 0 or body[i - 1] != "\\"):
            i += 1
            continue
        current += char
        i += 1
    lines.append(current)
    return [line.strip() for line in lines if line.strip()]


def _draw(latex: str) -> None:
    """One formula; on a phone an aligned block line by line (aligned_lines)."""
    from ui import screen

    for line in aligned_lines(latex) if screen.layout().narrow else [latex]:
        st.latex(line)


def formula_with_numbers(formula: str, numbers: str, caption: str | None = None, *, stacked: bool = False) -> None:
    """The formula in the chapter's symbols on the left, this row's numbers on the right;
    `stacked` puts them on two full-width lines, for numbers too long to share a row."""
    if stacked:
        _draw(formula)
        _draw(numbers)
    else:
        left, right = st.columns([1, 3], vertical_alignment="center")
        with left:
            _draw(formula)
        with right:
            _draw(numbers)
    if caption:
        st.caption(caption)
    recording.add(paper_handout.Formula(formula, numbers, caption or ""))
