"""One home per part for what both front ends say: given the same input, the Streamlit page and the Gradio tab print
the same sentence, the engine's (engine.attention.readings.context_reading for the Context page,
calculator_reading for the attention calculator), and offer the same examples and the
same window range (engine.attention.examples). Before, each front end kept its own copy of the sentences, the
slider's range and the two-sentence reading; a change to one copy left the other front end saying something else.
"""
from __future__ import annotations

import pytest

from engine.attention.examples import CONTEXT_MAX_K, CONTEXT_SENTENCES
from engine.attention.readings import context_reading
from tests.pages.conftest import run_file

pytest.importorskip("gradio")

PAGE = "views/context_window.py"
CALCULATOR = "views/attention_calculator.py"


@pytest.mark.parametrize("sentence, query, k", [("crane by the lake", 0, 1), ("she sat by the river bank", 1, 2),
                                                ("the crane lifted the steel", 4, 3)])
def test_the_context_sentence_is_the_engines_in_both_front_ends(sentence, query, k):
    from engine.attention.mechanism import attention
    from engine.embeddings.hand_vectors import sentence_vectors
    from gradio_tabs.attention import context_tab, hand_vectors_tab

    tokens, x, _ = sentence_vectors(sentence)
    expected = context_reading(attention(x, x, x).weights[query], tokens, query)
    x_text, _, _ = hand_vectors_tab(sentence)
    *_, gradio_says = context_tab(x_text, k, query, True)
    at = run_file(PAGE, {"sentence": sentence, "query": str(query), "k": str(k)})
    assert not at.exception, [e.value for e in at.exception]
    assert gradio_says == expected
    assert expected in [m.value for m in at.markdown]


def test_both_front_ends_offer_the_same_sentences_and_window_range():
    from gradio_tabs import attention as tab

    at = run_file(PAGE)
    assert at.selectbox(key="context.example").options == list(CONTEXT_SENTENCES)
    assert at.slider(key="context.k").max == CONTEXT_MAX_K
    assert tab.SENTENCES == list(CONTEXT_SENTENCES)
    tab.context_tab(tab.hand_vectors_tab(CONTEXT_SENTENCES[0])[0], CONTEXT_MAX_K, 0, True)    # the last k it offers
    with pytest.raises(Exception, match=str(CONTEXT_MAX_K)):
        tab.context_tab(tab.hand_vectors_tab(CONTEXT_SENTENCES[0])[0], CONTEXT_MAX_K + 1, 0, True)


@pytest.mark.parametrize("link", [
    {},                                                                 # the chapter's crane by the lake
    {"scaled": "0"},                                                    # its raw steps, d_k not divided out
    {"x": "a: 1 0\nb: 1 0\nc: 0 1", "query": "1", "causal": "1"},      # a tie between a and b, masked
    {"x": "loud: 90 0 40\nby: 0 1 0.1\nthe: 0.1 0.9 0\nlake: 80 0.2 30", "query": "3", "scaled": "0"},
    {"sharp": "4"},                                                     # sharper: beta multiplies the scores
    {"proj": "1", "w_start": "random", "w_seed": "7", "query": "2"},    # learned projections, random from a seed
    {"proj": "1", "W_q": "1 0 0\n0 2 0\n0 0 1", "sharp": "0.5"},       # an edited W_Q, in the link
])
def test_the_calculator_says_and_shows_the_same_in_both_front_ends_and_the_class(link):
    """One link, three readers: the page's sentence and heatmap, the Gradio tab's sentence and table, and the class
    question's answer all come from engine.chapter.attention.calculation (beta and projections included)."""
    from engine.attention.readings import calculator_reading
    from engine.chapter.attention import PAGE, calculation
    from engine.chapter.questions import questions_for
    from gradio_tabs.attention_calculator import from_link
    from tests.pages.conftest import chart_rows

    values = PAGE.values(link)
    shown = calculation(values)
    q, row = shown.query, shown.result.weights[shown.query]
    expected = calculator_reading(row, shown.labels, q, d_k=shown.result.d_k, scaled=values["scaled"],
                                  keys_are_inputs=not values["proj"])
    at = run_file(CALCULATOR, link)
    assert not at.exception, [e.value for e in at.exception]
    assert expected in [m.value for m in at.markdown]                    # the page's sentence
    heatmap = next(c.proto for c in at.get("vega_lite_chart") if "each row sums to 1" in c.proto.spec)
    cells = [cell for cell in chart_rows(heatmap).to_pylist() if cell["i"] == q]       # the heatmap's row q
    assert [cell["text"] for cell in sorted(cells, key=lambda cell: cell["j"])] == [f"{w:.3f}" for w in row]
    weights, _, gradio_says, _ = from_link(values)
    assert gradio_says == expected                                       # the Gradio tab's
    assert weights.iloc[q][shown.labels].astype(float).round(3).tolist() == list(row.round(3))
    largest = questions_for("attention", link)[0]                        # the class's, as revealed
    best = max(range(len(row)), key=lambda j: row[j])
    assert f"{row[best]:.3f}" in largest.explanation
    assert ("tie" in largest.explanation) == (largest.options[largest.answer].startswith("Two or more"))
