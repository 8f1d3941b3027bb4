"""Vega-Lite specs for the text pages (tokens, n-grams): data in, a plain spec (dict) out.

Plain specs, like engine.charts.heatmap_spec: pages redraw them on every rerun, and building
the same charts through Altair's objects cost tens of milliseconds each. Validated against the
Vega-Lite schema in tests/engine/test_charts_text.py.

Colour-blind-safe: blues / viridis for magnitudes, the blue / orange pair (and Okabe-Ito
beyond two) for categories; every colour also has a label or a tooltip.
"""
from __future__ import annotations

import math

from engine.charts import PAIR_COLOURS, styled, unique_labels, value_scale

# Okabe & Ito's palette, blue and orange first: distinguishable with the common colour blindnesses.
CATEGORY_COLOURS = PAIR_COLOURS + ["#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000"]
SAMPLED = "after temperature and top-k"   # the field of a next-token bar's tick


def visible(token: str) -> str:
    """A token as a label: spaces as '␣', line breaks as '↵', tabs as '⇥'."""
    return token.replace(" ", "\u2423").replace("\n", "\u21b5").replace("\t", "\u21e5") or "(empty)"


@styled
def next_token_bars(distributions: dict[str, list[tuple]], *, title: str = "", width: int = 360) -> dict:
    """P(next token) as horizontal bars, the most likely on top, each probability printed beside its bar.

    distributions: name -> [(token, p), ...], most likely first; or [(token, p, q), ...] where q is the
    probability after temperature and top-k (what is actually sampled), drawn as an orange tick on a blue
    bar. Tokens are shown with visible(), repeats kept apart (unique_labels). One distribution is one chart
    (its name the title when no title is given); several are panels side by side, each named above it with
    its own tokens (without ticks each in its own colour). The probability axis ends just above the
    largest value, bar or tick, not at 1."""
    names = list(distributions)
    values = []
    for name, top in distributions.items():
        labels = unique_labels([visible(entry[0]) for entry in top])
        for rank, (label, (_, p, *after)) in enumerate(zip(labels, top)):
            row = {"model": name, "token": label, "rank": rank, "probability": float(p), "text": f"{p:.3f}"}
            if after:  # the number sits right of the bar and of the tick
                row |= {SAMPLED: float(after[0]), "label at": max(float(p), float(after[0]))}
            values.append(row)
    sampled = any(SAMPLED in row for row in values)
    largest = max([0.0] + [max(row["probability"], row.get(SAMPLED, 0.0)) for row in values])
    x = {"field": "probability", "type": "quantitative", "title": "P(next token | context)",
         "scale": value_scale(largest, headroom=1.25, cap=1.0)}
    y = {"field": "token", "type": "nominal", "sort": {"field": "rank"}, "title": None}
    if sampled:  # orange is the tick's
        colour = {"value": CATEGORY_COLOURS[0]}
    else:
        colour = {"field": "model", "type": "nominal",
                  "scale": {"domain": names, "range": CATEGORY_COLOURS[:len(names)]},
                  "legend": {"orient": "bottom", "title": None} if len(names) > 1 else None}
    tooltip = [{"field": "model", "type": "nominal"}, {"field": "token", "type": "nominal"},
               {"field": "probability", "type": "quantitative", "format": ".4f"}]
    layers = [{"mark": {"type": "bar"}, "encoding": {
        "x": x, "y": y, "color": colour,
        "tooltip": tooltip + ([{"field": SAMPLED, "type": "quantitative", "format": ".4f"}] if sampled else [])}}]
    if sampled:
        layers.append({"mark": {"type": "tick", "color": CATEGORY_COLOURS[1], "thickness": 3, "size": 14},
                       "encoding": {"x": {"field": SAMPLED, "type": "quantitative"}, "y": y}})
    layers.append({"mark": {"type": "text", "align": "left", "dx": 4}, "encoding": {
        "x": {"field": "label at", "type": "quantitative"} if sampled else x, "y": y,
        "text": {"field": "text", "type": "nominal"}}})
    layered = {"width": width, "height": {"step": 22}, "layer": layers}
    if len(names) > 1:
        return {"title": title, "data": {"values": values},
                "facet": {"column": {"field": "model", "type": "nominal", "title": None, "sort": names}},
                "spec": layered, "resolve": {"scale": {"y": "independent"}}}
    return {"title": title or (names[0] if names else ""), "data": {"values": values}} | layered


@styled
def transition_heatmap(labels: list[str], counts, probs, *, title: str = "") -> dict:
    """The bigram table: row = token a, column = next token b, colour P(b | a); hover for the count."""
    shown = [visible(label) for label in labels]
    values = [{"a": shown[i], "b": shown[j], "P(b | a)": float(probs[i][j]), "C(a b)": int(counts[i][j])}
              for i in range(len(labels)) for j in range(len(labels))]
    return {
        "title": title, "data": {"values": values}, "width": {"step": 24}, "height": {"step": 24},
        "mark": {"type": "rect", "stroke": "white", "strokeWidth": 0.5},
        "encoding": {
            "x": {"field": "b", "type": "nominal", "sort": shown, "title": "next token b",
                  "axis": {"orient": "top", "labelAngle": -45, "labelOverlap": False}},
            "y": {"field": "a", "type": "nominal", "sort": shown, "title": "token a",
                  "axis": {"labelOverlap": False}},
            "color": {"field": "P(b | a)", "type": "quantitative", "scale": {"scheme": "blues"},
                      "legend": {"title": "P(b | a)"}},
            "tooltip": [{"field": "a", "type": "nominal"}, {"field": "b", "type": "nominal"},
                        {"field": "P(b | a)", "type": "quantitative", "format": ".4f"},
                        {"field": "C(a b)", "type": "quantitative", "format": ","}],
        },
    }


