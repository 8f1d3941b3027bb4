"""A validated matrix editor: a text area, parsed by the engine, the last good matrix kept."""
from __future__ import annotations

import numpy as np
import streamlit as st

from engine import limits
from engine.attention.typed_matrices import format_matrix, parse_matrix
from engine.i18n import _
from ui.page import show_error


def type_scale() -> float:
    """How much larger text is drawn in this session: projector mode's root type over Streamlit's 16 px."""
    from ui.projector import PROJECTOR_KEY, PROJECTOR_ROOT_PX

    try:
        return PROJECTOR_ROOT_PX / 16 if st.session_state.get(PROJECTOR_KEY) else 1.0
    except Exception:  # no session (a bare script)
        return 1.0


def last_good(key: str, default: np.ndarray) -> np.ndarray:
    """The last matrix that parsed in the editor `key` (the default before any did)."""
    return st.session_state.get(f"{key}__last_good", (None, np.asarray(default, float)))[1]


def matrix_editor(key: str, default: np.ndarray, *, row_labels: list[str] | None = None,
                  label: str | None = None, max_rows: int = limits.MAX_TOKENS,
                  max_cols: int = limits.MAX_DIM, height: int | None = None,
                  help: str | None = None) -> tuple[list[str], np.ndarray]:
    """Edit a matrix as text; returns (row labels, matrix).

    A typing mistake shows a sentence under the box and returns the last matrix that
    parsed, so the rest of the page keeps working on good numbers.
    """
    label = label or _("Matrix")
    good_key = f"{key}__last_good"
    st.session_state.setdefault(key, format_matrix(default, row_labels))
    lines = st.session_state[key].count("\n") + 1
    # every row in view (up to 12): 24 px a line and 40 of padding at 16 px type, scaled with projector mode's type
    rows_height = round((40 + 24 * min(max(lines, 2), 12)) * type_scale())
    text = st.text_area(label, key=key, height=height or rows_height, help=help or _(
                        "One row per line; numbers separated by spaces or commas. "
                        "Start a row with 'name:' to name its token."))
    try:
        labels, values = parse_matrix(text, max_rows=max_rows, max_cols=max_cols, what=label.split(" (")[0])
    except ValueError as error:
        show_error(_("{error} Showing the last matrix that worked.", error=str(error)))
        return st.session_state.get(good_key, (list(row_labels or [""] * len(default)), np.asarray(default, float)))
    st.session_state[good_key] = (labels, values)
    return labels, values
