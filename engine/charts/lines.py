"""Line charts: a value against an ordered quantity (training steps, n, merges, offsets, layers, a
token's rank per layer, loss per position, patch sizes), and the head viewer's token-to-token lines."""
from __future__ import annotations

import itertools
import json
import math
from typing import TYPE_CHECKING

import numpy as np

from engine.i18n import N_, _
from engine.numbers import grouped, localized
from engine.charts.palette import BLUE, CATEGORY_COLOURS, GREY, GREY_25, ORANGE, PAIR_COLOURS, RUN_COLOURS
from engine.charts.style import styled, visible
from engine.interpret.heads import TYPE_NAMES

if TYPE_CHECKING:  # annotations only: the chart reads a profile's fields, nothing more
    from engine.transformer.positional import OffsetDotProducts


LN2 = math.log(2)  # nats per bit
GAP = N_("loss gap (bits per character)")   # head_formation_lines: the live models read one character per token


def running_mean(values, window: int) -> list[float]:
    """The mean of each value and the up to window - 1 before it (a rolling mean that starts at once)."""
    sums = [0.0, *itertools.accumulate(float(v) for v in values)]
    return [(sums[i + 1] - sums[max(0, i + 1 - window)]) / min(i + 1, window) for i in range(len(sums) - 1)]


@styled
def loss_curves(runs: list[dict], baselines: dict[str, float], *, smooth: int = 20) -> dict:
    """Training loss (thin, smoothed) and held-out loss (thick, points) per run against steps,
    with the n-gram baselines as dashed horizontal lines, drawn in bits per character (the unit
    students compare across pages). runs: dicts with label, steps, train_loss, eval_steps,
    held_out_loss; losses and baselines come in nats (what training computes) and are divided by ln 2."""
    rows, held = [], []
    training, held_out = _("training (smoothed)"), _("held-out")   # the dashes' legend, in the reader's language
    for run in runs:
        rows += [{"run": run["label"], "loss on": training, "step": int(s), "bits per character": v / LN2}
                 for s, v in zip(run["steps"], running_mean(run["train_loss"], smooth))]
        held += [{"run": run["label"], "loss on": held_out, "step": int(s), "bits per character": float(v) / LN2}
                 for s, v in zip(run["eval_steps"], run["held_out_loss"])]
    labels = [run["label"] for run in runs]
    colour = {"field": "run", "type": "nominal",
              "scale": {"domain": labels, "range": RUN_COLOURS[:max(len(labels), 1)]},
              "legend": {"orient": "bottom", "columns": 1, "title": None, "labelLimit": 600}}
    step = {"field": "step", "type": "quantitative"}
    loss = {"field": "bits per character", "type": "quantitative"}
    layers = [
        {"data": {"values": rows + held}, "mark": {"type": "line"}, "encoding": {
            "x": step | {"title": _("training step")},
            "y": loss | {"scale": {"zero": False}},
            "color": colour,
            # above the plot: beside the runs' legend under it, it ran past the chart's width ("trainin…" at 1400)
            "strokeDash": {"field": "loss on", "type": "nominal", "sort": [held_out, training],
                           "legend": {"orient": "top", "title": None}},
            "strokeWidth": {"condition": {"test": f"datum['loss on'] === {json.dumps(held_out)}", "value": 3},
                            "value": 1.2},
            "tooltip": [{"field": "run", "type": "nominal"}, {"field": "loss on", "type": "nominal"}, step,
                        loss | {"format": ".3f"}]}},
        {"data": {"values": held}, "mark": {"type": "point", "filled": True, "size": 40},
         "encoding": {"x": step, "y": loss, "color": colour}},
    ]
    if baselines:
        right = int(max([max(run["steps"], default=1) for run in runs] + [1]))
        lines = [{"baseline": name, "bits per character": float(value) / LN2,
            "text": f"{name}: {localized(format(value / LN2, '.2f'))}",
                  "step": right} for name, value in baselines.items()]
        layers += [
            {"data": {"values": lines}, "mark": {"type": "rule", "color": GREY, "strokeDash": [3, 3]},
             "encoding": {"y": loss, "tooltip": [{"field": "text", "type": "nominal", "title": _("baseline")}]}},
            {"data": {"values": lines}, "mark": {"type": "text", "align": "right", "baseline": "bottom", "dy": -2,
                                                 "color": GREY_25},
             "encoding": {"x": step, "y": loss, "text": {"field": "text", "type": "nominal"}}},
        ]
    return {"width": 560, "height": 320, "layer": layers}


