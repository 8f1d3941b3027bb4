"""Attention calculator: the page's spec, its examples, what it computes from its link, and its class questions.

Every value the page's link carries is a Param below (default, parser, label); `calculation(values)` is the
attention the page draws for those values (the projections, the scaling, the mask and the sharpness beta), so
the Streamlit page, the Gradio tab and the class questions compute the same numbers from the same link.
The spec itself (PAGE) closes the file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from engine import limits, numbers
from engine.attention.mechanism import (
    CHAPTER_TOKENS, CHAPTER_X, SelfAttentionResult, identity_projections, random_projections, self_attention,
)
from engine.attention.typed_matrices import format_matrix, parse_matrix
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, one_of, parse_bool, text
from engine.classroom.questions import TIE_TOLERANCE, _top_choice
from engine.classroom.store import Question
from engine.i18n import N_, _

# The examples a student loads into X (the first is the chapter's worked example).
PRESETS: dict[str, tuple[list[str], np.ndarray]] = {
    N_("Chapter: crane by the lake"): (CHAPTER_TOKENS, CHAPTER_X),
    N_("Random (5 tokens, 4 numbers each)"): (["w1", "w2", "w3", "w4", "w5"],
                                         np.round(np.random.default_rng(7).normal(size=(5, 4)), 2)),
    N_("All the same"): (["a", "a", "a", "a"], np.tile([[0.5, 0.5, 0.5]], (4, 1))),
    N_("A huge-score row (softmax stability)"): (["loud", "by", "the", "lake"],
                                             np.array([[90.0, 0.0, 40.0], [0.0, 1.0, 0.1],
                                                       [0.1, 0.9, 0.0], [80.0, 0.2, 30.0]])),
}
PROJECTION_STARTS = ("identity", "random")     # where W_Q, W_K, W_V start before a student edits them
PROJECTION_START_NAMES = {"identity": N_("identity"), "random": N_("random")}   # as the radio shows them
PROJECTIONS = ("W_q", "W_k", "W_v")
SHARPNESS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)   # beta: the multiplier on the heatmap's scores
FACTORS = (1, 10, 100, 1_000, 10_000)                          # the softmax stability table's multiplier
LEARN_STEPS = 12      # gradient steps shown at first: crane's largest weight has moved to lake by then
MAX_LEARN_STEPS_SHOWN = 60
MAX_PROJECTION_SEED = 10_000
CHAPTER_MATRIX = format_matrix(CHAPTER_X, CHAPTER_TOKENS)
_MATRIX = text(limits.MAX_MATRIX_TEXT_CHARS)


def starting_projections(start: str, d: int, seed: int) -> dict[str, np.ndarray]:
    """The W_q, W_k, W_v a student starts editing from: the identity, or seeded random ones, to 2 decimals."""
    W = identity_projections(d) if start == "identity" else random_projections(d, seed)
    return {name: np.round(W[name], 2) for name in PROJECTIONS}


def projections(values: Mapping[str, Any], d: int) -> dict[str, np.ndarray | None]:
    """The projections the page uses for X of width d: None each while they are off; else each as edited (its
    text in the link), or as it starts where it was never edited or no longer fits X's width."""
    if not values["proj"]:
        return {name: None for name in PROJECTIONS}
    start = starting_projections(values["w_start"], d, int(values["w_seed"]))
    used = {}
    for name in PROJECTIONS:
        edited = values[name].strip()
        if edited:
            _labels, W = parse_matrix(edited, max_rows=limits.MAX_DIM, what=name.upper())
            used[name] = W if W.shape[0] == d else start[name]
        else:
            used[name] = start[name]
    return used


@dataclass(frozen=True)
class Calculation:
    """What the page computes for a link: the tokens' labels, the query row, and the attention result."""
    labels: list[str]
    query: int
    result: SelfAttentionResult


def token_labels(labels: list[str]) -> list[str]:
    """Row names as the page shows them: an unnamed row is 'token i'."""
    return [name or _("token {i}", i=i) for i, name in enumerate(labels)]


def calculation(values: Mapping[str, Any], *, scaled: bool | None = None) -> Calculation:
    """The attention the page draws for these (typed) values: X, the projections, scaling, mask and beta. `scaled`
    overrides the link's switch (a question asks what the other setting gives). ValueError for an X that does not
    parse."""
    labels, X = parse_matrix(values["x"], what="X")
    labels = token_labels(labels)
    W = projections(values, X.shape[1])
    result = self_attention(X, W["W_q"], W["W_k"], W["W_v"], scale=values["scaled"] if scaled is None else scaled,
                            causal=values["causal"], sharpness=float(values["sharp"]))
    return Calculation(labels, min(max(int(values["query"]), 0), len(labels) - 1), result)


# --- the class's questions ---------------------------------------------------------------------------------

