"""Head viewer (views/head_viewer.py) in the Gradio Space: the same spec (engine.chapter.heads: the sentence, the head,
the token limit) and the same reading of one head of SmolLM2-135M from it, `head_view`."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr

from engine import limits, markup, numbers
from engine.chapter.heads import READS_ENGLISH, PAGE, asks, head_sentence, head_view, scores_text
from engine.interpret.heads import TYPE_NAMES
from engine.charts.heatmaps import heatmap_spec
from engine.charts.style import unique_labels
from engine.pretrained.gguf_file import Config
from engine import i18n
from engine.i18n import N_, _
from gradio_tabs import loaders
from gradio_tabs.common import ALPHA_TABLE, chart, engine_call, label_of, plot, question, refuse, say, table, whole

P = PAGE.by_name


SIZES = Config()     # SmolLM2-135M's: 30 layers x 9 heads
LOADS = N_("The first use loads the model (a few seconds; more on a machine that has not prepared it).")


def from_link(values: Mapping[str, Any]):
    """The tab's outputs for a page's typed link values (PAGE.values): the head the page opens for that link, its
    weights as a table, the page's sentence on it, and its heatmap. SmolLM2 only: the Space brings no models."""
    engine_call(loaders.smollm2)       # a sentence, not a traceback, where the weights are not installed
    result, scored = engine_call(loaders.heads, values["text"])
    view = engine_call(head_view, values, result, scored)   # a pass past the token limit: the engine's sentence
    tokens = [t if t.strip() else repr(t) for t in view.tokens]
    rows = table(view.alpha.astype(float).round(3), unique_labels(tokens), digits=3)
    rows.insert(0, _("query"), tokens)
    summary = (_("Layer {layer}, head {head} of {layers} x {heads}: **{kind}**.", layer=view.layer, head=view.head,
                 layers=view.n_layer, heads=view.n_head, kind=_(TYPE_NAMES[view.kind])) + " "
               + head_sentence(view) + " " + _("Its pattern scores: {scores}.", scores=scores_text(view))
               + (f" {markup.markdown(result.note)}" if result.note else ""))
    heatmap = heatmap_spec(view.alpha, tokens, tokens, title=_("layer {layer}, head {head}", layer=view.layer,
                                                                head=view.head), domain=(0, 1),
                           causal=True, cell=max(14, min(40, 640 // max(len(tokens), 1))), digits=2)
    return rows, summary, plot(heatmap)


def heads_tab(text: str, layer: float, head: float):
    """alpha of one head of SmolLM2-135M: row = the token attending, column = the token attended to."""
    if not isinstance(text, str) or not text.strip():
        refuse(_("Type a sentence for the model to read."))
    if len(text) > limits.PRETRAINED_MAX_TEXT_CHARS:
        refuse(_("The text is {length} characters; keep it under {most}.", length=numbers.grouped(len(text)),
                 most=numbers.grouped(limits.PRETRAINED_MAX_TEXT_CHARS)))
    return from_link(PAGE.defaults() | {"text": text, "layer": whole(layer, 0, SIZES.n_layer - 1, _("layer")),
                                        "head": whole(head, 0, SIZES.n_head - 1, _("head"))})


def head_viewer_tab(demo: gr.Blocks) -> None:
    question(lambda: asks(SIZES.n_layer * SIZES.n_head),
             lambda: _("SmolLM2-135M: {layers} layers x {heads} heads. Pick a layer and a head.",
                       layers=SIZES.n_layer, heads=SIZES.n_head) + " " + _(LOADS)
             + ("" if i18n.is_source() else " " + _(READS_ENGLISH)))

    sentence = gr.Textbox(P["text"].default, label=label_of(P["text"]), max_length=limits.PRETRAINED_MAX_TEXT_CHARS)
    with gr.Row():
        layer = gr.Slider(0, SIZES.n_layer - 1, value=P["layer"].default, step=1, label=label_of(P["layer"]))
        head = gr.Slider(0, SIZES.n_head - 1, value=P["head"].default, step=1, label=label_of(P["head"]))
    show = gr.Button(say("Show the head"), variant="primary")
    summary = gr.Markdown(label=say("summary"))
    heatmap = chart(label=say("α of this head"))
    rows = gr.Dataframe(label=say(ALPHA_TABLE))
    show.click(heads_tab, [sentence, layer, head], [rows, summary, heatmap], api_name="heads")
