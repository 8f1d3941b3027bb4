"""The Streamlit app's cache of heavy objects: each one opened by engine.prepare (which names, prepares and opens
every one) and kept here by st.cache_resource, shared read-only by every session of the process. Only the caching
is here: the spinner's words (how many entries each keeps is the engine's, engine.prepare.OPENED). What is built on
other heavy objects reads them from this module (`sources=HERE`), so a page's result and the objects it comes from
share this one cache.

Streamlit keys a cache on the arguments as they are passed, without filling in defaults:
f(a, b) and f(a, b, None) would be two entries and two copies in memory. So no cached
loader has a default value; every call names every argument (tests/test_loaders.py).
"""
from __future__ import annotations

import sys

import streamlit as st

from engine import prepare
from engine.prepare import BUNDLED_PICTURES, HeadWeights  # noqa: F401  (BUNDLED_PICTURES: the Beyond words page's)

HERE = sys.modules[__name__]        # what the engine reads the objects a result is built from through


def cached(spinner: str | bool = False):
    """st.cache_resource for the loader of the same name in engine.prepare, keeping as many entries as the engine
    says (engine.prepare.OPENED), with the spinner's words while it opens."""
    def keep(loader):
        return st.cache_resource(show_spinner=spinner, max_entries=prepare.OPENED[loader.__name__])(loader)
    return keep


# --- the text: corpus, tokenizers, n-grams --------------------------------------------------------
@cached("Reading and cleaning 38 Shakespeare plays ...")
def corpus():
    return prepare.corpus()


@cached("Reading GPT-2's 50,000 merges ...")
def gpt2_tokenizer():
    return prepare.gpt2_tokenizer()


@cached("Learning BPE merges from the corpus ...")
def corpus_bpe(n_merges: int, n_chars: int):
    return prepare.corpus_bpe(n_merges, n_chars, sources=HERE)


@cached("Tokenizing the text ...")
def tokenized(source: str, level: str, own_text: str | None):
    return prepare.tokenized(source, level, own_text)


@cached("Counting n-grams for n = 1 to 6 ...")
def ngram_counts(source: str, level: str, own_text: str | None):
    return prepare.ngram_counts(source, level, own_text, sources=HERE)


@cached("Scoring the held-out text for every n and smoothing ...")
def held_out(source: str, level: str, own_text: str | None):
    return prepare.held_out(source, level, own_text, sources=HERE)


@cached()
def corpus_characters():
    return prepare.corpus_characters(sources=HERE)


@cached()
def transition(source: str, level: str, own_text: str | None, top: int):
    return prepare.transition(source, level, own_text, top, sources=HERE)


@cached()
def frequent_contexts(source: str, level: str, own_text: str | None, n: int, smoothing: str, k: float, rows: int):
    return prepare.frequent_contexts(source, level, own_text, n, smoothing, k, rows, sources=HERE)


# --- embeddings: word vectors and analogies -------------------------------------------------------
@cached("Loading 400,000 GloVe word vectors ...")
def glove():
    return prepare.glove()


@cached("Scoring the classic analogies ...")
def analogy_accuracy(method: str) -> list[dict]:
    return prepare.analogy_accuracy(method)


# --- pretrained transformers: SmolLM2, and a GGUF file of the PLAYGROUND_MODELS folder ----------------
# A brought model is kept by engine.pretrained.smollm2.load (SmolLM2 and the last limits.MAX_LOADED_MODELS others),
# not here: one that it lets go is then freed. Its results are cached here as SmolLM2's are.
@cached("Loading SmolLM2-135M (once per server, a few seconds)...")
def smollm2():
    prepare.serve_on_one_thread()
    return prepare.smollm2()


@cached("Preparing SmolLM2's weights for sampling (once per server)...")
def smollm2_sampler():
    return prepare.smollm2_sampler(sources=HERE)