def _settings_note(values: Mapping[str, Any]) -> str:
    notes = []
    if values["proj"]:
        notes.append(_("with the page's projections W_Q, W_K, W_V"))
    if float(values["sharp"]) != 1:
        notes.append(_("sharpness β = {beta}", beta=numbers.localized(f"{float(values['sharp']):g}")))
    return f" ({'; '.join(notes)})" if notes else ""


def largest_weight(link: Mapping[str, str], sources) -> Question:
    """Which key gets the query's largest weight, as the page's heatmap shows it (beta and projections included)."""
    values = PAGE.values(link)
    shown = calculation(values)
    labels, q, row = shown.labels, shown.query, shown.result.weights[shown.query]
    options, answer, leaders = _top_choice([f"{j}: {name}" for j, name in enumerate(labels)], row, keep=5,
                                           tolerance=TIE_TOLERANCE)
    tied = ", ".join(f"'{labels[j]}'" for j in leaders)
    why = (_("{tied} tie at {weight}.", tied=tied, weight=numbers.fixed(row[leaders[0]])) if len(leaders) > 1 else
           _("'{token}' gets {weight}, the largest in row {q} of α.", token=labels[leaders[0]],
             weight=numbers.fixed(row[leaders[0]]), q=q))
    return Question("attention", _("Query '{token}': which key gets the largest attention weight{settings}?",
                                   token=labels[q], settings=_settings_note(values)), options, answer,
                    why + " " + _("The heatmap of α on the page shows the whole row."),
                    veils=("attention.result", "attention.learn"))


def scaling(link: Mapping[str, str], sources) -> Question:
    """What the 1/sqrt(d_k) switch does to the query's largest weight, everything else as the page has it."""
    values = PAGE.values(link)
    now = calculation(values)
    other = calculation(values, scaled=not values["scaled"])
    q = now.query
    before, after = float(now.result.weights[q].max()), float(other.result.weights[q].max())
    options = (_("It rises"), _("It falls"), _("It stays the same"))
    answer = 2 if abs(after - before) < TIE_TOLERANCE else (0 if after > before else 1)
    asked = (_("Turn the 1/sqrt(d_k) scaling off: what happens to the largest weight of query '{token}' (now "
               "{before})?") if values["scaled"] else
             _("Turn the 1/sqrt(d_k) scaling on: what happens to the largest weight of query '{token}' (now "
               "{before})?"))
    return Question("attention", asked.format(token=now.labels[q], before=numbers.fixed(before)), options, answer,
                    _("It becomes {after}: dividing the scores by sqrt(d_k) = {root} flattens the softmax; without it "
                      "the scores are larger and the weights sharper.", after=numbers.fixed(after),
                      root=numbers.fixed(math.sqrt(now.result.d_k))),
                    veils=("attention.result",))


PAGE = PageSpec(
    key="attention", url="attention", view="attention_calculator",
    title=N_("Attention calculator"),
    question=N_("How does one token decide how much every other token matters?"),
    one_line=N_("Edit every number of X, W_Q, W_K, W_V and follow scores, softmax and context step by step."),
    icon=":material/calculate:",
    params=(
        Param("x", CHAPTER_MATRIX, _MATRIX, label=N_("X (token embeddings)")),
        Param("scaled", True, parse_bool, label=N_("Scale scores by 1/sqrt(d_k)"),
              help=N_("Off: the chapter's raw steps 1-3. On: softmax(QK^T / sqrt(d_k)) V.")),
        Param("proj", False, parse_bool, label=N_("Learned projections W_Q, W_K, W_V"),
              help=N_("Off: queries, keys and values are X itself.")),
        Param("w_start", "identity", one_of(PROJECTION_STARTS), label=N_("Start the projections from")),
        Param("w_seed", 0, between(0, MAX_PROJECTION_SEED), label=N_("Seed for random projections")),
        # a projection a student edited, as its text; empty: as it starts (identity, or random from the seed)
        *(Param(name, "", _MATRIX, label=f"{name.upper()} (d rows)") for name in PROJECTIONS),
        Param("causal", False, parse_bool, label=N_("Causal mask (a token sees only itself and earlier ones)")),
        Param("query", 0, between(0, limits.MAX_TOKENS - 1), label=N_("Query token (whose context we build)")),
        Param("sharp", 1.0, one_of(SHARPNESS, float), lambda beta: f"{beta:g}",
              label=N_("Sharpness β: multiply every score by it before softmax (1: the chapter's attention)")),
        Param("factor", 1, one_of(FACTORS, int), label=N_("Multiply this row's scores by")),
        Param("learn_steps", LEARN_STEPS, between(0, MAX_LEARN_STEPS_SHOWN), label=N_("Gradient steps")),
        Param("learn_target", 3, between(1, len(CHAPTER_TOKENS) - 1), label=N_("Target: crane should attend most to")),
    ),
    presets=PRESETS,
    questions=(largest_weight, scaling),
    reading=(references.VASWANI_2017.on("section 3.2, scaled dot-product attention"),
             references.BAHDANAU_2015,
             references.LIN_2021,
             references.CME_295.on("lecture 1")),
)
