"""Transformer Playground as a Gradio app: the same `engine`, a second way to host it.

    python gradio_app.py            # http://127.0.0.1:7860 (GRADIO_SERVER_NAME/PORT override)

Each tab is one idea of the chapter and also an API endpoint (its `api_name`), so a
notebook can call the running app with `gradio_client`:

    from gradio_client import Client
    client = Client("http://127.0.0.1:7860/")
    weights, context, summary, chart = client.predict(CHAPTER_MATRIX, True, False, 0, api_name="/attention")

Bad input raises `gr.Error` with the engine's own sentence (the page shows it; the API
caller gets it as the error message). The engine is untouched: every tab only calls
engine functions and draws their results.
"""
from __future__ import annotations

import functools
import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")   # offline: no usage pings

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402

from engine import limits  # noqa: E402
from engine.attention import CHAPTER_TOKENS, CHAPTER_X, self_attention  # noqa: E402
from engine.charts.heatmaps import heatmap  # noqa: E402
from engine.textmatrix import format_matrix, parse_matrix  # noqa: E402

CHAPTER_MATRIX = format_matrix(CHAPTER_X, CHAPTER_TOKENS)
# System fonts: the default theme would ask the visitor's browser to fetch Google Fonts.
THEME = gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                          font_mono=["ui-monospace", "SFMono-Regular", "monospace"])


def engine_call(fn, *args, **kwargs):
    """Run an engine function; its ValueError sentence becomes a gr.Error the student reads."""
    try:
        return fn(*args, **kwargs)
    except ValueError as error:
        raise gr.Error(str(error), title="That input does not work") from None


# --- attention calculator -------------------------------------------------------------------
def attention_tab(x_text: str, scaled: bool, causal: bool, query: float):
    """softmax(Q K^T / sqrt(d_k)) V with Q = K = V = X: weights, context, a sentence, the heatmap."""
    labels, x = engine_call(parse_matrix, x_text or "", what="X")
    labels = [name or f"token {i}" for i, name in enumerate(labels)]
    result = engine_call(self_attention, x, scale=bool(scaled), causal=bool(causal))
    q = engine_call(_index, query, len(labels), "query token")
    weights = pd.DataFrame(result.weights.round(3), columns=labels).assign(query=labels)
    context = pd.DataFrame(result.context.round(3), columns=[f"c[{i}]" for i in range(result.context.shape[1])])
    context.insert(0, "token", labels)
    row = result.weights[q]
    top = int(row.argmax())
    summary = (f"**{labels[q]}** puts its largest weight, **{row[top]:.3f}**, on **{labels[top]}**. "
               f"Each row of alpha sums to 1; d_k = {result.d_k}"
               + (", scores divided by sqrt(d_k)." if scaled else ", scores not scaled (the chapter's raw steps)."))
    chart = heatmap(result.weights, labels, labels, title="alpha: each row sums to 1", domain=(0, 1))
    return weights[["query", *labels]], context, summary, chart


def _index(value, size: int, what: str) -> int:
    if value is None or value != value or not float(value).is_integer():
        raise ValueError(f"The {what} must be a whole number from 0 to {size - 1}.")
    index = int(value)
    if not 0 <= index < size:
        raise ValueError(f"The {what} must be from 0 to {size - 1}; there are {size} tokens.")
    return index


# --- analogy explorer -----------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def glove():
    from engine.embeddings import load_glove
    return load_glove()


def analogy_tab(a: str, b: str, c: str, k: float, method: str):
    """a : b :: c : ?  ranked by cos(w, b - a + c) (3CosAdd) or 3CosMul."""
    from engine.embeddings import solve_analogy

    k = engine_call(_index, k, limits.MAX_NEIGHBOURS + 1, "number of answers")
    if k < 1:
        raise gr.Error("Ask for at least one answer.")
    result = engine_call(solve_analogy, glove(), a, b, c, k=k, method=method or "3cosadd")
    table = pd.DataFrame({"word": result.words, "score": result.scores.astype(float).round(4),
                          "cos(w, b) - cos(w, a) + cos(w, c)": result.cos_add.astype(float).round(4)})
    first, second, third = result.negative[0], result.positive[0], result.positive[1]
    summary = (f"**{first} : {second} :: {third} : {result.words[0]}**  ({result.method}, "
               f"searched the {result.vocab_size:,} most frequent words; input words left out)")
    return table, summary


# --- n-gram sampler ------------------------------------------------------------------------
NGRAM_ORDERS = (2, 3, 4, 5)


