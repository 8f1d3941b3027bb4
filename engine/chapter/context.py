"""Context: window vs attention: the page's spec, its example sentences, what it computes from its link, and its class
questions.

Every value the page's link carries is a Param below, the edited X included (empty: the sentence's hand-picked
vectors); `calculation(values)` is what the page draws for those values (a window of half-width k and attention,
side by side, for one token), so the Streamlit page, the Gradio tab and the class questions compute the same
numbers and say the same sentence. The spec itself (PAGE) closes the file.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from engine import limits, markup, numbers
from engine.attention.mechanism import AttentionResult, attention, window_inside, window_reach, window_weights
from engine.attention.readings import context_reading
from engine.attention.typed_matrices import format_matrix, parse_matrix
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, parse_bool, text
from engine.charts.style import unique_labels
from engine.classroom.questions import TIE_TOLERANCE, _top_choice
from engine.classroom.store import Question
from engine.embeddings.hand_vectors import sentence_vectors
from engine.i18n import N_, _, ngettext

# The example sentences (their words have vectors in engine.embeddings.hand_vectors); the first opens the page.
SENTENCES = ("crane by the lake", "the crane by the lake", "the pitcher threw a fastball",
             "she sat by the river bank", "the crane lifted the steel")
MAX_K = 6            # the window half-width slider: k = 0 .. 6 (the engine computes up to limits.MAX_WINDOW)
WINDOWS_SHOWN = 3    # window rows k = 0 .. 3 beside attention in the weights table and heatmap


def first_query(tokens: list[str]) -> int:
    """The token a sentence opens on: crane where it has one, else the first."""
    return tokens.index("crane") if "crane" in tokens else 0


def hand_vectors(sentence: str) -> tuple[str, int, list[str]]:
    """A sentence as X's text from the hand-picked 3-number vectors, the token it opens on, and the words without a
    vector (they start at zeros). ValueError for a sentence with no word."""
    tokens, X, unknown = sentence_vectors(sentence)
    return format_matrix(X, tokens), first_query(tokens), unknown


def unknown_words_note(unknown: list[str]) -> str:
    """What both front ends say when some words have no hand-picked vector."""
    return _("No hand-picked vector for: {words}. They start at 0, 0, 0: give them numbers below.",
             words=", ".join(markup.markdown(word) for word in unknown))


def token_labels(labels: list[str]) -> list[str]:
    """Row names as the page shows them: an unnamed row is 'token i'."""
    return [name or _("token {i}", i=i) for i, name in enumerate(labels)]


def x_of(values: Mapping[str, Any]) -> tuple[list[str], np.ndarray]:
    """The page's X for its link: X as edited (the link's text), or the sentence's hand-picked vectors where the link
    holds none. ValueError for a text or a sentence that does not give a matrix."""
    if values["x"].strip():
        labels, X = parse_matrix(values["x"], what="X")
        return token_labels(labels), X
    tokens, X, _unknown = sentence_vectors(values["sentence"])
    return tokens, X


@dataclass(frozen=True)
class Context:
    """What the page shows for one token: its window of half-width k beside attention's weights.

    `labels` name the tokens as the chart and the sentence do (a repeated word numbered: 'the (1)', 'the (2)')."""
    labels: list[str]
    x: np.ndarray
    query: int
    k: int
    attended: AttentionResult

    @property
    def window(self) -> np.ndarray:
        """The window's weights for the query, 1/|W_t| inside t-k .. t+k."""
        return window_weights(len(self.labels), self.k)[self.query]

    @property
    def window_context(self) -> np.ndarray:
        return self.window @ self.x

    @property
    def weights(self) -> np.ndarray:
        """Attention's weights for the query."""
        return self.attended.weights[self.query]

    def windows(self, ks) -> dict[int, np.ndarray]:
        """The query's window weights for each half-width in `ks`."""
        return {k: window_weights(len(self.labels), k)[self.query] for k in ks}

    def windows_inside(self, ks) -> np.ndarray:
        """Which tokens each window sees (the heatmap draws the rest outside its scale)."""
        return np.array([window_inside(len(self.labels), k)[self.query] for k in ks])

    @property
    def reading(self) -> str:
        return context_reading(self.weights, self.labels, self.query)


