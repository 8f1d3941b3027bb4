"""engine.attention.mechanism: the chapter's exact numbers, invariants, and torch as a peer."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from engine import limits
from engine.attention.mechanism import (
    CHAPTER_X, attention, causal_mask, multi_head_attention, naive_softmax_rows, self_attention, softmax_rows,
    split_heads, window_average, window_weights
)


# --- the chapter's worked example ------------------------------------------------------

def test_chapter_example_scaled():
    result = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X)
    assert np.round(result.weights[0], 3).tolist() == [0.298, 0.203, 0.206, 0.293]
    assert np.round(result.context[0], 3).tolist() == [0.464, 0.476, 0.286]


def test_chapter_example_raw_steps():
    result = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X, scale=False)
    assert np.round(result.weights[0], 3).tolist() == [0.332, 0.170, 0.175, 0.322]


def test_intermediates_are_the_chapter_steps():
    result = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X)
    assert np.allclose(result.scores[0], [0.81, 0.14, 0.17, 0.78])  # crane . each token
    assert np.allclose(result.scaled, result.scores / np.sqrt(3))
    assert result.d_k == 3


def test_self_attention_without_projections_is_attention_on_x():
    a = self_attention(CHAPTER_X)
    b = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X)
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.Q, CHAPTER_X)


def test_projections_are_applied():
    rng = np.random.default_rng(0)
    W_q, W_k, W_v = (rng.normal(size=(3, 2)) for _ in range(3))
    result = self_attention(CHAPTER_X, W_q, W_k, W_v)
    assert np.allclose(result.Q, CHAPTER_X @ W_q) and result.context.shape == (4, 2)
    assert np.allclose(result.scaled, (CHAPTER_X @ W_q) @ (CHAPTER_X @ W_k).T / np.sqrt(2))


# --- softmax stability -----------------------------------------------------------------

def test_softmax_is_finite_for_huge_scores():
    scores = np.array([[1e4, 0.0, -1e4], [5e3, 5e3, 0.0]])
    weights = softmax_rows(scores)
    assert np.all(np.isfinite(weights))
    assert np.allclose(weights[0], [1, 0, 0]) and np.allclose(weights[1], [0.5, 0.5, 0])
    with np.errstate(all="ignore"):
        assert not np.all(np.isfinite(naive_softmax_rows(scores)))


# --- masks and windows -----------------------------------------------------------------

def test_causal_mask_shape():
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


def test_fully_masked_row_is_a_sentence_not_nan():
    mask = np.ones((4, 4), dtype=bool)
    mask[2] = False
    with pytest.raises(ValueError, match="masked from every key"):
        attention(CHAPTER_X, CHAPTER_X, CHAPTER_X, mask=mask)


def test_window_average_by_hand():
    x = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]])
    assert window_average(x, 0).ravel().tolist() == [1, 2, 3, 4, 5]
    assert np.allclose(window_average(x, 1).ravel(), [1.5, 2, 3, 4, 4.5])  # edges average fewer
    assert np.allclose(window_average(x, 10 if limits.MAX_WINDOW >= 10 else 4).ravel(), 3)


def test_window_cannot_reach_lake_until_k_3():
    # "the crane by the lake": crane is token 1, lake token 4
    assert window_weights(5, 2)[1, 4] == 0
    assert window_weights(5, 3)[1, 4] == pytest.approx(1 / 5)


# --- bad input -------------------------------------------------------------------------

@pytest.mark.parametrize("bad, message", [
    (np.array([[1.0, np.nan]]), "non-finite"),
    (np.array([[1.0, np.inf]]), "non-finite"),
    (np.zeros((0, 3)), "empty"),
    (np.zeros(3), "matrix"),
    (np.zeros((limits.MAX_TOKENS + 1, 2)), "rows"),
    (np.zeros((2, limits.MAX_DIM + 1)), "columns"),
    (np.array([[2 * limits.MAX_ABS_VALUE]]), "beyond"),
    ([["a", "b"]], "only numbers"),
])
def test_bad_matrices_are_sentences(bad, message):
    with pytest.raises(ValueError, match=message):
        self_attention(bad)


def test_mismatched_widths_are_explained():
    with pytest.raises(ValueError, match="same width d_k"):
        attention(np.ones((2, 3)), np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="one value per key"):
        attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="one row per embedding dimension"):
        self_attention(CHAPTER_X, np.eye(2))


def test_heads_must_divide_width():
    with pytest.raises(ValueError, match="evenly"):
        split_heads(np.eye(6), 4)


# --- properties ------------------------------------------------------------------------

matrices = st.integers(1, 6).flatmap(lambda T: st.integers(1, 5).flatmap(
    lambda d: arrays(np.float64, (T, d), elements=st.floats(-5, 5, allow_nan=False))))


@settings(max_examples=60, deadline=None)
@given(matrices, st.booleans(), st.booleans())
def test_weights_are_a_distribution(x, scale, causal):
    weights = self_attention(x, scale=scale, causal=causal).weights
    assert np.all(weights >= 0)
    assert np.allclose(weights.sum(axis=1), 1)


@settings(max_examples=60, deadline=None)
@given(matrices, st.randoms(use_true_random=False))
def test_permutation_equivariance(x, rnd):
    perm = list(range(len(x)))
    rnd.shuffle(perm)
    plain = self_attention(x).context
    shuffled = self_attention(x[perm]).context
    assert np.allclose(shuffled, plain[perm], atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(matrices, st.data())
def test_causal_mask_leaks_nothing_from_the_future(x, data):
    T = len(x)
    i = data.draw(st.integers(0, T - 1))
    changed = x.copy()
    changed[i + 1:] += data.draw(st.floats(0.5, 3))
    before = self_attention(x, causal=True).context
    after = self_attention(changed, causal=True).context
    assert np.allclose(before[: i + 1], after[: i + 1])


# --- peer: torch -----------------------------------------------------------------------

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("masked", [False, True])
def test_matches_torch_scaled_dot_product_attention(seed, masked):
    rng = np.random.default_rng(seed)
    T, S, d_k, d_v = rng.integers(1, 8), rng.integers(1, 8), rng.integers(1, 9), rng.integers(1, 9)
    Q, K, V = rng.normal(size=(T, d_k)), rng.normal(size=(S, d_k)), rng.normal(size=(S, d_v))
    mask = None
    if masked:
        mask = rng.random((T, S)) < 0.6
        mask[np.arange(T), rng.integers(0, S, T)] = True  # every query sees at least one key
    ours = attention(Q, K, V, mask=mask).context
    theirs = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(a) for a in (Q, K, V)), attn_mask=None if mask is None else torch.from_numpy(mask))
    assert np.allclose(ours, theirs.numpy(), atol=1e-10)


def test_causal_matches_torch_is_causal():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 4))
    theirs = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(x),) * 3, is_causal=True)
    assert np.allclose(self_attention(x, causal=True).context, theirs.numpy(), atol=1e-10)


def test_multi_head_matches_torch():
    rng = np.random.default_rng(2)
    T, d, h = 5, 8, 2
    x = rng.normal(size=(T, d))
    W_q, W_k, W_v, W_o = (rng.normal(size=(d, d)) for _ in range(4))
    ours = multi_head_attention(x, W_q, W_k, W_v, W_o, h).output
    mha = torch.nn.MultiheadAttention(d, h, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([W_q.T, W_k.T, W_v.T])))
        mha.out_proj.weight.copy_(torch.from_numpy(W_o.T))
    xt = torch.from_numpy(x)[None]
    theirs, _ = mha(xt, xt, xt, need_weights=False)
    assert np.allclose(ours, theirs[0].detach().numpy(), atol=1e-10)


def test_window_reach_counts_any_distance_in_the_sentence():
    """k = |j - t| and 1/|W_t|, also past the window average's limit; the same as the built window where it exists."""
    from engine.attention.mechanism import window_reach, window_weights
    from engine import limits

    for T, t, j in [(4, 0, 3), (9, 4, 1), (7, 6, 6), (20, 3, 17)]:
        k, weight = window_reach(T, t, j)
        assert k == abs(j - t)
        assert weight == pytest.approx(window_weights(T, k)[t][j])
    far = limits.MAX_WINDOW + 5
    assert window_reach(far + 1, 0, far) == (far, 1 / (far + 1))
    with pytest.raises(ValueError, match="among the"):
        window_reach(4, 0, 4)
