"""Vega-Lite specs for what SmolLM2 says: per-layer similarities, probes (its next-token bars are
engine.charts_text.next_token_bars).

Plain specs (dicts), like engine.charts.heatmap_spec: pages redraw them on every rerun, and
building them through Altair's objects costs tens of milliseconds each.
"""
from __future__ import annotations

import numpy as np

from engine.charts import PAIR_COLOURS, styled


@styled
def cosine_by_layer(cosines: dict[str, np.ndarray], *, title: str = "") -> dict:
    """cos(h_l(a), h_l(b)) against the layer l, one line per pair of sentences; layer 0 is the static vector."""
    names = list(cosines)
    values = [{"pair": name, "layer": layer, "cosine": float(value)}
              for name, layer_values in cosines.items() for layer, value in enumerate(layer_values)]
    last = max((len(v) for v in cosines.values()), default=1) - 1
    return {
        "title": title, "data": {"values": values}, "width": 520, "height": 260,
        "mark": {"type": "line", "point": True},
        "encoding": {
            "x": {"field": "layer", "type": "quantitative", "title": "layer (0 = the static token embedding)",
                  "scale": {"domain": [0, last]}},
            "y": {"field": "cosine", "type": "quantitative", "title": "cosine between the two contexts",
                  "scale": {"domain": [-0.2, 1.05]}},
            "color": {"field": "pair", "type": "nominal",
                      "scale": {"domain": names, "range": (PAIR_COLOURS * 3)[:len(names)]},
                      "legend": {"orient": "bottom", "title": None, "columns": 1}},
            "tooltip": [{"field": "pair", "type": "nominal"}, {"field": "layer", "type": "quantitative"},
                        {"field": "cosine", "type": "quantitative", "format": ".3f"}]},
    }


@styled
def grouped_probabilities(probabilities: dict[str, np.ndarray], labels: list[str], *, title: str = "") -> dict:
    """P(label | prompt) for two or more prompts side by side, on an axis that fits the largest value."""
    prompts = list(probabilities)
    values = [{"prompt": prompt, "token": labels[j], "probability": float(p[j]), "text": f"{p[j]:.3f}"}
              for prompt, p in probabilities.items() for j in range(len(labels))]
    colour = {"field": "prompt", "type": "nominal",
              "scale": {"domain": prompts, "range": (PAIR_COLOURS * 3)[:len(prompts)]},
              "legend": {"orient": "bottom", "title": None, "columns": 1}}
    return {
        "title": title, "data": {"values": values}, "height": 240, "width": {"step": 40},  # one bar, in half a column
        "encoding": {
            "x": {"field": "token", "type": "nominal", "sort": labels, "title": None,
                  "axis": {"labelAngle": 0}},
            "xOffset": {"field": "prompt", "type": "nominal", "sort": prompts},
            "y": {"field": "probability", "type": "quantitative", "title": "P(next token | prompt)"}},
        "layer": [
            {"mark": {"type": "bar"}, "encoding": {
                "color": colour,
                "tooltip": [{"field": "prompt", "type": "nominal"}, {"field": "token", "type": "nominal"},
                            {"field": "probability", "type": "quantitative", "format": ".4f"}]}},
            {"mark": {"type": "text", "dy": -7},
             "encoding": {"text": {"field": "text", "type": "nominal"}, "color": colour}},
        ],
    }