def compare(x, labels: list[str], query: int, k: int, scaled: bool) -> Context:
    """A window of half-width k against attention (softmax(x xᵀ / √d), or unscaled) for token `query` of X (its row
    labels as the page shows them); the token is kept inside X. ValueError for a k past the slider's."""
    if not 0 <= int(k) <= MAX_K:
        raise ValueError(_("The window half-width k must be from 0 to {most}; got {got}.", most=MAX_K, got=k))
    x = np.asarray(x, dtype=float)
    attended = attention(x, x, x, scale=bool(scaled))
    return Context(unique_labels(list(labels)), x, min(max(int(query), 0), len(labels) - 1), int(k), attended)


def calculation(values: Mapping[str, Any]) -> Context:
    """What the page draws for these (typed) values. ValueError for an X that does not parse."""
    labels, X = x_of(values)
    return compare(X, labels, values["query"], values["k"], values["scaled"])


# --- the class's questions ---------------------------------------------------------------------------------

def reach(link: Mapping[str, str], sources) -> Question:
    """The smallest window around the page's token that reaches lake (else attention's favourite)."""
    values = PAGE.values(link)
    shown = calculation(values)
    tokens, t, T = shown.labels, shown.query, len(shown.labels)
    names = x_of(values)[0]                      # as typed: a repeated lake is still lake (shown 'lake (1)')
    others = [j for j in range(T) if j != t]
    if not others:
        raise ValueError(_("The sentence has one word: no window to widen."))
    target = next((j for j in others if names[j] == "lake"), None)
    if target is None:
        target = max(others, key=lambda j: shown.weights[j])
    k, share = window_reach(T, t, target)
    low = max(0, min(k - 2, T - 5))              # k among the five, also for the last token
    options = tuple(f"k = {r}" for r in range(low, low + 5))
    return Question("context", _("A window of half-width k around '{token}' averages its neighbours. What is the "
                                 "smallest k whose window reaches '{target}'?", token=tokens[t], target=tokens[target]),
                    options, options.index(f"k = {k}"),
                    ngettext("'{target}' is {n} position away, so k = {k}; the window then gives it {share}, as much "
                             "as every other token inside. Attention gives it {weight}.",
                             "'{target}' is {n} positions away, so k = {k}; the window then gives it {share}, as much "
                             "as every other token inside. Attention gives it {weight}.", abs(int(target) - int(t)),
                             target=tokens[target], k=k, share=numbers.fixed(share),
                             weight=numbers.fixed(shown.weights[target])),
                    veils=("context.result",))


def favourite(link: Mapping[str, str], sources) -> Question:
    """Which token attention weighs most for the page's token, itself included, as the page's bars show."""
    shown = calculation(PAGE.values(link))
    row = shown.weights
    options, answer, leaders = _top_choice([f"{j}: {w}" for j, w in enumerate(shown.labels)], row, keep=5,
                                           tolerance=TIE_TOLERANCE)
    best = leaders[0]
    return Question("context", _("Attention: which token gets the largest weight from '{token}' (itself included)?",
                                 token=shown.labels[shown.query]), options, answer,
                    _("'{token}' gets {weight}; the bars on the page compare it with the window's equal shares.",
                      token=shown.labels[best], weight=numbers.fixed(row[best])), veils=("context.result",))


TAKES_TITLE = N_("How much '{token}' takes from each token")   # a query's weights (both front ends)

PAGE = PageSpec(
    key="context", url="context", view="context_window",
    title=N_("Context: window vs attention"),
    question=N_("Which words should *crane* borrow meaning from?"),
    one_line=N_("Average a fixed window around 'crane', then let relevance choose: which one reaches 'lake'?"),
    icon=":material/filter_center_focus:",
    params=(
        Param("sentence", SENTENCES[0], text(limits.MAX_CONTEXT_SENTENCE_CHARS),
              label=N_("Sentence (words get hand-picked 3-number vectors you can edit below)")),
        # X as the student edited it, as its text; empty: the sentence's hand-picked vectors
        Param("x", "", text(limits.MAX_MATRIX_TEXT_CHARS),
              label=N_("X (one row per token: nature, function word, people/action)")),
        Param("k", 1, between(0, MAX_K), label=N_("Window half-width k"),
              help=N_("The window around token t covers t-k ... t+k.")),
        Param("query", 0, between(0, limits.MAX_TOKENS - 1), label=N_("Token whose context we build")),
        Param("scaled", True, parse_bool, label=N_("Scale scores by 1/sqrt(d)"),
              help=N_("On (as in the chapter's worked example and the attention calculator): softmax(x xᵀ / sqrt(d)). "
                      "Off: the raw dot products of steps 1-3.")),
    ),
    questions=(reach, favourite),
    reading=(references.BAHDANAU_2015,
             references.VASWANI_2017,
             references.CME_295.on("lecture 1: from embeddings to attention")),
)
