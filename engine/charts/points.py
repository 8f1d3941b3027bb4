"""Scatter plots: words as points on a plane (the embedding map with its offset arrows, a homonym's
neighbours between two senses), and a model's heads placed by where they look against what they do."""
from __future__ import annotations

import numpy as np

from engine.charts.palette import BLUE, BLUISH_GREEN, GREY, GREY_74, ORANGE
from engine.charts.style import styled


@styled
def embedding_map(words: list[str], coords, *, arrows: list[tuple[str, str]] = (),
                  roles: dict[str, str] | None = None, neighbours: dict[str, str] | None = None,
                  explained=None, size: int = 520) -> dict:
    """Words as points on their PCA plane, each offset a -> b drawn as an arrow.

    Both axes span the same range, so parallel offsets look parallel. `neighbours`
    (word -> text) shows on hover.
    """
    coords = np.asarray(coords, dtype=float)
    roles = roles or {}
    neighbours = neighbours or {}
    points = [{"word": w, "x": float(x), "y": float(y), "role": roles.get(w, "other word"),
               "nearest": neighbours.get(w, "")} for w, (x, y) in zip(words, coords[:, :2])]
    centre = (coords.max(axis=0) + coords.min(axis=0)) / 2
    half = max(float(np.ptp(coords, axis=0).max()) / 2, 1e-6) * 1.18
    share = explained if explained is not None else (np.nan, np.nan)
    role_scale = {"domain": ["analogy word", "answer", "other word"], "range": [BLUE, ORANGE, GREY]}
    x, y = {"field": "x", "type": "quantitative"}, {"field": "y", "type": "quantitative"}
    layers = [
        {"data": {"values": points}, "mark": {"type": "circle", "size": 90, "opacity": 0.9}, "encoding": {
            "x": x | {"scale": {"domain": [float(centre[0] - half), float(centre[0] + half)],
                                "nice": False, "zero": False},
                      "title": f"first principal direction ({share[0]:.0%} of the spread)"},
            "y": y | {"scale": {"domain": [float(centre[1] - half), float(centre[1] + half)],
                                "nice": False, "zero": False},
                      "title": f"second principal direction ({share[1]:.0%})"},
            "color": {"field": "role", "type": "nominal", "scale": role_scale,
                      "legend": {"orient": "top", "title": None}},
            "tooltip": [{"field": "word", "type": "nominal"},
                        {"field": "nearest", "type": "nominal", "title": "nearest words"},
                        x | {"format": ".3f"}, y | {"format": ".3f"}]}},
        {"data": {"values": points}, "mark": {"type": "text", "align": "left", "dx": 7, "dy": -7},
         "encoding": {"x": x, "y": y, "text": {"field": "word", "type": "nominal"},
                      "color": {"field": "role", "type": "nominal", "scale": role_scale, "legend": None}}},
    ]
    place = {w: (float(px), float(py)) for w, (px, py) in zip(words, coords[:, :2])}
    segments = []
    barb = 0.05 * half  # arrowhead size in data units (both axes share one span)
    for number, (a, b) in enumerate(arrows):
        if a not in place or b not in place or place[a] == place[b]:
            continue
        start, end = np.array(place[a]), np.array(place[b])
        along = (end - start) / np.linalg.norm(end - start)
        across = np.array([-along[1], along[0]])
        kind = "analogy offset" if number < 2 else "other offset"
        # the shaft, then two short barbs from the tip: drawn in data units, so they follow the line
        # whatever size Streamlit gives the chart
        for tip_to in (start, end - barb * (along - 0.6 * across), end - barb * (along + 0.6 * across)):
            segments.append({"pair": f"{a} → {b}", "kind": kind, "x": float(tip_to[0]), "y": float(tip_to[1]),
                             "x2": float(end[0]), "y2": float(end[1])})
    if segments:
        layers.insert(0, {
            "data": {"values": segments}, "mark": {"type": "rule", "strokeWidth": 2, "opacity": 0.8},
            "encoding": {"x": x, "y": y, "x2": {"field": "x2"}, "y2": {"field": "y2"},
                         "tooltip": [{"field": "pair", "type": "nominal"}],
                         "color": {"field": "kind", "type": "nominal",
                                   "scale": {"domain": ["analogy offset", "other offset"], "range": [ORANGE, BLUE]},
                                   "legend": {"orient": "bottom", "title": None}}}})
    # "pad": the plot itself is size x size, so equal spans on both axes look equal
    return {"width": size, "height": size, "autosize": {"type": "pad"}, "layer": layers,
            "resolve": {"scale": {"color": "independent"}}}


