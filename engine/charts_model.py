"""Drawings for the Block builder and Generate pages: the data-flow diagram (Graphviz DOT)
and Vega-Lite specs (plain dicts) of parameters, loss curves and the model ladder (the next-token
distributions are engine.charts_text.next_token_bars).

Plain specs, like engine.charts.heatmap_spec: pages redraw them on every rerun (the loss curves
every second while a model trains), and building them through Altair's objects cost tens of
milliseconds each. Validated against the Vega-Lite schema in the tests.
"""
from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

from engine.charts import styled

if TYPE_CHECKING:  # engine.model imports torch; the diagram only reads a stage's fields
    from engine.transformer_config import Stage

# distinguishable without red/green alone
RUN_COLOURS = ["#1f6fb4", "#e08214", "#2ca25f", "#7b3294", "#d7191c", "#4d4d4d"]
BASELINE_COLOUR = "#7f7f7f"

LN2 = math.log(2)  # nats per bit


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(f"{n:,}" for n in shape) + ")"


def block_diagram(stages: list[Stage], n_layers: int, residual: bool) -> str:
    """DOT source: one box per stage, the shape on each arrow, the block drawn once inside 'x N'."""
    lines = ['digraph G {', 'rankdir=TB; nodesep=0.25; ranksep=0.3;',
             'node [shape=box, style="rounded,filled", fillcolor="#eef4fb", color="#1f6fb4", '
             'fontname="Helvetica", fontsize=14];',
             'edge [fontname="Helvetica", fontsize=13, color="#555555"];']
    inside = [i for i, s in enumerate(stages) if s.in_block]
    for i, stage in enumerate(stages):
        params = f"\\n{stage.parameters:,} parameters" if stage.parameters else ""
        label = f"{stage.name}\\n{stage.formula}{params}".replace('"', "'")
        if i in inside:
            continue
        lines.append(f'n{i} [label="{label}"];')
    if inside:
        lines.append(f'subgraph cluster_block {{ label="block, repeated N = {n_layers} times"; style="rounded,dashed"; '
                     'color="#e08214"; fontname="Helvetica"; fontsize=13;')
        for i in inside:
            stage = stages[i]
            params = f"\\n{stage.parameters:,} parameters" if stage.parameters else ""
            lines.append(f'n{i} [label="{stage.name}\\n{stage.formula}{params}", '
                         'fillcolor="#fdf0e1", color="#e08214"];')
        lines.append("}")
    for i in range(len(stages) - 1):
        lines.append(f'n{i} -> n{i + 1} [label=" {_shape(stages[i].shape)}"];')
    if residual and inside:
        first = inside[0]
        residual_edge = '[style=dashed, color="#e08214", label=" residual", constraint=false];'
        lines.append(f"n{first - 1} -> n{inside[3]} {residual_edge}")
        lines.append(f"n{inside[3]} -> n{inside[5]} {residual_edge}")
    lines.append("}")
    return "\n".join(lines)