@styled
def head_formation_lines(points: list) -> dict:
    """Heads forming while a model trains (engine.interpret.interventions.HeadFormation at each evaluation): each
    head's previous-token and induction score against the step (one line per head, coloured by layer),
    and the probe's in-context loss gap (first copy minus second copy, in bits per token: a character here)."""
    rows, gaps = [], []
    previous, induction = _(TYPE_NAMES["previous-token"]), _(TYPE_NAMES["induction"])   # the panels' headers
    for point in points:
        L, h = point.induction.shape
        for layer, head in itertools.product(range(L), range(h)):
            for kind, scores in ((previous, point.previous_token), (induction, point.induction)):
                value = float(scores[layer, head])
                if not math.isnan(value):
                    rows.append({"step": point.step, "head": f"L{layer}H{head}", "layer": _("block {n}", n=layer),
                                 "score": kind, "weight": value})
        gaps.append({"step": point.step, GAP: point.loss_gap / LN2})
    layers = sorted({row["layer"] for row in rows})
    colour = {"field": "layer", "type": "nominal", "scale": {"domain": layers,
                                                             "range": CATEGORY_COLOURS[:max(len(layers), 1)]},
              "legend": {"orient": "bottom", "title": None}}
    step = {"field": "step", "type": "quantitative", "title": _("training step")}
    per_head = {"data": {"values": rows},
                "facet": {"column": {"field": "score", "type": "nominal", "title": None,
                                     "sort": [previous, induction]}},
                "spec": {"mark": {"type": "line", "point": True, "strokeWidth": 1.5},
                         "encoding": {"x": step, "y": {"field": "weight", "type": "quantitative",
                                                       "scale": {"domain": [0, 1]}, "title": _("score (weight)")},
                                      "color": colour, "detail": {"field": "head", "type": "nominal"},
                                      "tooltip": [{"field": "head", "type": "nominal"}, step,
                                                  {"field": "weight", "type": "quantitative", "format": ".3f"}]},
                         "width": 210, "height": 190}}
    gap = {"data": {"values": gaps}, "width": 210, "height": 190,
           "mark": {"type": "line", "point": {"filled": True, "color": ORANGE}, "color": ORANGE, "strokeWidth": 2.5},
           "encoding": {"x": step, "y": {"field": GAP, "type": "quantitative", "title": _(GAP)},
                        "tooltip": [step, {"field": GAP, "type": "quantitative", "format": ".2f", "title": _(GAP)}]}}
    return {"hconcat": [per_head, gap],
        "title": _("Heads forming: scores on a repeated random probe, and the loss gap")}


@styled
def held_out_lines(rows: list[tuple[int, str, float]], *, title: str = "", unit: str = N_("bits per token")) -> dict:
    """Held-out cross-entropy per n, one line per smoothing; infinite values drawn as 'inf' above the rest."""
    finite = [v for _, _, v in rows if math.isfinite(v)]
    top = max(finite) * 1.08 if finite else 1.0
    values = [{"n": int(n), "smoothing": s, "value": float(v), "label": localized(f"{v:.2f}")} if math.isfinite(v) else
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
                 "y": {"field": "value", "type": "quantitative", "title": _("held-out cross-entropy ({unit})",
                     unit=_(unit)),
                       "scale": {"zero": False}},
                 "tooltip": [{"field": "n", "type": "quantitative"}, {"field": "smoothing", "type": "nominal"},
                             {"field": "value", "type": "quantitative", "format": ".3f"}]}},
            {"transform": [{"filter": "datum.value == null"}], "mark": {"type": "text", "fontWeight": "bold"},
             "encoding": {
                 "y": {"field": "at", "type": "quantitative"}, "text": {"field": "label", "type": "nominal"},
                 "tooltip": [{"field": "n", "type": "quantitative"}, {"field": "smoothing", "type": "nominal"},
                             {"field": "label", "type": "nominal", "title": _("value")}]}},
        ],
    }