@functools.lru_cache(maxsize=1)
def char_counts():
    """The plays' training split as characters, and its n-gram counts up to order 5, counted once."""
    import numpy as np

    from engine.corpus import load_corpus
    from engine.ngram import count_ngrams
    from engine.tokenizers import CharTokenizer

    corpus = load_corpus()
    tokenizer = CharTokenizer.from_text(corpus.text)
    ids = np.asarray(tokenizer.encode(corpus.train), dtype=np.int64)
    return tokenizer, count_ngrams(ids, max(NGRAM_ORDERS), tokenizer.vocab_size)


def ngram_tab(n: float, smoothing: str, temperature: float, seed: float, length: float, prompt: str):
    """w_t ~ P(w | the n-1 characters before it), Kneser-Ney / add-k / MLE from the plays' counts."""
    from engine.ngram import NGramModel

    tokenizer, counts = char_counts()
    n = engine_call(_index, n, max(NGRAM_ORDERS) + 1, "order n")
    if n not in NGRAM_ORDERS:
        raise gr.Error(f"Choose n from {NGRAM_ORDERS[0]} to {NGRAM_ORDERS[-1]}.")
    model = engine_call(NGramModel.from_counts, counts, n, smoothing or "kneser-ney", tokenizer=tokenizer)
    prompt_ids = engine_call(tokenizer.encode, prompt or "")
    length = engine_call(_index, length, limits.MAX_SAMPLE_TOKENS + 1, "sample length")
    seed = engine_call(_index, seed, 2**31, "seed")
    ids = engine_call(model.sample, length, seed=seed, temperature=float(temperature), prompt=prompt_ids)
    following = engine_call(model.distribution, prompt_ids[-(n - 1):] if n > 1 else [])
    table = pd.DataFrame([{"next character": repr(tokenizer.decode([i])), "P": round(p, 4), "count": c}
                          for i, p, c in following.top(10)])
    context = tokenizer.decode(list(following.context))
    summary = (f"{model.name}: after **{context!r}** (seen {following.context_count:,} times at order "
               f"{following.order_used}) the likeliest next characters are below. Temperature {temperature:g}, "
               f"seed {seed}: the same seed gives the same text.")
    return (prompt or "") + tokenizer.decode(ids), table, summary


# --- head viewer ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def smollm2():
    from engine.pretrained import load
    return load()


@functools.lru_cache(maxsize=32)
def _forward(text: str):
    return smollm2().forward_text(text, max_tokens=limits.GRADIO_HEAD_MAX_TOKENS)