@styled
def table_growth(orders: list[int], seen: list[int], possible: list[float], *, title: str = "") -> dict:
    """Distinct n-grams seen vs V^n possible, log scale: the table that cannot be filled."""
    kinds = ["possible (V^n)", "seen in the text"]
    values = [{"n": int(n), "kind": kind, "entries": float(v), "label": f"{v:.2g}" if v >= 1e5 else f"{v:,.0f}"}
              for kind, column in zip(kinds, (possible, seen)) for n, v in zip(orders, column)]
    encoding = {
        "x": {"field": "n", "type": "ordinal", "title": "n", "axis": {"labelAngle": 0}},
        "y": {"field": "entries", "type": "quantitative", "scale": {"type": "log"},
              "title": "table entries (log scale)", "axis": {"format": ".0e"}},  # one style: 1e+4 ... 1e+26
        "color": {"field": "kind", "type": "nominal", "scale": {"domain": kinds, "range": PAIR_COLOURS[::-1]},
                  "legend": {"orient": "bottom", "title": None}},
    }
    return {
        "title": title, "data": {"values": values}, "width": 420, "height": 280, "encoding": encoding,
        "layer": [
            {"mark": {"type": "line", "point": True}, "encoding": {"tooltip": [
                {"field": "n", "type": "quantitative"}, {"field": "kind", "type": "nominal"},
                {"field": "entries", "type": "quantitative", "format": ",.0f"}]}},
            # possible above its line, seen below its own: at n = 1 the two are nearly equal
            {"transform": [{"filter": {"field": "kind", "equal": kinds[0]}}],
             "mark": {"type": "text", "dy": -10}, "encoding": {"text": {"field": "label", "type": "nominal"}}},
            {"transform": [{"filter": {"field": "kind", "equal": kinds[1]}}],
             "mark": {"type": "text", "dy": 14}, "encoding": {"text": {"field": "label", "type": "nominal"}}},
        ],
    }


@styled
def held_out_lines(rows: list[tuple[int, str, float]], *, title: str = "", unit: str = "bits per token") -> dict:
    """Held-out cross-entropy per n, one line per smoothing; infinite values drawn as 'inf' above the rest."""
    finite = [v for _, _, v in rows if math.isfinite(v)]
    top = max(finite) * 1.08 if finite else 1.0
    values = [{"n": int(n), "smoothing": s, "value": float(v), "label": f"{v:.2f}"} if math.isfinite(v) else
              {"n": int(n), "smoothing": s, "value": None, "label": "inf", "at": top}
              for n, s, v in rows]
    smoothings = list(dict.fromkeys(s for _, s, _ in rows))
    encoding = {
        "x": {"field": "n", "type": "ordinal", "title": "n", "axis": {"labelAngle": 0}},
        "color": {"field": "smoothing", "type": "nominal",
                  "scale": {"domain": smoothings, "range": CATEGORY_COLOURS[:len(smoothings)]},
                  "legend": {"orient": "bottom", "title": None}},
    }
    return {
        "title": title, "data": {"values": values}, "width": 500, "height": 300, "encoding": encoding,
        "layer": [
            {"transform": [{"filter": "datum.value != null"}], "mark": {"type": "line", "point": True},
             "encoding": {
                 "y": {"field": "value", "type": "quantitative", "title": f"held-out cross-entropy ({unit})",
                       "scale": {"zero": False}},
                 "tooltip": [{"field": "n", "type": "quantitative"}, {"field": "smoothing", "type": "nominal"},
                             {"field": "value", "type": "quantitative", "format": ".3f"}]}},
            {"transform": [{"filter": "datum.value == null"}], "mark": {"type": "text", "fontWeight": "bold"},
             "encoding": {
                 "y": {"field": "at", "type": "quantitative"}, "text": {"field": "label", "type": "nominal"},
                 "tooltip": [{"field": "n", "type": "quantitative"}, {"field": "smoothing", "type": "nominal"},
                             {"field": "label", "type": "nominal", "title": "value"}]}},
        ],
    }


@styled
def tokens_vs_merges(merges: list[int], n_tokens: list[int], current: int, *, title: str = "") -> dict:
    """How many tokens the text takes as BPE learns merges; a rule marks the current step."""
    return {
        "title": title, "width": 420, "height": 220,
        "layer": [
            {"data": {"values": [{"merges": int(m), "tokens": int(t)} for m, t in zip(merges, n_tokens)]},
             "mark": {"type": "line", "point": True, "color": PAIR_COLOURS[0]},
             "encoding": {"x": {"field": "merges", "type": "quantitative", "title": "merges learned"},
                          "y": {"field": "tokens", "type": "quantitative", "title": "tokens for your text"},
                          "tooltip": [{"field": "merges", "type": "quantitative"},
                                      {"field": "tokens", "type": "quantitative"}]}},
            {"data": {"values": [{"merges": int(current)}]},
             "mark": {"type": "rule", "color": PAIR_COLOURS[1], "strokeWidth": 2},
             "encoding": {"x": {"field": "merges", "type": "quantitative"}}},
        ],
    }
