"""Generate (views/generate.py) in the Gradio Space: the same spec (engine.chapter.generate: defaults, labels, limits,
the models, the sentences it says) and the same draws from it, `samples`; the model ladder with the page's bars and
sentences."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr

from engine import limits
from engine.chapter.generate import (
    LADDER_HEADING, MAX_SEED, MODEL_NAMES, NGRAMS, PAGE, SAMPLES_TITLE, SHIPPED, TEMPERATURE_STEP, ladder,
    ladder_reading, model_name, sampling, samples,
)
from engine.charts.bars import ladder_bars, next_token_bars
from engine.charts.style import visible
from engine.i18n import _, ngettext
from engine.transformer.generation import generate
from gradio_tabs import loaders
from gradio_tabs.common import (
    chart, engine_call, heading, kept, label_of, plot, question, refuse, say, static, table, whole,
)

P = PAGE.by_name
CHOICES = [SHIPPED, *NGRAMS]     # the Space trains no live model: the page's other models


def _language_model(name: str):
    if name == SHIPPED:
        return loaders.shipped()[0]
    if name in NGRAMS:
        return loaders.char_ngram(NGRAMS[name])
    refuse(_("Choose models among: {models}; not {name}.", models=", ".join(CHOICES), name=repr(name)))


def _generation(name: str, prompt: str, temperature: float, top_k: int | None, length: int, seed: int):
    """One model's draw, as engine.chapter.generate.samples asks for it."""
    return generate(_language_model(name), prompt, length, seed=seed, temperature=temperature, top_k=top_k)


def from_link(values: Mapping[str, Any], step: int = 1):
    """The generate endpoint's outputs for a page's typed link values (PAGE.values) and a step shown: the samples,
    the likeliest next characters at that step, their bars, the page's sentence on them, the samples as text."""
    shown = engine_call(samples, values, _generation)
    decode = loaders.tokens("characters")[0].decode
    prompt = shown.settings.prompt
    model, sample, character = _("model"), _("sample"), _("character")
    rows_of_samples = [{model: model_name(name), sample: prompt + g.text} for name, g in shown.generations.items()]
    tops = {model_name(name): top for name, top in shown.top(step, decode).items()}
    rows = [{model: name, character: visible(c), "P": round(p, 4), _("q (sampled from)"): round(q, 4)}
            for name, top in tops.items() for c, p, q in top]
    summary = ngettext("Step {step}: each model's context is the prompt plus its own {n} earlier draws. {likeliest} "
                       "The same seed draws the same random numbers for every model.",
                       "Step {step}: each model's context is the prompt plus its own {n} earlier draws. {likeliest} "
                       "The same seed draws the same random numbers for every model.",
                       step - 1, step=step, likeliest=shown.likeliest(step, decode))
    texts = "\n\n".join(f"**{row[model]}**\n```text\n{row[sample]}\n```" for row in rows_of_samples)
    return table(rows_of_samples), table(rows), plot(next_token_bars(tops, width=220)), summary, texts


def generate_tab(prompt: str, models: list[str], temperature: float, top_k: float, length: float, seed: float,
                 step: float):
    """The same prompt and seed through each model, one character at a time: the samples, and each model's
    P(next character) at one step (p as the model gives it, q after temperature and top-k)."""
    models = list(dict.fromkeys(models or []))
    if not 1 <= len(models) <= limits.GENERATE_MAX_MODELS:
        refuse(_("Choose 1 to {most} models to compare side by side.", most=limits.GENERATE_MAX_MODELS))
    for name in models:
        _language_model(name)
    values = PAGE.defaults() | {
        "gen_prompt": prompt or "", "gen_models": ",".join(models), "gen_temperature": float(temperature),
        "gen_top_k": whole(top_k, 0, limits.GENERATE_MAX_TOP_K, _("top-k (0 keeps all)")),
        "gen_length": whole(length, 1, limits.MAX_GENERATE_TOKENS, _("number of characters")),
        "gen_seed": whole(seed, 0, MAX_SEED, _("seed"))}
    engine_call(sampling, values)            # the page's limits, before any model runs
    return from_link(values, whole(step, 1, values["gen_length"], _("step")))


def ladder_tab():
    """Every character n-gram (1 to 8) and the shipped transformer on the same held-out characters, in bits
    per character (fewer is better), with a uniform guess as the floor."""
    rungs = engine_call(loaders.ladder)
    bars = ladder(rungs, loaders.tokens("characters")[0].vocab_size)
    rows = [{_("model"): model_name(r.model), _("bits per character"): round(r.bits_per_char, 4),
             _("nats per token"): round(r.nats_per_token, 4), _("held-out characters"): r.n_characters} for r in rungs]
    return (table(rows), plot(ladder_bars([(model_name(b.model), b.bits_per_char, b.kind) for b in bars])),
            ladder_reading(bars))


def generate_page_tab(demo: gr.Blocks) -> None:
    question(PAGE.question, lambda: P["gen_prompt"].help)
    prompt = gr.Textbox(P["gen_prompt"].default, label=label_of(P["gen_prompt"]), lines=2,
                        max_length=limits.MAX_PROMPT_CHARS)
    # the n-grams keep their names ("3-gram") in every language, as the page names them
    models = gr.Dropdown([(static(lambda m=m: model_name(m)) if m in MODEL_NAMES else kept(m), m) for m in CHOICES],
                         value=P["gen_models"].default.split(","),
                         multiselect=True, max_choices=limits.GENERATE_MAX_MODELS, label=label_of(P["gen_models"]))
    with gr.Row():
        temperature = gr.Slider(0.0, limits.GENERATE_MAX_TEMPERATURE, value=P["gen_temperature"].default,
                                step=TEMPERATURE_STEP, label=label_of(P["gen_temperature"]))
        top_k = gr.Number(P["gen_top_k"].default, label=label_of(P["gen_top_k"]), precision=0, minimum=0,
                          maximum=limits.GENERATE_MAX_TOP_K)
        length = gr.Number(P["gen_length"].default, label=label_of(P["gen_length"]), precision=0, minimum=1,
                           maximum=limits.MAX_GENERATE_TOKENS)
        seed = gr.Number(P["gen_seed"].default, label=label_of(P["gen_seed"]), precision=0, minimum=0)
        step = gr.Number(1, label=say("step shown"), precision=0, minimum=1)
    go = gr.Button(say("Generate"), variant="primary")
    summary = gr.Markdown(label=say("summary"))
    texts = gr.Markdown(label=say("The samples, as text"))
    samples_ = gr.Dataframe(label=say(SAMPLES_TITLE), visible=False)
    bars = chart(label=say("P(next character) at that step (orange: q, what is sampled)"))
    following = gr.Dataframe(label=say("The likeliest next characters"), max_height=360)
    inputs = [prompt, models, temperature, top_k, length, seed, step]
    outputs = [samples_, following, bars, summary, texts]
    go.click(generate_tab, inputs, outputs, api_name="generate")
    demo.load(generate_tab, inputs, outputs, api_visibility="private")

    heading(LADDER_HEADING)
    rank = gr.Button(say("Rank the models"), variant="primary")
    sentences = gr.Markdown(label=say("summary"))
    ladder_chart = chart(label=say("The ladder"))
    rungs = gr.Dataframe(label=say("Every model on the same held-out text"))
    rank.click(ladder_tab, [], [rungs, ladder_chart, sentences], api_name="ladder")
    demo.load(ladder_tab, [], [rungs, ladder_chart, sentences], api_visibility="private")