@styled
def sense_scatter(words: list[str], cos_a, cos_b, *, sense_a: str, sense_b: str, anchor_a: str,
                  anchor_b: str, closest: list[str]) -> dict:
    """A homonym's neighbours placed by their cosine to one word of each sense; the diagonal splits them."""
    a, b = np.asarray(cos_a, float), np.asarray(cos_b, float)
    points = [{"word": w, "a": float(x), "b": float(y), "closer to": sense}
              for w, x, y, sense in zip(words, a, b, closest)]
    low = float(min(a.min(initial=0.0), b.min(initial=0.0), 0.0)) - 0.05
    high = float(max(a.max(initial=low), b.max(initial=low))) + 0.08
    scale = {"domain": [low, high], "nice": False}
    x = {"field": "a", "type": "quantitative", "scale": scale, "title": f"cosine with '{anchor_a}' ({sense_a})"}
    y = {"field": "b", "type": "quantitative", "scale": scale, "title": f"cosine with '{anchor_b}' ({sense_b})"}
    colour = {"field": "closer to", "type": "nominal", "scale": {"domain": [sense_a, sense_b], "range": [BLUE, ORANGE]},
              "legend": {"orient": "bottom", "title": "closer to the sense"}}
    return {
        "width": 400, "height": 400,
        "layer": [
            {"data": {"values": [{"a": low, "b": low}, {"a": high, "b": high}]},
             "mark": {"type": "line", "color": GREY, "strokeDash": [4, 4]},
             "encoding": {"x": {"field": "a", "type": "quantitative"}, "y": {"field": "b", "type": "quantitative"}}},
            {"data": {"values": points}, "mark": {"type": "circle", "size": 80}, "encoding": {
                "x": x, "y": y, "color": colour,
                "tooltip": [{"field": "word", "type": "nominal"},
                            {"field": "a", "type": "quantitative", "format": ".3f", "title": anchor_a},
                            {"field": "b", "type": "quantitative", "format": ".3f", "title": anchor_b}]}},
            {"data": {"values": points}, "mark": {"type": "text", "align": "left", "dx": 6, "dy": -6},
             "encoding": {"x": x, "y": y, "color": colour, "text": {"field": "word", "type": "nominal"}}},
        ],
    }


@styled
def attention_effect_scatter(attention, effects, *, source: str, target: str, by_attention, by_effect,
                             size: int = 380, named: int = 5) -> dict:
    """One point per head: how much the last position attends to `source` (x) against the change in
    ln P(target) when that head alone is knocked out (y). The heads of each ranking (best first) are
    coloured, the first `named` of each also named; a head in both lists is the third colour."""
    attention, effects = np.asarray(attention, dtype=float), np.asarray(effects, dtype=float)
    by_attention, by_effect = [tuple(pair) for pair in by_attention], [tuple(pair) for pair in by_effect]
    shown = set(by_attention[:named]) | set(by_effect[:named])
    by_attention, by_effect = set(by_attention), set(by_effect)
    kinds = ["looks hardest", "matters most", "both", "other heads"]
    points = []
    for layer in range(attention.shape[0]):
        for head in range(attention.shape[1]):
            pair = (layer, head)
            kind = ("both" if pair in by_attention and pair in by_effect else "looks hardest" if pair in by_attention
                    else "matters most" if pair in by_effect else "other heads")
            points.append({"head": f"L{layer}H{head}", "attention": float(attention[layer, head]),
                           "effect": float(effects[layer, head]), "kind": kind,
                           "label": f"L{layer}H{head}" if pair in shown else ""})
    colour = {"field": "kind", "type": "nominal", "scale": {"domain": kinds, "range": [BLUE, ORANGE, BLUISH_GREEN,
                                                                                       GREY_74]},
              "legend": {"orient": "bottom", "title": None, "columns": 2}}
    x = {"field": "attention", "type": "quantitative", "title": f"attention from the last token to {source!r}",
         "scale": {"domain": [0, max(float(attention.max(initial=0.0)) * 1.1, 0.05)], "nice": False}}
    y = {"field": "effect", "type": "quantitative", "title": f"change in ln P({target!r}) without the head"}
    return {
        "width": size, "height": size, "data": {"values": points},
        "layer": [
            {"mark": {"type": "circle", "size": 50, "opacity": 0.85},
             "encoding": {"x": x, "y": y, "color": colour, "order": {"field": "label", "type": "nominal"},
                          "tooltip": [{"field": "head", "type": "nominal"}, {"field": "kind", "type": "nominal"},
                                      {"field": "attention", "type": "quantitative", "format": ".3f"},
                                      {"field": "effect", "type": "quantitative", "format": ".3f",
                                       "title": y["title"]}]}},
            {"transform": [{"filter": "datum.label != ''"}],
             "mark": {"type": "text", "align": "left", "dx": 6, "dy": -6},
             "encoding": {"x": x, "y": y, "text": {"field": "label", "type": "nominal"}}},
        ],
    }