@styled
def parameter_bars(parts: dict[str, int], *, title: str = "") -> dict:
    """Horizontal bars: parameters per part of the model, the number printed at each bar."""
    total = max(sum(parts.values()), 1)
    values = [{"part": name, "parameters": int(count), "text": f"{count:,}", "share": count / total}
              for name, count in parts.items()]
    tooltip = [{"field": "part", "type": "nominal"}, {"field": "parameters", "type": "quantitative", "format": ","},
               {"field": "share", "type": "quantitative", "format": ".1%"}]
    return {
        "title": title, "data": {"values": values}, "width": 380, "height": {"step": 26},
        "encoding": {
            "y": {"field": "part", "type": "nominal", "sort": list(parts), "title": None,
                  "axis": {"labelLimit": 220, "labelOverlap": False}},
            "x": {"field": "parameters", "type": "quantitative", "title": "parameters"},
            "tooltip": tooltip},
        "layer": [
            {"mark": {"type": "bar", "color": RUN_COLOURS[0]}},
            {"mark": {"type": "text", "align": "left", "dx": 4},
             "encoding": {"text": {"field": "text", "type": "nominal"}}},
        ],
    }


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
    for run in runs:
        rows += [{"run": run["label"], "loss on": "training (smoothed)", "step": int(s), "bits per character": v / LN2}
                 for s, v in zip(run["steps"], running_mean(run["train_loss"], smooth))]
        held += [{"run": run["label"], "loss on": "held-out", "step": int(s), "bits per character": float(v) / LN2}
                 for s, v in zip(run["eval_steps"], run["held_out_loss"])]
    labels = [run["label"] for run in runs]
    colour = {"field": "run", "type": "nominal",
              "scale": {"domain": labels, "range": RUN_COLOURS[:max(len(labels), 1)]},
              "legend": {"orient": "bottom", "columns": 1, "title": None, "labelLimit": 600}}
    step = {"field": "step", "type": "quantitative"}
    loss = {"field": "bits per character", "type": "quantitative"}
    layers = [
        {"data": {"values": rows + held}, "mark": {"type": "line"}, "encoding": {
            "x": step | {"title": "training step"},
            "y": loss | {"scale": {"zero": False}},
            "color": colour,
            "strokeDash": {"field": "loss on", "type": "nominal", "sort": ["held-out", "training (smoothed)"],
                           "legend": {"orient": "bottom", "title": None}},
            "strokeWidth": {"condition": {"test": "datum['loss on'] === 'held-out'", "value": 3}, "value": 1.2},
            "tooltip": [{"field": "run", "type": "nominal"}, {"field": "loss on", "type": "nominal"}, step,
                        loss | {"format": ".3f"}]}},
        {"data": {"values": held}, "mark": {"type": "point", "filled": True, "size": 40},
         "encoding": {"x": step, "y": loss, "color": colour}},
    ]
    if baselines:
        right = int(max([max(run["steps"], default=1) for run in runs] + [1]))
        lines = [{"baseline": name, "bits per character": float(value) / LN2, "text": f"{name}: {value / LN2:.2f}",
                  "step": right} for name, value in baselines.items()]
        layers += [
            {"data": {"values": lines}, "mark": {"type": "rule", "color": BASELINE_COLOUR, "strokeDash": [3, 3]},
             "encoding": {"y": loss, "tooltip": [{"field": "text", "type": "nominal"}]}},
            {"data": {"values": lines}, "mark": {"type": "text", "align": "right", "baseline": "bottom", "dy": -2,
                                                 "color": "#404040"},
             "encoding": {"x": step, "y": loss, "text": {"field": "text", "type": "nominal"}}},
        ]
    return {"width": 560, "height": 320, "layer": layers}


@styled
def ladder_bars(rungs: list[tuple[str, float, str]]) -> dict:
    """The model ladder: held-out bits per character per model (fewer is better), coloured by kind."""
    values = [{"model": name, "bits per character": float(bits), "kind": kind, "text": f"{bits:.3f}"}
              for name, bits, kind in rungs]
    kinds = list(dict.fromkeys(kind for _, _, kind in rungs))
    return {
        "data": {"values": values}, "width": 460, "height": {"step": 28},
        "encoding": {
            "y": {"field": "model", "type": "nominal", "sort": [name for name, _, _ in rungs], "title": None,
                  "axis": {"labelLimit": 260, "labelOverlap": False}},
            "x": {"field": "bits per character", "type": "quantitative",
                  "title": "held-out bits per character (fewer is better)"}},
        "layer": [
            {"mark": {"type": "bar"}, "encoding": {
                "color": {"field": "kind", "type": "nominal",
                          "scale": {"domain": kinds, "range": RUN_COLOURS[:len(kinds)]},
                          "legend": {"orient": "bottom", "title": None}},
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
    values = [{"model": name, "bits per character": float(bits), "kind": kind, "text": f"{bits:.3f}"}
              for name, bits, kind in close]
    kinds = list(dict.fromkeys(kind for _, _, kind in rungs))  # the same colours as the full ladder
    low, high = best - 0.02 * max(within, 0.05), max(bits for _, bits, _ in close) + 0.15 * within
    x = {"field": "bits per character", "type": "quantitative", "scale": {"domain": [low, high], "zero": False},
         "title": "held-out bits per character, zoomed (fewer is better)"}
    y = {"field": "model", "type": "nominal", "sort": [name for name, _, _ in sorted(close, key=lambda r: -r[1])],
         "title": None, "axis": {"labelLimit": 260, "labelOverlap": False}}
    return {
        "data": {"values": values}, "width": 460, "height": {"step": 28},
        "encoding": {"x": x, "y": y},
        "layer": [
            {"mark": {"type": "rule", "color": "#bdbdbd"},
             "encoding": {"x": {"datum": low}, "x2": {"field": "bits per character"}}},
            {"mark": {"type": "point", "filled": True, "size": 110}, "encoding": {
                "color": {"field": "kind", "type": "nominal",
                          "scale": {"domain": kinds, "range": RUN_COLOURS[:len(kinds)]}, "legend": None},
                "tooltip": [{"field": "model", "type": "nominal"},
                            {"field": "bits per character", "type": "quantitative", "format": ".3f"}]}},
            {"mark": {"type": "text", "align": "left", "dx": 9},
             "encoding": {"text": {"field": "text", "type": "nominal"}}},
        ],
    }
