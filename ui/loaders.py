"""One cached loader per heavy object, shared read-only by every session of the process."""
from __future__ import annotations

import streamlit as st


@st.cache_resource(show_spinner="Loading 400,000 GloVe word vectors ...")
def glove():
    """GloVe 6B 50-d (engine.embeddings.load_glove), one read-only copy for every session."""
    from engine.embeddings import load_glove

    return load_glove()


# --- Beyond words (issue 7) -------------------------------------------------------------
BUNDLED_PICTURES = ("astronaut", "coffee", "chelsea", "camera", "rocket")


@st.cache_resource(show_spinner=False)
def bundled_picture(name: str):
    """One of scikit-image's pictures shipped inside its wheel (uint8 pixels); read-only, shared."""
    if name not in BUNDLED_PICTURES:
        raise ValueError(f"Unknown picture {name!r}; choose one of {', '.join(BUNDLED_PICTURES)}.")
    from skimage import data

    pixels = getattr(data, name)()
    pixels.setflags(write=False)
    return pixels


# --- Text: corpus, tokenizers, n-grams (issue 3) -----------------------------------------
@st.cache_resource(show_spinner="Reading and cleaning 38 Shakespeare plays ...")
def corpus():
    """The cleaned Shakespeare corpus and its one train/validation split (engine.corpus)."""
    from engine.corpus import load_corpus

    return load_corpus()


@st.cache_resource(show_spinner="Reading GPT-2's 50,000 merges ...")
def gpt2_tokenizer():
    from engine.tokenizers import gpt2_tokenizer as load

    return load()


@st.cache_resource(show_spinner="Learning BPE merges from the corpus ...", max_entries=4)
def corpus_bpe(n_merges: int, n_chars: int):
    """BPE trained on the first n_chars characters of the training text (merges recorded)."""
    from engine.tokenizers import train_bpe

    return train_bpe(corpus().train[:n_chars], n_merges)


@st.cache_resource(show_spinner="Tokenizing the text ...", max_entries=12)
def tokenized(source: str, level: str, own_text: str | None = None):
    """(tokenizer, train ids, validation ids) of a source at a token level."""
    import numpy as np

    from engine.corpus import source_split
    from engine.tokenizers import tokenizer_for

    train, validation = source_split(source, own_text)
    tokenizer = tokenizer_for(level, train, validation)
    return tokenizer, np.array(tokenizer.encode(train), dtype=np.int64), \
        np.array(tokenizer.encode(validation), dtype=np.int64)


@st.cache_resource(show_spinner="Counting n-grams for n = 1 to 6 ...", max_entries=12)
def ngram_counts(source: str, level: str, own_text: str | None = None):
    """Counts of every k-gram, k = 1..6 (fewer for a very short text), of the training ids."""
    from engine import limits
    from engine.ngram import count_ngrams

    tokenizer, train, _ = tokenized(source, level, own_text)
    return count_ngrams(train, min(limits.MAX_NGRAM_ORDER, max(train.size, 1)), tokenizer.vocab_size)


@st.cache_resource(show_spinner="Scoring the held-out text for every n and smoothing ...", max_entries=12)
def held_out(source: str, level: str, own_text: str | None = None):
    """Held-out cross-entropy rows (engine.ngram.held_out_rows) for n = 1..6 and each smoothing."""
    from engine.ngram import held_out_rows

    counts = ngram_counts(source, level, own_text)
    return held_out_rows(counts, tokenized(source, level, own_text)[2], range(1, counts.max_order + 1))


@st.cache_resource(show_spinner=False)
def corpus_characters():
    """The character tokenizer of the whole corpus (its 75 distinct characters)."""
    from engine.tokenizers import CharTokenizer

    return CharTokenizer.from_text(corpus().text)


@st.cache_resource(show_spinner=False, max_entries=12)
def transition(source: str, level: str, own_text: str | None = None, top: int = 20):
    """The bigram table among the most frequent tokens (engine.ngram.transition_table), per source and level."""
    from engine.ngram import transition_table

    return transition_table(ngram_counts(source, level, own_text), top)


@st.cache_resource(show_spinner=False, max_entries=48)
def frequent_contexts(source: str, level: str, own_text: str | None, n: int, smoothing: str, k: float, rows: int = 8):
    """[(context ids, times seen, [(next id, probability, count), ...])] for the most frequent (n-1)-token contexts."""
    from engine.ngram import NGramModel

    model = NGramModel.from_counts(ngram_counts(source, level, own_text), n, smoothing, k)
    return [(context, total, model.distribution(list(context)).top(5)) for context, total in model.top_contexts(rows)]
