"""Multi-head arithmetic: projections, the traced shapes, and what heads cost."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.attention.mechanism import (
    attention_cost, compare_head_costs, identity_projections, multi_head_attention, random_projections,
    self_attention, shape_trace,
)
from engine.embeddings.tiny_vocabulary import embed


def test_gpt2_small_attention_counts():
    """GPT-2 small: d = 768, h = 12; weights of one attention layer (biases not counted) = 4 d^2."""
    cost = attention_cost(1024, 768, 12)
    assert cost.d_head == 64
    assert cost.params == 4 * 768 ** 2 == 2_359_296
    assert cost.flops_qkv == 2 * 1024 * 768 * 3 * 768
    assert cost.flops_scores == cost.flops_weighted_sum == 2 * 1024 ** 2 * 768
    assert cost.flops_softmax == 5 * 12 * 1024 ** 2


def test_multi_head_costs_about_the_same_as_one_full_width_head():
    costs = compare_head_costs(1024, 768, 12)
    one, split, unsplit = costs.values()
    assert one.params == split.params
    # only the softmax grows with h: 5 (h - 1) T^2 more operations
    assert split.flops - one.flops == 5 * 11 * 1024 ** 2
    assert split.flops / one.flops < 1.01
    assert unsplit.params == 12 * 3 * 768 ** 2 + 12 * 768 * 768
    assert unsplit.flops > 10 * one.flops


@settings(max_examples=40, deadline=None)
@given(T=st.integers(1, 4096), d_head=st.integers(1, 256), h=st.integers(1, 64))
def test_split_heads_never_change_the_parameter_count(T, d_head, h):
    d = d_head * h
    assert attention_cost(T, d, h).params == attention_cost(T, d, 1).params == 4 * d * d
    assert attention_cost(T, d, h).flops - attention_cost(T, d, 1).flops == 5 * (h - 1) * T * T


def test_cost_bad_input_is_a_sentence():
    with pytest.raises(ValueError, match="cannot be split evenly"):
        attention_cost(10, 10, 3)
    with pytest.raises(ValueError, match="T \\(tokens\\)"):
        attention_cost(0, 8, 2)


def test_counted_params_equal_the_arrays_multi_head_attention_uses():
    W = random_projections(8, seed=1)
    assert sum(w.size for w in W.values()) == attention_cost(5, 8, 2).params


def test_shape_trace_reads_the_real_arrays():
    x = embed("the crane by the lake").x
    W = random_projections(8, seed=0)
    result = multi_head_attention(x, W["W_q"], W["W_k"], W["W_v"], W["W_o"], 4)
    steps = {step.name: step for step in shape_trace(result)}
    assert steps["tokens"].shape == (5, 8)
    assert steps["queries of head m"].shape == (5, 2) and steps["queries of head m"].count == 4
    assert steps["weights"].shape == (5, 5)
    assert steps["concatenated"].shape == steps["output"].shape == (5, 8)


def test_one_head_is_self_attention_and_the_output_sums_over_heads():
    x = embed("the owl saw the cat").x
    W = random_projections(8, seed=2, gain=2.0)
    single = multi_head_attention(x, W["W_q"], W["W_k"], W["W_v"], np.eye(8), 1)
    np.testing.assert_allclose(single.output, self_attention(x, W["W_q"], W["W_k"], W["W_v"]).context)
    four = multi_head_attention(x, W["W_q"], W["W_k"], W["W_v"], W["W_o"], 4)
    # [head_1 ... head_h] W_O = sum_m head_m W_O[rows of head m]
    summed = sum(head.context @ W["W_o"][2 * m:2 * m + 2] for m, head in enumerate(four.heads))
    np.testing.assert_allclose(four.output, summed, atol=1e-12)


def test_identity_projections_give_each_head_its_own_features():
    x = embed("the owl saw the cat").x
    W = identity_projections(8, gain=3.0)
    result = multi_head_attention(x, W["W_q"], W["W_k"], W["W_v"], W["W_o"], 2)
    first, second = (head.weights for head in result.heads)
    # head 1 reads animal/bird/water/action: "the" carries none of them, so it looks everywhere alike
    np.testing.assert_allclose(first[0], np.full(5, 0.2))
    # head 2 reads function word/place/size/hunts: "the" looks mostly at the two "the"s
    assert first[0, 3] < second[0, 3] and second[0, 0] + second[0, 3] > 0.9
    np.testing.assert_allclose(result.concat, np.concatenate([h.context for h in result.heads], axis=1))


def test_projection_bad_input_is_a_sentence():
    with pytest.raises(ValueError, match="gain"):
        random_projections(8, 0, gain=0.0)
    with pytest.raises(ValueError, match="seed"):
        random_projections(8, -2)
    with pytest.raises(ValueError, match="width d"):
        identity_projections(0)
