"""The head viewer's and SmolLM2's chart builders: valid Vega-Lite, and the data they draw."""
from __future__ import annotations

import base64
import io
import json

import altair as alt
import numpy as np
from PIL import Image

from engine import heads
from engine.charts.bars import grouped_probabilities, next_token_bars
from engine.charts.images import model_view, thumbnail, thumbnails
from engine.charts.lines import cosine_by_layer, head_lines
from engine.charts.palette import MASKED, TYPE_COLOURS


def causal_uniform(T):
    alpha = np.tril(np.ones((T, T)))
    return alpha / alpha.sum(1, keepdims=True)


def decode(uri: str) -> np.ndarray:
    assert uri.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB"))


def test_thumbnail_pixels_follow_the_weights():
    alpha = np.eye(4)
    pixels = decode(thumbnail(alpha, TYPE_COLOURS["self"]))
    scale = pixels.shape[0] // 4
    assert pixels.shape == (4 * scale, 4 * scale, 3)
    assert tuple(pixels[0, 0]) == (0x00, 0x9E, 0x73)              # weight 1: the type's colour
    assert tuple(pixels[-1, 0]) == (255, 255, 255)                # weight 0 in the past: white
    assert tuple(pixels[0, -1]) == MASKED                         # the future: masked grey


def test_model_view_keeps_the_filtered_heads_and_is_valid():
    rng = np.random.default_rng(0)
    weights = np.stack([[causal_uniform(5)] * 3] * 4)             # (4 layers, 3 heads, 5, 5)
    types = np.array([[heads.TYPES[(layer + h) % 6] for h in range(3)] for layer in range(4)], dtype=object)
    scores = {p: rng.random((4, 3)) for p in heads.PATTERNS}
    images = thumbnails(weights, types)
    spec = model_view(images, types, scores, layers=(1, 2), shown_types=["broad", "self"], selected=(1, 1))
    alt.LayerChart.from_dict(spec)                                # valid Vega-Lite
    rows = spec["data"]["values"]
    shown = {(row["layer"], row["head"]) for row in rows}
    assert shown == {(layer, h) for layer in (1, 2) for h in range(3) if types[layer, h] in ("broad", "self")}
    assert "head_pick" in json.dumps(spec)


def test_head_lines_draw_one_line_per_visible_weight():
    alpha = causal_uniform(4)
    spec = head_lines(alpha, ["a", "b", "c", "d"])
    alt.LayerChart.from_dict(spec)
    lines = spec["layer"][0]["data"]["values"]
    assert len(lines) == 10                                        # the lower triangle of a 4 x 4
    assert "query (attending)" in json.dumps(spec) and "key (attended to)" in json.dumps(spec)


def test_small_builders_are_valid():
    bars = next_token_bars({"SmolLM2": [(" lamb", 0.2), (" bit", 0.1), (" lamb", 0.05)]})
    alt.LayerChart.from_dict(bars)
    assert [row["token"] for row in bars["data"]["values"]] == ["\u2423lamb (1)", "\u2423bit", "\u2423lamb (2)"]
    alt.Chart.from_dict(cosine_by_layer({"crane": np.linspace(1, 0.5, 31), "bank": np.ones(31)}))
    alt.LayerChart.from_dict(grouped_probabilities({"A": np.array([0.1, 0.2, 0.3]), "B": np.array([0.3, 0.2, 0.1])},
                                                   ["he", "she", "they"]))


def test_head_lines_draw_a_line_break_as_every_chart_does():
    """One way to draw a token everywhere (engine.charts.style.visible): '↵', not the escape '\\n'."""
    spec = head_lines(causal_uniform(3), ["ROMEO", ":", "\n"])
    lines = spec["layer"][0]["data"]["values"]
    assert {row["to"] for row in lines if row["key"] == 2} == {"\u21b5"}
    assert "\\\\n" not in json.dumps(spec)
