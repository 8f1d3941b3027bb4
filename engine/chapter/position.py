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

from engine import limits, numbers
from engine.attention.mechanism import random_projections
from engine.chapter import references
from engine.i18n import N_, _
from engine.chapter.spec import PageSpec, Param, between, one_of, parse_bool, text
from engine.classroom.store import Question
from engine.embeddings.tiny_vocabulary import EmbeddedSentence, Vocabulary, embed, load_vocabulary, tokenize
from engine.transformer.positional import (
    ENCODINGS, SINUSOID_BASE, OffsetDotProducts, PermutationCheck, diagonal_spread, dot_products_by_offset,
    permutation_between, permutation_check, positional_encoding, random_permutation, rotary_scores,
)

SENTENCE_A, SENTENCE_B = "the owl saw the cat", "the cat saw the owl"
ENCODING_NAMES = {"none": N_("none (words only)"), "sinusoidal": N_("sinusoidal (Vaswani et al.)"),
                  "learned": N_("learned (a free table, shown untrained)")}   # shown as _(ENCODING_NAMES[e])
STRENGTHS = (0.0, 2.0, 0.05)      # the strength slider: from, to, step
MAX_SEED = 100_000
MIN_T, MIN_D = 4, 2               # the table sliders' lowest T and d (d moves in steps of 2 on both front ends)
ROTARY_SHOWN = 12                 # positions in the rotary table (numbers readable in every cell)
ROTARY_QUERY, ROTARY_KEY = "owl", "cat"
TABLE_NAMES = {"sinusoidal": N_("sinusoidal"), "learned": N_("learned")}   # the drawn tables, _(TABLE_NAMES[name])
CHANGES_TITLE = N_("max |c_B(word) - c_A(word)| for each word")   # shown as _(CHANGES_TITLE)


def words_note(vocabulary: Vocabulary) -> str:
    """What both front ends say under the sentences: the words they may use."""
    # TRANSLATORS: the words are English (the vectors were made for them): say so
    return _("Words this tiny vocabulary knows: {words}.", words=", ".join(vocabulary.words))


def _sentence(name: str, sentence: str) -> str:
    if len(sentence) > limits.MAX_POSITION_SENTENCE_CHARS:
        raise ValueError(_("Sentence {name} is {chars} characters long; the page reads up to {limit}.", name=name,
                           chars=numbers.grouped(len(sentence)), limit=limits.MAX_POSITION_SENTENCE_CHARS))
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
        raise ValueError(_("Sentence A needs 2 to {most} words to shuffle.", most=limits.MAX_SENTENCE_WORDS))
    order = random_permutation(len(words), int(press))
    return " ".join(words[j] for j in order)


def _tolerance(check: PermutationCheck) -> str:
    """The check's rounding tolerance as the pages write it (2e-09)."""
    return numbers.localized(f"{check.tolerance:.0e}")


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
            return _("Largest change of any word's context vector: **{largest}**, under the rounding tolerance "
                     "{tolerance}. Same bag of words, same context vectors, only listed in another order: attention "
                     "cannot tell A from B.", largest=check.largest_written, tolerance=_tolerance(check))
        return _("Largest change of any word's context vector: **{largest}**. The words' context vectors differ "
                 "between A and B: now order matters.", largest=check.largest_written)


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
        return _("rot(q_{query}, i) . rot(k_{key}, j), d = {d}, base = {base}", query=ROTARY_QUERY, key=ROTARY_KEY,
                 d=self.rotary_d, base=numbers.localized(f"{self.base:g}"))

    @property
    def reading(self) -> str:
        """What both front ends say about the two tables."""
        sin, near = self.profiles["sinusoidal"], self.near
        return _("Each pair of columns is a clock turning at its own speed, so the sinusoidal dot product depends "
                 "only on the offset k: at k = {k} it varies over i by {spread}, a band of width zero (exactly so when "
                 "d is even). A learned table starts as noise: nothing ties p_5 to p_6 until training does.",
                 k=near, spread=numbers.localized(f"{sin.spread[near]:.1e}"))

    @property
    def rotary_reading(self) -> str:
        """The rotary check in words: the largest spread along any diagonal of the scores."""
        return _("Rotary: the largest spread along any diagonal is {spread}, rounding only.",
                 spread=numbers.localized(f"{diagonal_spread(self.rotary).max():.1e}"))


