"""SmolLM2 pieces other pages call with one line: next-token bars, contextual vectors per layer,
the model ladder's entry, sampling, and the "what the model absorbed" probes.

Each piece loads the model through `ui.loaders.smollm2` (once per server) and shows a
missing or damaged weights package as an st.error naming what to install.
"""
from __future__ import annotations

import dataclasses
import html

import numpy as np
import streamlit as st

from engine import limits, markup, numbers
from engine.chapter.heads import MODEL
from engine.chapter.spec import Param
from engine.chapter.tokens import smollm2_series
from engine.pretrained import smollm2 as pretrained
from engine.charts.bars import grouped_probabilities, next_token_bars
from engine.charts.lines import cosine_by_layer
from engine.charts.palette import BLUE
from engine.i18n import _
from ui import charts, decimal_slider, loaders, page, tables

HOMONYMS = [
    ("crane", "By the lake a tall white bird stood still in the water: a crane",
     "On the building site the steel beams were lifted by a crane"),
    ("bank", "We had a picnic on the grass by the river, sitting on the bank",
     "I paid my salary into my savings account at the bank"),
]
FACT_PROMPTS = ["The capital of Italy is", "Water freezes at a temperature of", "The Eiffel Tower is in the city of"]
PRONOUN_PROMPTS = ("The nurse said that", "The engineer said that")
PRONOUNS = [" he", " she", " they"]


@st.cache_data(max_entries=64, show_spinner=False)
def _next_tokens(text: str, k: int):
    return pretrained.next_token_distribution(text, k, model=loaders.smollm2())


@st.cache_data(max_entries=64, show_spinner=False)
def _candidates(text: str, candidates: tuple[str, ...]):
    return pretrained.candidate_probabilities(text, candidates, model=loaders.smollm2())


@st.cache_data(max_entries=64, show_spinner="SmolLM2 writes, one token at a time...")
def _generation(prompt: str, length: int, temperature: float, top_k: int, seed: int):
    """A seed fixes the draw, so one generation per settings serves every session. SmolLM2 draws in the pages'
    sampling format (loaders.smollm2_sampler: float32 until a cheaper one qualifies); the probabilities shown are
    float32's."""
    return pretrained.sample_text(prompt, max_new_tokens=length, temperature=temperature, top_k=top_k, seed=seed,
                                  model=loaders.smollm2(), sampler=loaders.smollm2_sampler())



def load_smollm2():
    """The shared SmolLM2, or None after an st.error saying which package to install."""
    return page.run_engine(loaders.smollm2)


# --- bring your own model: which pretrained model a page reads ---------------------------------------

def model_param(name: str = "model") -> Param:
    """The link parameter of a page's model picker: the head viewer's spec's (engine.chapter.heads.MODEL: SmolLM2
    by default, any model of engine.pretrained.smollm2.available_models(), the selectbox's label and help), under
    `name`. Declare it in the page's PageState and pass its name to `model_picker`."""
    return MODEL if name == MODEL.name else dataclasses.replace(MODEL, name=name)


def model_picker(state, key: str) -> str:
    """The name of the model the page reads: a selectbox in the current container (the page's settings),
    shown only when PLAYGROUND_MODELS adds models to SmolLM2. `state` declares `key` (its spec's model Param,
    engine.chapter.heads.MODEL, with the selectbox's label and help); a kept value that is no longer there (the
    folder changed) goes back to SmolLM2."""
    names = list(pretrained.available_models())
    if state.get(key) not in names:
        state[key] = names[0]
    if len(names) > 1:
        param = state.params[key]
        st.selectbox(param.label, names, key=state.key(key), help=param.help)
    for sentence in pretrained.refused_models().values():   # links that leave the folder, things that are not files
        st.caption(markup.markdown(sentence))
    return state[key]


def load_model(name: str):
    """The shared model called `name` (`model_picker`), or None after an st.error saying why it cannot be read."""
    return page.run_engine(loaders.pretrained_model, name)


