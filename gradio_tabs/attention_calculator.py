"""Attention calculator (views/attention_calculator.py) in the Gradio Space: the same spec (engine.chapter.attention:
defaults, labels, limits) and the same computation from it, `calculation`."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr

from engine import limits, numbers
from engine.attention.readings import calculator_reading
from engine.chapter.attention import MAX_PROJECTION_SEED, PAGE, PROJECTION_STARTS, SHARPNESS, calculation
from engine.charts.heatmaps import heatmap_spec
from engine.chapter.attention import PROJECTION_START_NAMES
from engine.i18n import N_, _
from gradio_tabs.common import (
    ALPHA_TABLE, chart, choices, engine_call, help_of, label_of, plot, question, refuse, say, static, table, whole,
)

P = PAGE.by_name


def help_text(name: str) -> str:
    return _(P[name].help)


def from_link(values: Mapping[str, Any]):
    """The tab's outputs for a page's typed link values (PAGE.values): what the page shows for that link."""
    shown = engine_call(calculation, values)
    labels, q, result = shown.labels, shown.query, shown.result
    query = _("query")
    weights = table(result.weights.round(3), labels, digits=3).assign(**{query: labels})
    context = table(result.context.round(3), [f"c[{i}]" for i in range(result.context.shape[1])], digits=3)
    context.insert(0, _("token"), labels)
    summary = calculator_reading(result.weights[q], labels, q, d_k=result.d_k, scaled=bool(values["scaled"]),
                                 keys_are_inputs=not values["proj"])
    heatmap = heatmap_spec(result.weights, labels, labels, title=_("α: each row sums to 1"), domain=(0, 1),
                           mask=result.mask)
    return weights[[query, *labels]], context, summary, plot(heatmap)


def attention_tab(x_text: str, scaled: bool, causal: bool, query: float, sharp: float, proj: bool, w_start: str,
                  w_seed: float):
    """softmax(β Q K^T / sqrt(d_k)) V, Q = X W_Q (X itself with projections off): weights, context, the
    page's sentence, the heatmap."""
    if sharp not in SHARPNESS:
        refuse(_("The sharpness β must be one of {values}.",
                 values=", ".join(numbers.localized(f"{b:g}") for b in SHARPNESS)))
    if w_start not in PROJECTION_STARTS:
        refuse(_("The projections start from {first} or {second}, not {got}.", first=PROJECTION_STARTS[0],
                 second=PROJECTION_STARTS[1], got=repr(w_start)))
    values = PAGE.defaults() | {"x": x_text or "", "scaled": bool(scaled), "causal": bool(causal), "sharp": sharp,
                                "proj": bool(proj), "w_start": w_start,
                                "w_seed": whole(w_seed, 0, MAX_PROJECTION_SEED, _("seed for random projections"))}
    labels = engine_call(calculation, values).labels
    values["query"] = whole(query, 0, len(labels) - 1, _("query token"))
    return from_link(values)


def attention_calculator_tab(demo: gr.Blocks) -> None:
    question(PAGE.question, N_("Edit X (one row per token, `name: numbers`); the weights are softmax of the scores."))
    with gr.Row():
        with gr.Column():
            x_text = gr.Textbox(P["x"].default, label=label_of(P["x"]), lines=5,
                                max_length=limits.MAX_MATRIX_TEXT_CHARS)
            scaled = gr.Checkbox(P["scaled"].default, label=label_of(P["scaled"]), info=help_of(P["scaled"]))
            causal = gr.Checkbox(P["causal"].default, label=label_of(P["causal"]))
            query = gr.Number(P["query"].default, label=label_of(P["query"]), precision=0, minimum=0)
            sharp = gr.Dropdown([(static(lambda b=b: numbers.localized(f"{b:g}")), b) for b in SHARPNESS],
                                value=P["sharp"].default, label=label_of(P["sharp"]))
            proj = gr.Checkbox(P["proj"].default, label=label_of(P["proj"]), info=help_of(P["proj"]))
            w_start = gr.Radio(choices({s: PROJECTION_START_NAMES[s] for s in PROJECTION_STARTS}), value=
P["w_start"].default, label=label_of(P["w_start"]))
            w_seed = gr.Number(P["w_seed"].default, label=label_of(P["w_seed"]), precision=0, minimum=0,
                               maximum=MAX_PROJECTION_SEED)
            go = gr.Button(say("Compute attention"), variant="primary")
        with gr.Column():
            heatmap = chart(label=say("Attention weights"))
            summary = gr.Markdown(label=say("summary"))
    weights = gr.Dataframe(label=say(ALPHA_TABLE))
    context = gr.Dataframe(label=say("context c_i = sum_j α_ij v_j"))
    inputs = [x_text, scaled, causal, query, sharp, proj, w_start, w_seed]
    outputs = [weights, context, summary, heatmap]
    go.click(attention_tab, inputs, outputs, api_name="attention")
    demo.load(attention_tab, inputs, outputs, api_visibility="private")
