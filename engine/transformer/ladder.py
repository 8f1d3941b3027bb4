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
from engine.numbers import fixed, worked

NATS_PER_BIT = math.log(2)


@dataclass(frozen=True)
class Bar:
    model: str
    bits_per_char: float
    kind: str

    @property
    def order(self) -> int | None:
        """n of an n-gram bar ('7-gram (Kneser-Ney)' -> 7), else None."""
        found = re.match(r"(\d+)-gram", self.model)
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
    sentences = [f"Best on this text: **{names[0]}**, {ranked[0].bits_per_char:.3f} bits per character"
                 + (f"; then {names[1]} ({ranked[1].bits_per_char:.3f})" if len(ranked) > 1 else "") + "."]
    top_is_gram = ranked[0].order is not None
    stop = where_orders_stop_helping(bars)
    if stop is not None:
        top, after = stop
        text = (f"More context helps the n-grams up to the **{top.order}-gram**" if top_is_gram else
                f"Among the n-grams, the **{top.order}-gram** is best ({top.bits_per_char:.3f})")
        if after is not None:
            text += (f"; the {after.order}-gram scores {after.bits_per_char:.3f}: beyond {top.order - 1} characters "
                     "of context, most contexts were seen too rarely to trust, so more context stops helping")
        sentences.append(text + ".")
    model = next((b for b in bars if b.model == shipped), None)
    if model is not None and stop is not None:
        top = stop[0]
        # the difference of the two printed figures (3 decimals), so that a student's subtraction gives it
        gap = worked(lambda best_gram, ours: best_gram - ours, top.bits_per_char, model.bits_per_char, digits=3)
        if gap > 0:
            sentences.append(f"The {shipped} beats the best n-gram by **{fixed(gap)} bits** "
                             f"({fixed(gap * NATS_PER_BIT)} nats) per character.")
        elif gap == 0:
            sentences.append(f"The {shipped} and the best n-gram tie to 3 decimals "
                             f"({fixed(model.bits_per_char)} bits per character).")
        else:
            sentences.append(f"The {shipped} does **not** beat the best n-gram: it is {fixed(-gap)} bits "
                             f"({fixed(-gap * NATS_PER_BIT)} nats) per character behind the {top.order}-gram.")
    live = best(bars, "your live runs")
    if live is not None and stop is not None:
        verdict = "beats" if live.bits_per_char < stop[0].bits_per_char else "does not yet beat"
        sentences.append(f"Your best live run ({live.bits_per_char:.3f}) {verdict} the best n-gram.")
    return sentences
