"""N-gram sampler (views/ngram.py) in the Gradio Space: the same spec (engine.chapter.ngram: the title's question, the
prompt limit, the loop length) and the same sample from it, `sampled`. The tab samples characters of all 38 plays."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr

from engine import limits, markup, numbers
from engine.i18n import N_, _
from engine.chapter.ngram import PAGE, sampled
from engine.language.corpus import ALL_PLAYS
from engine.language.ngram import loop_sentence
from gradio_tabs import loaders
from engine.language.ngram import SMOOTHING_NAMES
from gradio_tabs.common import choices, engine_call, label_of, question, refuse, say, table, whole

P = PAGE.by_name


def from_link(values: Mapping[str, Any]):
    """The tab's outputs for a page's typed link values (PAGE.values): the sampled text, the next tokens after the
    start's last n-1, and the sentence; the plays only (the tab has no text of one's own)."""
    if values["source"] != ALL_PLAYS:
        refuse(_("The Space samples from all 38 plays; open the app to pick one play or your own text."))
    level = values["level"]
    tokenizer = engine_call(lambda: loaders.tokens(level)[0])
    shown = engine_call(sampled, values, tokenizer, loaders.counts(level))
    n, temperature, seed = int(values["n"]), float(values["temperature"]), int(values["seed"])
    following = engine_call(shown.model.distribution, shown.start[-(n - 1):] if n > 1 else [])
    following_name = _("next character") if level == "characters" else _("next token")
    rows = [{following_name: repr(tokenizer.decode([i])), "P": round(p, 4), _("count"): c}
            for i, p, c in following.top(10)]
    looped = (" " + _("The sample falls into {why}",
                      why=loop_sentence(shown.loop, n, temperature, characters=level == "characters"))
              if shown.loop is not None else "")
    said = {"model": shown.model.name, "context": markup.said(tokenizer.decode(list(following.context))),
            "seen": numbers.grouped(following.context_count), "order": following.order_used,
            "tau": numbers.localized(f"{temperature:g}"), "seed": seed}
    summary = (_("{model}: after **{context}** (seen {seen} times at order {order}) the likeliest next characters "
                 "are below. Temperature {tau}, seed {seed}: the same seed gives the same text.", **said)
               if level == "characters" else
               _("{model}: after **{context}** (seen {seen} times at order {order}) the likeliest next tokens are "
                 "below. Temperature {tau}, seed {seed}: the same seed gives the same text.", **said)) + looped
    return values["prompt"] + tokenizer.decode(shown.ids), table(rows), summary


def ngram_tab(n: float, smoothing: str, temperature: float, seed: float, length: float, prompt: str):
    """w_t ~ P(w | the n-1 characters before it), Kneser-Ney / add-k / MLE from the plays' counts."""
    values = PAGE.defaults() | {
        "level": "characters", "n": whole(n, 1, limits.MAX_NGRAM_ORDER, _("order n")),
        "smoothing": smoothing or "kneser-ney", "temperature": float(temperature),
        "seed": whole(seed, 0, 2**31 - 1, _("seed")),
        "length": whole(length, 0, limits.MAX_SAMPLE_TOKENS, _("sample length")),
        "prompt": prompt if isinstance(prompt, str) else ""}
    return from_link(values)


def ngram_sampler_tab(demo: gr.Blocks) -> None:
    question(PAGE.question,
             N_("Character n-grams of 38 Shakespeare plays: each character is drawn from P(w | the n-1 before it)."))
    with gr.Row():
        n = gr.Slider(1, limits.MAX_NGRAM_ORDER, value=3, step=1, label=label_of(P["n"]))
        smoothing = gr.Radio(choices({s: SMOOTHING_NAMES[s] for s in ("kneser-ney", "add-k", "none")}),
                             value="kneser-ney", label=label_of(P["smoothing"]))
        temperature = gr.Slider(0, 3, value=1.0, step=0.05, label=label_of(P["temperature"]))
    with gr.Row():
        seed = gr.Number(0, label=label_of(P["seed"]), precision=0, minimum=0)
        length = gr.Slider(10, 1000, value=300, step=10, label=label_of(P["length"]))
    prompt = gr.Textbox("Romeo:", label=label_of(P["prompt"]), max_length=limits.NGRAM_MAX_PROMPT_CHARS)
    sample = gr.Button(say("Sample"), variant="primary")
    summary = gr.Markdown(label=say("summary"))
    text = gr.Textbox(label=say("Sampled text"), lines=8)
    next_chars = gr.Dataframe(label=say("P(next character | the prompt's last n-1)"))

    sample.click(ngram_tab, [n, smoothing, temperature, seed, length, prompt], [text, next_chars, summary],
                 api_name="ngram")
