"""Head detectors on synthetic attention patterns, and on SmolLM2 itself."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.interpret import heads as H
from engine import limits


def previous_token(T):
    alpha = np.zeros((T, T))
    alpha[0, 0] = 1
    alpha[np.arange(1, T), np.arange(T - 1)] = 1
    return alpha


def first_token(T):
    alpha = np.zeros((T, T))
    alpha[:, 0] = 1
    return alpha


def uniform(T):
    alpha = np.tril(np.ones((T, T)))
    return alpha / alpha.sum(1, keepdims=True)


def induction(ids):
    """All weight on the token after the latest earlier copy; elsewhere on the first token."""
    T = len(ids)
    alpha = first_token(T)
    targets = H.induction_targets(ids)
    for i in range(T):
        if targets[i].any():
            alpha[i] = 0
            alpha[i, np.flatnonzero(targets[i])[-1]] = 1
    return alpha


IDS = H.repeated_random_tokens(6, seed=0, low=100, high=200, start=0)   # 13 tokens


def synthetic():
    T = IDS.size
    return np.stack([previous_token(T), first_token(T), np.eye(T), uniform(T), induction(IDS)])[None]


def test_each_synthetic_head_gets_its_name_and_a_full_score():
    result = H.score_heads(synthetic(), IDS)
    assert list(result.types[0]) == ["previous-token", "first-token", "self", "broad", "induction"]
    assert result.scores["previous-token"][0, 0] == pytest.approx(1.0)
    assert result.scores["first-token"][0, 1] == pytest.approx(1.0)
    assert result.scores["self"][0, 2] == pytest.approx(1.0)
    assert result.scores["broad"][0, 3] == pytest.approx(1.0)
    assert result.scores["induction"][0, 4] == pytest.approx(1.0)
    # and zero where the pattern is absent
    assert result.scores["previous-token"][0, 2] == 0 and result.scores["self"][0, 0] == 0
    assert result.scores["broad"][0, 0] == pytest.approx(0.0)


def test_exact_numbers_of_a_mixed_head():
    """Half on the previous token, half on the first: previous 0.5 (i >= 2), first 0.5, broad ln2/ln(i+1)."""
    T = 5
    alpha = 0.5 * previous_token(T) + 0.5 * first_token(T)
    alpha[1] = [1, 0, 0, 0, 0]
    ids = np.arange(T)
    scores = H.pattern_scores(alpha, ids)
    assert scores["previous-token"][0, 0] == pytest.approx(0.5)
    assert scores["first-token"][0, 0] == pytest.approx(0.5)
    expected_broad = np.mean([np.log(2) / np.log(i + 1) for i in (2, 3, 4)])
    assert scores["broad"][0, 0] == pytest.approx(expected_broad)
    assert np.isnan(scores["induction"][0, 0])          # nothing repeats in 0, 1, 2, 3, 4
    assert H.score_heads(alpha, ids).types[0, 0] == "previous-token"  # 0.5/0.5 beats 0.5/0.8


def test_induction_targets_are_the_tokens_after_earlier_copies():
    ids = [7, 1, 2, 1, 3]
    targets = H.induction_targets(ids)
    assert np.argwhere(targets).tolist() == [[3, 2]]     # the second 1 looks at the 2 after the first 1


def test_ranking_and_table():
    result = H.score_heads(np.concatenate([synthetic(), synthetic()[:, ::-1]]), IDS)
    top = result.ranking("previous-token", 2)
    assert top[0] == (0, 0, pytest.approx(1.0)) and top[1][:2] == (1, 4)
    assert len(result.table()) == 10 and set(result.table()[0]) == {"layer", "head", "type", *H.PATTERNS}
    assert result.count()["induction"] == 2 and sum(result.count().values()) == 10
    with pytest.raises(ValueError, match="Unknown pattern"):
        result.ranking("syntax")


def test_an_outside_induction_score_replaces_the_texts_own():
    ids = np.arange(IDS.size)                            # nothing repeats
    outside = np.array([[0, 0, 0, 0, 0.9]])
    result = H.score_heads(synthetic(), ids, induction=outside)
    assert result.types[0, 4] == "induction"
    with pytest.raises(ValueError, match="one value per head"):
        H.score_heads(synthetic(), ids, induction=np.zeros((2, 2)))


@settings(max_examples=30, deadline=None)
@given(T=st.integers(3, 20), seed=st.integers(0, 1000))
def test_scores_are_fractions_for_any_causal_weights(T, seed):
    rng = np.random.default_rng(seed)
    alpha = rng.random((2, 3, T, T)) * np.tril(np.ones((T, T)))
    alpha /= alpha.sum(-1, keepdims=True)
    ids = rng.integers(0, 4, T)
    scores = H.pattern_scores(alpha, ids)
    for pattern in ("previous-token", "first-token", "self", "broad"):
        assert np.all((scores[pattern] >= -1e-12) & (scores[pattern] <= 1 + 1e-9))
    assert np.all(np.isnan(scores["induction"])) or np.all((scores["induction"] >= 0) & (scores["induction"] <= 1))


def test_bad_input_is_a_sentence():
    with pytest.raises(ValueError, match="at least 3 tokens"):
        H.pattern_scores(np.ones((1, 1, 2, 2)) / 2, [1, 2])
    with pytest.raises(ValueError, match="sum to 1"):
        H.pattern_scores(np.ones((1, 1, 4, 4)), [1, 2, 3, 4])
    with pytest.raises(ValueError, match="one token id per position"):
        H.pattern_scores(synthetic(), [1, 2])
    with pytest.raises(ValueError, match="layers, heads"):
        H.pattern_scores(np.ones((3, 4)), [1, 2, 3])
    with pytest.raises(ValueError, match="random sequence"):
        H.repeated_random_tokens(limits.INDUCTION_MAX_LENGTH + 1, seed=0, low=0, high=10_000)


def test_repeated_random_tokens():
    ids = H.repeated_random_tokens(10, seed=4, low=50, high=60, start=0)
    assert ids[0] == 0 and ids.size == 21
    assert list(ids[1:11]) == list(ids[11:]) and len(set(ids[1:11])) == 10
    assert list(ids) == list(H.repeated_random_tokens(10, seed=4, low=50, high=60, start=0))


# --- the real model ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def smollm2():
    from engine.pretrained import smollm2 as pretrained

    try:
        return pretrained.load()
    except ValueError as error:
        pytest.skip(str(error))


def test_smollm2_has_strong_previous_token_and_induction_heads(smollm2):
    ids = H.repeated_random_tokens(20, seed=0, low=1000, high=20_000, start=0)
    result = H.score_heads(smollm2.forward(ids).weights, ids)
    best_previous = result.ranking("previous-token", 1)[0]
    best_induction = result.ranking("induction", 1)[0]
    assert best_previous[2] > 0.7
    assert best_induction[2] > 0.7
    assert best_induction[0] >= 2          # induction needs a previous-token head in an earlier layer
    assert result.count()["induction"] >= 1 and result.count()["previous-token"] >= 1
