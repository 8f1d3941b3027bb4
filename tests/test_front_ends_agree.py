"""One home per part for what both front ends say: given the same input, the Streamlit page and the Gradio tab print
the same sentence, the engine's (engine.attention.readings.context_reading for the Context page,
calculator_reading for the attention calculator), and offer the same examples and the
same window range (engine.chapter.context; the Context page's own test is tests/front_ends/test_context.py).
Before, each front end kept its own copy of the sentences, the slider's range and the two-sentence reading; a change
to one copy left the other front end saying something else.
"""
from __future__ import annotations

import pytest

from tests.pages.conftest import run_file

pytest.importorskip("gradio")

CALCULATOR = "views/attention_calculator.py"


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


HEAD_VIEWER = "views/head_viewer.py"
REPEATED = ("violet gravel oyster tundra sprocket lantern walnut pebble orbit "
            "violet gravel oyster tundra sprocket lantern walnut pebble orbit")


@pytest.mark.parametrize("link", [
    {},                                                                        # the coreference sentence, 16/0
    {"text": "The cat sat on the mat because the cat was tired.", "layer": "3", "head": "2"},
    {"text": REPEATED, "layer": "18", "head": "6"},                            # an induction head with a copy
    {"text": "the owl saw the cat " * 12, "layer": "99", "head": "4"},        # past the token limit; no layer 99
])
def test_the_head_viewer_reads_the_same_head_in_both_front_ends_and_the_class(link, smollm2_installed):
    """One link, three readers of SmolLM2's head: the page (its head, its sentence, its heatmap), the Gradio tab
    (engine.chapter.heads.head_view on its own pass) and the class questions read the same weights, type and
    sentence, and all three cut the text at the one token limit, limits.HEAD_VIEWER_MAX_TOKENS."""
    import numpy as np

    from engine import limits
    from engine.chapter.heads import PAGE, head_sentence, head_view
    from engine.chapter.questions import questions_for
    from engine.classroom.questions import EngineSources
    from gradio_tabs.head_viewer import from_link
    from tests.pages.conftest import chart_rows

    values = PAGE.values(link)
    sources = EngineSources()
    result = sources.pretrained_heads(values["model"], values["text"], limits.HEAD_VIEWER_MAX_TOKENS)
    view = head_view(values, result, sources.pretrained_head_types(values["model"], values["text"],
                                                                    limits.HEAD_VIEWER_MAX_TOKENS))
    T = len(view.tokens)
    assert T <= limits.HEAD_VIEWER_MAX_TOKENS and (T == limits.HEAD_VIEWER_MAX_TOKENS) == (result.note is not None)
    at = run_file(HEAD_VIEWER, link, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert f"Layer {view.layer}, head {view.head}: {view.kind}" in [s.value for s in at.subheader]
    assert any(head_sentence(view) in c.value for c in at.caption)                 # the page's sentence
    heatmap = next(c.proto for c in at.get("vega_lite_chart") if "same weights as a heatmap" in c.proto.spec)
    cells = sorted((cell for cell in chart_rows(heatmap).to_pylist() if cell["i"] == T - 1), key=lambda c: c["j"])
    assert len(cells) == T and np.allclose([cell["weight"] or 0.0 for cell in cells], view.alpha[-1], atol=1e-6)
    rows, gradio_says, _ = from_link(values)
    assert head_sentence(view) in gradio_says and f"**{view.kind}**" in gradio_says            # the Gradio tab's
    assert len(rows) == T and np.allclose(rows.iloc[-1, 1:].astype(float), view.alpha[-1].round(3), atol=1e-3)
    kind, looks = questions_for("heads", link, sources)                                    # the class's
    assert kind.options[kind.answer] == view.kind
    assert f"layer {view.layer}, head {view.head}?" in kind.prompt
    best = int(np.argmax(view.alpha[-1]))
    assert looks.options[looks.answer].startswith(f"{best}: ") or looks.options[looks.answer].startswith("Two")
    assert f"{view.alpha[-1][best]:.3f}" in looks.explanation
