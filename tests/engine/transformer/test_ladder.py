"""engine.transformer.ladder: the sentences under the model ladder follow the bars, whatever the bars say."""
from __future__ import annotations

import math

from hypothesis import given, strategies as st

from engine.transformer.ladder import Bar, ladder_sentences, where_orders_stop_helping


def grams(*bits: float) -> list[Bar]:
    return [Bar(f"{n}-gram (Kneser-Ney)", b, "n-gram") for n, b in enumerate(bits, start=1)]


def test_the_best_order_and_where_more_context_stops_helping():
    bars = grams(4.6, 3.5, 2.9, 2.4, 2.1, 1.97, 1.968, 1.98)
    top, after = where_orders_stop_helping(bars)
    assert (top.order, after.order) == (7, 8)
    text = " ".join(ladder_sentences(bars))
    assert "More context helps the n-grams up to the **7-gram**" in text and "the 8-gram scores 1.980" in text


def test_a_shipped_model_behind_the_best_ngram_is_said_to_lose():
    bars = grams(4.6, 3.5, 2.9, 2.4, 2.1, 1.974) + [Bar("shipped transformer", 1.997, "transformer")]
    text = " ".join(ladder_sentences(bars))
    assert "does **not** beat the best n-gram" in text and "0.023 bits" in text
    assert "Best on this text: **6-gram (Kneser-Ney)**" in text


def test_a_shipped_model_ahead_is_said_to_win_by_the_measured_margin():
    bars = grams(4.6, 3.0, 1.97) + [Bar("shipped transformer", 1.80, "transformer")]
    text = " ".join(ladder_sentences(bars))
    assert "beats the best n-gram by **0.170 bits**" in text
    assert f"({0.17 * math.log(2):.3f} nats)" in text


@given(st.lists(st.floats(0.5, 8.0, allow_nan=False), min_size=1, max_size=9), st.floats(0.5, 8.0))
def test_the_sentences_always_name_the_measured_best(gram_bits, shipped_bits):
    bars = grams(*gram_bits) + [Bar("shipped transformer", shipped_bits, "transformer")]
    text = " ".join(ladder_sentences(bars))
    winner = min(bars, key=lambda b: b.bits_per_char)
    assert f"Best on this text: **{winner.model}**, {winner.bits_per_char:.3f}" in text
    best_gram = min(bars[:-1], key=lambda b: b.bits_per_char)
    assert (f"up to the **{best_gram.order}-gram**" in text if winner is best_gram
            else f"the **{best_gram.order}-gram** is best ({best_gram.bits_per_char:.3f})" in text)
    # decided on the figures as printed (3 decimals): equal figures are a tie, never a win by 0.000
    shown_gap = round(float(f"{best_gram.bits_per_char:.3f}") - float(f"{shipped_bits:.3f}"), 3)
    assert ("beats the best n-gram by" in text) == (shown_gap > 0)
    assert ("does **not** beat" in text) == (shown_gap < 0) and ("tie to 3 decimals" in text) == (shown_gap == 0)
