"""Position: the page's spec, what it computes from its link (attention over sentence A and over B, the same words in
another order; the encoding tables and rotary scores drawn below), the sentences both front ends say about them, and
its class question.

`shuffled(values)` and `encodings(values)` are what the page draws for its typed link values, so the Streamlit page,
the Gradio tab and the class question compute the same numbers and say the same sentences. The drawn tables' T and d
are refused past limits.MAX_DRAWN_POSITIONS here, in the engine, whichever front end asks. The spec itself (PAGE)
closes the file.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from engine import limits
from engine.attention.mechanism import random_projections
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, one_of, parse_bool, text
from engine.classroom.store import Question
from engine.embeddings.tiny_vocabulary import EmbeddedSentence, Vocabulary, embed, load_vocabulary, tokenize
from engine.transformer.positional import (
    ENCODINGS, SINUSOID_BASE, OffsetDotProducts, PermutationCheck, diagonal_spread, dot_products_by_offset,
    permutation_between, permutation_check, positional_encoding, random_permutation, rotary_scores,
)

SENTENCE_A, SENTENCE_B = "the owl saw the cat", "the cat saw the owl"
ENCODING_NAMES = {"none": "none (words only)", "sinusoidal": "sinusoidal (Vaswani et al.)",
                  "learned": "learned (a free table, shown untrained)"}
STRENGTHS = (0.0, 2.0, 0.05)      # the strength slider: from, to, step
MAX_SEED = 100_000
MIN_T, MIN_D = 4, 2               # the table sliders' lowest T and d (d moves in steps of 2 on both front ends)
ROTARY_SHOWN = 12                 # positions in the rotary table (numbers readable in every cell)
ROTARY_QUERY, ROTARY_KEY = "owl", "cat"
CHANGES_TITLE = "max |c_B(word) - c_A(word)| for each word"


def words_note(vocabulary: Vocabulary) -> str:
    """What both front ends say under the sentences: the words they may use."""
    return f"Words this tiny vocabulary knows: {', '.join(vocabulary.words)}."


def _sentence(name: str, sentence: str) -> str:
    if len(sentence) > limits.MAX_POSITION_SENTENCE_CHARS:
        raise ValueError(f"Sentence {name} is {len(sentence):,} characters long; the page reads up to "
                         f"{limits.MAX_POSITION_SENTENCE_CHARS}.")
    return sentence


def sentence_a(values: Mapping[str, Any]) -> EmbeddedSentence:
    """Sentence A in the tiny vocabulary's vectors. ValueError for a word it lacks or a sentence past the limits."""
    return embed(_sentence("A", values["a"]), load_vocabulary())


def order_of_b(sentence: EmbeddedSentence, values: Mapping[str, Any]) -> np.ndarray:
    """Where each word of B came from in A. ValueError unless B holds exactly A's words."""
    return permutation_between(sentence.tokens, tokenize(_sentence("B", values["b"])))


def shuffle(a: str, press: int) -> str:
    """Sentence B as a fresh shuffle of A's words, drawn with the number of the press (never A's own order)."""
    words = tokenize(_sentence("A", a))
    if not 1 < len(words) <= limits.MAX_SENTENCE_WORDS:
        raise ValueError(f"Sentence A needs 2 to {limits.MAX_SENTENCE_WORDS} words to shuffle.")
    order = random_permutation(len(words), int(press))
    return " ".join(words[j] for j in order)


@dataclass(frozen=True)
class Shuffled:
    """Attention over A and over B with the page's encoding, strength, projections, mask and seed."""
    sentence: EmbeddedSentence
    check: PermutationCheck

    @property
    def tokens_a(self) -> list[str]:
        return self.sentence.tokens

    @property
    def tokens_b(self) -> list[str]:
        return [self.sentence.tokens[j] for j in self.check.perm]

    @property
    def worst(self) -> int:
        """The slot of B whose word's context vector moved most."""
        return int(np.argmax(self.check.difference))

    @property
    def reading(self) -> str:
        """What both front ends say about A against B."""
        check = self.check
        if check.equivariant:
            return (f"Largest change of any word's context vector: **{check.largest_written}**, under the rounding "
                    f"tolerance {check.tolerance:.0e}. Same bag of words, same context vectors, only listed in another "
                    "order: attention cannot tell A from B.")
        return (f"Largest change of any word's context vector: **{check.largest_written}**. The words' context "
                "vectors differ between A and B: now order matters.")


def shuffled(values: Mapping[str, Any]) -> Shuffled:
    """A against B for these (typed) values. ValueError for a word the vocabulary lacks, a B that is not A's words,
    or a setting past the page's."""
    sentence = sentence_a(values)
    perm = order_of_b(sentence, values)
    seed = int(values["seed"])
    W = random_projections(sentence.x.shape[1], seed) if values["proj"] else {}
    check = permutation_check(sentence.x, perm, values["enc"], W_q=W.get("W_q"), W_k=W.get("W_k"), W_v=W.get("W_v"),
                              causal=bool(values["causal"]), strength=float(values["strength"]), seed=seed)
    return Shuffled(sentence, check)


