"""Altair builders for the head viewer: every head at a glance, and one head's lines between tokens.

Colours name the head types with the Okabe-Ito palette (safe for the common colour
blindnesses); the type is also written in every tooltip, so colour is never the only cue.
"""
from __future__ import annotations

import base64
import io

import altair as alt
import numpy as np
import pandas as pd

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
THUMB_CELL = 30                    # pixels per head in the model view


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


def model_view(images: list[list[str]], types: np.ndarray, scores: dict[str, np.ndarray], *,
               layers: tuple[int, int] | None = None, shown_types: list[str] | None = None,
               selected: tuple[int, int] | None = None, param: str = "head_pick") -> alt.LayerChart:
    """All heads as small heatmaps: layer across, head down, framed in the colour of their type.

    Clicking a head selects it (a point selection named `param` over the fields layer, head).
    Heads outside the layer range or the chosen types are left out.
    """
    n_layer, n_head = types.shape
    low, high = layers if layers is not None else (0, n_layer - 1)
    shown = set(shown_types) if shown_types is not None else set(TYPES)
    rows = []
    for layer in range(n_layer):
        for head in range(n_head):
            kind = str(types[layer, head])
            if not (low <= layer <= high and kind in shown):
                continue
            rows.append({"layer": layer, "head": head, "type": kind, "url": images[layer][head],
                         "colour": TYPE_COLOURS[kind],
                         **{name: round(float(values[layer, head]), 3) for name, values in scores.items()}})
    frame = pd.DataFrame(rows, columns=["layer", "head", "type", "url", "colour", *scores])
    x = alt.X("layer:O", title="layer", scale=alt.Scale(domain=list(range(n_layer))),
              axis=alt.Axis(orient="top", labelAngle=0))
    y = alt.Y("head:O", title="head", scale=alt.Scale(domain=list(range(n_head))))
    tooltip = ["layer:O", "head:O", "type:N"] + [alt.Tooltip(f"{name}:Q", format=".2f") for name in scores]
    frames = alt.Chart(frame).mark_rect(opacity=0.9).encode(
        x=x, y=y, color=alt.Color("type:N", scale=alt.Scale(domain=list(TYPES), range=[TYPE_COLOURS[t] for t in TYPES]),
                                  legend=alt.Legend(orient="bottom", title="head type", columns=6)),
        tooltip=tooltip)
    pick = alt.selection_point(name=param, fields=["layer", "head"], on="click", clear=False)
    pictures = alt.Chart(frame).mark_image(width=THUMB_CELL - 8, height=THUMB_CELL - 8, smooth=False).encode(
        x=x, y=y, url="url:N", tooltip=tooltip).add_params(pick)
    layered = [frames, pictures]
    if selected is not None:
        chosen = pd.DataFrame([{"layer": selected[0], "head": selected[1]}])
        layered.append(alt.Chart(chosen).mark_rect(fill=None, stroke="black", strokeWidth=3).encode(x=x, y=y))
    return alt.layer(*layered).properties(width=alt.Step(THUMB_CELL), height=alt.Step(THUMB_CELL))


def head_lines(alpha: np.ndarray, tokens: list[str], *, title: str = "", row: int = 22) -> alt.LayerChart:
    """BertViz-style: queries (attending) on the left, keys (attended to) on the right, one line per
    weight, its opacity the weight. Pointing at a query token keeps only its lines."""
    alpha = np.asarray(alpha, dtype=float)
    T = alpha.shape[0]
    labels = [token.replace("\n", "\\n") for token in tokens]
    lines = pd.DataFrame([{"query": i, "key": j, "from": labels[i], "to": labels[j], "weight": float(alpha[i, j]),
                           "x": 0.0, "x2": 1.0}
                          for i in range(T) for j in range(T) if alpha[i, j] > 0.005])
    words = pd.DataFrame([{"query": i, "position": i, "token": labels[i]} for i in range(T)])
    hover = alt.selection_point(name="query_hover", fields=["query"], on="pointerover", clear="pointerout",
                                empty=True)
    y = alt.Y("query:O", axis=None, scale=alt.Scale(domain=list(range(T))))
    x_scale = alt.Scale(domain=[-0.6, 1.6])
    rules = alt.Chart(lines).mark_rule(strokeWidth=2.5, color="#1f6fb4").encode(
        x=alt.X("x:Q", scale=x_scale, axis=None), x2="x2:Q",
        y=y, y2=alt.Y2("key:O"),
        opacity=alt.condition(hover, alt.Opacity("weight:Q", scale=alt.Scale(domain=[0, 1], range=[0.05, 1]),
                                                 legend=None), alt.value(0.02)),
        tooltip=[alt.Tooltip("from:N", title="query (attending)"), alt.Tooltip("to:N", title="key (attended to)"),
                 alt.Tooltip("weight:Q", format=".3f")])
    left = alt.Chart(words).mark_text(align="right", dx=-4, fontSize=13).encode(
        x=alt.datum(0.0, scale=x_scale), y=y, text="token:N").add_params(hover)
    right = alt.Chart(words).mark_text(align="left", dx=4, fontSize=13).encode(
        x=alt.datum(1.0, scale=x_scale), y=alt.Y("position:O", axis=None, scale=alt.Scale(domain=list(range(T)))),
        text="token:N")
    headings = alt.Chart(pd.DataFrame([{"x": 0.0, "text": "query (attending)", "align": "right"},
                                       {"x": 1.0, "text": "key (attended to)", "align": "left"}]))
    heading_left = headings.transform_filter("datum.align == 'right'").mark_text(
        align="right", dy=-14, fontWeight="bold", fontSize=13).encode(x=alt.X("x:Q", scale=x_scale), y=alt.value(0),
                                                                     text="text:N")
    heading_right = headings.transform_filter("datum.align == 'left'").mark_text(
        align="left", dy=-14, fontWeight="bold", fontSize=13).encode(x=alt.X("x:Q", scale=x_scale), y=alt.value(0),
                                                                    text="text:N")
    return alt.layer(rules, left, right, heading_left, heading_right).properties(
        title=title, width=380, height=max(row * T, 120))