@styled
def table_growth(orders: list[int], seen: list[int], possible: list[float], *, title: str = "") -> dict:
    """Distinct n-grams seen vs V^n possible, log scale: the table that cannot be filled."""
    kinds = [_("possible (V^n)"), _("seen in the text")]   # the legend's entries, in the reader's language
    values = [{"n": int(n), "kind": kind, "entries": float(v),
               "label": localized(f"{v:.2g}" if v >= 1e5 else f"{v:,.0f}")}     # 28.860 and 2,8e+05 in Spanish
              for kind, column in zip(kinds, (possible, seen)) for n, v in zip(orders, column)]
    encoding = {
        "x": {"field": "n", "type": "ordinal", "title": "n", "axis": {"labelAngle": 0}},
        "y": {"field": "entries", "type": "quantitative", "scale": {"type": "log"},
              "title": _("table entries (log scale)"), "axis": {"format": ".0e"}},  # one style: 1e+4 ... 1e+26
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
def tokens_vs_merges(merges: list[int], n_tokens: list[int], current: int, *, title: str = "") -> dict:
    """How many tokens the text takes as BPE learns merges; a rule marks the current step."""
    return {
        "title": title, "width": 420, "height": 220,
        "layer": [
            {"data": {"values": [{"merges": int(m), "tokens": int(t)} for m, t in zip(merges, n_tokens)]},
             "mark": {"type": "line", "point": True, "color": BLUE},
             "encoding": {"x": {"field": "merges", "type": "quantitative", "title": _("merges learned")},
                          "y": {"field": "tokens", "type": "quantitative", "title": _("tokens for your text")},
                          "tooltip": [{"field": "merges", "type": "quantitative"},
                                      {"field": "tokens", "type": "quantitative"}]}},
            {"data": {"values": [{"merges": int(current)}]},
             "mark": {"type": "rule", "color": ORANGE, "strokeWidth": 2},
             "encoding": {"x": {"field": "merges", "type": "quantitative"}}},
        ],
    }


@styled
def offset_profile(profiles: dict[str, OffsetDotProducts], *, title: str = "") -> dict:
    """Mean p_i . p_{i+k} against the offset k, with a band from the smallest to the largest over i."""
    values = [{"encoding": name, "offset k": int(k), "mean": float(mean), "lowest": float(low), "highest": float(high)}
              for name, result in profiles.items()
              for k, mean, low, high in zip(result.offsets, result.mean, result.low, result.high)]
    names = list(profiles)
    encoding = {
        "x": {"field": "offset k", "type": "quantitative", "title": _("offset k = j - i")},
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
            "x": {"field": "layer", "type": "quantitative", "title": _("layer (0 = the static token embedding)"),
                  "scale": {"domain": [0, last]}},
            "y": {"field": "cosine", "type": "quantitative", "title": _("cosine between the two contexts"),
                  "scale": {"domain": [-0.2, 1.05]}},
            "color": {"field": "pair", "type": "nominal",
                      "scale": {"domain": names, "range": (PAIR_COLOURS * 3)[:len(names)]},
                      "legend": {"orient": "bottom", "title": None, "columns": 1}},
            "tooltip": [{"field": "pair", "type": "nominal"}, {"field": "layer", "type": "quantitative"},
                        {"field": "cosine", "type": "quantitative", "format": ".3f"}]},
    }


