"""engine.embeddings.glove: hand-worked cases, gensim as a peer on the real GloVe, properties, bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.embeddings import glove as E
from engine import limits

R2 = math.sqrt(2.0)


@pytest.fixture(scope="module")
def glove() -> E.WordVectors:
    return E.load_glove()


@pytest.fixture(scope="module")
def tiny() -> E.WordVectors:
    """Five words in 3-d, chosen so every cosine can be worked out by hand."""
    return E.WordVectors.from_arrays(
        ["man", "woman", "king", "queen", "apple"],
        [[1, 0, 0], [0, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, -1]])


@pytest.fixture(scope="module")
def gensim_kv(glove):
    """gensim's KeyedVectors holding exactly the same 400k vectors."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=glove.dim, count=len(glove), dtype="float32")
    kv.vectors[:] = glove.vectors
    kv.index_to_key = list(glove.words)
    kv.key_to_index = dict(glove.index)
    return kv


# --- exact small cases --------------------------------------------------------------------

def test_tiny_nearest_by_hand(tiny):
    # cos(king, man) = 1/sqrt2, cos(king, queen) = 1/2, cos(king, woman) = 0, cos(king, apple) = -1/sqrt2
    result = E.nearest(tiny, "king", k=4)
    assert result.words == ["man", "queen", "woman", "apple"]
    np.testing.assert_allclose(result.cosines, [1 / R2, 0.5, 0.0, -1 / R2], atol=1e-6)
    assert result.excluded == ("king",)


def test_tiny_analogy_by_hand(tiny):
    # target = u_king - u_man + u_woman = (1/sqrt2 - 1, 1, 1/sqrt2); queen = (0, 1, 1)/sqrt2
    norm = math.sqrt((1 / R2 - 1) ** 2 + 1 + 0.5)
    result = E.solve_analogy(tiny, "man", "king", "woman", k=2)
    assert result.words == ["queen", "apple"]
    np.testing.assert_allclose(result.scores, [(1 + 1 / R2) / (R2 * norm), -(1 / R2) / norm], atol=1e-6)
    # the same ranking written as cosines: cos(q,king) - cos(q,man) + cos(q,woman) = 1/2 - 0 + 1/sqrt2
    np.testing.assert_allclose(result.cos_add[0], 0.5 + 1 / R2, atol=1e-6)
    assert result.positive == ("king", "woman") and result.negative == ("man",)


def test_tiny_cosmul_by_hand(tiny):
    # queen: cos' = (1+cos)/2 with king 3/4, woman (1 + 1/sqrt2)/2, man 1/2
    result = E.solve_analogy(tiny, "man", "king", "woman", k=1, method="3cosmul")
    expected = 0.75 * (1 + 1 / R2) / 2 / (0.5 + E.COSMUL_EPSILON)
    assert result.words == ["queen"]
    assert result.scores[0] == pytest.approx(expected, rel=1e-6)


def test_tiny_offsets_by_hand(tiny):
    # o1 = u_king - u_man, o2 = u_queen - u_woman; cos(o1, o2) = (1/2) / (2 - sqrt2) = (2 + sqrt2) / 4
    result = E.offsets(tiny, [("man", "king"), ("woman", "queen")])
    assert result.cosines[0, 1] == pytest.approx((2 + R2) / 4, abs=1e-6)
    assert result.lengths[0] == pytest.approx(math.sqrt(2 - R2), abs=1e-6)
    np.testing.assert_allclose(np.diag(result.cosines), [1, 1])


def test_compose_adds_unit_vectors(tiny):
    total = E.compose(tiny, "king - man + woman")
    assert total.words == ("king", "man", "woman") and total.signs == (1, -1, 1)
    np.testing.assert_allclose(total.vector, [1 / R2 - 1, 1, 1 / R2], atol=1e-6)
    assert total.text == "king - man + woman"
    assert E.compose(tiny, " - apple+queen").text == "- apple + queen"


def test_projection_of_three_words_keeps_distances(glove):
    # three points always lie in a plane, so the 2-D PCA map keeps every distance
    words = ["paris", "france", "rome"]
    result = E.project_2d(glove, words)
    for i in range(3):
        for j in range(3):
            original = np.linalg.norm(result.vectors[i] - result.vectors[j])
            mapped = np.linalg.norm(result.coords[i] - result.coords[j])
            assert mapped == pytest.approx(original, abs=1e-9)
    assert result.explained.sum() == pytest.approx(1.0)


