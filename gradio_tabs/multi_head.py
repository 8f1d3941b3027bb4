"""Multi-head attention (views/multi_head.py) in the Gradio Space: the same spec (engine.chapter.multi_head: defaults,
labels, limits, the sentences it says) and the same computations from it, `heads` and `costs`."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr

from engine import limits
from engine.attention.mechanism import shape_trace
from engine.chapter.multi_head import D, GAINS, MAX_SEED, PAGE, WEIGHTS, costs, heads, vocabulary_note
from engine.charts.bars import cost_comparison
from engine.charts.heatmaps import head_grid
from engine.embeddings.tiny_vocabulary import load_vocabulary
from engine.i18n import N_, _
from gradio_tabs.common import (
    chart, choices, engine_call, heading, help_of, label_of, kept, plot, question, refuse, results, say, table, whole,
)

P = PAGE.by_name
COST_COLUMNS = [N_("layout"), N_("parameters"), N_("FLOPs: X W_Q, X W_K, X W_V"), N_("FLOPs: Q K^T and α V"),
                N_("FLOPs: softmax"), N_("FLOPs: W_O"), N_("FLOPs: total")]   # shown translated


def help_text(name: str) -> str:
    return _(P[name].help)


def heads_from_link(values: Mapping[str, Any]):
    """The heads' grid, the shapes at every step, MultiHead(X) and the sentence for the page's typed link values
    (PAGE.values): what the Streamlit page shows for the same link."""
    shown = engine_call(heads, values)
    result, tokens = shown.result, shown.sentence.tokens
    shapes = [(_(step.name), f"${step.formula}$", " x ".join(map(str, step.shape)), step.count)
              for step in shape_trace(result)]
    output = table(result.output.round(3), [f"out[{i}]" for i in range(result.output.shape[1])], digits=3)
    output.insert(0, _("token"), tokens)
    grid = head_grid([head.weights for head in result.heads], tokens, titles=shown.titles,
                     cell=34 if shown.h > 2 else 40, causal=bool(values["causal"]))
    return plot(grid), table(shapes, [_("step"), _("computed as"), _("shape"), _("how many")]), output, shown.reading


def costs_from_link(values: Mapping[str, Any]):
    """The cost table, its chart and the sentence for the page's typed link values."""
    counted = engine_call(costs, values)
    rows = [(name, c.params, c.flops_qkv, c.flops_scores + c.flops_weighted_sum, c.flops_softmax, c.flops_out,
             c.flops) for name, c in counted.named.items()]
    return table(rows, [_(column) for column in COST_COLUMNS]), plot(cost_comparison(counted.named)), counted.reading


def from_link(values: Mapping[str, Any]):
    """Both endpoints' outputs for a page's typed link values: the heads', then the costs'."""
    return heads_from_link(values), costs_from_link(values)


def multi_head_tab(sentence: str, h: float, weights: str, gain: float, seed: float, causal: bool):
    """MultiHead(X) = [head_1 ... head_h] W_O on a sentence of the tiny vocabulary: every head's weights,
    the shape at every step, the output."""
    if weights not in WEIGHTS:
        refuse(_("The projection weights are {first} or {second}, not {got}.", first=list(WEIGHTS)[0],
                 second=list(WEIGHTS)[1], got=repr(weights)))
    values = PAGE.defaults() | {"sentence": sentence or "", "h": whole(h, 1, D, _("number of heads h")),
                                "weights": weights, "gain": float(gain), "seed": whole(seed, 0, MAX_SEED, _("seed")),
                                "causal": bool(causal)}
    return heads_from_link(values)


def head_costs_tab(T: float, d: float, h: float):
    """Parameters and FLOPs of one attention layer: one head of width d, h heads of width d/h, h of width d."""
    values = PAGE.defaults() | {"cost_T": whole(T, 1, limits.MAX_COST_TOKENS, _("number of tokens T")),
                                "cost_d": whole(d, 1, limits.MAX_COST_WIDTH, _("width d")),
                                "cost_h": whole(h, 1, limits.MAX_COST_HEADS, _("number of heads h"))}
    return costs_from_link(values)


def multi_head_attention_tab(demo: gr.Blocks) -> None:
    question(PAGE.question, lambda: vocabulary_note(load_vocabulary()))
    sentence = gr.Textbox(P["sentence"].default, label=label_of(P["sentence"]),
                          max_length=limits.MAX_MULTI_HEAD_SENTENCE_CHARS)
    with gr.Row():
        h = gr.Slider(1, D, value=P["h"].default, step=1, label=say("Heads h (each {d}/h wide; h divides d)", d=D))
        weights = gr.Radio(choices(WEIGHTS), value=P["weights"].default,
                           label=label_of(P["weights"]))
    with gr.Row():
        gain = gr.Slider(GAINS[0], GAINS[1], value=P["gain"].default, step=GAINS[2], label=label_of(P["gain"]),
                         info=help_of(P["gain"]))
        seed = gr.Number(P["seed"].default, label=label_of(P["seed"]), precision=0, minimum=0, maximum=MAX_SEED)
        causal = gr.Checkbox(P["causal"].default, label=label_of(P["causal"]))
    go = gr.Button(say("Run the heads"), variant="primary")
    summary = gr.Markdown(label=say("summary"))
    grid = chart(label=say("Each head's weights"))
    shapes = gr.Dataframe(label=say("Shapes at every step"), datatype=["str", "markdown", "str", "number"],
                          latex_delimiters=[{"left": "$", "right": "$", "display": False}])
    output = gr.Dataframe(label=kept("MultiHead(X)"))

    inputs, outputs = [sentence, h, weights, gain, seed, causal], [grid, shapes, output, summary]
    go.click(multi_head_tab, inputs, outputs, api_name="multi_head")
    demo.load(multi_head_tab, inputs, outputs, api_visibility="private")

    heading(N_("What it costs: h heads of d/h against one head of width d (defaults: GPT-2 small)"))
    with gr.Row():
        T = gr.Number(P["cost_T"].default, label=label_of(P["cost_T"]), precision=0, minimum=1,
                      maximum=limits.MAX_COST_TOKENS)
        d = gr.Number(P["cost_d"].default, label=label_of(P["cost_d"]), precision=0, minimum=1,
                      maximum=limits.MAX_COST_WIDTH)
        heads_ = gr.Number(P["cost_h"].default, label=label_of(P["cost_h"]), precision=0, minimum=1,
                           maximum=limits.MAX_COST_HEADS)
    count = gr.Button(say("Count"), variant="primary")
    outputs = results(say("Parameters and FLOPs"), say("Parameters and FLOPs of each layout"))
    count.click(head_costs_tab, [T, d, heads_], outputs, api_name="head_costs")
    demo.load(head_costs_tab, [T, d, heads_], outputs, api_visibility="private")
