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


@pytest.mark.parametrize("rows, query, scaled, causal", [
    (None, 0, True, False),                                           # the chapter's crane by the lake
    (None, 0, False, False),                                          # its raw steps, d_k not divided out
    ("a: 1 0\nb: 1 0\nc: 0 1", 1, True, True),                        # a tie between a and b, masked
    ("loud: 90 0 40\nby: 0 1 0.1\nthe: 0.1 0.9 0\nlake: 80 0.2 30", 3, False, False),
])
def test_the_calculator_sentence_is_the_engines_in_both_front_ends(rows, query, scaled, causal):
    from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X, self_attention
    from engine.attention.readings import calculator_reading
    from engine.attention.typed_matrices import format_matrix, parse_matrix
    from gradio_tabs.attention import attention_tab

    x_text = rows or format_matrix(CHAPTER_X, CHAPTER_TOKENS)
    labels, x = parse_matrix(x_text)
    result = self_attention(x, scale=scaled, causal=causal)
    expected = calculator_reading(result.weights[query], labels, query, d_k=result.d_k, scaled=scaled)
    _, _, gradio_says, _ = attention_tab(x_text, scaled, causal, query)
    at = run_file(CALCULATOR, {"x": x_text, "scaled": "1" if scaled else "0", "causal": "1" if causal else "0",
                               "query": str(query)})
    assert not at.exception, [e.value for e in at.exception]
    assert gradio_says == expected
    assert expected in [m.value for m in at.markdown]
    assert f"d_k = {x.shape[1]}" in expected and ("√d_k" in expected.split("d_k = ")[1]) == scaled

