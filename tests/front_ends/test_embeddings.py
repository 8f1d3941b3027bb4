"""Embedding explorer: one link, three readers. The Streamlit page, the Gradio tab (gradio_tabs.embeddings.from_link)
and the class question all compute from engine.chapter.embeddings (`analogy`, `offset_map`, `neighbours`), so they
show the same answers, scores and cosines and say the same sentences."""
from __future__ import annotations

import pytest

from engine import limits
from engine.chapter.embeddings import (
    PAGE, analogy, analogy_reading, map_reading, map_words, neighbours, neighbours_reading, offset_map,
)
from engine.chapter.questions import questions_for
from engine.classroom.questions import TIE
from tests.pages.conftest import run_file

pytest.importorskip("gradio")

VIEW = "views/embeddings.py"
LINKS = [
    {},                                                                          # france : paris :: italy : rome
    {"preset": "man : king :: woman : ?", "a": "man", "b": "king", "c": "woman", "d": "queen",
     "extra": "boy, prince, girl, princess"},
    {"a": "go", "b": "went", "c": "see", "method": "3cosmul", "vocab": "10000"},  # saw lands second
    {"query": "king - man + woman", "leave_out": "0", "vocab": "400000"},       # the sum stays on its own 'king'
]


@pytest.mark.parametrize("link", LINKS)
def test_the_page_the_tab_and_the_class_read_one_link_alike(link, sources):
    from gradio_tabs.embeddings import from_link

    values = PAGE.values(link)
    wv = sources.glove()
    result = analogy(values, wv)
    shown_map = offset_map(values, wv, result)
    total, found = neighbours(values, wv)

    at = run_file(VIEW, link)
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert analogy_reading(result) in captions                                   # the page's sentences
    assert any(map_reading(shown_map) in c for c in captions)
    assert neighbours_reading(total, found) in [m.value for m in [*at.info, *at.markdown]]
    answers = at.table[0].value                                                 # the analogy's table (3 decimals)
    assert list(answers["answer"]) == result.words
    assert [float(s) for s in answers["score"]] == [round(float(s), 3) for s in result.scores]

    (answer_rows, analogy_says, _, points, cosines, map_says, nearest, _, nearest_says) = from_link(values)
    assert (analogy_says, map_says, nearest_says) == (analogy_reading(result), map_reading(shown_map),
                                                      neighbours_reading(total, found))      # the Gradio tab's
    assert list(answer_rows["word"]) == result.words
    assert [round(s, 3) for s in answer_rows["score"]] == [round(float(s), 3) for s in result.scores]
    assert list(points["word"]) == shown_map.projection.words
    assert [round(row[1], 3) for row in cosines.itertuples(index=False)] == \
        [round(float(c), 3) for c in shown_map.offsets.cosines[:, 0]]
    assert list(nearest["word"]) == found.words

    question, = questions_for("embeddings", link, sources)                      # the class's
    assert question.prompt.startswith(f"{result.negative[0]} : {result.positive[0]} :: {result.positive[1]} : ?")
    assert f"{result.vocab_size:,} words" in question.prompt
    if question.options[question.answer] != TIE:
        assert question.options[question.answer] == result.words[0]
    assert question.explanation.startswith(f"{result.words[0]} scores {float(result.scores[0]):.3f}")
    assert set(question.options) - {TIE} <= set(result.words)


def test_the_maps_words_are_limited_in_the_engine_as_in_both_front_ends():
    from gradio_tabs.embeddings import map_tab

    long = ", ".join(["paris"] * 200)
    assert len(long) > limits.MAX_MAP_EXTRA_CHARS
    with pytest.raises(ValueError, match=str(limits.MAX_MAP_EXTRA_CHARS)):
        map_words(long)
    with pytest.raises(Exception, match=f"the limit is {limits.MAX_MAP_EXTRA_CHARS}"):   # the Space's endpoint too
        map_tab("france", "paris", "italy", long, 50_000)
    assert PAGE.values({"extra": long})["extra"] == PAGE.param("extra").default   # a link that long: the default
    assert map_words(" germany,berlin , ") == ["germany", "berlin"]


def test_a_link_vocabulary_the_page_does_not_offer_is_the_default_everywhere(sources):
    """The class used to search any vocabulary size a link named; the page offers three, and falls back otherwise."""
    question, = questions_for("embeddings", {"vocab": "20000"}, sources)
    assert f"{PAGE.param('vocab').default:,} words" in question.prompt
