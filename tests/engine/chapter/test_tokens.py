"""engine.chapter.tokens: the Tokens page's spec and what it computes from its link (issue 40: its prompt limit is the
engine's, not only the text boxes')."""
from __future__ import annotations

import pytest

from engine import limits
from engine.chapter.tokens import DEFAULT_PROMPT, PAGE, TOP_SHOWN, prediction
from engine.classroom.questions import EngineSources
from engine.language.corpus import ALL_PLAYS


@pytest.fixture(scope="module")
def words():
    sources = EngineSources()
    return sources.tokenized(ALL_PLAYS, "words", None)[0], sources.ngram_counts(ALL_PLAYS, "words", None)


def test_the_prompt_limit_is_the_engines(words):
    """A context of TOKENS_MAX_PROMPT_CHARS characters is read; one more is refused with a sentence naming the
    limit, whichever front end (or API caller) sends it."""
    assert limits.TOKENS_MAX_PROMPT_CHARS == 400
    at_limit = ("the king " * 50)[:limits.TOKENS_MAX_PROMPT_CHARS]
    assert len(at_limit) == limits.TOKENS_MAX_PROMPT_CHARS
    shown = prediction(PAGE.defaults() | {"prompt": at_limit}, *words)
    assert len(shown.top) == TOP_SHOWN and shown.top[0][1] > 0
    with pytest.raises(ValueError, match=r"401 characters; the page predicts after at most 400\."):
        prediction(PAGE.defaults() | {"prompt": at_limit + "x"}, *words)


def test_a_link_past_the_limit_falls_back_to_the_default_context():
    values, fallbacks = PAGE.read({"prompt": "a" * (limits.TOKENS_MAX_PROMPT_CHARS + 1)})
    assert values["prompt"] == DEFAULT_PROMPT and [f.name for f in fallbacks] == ["prompt"]
    assert PAGE.values({"prompt": "a" * limits.TOKENS_MAX_PROMPT_CHARS})["prompt"] == "a" * 400
