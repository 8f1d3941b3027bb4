"""Context: window vs attention (views/context_window.py) in the Gradio Space: the same spec (engine.chapter.context:
defaults, labels, example sentences, the window's range) and the same computation from it, `calculation`."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr

from engine import limits
from engine.attention.typed_matrices import parse_matrix
from engine.chapter.context import (MAX_K, PAGE, SENTENCES, TAKES_TITLE, WINDOWS_SHOWN, calculation, hand_vectors,
                                    unknown_words_note)
from engine.charts.bars import compare_bars
from engine.i18n import N_, _
from gradio_tabs.common import chart, engine_call, help_of, label_of, kept, plot, question, say, table, whole

P = PAGE.by_name


def help_text(name: str) -> str:
    return _(P[name].help)


def hand_vectors_tab(sentence: str):
    """A sentence as X from the hand-picked 3-number vectors (nature, function word, people/action)."""
    x_text, query, unknown = engine_call(hand_vectors, sentence or "")
    return x_text, query, unknown_words_note(unknown) if unknown else ""


def from_link(values: Mapping[str, Any]):
    """The weights table, the two context vectors, the bars and the sentence for the page's typed link values
    (PAGE.values): what the Streamlit page shows for the same link."""
    shown = engine_call(calculation, values)
    labels, t, k = shown.labels, shown.query, shown.k
    drawn = shown.windows(sorted({*range(WINDOWS_SHOWN + 1), k}))
    windows = {_("window k = {k}", k=r): row for r, row in drawn.items()}
    attention, method = _("attention"), _("method")
    weights = windows | {attention: shown.weights}
    rows = [[method, *map(float, row.round(3))] for method, row in weights.items()]
    contexts = [[_("window k = {k}", k=k), *map(float, shown.window_context.round(3))],
                [attention, *map(float, shown.attended.context[t].round(3))]]
    bars = compare_bars({_("window k = {k}", k=k): shown.window, attention: shown.weights}, labels,
                        title=_(TAKES_TITLE, token=labels[t]), domain=(0, 1))
    return (table(rows, [method, *labels], digits=3),
            table(contexts, [method, *[f"c[{i}]" for i in range(shown.x.shape[1])]], digits=3),
            plot(bars, width=480), engine_call(lambda: shown.reading))


def context_tab(x_text: str, k: float, query: float, scaled: bool):
    """Token `query`'s context two ways: the average of a window of half-width k, and attention's weights."""
    _labels, x = engine_call(parse_matrix, x_text or "", what="X")   # an empty box is a sentence, not the sentence's X
    values = PAGE.defaults() | {"x": x_text, "k": whole(k, 0, MAX_K, _("window half-width k")),
                                "query": whole(query, 0, x.shape[0] - 1, _("token")), "scaled": bool(scaled)}
    return from_link(values)


def context_window_tab(demo: gr.Blocks) -> None:
    question(PAGE.question,
             N_("Average a fixed window around a token, then let relevance choose: softmax of x_t . x_j."))
    with gr.Row():
        sentence = gr.Dropdown([(kept(s), s) for s in SENTENCES], value=
P["sentence"].default, allow_custom_value=True, scale=3,
                               label=label_of(P["sentence"]))
        load = gr.Button(say("Load its vectors"))
    note = gr.Markdown(label=say("note"))
    x_text = gr.Textbox(hand_vectors_tab(P["sentence"].default)[0], lines=5, max_length=limits.MAX_MATRIX_TEXT_CHARS,
                        label=label_of(P["x"]))
    with gr.Row():
        k = gr.Slider(0, MAX_K, value=P["k"].default, step=1, label=label_of(P["k"]), info=help_of(P["k"]))
        query = gr.Number(P["query"].default, label=label_of(P["query"]), precision=0, minimum=0)
        scaled = gr.Checkbox(P["scaled"].default, label=label_of(P["scaled"]))
    go = gr.Button(say("Compare"), variant="primary")
    summary = gr.Markdown(label=say("summary"))
    bars = chart(label=say("Window weights against attention weights"))
    weights = gr.Dataframe(label=say("Weights on each token"))
    contexts = gr.Dataframe(label=say("The two context vectors"))
    load.click(hand_vectors_tab, [sentence], [x_text, query, note], api_name="hand_vectors")
    inputs, outputs = [x_text, k, query, scaled], [weights, contexts, bars, summary]
    go.click(context_tab, inputs, outputs, api_name="context")
    demo.load(context_tab, inputs, outputs, api_visibility="private")
