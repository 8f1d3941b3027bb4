"""Attention: Context (window vs attention) and Multi-head attention (views/context_window.py,
views/multi_head.py)."""
from __future__ import annotations

import gradio as gr

from engine import limits
from engine.attention.examples import CONTEXT_MAX_K, CONTEXT_SENTENCES, CONTEXT_WINDOWS_SHOWN
from engine.attention.mechanism import (
    attention, compare_head_costs, identity_projections, multi_head_attention,
    random_projections, shape_trace, window_average, window_weights,
)
from engine.attention.readings import context_reading
from engine.charts.bars import compare_bars, cost_comparison
from engine.charts.heatmaps import head_grid
from engine.charts.style import unique_labels
from engine.embeddings.hand_vectors import sentence_vectors
from engine.attention.typed_matrices import format_matrix, parse_matrix
from engine.embeddings.tiny_vocabulary import embed, load_vocabulary
from gradio_tabs.common import chart, results, engine_call, plot, question, refuse, table, whole



def _x(x_text: str) -> tuple[list[str], object]:
    """X typed as text (one row per token, `name: numbers`): its labels, unnamed rows 'token i' and a
    repeated word numbered (table columns must differ), and the matrix."""
    labels, x = engine_call(parse_matrix, x_text or "", what="X")
    return unique_labels([name or f"token {i}" for i, name in enumerate(labels)]), x


# --- context: a window against attention ---------------------------------------------------------------
SENTENCES = list(CONTEXT_SENTENCES)


def hand_vectors_tab(sentence: str):
    """A sentence as X from the hand-picked 3-number vectors (nature, function word, people/action)."""
    tokens, x, unknown = engine_call(sentence_vectors, sentence or "")
    note = ("No hand-picked vector for: " + ", ".join(unknown) + ". They start at 0, 0, 0: give them numbers."
            if unknown else "")
    return format_matrix(x, tokens), tokens.index("crane") if "crane" in tokens else 0, note


def context_tab(x_text: str, k: float, query: float, scaled: bool):
    """Token `query`'s context two ways: the average of a window of half-width k, and attention's weights."""
    labels, x = _x(x_text)
    T = len(labels)
    k = whole(k, 0, CONTEXT_MAX_K, "window half-width k")
    t = whole(query, 0, T - 1, "token")
    attended = engine_call(attention, x, x, x, scale=bool(scaled))
    windows = {f"window k = {r}": engine_call(window_weights, T, r)[t]
               for r in sorted({*range(CONTEXT_WINDOWS_SHOWN + 1), k})}
    weights = windows | {"attention": attended.weights[t]}
    rows = [[method, *map(float, row.round(3))] for method, row in weights.items()]
    contexts = [[f"window k = {k}", *map(float, engine_call(window_average, x, k)[t].round(3))],
                ["attention", *map(float, attended.context[t].round(3))]]
    row = attended.weights[t]
    summary = engine_call(context_reading, row, labels, t)
    bars = compare_bars({f"window k = {k}": weights[f"window k = {k}"], "attention": row}, labels,
                        title=f"How much '{labels[t]}' takes from each token", domain=(0, 1))
    return (table(rows, ["method", *labels]), table(contexts, ["method", *[f"c[{i}]" for i in range(x.shape[1])]]),
            plot(bars, width=480), summary)


def context_window_tab(demo: gr.Blocks) -> None:
    question("Which words should *crane* borrow meaning from?",
             "Average a fixed window around a token, then let relevance choose: softmax of x_t . x_j.")
    with gr.Row():
        sentence = gr.Dropdown(SENTENCES, value=SENTENCES[0], allow_custom_value=True, scale=3,
                               label="Sentence (words get hand-picked 3-number vectors you can edit below)")
        load = gr.Button("Load its vectors")
    note = gr.Markdown(label="note")
    x_text = gr.Textbox(hand_vectors_tab(SENTENCES[0])[0], lines=5, max_length=limits.MAX_MATRIX_TEXT_CHARS,
                        label="X (one row per token: nature, function word, people/action)")
    with gr.Row():
        k = gr.Slider(0, CONTEXT_MAX_K, value=1, step=1, label="Window half-width k")
        query = gr.Number(0, label="Token whose context we build (row)", precision=0, minimum=0)
        scaled = gr.Checkbox(True, label="Scale scores by 1/sqrt(d)")
    go = gr.Button("Compare", variant="primary")
    summary = gr.Markdown(label="summary")
    bars = chart(label="Window weights against attention weights")
    weights = gr.Dataframe(label="Weights on each token")
    contexts = gr.Dataframe(label="The two context vectors")
    load.click(hand_vectors_tab, [sentence], [x_text, query, note], api_name="hand_vectors")
    inputs, outputs = [x_text, k, query, scaled], [weights, contexts, bars, summary]
    go.click(context_tab, inputs, outputs, api_name="context")
    demo.load(context_tab, inputs, outputs, api_visibility="private")


# --- the attention calculator ----------------------------------------------------------------------------
# --- multi-head attention ----------------------------------------------------------------------------------
WEIGHTS = {"identity": "hand-built: head m reads its own block of features", "random": "seeded random (untrained)"}