def heads_tab(text: str, layer: float, head: float):
    """alpha of one head of SmolLM2-135M: row = the token attending, column = the token attended to."""
    if not isinstance(text, str) or not text.strip():
        raise gr.Error("Type a sentence for the model to read.")
    if len(text) > limits.PRETRAINED_MAX_TEXT_CHARS:
        raise gr.Error(f"The text is {len(text):,} characters; keep it under {limits.PRETRAINED_MAX_TEXT_CHARS:,}.")
    model = engine_call(smollm2)      # a sentence, not a traceback, where the weights are not installed
    result = engine_call(_forward, text)
    layer = engine_call(_index, layer, model.config.n_layer, "layer")
    head = engine_call(_index, head, model.config.n_head, "head")
    alpha = result.weights[layer, head]
    tokens = [t if t.strip() else repr(t) for t in result.tokens]
    table = pd.DataFrame(alpha.round(3), columns=tokens)
    table.insert(0, "query", tokens)
    previous = float(alpha.diagonal(-1).mean()) if len(tokens) > 1 else 0.0
    first = float(alpha[1:, 0].mean()) if len(tokens) > 1 else 1.0
    summary = (f"Layer {layer}, head {head} of {model.config.n_layer} x {model.config.n_head}: on average "
               f"{previous:.2f} of each token's attention goes to the token just before it and {first:.2f} to "
               f"the first token ({tokens[0]})." + (f" {result.note}" if result.note else ""))
    chart = heatmap(alpha, tokens, tokens, title=f"layer {layer}, head {head}", domain=(0, 1),
                    cell=max(14, min(40, 640 // max(len(tokens), 1))), digits=2)
    return table, summary, chart


# --- the app --------------------------------------------------------------------------------
def build() -> gr.Blocks:
    with gr.Blocks(title="Transformer Playground") as demo:
        gr.Markdown("# Transformer Playground\nAttention and the transformer, one idea per tab, on the "
                    "same engine as the Streamlit app. Every tab is also an API endpoint.")
        with gr.Tab("Attention calculator"):
            gr.Markdown("### How does one token decide how much every other token matters?\n"
                        "Edit X (one row per token, `name: numbers`); the weights are softmax of the scores.")
            with gr.Row():
                with gr.Column():
                    x_text = gr.Textbox(CHAPTER_MATRIX, label="X (token embeddings)", lines=5,
                                        max_length=limits.MAX_MATRIX_TEXT_CHARS)
                    scaled = gr.Checkbox(True, label="Scale scores by 1/sqrt(d_k)")
                    causal = gr.Checkbox(False, label="Causal mask (a token sees only itself and earlier ones)")
                    query = gr.Number(0, label="Query token (row)", precision=0, minimum=0,
                                      maximum=limits.MAX_TOKENS - 1)
                    go = gr.Button("Compute attention", variant="primary")
                with gr.Column():
                    chart = gr.Plot(label="Attention weights")
                    summary = gr.Markdown()
            weights = gr.Dataframe(label="alpha (row: query, column: key)")
            context = gr.Dataframe(label="context c_i = sum_j alpha_ij x_j")
            inputs, outputs = [x_text, scaled, causal, query], [weights, context, summary, chart]
            go.click(attention_tab, inputs, outputs, api_name="attention")
            demo.load(attention_tab, inputs, outputs, api_name=False)

        with gr.Tab("Analogy explorer"):
            gr.Markdown("### a is to b as c is to what?\nGloVe 6B 50-d word vectors: the answer is the word "
                        "nearest to b - a + c.")
            with gr.Row():
                a = gr.Textbox("man", label="a")
                b = gr.Textbox("king", label="b")
                c = gr.Textbox("woman", label="c")
            with gr.Row():
                k = gr.Slider(1, limits.MAX_NEIGHBOURS, value=5, step=1, label="answers shown")
                method = gr.Radio(["3cosadd", "3cosmul"], value="3cosadd", label="method")
            solve = gr.Button("Solve the analogy", variant="primary")
            analogy_summary = gr.Markdown()
            answers = gr.Dataframe(label="best answers")
            solve.click(analogy_tab, [a, b, c, k, method], [answers, analogy_summary], api_name="analogy")

        with gr.Tab("N-gram sampler"):
            gr.Markdown("### How far do counts get you?\nCharacter n-grams of 38 Shakespeare plays: each character "
                        "is drawn from P(w | the n-1 before it). The first use counts the plays (a few seconds).")
            with gr.Row():
                n = gr.Slider(NGRAM_ORDERS[0], NGRAM_ORDERS[-1], value=3, step=1, label="n")
                smoothing = gr.Radio(["kneser-ney", "add-k", "none"], value="kneser-ney", label="smoothing")
                temperature = gr.Slider(0, 3, value=1.0, step=0.05, label="temperature (0: greedy)")
            with gr.Row():
                seed = gr.Number(0, label="seed", precision=0, minimum=0)
                length = gr.Slider(10, 1000, value=300, step=10, label="characters to sample")
            prompt = gr.Textbox("Romeo:", label="Start with", max_length=limits.MAX_TOKENIZE_CHARS)
            sample = gr.Button("Sample", variant="primary")
            ngram_summary = gr.Markdown()
            sampled = gr.Textbox(label="Sampled text", lines=8)
            next_chars = gr.Dataframe(label="P(next character | the prompt's last n-1)")
            sample.click(ngram_tab, [n, smoothing, temperature, seed, length, prompt],
                         [sampled, next_chars, ngram_summary], api_name="ngram")

        with gr.Tab("Head viewer (SmolLM2)"):
            gr.Markdown("### What does each head of a real trained model look at?\nSmolLM2-135M: 30 layers x 9 "
                        "heads. Pick a layer and a head; the first use loads the model (about half a minute).")
            sentence = gr.Textbox("The cat sat on the mat because the cat was tired.", label="Sentence")
            with gr.Row():
                layer = gr.Slider(0, 29, value=0, step=1, label="layer")
                head = gr.Slider(0, 8, value=0, step=1, label="head")
            show = gr.Button("Show the head", variant="primary")
            head_summary = gr.Markdown()
            head_chart = gr.Plot(label="alpha of this head")
            head_table = gr.Dataframe(label="alpha (row: query, column: key)")
            show.click(heads_tab, [sentence, layer, head], [head_table, head_summary, head_chart], api_name="heads")
    return demo


demo = build()

if __name__ == "__main__":
    demo.queue(default_concurrency_limit=2).launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")), theme=THEME, show_error=True)
