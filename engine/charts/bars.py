"""Bar charts: one value per category, the number printed at each bar (weights compared, next-token
probabilities, scores and accuracies, parameters and costs, the model ladder)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.i18n import N_, _
from engine.numbers import fixed, grouped, localized
from engine.charts.palette import BLUE, CATEGORY_COLOURS, GREY, GREY_74, ORANGE, PAIR_COLOURS, RUN_COLOURS
from engine.charts.style import one_character_labels, panel, styled, unique_labels, value_scale, visible
from engine.numbers import SIGNIFICANT_FORMAT, alike

if TYPE_CHECKING:  # annotations only: the charts read a cost's fields, nothing more
    from engine.attention.mechanism import AttentionCost


SAMPLED = "after temperature and top-k"   # the field of a next-token bar's tick
COST_WIDTH = 380   # px of one cost chart's bars
COST_LABEL = 110   # px kept right of the longest bar for its printed amount ("96.7 G  (12 x)")


@styled
def compare_bars(weights: dict[str, np.ndarray], labels: list[str], *, title: str = "",
                 value_title: str = N_("weight on each token"), domain: tuple[float, float] | None = None) -> dict:
    """Side-by-side bars of two (or more) weight vectors over the same tokens, as a Vega-Lite spec; the
    value axis ends just above the largest weight (a 0.333 bar is not dwarfed by an axis to 1), or is
    `domain` (a page whose weights change with a slider keeps one axis, so bars compare across settings)."""
    tokens = unique_labels(list(labels))
    methods = list(weights)
    records = [{"method": method, "token": tokens[j], "weight": float(w[j]), "text": localized(f"{w[j]:.3f}")}
               for method, w in weights.items() for j in range(len(tokens))]
    colour = {"field": "method", "type": "nominal", "legend": {"orient": "bottom", "title": None},
              "scale": {"domain": methods, "range": (PAIR_COLOURS * 3)[:len(methods)]}}
    largest = max((row["weight"] for row in records if np.isfinite(row["weight"])), default=0.0)
    return {
        "title": title, "height": 260, "data": {"values": records},
        "encoding": {
            "x": {"field": "token", "type": "nominal", "sort": tokens, "title": None, "axis": {"labelAngle": 0}},
            "xOffset": {"field": "method", "type": "nominal", "sort": methods},
            "y": {"field": "weight", "type": "quantitative", "title": _(value_title),
                  "scale": ({"domain": list(domain), "nice": False} if domain is not None
                            else value_scale(largest, headroom=1.1, cap=1.0))},
        },
        "layer": [
            {"mark": "bar", "encoding": {"color": colour, "tooltip": [
                {"field": "method"}, {"field": "token"},
                {"field": "weight", "type": "quantitative", "format": ".3f"}]}},
            {"mark": {"type": "text", "dy": -7}, "encoding": {"text": {"field": "text"}, "color": colour}},
        ],
    }


CHARACTER_LABEL_SIZE = 20   # px: a one-character token on a bar's axis ('.', ',', '↵'), not 13 px specks


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
        for rank, (label, (_token, p, *after)) in enumerate(zip(labels, top)):
            row = {"model": name, "token": label, "rank": rank, "probability": float(p), "text": localized(f"{p:.3f}")}
            if after:  # the number sits right of the bar and of the tick
                row |= {SAMPLED: float(after[0]), "label at": max(float(p), float(after[0]))}
            values.append(row)
    sampled = any(SAMPLED in row for row in values)
    largest = max([0.0] + [max(row["probability"], row.get(SAMPLED, 0.0)) for row in values])
    x = {"field": "probability", "type": "quantitative", "title": _("P(next token | context)"),
         "scale": value_scale(largest, headroom=1.25, cap=1.0)}
    # "min": Vega-Lite sorted panels side by side alphabetically with a bare {"field": "rank"}; every bar named
    # (Vega dropped every second label of large characters as overlapping: the second likeliest went unnamed)
    y = {"field": "token", "type": "nominal", "sort": {"field": "rank", "op": "min"}, "title": None,
         "axis": {"labelOverlap": False}}
    # one-character tokens (',' '.' '↵') readable from afar, among words too; a config entry of its own (axisY: the
    # token axis), which the text config (engine.charts.style.with_text) keeps, at either text size
    characters = bool(values) and all(len(row["token"]) == 1 for row in values)
    config = {"axisY": one_character_labels(CHARACTER_LABEL_SIZE, font="monospace" if characters else None)}
    if sampled:  # orange is the tick's
        colour = {"value": BLUE}
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
        layers.append({"mark": {"type": "tick", "color": ORANGE, "thickness": 3, "size": 14},
                       "encoding": {"x": {"field": SAMPLED, "type": "quantitative", "title": x["title"]}, "y": y}})
    layers.append({"mark": {"type": "text", "align": "left", "dx": 4}, "encoding": {
        "x": {"field": "label at", "type": "quantitative", "title": x["title"]} if sampled else x, "y": y,
        "text": {"field": "text", "type": "nominal"}}})
    layered = {"width": width, "height": {"step": 22}, "layer": layers}
    if len(names) > 1:
        return {"title": title, "data": {"values": values}, "config": config,
                "facet": {"column": {"field": "model", "type": "nominal", "title": None, "sort": names}},
                "spec": layered, "resolve": {"scale": {"y": "independent"}}}
    return {"title": title or (names[0] if names else ""), "data": {"values": values}, "config": config} | layered


@styled
def grouped_probabilities(probabilities: dict[str, np.ndarray], labels: list[str], *, title: str = "") -> dict:
    """P(label | prompt) for two or more prompts side by side, on an axis that fits the largest value."""
    prompts = list(probabilities)
    values = [{"prompt": prompt, "token": labels[j], "probability": float(p[j]), "text": localized(f"{p[j]:.3f}")}
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
            "y": {"field": "probability", "type": "quantitative", "title": _("P(next token | prompt)")}},
        "layer": [
            {"mark": {"type": "bar"}, "encoding": {
                "color": colour,
                "tooltip": [{"field": "prompt", "type": "nominal"}, {"field": "token", "type": "nominal"},
                            {"field": "probability", "type": "quantitative", "format": ".4f"}]}},
            {"mark": {"type": "text", "dy": -7},
             "encoding": {"text": {"field": "text", "type": "nominal"}, "color": colour}},
        ],
    }


@styled
def score_bars(words: list[str], scores, *, title: str = "", value_title: str = N_("cosine"),
               highlight: str | None = None, digits: int = 3) -> dict:
    """Horizontal bars, best on top, each score printed; `highlight` (an expected answer) in orange."""
    words = [str(w) for w in words]
    scores = [float(s) for s in np.asarray(scores, dtype=float)]
    values = [{"word": w, "score": s, "rank": rank, "label": fixed(s, digits),
               "expected": "expected answer" if w == highlight else "other"}
              for rank, (w, s) in enumerate(zip(words, scores), start=1)]
    low = min([0.0, *scores])
    high = max([1.0, *scores]) if value_title == "cosine" else max(scores, default=1.0) * 1.15
    return {
        "title": title, "data": {"values": values}, "height": {"step": 24},
        "encoding": {
            "y": {"field": "word", "type": "nominal", "sort": words, "title": None},
            "x": {"field": "score", "type": "quantitative", "title": _(value_title), "scale": {"domain": [low, high]}},
            "tooltip": [{"field": "rank", "type": "quantitative"}, {"field": "word", "type": "nominal"},
                        {"field": "score", "type": "quantitative", "format": f".{digits}f"}]},
        "layer": [
            {"mark": {"type": "bar"}, "encoding": {"color": {
                "field": "expected", "type": "nominal", "legend": None,
                "scale": {"domain": ["other", "expected answer"], "range": [BLUE, ORANGE]}}}},
            {"mark": {"type": "text", "align": "left", "dx": 4},
             "encoding": {"text": {"field": "label", "type": "nominal"}}},
        ],
    }


@styled
def accuracy_bars(rows: list[dict]) -> dict:
    """Share of classic analogies answered right (top-1 and top-5) for each vocabulary size."""
    values = [{"vocabulary": localized(r["vocabulary"]), "measure": r["measure"], "accuracy": float(r["accuracy"]),
               "label": localized(f"{r['accuracy']:.0%}")} for r in rows]   # 10.000 words in Spanish
    sizes = list(dict.fromkeys(value["vocabulary"] for value in values))
    said = {"top-1": _("top-1"), "top-5": _("top-5")}   # the legend's entries, in the reader's language
    for value in values:
        value["measure"] = said.get(value["measure"], value["measure"])
    measures = [said["top-1"], said["top-5"]]
    colour = {"field": "measure", "type": "nominal", "scale": {"domain": measures, "range": [BLUE, ORANGE]},
              "legend": {"orient": "bottom", "title": None}}
    return {
        "data": {"values": values}, "height": 240,
        "encoding": {
            "x": {"field": "vocabulary", "type": "nominal", "sort": sizes,
                  "title": _("vocabulary searched (most frequent words)"), "axis": {"labelAngle": 0}},
            "xOffset": {"field": "measure", "type": "nominal", "sort": measures},
            "y": {"field": "accuracy", "type": "quantitative", "scale": {"domain": [0, 1]}, "axis": {"format": "%"},
                  "title": _("answered right")},
            "color": colour},
        "layer": [
            {"mark": {"type": "bar"}, "encoding": {"tooltip": [
                {"field": "vocabulary", "type": "nominal"}, {"field": "measure", "type": "nominal"},
                {"field": "accuracy", "type": "quantitative", "format": ".1%"}]}},
            {"mark": {"type": "text", "dy": -7}, "encoding": {"text": {"field": "label", "type": "nominal"}}},
        ],
    }


@styled
def difference_bars(difference: np.ndarray, tokens: list[str], *, title: str = "") -> dict:
    """max |c_B(word) - c_A(word)| for each word of the shuffled sentence, as a Vega-Lite spec (redrawn on
    every edit, so written plainly rather than through Altair); printed, since zero bars are invisible, all in one
    format (engine.numbers.alike)."""
    labels = unique_labels(list(tokens))
    values = [float(v) for v in np.asarray(difference, dtype=float)]
    records = [{"word": w, "difference": v, "text": text} for w, v, text in zip(labels, values, alike(values))]
    top = max(max(values) * 1.25, 0.05)
    return {
        "title": title, "height": 240, "data": {"values": records},
        "encoding": {
            "x": {"field": "word", "type": "nominal", "sort": labels,
                  "title": _("word (in the shuffled sentence's order)"), "axis": {"labelAngle": 0}},
            "y": {"field": "difference", "type": "quantitative", "title": _("largest change in its context vector"),
                  "scale": {"domain": [0, top]}},
        },
        "layer": [
            {"mark": {"type": "bar", "color": ORANGE},
             "encoding": {"tooltip": [{"field": "word", "type": "nominal"},
                                      {"field": "difference", "type": "quantitative",
                                       "format": SIGNIFICANT_FORMAT}]}},
            {"mark": {"type": "text", "dy": -7}, "encoding": {"text": {"field": "text", "type": "nominal"}}},
        ],
    }


@styled
def parameter_bars(parts: dict[str, int], *, title: str = "") -> dict:
    """Horizontal bars: parameters per part of the model, the number printed at each bar: inside the end of a
    bar longer than INSIDE_LABEL of the longest, past the end of a shorter one, so no number runs out of a
    narrow chart (a phone)."""
    total = max(sum(parts.values()), 1)
    longest = max(parts.values(), default=0)
    values = [{"part": name, "parameters": int(count), "text": grouped(int(count)), "share": count / total,
               "inside": bool(longest) and count > INSIDE_LABEL * longest}
              for name, count in parts.items()]
    tooltip = [{"field": "part", "type": "nominal"}, {"field": "parameters", "type": "quantitative", "format": ","},
               {"field": "share", "type": "quantitative", "format": ".1%"}]
    return {
        "title": title, "data": {"values": values}, "width": 380, "height": {"step": 26},
        "encoding": {
            "y": {"field": "part", "type": "nominal", "sort": list(parts), "title": None,
                  "axis": {"labelLimit": 280, "labelOverlap": False}},   # the longest part's name at 16 px
            "x": {"field": "parameters", "type": "quantitative", "title": _("parameters")},
            "tooltip": tooltip},
        "layer": [
            {"mark": {"type": "bar", "color": BLUE}},
            {"transform": [{"filter": "!datum.inside"}], "mark": {"type": "text", "align": "left", "dx": 4},
             "encoding": {"text": {"field": "text", "type": "nominal"}}},
            {"transform": [{"filter": "datum.inside"}],
             "mark": {"type": "text", "align": "right", "dx": -4, "color": "white", "fontWeight": "bold"},
             "encoding": {"text": {"field": "text", "type": "nominal"}}},
        ],
    }


INSIDE_LABEL = 0.6   # parameter_bars: a bar longer than this share of the longest carries its number inside


@styled
def cost_bars(costs: dict[str, AttentionCost], *, measure: str, title: str) -> dict:
    """Horizontal bars of one measure ('params' or 'flops') for each way of building the heads, each
    amount printed beside its bar, inside the chart (the axis runs on past the longest bar for it)."""
    names = list(costs)
    amounts = [float(getattr(cost, measure)) for cost in costs.values()]
    reference = amounts[0]
    values = []
    for name, amount in zip(names, amounts):
        ratio = f"{amount / reference:.3g} x"
        values.append({"layout": name, measure: amount, "text": _short(amount), "ratio": ratio,
                       "label": localized(f"{_short(amount)}  ({ratio})")})   # 96,7 G (12 x) in Spanish
    return {
        "title": title, "data": {"values": values}, "width": COST_WIDTH, "height": 34 * len(names) + 20,
        "encoding": {
            "y": {"field": "layout", "type": "nominal", "sort": names, "title": None, "axis": {"labelLimit": 240}},
            "x": {"field": measure, "type": "quantitative", "title": None, "axis": {"format": "~s"},
                  "scale": value_scale(max(amounts, default=0.0), headroom=COST_WIDTH / (COST_WIDTH - COST_LABEL))}},
        "layer": [
            {"mark": {"type": "bar"}, "encoding": {
                "color": {"field": "layout", "type": "nominal", "sort": names, "legend": None,
                          "scale": {"domain": names, "range": [BLUE, ORANGE, GREY][:len(names)]}},
                "tooltip": [{"field": "layout", "type": "nominal"},
                            {"field": measure, "type": "quantitative", "format": ","},
                            {"field": "ratio", "type": "nominal"}]}},
            {"mark": {"type": "text", "align": "left", "dx": 4},
             "encoding": {"text": {"field": "label", "type": "nominal"}}},
        ],
    }


@styled
def cost_comparison(costs: dict[str, AttentionCost]) -> dict:
    """Parameters and FLOPs of each layout, one chart above the other (side by side they are wider
    than the page's column)."""
    return {"vconcat": [panel(cost_bars(costs, measure="params", title=_("parameters (W_Q, W_K, W_V, W_O)"))),
                        panel(cost_bars(costs, measure="flops",
                            title=_("floating-point operations, one forward pass")))],
            "spacing": 24}


def _short(value: float) -> str:
    """2359296 -> '2.36 M', 8.06e9 -> '8.06 G'."""
    for factor, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{suffix}"
    return f"{value:.0f}"


LADDER_KINDS = ("baseline", "n-gram", "transformer", "your live runs", "pretrained")   # in the order of their colours


def ladder_kind_names() -> dict[str, str]:
    """The ladder's kinds as its legend says them, in the reader's language (a bar's kind stays English: the key
    its colour and the sentences under the chart go by)."""
    return {"baseline": _("baseline"), "n-gram": _("n-gram"), "transformer": _("transformer"),
            "your live runs": _("your live runs"), "pretrained": _("pretrained")}


def ladder_colours(kinds) -> tuple[list[str], list[str]]:
    """The ladder's kinds present and their colours (RUN_COLOURS, in LADDER_KINDS' order): a kind keeps its colour
    whatever else is on the ladder, so a live run joining it does not repaint the n-grams. Other kinds follow."""
    order = list(LADDER_KINDS) + [kind for kind in dict.fromkeys(kinds) if kind not in LADDER_KINDS]
    present = [kind for kind in order if kind in set(kinds)]
    return present, [RUN_COLOURS[order.index(kind) % len(RUN_COLOURS)] for kind in present]


@styled
def ladder_bars(rungs: list[tuple[str, float, str]]) -> dict:
    """The model ladder: held-out bits per character per model (fewer is better), coloured by kind, sorted by the
    score (the worst on top, the best at the bottom), as its title says: by score, the n-grams do not come in the
    order of n (the 8-gram scores worse than the 6- and 7-grams)."""
    rungs = sorted(rungs, key=lambda rung: -rung[1])
    kinds, colours = ladder_colours([kind for _, _, kind in rungs])
    said = ladder_kind_names()
    kinds = [said.get(kind, kind) for kind in kinds]
    values = [{"model": name, "bits per character": float(bits), "kind": said.get(kind, kind),
               "text": localized(f"{bits:.3f}")} for name, bits, kind in rungs]
    return {
        "title": _("Sorted by score: the fewest bits at the bottom"),
        "data": {"values": values}, "width": 460, "height": {"step": 28},
        "encoding": {
            "y": {"field": "model", "type": "nominal", "sort": [name for name, _, _ in rungs], "title": None,
                  "axis": {"labelLimit": 260, "labelOverlap": False}},
            "x": {"field": "bits per character", "type": "quantitative",
                  "title": _("held-out bits per character (fewer is better)")}},
        "layer": [
            {"mark": {"type": "bar"}, "encoding": {
                "color": {"field": "kind", "type": "nominal",
                          "scale": {"domain": kinds, "range": colours},
                          "legend": {"orient": "bottom", "title": None, "columns": 2}},   # wraps: no kind cut off
                "tooltip": [{"field": "model", "type": "nominal"},
                            {"field": "bits per character", "type": "quantitative", "format": ".3f"}]}},
            {"mark": {"type": "text", "align": "left", "dx": 4},
             "encoding": {"text": {"field": "text", "type": "nominal"}}},
        ],
    }


@styled
def ladder_zoom(rungs: list[tuple[str, float, str]], *, within: float = 0.5) -> dict:
    """The top of the ladder up close: every rung within `within` bits of the best, as dots on an axis
    that starts near them (dots, not bars: a bar on an axis that does not start at 0 would lie)."""
    best = min(bits for _, bits, _ in rungs)
    close = [(name, bits, kind) for name, bits, kind in rungs if bits <= best + within]
    said = ladder_kind_names()
    values = [{"model": name, "bits per character": float(bits), "kind": said.get(kind, kind),
               "text": localized(f"{bits:.3f}")} for name, bits, kind in close]
    kinds, colours = ladder_colours([kind for _, _, kind in rungs])  # the same colours as the full ladder
    kinds = [said.get(kind, kind) for kind in kinds]
    low, high = best - 0.02 * max(within, 0.05), max(bits for _, bits, _ in close) + 0.15 * within
    x = {"field": "bits per character", "type": "quantitative", "scale": {"domain": [low, high], "zero": False},
         "title": _("held-out bits per character, zoomed (fewer is better)")}
    y = {"field": "model", "type": "nominal", "sort": [name for name, _, _ in sorted(close, key=lambda r: -r[1])],
         "title": None, "axis": {"labelLimit": 260, "labelOverlap": False}}
    return {
        "data": {"values": values}, "width": 460, "height": {"step": 28},
        "encoding": {"x": x, "y": y},
        "layer": [
            {"mark": {"type": "rule", "color": GREY_74},
             "encoding": {"x": {"datum": low}, "x2": {"field": "bits per character"}}},
            {"mark": {"type": "point", "filled": True, "size": 110}, "encoding": {
                "color": {"field": "kind", "type": "nominal",
                          "scale": {"domain": kinds, "range": colours}, "legend": None},
                "tooltip": [{"field": "model", "type": "nominal"},
                            {"field": "bits per character", "type": "quantitative", "format": ".3f"}]}},
            {"mark": {"type": "text", "align": "left", "dx": 9},
             "encoding": {"text": {"field": "text", "type": "nominal"}}},
        ],
    }
