"""What every page's class questions share: options and ties, and where heavy things come
from. Each page's questions live in its spec (engine.chapter.<page>.PAGE.questions); engine.chapter.questions
asks them.

A question is built from the page's link values and answered with the engine functions the page calls, never a
hand-typed one. `sources` gives the heavy objects and the cached results a page already computed: the Streamlit
app passes its `ui.loaders` module (one cache per server), a notebook or a test passes `EngineSources()`, which
keeps the same things in functools caches. Both open them through engine.prepare and answer the same calls, so a
question never loads a model the page has not.

Options come in a natural order (positions, numbers, names), not best first; where the engine's numbers tie at the
top (closer than the page prints), "two or more tie" is an option and may be the answer. Each question names the
parts of its page that give its answer away (`Question.veils`), which a class veils until the reveal.
Building a page's questions takes at most a couple of seconds once its models are loaded (bench/class_questions.py).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from engine import numbers, prepare
from engine.i18n import N_, _

TIE = N_("Two or more tie for first")   # an option, shown as _(TIE)
TIE_TOLERANCE = 5e-4          # weights shown to 3 decimals: closer than this reads as the same number
BITS_TIE = 0.01               # held-out bits closer than this are the same for any use: the question says so
MAX_LABEL = 40                                                 # characters of a token or text quoted in an option


def _quote(text: str) -> str:
    """A token or text as an option shows it: quoted, spaces kept visible, cut to MAX_LABEL."""
    shown = text.replace("\n", "\u21b5")
    if len(shown) > MAX_LABEL:
        shown = shown[:MAX_LABEL - 1] + "\u2026"
    return f"'{shown}'"


def _number(value: float) -> str:
    """A count or a size as an option shows it, in the reader's language (2,359,296; 2.359.296 in Spanish)."""
    return numbers.grouped(int(value)) if float(value).is_integer() else numbers.localized(f"{value:,.3f}")


def _top_choice(labels: Sequence[str], scores: Sequence[float], *, keep: int = 4,
                tolerance: float = 0.0) -> tuple[tuple[str, ...], int, list[int]]:
    """Options for "which one scores highest?": the `keep` best (in their given order), plus TIE when
    they are more than two; the answer (TIE's index when the best are within `tolerance`), and the
    indices of the leaders."""
    values = np.asarray(scores, dtype=float)
    best = float(values.max())
    leaders = [i for i in range(len(values)) if values[i] >= best - tolerance]
    ranked = sorted(range(len(values)), key=lambda i: (-values[i], i))
    kept = sorted(ranked[:keep])                                     # the leaders come first in `ranked`
    options = [labels[i] for i in kept]
    with_tie = len(kept) > 2 or len(leaders) > 1
    if with_tie:
        options.append(_(TIE))
    answer = len(options) - 1 if len(leaders) > 1 else kept.index(leaders[0])
    return tuple(options), answer, leaders


def _has_word(text: str) -> bool:
    """Whether a token holds a letter or a digit (not only punctuation or spaces)."""
    return any(ch.isalnum() for ch in text)


def _numbers(correct: int, wrong: Sequence[int]) -> tuple[tuple[str, ...], int]:
    """The right count and the computed wrong ones (distinct, positive), smallest first."""
    choices = sorted({int(correct), *(int(w) for w in wrong if int(w) > 0)})
    return tuple(_number(c) for c in choices), choices.index(int(correct))


# --- where heavy things come from ------------------------------------------------------------------

class EngineSources(prepare.Cached):
    """The heavy objects and results questions read, opened by engine.prepare and kept here (a notebook, a test).
    The app passes `ui.loaders` instead, whose functions have these names and arguments and share the pages'
    caches."""
