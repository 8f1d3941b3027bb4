"""N-gram sampler: the page's spec, what it samples from its link, and its class questions.

Every value the page's link carries is a Param below (default, parser, label); `sample_start(values, tokenizer)` is
where the page's sample starts (the typed prompt, within NGRAM_MAX_PROMPT_CHARS, or a line break) and
`sampled(values, tokenizer, counts)` the model, the sample and its loop, so the Streamlit page, the Gradio tab and the
class questions draw the same sample from the same link. The heavy objects (the corpus's tokenizer and counts) are
passed in. The spec itself (PAGE) closes the file.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Mapping

from engine import limits, numbers
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, one_of, text
from engine.classroom.questions import BITS_TIE, _top_choice
from engine.classroom.store import Question
from engine.i18n import N_, _, ngettext
from engine.language.corpus import ALL_PLAYS, OWN_TEXT
from engine.language.ngram import (
    LOOP_EXAMPLE_N, LOOP_EXAMPLE_TEMPERATURE, SMOOTHINGS, Loop, NGramModel, find_loop, sample_context,
)
from engine.language.tokenizers import LEVEL_NAMES, LEVELS

MIN_LOOP = {"characters": 16, "words": 8, "BPE": 10}   # a repeat at least this long counts as a loop, per level
MIN_LENGTH, MAX_LENGTH, LENGTH_STEP = 10, 500, 10      # the sample's length slider
# further reading on both language pages (Tokens, N-gram sampler)

def source(raw: str) -> str:
    """The corpus a link names: all the plays, one play (by its title), or a text of one's own."""
    if raw in (ALL_PLAYS, OWN_TEXT):
        return raw
    from engine.language.corpus import load_corpus       # the titles: read only for a link that names one play

    if raw not in load_corpus().plays:
        raise ValueError(_("{title} is not one of the plays", title=repr(raw)))
    return raw


def sample_start(values: Mapping[str, Any], tokenizer) -> list[int]:
    """The ids the page's sample starts after: the typed prompt's (at most NGRAM_MAX_PROMPT_CHARS characters, else
    a sentence), or with none a line break's (engine.language.ngram.sample_context)."""
    prompt = values["prompt"]
    if len(prompt) > limits.NGRAM_MAX_PROMPT_CHARS:
        raise ValueError(_("The start has {size} characters; the sampler starts after at most {limit}. Keep the last "
                           "words that matter.", size=numbers.grouped(len(prompt)),
                           limit=limits.NGRAM_MAX_PROMPT_CHARS))
    return sample_context(tokenizer, prompt)


def model(values: Mapping[str, Any], tokenizer, counts) -> NGramModel:
    """The page's n-gram model for the link's n, smoothing and k."""
    return NGramModel.from_counts(counts, int(values["n"]), values["smoothing"], float(values["k"]), tokenizer)


@dataclass(frozen=True)
class Sample:
    """What the page draws for a link: the model, where the sample starts, the sampled ids and their loop."""
    model: NGramModel
    start: list[int]
    ids: list[int]
    loop: Loop | None


def sampled(values: Mapping[str, Any], tokenizer, counts) -> Sample:
    """The page's sample: `length` tokens at the link's temperature and seed after `sample_start`, and the loop
    it falls into (MIN_LOOP tokens or more at its level). ValueError for a start the model cannot read."""
    start = sample_start(values, tokenizer)
    drawn = model(values, tokenizer, counts)
    ids = drawn.sample(int(values["length"]), seed=int(values["seed"]), temperature=float(values["temperature"]),
                       prompt=start)
    return Sample(drawn, start, ids, find_loop(ids, min_length=MIN_LOOP[values["level"]]))


# --- the class's questions ---------------------------------------------------------------------------------

def _played(values: Mapping[str, Any]) -> None:
    if values["source"] == OWN_TEXT:
        raise ValueError(_("A text of your own is not in the link: pick a play to ask about."))


def loop(link: Mapping[str, str], sources) -> Question:
    """Whether the page's sample falls into a loop (its settings, its seed, its length)."""
    values = PAGE.values(link)
    _played(values)
    level, n, length = values["level"], values["n"], values["length"]
    tau, seed = values["temperature"], values["seed"]
    shown = sampled(values, sources.tokenized(values["source"], level, None)[0],
                    sources.ngram_counts(values["source"], level, None))
    found = shown.loop
    options = (_("Yes: it falls into a loop"), _("No: no loop within its {length} tokens", length=length))
    why = (ngettext("From token {start} on, a cycle of {n} token repeats {repeats} times.",
                    "From token {start} on, a cycle of {n} tokens repeats {repeats} times.", found.period,
                    start=found.start, repeats=numbers.fixed(found.repeats, 1))
           + " " + ngettext("The loop is {n} token long.", "The loop is {n} tokens long.", found.end - found.start)
           if found is not None else
           _("No stretch of {least} or more tokens repeats in the {length} sampled.", least=MIN_LOOP[level],
             length=length))
    return Question("ngram", _("The {n}-gram model ({level}) samples {length} tokens at temperature \u03c4 = {tau}, "
                               "seed {seed}. Does the sample fall into a loop?", n=n, level=_(LEVEL_NAMES[level]),
                               length=length, tau=numbers.localized(f"{tau:g}"), seed=seed),
                    options, 0 if found is not None else 1, why, veils=("ngram.sample", "ngram.tail"))


