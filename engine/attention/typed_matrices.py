"""Matrices typed as text: one row per line, numbers separated by spaces or commas.

A row may start with a label and a colon ("crane: 0.8, 0.1, 0.4"), which names the token.
Every mistake a student can type is a ValueError naming the row and the cell.
"""
from __future__ import annotations

import math
import re

import numpy as np

from engine import limits

_SPLIT = re.compile(r"[,\s;]+")


def parse_matrix(text: str, *, max_rows: int = limits.MAX_TOKENS, max_cols: int = limits.MAX_DIM,
                 what: str = "matrix") -> tuple[list[str], np.ndarray]:
    """Read text into (row labels, float array of shape (rows, cols)); unlabelled rows get ''."""
    if len(text) > limits.MAX_MATRIX_TEXT_CHARS:
        raise ValueError(f"The {what} text is {len(text):,} characters long; the limit is "
                         f"{limits.MAX_MATRIX_TEXT_CHARS:,}. Paste a smaller matrix.")
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"The {what} is empty: type one row per line, numbers separated by spaces or commas.")
    if len(lines) > max_rows:
        raise ValueError(f"The {what} has {len(lines)} rows; the limit is {max_rows}.")
    labels: list[str] = []
    rows: list[list[float]] = []
    for number, line in enumerate(lines, start=1):
        label, _, cells = line.rpartition(":")
        label = label.strip()
        if len(label) > limits.MAX_TOKEN_NAME_CHARS:
            raise ValueError(f"Row {number} of the {what}: the label '{label[:30]}...' is longer than "
                             f"{limits.MAX_TOKEN_NAME_CHARS} characters.")
        values = [cell for cell in _SPLIT.split(cells.strip()) if cell]
        if not values:
            raise ValueError(f"Row {number} of the {what} ({label or 'no label'}) has no numbers.")
        row = []
        for column, cell in enumerate(values, start=1):
            try:
                value = float(cell)
            except ValueError:
                raise ValueError(f"Row {number}, column {column} of the {what}: "
                                 f"'{cell[:20]}' is not a number.") from None
            if not math.isfinite(value):
                raise ValueError(f"Row {number}, column {column} of the {what} is {cell}; every entry must be a "
                                 "finite number.")
            if abs(value) > limits.MAX_ABS_VALUE:
                raise ValueError(f"Row {number}, column {column} of the {what} is {value:g}; keep entries within "
                                 f"±{limits.MAX_ABS_VALUE:g}.")
            row.append(value)
        labels.append(label)
        rows.append(row)
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        first = len(rows[0])
        bad = next(i for i, row in enumerate(rows, start=1) if len(row) != first)
        raise ValueError(f"Every row of the {what} needs the same number of entries: row 1 has {first}, "
                         f"row {bad} has {len(rows[bad - 1])}.")
    if len(rows[0]) > max_cols:
        raise ValueError(f"The {what} has {len(rows[0])} columns; the limit is {max_cols}.")
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
