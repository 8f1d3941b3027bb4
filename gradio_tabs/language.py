"""Language modelling: Tokens & next-token prediction, and the N-gram sampler (views/tokens.py, views/ngram.py)."""
from __future__ import annotations

import html

import gradio as gr

from engine import limits, markup
from engine.charts.bars import next_token_bars
from engine.charts.style import visible
from engine.language.ngram import (
    SMOOTHING_NAMES, SMOOTHINGS, NGramModel, find_loop, loop_sentence, prompt_ids, sample_context,
)
from engine.language.tokenizers import LEVELS, check_typed_text, token_text, tokenize, train_bpe
from gradio_tabs import loaders
from gradio_tabs.common import results, engine_call, plot, question, refuse, table, whole

# --- tokens & next-token prediction ------------------------------------------------------------------
DEFAULT_TEXT = ("Mary had a little lamb, its fleece was white as snow; and everywhere that Mary went, "
                "the lamb was sure to go.")
DEFAULT_PROMPT = "Mary had a little"
BPE_SOURCES = ("the corpus (first 100,000 characters)", "the text above")
TOP_SHOWN = 10
PROMPT_CHARS = 400          # the Tokens page's context box
SMOLLM2 = "SmolLM2-135M, web text"


def _tokenizers(text: str, merges: int, bpe_source: str) -> list[tuple[str, object]]:
    """The page's four tokenizers, in its order; a BPE learned from the text itself may refuse it."""
    if bpe_source == BPE_SOURCES[0]:
        bpe = loaders.corpus_bpe().truncated(merges)
    elif bpe_source == BPE_SOURCES[1]:
        bpe = train_bpe(text, merges)
    else:
        raise ValueError(f"Learn the BPE merges from one of: {'; '.join(BPE_SOURCES)}.")
    return [("Characters", loaders.corpus_characters()), ("Words", loaders.tokens("words")[0]),
            (f"BPE, {merges} merges", bpe), ("GPT-2 BPE", loaders.gpt2())]


def _chips(tokens: list[str], ids: list[int], unknown_id: int | None) -> str:
    """Tokens as chips (HTML code spans): spaces as '␣', a word the corpus never uses struck through."""
    return " ".join(f"<code>{'<s>' if i == unknown_id else ''}{html.escape(visible(t))}"
                    f"{'</s>' if i == unknown_id else ''}</code>" for t, i in zip(tokens, ids))


def tokenize_tab(text: str, merges: float, bpe_source: str):
    """The text cut by characters, words, BPE (`merges` merges) and GPT-2's BPE: one summary row per
    tokenizer, one row per token, and the tokens as chips. A tokenizer that cannot read the text (a
    character the plays never use) gets its sentence in the summary; the others go on."""
    text = engine_call(check_typed_text, text if isinstance(text, str) else "")
    merges = whole(merges, 0, limits.TOKENS_BPE_MERGES, "number of merges")
    overview, rows, chips = [], [], []
    for label, tokenizer in engine_call(_tokenizers, text, merges, bpe_source):
        try:
            result = tokenize(tokenizer, text)
        except ValueError as error:
            overview.append((label, tokenizer.vocab_size, None, None, str(error)))
            chips.append(f"**{label}**: {markup.markdown(error)}")
            continue
        overview.append((label, result.vocab_size, len(result.ids), round(result.characters_per_token, 2), ""))
        rows += [(label, t, visible(token), i) for t, (token, i) in enumerate(zip(result.tokens, result.ids))]
        chips.append(f"**{label}** ({len(result.ids)} tokens): {_chips(result.tokens, result.ids, result.unknown_id)}")
    return (table(overview, ["tokenizer", "vocabulary size V", "tokens for your text", "characters per token",
                             "note"]),
            table(rows, ["tokenizer", "position", "token", "id"]), "\n\n".join(chips))


