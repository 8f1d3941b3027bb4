"""Chart builders: data in, a Vega-Lite spec (a plain dict) out. Pages draw them; nothing here touches Streamlit.

Palettes are colour-blind safe (blues, viridis; orange/blue when two things are compared),
and small matrices carry their numbers in the cells so colour is never the only cue.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import altair as alt

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


def heatmap_spec(matrix, row_labels: list[str], col_labels: list[str], *, title: str = "",
                 x_title: str = "key (attended to)", y_title: str = "query (attending)",
                 value_name: str = "weight", scheme: str = "blues", digits: int = 3,
                 domain: tuple[float, float] | None = None, cell: int = 46,
                 max_cells_with_numbers: int = MAX_CELLS_WITH_NUMBERS) -> dict:
    """A labelled heatmap as a Vega-Lite spec: rows top to bottom as in the matrix, numbers in each cell.

    Written as a plain spec because pages redraw it on every edit: building the same chart
    through Altair's objects costs tens of milliseconds, this costs well under one.
    """
    values = np.asarray(matrix, dtype=float)
    rows, cols = _unique(list(row_labels)), _unique(list(col_labels))
    finite = values[np.isfinite(values)]
    middle = sum(domain) / 2 if domain else ((finite.min() + finite.max()) / 2 if finite.size else 0.0)
    records = []
    for i, row in enumerate(rows):
        for j, col in enumerate(cols):
            v = float(values[i, j])
            ok = np.isfinite(v)
            records.append({"row": row, "col": col, value_name: v if ok else None, "i": i, "j": j,
                            "text": f"{v:.{digits}f}" if ok else "", "ink": "white" if ok and v > middle else "black"})
    scale = {"scheme": scheme} | ({"domain": list(domain)} if domain else {})
    layers = [{
        "mark": {"type": "rect", "stroke": "white"},
        "encoding": {
            "color": {"field": value_name, "type": "quantitative", "scale": scale, "legend": {"title": value_name}},
            "tooltip": [{"field": "row", "type": "nominal", "title": y_title},
                        {"field": "col", "type": "nominal", "title": x_title},
                        {"field": value_name, "type": "quantitative", "format": f".{digits}f"}],
        },
    }]
    if values.size <= max_cells_with_numbers:
        # an explicit black/white scale: Streamlit's frontend draws nothing at all for scale=None here
        layers.append({"mark": {"type": "text", "fontSize": 12}, "encoding": {
            "text": {"field": "text", "type": "nominal"},
            "color": {"field": "ink", "type": "nominal", "legend": None,
                      "scale": {"domain": ["black", "white"], "range": ["black", "white"]}}}})
    return {
        "title": title, "data": {"values": records},
        "width": {"step": cell}, "height": {"step": cell},
        "encoding": {
            "x": {"field": "col", "type": "nominal", "sort": cols, "title": x_title,
                  "axis": {"labelAngle": -40, "orient": "top"}},
            "y": {"field": "row", "type": "nominal", "sort": rows, "title": y_title},
        },
        "layer": layers,
    }


def heatmap(matrix, row_labels: list[str], col_labels: list[str], **options) -> alt.LayerChart:
    """heatmap_spec as an Altair chart, for callers that compose or hand on Altair objects (Gradio)."""
    import altair as alt  # only here: the Streamlit pages draw plain specs and never load Altair

    return alt.LayerChart.from_dict(heatmap_spec(matrix, row_labels, col_labels, **options), validate=False)


def compare_bars(weights: dict[str, np.ndarray], labels: list[str], *, title: str = "",
                 value_title: str = "weight on each token") -> dict:
    """Side-by-side bars of two (or more) weight vectors over the same tokens, as a Vega-Lite spec."""
    tokens = _unique(list(labels))
    methods = list(weights)
    records = [{"method": method, "token": tokens[j], "weight": float(w[j]), "text": f"{w[j]:.3f}"}
               for method, w in weights.items() for j in range(len(tokens))]
    colour = {"field": "method", "type": "nominal", "legend": {"orient": "bottom", "title": None},
              "scale": {"domain": methods, "range": (PAIR_COLOURS * 3)[:len(methods)]}}
    return {
        "title": title, "height": 260, "data": {"values": records},
        "encoding": {
            "x": {"field": "token", "type": "nominal", "sort": tokens, "title": None, "axis": {"labelAngle": 0}},
            "xOffset": {"field": "method", "type": "nominal", "sort": methods},
            "y": {"field": "weight", "type": "quantitative", "title": value_title, "scale": {"domain": [0, 1]}},
        },
        "layer": [
            {"mark": "bar", "encoding": {"color": colour, "tooltip": [
                {"field": "method"}, {"field": "token"}, {"field": "weight", "type": "quantitative", "format": ".3f"}]}},
            {"mark": {"type": "text", "dy": -7, "fontSize": 11}, "encoding": {"text": {"field": "text"}, "color": colour}},
        ],
    }
