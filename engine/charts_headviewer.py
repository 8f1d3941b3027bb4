"""Vega-Lite specs (plain dicts) for the head viewer: every head at a glance, and one head's lines between tokens.

Colours name the head types with the Okabe-Ito palette (safe for the common colour
blindnesses); the type is also written in every tooltip, so colour is never the only cue.
"""
from __future__ import annotations

import base64
import io

import numpy as np

from engine.charts import styled

from engine.heads import TYPES

TYPE_COLOURS = {
    "previous-token": "#E69F00",   # orange
    "first-token": "#0072B2",      # blue
    "self": "#009E73",             # bluish green
    "broad": "#CC79A7",            # reddish purple
    "induction": "#D55E00",        # vermillion
    "mixed": "#b3b3b3",            # grey
}
MASKED = (235, 235, 235)           # the future a causal head cannot see
THUMB_CELL = 28                    # pixels per head in the model view: 30 layers fit a 940 px column


def _hex_to_rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)


def thumbnail(alpha: np.ndarray, colour: str) -> str:
    """One head's weights as a small PNG (data URI): white for 0, the type's colour for 1.

    sqrt(weight) sets the shade, so weights of a few percent are still visible.
    """
    from PIL import Image

    alpha = np.asarray(alpha, dtype=float)
    T = alpha.shape[0]
    shade = np.sqrt(np.clip(alpha, 0, 1))[..., None]
    pixels = 255 - shade * (255 - _hex_to_rgb(colour))
    pixels[np.triu(np.ones((T, T), dtype=bool), k=1)] = MASKED
    image = Image.fromarray(pixels.round().astype(np.uint8), "RGB")
    scale = max(2, 48 // T)
    image = image.resize((T * scale, T * scale), Image.NEAREST)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def thumbnails(weights: np.ndarray, types: np.ndarray) -> list[list[str]]:
    """thumbnail(alpha[l, h], colour of its type) for every layer l and head h."""
    return [[thumbnail(weights[layer, head], TYPE_COLOURS[str(types[layer, head])])
             for head in range(weights.shape[1])] for layer in range(weights.shape[0])]


@styled
def model_view(images: list[list[str]], types: np.ndarray, scores: dict[str, np.ndarray], *,
               layers: tuple[int, int] | None = None, shown_types: list[str] | None = None,
               selected: tuple[int, int] | None = None, param: str = "head_pick") -> dict:
    """All heads as small heatmaps: layer across, head down, framed in the colour of their type.

    Clicking a head selects it (a point selection named `param` over the fields layer, head).
    Heads outside the layer range or the chosen types are left out. A plain Vega-Lite spec:
    the page redraws it on every click, and Altair's objects cost tens of ms to build.
    """
    n_layer, n_head = types.shape
    low, high = layers if layers is not None else (0, n_layer - 1)
    shown = set(shown_types) if shown_types is not None else set(TYPES)
    rows = []
    for layer in range(n_layer):
        for head in range(n_head):
            kind = str(types[layer, head])
            if low <= layer <= high and kind in shown:
                rows.append({"layer": layer, "head": head, "type": kind, "url": images[layer][head],
                             **{name: round(float(values[layer, head]), 3) for name, values in scores.items()}})
    x = {"field": "layer", "type": "ordinal", "title": "layer", "scale": {"domain": list(range(n_layer))},
         "axis": {"orient": "top", "labelAngle": 0}}
    y = {"field": "head", "type": "ordinal", "title": "head", "scale": {"domain": list(range(n_head))}}
    tooltip = [{"field": "layer", "type": "ordinal"}, {"field": "head", "type": "ordinal"},
               {"field": "type", "type": "nominal"}] + \
              [{"field": name, "type": "quantitative", "format": ".2f"} for name in scores]
    frames = {"mark": {"type": "rect", "opacity": 0.9}, "encoding": {
        "x": x, "y": y, "tooltip": tooltip,
        "color": {"field": "type", "type": "nominal",
                  "scale": {"domain": list(TYPES), "range": [TYPE_COLOURS[t] for t in TYPES]},
                  "legend": {"orient": "bottom", "title": "head type", "columns": 6}}}}
    pictures = {"mark": {"type": "image", "width": THUMB_CELL - 8, "height": THUMB_CELL - 8, "smooth": False},
                "params": [{"name": param, "select": {"type": "point", "fields": ["layer", "head"], "on": "click",
                                                      "clear": False}}],
                "encoding": {"x": x, "y": y, "url": {"field": "url", "type": "nominal"}, "tooltip": tooltip}}
    layered = [frames, pictures]
    if selected is not None:
        layered.append({"data": {"values": [{"layer": selected[0], "head": selected[1]}]},
                        "mark": {"type": "rect", "fill": None, "stroke": "black", "strokeWidth": 3},
                        "encoding": {"x": x, "y": y}})
    return {"data": {"values": rows}, "layer": layered,
            "width": {"step": THUMB_CELL}, "height": {"step": THUMB_CELL}}


@styled
def head_lines(alpha: np.ndarray, tokens: list[str], *, title: str = "", row: int = 22) -> dict:
    """BertViz-style: queries (attending) on the left, keys (attended to) on the right, one line per
    weight, its opacity the weight. Pointing at a query token keeps only its lines. A plain spec."""
    alpha = np.asarray(alpha, dtype=float)
    T = alpha.shape[0]
    labels = [token.replace("\n", "\\n") for token in tokens]
    lines = [{"query": i, "key": j, "from": labels[i], "to": labels[j], "weight": float(alpha[i, j]),
              "x": 0.0, "x2": 1.0}
             for i in range(T) for j in range(T) if alpha[i, j] > 0.005]
    words = [{"query": i, "position": i, "token": labels[i]} for i in range(T)]
    x_scale = {"domain": [-0.6, 1.6]}
    y_scale = {"domain": list(range(T))}
    rules = {
        "data": {"values": lines},
        "mark": {"type": "rule", "strokeWidth": 2.5, "color": "#1f6fb4"},
        "encoding": {
            "x": {"field": "x", "type": "quantitative", "scale": x_scale, "axis": None},
            "x2": {"field": "x2"},
            "y": {"field": "query", "type": "ordinal", "axis": None, "scale": y_scale},
            "y2": {"field": "key"},
            "opacity": {"condition": {"param": "query_hover", "field": "weight", "type": "quantitative",
                                      "scale": {"domain": [0, 1], "range": [0.05, 1]}, "legend": None},
                        "value": 0.02},
            "tooltip": [{"field": "from", "type": "nominal", "title": "query (attending)"},
                        {"field": "to", "type": "nominal", "title": "key (attended to)"},
                        {"field": "weight", "type": "quantitative", "format": ".3f"}]}}

    def column(side: float, align: str, field: str, hover: bool) -> dict:
        layer = {"data": {"values": words},
                 "mark": {"type": "text", "align": align, "dx": -4 if align == "right" else 4},
                 "encoding": {"x": {"datum": side, "type": "quantitative", "scale": x_scale},
                              "y": {"field": field, "type": "ordinal", "axis": None, "scale": y_scale},
                              "text": {"field": "token", "type": "nominal"}}}
        if hover:
            layer["params"] = [{"name": "query_hover", "select": {"type": "point", "fields": ["query"],
                                                                  "on": "pointerover", "clear": "pointerout"}}]
        return layer

    def heading(side: float, text: str) -> dict:
        # centred over its column of tokens: aligned away from the lines it ran past the chart's edge
        return {"data": {"values": [{"x": side, "text": text}]},
                "mark": {"type": "text", "align": "center", "dy": -14, "fontWeight": "bold"},
                "encoding": {"x": {"field": "x", "type": "quantitative", "scale": x_scale},
                             "y": {"value": 0}, "text": {"field": "text", "type": "nominal"}}}

    return {"title": title, "width": 380, "height": max(row * T, 120),
            "layer": [rules, column(0.0, "right", "query", True), column(1.0, "left", "position", False),
                      heading(0.0, "query (attending)"), heading(1.0, "key (attended to)")]}