def multi_head_tab(sentence: str, h: float, weights: str, gain: float, seed: float, causal: bool):
    """MultiHead(X) = [head_1 ... head_h] W_O on a sentence of the tiny vocabulary: every head's weights,
    the shape at every step, the output."""
    vocabulary = load_vocabulary()
    h = whole(h, 1, vocabulary.d, "number of heads h")
    seed = whole(seed, 0, 100_000, "seed")
    embedded = engine_call(embed, sentence or "", vocabulary)
    if weights not in WEIGHTS:
        refuse(f"The projection weights are {' or '.join(WEIGHTS)}, not {weights!r}.")
    if weights == "identity":
        W = engine_call(identity_projections, vocabulary.d, gain=float(gain))
    else:
        W = engine_call(random_projections, vocabulary.d, seed, gain=float(gain))
    result = engine_call(multi_head_attention, embedded.x, W["W_q"], W["W_k"], W["W_v"], W["W_o"], h,
                         causal=bool(causal))
    d_head = result.d_head
    titles = [f"head {m + 1}: " + ", ".join(vocabulary.features[m * d_head:(m + 1) * d_head])
              if weights == "identity" else f"head {m + 1}" for m in range(h)]
    shapes = [(step.name, f"${step.formula}$", " x ".join(map(str, step.shape)), step.count)
              for step in shape_trace(result)]
    output = table(result.output.round(3), [f"out[{i}]" for i in range(result.output.shape[1])])
    output.insert(0, "token", embedded.tokens)
    summary = (f"{h} head{'s' if h > 1 else ''} of width d/h = {d_head} on T = {len(embedded.tokens)} tokens, "
               f"d = {vocabulary.d}: each head's weights are T x T, the heads' outputs side by side are T x d again, "
               "and W_O mixes them. " + ("Hand-built heads compare words only on their own features."
                                         if weights == "identity" else
                                         "Random projections give each head its own arbitrary notion of similarity."))
    grid = head_grid([head.weights for head in result.heads], embedded.tokens, titles=titles,
                     cell=34 if h > 2 else 40, causal=bool(causal))
    return plot(grid), table(shapes, ["step", "computed as", "shape", "how many"]), output, summary


def head_costs_tab(T: float, d: float, h: float):
    """Parameters and FLOPs of one attention layer: one head of width d, h heads of width d/h, h of width d."""
    T = whole(T, 1, limits.MAX_COST_TOKENS, "number of tokens T")
    d = whole(d, 1, limits.MAX_COST_WIDTH, "width d")
    h = whole(h, 1, limits.MAX_COST_HEADS, "number of heads h")
    costs = engine_call(compare_head_costs, T, d, h)
    one, split, unsplit = costs.values()
    named = {"1 head of width d": one, f"{split.h} heads of width d/h = {split.d_head}": split,
             f"{unsplit.h} heads of width d = {unsplit.d_head} each": unsplit}
    rows = [(name, c.params, c.flops_qkv, c.flops_scores + c.flops_weighted_sum, c.flops_softmax, c.flops_out,
             c.flops) for name, c in named.items()]
    summary = (f"Splitting d = {d} into h = {h} heads keeps every matrix the same size: **{split.params:,}** "
               f"parameters (4d²), as one head of width d. Only the softmax grows, h times as many scores: "
               f"{split.flops / one.flops:.4f} x the FLOPs of one head. Giving each head the full width instead "
               f"costs {unsplit.flops / one.flops:.1f} x.")
    return (table(rows, ["layout", "parameters", "FLOPs: X W_Q, X W_K, X W_V", "FLOPs: Q K^T and alpha V",
                         "FLOPs: softmax", "FLOPs: W_O", "FLOPs: total"]), plot(cost_comparison(named)), summary)


def multi_head_attention_tab(demo: gr.Blocks) -> None:
    vocabulary = load_vocabulary()
    question("Why run h small heads instead of one big one, and what does it cost?",
             f"Words this tiny vocabulary knows: {', '.join(vocabulary.words)}. Each is {vocabulary.d} "
             f"hand-picked numbers, one per feature: {', '.join(vocabulary.features)}.")
    sentence = gr.Textbox("the owl saw the cat by the lake", label="Sentence", max_length=200)
    with gr.Row():
        h = gr.Slider(1, vocabulary.d, value=2, step=1, label=f"Heads h (each {vocabulary.d}/h wide; h divides d)")
        weights = gr.Radio([(label, name) for name, label in WEIGHTS.items()], value="identity",
                           label="Projection weights")
    with gr.Row():
        gain = gr.Slider(0.5, 5.0, value=2.0, step=0.25, label="Gain (sharpness of the scores)")
        seed = gr.Number(0, label="Seed (random weights)", precision=0, minimum=0, maximum=100_000)
        causal = gr.Checkbox(False, label="Causal mask")
    go = gr.Button("Run the heads", variant="primary")
    summary = gr.Markdown(label="summary")
    grid = chart(label="Each head's weights")
    shapes = gr.Dataframe(label="Shapes at every step", datatype=["str", "markdown", "str", "number"],
                          latex_delimiters=[{"left": "$", "right": "$", "display": False}])
    output = gr.Dataframe(label="MultiHead(X)")
    inputs, outputs = [sentence, h, weights, gain, seed, causal], [grid, shapes, output, summary]
    go.click(multi_head_tab, inputs, outputs, api_name="multi_head")
    demo.load(multi_head_tab, inputs, outputs, api_visibility="private")

    gr.Markdown("#### What it costs: h heads of d/h against one head of width d (defaults: GPT-2 small)")
    with gr.Row():
        T = gr.Number(1024, label="Tokens T", precision=0, minimum=1, maximum=limits.MAX_COST_TOKENS)
        d = gr.Number(768, label="Width d", precision=0, minimum=1, maximum=limits.MAX_COST_WIDTH)
        heads = gr.Number(12, label="Heads h", precision=0, minimum=1, maximum=limits.MAX_COST_HEADS)
    count = gr.Button("Count", variant="primary")
    outputs = results("Parameters and FLOPs", "Parameters and FLOPs of each layout")
    count.click(head_costs_tab, [T, d, heads], outputs, api_name="head_costs")
    demo.load(head_costs_tab, [T, d, heads], outputs, api_visibility="private")
