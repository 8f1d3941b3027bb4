"""Scatter plots: words as points on a plane (the embedding map with its offset arrows, a homonym's
neighbours between two senses), and a model's heads placed by where they look against what they do."""
from __future__ import annotations

import numpy as np

from engine.i18n import _
from engine.numbers import localized
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
    # the legend's entries in the reader's language (callers name a word's role in English: "analogy word", "answer")
    role_names = {"analogy word": _("analogy word"), "answer": _("answer"), "other word": _("other word")}
    offset_names = {"analogy offset": _("analogy offset"), "other offset": _("other offset")}
    points = [{"word": w, "x": float(x), "y": float(y),
               "role": role_names.get(roles.get(w, "other word"), roles.get(w, "other word")),
               "nearest": neighbours.get(w, "")} for w, (x, y) in zip(words, coords[:, :2])]
    centre = (coords.max(axis=0) + coords.min(axis=0)) / 2
    half = max(float(np.ptp(coords, axis=0).max()) / 2, 1e-6) * 1.18
    share = explained if explained is not None else (np.nan, np.nan)
    role_scale = {"domain": list(role_names.values()), "range": [BLUE, ORANGE, GREY]}
    x, y = {"field": "x", "type": "quantitative"}, {"field": "y", "type": "quantitative"}
    layers = [
        {"data": {"values": points}, "mark": {"type": "circle", "size": 90, "opacity": 0.9}, "encoding": {
            "x": x | {"scale": {"domain": [float(centre[0] - half), float(centre[0] + half)],
                                "nice": False, "zero": False},
                      "title": _("first principal direction ({share} of the spread)",
                          share=localized(f"{share[0]:.0%}"))},
            "y": y | {"scale": {"domain": [float(centre[1] - half), float(centre[1] + half)],
                                "nice": False, "zero": False},
                      "title": _("second principal direction ({share})", share=localized(f"{share[1]:.0%}"))},
            "color": {"field": "role", "type": "nominal", "scale": role_scale,
                      "legend": {"orient": "top", "title": None}},
            "tooltip": [{"field": "word", "type": "nominal"},
                        {"field": "nearest", "type": "nominal", "title": _("nearest words")},
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
        kind = offset_names["analogy offset" if number < 2 else "other offset"]
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
                                   "scale": {"domain": list(offset_names.values()), "range": [ORANGE, BLUE]},
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
    x = {"field": "a", "type": "quantitative", "scale": scale, "title": _("cosine with '{anchor}' ({sense})",
        anchor=anchor_a, sense=sense_a)}
    y = {"field": "b", "type": "quantitative", "scale": scale, "title": _("cosine with '{anchor}' ({sense})",
        anchor=anchor_b, sense=sense_b)}
    colour = {"field": "closer to", "type": "nominal", "scale": {"domain": [sense_a, sense_b], "range": [BLUE, ORANGE]},
              "legend": {"orient": "bottom", "title": _("closer to the sense")}}
    place_labels(points, "a", "b", (low, high), (low, high), SENSE_PLOT_PX)
    labels = [{"data": {"values": [p for p in points if p["align"] == align]},
               "mark": {"type": "text", "align": align, "baseline": "middle"},
               "encoding": {"x": {**x, "field": "label a"}, "y": {**y, "field": "label b"}, "color": colour,
                            "text": {"field": "word", "type": "nominal"}}}
              for align in ("left", "right", "center") if any(p["align"] == align for p in points)]
    return {
        "width": SENSE_PLOT_PX + 60, "height": SENSE_PLOT_PX + 60,
        "layer": [
            {"data": {"values": [{"a": low, "b": low}, {"a": high, "b": high}]},
             "mark": {"type": "line", "color": GREY, "strokeDash": [4, 4]},
             "encoding": {"x": {"field": "a", "type": "quantitative"}, "y": {"field": "b", "type": "quantitative"}}},
            {"data": {"values": points}, "mark": {"type": "circle", "size": 80}, "encoding": {
                "x": x, "y": y, "color": colour,
                "tooltip": [{"field": "word", "type": "nominal"},
                            {"field": "a", "type": "quantitative", "format": ".3f", "title": anchor_a},
                            {"field": "b", "type": "quantitative", "format": ".3f", "title": anchor_b}]}},
            *labels,
        ],
    }


SENSE_PLOT_PX = 420          # sense_scatter's plot, 480 px less its axes: where place_labels counts pixels
LABEL_FONT_PX = 16           # label boxes are counted at projector mode's chart text (the larger of the two)
# where a label may sit around its point, in pixels (right, up) and its alignment: first the usual up-right
LABEL_SPOTS = [(7, 8, "left"), (7, -8, "left"), (-7, 8, "right"), (-7, -8, "right"), (0, 16, "center"),
               (0, -16, "center"), (12, 0, "left"), (-12, 0, "right"), (7, 24, "left"), (-7, -24, "right"),
               (7, -24, "left"), (-7, 24, "right"), (0, 32, "center"), (0, -32, "center"), (7, 40, "left"),
               (-7, -40, "right"), (7, -40, "left"), (-7, 40, "right")]


def place_labels(points: list[dict], x_field: str, y_field: str, x_domain: tuple[float, float],
                 y_domain: tuple[float, float], plot_px: int) -> None:
    """Give each point a label position ('label <x_field>', 'label <y_field>', 'align') where its text overlaps
    no other label and no point, and stays inside the plot: the first free spot of LABEL_SPOTS; where none is
    free, align 'none' (not printed). Greedy, points from the middle outwards; boxes estimated at LABEL_FONT_PX."""
    def to_px(value: float, domain: tuple[float, float]) -> float:
        return (value - domain[0]) / (domain[1] - domain[0]) * plot_px

    centres = [(to_px(p[x_field], x_domain), to_px(p[y_field], y_domain)) for p in points]
    placed: list[tuple[float, float, float, float]] = []
    dots = [(cx - 5, cy - 5, cx + 5, cy + 5) for cx, cy in centres]

    def overlap(a, b) -> float:
        width = min(a[2], b[2]) - max(a[0], b[0])
        height = min(a[3], b[3]) - max(a[1], b[1])
        return width * height if width > 0 and height > 0 else 0.0

    middle = plot_px / 2
    order = sorted(range(len(points)), key=lambda i: (centres[i][0] - middle) ** 2 + (centres[i][1] - middle) ** 2)
    for i in order:
        cx, cy = centres[i]
        width, height = 0.55 * LABEL_FONT_PX * len(points[i]["word"]) + 2, LABEL_FONT_PX + 2
        best = None
        for dx, dy, align in LABEL_SPOTS:
            left = cx + dx - {"left": 0, "right": width, "center": width / 2}[align]
            box = (left, cy + dy - height / 2, left + width, cy + dy + height / 2)
            clash = sum(overlap(box, other) for other in placed) + sum(overlap(box, dot) for dot in dots)
            outside = max(0.0, -box[0]) + max(0.0, box[2] - plot_px) + max(0.0, -box[1]) + max(0.0, box[3] - plot_px)
            cost = clash + 50 * outside
            if cost == 0:
                best = (cost, dx, dy, align, box)
                break
            best = best or (cost, dx, dy, align, box)
        cost, dx, dy, align, box = best
        if cost > 0:    # no free spot: the word stays in its tooltip and the Data table, not printed over another
            points[i]["align"] = "none"
            continue
        placed.append(box)
        points[i]["label " + x_field] = points[i][x_field] + dx / plot_px * (x_domain[1] - x_domain[0])
        points[i]["label " + y_field] = points[i][y_field] + dy / plot_px * (y_domain[1] - y_domain[0])
        points[i]["align"] = align


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
    names = {"looks hardest": _("looks hardest"), "matters most": _("matters most"), "both": _("both"),
             "other heads": _("other heads")}     # the legend's entries, in the reader's language
    kinds = list(names.values())
    points = []
    for layer in range(attention.shape[0]):
        for head in range(attention.shape[1]):
            pair = (layer, head)
            kind = ("both" if pair in by_attention and pair in by_effect else "looks hardest" if pair in by_attention
                    else "matters most" if pair in by_effect else "other heads")
            points.append({"head": f"L{layer}H{head}", "attention": float(attention[layer, head]),
                           "effect": float(effects[layer, head]), "kind": names[kind],
                           "label": f"L{layer}H{head}" if pair in shown else ""})
    colour = {"field": "kind", "type": "nominal", "scale": {"domain": kinds, "range": [BLUE, ORANGE, BLUISH_GREEN,
                                                                                       GREY_74]},
              "legend": {"orient": "bottom", "title": None, "columns": 2}}
    x = {"field": "attention", "type": "quantitative", "title": _("attention from the last token to {source}",
        source=repr(source)),
         "scale": {"domain": [0, max(float(attention.max(initial=0.0)) * 1.1, 0.05)], "nice": False}}
    y = {"field": "effect", "type": "quantitative", "title": _("change in ln P({target}) without the head",
        target=repr(target))}
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
