"""Matrices typed as text: one row per line, numbers separated by spaces or commas.

A row may start with a label and a colon ("crane: 0.8, 0.1, 0.4"), which names the token.
Every mistake a student can type is a ValueError naming the row and the cell.
"""
from __future__ import annotations

import math
import re

import numpy as np

from engine import limits, numbers
from engine.i18n import _

_SPLIT = re.compile(r"[,\s;]+")


def parse_matrix(text: str, *, max_rows: int = limits.MAX_TOKENS, max_cols: int = limits.MAX_DIM,
                 what: str = "matrix") -> tuple[list[str], np.ndarray]:
    """Read text into (row labels, float array of shape (rows, cols)); unlabelled rows get ''."""
    if len(text) > limits.MAX_MATRIX_TEXT_CHARS:
        raise ValueError(_("The {what} text is {length} characters long; the limit is {most}. Paste a smaller "
                           "matrix.", what=what, length=numbers.grouped(len(text)),
                           most=numbers.grouped(limits.MAX_MATRIX_TEXT_CHARS)))
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        raise ValueError(_("The {what} is empty: type one row per line, numbers separated by spaces or commas.",
                           what=what))
    if len(lines) > max_rows:
        raise ValueError(_("The {what} has {rows} rows; the limit is {most}.", what=what, rows=len(lines),
                           most=max_rows))
    labels: list[str] = []
    rows: list[list[float]] = []
    for number, line in enumerate(lines, start=1):
        label, _colon, cells = line.rpartition(":")
        label = label.strip()
        if len(label) > limits.MAX_TOKEN_NAME_CHARS:
            raise ValueError(_("Row {row} of the {what}: the label '{label}...' is longer than {most} characters.",
                               row=number, what=what, label=label[:30], most=limits.MAX_TOKEN_NAME_CHARS))
        values = [cell for cell in _SPLIT.split(cells.strip()) if cell]
        if not values:
            raise ValueError(_("Row {row} of the {what} ({label}) has no numbers.", row=number, what=what,
                               label=label or _("no label")))
        row = []
        for column, cell in enumerate(values, start=1):
            try:
                value = float(cell)
            except ValueError:
                raise ValueError(_("Row {row}, column {column} of the {what}: '{cell}' is not a number.", row=number,
                                   column=column, what=what, cell=cell[:20])) from None
            if not math.isfinite(value):
                raise ValueError(_("Row {row}, column {column} of the {what} is {cell}; every entry must be a finite "
                                   "number.", row=number, column=column, what=what, cell=cell))
            if abs(value) > limits.MAX_ABS_VALUE:
                raise ValueError(_("Row {row}, column {column} of the {what} is {value}; keep entries within ±{most}.",
                                   row=number, column=column, what=what, value=numbers.localized(f"{value:g}"),
                                   most=numbers.localized(f"{limits.MAX_ABS_VALUE:g}")))
            row.append(value)
        labels.append(label)
        rows.append(row)
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        first = len(rows[0])
        bad = next(i for i, row in enumerate(rows, start=1) if len(row) != first)
        raise ValueError(_("Every row of the {what} needs the same number of entries: row 1 has {first}, row {bad} "
                           "has {count}.", what=what, first=first, bad=bad, count=len(rows[bad - 1])))
    if len(rows[0]) > max_cols:
        raise ValueError(_("The {what} has {cols} columns; the limit is {most}.", what=what, cols=len(rows[0]),
                           most=max_cols))
    return labels, np.array(rows, dtype=float)


def format_matrix(values: np.ndarray, labels: list[str] | None = None, digits: int = 3) -> str:
    """The inverse of parse_matrix: text a student can edit."""
    lines = []
    for i, row in enumerate(np.atleast_2d(values)):
        cells = ", ".join(f"{v:.{digits}g}" if abs(v) >= 1e4 else _short(v, digits) for v in row)
        prefix = f"{labels[i]}: " if labels and labels[i] else ""
        lines.append(prefix + cells)
    return "\n".join(lines)


def _short(value: float, digits: int) -> str:
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
