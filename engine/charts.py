"""Altair chart builders: data in, alt.Chart out. Pages draw them; nothing here touches Streamlit.

Palettes are colour-blind safe (blues, viridis; orange/blue when two things are compared),
and small matrices carry their numbers in the cells so colour is never the only cue.
"""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

PAIR_COLOURS = ["#1f6fb4", "#e08214"]  # blue / orange: safe for the common colour blindnesses
MAX_CELLS_WITH_NUMBERS = 400


def _unique(labels: list[str]) -> list[str]:
    """Axis labels must be distinct for Altair; repeat words get their position appended."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        label = str(label)
        if label in seen or labels.count(label) > 1:
            seen[label] = seen.get(label, 0) + 1
            out.append(f"{label} ({seen[label]})")
        else:
            seen[label] = 0
            out.append(label)
    return out


def heatmap(matrix, row_labels: list[str], col_labels: list[str], *, title: str = "",
            x_title: str = "key (attended to)", y_title: str = "query (attending)",
            value_name: str = "weight", scheme: str = "blues", digits: int = 3,
            domain: tuple[float, float] | None = None, cell: int = 46) -> alt.Chart:
    """A labelled heatmap, rows top to bottom as in the matrix, numbers printed in each cell."""
    values = np.asarray(matrix, dtype=float)
    rows, cols = _unique(list(row_labels)), _unique(list(col_labels))
    frame = pd.DataFrame([(rows[i], cols[j], values[i, j], i, j)
                          for i in range(values.shape[0]) for j in range(values.shape[1])],
                         columns=["row", "col", value_name, "i", "j"])
    frame["text"] = [("" if not np.isfinite(v) else f"{v:.{digits}f}") for v in frame[value_name]]
    scale = alt.Scale(scheme=scheme, domain=list(domain)) if domain else alt.Scale(scheme=scheme)
    base = alt.Chart(frame).encode(
        x=alt.X("col:N", sort=cols, title=x_title, axis=alt.Axis(labelAngle=-40, orient="top")),
        y=alt.Y("row:N", sort=rows, title=y_title),
    )
    rects = base.mark_rect(stroke="white").encode(
        color=alt.Color(f"{value_name}:Q", scale=scale, legend=alt.Legend(title=value_name)),
        tooltip=[alt.Tooltip("row:N", title=y_title), alt.Tooltip("col:N", title=x_title),
                 alt.Tooltip(f"{value_name}:Q", format=f".{digits}f")],
    )
    layers = rects
    if values.size <= MAX_CELLS_WITH_NUMBERS:
        finite = values[np.isfinite(values)]
        middle = (finite.min() + finite.max()) / 2 if finite.size else 0.0
        if domain:
            middle = sum(domain) / 2
        # ink colour as data (not alt.condition, which costs a schema validation per chart)
        frame["ink"] = np.where(frame[value_name] > middle, "white", "black")
        # an explicit black/white scale: Streamlit's frontend draws nothing at all for `scale=None` here
        ink = alt.Scale(domain=["black", "white"], range=["black", "white"])
        text = base.mark_text(fontSize=12).encode(text="text:N", color=alt.Color("ink:N", scale=ink, legend=None))
        layers = rects + text
    return layers.properties(title=title, width=alt.Step(cell), height=alt.Step(cell))


def compare_bars(weights: dict[str, np.ndarray], labels: list[str], *, title: str = "",
                 value_title: str = "weight on each token") -> alt.Chart:
    """Side-by-side bars of two (or more) weight vectors over the same tokens."""
    tokens = _unique(list(labels))
    frame = pd.DataFrame([(method, tokens[j], float(w[j]), f"{w[j]:.3f}")
                          for method, w in weights.items() for j in range(len(tokens))],
                         columns=["method", "token", "weight", "text"])
    methods = list(weights)
    colour = alt.Color("method:N", scale=alt.Scale(domain=methods, range=(PAIR_COLOURS * 3)[:len(methods)]),
                       legend=alt.Legend(orient="bottom", title=None))
    base = alt.Chart(frame).encode(
        x=alt.X("token:N", sort=tokens, title=None, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("method:N", sort=methods),
        y=alt.Y("weight:Q", title=value_title, scale=alt.Scale(domain=[0, 1])),
    )
    bars = base.mark_bar().encode(color=colour, tooltip=["method", "token", alt.Tooltip("weight:Q", format=".3f")])
    text = base.mark_text(dy=-7, fontSize=11).encode(text="text:N", color=colour)
    return (bars + text).properties(title=title, height=260)