def encodings(values: Mapping[str, Any]) -> Encodings:
    """The tables the page draws for these (typed) values. ValueError for a T or d outside the drawn tables' range
    (limits.MAX_DRAWN_POSITIONS: the charts hold T x d and T x T cells) or a base outside the engine's."""
    T, d, base, seed = values["T"], values["d"], float(values["base"]), int(values["seed"])
    for value, low, wrong in (
            (T, MIN_T, N_("The number of positions T of the drawn tables must be a whole number from {low} to "
                          "{high}; got {value}.")),
            (d, MIN_D, N_("The width d of the drawn tables must be a whole number from {low} to {high}; got "
                          "{value}."))):
        if not isinstance(value, (int, np.integer)) or not low <= value <= limits.MAX_DRAWN_POSITIONS:
            raise ValueError(_(wrong, low=low, high=limits.MAX_DRAWN_POSITIONS, value=value))
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
    options = (_("Yes: the same vectors, moved with their words"), _("No: some words' outputs change"))
    asked = (_("'{b}' holds the words of '{a}' in another order. With positional encoding '{encoding}', causal mask "
               "on, does each word get the same attention output as in A?", b=values["b"], a=values["a"],
               encoding=values["enc"]) if values["causal"] else
             _("'{b}' holds the words of '{a}' in another order. With positional encoding '{encoding}', does each word "
               "get the same attention output as in A?", b=values["b"], a=values["a"], encoding=values["enc"]))
    reveal = (_("The largest change of a word's output is {largest} (under the rounding tolerance {tolerance}: "
                "attention alone ignores order). The bars on the page show each word's change.",
                largest=check.largest_written, tolerance=_tolerance(check)) if check.equivariant else
              _("The largest change of a word's output is {largest} (order now matters). The bars on the page show "
                "each word's change.", largest=check.largest_written))
    return Question("position", asked, options, 0 if check.equivariant else 1, reveal,
                    veils=("position.check", "position.code"))


TABLE_TITLE = N_("{name}: p_t for t < {T}, d = {d}")   # an encoding table's title, in both front ends

PAGE = PageSpec(
    key="position", url="position", view="position",
    title=N_("Position"),
    question=N_("Shuffle the words: does attention notice?"),
    one_line=N_("Shuffle the words and attention shuffles its outputs, unchanged, until a positional encoding is "
                "added."),
    icon=":material/format_list_numbered:",
    params=(
        Param("a", SENTENCE_A, text(limits.MAX_POSITION_SENTENCE_CHARS), label=N_("Sentence A")),
        Param("b", SENTENCE_B, text(limits.MAX_POSITION_SENTENCE_CHARS),
              label=N_("Sentence B: the same words in another order")),
        Param("enc", "none", one_of(ENCODINGS), label=N_("Positional encoding added to each word"),
              help=N_("x_t + s p_t: the word's vector plus a vector that says where it sits.")),
        Param("strength", 1.0, between(STRENGTHS[0], STRENGTHS[1], float), label=N_("Strength s of the encoding")),
        Param("proj", False, parse_bool, label=N_("Projections W_Q, W_K, W_V (seeded, untrained)"),
              help=N_("Off: Q = K = V = X, the chapter's first form. On: random 8 x 8 matrices drawn with the seed.")),
        Param("causal", False, parse_bool, label=N_("Causal mask (each word sees only the words before it)")),
        Param("seed", 0, between(0, MAX_SEED), label=N_("Seed (projections and the learned table)")),
        Param("T", 32, between(MIN_T, limits.MAX_DRAWN_POSITIONS), label=N_("Positions T")),
        Param("d", 32, between(MIN_D, limits.MAX_DRAWN_POSITIONS), label=N_("Width d")),
        Param("base", SINUSOID_BASE, between(limits.MIN_SINUSOID_BASE, limits.MAX_SINUSOID_BASE, float),
              label=N_("Base of the sinusoids"),
              help=N_("The 10000 in sin(t / 10000^(2i/d)): a larger base means slower clocks.")),
    ),
    questions=(equivariance,),
    reading=(references.VASWANI_2017.on("section 3.5, positional encoding"),
             references.LIN_2021.on("position representations"),
             references.HAVIV_2022.on("the causal mask"),
             references.CME_295.on("lecture 1")),
)
