"""Multi-head attention: one link, three readers. The Streamlit page, the Gradio tab (gradio_tabs.multi_head.from_link)
and the class question all compute from engine.chapter.multi_head (`heads`, `costs`), so they show the same numbers
and say the same sentences."""
from __future__ import annotations

import numpy as np
import pytest

from engine.chapter.multi_head import H_CHOICES, MAX_SEED, PAGE, costs, heads
from engine.chapter.questions import questions_for
from tests.pages.conftest import run_file

pytest.importorskip("gradio")

VIEW = "views/multi_head.py"
LINKS = [
    {},                                                                        # 2 hand-built heads, GPT-2 small
    {"h": "4", "weights": "random", "seed": "7", "causal": "1", "cost_d": "512", "cost_h": "8"},
    {"sentence": "the owl saw the cat", "h": "8", "gain": "5", "cost_T": "100000", "cost_d": "64", "cost_h": "64"},
]


@pytest.mark.parametrize("link", LINKS)
def test_the_page_the_tab_and_the_class_read_one_link_alike(link):
    from engine.attention.mechanism import shape_trace
    from gradio_tabs.multi_head import from_link
    from ui.formula import latex_vector

    values = PAGE.values(link)
    shown, counted = heads(values), costs(values)
    at = run_file(VIEW, link)
    assert not at.exception, [e.value for e in at.exception]
    assert shown.reading in [m.value for m in at.markdown]                     # the page's sentences
    assert counted.reading in [c.value for c in at.caption]
    latex = [block.value for block in at.latex]
    assert any(latex_vector(shown.result.output[0], 2) in block for block in latex)     # MultiHead(X), row 0
    assert any(f"{counted.split.params:,}".replace(",", "{,}") in block for block in latex)

    (_, shapes, output, says), (cost_table, _, cost_says) = from_link(values)  # the Gradio tab's
    assert says == shown.reading and cost_says == counted.reading
    assert np.allclose(output.drop(columns="token").to_numpy(), shown.result.output.round(3))
    assert list(output["token"]) == shown.sentence.tokens
    assert list(shapes["shape"]) == [" x ".join(map(str, step.shape)) for step in shape_trace(shown.result)]
    assert list(cost_table["parameters"]) == [c.params for c in counted.named.values()]
    assert list(cost_table["FLOPs: total"]) == [c.flops for c in counted.named.values()]

    question, = questions_for("multi-head", link)                              # the class's
    assert question.options[question.answer] == f"{counted.split.params:,}"
    assert f"d = {counted.split.d} and h = {counted.split.h}" in question.prompt


def test_both_front_ends_offer_the_same_heads_and_refuse_the_same_settings():
    from gradio_tabs.multi_head import head_costs_tab, multi_head_tab

    at = run_file(VIEW)
    assert tuple(at.select_slider(key="multihead.h").options) == tuple(str(h) for h in H_CHOICES)
    assert at.number_input(key="multihead.seed").max == MAX_SEED
    with pytest.raises(Exception, match="cannot be split evenly"):
        multi_head_tab(PAGE.param("sentence").default, 3, "identity", 2.0, 0, False)
    with pytest.raises(ValueError, match="cannot be split evenly"):                    # the engine refuses it too
        heads(PAGE.defaults() | {"h": 3})
    with pytest.raises(Exception, match="cannot be split evenly"):
        head_costs_tab(1024, 768, 7)
    with pytest.raises(ValueError, match="200"):                                       # the sentence's limit
        heads(PAGE.defaults() | {"sentence": "the owl " * 30})
