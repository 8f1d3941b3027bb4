"""engine.chapter.ngram: the N-gram sampler's spec and the sample it draws from its link (issue 40: its prompt limit is
the engine's, not only the text box's)."""
from __future__ import annotations

import pytest

from engine import limits
from engine.chapter.ngram import MIN_LOOP, PAGE, sample_start, sampled
from engine.classroom.questions import EngineSources
from engine.language.corpus import ALL_PLAYS
from engine.language.ngram import find_loop, sample_context


@pytest.fixture(scope="module")
def words():
    sources = EngineSources()
    return sources.tokenized(ALL_PLAYS, "words", None)[0], sources.ngram_counts(ALL_PLAYS, "words", None)


def test_the_prompt_limit_is_the_engines(words):
    """A start of NGRAM_MAX_PROMPT_CHARS characters is read; one more is refused with a sentence naming the limit."""
    tokenizer, _ = words
    assert limits.NGRAM_MAX_PROMPT_CHARS == 200
    at_limit = ("the king " * 30)[:limits.NGRAM_MAX_PROMPT_CHARS]
    assert sample_start(PAGE.defaults() | {"prompt": at_limit}, tokenizer) == sample_context(tokenizer, at_limit)
    with pytest.raises(ValueError, match=r"201 characters; the sampler starts after at most 200\."):
        sample_start(PAGE.defaults() | {"prompt": at_limit + "x"}, tokenizer)
    with pytest.raises(ValueError, match="at most 200"):
        sampled(PAGE.defaults() | {"prompt": at_limit + "x"}, *words)
    values, fallbacks = PAGE.read({"prompt": at_limit + "x"})
    assert values["prompt"] == "" and [f.name for f in fallbacks] == ["prompt"]


def test_the_default_sample_is_the_chapters_loop(words):
    """The page opens on the chapter's second failure: at temperature 0 the default sample falls into a loop, the
    same one find_loop finds in the model's own sample."""
    values = PAGE.defaults()
    shown = sampled(values, *words)
    assert len(shown.ids) == values["length"] and shown.loop is not None
    again = shown.model.sample(values["length"], seed=values["seed"], temperature=values["temperature"],
                               prompt=sample_context(words[0], ""))
    assert again == shown.ids and find_loop(again, min_length=MIN_LOOP["words"]) == shown.loop


def test_a_link_names_a_play_or_falls_back():
    from engine.language.corpus import load_corpus

    play = load_corpus().plays[0]
    assert PAGE.values({"source": play})["source"] == play
    values, fallbacks = PAGE.read({"source": "Hamlet II"})
    assert values["source"] == ALL_PLAYS and [f.name for f in fallbacks] == ["source"]
