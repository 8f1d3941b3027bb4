"""A tiny hand-made vocabulary: each word one 8-number vector with named features.

The multi-head and position pages need sentences as matrices X (one row x_t per token)
without loading a trained model. These vectors are picked by hand (data/tiny_vocabulary.json, package data)
so that similar words point in similar directions, as in the chapter's crane/lake example.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

import numpy as np

from engine import limits
from engine.i18n import N_, _

VOCABULARY_FILE = Path(files("engine.embeddings") / "data" / "tiny_vocabulary.json")
_WORD = re.compile(r"[a-z]+")


# the file's feature names, as a reader reads them (the words themselves stay English: they are the model's tokens)
FEATURE_NAMES = {"animal": N_("animal"), "bird": N_("bird"), "water": N_("water"), "action": N_("action"),
                 "function word": N_("function word"), "place": N_("place"), "size": N_("size"),
                 "hunts": N_("hunts")}


@dataclass(frozen=True)
class Vocabulary:
    features: tuple[str, ...]    # the name of each of the d columns
    words: tuple[str, ...]       # in the file's order
    vectors: np.ndarray          # (len(words), d), row k is the embedding of words[k]

    def named_features(self) -> tuple[str, ...]:
        """The features' names in the reader's language."""
        return tuple(_(FEATURE_NAMES[name]) if name in FEATURE_NAMES else name for name in self.features)

    @property
    def d(self) -> int:
        return self.vectors.shape[1]

    def vector(self, word: str) -> np.ndarray:
        return self.vectors[self.words.index(word)]


@dataclass(frozen=True)
class EmbeddedSentence:
    """A sentence as the chapter's X: tokens t = 0..T-1, x[t] the embedding of tokens[t]."""
    tokens: list[str]
    x: np.ndarray                # (T, d)


@lru_cache(maxsize=4)
def load_vocabulary(path: str | Path = VOCABULARY_FILE) -> Vocabulary:
    """Read the vocabulary file: every word must have one number per feature."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    features = tuple(data["features"])
    words = tuple(data["words"])
    vectors = np.array([data["words"][w] for w in words], dtype=float)
    if vectors.shape != (len(words), len(features)):
        raise ValueError(_("Every word in {file} needs {n} numbers, one per feature.", file=Path(path).name,
                           n=len(features)))
    vectors.setflags(write=False)
    return Vocabulary(features=features, words=words, vectors=vectors)


def tokenize(sentence: str) -> list[str]:
    """Lower-case words, punctuation dropped: 'The owl saw the cat.' -> ['the', 'owl', 'saw', 'the', 'cat']."""
    return _WORD.findall(str(sentence).lower())


def embed(sentence: str, vocabulary: Vocabulary | None = None) -> EmbeddedSentence:
    """X = [x_the; x_owl; ...]: one row per word, looked up in the tiny vocabulary."""
    vocabulary = vocabulary or load_vocabulary()
    tokens = tokenize(sentence)
    if not tokens and str(sentence).strip():   # '99999999' is not empty: it has no word of letters
        shown = str(sentence).strip()
        shown = shown if len(shown) <= 30 else shown[:29] + "…"
        raise ValueError(_("The sentence '{sentence}' has no words: only letters a-z make words here (digits and "
                           "punctuation are left out). Type a few words, for example 'the owl saw the cat'.",
                           sentence=shown))
    if not tokens:
        raise ValueError(_("The sentence is empty: type a few words, for example 'the owl saw the cat'."))
    if len(tokens) > limits.MAX_SENTENCE_WORDS:
        raise ValueError(_("The sentence has {n} words; the limit is {most}.", n=len(tokens),
                           most=limits.MAX_SENTENCE_WORDS))
    unknown = [t for t in tokens if t not in vocabulary.words]
    if unknown:
        listed = ", ".join(sorted(set(unknown)))
        raise ValueError(_("This tiny vocabulary has no vector for: {unknown}. Use only these words: {words}.",
                           unknown=listed, words=", ".join(vocabulary.words)))
    return EmbeddedSentence(tokens=tokens, x=np.array([vocabulary.vector(t) for t in tokens]))