@styled
def cost_chart(rows: list[tuple[int, int, int]], current: int, *, unit: str = N_("patch size (pixels)")) -> dict:
    """Scores T^2 against the patch size, both on log scales (a quantitative x axis, so the curve keeps its
    shape): halving the patch multiplies the cost by 16, the same step up each time."""
    lowest, highest = min((size for size, _, _ in rows), default=1), max((size for size, _, _ in rows), default=1)
    values = [{"size": int(size), "tokens": int(tokens), "scores": int(scores), "label": f"T = {grouped(int(tokens))}",
               "ink": ORANGE if size == current else BLUE, "_below": _crowded(size, tokens, rows)}
              for size, tokens, scores in rows]
    return {
        "title": _("Scores T² as the patch shrinks (each point labelled with its tokens T)"),
            "data": {"values": values},
        "height": 260,
        "encoding": {
            # a number line, not evenly spaced categories (which bent the curve): log scale, so each halving of the
            # patch is one equal step and T^2 ~ 1/p^4 is a straight line; the patch shrinks rightwards
            "x": {"field": "size", "type": "quantitative", "title": _("{unit}, log scale", unit=_(unit)),
                  "scale": {"type": "log", "base": 2, "reverse": True},
                  "axis": {"labelAngle": 0, "values": [2 ** k for k in range(12) if lowest <= 2 ** k <= highest]}},
            "y": {"field": "scores", "type": "quantitative", "scale": {"type": "log"},
                "title": _("scores T² (log scale)"),
                  "axis": {"format": "~s", "values": [1, 100, 10_000, 1_000_000, 100_000_000]}}},
        "layer": [
            {"mark": {"type": "line", "color": BLUE, "point": True}},
            {"mark": {"type": "point", "size": 160, "filled": True}, "encoding": {
                "color": {"field": "ink", "type": "nominal", "scale": None},
                "tooltip": [{"field": "size", "type": "quantitative", "title": _(unit)},
                            {"field": "tokens", "type": "quantitative", "title": _("tokens T"), "format": ","},
                            {"field": "scores", "type": "quantitative", "title": _("scores T²"), "format": ","}]}},
            # 'T = 196': a count, not a score; above its point, or below it on the right where the next point is
            # close (16 and 14 px: the two labels above ran into each other on a phone)
            {"transform": [{"filter": "!datum._below"}], "mark": {"type": "text", "dy": -12},
             "encoding": {"text": {"field": "label", "type": "nominal"}}},
            {"transform": [{"filter": "datum._below"}],
             "mark": {"type": "text", "dy": 14, "dx": 4, "align": "left", "baseline": "middle"},
             "encoding": {"text": {"field": "label", "type": "nominal"}}},
        ],
    }


CLOSE_SIZES = 1.5    # a patch size less than this many times the next smaller one stands close to it on the log axis
CLOSE_TOKENS = 2.0   # ... and its tokens less than this many times fewer: their labels above them would meet


def _crowded(size: int, tokens: int, rows: list[tuple[int, int, int]]) -> bool:
    """Whether the point of `size` has a close neighbour to its right (the next smaller patch, more tokens): its label
    goes below it."""
    smaller = [(other, more) for other, more, _ in rows if other < size]
    if not smaller:
        return False
    other, more = max(smaller)
    return size < CLOSE_SIZES * other and more < CLOSE_TOKENS * max(tokens, 1)


