"""Rotary positions (RoPE): offsets only, every attention path, the key/value cache and its rolling window."""
from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings, strategies as st

from engine.transformer.config import TransformerConfig, count_parameters, dataflow
from engine.transformer.model import LayerCache, MultiHeadAttention, TransformerLM, apply_rotary, rotary_cos_sin
from engine.transformer.language_model import TransformerLanguageModel
from engine.transformer.positional import rotary_scores, rotate
from engine.language.tokenizers import CharTokenizer
from engine.transformer.training import load_checkpoint, save_checkpoint
from tests.engine.transformer.test_model import assert_pieces_equal_one_pass

FIXTURES = Path(__file__).parents[1] / "fixtures"
LETTERS = CharTokenizer(tuple("abcdefghijk"))
ROTARY = TransformerConfig(vocab_size=11, context_length=8, d_model=16, n_heads=2, d_ff=24, n_layers=2,
                           activation="gelu", layer_norm="pre", positional="rotary", final_norm=True, bias=False)


def built(config: TransformerConfig, seed: int = 0) -> TransformerLM:
    torch.manual_seed(seed)
    return TransformerLM(config).eval()


def torch_rotate(x: np.ndarray, positions) -> np.ndarray:
    """The model's rotation (float32) of rows x at the given positions."""
    cos, sin = rotary_cos_sin(torch.as_tensor(positions), x.shape[-1])
    return apply_rotary(torch.tensor(x, dtype=torch.float32), cos, sin).double().numpy()


# --- (a) the offset property -------------------------------------------------------------------

vectors = st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=8, max_size=8)


@settings(max_examples=60, deadline=None)
@given(q=vectors, k=vectors, i=st.integers(0, 5000), j=st.integers(0, 5000), s=st.integers(0, 100_000))
def test_rotary_scores_depend_on_the_offset_only(q, k, i, j, s):
    q, k = np.array(q), np.array(k)

    def score(a, b):
        return float(rotate(q, [a])[0] @ rotate(k, [b])[0])
    assert math.isclose(score(i + s, j + s), score(i, j), rel_tol=1e-9, abs_tol=1e-9)
    # the model's float32 rotation, positions far past any context: still the offset only
    model_score = float(torch_rotate(q[None], [i + s])[0] @ torch_rotate(k[None], [j + s])[0])
    assert math.isclose(model_score, score(i, j), rel_tol=1e-4, abs_tol=1e-4)


@settings(max_examples=30, deadline=None)
@given(x=st.lists(st.floats(-3, 3, allow_nan=False), min_size=6, max_size=6), t=st.integers(0, 10**6))
def test_rotation_keeps_lengths_and_agrees_with_the_model(x, t):
    x = np.array(x)
    turned = rotate(x, [t])[0]
    assert math.isclose(np.linalg.norm(turned), np.linalg.norm(x), rel_tol=1e-9, abs_tol=1e-12)
    np.testing.assert_allclose(torch_rotate(x[None], [t])[0], turned, atol=1e-5)


def test_rotate_pairs_coordinate_i_with_i_plus_half():
    x = np.zeros((1, 4))
    x[0, 0] = 1.0                                     # pair (0, 2) turns at theta_0 = 1 rad per position
    np.testing.assert_allclose(rotate(x, [1])[0], [math.cos(1), 0, math.sin(1), 0], atol=1e-15)
    np.testing.assert_allclose(rotate(x, [0]), x)


def test_rotary_scores_is_constant_along_each_diagonal():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=8), rng.normal(size=8)
    table = rotary_scores(q, k, 10)
    assert table.shape == (10, 10)
    for offset in range(-9, 10):
        diagonal = np.diagonal(table, offset)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-12)
    assert table[0, 0] == pytest.approx(q @ k)
    Q = torch_rotate(np.tile(q, (10, 1)), range(10))
    K = torch_rotate(np.tile(k, (10, 1)), range(10))
    np.testing.assert_allclose(Q @ K.T, table, atol=1e-4)    # the page's table is the model's


