"""The tiny hand-made vocabulary that turns sentences into X."""
from __future__ import annotations

import numpy as np
import pytest

from engine import limits
from engine.embeddings.tiny_vocabulary import embed, load_vocabulary, tokenize


def test_vocabulary_has_named_features_and_the_chapter_words():
    vocabulary = load_vocabulary()
    assert vocabulary.d == len(vocabulary.features) == 8
    for word in ("the", "owl", "saw", "cat", "crane", "by", "lake"):
        assert word in vocabulary.words
    assert vocabulary.vector("owl")[vocabulary.features.index("bird")] == 0.9


def test_embed_gives_one_row_per_word_in_order():
    sentence = embed("The owl saw the cat.")
    assert sentence.tokens == ["the", "owl", "saw", "the", "cat"]
    np.testing.assert_array_equal(sentence.x[0], sentence.x[3])
    np.testing.assert_array_equal(sentence.x[1], load_vocabulary().vector("owl"))
    # similar words point the same way: owl is closer to crane than to lake
    def cos(a, b):
        return a @ b / np.linalg.norm(a) / np.linalg.norm(b)

    v = load_vocabulary().vector
    assert cos(v("owl"), v("crane")) > cos(v("owl"), v("lake"))


def test_bad_sentences_are_sentences():
    assert tokenize("  ,.; ") == []
    with pytest.raises(ValueError, match="empty"):
        embed("  ")
    with pytest.raises(ValueError, match="no vector for: zebra"):
        embed("the zebra saw the owl")
    with pytest.raises(ValueError, match=f"limit is {limits.MAX_SENTENCE_WORDS}"):
        embed(" ".join(["the"] * (limits.MAX_SENTENCE_WORDS + 1)))


def test_a_sentence_of_digits_is_said_to_have_no_words_not_to_be_empty():
    """'99999999' was called empty: it is not, it has no word of letters."""
    import pytest

    from engine.embeddings.tiny_vocabulary import embed

    with pytest.raises(ValueError) as digits:
        embed("99999999")
    assert "'99999999' has no words" in str(digits.value) and "only letters a-z make words" in str(digits.value)
    assert "empty" not in str(digits.value)
    with pytest.raises(ValueError, match="The sentence is empty"):
        embed("   ")