def test_projection_is_deterministic_and_centred(glove):
    words = ["man", "king", "woman", "queen", "paris", "france", "rome", "italy", "crane", "Man"]
    first, second = E.project_2d(glove, words), E.project_2d(glove, list(words))
    np.testing.assert_array_equal(first.coords, second.coords)
    assert first.words == words[:-1]  # 'Man' is 'man' again: drawn once
    np.testing.assert_allclose(first.coords.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(first.components @ first.components.T, np.eye(2), atol=1e-12)
    assert first.explained[0] >= first.explained[1] > 0
    np.testing.assert_allclose(first.project(first.vectors), first.coords, atol=1e-12)


def test_glove_is_the_real_thing(glove):
    assert len(glove) == 400_000 and glove.dim == 50
    assert glove.words[:3] == ["the", ",", "."]
    assert E.load_glove() is glove  # one copy per process
    np.testing.assert_allclose(np.linalg.norm(glove.unit[:1000], axis=1), 1, atol=1e-5)


def test_famous_analogies_come_out_top_one(glove):
    assert E.solve_analogy(glove, "man", "king", "woman").words[0] == "queen"
    assert E.solve_analogy(glove, "france", "paris", "italy").words[0] == "rome"


def test_vocabulary_size_limits_the_answers(glove):
    small = E.nearest(glove, "crane", k=10, vocab_size=10_000)
    assert all(glove.index[w] < 10_000 for w in small.words)
    full = E.nearest(glove, "crane", k=10)
    assert "ichabod" in full.words and "ichabod" not in small.words


def test_homonym_senses(glove):
    probe = E.sense_probe(glove, "pitcher", {"baseball": "baseball", "jug": "jug"}, k=15)
    assert probe.sense_counts == {"baseball": 15, "jug": 0}
    assert probe.anchor_ranks[0] < 100 < 10_000 < probe.anchor_ranks[1]
    # the rank counts the words strictly closer than the anchor
    all_cos = glove.unit @ glove.unit[glove.index["pitcher"]]
    assert probe.anchor_ranks[1] == int(np.sum(all_cos > all_cos[glove.index["jug"]]))


def test_a_homonym_rarer_than_the_words_searched_still_ranks_its_anchors_from_1(glove):
    """crane is not among the 10,000 most frequent words: gantry, closer than any of them, is number 1."""
    assert glove.index["crane"] >= 10_000
    probe = E.sense_probe(glove, "crane", {"bird": "heron", "machine": "gantry"}, k=15, vocab_size=10_000)
    small = glove.unit[:10_000] @ glove.unit[glove.index["crane"]]
    assert probe.anchor_ranks.min() >= 1
    for anchor, rank in zip(probe.anchors, probe.anchor_ranks):
        assert rank == 1 + int(np.sum(small > glove.unit[glove.index[anchor]] @ glove.unit[glove.index["crane"]]))


def test_static_vector_is_the_same_in_every_sentence(glove):
    a = E.static_in_context(glove, "crane", "The crane stood in the shallow water of the lake.")
    b = E.static_in_context(glove, "Crane", "The crane lifted the steel beam onto the roof.")
    np.testing.assert_array_equal(a.vector, b.vector)
    assert a.context_words == ["stood", "shallow", "water", "lake"]
    assert "the" in a.skipped and "crane" in a.skipped
    assert E.cosine(a.context, glove.unit[glove.index["heron"]]) > E.cosine(b.context, glove.unit[glove.index["heron"]])


# --- gensim as a peer ---------------------------------------------------------------------

PEER_QUERIES = [
    (["king", "woman"], ["man"]),
    (["paris", "italy"], ["france"]),
    (["berlin", "japan"], ["germany"]),
    (["walked", "swim"], ["walk"]),
    (["better", "bad"], ["good"]),
    (["sister", "boy"], ["brother"]),
    (["bigger", "small"], ["big"]),
    (["actress", "man"], ["woman"]),
    (["crane"], []),
    (["river", "money"], ["bank"]),
    (["queen", "king", "prince"], ["man", "woman"]),
]


@pytest.mark.parametrize("vocab_size", [None, 10_000])
@pytest.mark.parametrize("positive,negative", PEER_QUERIES)
def test_3cosadd_matches_gensim(glove, gensim_kv, positive, negative, vocab_size):
    ours = E.analogy(glove, positive, negative, k=10, vocab_size=vocab_size)
    theirs = gensim_kv.most_similar(positive=positive, negative=negative, topn=10, restrict_vocab=vocab_size)
    assert ours.words == [w for w, _ in theirs]
    np.testing.assert_allclose(ours.scores, [s for _, s in theirs], atol=2e-6)


@pytest.mark.parametrize("positive,negative", PEER_QUERIES[:6])
def test_3cosmul_matches_gensim(glove, gensim_kv, positive, negative):
    ours = E.analogy(glove, positive, negative, k=10, method="3cosmul")
    theirs = gensim_kv.most_similar_cosmul(positive=positive, negative=negative, topn=10)
    assert ours.words == [w for w, _ in theirs]
    np.testing.assert_allclose(ours.scores, [s for _, s in theirs], rtol=1e-5)


@pytest.mark.parametrize("word", ["crane", "bank", "pitcher", "shark", "the", "zsombor"])
def test_nearest_matches_gensim(glove, gensim_kv, word):
    ours = E.nearest(glove, word, k=10)
    theirs = gensim_kv.most_similar(word, topn=10)
    assert ours.words == [w for w, _ in theirs]
    np.testing.assert_allclose(ours.cosines, [s for _, s in theirs], atol=2e-6)


def test_composed_sum_matches_gensim(glove, gensim_kv):
    total = E.compose(glove, "paris - france + italy - rome + tokyo")
    ours = E.nearest(glove, total.vector, k=10, exclude=total.words)
    theirs = gensim_kv.most_similar(positive=["paris", "italy", "tokyo"], negative=["france", "rome"], topn=10)
    assert ours.words == [w for w, _ in theirs]
    np.testing.assert_allclose(ours.cosines, [s for _, s in theirs], atol=2e-6)


# --- properties ---------------------------------------------------------------------------

TYPABLE = [i for i, w in enumerate(E.load_glove().words[:50_000]) if E._WORD.match(w)]  # not ',' or '"'
rows = st.sampled_from(TYPABLE)


@settings(max_examples=25, deadline=None)
@given(row=rows, k=st.integers(1, limits.MAX_NEIGHBOURS), extra=st.lists(rows, max_size=5),
       vocab_size=st.sampled_from([None, *limits.VOCAB_SIZE_CHOICES, 1_000]))
def test_nearest_properties(glove, row, k, extra, vocab_size):
    word = glove.words[row]
    excluded = [glove.words[i] for i in extra]
    result = E.nearest(glove, word, k=k, exclude=excluded, vocab_size=vocab_size)
    assert len(result.words) == k
    assert np.all(result.cosines <= 1.0) and np.all(result.cosines >= -1.0)
    assert np.all(np.diff(result.cosines) <= 0)
    assert word not in result.words and not set(excluded) & set(result.words)
    assert all(glove.index[w] < (vocab_size or len(glove)) for w in result.words)
    # nothing left out of the answer is closer than its last word
    size = vocab_size or len(glove)
    cos = glove.unit[:size] @ glove.unit[row]
    skip = {glove.index[w] for w in [word, *excluded]} | {glove.index[w] for w in result.words}
    others = np.delete(cos, [i for i in skip if i < size])
    assert others.max() <= result.cosines[-1] + 1e-6


@settings(max_examples=25, deadline=None)
@given(triple=st.lists(rows, min_size=3, max_size=3, unique=True), method=st.sampled_from(E.METHODS))
def test_analogy_never_returns_its_inputs(glove, triple, method):
    a, b, c = (glove.words[i] for i in triple)
    result = E.solve_analogy(glove, a, b, c, k=10, method=method)
    assert not {a, b, c} & set(result.words)
    assert np.all(np.diff(result.scores) <= 0)
    if method == "3cosadd":
        assert np.all(np.abs(result.scores) <= 1.0)


@settings(max_examples=25, deadline=None)
@given(vector=st.lists(st.floats(-10, 10, allow_nan=False), min_size=50, max_size=50),
       scale=st.floats(0.01, 100))
def test_nearest_of_a_vector_ignores_its_length(glove, vector, scale):
    v = np.array(vector, dtype=np.float32)
    if np.linalg.norm(v) < 1e-3:
        return
    first, second = E.nearest(glove, v, k=5, vocab_size=10_000), E.nearest(glove, v * scale, k=5, vocab_size=10_000)
    np.testing.assert_allclose(first.cosines, second.cosines, atol=1e-5)


# --- bad input: a sentence each -----------------------------------------------------------

def test_unknown_word_names_it_and_suggests_spellings(glove):
    with pytest.raises(ValueError, match=r"'kng' is not among the 400,000 words.*'king'"):
        E.nearest(glove, "kng")
    with pytest.raises(ValueError, match=r"'xqzvvt' is not among the 400,000 words of the vocabulary\.$"):
        E.lookup(glove, "xqzvvt")


@pytest.mark.parametrize("call,message", [
    (lambda g: E.nearest(g, ""), "empty"),
    (lambda g: E.nearest(g, "   "), "empty"),
    (lambda g: E.nearest(g, "k!ng"), "other than letters"),
    (lambda g: E.nearest(g, "#$%"), "other than letters"),
    (lambda g: E.nearest(g, "x" * 500), "at most 40"),
    (lambda g: E.nearest(g, "new york"), "space"),
    (lambda g: E.nearest(g, "king", k=0), "from 1 to"),
    (lambda g: E.nearest(g, "king", k=500), "from 1 to"),
    (lambda g: E.nearest(g, "king", vocab_size=10), "between 1,000 and 400,000"),
    (lambda g: E.nearest(g, np.zeros(50)), "all zeros"),
    (lambda g: E.nearest(g, np.ones(3)), "has 3 numbers"),
    (lambda g: E.solve_analogy(g, "king", "king", "king"), "All three words are 'king'"),
    (lambda g: E.solve_analogy(g, "man", "man", "woman"), "offset b - a is zero"),
    (lambda g: E.solve_analogy(g, "man", "king", "womn"), "'womn'.*'woman'"),
    (lambda g: E.analogy(g, ["king"], ["king"]), "cancel out"),
    (lambda g: E.analogy(g, ["king"], method="3cosfoo"), "3cosadd, 3cosmul"),
    (lambda g: E.analogy(g, []), "at least one word"),
    (lambda g: E.compose(g, ""), "empty"),
    (lambda g: E.compose(g, "king + - man"), "Two signs"),
    (lambda g: E.compose(g, "king -"), "ends with a sign"),
    (lambda g: E.compose(g, "king queen"), "several words"),
    (lambda g: E.compose(g, " + ".join(["king"] * 11)), "limit is 10"),
    (lambda g: E.compose(g, "king + " * 60 + "queen"), "characters long"),
    (lambda g: E.project_2d(g, ["king", "queen"]), "at least 3"),
    (lambda g: E.project_2d(g, ["king", "queen", "man"], method="tsne"), "'tsne' is not available"),
    (lambda g: E.project_2d(g, g.words[100:140]), "at most 30"),
    (lambda g: E.offsets(g, []), "at least one pair"),
    (lambda g: E.offsets(g, [("paris", "paris")]), "goes nowhere"),
    (lambda g: E.sense_probe(g, "bank", {"river": "bank", "money": "loan"}), "the homonym itself"),
    (lambda g: E.sense_probe(g, "bank", {"river": "river"}), "between 2 and"),
    (lambda g: E.static_in_context(g, "bank", "I swam across the lake."), "does not use the word 'bank'"),
    (lambda g: E.static_in_context(g, "bank", "the bank"), "no content words"),
    (lambda g: E.static_in_context(g, "bank", "bank " * 100), "characters long"),
])
def test_bad_input_raises_a_sentence(glove, call, message):
    with pytest.raises(ValueError, match=message):
        call(glove)


def test_words_are_lower_cased_and_stripped(glove):
    assert E.nearest(glove, "  Paris ").words == E.nearest(glove, "paris").words


# --- the classic analogy set ---------------------------------------------------------------

@pytest.mark.parametrize("method", E.METHODS)
def test_analogy_ranks_agree_with_the_answer_lists(glove, method):
    questions = E.read_analogy_set()
    assert len(questions) == 61 and all(q.d in glove.index for q in questions)
    scores = E.score_analogies(glove, questions, method=method, vocab_size=50_000)
    for q, rank, guess in zip(questions, scores.ranks, scores.guesses):
        answers = E.analogy(glove, [q.b, q.c], [q.a], k=50, method=method, vocab_size=50_000).words
        assert guess == answers[0]
        if 1 <= rank <= 50:
            assert answers[rank - 1] == q.d
        else:
            assert q.d not in answers
    assert scores.accuracy(1) == pytest.approx(np.mean(scores.ranks == 1))
    assert scores.accuracy(1) <= scores.accuracy(5)


def test_an_answer_outside_the_vocabulary_has_rank_zero(glove):
    question = E.AnalogyQuestion("test", "man", "king", "woman", "zsombor")
    assert E.score_analogies(glove, [question], vocab_size=10_000).ranks.tolist() == [0]


def test_an_answer_among_the_inputs_has_rank_zero(glove):
    # man : doctor :: woman : doctor can never come out: input words are always left out
    question = E.AnalogyQuestion("test", "man", "doctor", "woman", "doctor")
    scores = E.score_analogies(glove, [question])
    assert scores.ranks.tolist() == [0] and scores.guesses == ["nurse"]


def test_nearest_many_matches_nearest(glove):
    many = E.nearest_many(glove, ["crane", "Bank", "rome"], k=7, vocab_size=50_000)
    for word, result in zip(["crane", "bank", "rome"], many):
        one = E.nearest(glove, word, k=7, vocab_size=50_000)
        assert result.words == one.words
        np.testing.assert_allclose(result.cosines, one.cosines, atol=1e-6)