def next_token_tab(prompt: str, level: str, n: float, smoothing: str, with_smollm2: bool):
    """P(next token | the prompt) from an n-gram of the plays at a token level, beside SmolLM2's when asked."""
    n = whole(n, 1, limits.MAX_NGRAM_ORDER, "order n")
    if len(prompt or "") > PROMPT_CHARS:
        refuse(f"The context has {len(prompt):,} characters; keep it under {PROMPT_CHARS}.")
    tokenizer = engine_call(lambda: loaders.tokens(level)[0])
    model = engine_call(NGramModel.from_counts, loaders.counts(level), n, smoothing, tokenizer=tokenizer)
    distribution = engine_call(model.distribution, engine_call(prompt_ids, tokenizer, prompt or ""))
    top = distribution.top(TOP_SHOWN)
    name = f"{model.name}, Shakespeare"
    rows = [(name, visible(token_text(tokenizer, i)), round(p, 4), count) for i, p, count in top]
    shown = {name: [(token_text(tokenizer, i), p) for i, p, _ in top]}
    note = ""
    if with_smollm2:
        try:
            from engine.pretrained import smollm2 as pretrained

            found = pretrained.next_token_distribution(prompt, TOP_SHOWN, model=loaders.smollm2())
            pairs = list(zip(found.tokens, map(float, found.probabilities)))
            shown[SMOLLM2] = pairs
            rows += [(SMOLLM2, visible(token), round(p, 4), None) for token, p in pairs]
        except ValueError as error:            # the n-gram's answer stands; say why SmolLM2's is missing
            note = f" SmolLM2: {markup.markdown(error)}"
    context = " ".join(visible(token_text(tokenizer, i)) for i in distribution.context)
    best_id, best_p, _ = top[0]
    summary = (f"{name}: the context **{markup.markdown(context) or '(none)'}** was followed "
               f"{distribution.context_count:,} times by some token (order {distribution.order_used}); the likeliest "
               f"next token is **{markup.markdown(visible(token_text(tokenizer, best_id)))}**, P = {best_p:.3f}.{note}")
    bars = next_token_bars(shown, title=f"P(next token | '{(prompt or '')[-40:]}')")
    return table(rows, ["model", "token", "P", "count"]), plot(bars), summary


def tokens_tab(demo: gr.Blocks) -> None:
    question("What does a language model predict, and what exactly is a token?",
             "First the prediction: P(next token) after a context, from counts of the 38 plays (and from "
             "SmolLM2, a transformer trained on web text). Then the tokens themselves, four ways.")
    with gr.Row():
        prompt = gr.Textbox(DEFAULT_PROMPT, label="Context (the text so far)", max_length=PROMPT_CHARS, scale=3)
        level = gr.Radio(list(LEVELS), value="words", label="Token level")
    with gr.Row():
        n = gr.Slider(1, limits.MAX_NGRAM_ORDER, value=3, step=1, label="n (the model sees the n-1 tokens before)")
        smoothing = gr.Dropdown([(SMOOTHING_NAMES[s], s) for s in SMOOTHINGS], value="kneser-ney",
                                label="Smoothing")
        with_smollm2 = gr.Checkbox(True, label="Beside it: SmolLM2-135M (its own tokens; loads once)")
    predict = gr.Button("Predict the next token", variant="primary")
    predict.click(next_token_tab, [prompt, level, n, smoothing, with_smollm2],
                  results("P(next token)", "The likeliest next tokens"), api_name="next_token")

    gr.Markdown("#### What exactly is a token?")
    text = gr.Textbox(DEFAULT_TEXT, label="Your text", lines=3, max_length=limits.MAX_TOKENIZE_CHARS)
    with gr.Row():
        merges = gr.Slider(0, limits.TOKENS_BPE_MERGES, value=200, step=10, label="BPE merges to learn")
        source = gr.Radio(list(BPE_SOURCES), value=BPE_SOURCES[0], label="Learn the merges from")
    cut = gr.Button("Tokenize", variant="primary")
    chips = gr.Markdown(label="summary")
    overview = gr.Dataframe(label="Each tokenizer on your text")
    pieces = gr.Dataframe(label="Every token, in order", max_height=300)
    cut.click(tokenize_tab, [text, merges, source], [overview, pieces, chips], api_name="tokenize")
    demo.load(tokenize_tab, [text, merges, source], [overview, pieces, chips], api_visibility="private")


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
