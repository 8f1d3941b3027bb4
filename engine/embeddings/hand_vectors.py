"""Tiny hand-picked embeddings (data/hand_vectors.json, package data) for sentences typed on the context page."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

import numpy as np

from engine import limits
from engine.i18n import _
from engine.numbers import grouped

ASSET = Path(files("engine.embeddings") / "data" / "hand_vectors.json")   # the package is files on disk
_WORD = re.compile(r"[a-z']+")


@lru_cache(maxsize=1)
def lexicon() -> dict[str, np.ndarray]:
    """word -> its 3-number vector."""
    raw = json.loads(ASSET.read_text())
    return {word: np.array(vector, dtype=float) for word, vector in raw.items() if not word.startswith("_")}


def sentence_vectors(sentence: str) -> tuple[list[str], np.ndarray, list[str]]:
    """(tokens, X, unknown words): one row per word; a word without a hand-picked vector gets zeros."""
    if len(sentence) > limits.MAX_CONTEXT_SENTENCE_CHARS:
        raise ValueError(_("The sentence is {n} characters; keep it under {most}.", n=grouped(len(sentence)),
                           most=grouped(limits.MAX_CONTEXT_SENTENCE_CHARS)))
    tokens = _WORD.findall(sentence.lower())
    if not tokens:
        raise ValueError(_("Type a sentence with at least one word (letters a-z)."))
    if len(tokens) > limits.MAX_TOKENS:
        raise ValueError(_("The sentence has {n} words; the limit is {most}.", n=len(tokens), most=limits.MAX_TOKENS))
    vectors = lexicon()
    unknown = sorted({t for t in tokens if t not in vectors})
    X = np.array([vectors.get(t, np.zeros(3)) for t in tokens])
    return tokens, X, unknown
