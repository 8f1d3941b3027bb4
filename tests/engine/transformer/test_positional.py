"""Positional encodings, dot products by offset, and the permutation check."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import limits
from engine.attention.mechanism import random_projections
from engine.transformer.positional import (
    ENCODINGS, dot_products_by_offset, learned_encoding, permutation_between, permutation_check,
    positional_encoding, random_permutation, sinusoid_frequencies, sinusoidal_encoding,
)
from engine.embeddings.tiny_vocabulary import embed, tokenize

FAST = settings(max_examples=40, deadline=None)


# --- sinusoidal: exact numbers ----------------------------------------------------------------

def test_sinusoidal_first_rows_by_hand():
    P = sinusoidal_encoding(3, 4)
    # omega_0 = 1, omega_1 = 1 / 10000^(2/4) = 0.01
    np.testing.assert_allclose(P[0], [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(P[1], [np.sin(1), np.cos(1), np.sin(0.01), np.cos(0.01)])
    np.testing.assert_allclose(P[2], [0.9092974268, -0.4161468365, 0.0199986667, 0.9998000067], atol=1e-10)


def test_sinusoidal_matches_the_log_space_formula_of_tensor2tensor():
    """Peer: the same table written the way tensor2tensor's get_timing_signal computes it (sin then cos
    halves, timescales exp(-log(base) * 2i / d)), re-interleaved to the paper's column order."""
    T, d = 50, 16
    inv_timescales = np.exp(-np.log(10_000.0) * np.arange(0, d, 2) / d)
    scaled = np.arange(T)[:, None] * inv_timescales[None, :]
    peer = np.empty((T, d))
    peer[:, 0::2], peer[:, 1::2] = np.sin(scaled), np.cos(scaled)
    np.testing.assert_allclose(sinusoidal_encoding(T, d), peer, atol=1e-12)


def test_odd_width_ends_with_a_sine_column():
    P = sinusoidal_encoding(5, 5)
    assert P.shape == (5, 5)
    np.testing.assert_allclose(P[:, 4], np.sin(np.arange(5) * sinusoid_frequencies(5)[2]))


@FAST
@given(T=st.integers(1, 60), half=st.integers(1, 32), base=st.floats(2.0, 1e5))
def test_sinusoidal_dot_product_depends_on_the_offset_only(T, half, base):
    """p_i . p_j = sum_i cos((i - j) omega_i): a Toeplitz Gram matrix, zero spread by offset."""
    d = 2 * half
    P = sinusoidal_encoding(T, d, base)
    offsets = np.arange(T)[:, None] - np.arange(T)[None, :]
    closed_form = np.cos(offsets[..., None] * sinusoid_frequencies(d, base)).sum(axis=-1)
    np.testing.assert_allclose(P @ P.T, closed_form, atol=1e-9)
    by_offset = dot_products_by_offset(P)
    assert np.all(by_offset.spread < 1e-9)
    np.testing.assert_allclose(np.diag(by_offset.gram), d / 2)


@FAST
@given(t=st.integers(0, 100), k=st.integers(0, 100), half=st.integers(1, 16))
def test_a_shift_by_k_is_a_rotation_of_each_pair(t, k, half):
    """p_{t+k} = R(k) p_t with R(k) block-diagonal 2x2 rotations: position as a linear function of offset."""
    d = 2 * half
    P = sinusoidal_encoding(t + k + 1, d)
    rotated = np.empty(d)
    for i, omega in enumerate(sinusoid_frequencies(d)):
        c, s = np.cos(k * omega), np.sin(k * omega)
        sin_t, cos_t = P[t, 2 * i], P[t, 2 * i + 1]
        rotated[2 * i], rotated[2 * i + 1] = sin_t * c + cos_t * s, cos_t * c - sin_t * s
    np.testing.assert_allclose(P[t + k], rotated, atol=1e-9)


# --- learned --------------------------------------------------------------------------------

