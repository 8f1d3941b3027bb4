"""Vega-Lite specs (plain dicts) for the position page: encoding tables, dot products by offset,
context comparisons.

Plain specs, like engine.charts.heatmap_spec: building these tables of thousands of cells through
Altair's objects cost tens of milliseconds each. Validated against the Vega-Lite schema in the tests.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine import limits
from engine.charts import PAIR_COLOURS, unique_labels, panel, styled

if TYPE_CHECKING:  # annotations only: the chart reads a profile's fields, nothing more
    from engine.positional import OffsetDotProducts


def _check_cells(rows: int, cols: int, what: str) -> None:
    if rows * cols > limits.MAX_CHART_CELLS:
        raise ValueError(f"A {what} of {rows} x {cols} cells is too large to draw; the limit is "
                         f"{limits.MAX_CHART_CELLS:,} cells.")


@styled
def encoding_heatmap(encoding: np.ndarray, *, title: str = "", cell: int = 9) -> dict:
    """p_t as a picture: positions down, dimensions across, -1 blue to +1 orange (sin/cos live in [-1, 1])."""
    P = np.asarray(encoding, dtype=float)
    T, d = P.shape
    _check_cells(T, d, "table")
    values = [{"position t": t, "dimension": i, "value": v}
              for t, row in enumerate(P.tolist()) for i, v in enumerate(row)]
    limit = max(1.0, float(np.abs(P).max())) if P.size else 1.0
    return {
        "title": title, "data": {"values": values}, "width": max(cell * d, 200), "height": max(cell * T, 120),
        "mark": {"type": "rect"},
        "encoding": {
            "x": {"field": "dimension", "type": "ordinal", "title": "dimension (column of p_t)",
                  "axis": {"labelAngle": 0, "values": _ticks(d)}},
            "y": {"field": "position t", "type": "ordinal", "title": "position t", "axis": {"values": _ticks(T)}},
            "color": {"field": "value", "type": "quantitative",
                      "scale": {"scheme": "blueorange", "domain": [-limit, limit]}, "legend": {"title": "p_t"}},
            "tooltip": [{"field": "position t", "type": "quantitative"}, {"field": "dimension", "type": "quantitative"},
                        {"field": "value", "type": "quantitative", "format": ".3f"}],
        },
    }


@styled
def gram_heatmap(gram: np.ndarray, *, title: str = "", cell: int = 9) -> dict:
    """p_i . p_j for every pair of positions."""
    G = np.asarray(gram, dtype=float)
    T = G.shape[0]
    _check_cells(T, T, "table of dot products")
    # Vega-Lite reads dots in a field name as nested access: the field is "dot", titled p_i . p_j
    values = [{"position i": i, "position j": j, "dot": v}
              for i, row in enumerate(G.tolist()) for j, v in enumerate(row)]
    limit = float(np.abs(G).max()) or 1.0
    return {
        "title": title, "data": {"values": values}, "width": max(cell * T, 200), "height": max(cell * T, 200),
        "mark": {"type": "rect"},
        "encoding": {
            "x": {"field": "position j", "type": "ordinal", "axis": {"labelAngle": 0, "values": _ticks(T)}},
            "y": {"field": "position i", "type": "ordinal", "axis": {"values": _ticks(T)}},
            "color": {"field": "dot", "type": "quantitative",
                      "scale": {"scheme": "blueorange", "domain": [-limit, limit]}, "legend": {"title": "p_i . p_j"}},
            "tooltip": [{"field": "position i", "type": "quantitative"},
                        {"field": "position j", "type": "quantitative"},
                        {"field": "dot", "type": "quantitative", "format": ".3f", "title": "p_i . p_j"}],
        },
    }


@styled
def offset_profile(profiles: dict[str, OffsetDotProducts], *, title: str = "") -> dict:
    """Mean p_i . p_{i+k} against the offset k, with a band from the smallest to the largest over i."""
    values = [{"encoding": name, "offset k": int(k), "mean": float(mean), "lowest": float(low), "highest": float(high)}
              for name, result in profiles.items()
              for k, mean, low, high in zip(result.offsets, result.mean, result.low, result.high)]
    names = list(profiles)
    encoding = {
        "x": {"field": "offset k", "type": "quantitative", "title": "offset k = j - i"},
        "color": {"field": "encoding", "type": "nominal",
                  "scale": {"domain": names, "range": PAIR_COLOURS[:len(names)]},
                  "legend": {"orient": "bottom", "title": None}},
    }
    return {
        "title": title, "data": {"values": values}, "height": 280, "encoding": encoding,
        "layer": [
            {"mark": {"type": "area", "opacity": 0.25},
             "encoding": {"y": {"field": "lowest", "type": "quantitative", "title": "p_i . p_(i+k)"},
                          "y2": {"field": "highest"}}},
            {"mark": {"type": "line", "point": {"size": 18}},
             "encoding": {"y": {"field": "mean", "type": "quantitative"},
                          "tooltip": [{"field": "encoding", "type": "nominal"},
                                      {"field": "offset k", "type": "quantitative"},
                                      {"field": "mean", "type": "quantitative", "format": ".3f"},
                                      {"field": "lowest", "type": "quantitative", "format": ".3f"},
                                      {"field": "highest", "type": "quantitative", "format": ".3f"}]}},
        ],
    }


@styled
def difference_bars(difference: np.ndarray, tokens: list[str], *, title: str = "") -> dict:
    """max |c_B(word) - c_A(word)| for each word of the shuffled sentence, as a Vega-Lite spec (redrawn on
    every edit, so written plainly rather than through Altair); printed, since zero bars are invisible."""
    labels = unique_labels(list(tokens))
    values = [float(v) for v in np.asarray(difference, dtype=float)]
    records = [{"word": w, "difference": v, "text": f"{v:.2g}" if v >= 1e-12 else "0"} for w, v in zip(labels, values)]
    top = max(max(values) * 1.25, 0.05)
    return {
        "title": title, "height": 240, "data": {"values": records},
        "encoding": {
            "x": {"field": "word", "type": "nominal", "sort": labels,
                  "title": "word (in the shuffled sentence's order)", "axis": {"labelAngle": 0}},
            "y": {"field": "difference", "type": "quantitative", "title": "largest change in its context vector",
                  "scale": {"domain": [0, top]}},
        },
        "layer": [
            {"mark": {"type": "bar", "color": PAIR_COLOURS[1]},
             "encoding": {"tooltip": [{"field": "word", "type": "nominal"},
                                      {"field": "difference", "type": "quantitative", "format": ".3g"}]}},
            {"mark": {"type": "text", "dy": -7}, "encoding": {"text": {"field": "text", "type": "nominal"}}},
        ],
    }


@styled
def side_by_side(*charts: dict, shared_colour: bool = False) -> dict:
    """Charts in one row drawn at the sizes they ask for; one colour scale for all when they compare like with like.

    Each chart's rows move to the top level as a named dataset (panel_0, panel_1, ...): Streamlit
    ships top-level data as Arrow, which for thousands of cells is cheaper than rows inside the spec.
    """
    datasets, panels = {}, []
    for number, chart in enumerate(charts):
        part = panel(chart)
        data = part.get("data")
        if isinstance(data, dict) and "values" in data:
            datasets[f"panel_{number}"] = data["values"]
            part["data"] = {"name": f"panel_{number}"}
        panels.append(part)
    return {"hconcat": panels, "spacing": 40, "datasets": datasets,
            "resolve": {"scale": {"color": "shared" if shared_colour else "independent"}}}


def _ticks(n: int) -> list[int]:
    """At most about 16 tick labels on an axis of n cells."""
    step = max(1, int(np.ceil(n / 16)))
    return list(range(0, n, step))