def held_out(link: Mapping[str, str], sources) -> Question:
    """Which n scores the fewest held-out bits per token with the page's smoothing (the page's table)."""
    values = PAGE.values(link)
    _played(values)
    level, smoothing = values["level"], values["smoothing"]
    rows = [row for row in sources.held_out(values["source"], level, None) if row.smoothing == smoothing]
    if len(rows) < 2:
        raise ValueError(_("There are not two orders n to compare for this smoothing."))
    rows.sort(key=lambda row: row.n)
    rows = [row for row in rows if math.isfinite(row.bits)]
    if len(rows) < 2:
        raise ValueError(_("There are not two orders n with a finite score to compare for this smoothing."))
    kept = sorted(sorted(rows, key=lambda row: (row.bits, row.n))[:5], key=lambda row: row.n)   # with a tie: six
    options, answer, leaders = _top_choice([f"n = {row.n}" for row in kept], [-row.bits for row in kept],
                                           keep=len(kept), tolerance=BITS_TIE)
    scores = "; ".join(f"n = {row.n}: {numbers.fixed(row.bits)}" for row in kept)   # as the page's table prints them
    tie = numbers.localized(f"{BITS_TIE}")
    tied = functools.reduce(lambda first, second: _("{first} and {second}", first=first, second=second),
                            [f"n = {kept[i].n}" for i in leaders])
    verdict = (_("n = {n} scores fewest", n=kept[leaders[0]].n) if len(leaders) == 1 else
               _("{orders} lie within {tie} bits: a tie", tie=tie, orders=tied))
    return Question("ngram", _("With {smoothing} smoothing ({level}), which n scores the fewest bits per token on "
                               "held-out text (within {tie} bits counts as a tie)?", smoothing=smoothing,
                               level=_(LEVEL_NAMES[level]), tie=tie), options, answer,
                    _("{verdict}. Bits per token, {scores}; the held-out chart and table on the page show every n.",
                      verdict=verdict, scores=scores),
                    veils=("ngram.held_out", "ngram.tail"))   # the held-out part holds its numbers' section


PAGE = PageSpec(
    key="ngram", url="ngram", view="ngram",
    title=N_("N-gram sampler"),
    question=N_("How far can counting the last n-1 tokens take a language model?"),
    one_line=N_("Count, sample and score n-grams of Shakespeare: the V^n table that cannot be filled, and the loops."),
    icon=":material/casino:",
    params=(
        Param("source", ALL_PLAYS, source, label=N_("Corpus")),
        Param("level", "words", one_of(LEVELS), label=N_("Token level"),
              help=N_("BPE: 500 merges learned from the start of the training text.")),
        Param("n", LOOP_EXAMPLE_N, between(1, limits.MAX_NGRAM_ORDER),
              label=N_("n (the model sees the n-1 tokens before)")),
        Param("smoothing", "kneser-ney", one_of(SMOOTHINGS), label=N_("Smoothing")),
        Param("k", 1.0, between(0.0, limits.MAX_ADD_K, float), label=N_("k (add-k; 1 is Laplace)")),
        # the page opens on the chapter's second failure, a loop of words from a short context (always the likeliest
        # token: engine.language.ngram.LOOP_EXAMPLE_*); a link's above the limit falls back to the default with the
        # link's sentence, a typed one gets the engine's
        Param("temperature", LOOP_EXAMPLE_TEMPERATURE, between(0.0, limits.MAX_TEMPERATURE, float),
              label=N_("Temperature τ (0 = always the most likely token)")),
        Param("seed", 0, between(0, 2**31 - 1), label=N_("Seed")),
        Param("length", 100, between(MIN_LENGTH, MAX_LENGTH), label=N_("Tokens to sample")),
        Param("prompt", "", text(limits.NGRAM_MAX_PROMPT_CHARS), label=N_("Start the sample with (optional)")),
    ),
    questions=(loop, held_out),
    reading=(references.SHANNON_1948.on("n-gram approximations of English"),
             references.CHEN_GOODMAN_1998,
             references.JURAFSKY_MARTIN_3,
             references.HOLTZMAN_2020),
)