@st.cache_data(max_entries=16, show_spinner="SmolLM2 reads both sentences...")
def _contextual(word: str, sentence_a: str, sentence_b: str):
    model = loaders.smollm2()
    a = pretrained.contextual_vectors(sentence_a, word, model=model)
    b = pretrained.contextual_vectors(sentence_b, word, model=model)
    return pretrained.cosine_per_layer(a, b)


def next_token_pairs(text: str, k: int = 10) -> dict[str, list[tuple[str, float]]]:
    """{"SmolLM2-135M, web text": [(token, P), ...]} (its name engine.chapter.tokens.smollm2_series, in the reader's
    language) for charts that draw several models' top tokens;
    {} (after an st.error) when the model is missing or the text is not usable."""
    if load_smollm2() is None:
        return {}
    dist = page.run_engine(_next_tokens, text, k)
    if dist is None:
        return {}
    return _named(dist)


def _named(dist) -> dict[str, list[tuple[str, float]]]:
    """A NextTokenDistribution as next_token_bars draws it: {model name: [(token, P), ...]}."""
    return {smollm2_series(): list(zip(dist.tokens, map(float, dist.probabilities)))}


def contextual_similarity_panel(pairs: list[tuple[str, str, str]] | None = None, *,
                                static_cosine: dict[str, float] | None = None):
    """Cosine between a word's SmolLM2 hidden states in two sentences, per layer, for each (word, a, b).

    Layer 0 is SmolLM2's own static vector (cosine 1: one vector per word form, like GloVe);
    `static_cosine` adds a note per word, e.g. {"crane": 1.0} for the page's static vectors.
    Returns {label of the pair: cosines per layer} (or None when the model is missing).
    """
    if load_smollm2() is None:
        return None
    pairs = pairs or HOMONYMS
    cosines = {}
    for word, sentence_a, sentence_b in pairs:
        values = page.run_engine(_contextual, word, sentence_a, sentence_b)
        if values is not None:
            cosines[f"{word}: '…{sentence_a[-24:]}' vs '…{sentence_b[-24:]}'"] = values
    if not cosines:
        return None
    charts.show(cosine_by_layer(cosines, title=_("One word, two contexts: how alike are SmolLM2's vectors?")),
                width="stretch")
    notes = []
    for name, values in cosines.items():
        if values.min() > 0.999:
            notes.append(_("{name}: identical at every layer, because nothing *before* the word differs.",
                           name=name))
        else:
            notes.append(_("{name}: lowest cosine {cosine} at layer {layer}.", name=name,
                           cosine=numbers.fixed(values.min(), 2), layer=int(values.argmin())))
    st.caption(_("Layer 0 is SmolLM2's own static vector, one per token like GloVe's, so the cosine starts at 1. "
                 "SmolLM2 reads left to right: a word's vector only takes in the words before it, so put the "
                 "context first.") + " " + " ".join(notes))
    if static_cosine:
        st.caption(_("A static vector is the same in every sentence: {cosines}.", cosines=", ".join(
            f"{word} {numbers.fixed(value, 2)}" for word, value in static_cosine.items())))
    return cosines


@st.cache_data(max_entries=4, show_spinner="SmolLM2 scores the held-out text...")
def _bits_per_character(text: str):
    return pretrained.score_text(text, model=loaders.smollm2())


def model_ladder_entry(held_out_text: str):
    """SmolLM2's bits per character on the shared held-out text (a BitsPerCharacter, or None).

    The text is cut to the scoring limit; the same cut should be used for the other rungs.
    """
    if load_smollm2() is None:
        return None
    return page.run_engine(_bits_per_character, held_out_text[:limits.PRETRAINED_MAX_EVAL_CHARS])


SAMPLE_DEFAULTS = {"prompt": "Once upon a time", "length": 30, "temperature": 0.8, "top_k": 40, "seed": 0}


def default_sample():
    """The sampling panel's first view, generated once per server (ui.warmup fills it)."""
    d = SAMPLE_DEFAULTS
    return _generation(d["prompt"], d["length"], d["temperature"], d["top_k"], d["seed"])