@dataclass(frozen=True)
class Encodings:
    """The sinusoidal and (untrained) learned tables p_t, how alike two positions k apart are, and rotary scores."""
    T: int
    d: int
    base: float
    tables: dict[str, np.ndarray]
    profiles: dict[str, OffsetDotProducts]
    rotary: np.ndarray           # rot(q_owl, i) . rot(k_cat, j) for the first min(T, ROTARY_SHOWN) positions
    rotary_d: int

    @property
    def near(self) -> int:
        """The offset the page reads: 1 (0 for a table of one position)."""
        return 1 if self.T > 1 else 0

    @property
    def rotary_title(self) -> str:
        return (f"rot(q_{ROTARY_QUERY}, i) . rot(k_{ROTARY_KEY}, j), d = {self.rotary_d}, "
                f"base = {self.base:g}")

    @property
    def reading(self) -> str:
        """What both front ends say about the two tables."""
        sin, near = self.profiles["sinusoidal"], self.near
        return (f"Each pair of columns is a clock turning at its own speed, so the sinusoidal dot product depends "
                f"only on the offset k: at k = {near} it varies over i by {sin.spread[near]:.1e}, a band of width "
                f"zero (exactly so when d is even). A learned table starts as noise: nothing ties p_5 to p_6 "
                f"until training does.")

    @property
    def rotary_reading(self) -> str:
        """The rotary check in words: the largest spread along any diagonal of the scores."""
        return (f"Rotary: the largest spread along any diagonal is {diagonal_spread(self.rotary).max():.1e}, "
                "rounding only.")


def encodings(values: Mapping[str, Any]) -> Encodings:
    """The tables the page draws for these (typed) values. ValueError for a T or d outside the drawn tables' range
    (limits.MAX_DRAWN_POSITIONS: the charts hold T x d and T x T cells) or a base outside the engine's."""
    T, d, base, seed = values["T"], values["d"], float(values["base"]), int(values["seed"])
    for name, value, low in (("number of positions T", T, MIN_T), ("width d", d, MIN_D)):
        if not isinstance(value, (int, np.integer)) or not low <= value <= limits.MAX_DRAWN_POSITIONS:
            raise ValueError(f"The {name} of the drawn tables must be a whole number from {low} to "
                             f"{limits.MAX_DRAWN_POSITIONS}; got {value}.")
    T, d = int(T), int(d)
    tables = {name: positional_encoding(name, T, d, seed=seed, base=base) for name in ("sinusoidal", "learned")}
    vocabulary = load_vocabulary()
    rotary = rotary_scores(vocabulary.vector(ROTARY_QUERY), vocabulary.vector(ROTARY_KEY), min(T, ROTARY_SHOWN), base)
    return Encodings(T, d, base, tables, {name: dot_products_by_offset(P) for name, P in tables.items()}, rotary,
                     vocabulary.d)


# --- the class's question ----------------------------------------------------------------------------------

def equivariance(link: Mapping[str, str], sources=None) -> Question:
    """Does each word of B get the attention output it had in A, with the page's encoding and mask?"""
    values = PAGE.values(link)
    shown = shuffled(values)
    check = shown.check
    mask = ", causal mask on" if values["causal"] else ""
    options = ("Yes: the same vectors, moved with their words", "No: some words' outputs change")
    return Question("position", f"'{values['b']}' holds the words of '{values['a']}' in another order. With "
                                f"positional encoding '{values['enc']}'{mask}, does each word get the same attention "
                                "output as in A?",
                    options, 0 if check.equivariant else 1,
                    f"The largest change of a word's output is {check.largest_written} "
                    + (f"(under the rounding tolerance {check.tolerance:.0e}: attention alone ignores order)."
                       if check.equivariant else "(order now matters).")
                    + " The bars on the page show each word's change.",
                    veils=("position.check", "position.code"))


PAGE = PageSpec(
    key="position", url="position", view="position",
    title="Position",
    question="Shuffle the words: does attention notice?",
    one_line="Shuffle the words and attention shuffles its outputs, unchanged, until a positional encoding is added.",
    icon=":material/format_list_numbered:",
    params=(
        Param("a", SENTENCE_A, text(limits.MAX_POSITION_SENTENCE_CHARS), label="Sentence A"),
        Param("b", SENTENCE_B, text(limits.MAX_POSITION_SENTENCE_CHARS),
              label="Sentence B: the same words in another order"),
        Param("enc", "none", one_of(ENCODINGS), label="Positional encoding added to each word",
              help="x_t + s p_t: the word's vector plus a vector that says where it sits."),
        Param("strength", 1.0, between(STRENGTHS[0], STRENGTHS[1], float), label="Strength s of the encoding"),
        Param("proj", False, parse_bool, label="Projections W_Q, W_K, W_V (seeded, untrained)",
              help="Off: Q = K = V = X, the chapter's first form. On: random 8 x 8 matrices drawn with the seed."),
        Param("causal", False, parse_bool, label="Causal mask (each word sees only the words before it)"),
        Param("seed", 0, between(0, MAX_SEED), label="Seed (projections and the learned table)"),
        Param("T", 32, between(MIN_T, limits.MAX_DRAWN_POSITIONS), label="Positions T"),
        Param("d", 32, between(MIN_D, limits.MAX_DRAWN_POSITIONS), label="Width d"),
        Param("base", SINUSOID_BASE, between(limits.MIN_SINUSOID_BASE, limits.MAX_SINUSOID_BASE, float),
              label="Base of the sinusoids",
              help="The 10000 in sin(t / 10000^(2i/d)): a larger base means slower clocks."),
    ),
    questions=(equivariance,),
    reading=(references.VASWANI_2017.on("section 3.5, positional encoding"),
             references.LIN_2021.on("position representations"),
             references.HAVIV_2022.on("the causal mask"),
             references.CME_295.on("lecture 1")),
)
