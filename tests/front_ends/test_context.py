"""Context: window vs attention: one link, three readers. The Streamlit page, the Gradio tab (gradio_tabs.context_window
.from_link) and the class questions all compute from engine.chapter.context.calculation, the edited X in the link
included, so they show the same weights and say the same sentence."""
from __future__ import annotations

import pytest

from engine.chapter.context import MAX_K, PAGE, SENTENCES, calculation, hand_vectors
from engine.chapter.questions import questions_for
from engine.classroom.questions import EngineSources
from tests.pages.conftest import chart_rows, run_file

pytest.importorskip("gradio")

VIEW = "views/context_window.py"
LAKE_FIRST = "crane: 1, 0.2, 0.6\nby: 0.1, 0.9, 0.1\nthe: 0.1, 0.9, 0\nlake: 0.9, 0.1, 0.5"   # the challenge's X
LINKS = [
    {},                                                                       # crane by the lake, k = 1
    {"sentence": "she sat by the river bank", "query": "1", "k": "2"},
    {"sentence": "the crane lifted the steel", "query": "0", "k": "3"},      # 'the' twice: named apart
    {"x": LAKE_FIRST, "k": "3"},                                              # an edited X, only in the link
    # lake at the far end: its k, 7, is among the reach question's options (it used to be past them: no question)
    {"x": "a: 1 0\nb: 0 1\nc: 1 1\nd: 0 0\ne: 1 0\nf: 0 1\ng: 0 -2\nlake: 1 1", "scaled": "0"},
]


@pytest.mark.parametrize("link", LINKS)
def test_the_page_the_tab_and_the_class_read_one_link_alike(link):
    from gradio_tabs.context_window import from_link

    values = PAGE.values(link)
    shown = calculation(values)
    t, row = shown.query, shown.weights
    at = run_file(VIEW, link)
    assert not at.exception, [e.value for e in at.exception]
    assert shown.reading in [m.value for m in at.markdown]                      # the page's sentence
    if link.get("x"):
        assert at.text_area(key="context.x").value == link["x"]                # the link's X, as edited
    heatmap = next(c.proto for c in at.get("vega_lite_chart") if "by content" in c.proto.spec)
    drawn = [cell for cell in chart_rows(heatmap).to_pylist() if cell["row"] == "attention"]
    assert [cell["text"] for cell in drawn] == [f"{w:.3f}" for w in row]       # the page's attention row

    weights, contexts, _, gradio_says = from_link(values)
    assert gradio_says == shown.reading                                         # the Gradio tab's
    attention_row = weights[weights["method"] == "attention"].iloc[0]
    assert [attention_row[name] for name in shown.labels] == [round(float(w), 3) for w in row]
    assert contexts.iloc[0, 0] == f"window k = {shown.k}"

    reach, favourite = questions_for("context", link, EngineSources())         # the class's
    best = max(range(len(row)), key=lambda j: row[j])
    assert f"{row[best]:.3f}" in favourite.explanation
    assert f"'{shown.labels[t]}'" in favourite.prompt
    k = int(reach.options[reach.answer].removeprefix("k = "))
    target = next(j for j in range(len(row)) if f"reaches '{shown.labels[j]}'" in reach.prompt)
    assert k == abs(target - t) and shown.windows([k])[k][target] > 0
    assert k == 0 or shown.windows([k - 1])[k - 1][target] == 0                # the smallest


def test_a_link_with_a_sentence_and_no_x_opens_on_the_sentences_vectors():
    """X is in the link once edited; a link that names only a sentence (an old link, a lesson's) still opens on the
    sentence's hand-picked vectors, in both front ends and in the class."""
    link = {"sentence": "the pitcher threw a fastball", "query": "1"}
    x_text, _, _ = hand_vectors(link["sentence"])
    at = run_file(VIEW, link)
    assert not at.exception
    assert at.text_area(key="context.x").value == x_text
    assert at.query_params["x"] == x_text                                       # and the link now holds it
    assert calculation(PAGE.values(link)).labels == ["the", "pitcher", "threw", "a", "fastball"]
    assert "'pitcher'" in questions_for("context", link, EngineSources())[1].prompt


def test_both_front_ends_offer_the_same_sentences_and_window_range():
    from gradio_tabs.context_window import context_tab, hand_vectors_tab

    at = run_file(VIEW)
    assert at.selectbox(key="context.example").options == list(SENTENCES)
    assert at.slider(key="context.k").max == MAX_K
    x_text = hand_vectors_tab(SENTENCES[0])[0]
    context_tab(x_text, MAX_K, 0, True)                                         # the last k it offers
    with pytest.raises(Exception, match=str(MAX_K)):
        context_tab(x_text, MAX_K + 1, 0, True)
    with pytest.raises(ValueError, match=str(MAX_K)):                           # the engine refuses it too
        calculation(PAGE.values({}) | {"k": MAX_K + 1})