@styled
def head_lines(alpha: np.ndarray, tokens: list[str], *, title: str = "", row: int = 22) -> dict:
    """BertViz-style: queries (attending) on the left, keys (attended to) on the right, one line per
    weight, its opacity the weight. Pointing at a query token keeps only its lines. A plain spec."""
    alpha = np.asarray(alpha, dtype=float)
    T = alpha.shape[0]
    labels = [visible(token) for token in tokens]
    lines = [{"query": i, "key": j, "from": labels[i], "to": labels[j], "weight": float(alpha[i, j]),
              "x": 0.0, "x2": 1.0}
             for i in range(T) for j in range(T) if alpha[i, j] > 0.005]
    words = [{"query": i, "position": i, "token": labels[i]} for i in range(T)]
    x_scale = {"domain": [-0.6, 1.6]}
    y_scale = {"domain": list(range(T))}
    rules = {
        "data": {"values": lines},
        "mark": {"type": "rule", "strokeWidth": 2.5, "color": BLUE},
        "encoding": {
            "x": {"field": "x", "type": "quantitative", "scale": x_scale, "axis": None},
            "x2": {"field": "x2"},
            "y": {"field": "query", "type": "ordinal", "axis": None, "scale": y_scale},
            "y2": {"field": "key"},
            "opacity": {"condition": {"param": "query_hover", "field": "weight", "type": "quantitative",
                                      "scale": {"domain": [0, 1], "range": [0.05, 1]}, "legend": None},
                        "value": 0.02},
            "tooltip": [{"field": "from", "type": "nominal", "title": _("query (attending)")},
                        {"field": "to", "type": "nominal", "title": _("key (attended to)")},
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
                      heading(0.0, _("query (attending)")), heading(1.0, _("key (attended to)"))]}


@styled
def rank_by_layer(ranks, probabilities, row_labels: list[str], *, token: str, title: str = "") -> dict:
    """A token's rank among every next token at each row of the residual stream (1 = the top prediction),
    on a log axis with 1 at the top, so the line climbs as the layers make up their mind."""
    ranks, probabilities = np.asarray(ranks), np.asarray(probabilities, dtype=float)
    values = [{"row": r, "row name": name, "rank": int(rank) + 1, "P": float(p)}
              for r, (name, rank, p) in enumerate(zip(row_labels, ranks, probabilities))]
    worst = max([v["rank"] for v in values] + [10])
    return {
        "title": title, "data": {"values": values}, "width": 380, "height": 240,
        "mark": {"type": "line", "point": True, "color": BLUE},
        "encoding": {
            "x": {"field": "row", "type": "quantitative", "title": _("row (0 = embedding, r = after block r - 1)"),
                  "scale": {"domain": [0, max(len(values) - 1, 1)]}},
            "y": {"field": "rank", "type": "quantitative", "title": _("rank of {token} (1 = top)", token=repr(token)),
                  "scale": {"type": "log", "domain": [worst * 1.5, 1], "nice": False},
                  "axis": {"format": "~s", "values": [10 ** n for n in range(len(str(int(worst * 1.5))))]}},
            "tooltip": [{"field": "row name", "type": "nominal", "title": _("row")},
                        {"field": "rank", "type": "quantitative"},
                        {"field": "P", "type": "quantitative", "format": ".4f", "title": f"P({token!r})"}]},
    }


@styled
def loss_by_position(series: dict[str, np.ndarray], copies: dict[str, tuple[int, int]], *,
                     unit: str = N_("bits per token"), title: str = "") -> dict:
    """The loss of predicting each token of a sequence, one line per run (`series`: name -> loss of
    predicting token t + 1, t = 0 ..), over shaded bands for the named stretches (`copies`: name ->
    first and last position of the predicted tokens)."""
    names = list(series)
    values = [{"run": name, "position": t + 1, "loss": float(loss)}
              for name, losses in series.items() for t, loss in enumerate(np.asarray(losses, dtype=float))]
    top = max([v["loss"] for v in values] + [1.0])
    bands = [{"stretch": name, "from": int(start) - 0.5, "to": int(end) + 0.5} for name, (start, end) in copies.items()]
    last = max([v["position"] for v in values] + [1])
    position = {"field": "position", "type": "quantitative", "title": _("position of the predicted token"),
                "scale": {"domain": [0, last + 1], "nice": False}}
    loss = {"field": "loss", "type": "quantitative", "title": _("loss ({unit})", unit=_(unit))}
    return {
        "title": title, "width": 560, "height": 260,
        "layer": [
            {"data": {"values": bands}, "mark": {"type": "rect", "opacity": 0.12, "color": GREY},
             "encoding": {"x": {"field": "from", "type": "quantitative"}, "x2": {"field": "to"}}},
            {"data": {"values": bands}, "mark": {"type": "text", "baseline": "top", "dy": 4, "color": GREY_25},
             "encoding": {"x": {"field": "from", "type": "quantitative"}, "text": {"field": "stretch"},
                          "y": {"value": 0}}},
            {"data": {"values": values}, "mark": {"type": "line", "point": {"size": 16}},
             "encoding": {
                 "x": position, "y": loss | {"scale": {"domain": [0, top * 1.15], "nice": False}},
                 "color": {"field": "run", "type": "nominal",
                           "scale": {"domain": names, "range": PAIR_COLOURS[:len(names)] if len(names) <= 2
                                     else CATEGORY_COLOURS[:len(names)]},
                           "legend": {"orient": "bottom", "title": None, "labelLimit": 500}},
                 "tooltip": [{"field": "run", "type": "nominal"}, {"field": "position", "type": "quantitative"},
                             loss | {"format": ".3f"}]}},
        ],
    }


@styled
def lines_by(x_values, series: dict[str, list[float]], *, x_title: str, y_title: str, title: str = "",
             y_domain: tuple[float, float] | None = None, log_x: bool = False, marked: float | None = None,
             marked_label: str = "", highlight: str | None = None) -> dict:
    """One line per series against an ordered x (gradient steps, a score multiplier), points on the lines,
    an optional vertical rule at x = `marked` (the current setting) and one series drawn thicker (`highlight`,
    the target). Used by the attention calculator's sharpness sweep and its learned W_Q and W_K."""
    names = list(series)
    rows = [{"x": float(x), "series": name, "y": float(value)}
            for name in names for x, value in zip(x_values, series[name])]
    x = {"field": "x", "type": "quantitative", "title": x_title,
         "scale": ({"type": "log", "domain": [float(min(x_values)), float(max(x_values))], "nice": False} if log_x
                   else {"zero": False, "nice": False})}
    y = {"field": "y", "type": "quantitative", "title": y_title,
         "scale": {"domain": list(y_domain)} if y_domain else {"zero": False}}
    colour = {"field": "series", "type": "nominal", "sort": names,
              "scale": {"domain": names, "range": (CATEGORY_COLOURS * 8)[:len(names)]},
              "legend": {"orient": "bottom", "title": None} if len(names) > 1 else None}
    width = ({"condition": {"test": f"datum.series === {json.dumps(highlight)}", "value": 3.5}, "value": 1.5}
             if highlight in names else {"value": 2})
    layers = [{"data": {"values": rows}, "mark": {"type": "line", "point": True},
               "encoding": {"x": x, "y": y, "color": colour, "strokeWidth": width,
                            "tooltip": [{"field": "series", "type": "nominal", "title": _("line")},
                                        {"field": "x", "type": "quantitative", "title": x_title},
                                        {"field": "y", "type": "quantitative", "title": y_title, "format": ".3f"}]}}]
    if marked is not None:
        rule = [{"x": float(marked), "label": marked_label}]
        layers += [{"data": {"values": rule}, "mark": {"type": "rule", "color": GREY, "strokeDash": [4, 3]},
                    "encoding": {"x": {"field": "x", "type": "quantitative"}}},
                   {"data": {"values": rule}, "mark": {"type": "text", "align": "left", "baseline": "top", "dx": 3,
                                                       "y": 0, "color": GREY},
                    "encoding": {"x": {"field": "x", "type": "quantitative"}, "text": {"field": "label"}}}]
    return {"title": title, "width": 420, "height": 240, "layer": layers}
