"""Attention calculator (views/attention_calculator.py) in the Gradio Space: the same spec (engine.chapter.attention:
defaults, labels, limits) and the same computation from it, `calculation`."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr

from engine import limits
from engine.attention.readings import calculator_reading
from engine.chapter.attention import MAX_PROJECTION_SEED, PAGE, PROJECTION_STARTS, SHARPNESS, calculation
from engine.charts.heatmaps import heatmap_spec
from gradio_tabs.common import ALPHA_TABLE, chart, engine_call, plot, question, refuse, table, whole

P = PAGE.by_name


def from_link(values: Mapping[str, Any]):
    """The tab's outputs for a page's typed link values (PAGE.values): what the page shows for that link."""
    shown = engine_call(calculation, values)
    labels, q, result = shown.labels, shown.query, shown.result
    weights = table(result.weights.round(3), labels).assign(query=labels)
    context = table(result.context.round(3), [f"c[{i}]" for i in range(result.context.shape[1])])
    context.insert(0, "token", labels)
    summary = calculator_reading(result.weights[q], labels, q, d_k=result.d_k, scaled=bool(values["scaled"]),
                                 keys_are_inputs=not values["proj"])
    heatmap = heatmap_spec(result.weights, labels, labels, title="alpha: each row sums to 1", domain=(0, 1),
                           mask=result.mask)
    return weights[["query", *labels]], context, summary, plot(heatmap)


def attention_tab(x_text: str, scaled: bool, causal: bool, query: float, sharp: float, proj: bool, w_start: str,
                  w_seed: float):
    """softmax(β Q K^T / sqrt(d_k)) V, Q = X W_Q (X itself with projections off): weights, context, the
    page's sentence, the heatmap."""
    if sharp not in SHARPNESS:
        refuse(f"The sharpness β must be one of {', '.join(f'{b:g}' for b in SHARPNESS)}.")
    if w_start not in PROJECTION_STARTS:
        refuse(f"The projections start from {' or '.join(PROJECTION_STARTS)}, not {w_start!r}.")
    values = PAGE.defaults() | {"x": x_text or "", "scaled": bool(scaled), "causal": bool(causal), "sharp": sharp,
                                "proj": bool(proj), "w_start": w_start,
                                "w_seed": whole(w_seed, 0, MAX_PROJECTION_SEED, "seed for random projections")}
    labels = engine_call(calculation, values).labels
    values["query"] = whole(query, 0, len(labels) - 1, "query token")
    return from_link(values)


def attention_calculator_tab(demo: gr.Blocks) -> None:
    question(PAGE.question, "Edit X (one row per token, `name: numbers`); the weights are softmax of the scores.")
    with gr.Row():
        with gr.Column():
            x_text = gr.Textbox(P["x"].default, label=P["x"].label, lines=5, max_length=limits.MAX_MATRIX_TEXT_CHARS)
            scaled = gr.Checkbox(P["scaled"].default, label=P["scaled"].label, info=P["scaled"].help)
            causal = gr.Checkbox(P["causal"].default, label=P["causal"].label)
            query = gr.Number(P["query"].default, label=P["query"].label, precision=0, minimum=0)
            sharp = gr.Dropdown(list(SHARPNESS), value=P["sharp"].default, label=P["sharp"].label)
            proj = gr.Checkbox(P["proj"].default, label=P["proj"].label, info=P["proj"].help)
            w_start = gr.Radio(list(PROJECTION_STARTS), value=P["w_start"].default, label=P["w_start"].label)
            w_seed = gr.Number(P["w_seed"].default, label=P["w_seed"].label, precision=0, minimum=0,
                               maximum=MAX_PROJECTION_SEED)
            go = gr.Button("Compute attention", variant="primary")
        with gr.Column():
            heatmap = chart(label="Attention weights")
            summary = gr.Markdown(label="summary")
    weights = gr.Dataframe(label=ALPHA_TABLE)
    context = gr.Dataframe(label="context c_i = sum_j alpha_ij v_j")
    inputs = [x_text, scaled, causal, query, sharp, proj, w_start, w_seed]
    outputs = [weights, context, summary, heatmap]
    go.click(attention_tab, inputs, outputs, api_name="attention")
    demo.load(attention_tab, inputs, outputs, api_visibility="private")
