"""The model ladder in words: the sentences under the Generate page's bars, computed from the bars.

A bar is (model name, held-out bits per character, kind); kinds are "n-gram", "transformer",
"your live runs", "pretrained" and "baseline". Nothing here is written by hand about a
particular model: rank, margins and the order where more context stops helping all come
from the numbers, so the words cannot drift from the chart.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engine import markup
from engine.i18n import _
from engine.numbers import fixed, worked

NATS_PER_BIT = math.log(2)


@dataclass(frozen=True)
class Bar:
    model: str
    bits_per_char: float
    kind: str

    @property
    def order(self) -> int | None:
        """n of an n-gram bar ('7-gram (Kneser-Ney)' -> 7, and as a reader's language names it: '7 元语法', '7-grama'),
        else None."""
        found = re.match(r"(\d+)", self.model)
        return int(found.group(1)) if found and self.kind == "n-gram" else None


def best(bars: list[Bar], kind: str) -> Bar | None:
    """The bar of this kind with the fewest bits per character."""
    return min((b for b in bars if b.kind == kind), key=lambda b: b.bits_per_char, default=None)


def where_orders_stop_helping(bars: list[Bar]) -> tuple[Bar, Bar | None] | None:
    """(the best n-gram, the next order after it if the ladder has one): past the best, more context hurts."""
    grams = sorted((b for b in bars if b.order is not None), key=lambda b: b.order)
    if not grams:
        return None
    top = min(grams, key=lambda b: b.bits_per_char)
    after = next((b for b in grams if b.order > top.order), None)
    return top, after


def ladder_sentences(bars: list[Bar], shipped: str = "shipped transformer") -> list[str]:
    """Markdown sentences stating the ranking as measured (fewer bits per character is better)."""
    if not bars:
        return []
    ranked = sorted(bars, key=lambda b: b.bits_per_char)
    names = [markup.markdown(bar.model) for bar in ranked]     # a model brought along is named by its file
    if len(ranked) > 1:
        sentences = [_("Best on this text: **{best}**, {bits} bits per character; then {next} ({next_bits}).",
                       best=names[0], bits=fixed(ranked[0].bits_per_char), next=names[1],
                       next_bits=fixed(ranked[1].bits_per_char))]
    else:
        sentences = [_("Best on this text: **{best}**, {bits} bits per character.", best=names[0],
                       bits=fixed(ranked[0].bits_per_char))]
    top_is_gram = ranked[0].order is not None
    stop = where_orders_stop_helping(bars)
    if stop is not None:
        top, after = stop
        params = dict(n=top.order, bits=fixed(top.bits_per_char))
        if after is not None:
            params |= dict(after=after.order, after_bits=fixed(after.bits_per_char), context=top.order - 1)
            sentences.append(
                _("More context helps the n-grams up to the **{n}-gram**; the {after}-gram scores {after_bits}: beyond "
                  "{context} characters of context, most contexts were seen too rarely to trust, so more context "
                  "stops helping.", **params) if top_is_gram else
                _("Among the n-grams, the **{n}-gram** is best ({bits}); the {after}-gram scores {after_bits}: beyond "
                  "{context} characters of context, most contexts were seen too rarely to trust, so more context "
                  "stops helping.", **params))
        else:
            sentences.append(_("More context helps the n-grams up to the **{n}-gram**.", **params) if top_is_gram
                             else _("Among the n-grams, the **{n}-gram** is best ({bits}).", **params))
    model = next((b for b in bars if b.model == shipped), None)
    if model is not None and stop is not None:
        top = stop[0]
        # the difference of the two printed figures (3 decimals), so that a student's subtraction gives it
        gap = worked(lambda best_gram, ours: best_gram - ours, top.bits_per_char, model.bits_per_char, digits=3)
        if gap > 0:
            sentences.append(_("The {model} beats the best n-gram by **{bits} bits** ({nats} nats) per character.",
                               model=shipped, bits=fixed(gap), nats=fixed(gap * NATS_PER_BIT)))
        elif gap == 0:
            sentences.append(_("The {model} and the best n-gram tie to 3 decimals ({bits} bits per character).",
                               model=shipped, bits=fixed(model.bits_per_char)))
        else:
            sentences.append(_("The {model} does **not** beat the best n-gram: it is {bits} bits ({nats} nats) per "
                               "character behind the {n}-gram.", model=shipped, bits=fixed(-gap),
                               nats=fixed(-gap * NATS_PER_BIT), n=top.order))
    live = best(bars, "your live runs")
    if live is not None and stop is not None:
        bits = fixed(live.bits_per_char)
        sentences.append(_("Your best live run ({bits}) beats the best n-gram.", bits=bits)
                         if live.bits_per_char < stop[0].bits_per_char else
                         _("Your best live run ({bits}) does not yet beat the best n-gram.", bits=bits))
    return sentences