def pretrained_model(name: str):
    """SmolLM2 through `smollm2` (its own spinner); for a brought model the spinner shows only when the call takes a
    while (a first load)."""
    if name == prepare.DEFAULT_NAME:
        return smollm2()
    with st.spinner(f"Loading {name} (once per server; a big file takes a while)..."):
        prepare.serve_on_one_thread()
        return prepare.pretrained_model(name, sources=HERE)


@cached("The model reads the text...")
def pretrained_heads(name: str, text: str, max_tokens: int) -> HeadWeights:
    return prepare.pretrained_heads(name, text, max_tokens, sources=HERE)


@cached("Looking for induction heads on a repeated random sequence...")
def pretrained_induction_scores(name: str):
    return prepare.pretrained_induction_scores(name)


@cached()
def pretrained_head_types(name: str, text: str, max_tokens: int):
    return prepare.pretrained_head_types(name, text, max_tokens, sources=HERE)


@cached()
def pretrained_scored_heads(name: str, text: str):
    return prepare.pretrained_scored_heads(name, text, sources=HERE)


# --- inside the model: causal interventions -------------------------------------------------------
@cached("Reading every layer of SmolLM2 through its output (logit lens)...")
def pretrained_logit_lens(name: str, text: str, target: str, k: int):
    return prepare.pretrained_logit_lens(name, text, target, k, sources=HERE)


@cached("Knocking out each head in turn, one pass each (a few seconds)...")
def pretrained_head_effects(name: str, text: str, target: str, mode: str):
    return prepare.pretrained_head_effects(name, text, target, mode, sources=HERE)


@cached()
def pretrained_head_attribution(name: str, text: str, target: str, mode: str):
    return prepare.pretrained_head_attribution(name, text, target, mode, sources=HERE)


@cached("Running the model with those heads knocked out...")
def pretrained_knock_out(name: str, text: str, target: str, heads: tuple, mode: str, k: int):
    return prepare.pretrained_knock_out(name, text, target, heads, mode, k, sources=HERE)


@cached("Patching every layer x position of the clean run into the corrupted one...")
def pretrained_patching(name: str, clean: str, corrupt: str, clean_target: str, corrupt_target: str):
    return prepare.pretrained_patching(name, clean, corrupt, clean_target, corrupt_target, sources=HERE)


@cached("The model reads a random sequence twice...")
def pretrained_copying(name: str, length: int, seed: int, heads: tuple):
    return prepare.pretrained_copying(name, length, seed, heads, sources=HERE)


@cached()
def shipped_logit_lens(text: str, target: str, k: int):
    return prepare.shipped_logit_lens(text, target, k, sources=HERE)


@cached()
def shipped_head_effects(text: str, target: str, mode: str):
    return prepare.shipped_head_effects(text, target, mode, sources=HERE)


# --- the transformer we train: character ids, the shipped model, generations, the model ladder ----
@cached("Reading the plays as characters ...")
def char_corpus():
    return prepare.char_corpus(sources=HERE)


@cached("Loading the shipped transformer ...")
def shipped_transformer():
    prepare.serve_on_one_thread()
    return prepare.shipped_transformer()


@cached()
def generation(name: str, prompt: str, temperature: float, top_k: int | None, length: int, seed: int):
    return prepare.generation(name, prompt, temperature, top_k, length, seed, sources=HERE)


@cached("Counting character n-grams of the plays ...")
def char_ngrams() -> dict:
    return prepare.char_ngrams(sources=HERE)


@cached("Scoring the n-grams on held-out text ...")
def ngram_baselines() -> dict[str, float]:
    return prepare.ngram_baselines(sources=HERE)


@cached("Scoring every model on held-out text ...")
def fixed_ladder():
    return prepare.fixed_ladder(sources=HERE)


# --- beyond words: bundled pictures ---------------------------------------------------------------
@cached()
def bundled_picture(name: str):
    return prepare.bundled_picture(name)