def test_learned_is_seeded_prefix_stable_and_free():
    a = learned_encoding(10, 8, seed=3)
    np.testing.assert_array_equal(a, learned_encoding(10, 8, seed=3))
    np.testing.assert_array_equal(a[:4], learned_encoding(4, 8, seed=3))
    assert not np.allclose(a, learned_encoding(10, 8, seed=4))
    full = learned_encoding(limits.MAX_POSITIONS, 64, seed=0)
    assert abs(full.std() - np.sqrt(0.5)) < 0.02
    assert dot_products_by_offset(learned_encoding(32, 16)).spread[1] > 1.0


def test_none_is_zeros_and_unknown_kind_is_a_sentence():
    assert not positional_encoding("none", 4, 3).any()
    with pytest.raises(ValueError, match="Unknown positional encoding 'rotary'"):
        positional_encoding("rotary", 4, 3)


@pytest.mark.parametrize("call, message", [
    (lambda: sinusoidal_encoding(0, 4), "number of positions"),
    (lambda: sinusoidal_encoding(limits.MAX_POSITIONS + 1, 4), "number of positions"),
    (lambda: sinusoidal_encoding(4, limits.MAX_ENCODING_DIM + 1), "encoding width"),
    (lambda: sinusoidal_encoding(4, 4, base=1.0), "sinusoid base"),
    (lambda: learned_encoding(4, 4, seed=-1), "seed"),
])
def test_bad_sizes_are_sentences(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- dot products by offset -----------------------------------------------------------------

@FAST
@given(seed=st.integers(0, 2**32 - 1), T=st.integers(1, 20), d=st.integers(1, 12))
def test_offset_statistics_are_those_of_each_diagonal(seed, T, d):
    P = np.random.default_rng(seed).normal(size=(T, d))
    result = dot_products_by_offset(P)
    for k in range(T):
        products = [P[i] @ P[i + k] for i in range(T - k)]
        assert result.mean[k] == pytest.approx(np.mean(products))
        assert result.low[k] == pytest.approx(min(products))
        assert result.high[k] == pytest.approx(max(products))


# --- the permutation check ------------------------------------------------------------------

def test_the_owl_and_the_cat_share_their_context_vectors_without_position():
    a = embed("the owl saw the cat")
    perm = permutation_between(a.tokens, tokenize("the cat saw the owl"))
    np.testing.assert_array_equal(perm, [0, 4, 2, 3, 1])
    check = permutation_check(a.x, perm, "none")
    assert check.equivariant and check.max_difference < 1e-12
    # owl's context in "the cat saw the owl" (slot 4) is its context in "the owl saw the cat" (slot 1)
    np.testing.assert_allclose(check.shuffled.context[4], check.original.context[1], atol=1e-12)
    with_position = permutation_check(a.x, perm, "sinusoidal")
    assert not with_position.equivariant and with_position.max_difference > 0.1
    # the two "the"s and "saw" keep their slots but still change: their neighbours' encodings moved
    assert with_position.difference[2] > 1e-3


@st.composite
def sentences(draw, min_tokens=1):
    T = draw(st.integers(min_tokens, 10))
    d = draw(st.integers(1, 10))
    x = draw(st.lists(st.lists(st.floats(-3, 3, allow_nan=False), min_size=d, max_size=d),
                      min_size=T, max_size=T))
    perm = draw(st.permutations(range(T)))
    return np.array(x), np.array(perm)


@FAST
@given(case=sentences(), projected=st.booleans(), seed=st.integers(0, 1000))
def test_without_encoding_self_attention_is_permutation_equivariant(case, projected, seed):
    x, perm = case
    W = random_projections(x.shape[1], seed, gain=2.0) if projected else {}
    check = permutation_check(x, perm, "none", W_q=W.get("W_q"), W_k=W.get("W_k"), W_v=W.get("W_v"))
    assert check.equivariant, check.max_difference


@FAST
@given(seed=st.integers(0, 2**32 - 1), T=st.integers(2, 10), d=st.integers(2, 12),
       kind=st.sampled_from(["sinusoidal", "learned"]), data=st.data())
def test_with_an_encoding_a_generic_shuffle_changes_the_contexts(seed, T, d, kind, data):
    perm = np.array(data.draw(st.permutations(range(T))))
    assume(not np.array_equal(perm, np.arange(T)))
    x = np.random.default_rng(seed).normal(size=(T, d))  # generic: distinct rows
    check = permutation_check(x, perm, kind, seed=seed % 1000)
    assert not check.equivariant
    assert check.max_difference > 1e-6


@FAST
@given(seed=st.integers(0, 2**32 - 1), T=st.integers(2, 8), d=st.integers(2, 8), data=st.data())
def test_a_causal_mask_alone_already_breaks_the_equality(seed, T, d, data):
    """A decoder's mask lets a token see only its prefix, and which words are in the prefix depends on order."""
    perm = np.array(data.draw(st.permutations(range(T))))
    assume(not np.array_equal(perm, np.arange(T)))
    x = np.random.default_rng(seed).normal(size=(T, d))
    assert not permutation_check(x, perm, "none", causal=True).equivariant


def test_the_check_agrees_with_torch_scaled_dot_product_attention():
    torch = pytest.importorskip("torch")
    x = embed("the owl saw the cat").x
    perm = np.array([3, 1, 4, 0, 2])
    W = random_projections(8, seed=5, gain=2.0)
    check = permutation_check(x, perm, "sinusoidal", W_q=W["W_q"], W_k=W["W_k"], W_v=W["W_v"], strength=0.7)
    inputs = torch.tensor(x[perm] + 0.7 * sinusoidal_encoding(5, 8), dtype=torch.float64)
    Q, K, V = (inputs @ torch.tensor(W[name]) for name in ("W_q", "W_k", "W_v"))
    peer = torch.nn.functional.scaled_dot_product_attention(Q[None], K[None], V[None])[0]
    np.testing.assert_allclose(check.shuffled.context, peer.numpy(), atol=1e-12)


def test_strength_zero_turns_any_encoding_off():
    x = embed("a big owl caught a small mouse").x
    assert permutation_check(x, random_permutation(7, 1), "learned", strength=0.0).equivariant


@pytest.mark.parametrize("perm, message", [
    ([0, 1], "each of the 3 positions"),
    ([0, 0, 1], "each of the 3 positions"),
    ([0.5, 1, 2], "whole-number"),
    (["a", "b", "c"], "whole-number"),
])
def test_bad_permutations_are_sentences(perm, message):
    with pytest.raises(ValueError, match=message):
        permutation_check(np.eye(3), perm)


def test_bad_encoding_inputs_are_sentences():
    with pytest.raises(ValueError, match="strength"):
        permutation_check(np.eye(3), [2, 1, 0], "sinusoidal", strength=100.0)
    with pytest.raises(ValueError, match="one row per token"):
        permutation_check(np.eye(3), [2, 1, 0], np.zeros((2, 3)))
    with pytest.raises(ValueError, match="same bag"):
        permutation_between(["the", "owl"], ["the", "cat"])


@FAST
@given(words=st.lists(st.sampled_from(["the", "owl", "cat", "saw"]), min_size=1, max_size=8), data=st.data())
def test_permutation_between_finds_where_each_word_came_from(words, data):
    shuffled = data.draw(st.permutations(words))
    perm = permutation_between(words, list(shuffled))
    assert [words[p] for p in perm] == list(shuffled)
    assert sorted(perm.tolist()) == list(range(len(words)))


def test_random_permutation_is_seeded_and_never_the_identity():
    np.testing.assert_array_equal(random_permutation(5, 7), random_permutation(5, 7))
    for seed in range(50):
        assert not np.array_equal(random_permutation(2, seed), [0, 1])
    assert set(ENCODINGS) == {"none", "sinusoidal", "learned"}


def test_rotary_scores_have_constant_diagonals_and_others_do_not():
    from engine.transformer.positional import diagonal_spread, rotary_scores

    rng = np.random.default_rng(3)
    q, k = rng.normal(size=8), rng.normal(size=8)
    R = rotary_scores(q, k, 12)
    assert diagonal_spread(R).max() < 1e-12                       # depends on i - j only
    assert R[3, 1] == pytest.approx(R[10, 8]) and R[1, 3] == pytest.approx(R[8, 10])
    assert diagonal_spread(np.outer(np.arange(12), np.arange(12))).max() > 1   # a table that is not
    with pytest.raises(ValueError, match="square"):
        diagonal_spread(np.ones((2, 3)))
