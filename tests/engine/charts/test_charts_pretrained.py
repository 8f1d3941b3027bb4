"""The head viewer's and SmolLM2's chart builders: valid Vega-Lite, and the data they draw."""
from __future__ import annotations

import base64
import io
import itertools
import json

import altair as alt
import numpy as np
from PIL import Image

from engine.interpret import heads
from engine.charts.bars import grouped_probabilities, next_token_bars
from engine.charts.images import model_view, thumbnail, thumbnails
from engine.charts.lines import cosine_by_layer, head_lines
from engine.charts.palette import BLUE, MASKED, ORANGE, TYPE_COLOURS, WHITE, rgb


def causal_uniform(T):
    alpha = np.tril(np.ones((T, T)))
    return alpha / alpha.sum(1, keepdims=True)


def decode(uri: str) -> np.ndarray:
    assert uri.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB"))


def test_thumbnail_pixels_follow_the_weights_against_each_rows_uniform():
    first_token = np.zeros((4, 4))
    first_token[:, 0] = 1.0
    pixels = decode(thumbnail(first_token))
    scale = pixels.shape[0] // 4
    assert pixels.shape == (4 * scale, 4 * scale, 3)
    assert tuple(pixels[0, 0]) == tuple(rgb(WHITE))               # row 0 sees one key: its 1.0 was no choice
    assert tuple(pixels[-1, 0]) == tuple(rgb(BLUE))               # 1.0 among 4 keys: the top of the scale
    assert tuple(pixels[-1, scale]) == tuple(rgb(WHITE))          # 0 among 4 keys: below uniform is not drawn
    assert tuple(pixels[0, -1]) == tuple(rgb(MASKED))             # the future: masked grey


def test_a_head_that_spreads_evenly_is_a_white_thumbnail_not_a_fading_triangle():
    pixels = decode(thumbnail(causal_uniform(6)))
    scale = pixels.shape[0] // 6
    lower = np.tril(np.ones((6, 6), bool)).repeat(scale, 0).repeat(scale, 1)
    assert (pixels[lower] == 255).all() and (pixels[~lower] == rgb(MASKED)).all()


# Machado, Oliveira & Fernandes (2009): dichromacy (severity 1) as a matrix on linear RGB
CVD = {"protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                      [-0.003882, -0.048116, 1.051998]],
       "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                        [-0.011820, 0.042940, 0.968881]],
       "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                      [0.004733, 0.691367, 0.303900]]}


def seen_as(colour: str, kind: str | None) -> np.ndarray:
    """CIE L*a*b* (D65) of the colour as a dichromat of this kind sees it (None: normal vision)."""
    c = rgb(colour) / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    if kind:
        linear = np.clip(np.array(CVD[kind]) @ linear, 0, 1)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    f = np.cbrt(np.maximum(xyz / [0.95047, 1.0, 1.08883], 0.008856))
    f = np.where(xyz / [0.95047, 1.0, 1.08883] > 0.008856, f, 7.787 * xyz / [0.95047, 1.0, 1.08883] + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_previous_token_and_induction_stay_apart_for_colour_blind_readers():
    # CIE76 distance: 2.3 is just noticeable; a type read from a small frame needs far more. Vermillion was 18
    # from orange for deuteranopes; the pair every comparison uses (BLUE / ORANGE) is over 40 for each kind.
    for kind in (None, *CVD):
        gap = np.linalg.norm(seen_as(TYPE_COLOURS["previous-token"], kind) - seen_as(TYPE_COLOURS["induction"], kind))
        assert gap > 40, (kind, gap)
        pair = np.linalg.norm(seen_as(BLUE, kind) - seen_as(ORANGE, kind))
        assert pair > 40, (kind, pair)
        # and no two head types fall closer together than a plain difference
        for a, b in itertools.combinations(TYPE_COLOURS.values(), 2):
            assert np.linalg.norm(seen_as(a, kind) - seen_as(b, kind)) > 10, (kind, a, b)


def test_model_view_keeps_the_filtered_heads_and_is_valid():
    rng = np.random.default_rng(0)
    weights = np.stack([[causal_uniform(5)] * 3] * 4)             # (4 layers, 3 heads, 5, 5)
    types = np.array([[heads.TYPES[(layer + h) % 6] for h in range(3)] for layer in range(4)], dtype=object)
    scores = {p: rng.random((4, 3)) for p in heads.PATTERNS}
    images = thumbnails(weights)
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
