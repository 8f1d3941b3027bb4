"""Position: one link, three readers. The Streamlit page, the Gradio tab (gradio_tabs.position.from_link) and the class
question all compute from engine.chapter.position (`shuffled`, `encodings`), so they show the same numbers and say
the same sentences; the drawn tables' T and d are refused past limits.MAX_DRAWN_POSITIONS by the engine itself."""
from __future__ import annotations

import numpy as np
import pytest

from engine import limits
from engine.chapter.position import PAGE, encodings, shuffle, shuffled
from engine.chapter.questions import questions_for
from tests.pages.conftest import run_file

pytest.importorskip("gradio")

VIEW = "views/position.py"
LINKS = [
    {},                                                                         # no encoding: rounding only
    {"enc": "sinusoidal"},                                                      # 0.749
    {"enc": "learned", "proj": "1", "seed": "3", "strength": "0.5", "T": "16", "d": "8"},
    {"causal": "1", "a": "a hungry owl caught a small mouse", "b": "a small mouse caught a hungry owl",
     "base": "100", "T": str(limits.MAX_DRAWN_POSITIONS), "d": str(limits.MAX_DRAWN_POSITIONS)},
]


@pytest.mark.parametrize("link", LINKS)
def test_the_page_the_tab_and_the_class_read_one_link_alike(link):
    from gradio_tabs.position import from_link

    values = PAGE.values(link)
    shown, drawn = shuffled(values), encodings(values)
    check = shown.check
    at = run_file(VIEW, link)
    assert not at.exception, [e.value for e in at.exception]
    said = [m.value for m in (at.success if check.equivariant else at.warning)]
    assert shown.reading in said                                                # the page's verdict
    assert drawn.reading in [c.value for c in at.caption]                       # and its tables' sentence
    assert list(at.table[0].value["largest change"]) == check.written       # each word's change, as written
    latex = [block.value for block in at.latex]
    sin = drawn.profiles["sinusoidal"]
    assert any(f"= {sin.mean[drawn.near]:.3f}" in block for block in latex)      # p_t . p_(t+1)
    assert any(f"s_{{3,1}} = {drawn.rotary[3, 1]:.3f}" in block for block in latex)

    (rows, _, _, says), (offsets, _, _, _, summary) = from_link(values)        # the Gradio tab's
    assert says == shown.reading
    assert list(rows["word"]) == shown.tokens_b
    assert np.allclose(rows["largest change"], check.difference)
    assert summary == f"{drawn.reading} {drawn.rotary_reading}"
    assert len(offsets) == drawn.T
    assert np.allclose(offsets["sinusoidal: mean p_i . p_(i+k)"], sin.mean.round(4))

    question, = questions_for("position", link)                                 # the class's
    assert question.answer == (0 if check.equivariant else 1)
    assert f"is {check.largest_written} " in question.explanation
    assert f"'{values['b']}' holds the words of '{values['a']}'" in question.prompt


def test_the_page_and_the_tab_shuffle_a_into_the_same_b():
    from gradio_tabs.position import shuffle_tab

    at = run_file(VIEW)
    at.button[0].click().run()
    assert not at.exception
    a = PAGE.param("a").default
    assert at.text_input(key="position.b").value == shuffle(a, 1) == shuffle_tab(a, 0)[0]
    with pytest.raises(ValueError, match="2 to"):
        shuffle("owl", 1)


@pytest.mark.parametrize("name, past", [("T", limits.MAX_DRAWN_POSITIONS + 1), ("d", limits.MAX_DRAWN_POSITIONS + 2),
                                        ("T", 3), ("d", 0)])
def test_the_engine_refuses_tables_past_the_drawn_positions(name, past):
    """The limit is the engine's (it was only the sliders', the link's parser and Gradio's `whole`): a caller that
    skips both front ends gets a sentence, not a 100 x 100 chart of 10,000 cells."""
    from gradio_tabs.position import encodings_tab

    with pytest.raises(ValueError, match=f"from \\d+ to {limits.MAX_DRAWN_POSITIONS}; got {past}"):
        encodings(PAGE.defaults() | {name: past})
    with pytest.raises(Exception, match=str(limits.MAX_DRAWN_POSITIONS)):
        encodings_tab(*[past if key == name else PAGE.param(key).default for key in ("T", "d", "base", "seed")])
    encodings(PAGE.defaults() | {name: limits.MAX_DRAWN_POSITIONS})             # the last one drawn


def test_the_engine_refuses_a_sentence_past_the_page_limit():
    long = "the owl saw the cat " * 11
    assert len(long) > limits.MAX_POSITION_SENTENCE_CHARS
    with pytest.raises(ValueError, match=str(limits.MAX_POSITION_SENTENCE_CHARS)):
        shuffled(PAGE.defaults() | {"a": long, "b": long})