@pytest.mark.parametrize("call, words", [
    (lambda: rotate(np.ones((2, 3)), [0, 1]), "even"),
    (lambda: rotate(np.ones((2, 4)), [0]), "one whole-number position per row"),
    (lambda: rotate(np.ones((2, 4)), [0.5, 1.0]), "whole-number"),
    (lambda: rotate(np.ones((1, 4)), [0], base=1.0), "base"),
    (lambda: rotary_scores(np.ones(4), np.ones(6), 5), "same length"),
    (lambda: rotary_scores(np.ones(4), np.ones(4), 0), "positions"),
])
def test_bad_rotary_input_says_why(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_angles_far_past_the_context_are_exact():
    positions = torch.tensor([0, 7, 10**6 + 3])
    cos, sin = rotary_cos_sin(positions, 16)
    theta = 1.0 / 10_000 ** (2 * np.arange(8) / 16)
    angles = np.array([0, 7, 10**6 + 3], dtype=np.float64)[:, None] * theta
    np.testing.assert_allclose(cos[:, :8].double().numpy(), np.cos(angles), atol=1e-7)
    np.testing.assert_allclose(sin[:, 8:].double().numpy(), np.sin(angles), atol=1e-7)


# --- the model: counts, data flow, every attention path ---------------------------------------------

def test_rotary_learns_no_position_parameters():
    count = count_parameters(ROTARY)
    assert count.position_embedding == 0
    assert built(ROTARY).n_parameters() == count.total
    learned = count_parameters(replace(ROTARY, positional="learned"))
    assert learned.total - count.total == ROTARY.context_length * ROTARY.d_model


def test_the_data_flow_says_where_the_rotation_happens():
    stages = dataflow(ROTARY)
    names = [s.name for s in stages]
    assert not any(name.startswith("+") for name in names)     # nothing added to the embeddings
    rotation = stages[names.index("rotary positions")]
    assert rotation.in_block and rotation.parameters == 0
    assert names.index("Q, K, V") < names.index("rotary positions") < names.index("attention weights")
    assert sum(s.parameters for s in stages if not s.in_block) + \
        ROTARY.n_layers * sum(s.parameters for s in stages if s.in_block) == count_parameters(ROTARY).total


def test_odd_head_width_is_refused():
    with pytest.raises(ValueError, match="d_k"):
        replace(ROTARY, d_model=18, n_heads=2 * 3)


def test_trace_matches_forward_with_rotary():
    model = built(ROTARY)
    idx = torch.tensor([[1, 2, 3, 4, 5, 6, 7, 0]])
    with torch.no_grad():
        logits, _ = model(idx)
    trace = model.trace(idx)
    torch.testing.assert_close(trace.logits, logits, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(trace.embeddings, model.token_embedding(idx))   # no position vector added
    assert trace.attention_weights[0].shape == (1, 2, 8, 8)


def test_rotary_attention_sees_order():
    model = built(ROTARY)
    with torch.no_grad():
        a, _ = model(torch.tensor([[1, 2, 3]]))
        b, _ = model(torch.tensor([[2, 1, 3]]))
    assert not torch.allclose(a[0, -1], b[0, -1], atol=1e-4)


@pytest.mark.parametrize("need_weights", [False, True])
def test_rotary_cached_attention_explicit_and_fused_paths_agree(need_weights):
    torch.manual_seed(1)
    attention = MultiHeadAttention(ROTARY).eval()
    x = torch.randn(2, 7, 16)
    whole = attention(x, need_weights=need_weights)
    fused = attention(x, need_weights=False)
    torch.testing.assert_close(whole.output, fused.output, atol=1e-6, rtol=1e-5)
    cache = LayerCache()
    first = attention(x[:, :4], need_weights=need_weights, cache=cache)
    rest = attention(x[:, 4:], need_weights=need_weights, cache=cache)
    assert cache.seen == cache.length == 7
    torch.testing.assert_close(torch.cat([first.output, rest.output], dim=1), whole.output, atol=1e-6, rtol=1e-5)
    if need_weights:
        torch.testing.assert_close(rest.weights, whole.weights[:, :, 4:, :], atol=1e-6, rtol=1e-5)


# --- (c) extend piece by piece ----------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(st.data())
def test_rotary_extend_piece_by_piece_equals_one_forward_pass(data):
    config = replace(ROTARY, n_layers=data.draw(st.integers(1, 3)),
                     layer_norm=data.draw(st.sampled_from(["pre", "post"])))
    assert_pieces_equal_one_pass(built(config, seed=data.draw(st.integers(0, 3))), data)


# --- (b) the rolling cache ------------------------------------------------------------------------

def window_log_probs(lm: TransformerLanguageModel, context: list[int]) -> np.ndarray:
    """ln P(next | the last context_length tokens), one full forward pass from position 0."""
    return np.log(lm.next_token_probs(context))


def test_rolling_cache_of_one_block_equals_a_full_pass_over_the_window():
    lm = TransformerLanguageModel(built(replace(ROTARY, n_layers=1)), LETTERS, rolling_cache=True)
    read, context = lm.reader(), [3, 1, 4]
    rng = np.random.default_rng(0)
    for step in range(60):                    # an 8-token window: it fills, then rolls 55 times
        np.testing.assert_allclose(np.log(read(context)), window_log_probs(lm, context), atol=1e-5)
        context.append(int(rng.integers(11)))
    assert read.cache[0].length == 8 and read.cache[0].seen == len(context) - 1


def sliding_window_logits(model: TransformerLM, idx: torch.Tensor, window: int) -> torch.Tensor:
    """Logits of a pre-norm rotary model whose every query reads only the last `window` keys,
    in every block, positions counted from 0 over the whole sequence (Mistral's sliding window)."""
    B, N = idx.shape
    config = model.config
    i, j = torch.arange(N)[:, None], torch.arange(N)[None, :]
    mask = (j <= i) & (j > i - window)
    cos, sin = rotary_cos_sin(torch.arange(N), config.d_k)
    x = model.token_embedding(idx)
    for block in model.blocks:
        attention = block.attention
        Q, K, V = attention.W_qkv(block.norm_1(x)).split(config.d_model, dim=2)
        Q, K, V = (m.view(B, N, config.n_heads, config.d_k).transpose(1, 2) for m in (Q, K, V))
        Q, K = apply_rotary(Q, cos, sin), apply_rotary(K, cos, sin)
        context = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
        x = x + attention.W_o(context.transpose(1, 2).reshape(B, N, config.d_model))
        x = x + block.feed_forward(block.norm_2(x))
    return model.head(x)


def test_rolling_cache_of_several_blocks_is_sliding_window_attention():
    model = built(replace(ROTARY, n_layers=3))
    lm = TransformerLanguageModel(model, LETTERS, rolling_cache=True)
    read, context = lm.reader(), [3, 1, 4]
    rng = np.random.default_rng(1)
    for step in range(30):
        context.append(int(rng.integers(11)))
    with torch.no_grad():
        reference = torch.log_softmax(sliding_window_logits(model, torch.tensor([context]), 8).double(), dim=-1)
    for n in range(3, len(context) + 1):
        np.testing.assert_allclose(np.log(read(context[:n])), reference[0, n - 1].numpy(), atol=1e-5)
        if n <= 8:                            # inside the window: the plain full pass
            np.testing.assert_allclose(np.log(read(context[:n])), window_log_probs(lm, context[:n]), atol=1e-5)


def test_rolling_keeps_angles_exact_far_past_the_context():
    """A cache whose first token sits at position 10^6, rolled by hand as CachedReader rolls it."""
    model = built(replace(ROTARY, n_layers=1))
    context = [1, 2, 3, 4, 5, 6, 7, 8]
    cache = model.empty_cache()
    for layer in cache:                       # as if 10^6 tokens had been read and dropped already
        layer.seen = 10**6
    with torch.no_grad():
        far = torch.log_softmax(model.extend(torch.tensor([context]), cache), dim=-1)
        near = torch.log_softmax(model(torch.tensor([context]))[0], dim=-1)
        torch.testing.assert_close(far, near, atol=1e-5, rtol=0)
        for step in range(12):
            context.append((step * 5) % 11)
            for layer in cache:
                layer.drop_oldest(1)
            far = torch.log_softmax(model.extend(torch.tensor([context[-1:]]), cache)[0, -1], dim=-1)
            near = torch.log_softmax(model(torch.tensor([context[-8:]]))[0][0, -1], dim=-1)
            torch.testing.assert_close(far, near, atol=1e-5, rtol=0)
    assert cache[0].seen == 10**6 + 20 and cache[0].length == 8


def test_rolling_needs_rotary_and_a_new_context_starts_afresh():
    learned = built(replace(ROTARY, positional="learned"))
    with pytest.raises(ValueError, match="rotary"):
        TransformerLanguageModel(learned, LETTERS, rolling_cache=True)
    lm = TransformerLanguageModel(built(ROTARY), LETTERS, rolling_cache=True)
    read = lm.reader()
    read(list(range(8)))
    np.testing.assert_allclose(read([5, 5]), lm.next_token_probs([5, 5]), atol=1e-6)   # not a slide: afresh
    assert read.cache[0].seen == 2


# --- (d, e) checkpoints ----------------------------------------------------------------------------

def test_rotary_checkpoint_round_trips(tmp_path):
    model = built(ROTARY)
    save_checkpoint(model, tmp_path / "rotary", {"note": "test"})
    loaded, notes = load_checkpoint(tmp_path / "rotary")
    assert loaded.config == ROTARY and notes == {"note": "test"}
    idx = torch.tensor([[1, 2, 3, 4]])
    with torch.no_grad():
        torch.testing.assert_close(loaded(idx)[0], model(idx)[0])


def test_the_old_learned_checkpoint_description_still_loads(tmp_path):
    """The JSON shipped before rotary (4 layers, learned positions), weights of its shape."""
    described = json.loads((FIXTURES / "shakespeare_char_learned.json").read_text())
    config = TransformerConfig.from_dict(described["config"])
    assert config.positional == "learned" and config.n_layers == 4
    save_checkpoint(built(config), tmp_path / "old")
    shutil.copy(FIXTURES / "shakespeare_char_learned.json", tmp_path / "old.json")   # the old file, verbatim
    model, notes = load_checkpoint(tmp_path / "old")
    assert model.config == config and notes["held_out_nats_per_char"] == 1.3775
    assert count_parameters(config).position_embedding == 128 * 128


def test_a_sinusoidal_checkpoint_still_loads(tmp_path):
    config = replace(ROTARY, positional="sinusoidal")
    model = built(config)
    save_checkpoint(model, tmp_path / "sin")
    loaded, _ = load_checkpoint(tmp_path / "sin")
    idx = torch.tensor([[1, 2, 3]])
    with torch.no_grad():
        torch.testing.assert_close(loaded(idx)[0], model(idx)[0])
