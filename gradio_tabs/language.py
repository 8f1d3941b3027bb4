"""Language modelling: the N-gram sampler (views/ngram.py); the Tokens page has its own, gradio_tabs/tokens.py."""
from __future__ import annotations

import gradio as gr

from engine import limits, markup
from engine.language.ngram import NGramModel, find_loop, loop_sentence, sample_context
from gradio_tabs import loaders
from gradio_tabs.common import engine_call, question, table, whole

# --- n-gram sampler ------------------------------------------------------------------------------------
MIN_LOOP = 16       # characters in a row that repeat a cycle before the sampler calls it a loop (the page's)


def ngram_tab(n: float, smoothing: str, temperature: float, seed: float, length: float, prompt: str):
    """w_t ~ P(w | the n-1 characters before it), Kneser-Ney / add-k / MLE from the plays' counts."""
    tokenizer = engine_call(lambda: loaders.tokens("characters")[0])
    n = whole(n, 1, limits.MAX_NGRAM_ORDER, "order n")
    model = engine_call(NGramModel.from_counts, loaders.counts("characters"), n, smoothing or "kneser-ney",
                        tokenizer=tokenizer)
    context = engine_call(sample_context, tokenizer, prompt or "")   # no prompt: after a line break, as the page
    length = whole(length, 0, limits.MAX_SAMPLE_TOKENS, "sample length")
    seed = whole(seed, 0, 2**31 - 1, "seed")
    ids = engine_call(model.sample, length, seed=seed, temperature=float(temperature), prompt=context)
    following = engine_call(model.distribution, context[-(n - 1):] if n > 1 else [])
    rows = [{"next character": repr(tokenizer.decode([i])), "P": round(p, 4), "count": c}
            for i, p, c in following.top(10)]
    loop = find_loop(ids, min_length=MIN_LOOP)
    looped = (" The sample falls into " + loop_sentence(loop, n, float(temperature), "character(s)")
              if loop is not None else "")
    summary = (f"{model.name}: after **{markup.said(tokenizer.decode(list(following.context)))}** (seen "
               f"{following.context_count:,} times at order {following.order_used}) the likeliest next characters "
               f"are below. Temperature {temperature:g}, seed {seed}: the same seed gives the same text.{looped}")
    return (prompt or "") + tokenizer.decode(ids), table(rows), summary


def ngram_sampler_tab(demo: gr.Blocks) -> None:
    question("How far can counting the last n-1 tokens take a language model?",
             "Character n-grams of 38 Shakespeare plays: each character is drawn from P(w | the n-1 before it).")
    with gr.Row():
        n = gr.Slider(1, limits.MAX_NGRAM_ORDER, value=3, step=1, label="n")
        smoothing = gr.Radio(["kneser-ney", "add-k", "none"], value="kneser-ney", label="smoothing")
        temperature = gr.Slider(0, 3, value=1.0, step=0.05, label="temperature (0: greedy)")
    with gr.Row():
        seed = gr.Number(0, label="seed", precision=0, minimum=0)
        length = gr.Slider(10, 1000, value=300, step=10, label="characters to sample")
    prompt = gr.Textbox("Romeo:", label="Start with", max_length=limits.MAX_TOKENIZE_CHARS)
    sample = gr.Button("Sample", variant="primary")
    summary = gr.Markdown(label="summary")
    sampled = gr.Textbox(label="Sampled text", lines=8)
    next_chars = gr.Dataframe(label="P(next character | the prompt's last n-1)")
    sample.click(ngram_tab, [n, smoothing, temperature, seed, length, prompt], [sampled, next_chars, summary],
                 api_name="ngram")