def sampling_panel(default_prompt: str = SAMPLE_DEFAULTS["prompt"], *, key: str = "smollm2"):
    """Prompt, temperature, top-k and seed; SmolLM2's continuation and each step's top candidates."""
    model = load_smollm2()
    if model is None:
        return None
    d = SAMPLE_DEFAULTS
    prompt = st.text_input(_("Prompt for SmolLM2"), default_prompt, key=f"{key}_prompt",
                           max_chars=limits.PRETRAINED_MAX_TEXT_CHARS)
    columns = st.columns(4)
    st.session_state.setdefault(f"{key}_temperature", d["temperature"])
    temperature = decimal_slider.slider(columns[0], _("Temperature τ"), 0.0, 2.0, step=0.1, key=f"{key}_temperature")
    top_k = columns[1].slider("top-k", 1, limits.PRETRAINED_MAX_TOP_K, d["top_k"], key=f"{key}_top_k")
    seed = columns[2].number_input(_("Seed"), 0, 10_000, d["seed"], key=f"{key}_seed")
    length = columns[3].slider(_("New tokens"), 1, limits.PRETRAINED_MAX_NEW_TOKENS, d["length"], key=f"{key}_length")
    generation = page.run_engine(_generation, prompt, int(length), float(temperature), int(top_k), int(seed))
    if generation is None:
        return None
    # HTML, not Markdown: a blank line in the sample would end an HTML block, and what follows would be Markdown
    st.html(f"<div style='white-space: pre-wrap; border-left: 3px solid {BLUE}; padding-left: 0.8em'>"
            f"{html.escape(prompt)}<b>{html.escape(generation.text)}</b></div>")
    box = page.folded(_("The distribution at each step"), f"{key}_steps", icon=":material/bar_chart:")
    if box.open:
        with box:
            tables.table([{_("step"): i + 1, _("chosen"): step.token, _("P(chosen)"): step.probability,
                           _("top 5"): "  ".join(f"{t!r} {numbers.fixed(p, 2)}"
                                                 for t, p in zip(step.top_tokens, step.top_probabilities))}
                          for i, step in enumerate(generation.steps)], digits=3)
    return generation


def warm_absorbed_probes() -> None:
    """Fill the caches absorbed_probes reads on its first view (the warm-up calls this: ui/warmup.py)."""
    _next_tokens(FACT_PROMPTS[0], 5)
    for prompt in PRONOUN_PROMPTS:
        _candidates(prompt, tuple(PRONOUNS))


def absorbed_probes(*, key: str = "absorbed"):
    """A fact it learned and a pronoun probe (nurse vs engineer -> he / she / they), framed as evidence.

    Returns {prompt: [P(he), P(she), P(they)]} for the two prompts (or None when the model is missing).
    """
    if load_smollm2() is None:
        return None
    fact_column, pronoun_column = st.columns(2)
    with fact_column:
        fact = st.selectbox(_("A fact it may have learned"), FACT_PROMPTS, key=f"{key}_fact")
        dist = page.run_engine(_next_tokens, fact, 5)
        if dist is not None:
            charts.show(next_token_bars(_named(dist), title=_("After '{prompt}'", prompt=fact), width=320), share=0.5)
    with pronoun_column:
        first = st.text_input(_("Prompt A"), PRONOUN_PROMPTS[0], key=f"{key}_a", max_chars=200)
        second = st.text_input(_("Prompt B"), PRONOUN_PROMPTS[1], key=f"{key}_b", max_chars=200)
        probs = {}
        for prompt in (first, second):
            found = page.run_engine(_candidates, prompt, tuple(PRONOUNS))
            if found is not None:
                probs[prompt] = [found[p] for p in PRONOUNS]
        if len(probs) == 2:
            charts.show(grouped_probabilities({name: np.array(values) for name, values in probs.items()},
                                              [p.strip() for p in PRONOUNS],
                                              title=_("P(next token is he / she / they)")),
                        share=0.5)
            st.caption(_("Compare the two bars of each pronoun. Swap the job, add words (\"The nurse said that "
                         "the doctor\"), or try other pairs: one prompt is an anecdote; a pattern over many is "
                         "evidence. Which way it leans says something about the text it read, not about people."))
    return probs
