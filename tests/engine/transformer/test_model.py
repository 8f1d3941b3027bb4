"""engine.transformer.model: parameter counts by formula, peers in torch.nn, equivariance and causality."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch
import torch.nn as nn
from hypothesis import given, settings, strategies as st

from engine.transformer.generation import generate
from engine.transformer.config import PRESETS, TransformerConfig, check_buildable, count_parameters
from engine.transformer.model import Block, LayerCache, MultiHeadAttention, TransformerLM, sinusoidal_encoding
from engine.transformer.language_model import TransformerLanguageModel

SMALL = TransformerConfig(vocab_size=11, context_length=12, d_model=16, n_heads=4, d_ff=24, n_layers=2)


def built(config: TransformerConfig, seed: int = 0) -> TransformerLM:
    torch.manual_seed(seed)
    return TransformerLM(config).eval()


# --- counting -----------------------------------------------------------------------------

def test_gpt2_small_count_is_the_real_checkpoints():
    config = PRESETS["GPT-2 small"]
    assert count_parameters(config).total == 124_439_808
    with torch.device("meta"):                       # the shapes without the memory
        model = TransformerLM(config)
    assert sum(p.numel() for p in model.parameters()) == 124_439_808


def test_gpt3_is_counted_never_built():
    config = PRESETS["GPT-3 175B"]
    total = count_parameters(config).total
    assert 174e9 < total < 176e9
    with pytest.raises(ValueError, match="counted from the formula"):
        check_buildable(config)


@pytest.mark.parametrize("name", ["tiny (the chapter's block)", "baby GPT (nanoGPT on a CPU)"])
def test_small_presets_count_equals_numel(name):
    model = built(PRESETS[name])
    assert model.n_parameters() == count_parameters(PRESETS[name]).total


def test_baby_gpt_is_nanogpts_size():
    # nanoGPT reports 0.80M for its 65-character Shakespeare (position embedding not subtracted here)
    assert count_parameters(replace(PRESETS["baby GPT (nanoGPT on a CPU)"], vocab_size=65)).total == 804_096


configs = st.builds(
    TransformerConfig,
    vocab_size=st.integers(2, 40), context_length=st.integers(1, 16),
    d_model=st.sampled_from([4, 8, 12, 16]), n_heads=st.sampled_from([1, 2, 4]),
    d_ff=st.integers(1, 40), n_layers=st.integers(1, 3),
    activation=st.sampled_from(["relu", "gelu"]), layer_norm=st.sampled_from(["post", "pre", "none"]),
    residual=st.booleans(), positional=st.sampled_from(["none", "sinusoidal", "learned"]),
    causal=st.booleans(), tied_head=st.booleans(), final_norm=st.booleans(), bias=st.booleans(),
)
# rotary turns pairs of a head's coordinates: twice the width keeps d_k even
rotary_configs = configs.map(lambda config: replace(config, d_model=2 * config.d_model, positional="rotary"))
configs = st.one_of(configs, rotary_configs)


@settings(max_examples=40, deadline=None)
@given(configs)
def test_formula_equals_numel_for_any_config(config):
    model = TransformerLM(config)
    count = count_parameters(config)
    assert model.n_parameters() == count.total == sum(count.parts().values())


@pytest.mark.parametrize("change, words", [
    (dict(d_model=30, n_heads=4), "split evenly"),
    (dict(n_layers=0), "n_layers"),
    (dict(activation="tanh"), "activation"),
    (dict(layer_norm="middle"), "LayerNorm"),
    (dict(positional="alibi"), "positional"),
    (dict(d_model=12, n_heads=4, positional="rotary"), "even"),
    (dict(dropout=1.0), "Dropout"),
])
def test_configs_that_cannot_be_built_say_why(change, words):
    with pytest.raises(ValueError, match=words):
        replace(SMALL, **change)


def test_config_round_trips_through_a_dict():
    assert TransformerConfig.from_dict(SMALL.to_dict()) == SMALL
    with pytest.raises(ValueError, match="unknown"):
        TransformerConfig.from_dict(SMALL.to_dict() | {"n_experts": 8})


# --- peers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("causal", [False, True])
def test_multi_head_attention_equals_torch(causal):
    torch.manual_seed(1)
    d, h, T = 16, 4, 7
    ours = MultiHeadAttention(replace(SMALL, d_model=d, n_heads=h, causal=causal)).eval()
    peer = nn.MultiheadAttention(d, h, batch_first=True).eval()
    with torch.no_grad():
        ours.W_qkv.weight.copy_(peer.in_proj_weight)
        ours.W_qkv.bias.copy_(peer.in_proj_bias)
        ours.W_o.weight.copy_(peer.out_proj.weight)
        ours.W_o.bias.copy_(peer.out_proj.bias)
    x = torch.randn(3, T, d)
    mask = nn.Transformer.generate_square_subsequent_mask(T) if causal else None
    expected, expected_weights = peer(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
    explicit = ours(x, need_weights=True)
    fused = ours(x)
    torch.testing.assert_close(explicit.output, expected, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(explicit.weights, expected_weights, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(fused.output, expected, atol=1e-6, rtol=1e-5)
    assert fused.weights is None


def test_under_bfloat16_autocast_attention_stays_float32():
    torch.manual_seed(2)
    ours = MultiHeadAttention(SMALL).eval()
    x = torch.randn(3, 9, SMALL.d_model)
    exact = ours(x, need_weights=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        explicit, fused = ours(x, need_weights=True), ours(x)
    assert explicit.weights.dtype == torch.float32
    torch.testing.assert_close(explicit.weights, exact.weights, atol=0.02, rtol=0)   # bfloat16's Q and K
    torch.testing.assert_close(fused.output.float(), explicit.output.float(), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_post_norm_relu_block_equals_transformer_encoder_layer(causal):
    torch.manual_seed(2)
    d, h, d_ff, T = 16, 4, 24, 9
    config = replace(SMALL, d_model=d, n_heads=h, d_ff=d_ff, activation="relu", layer_norm="post", causal=causal)
    ours = Block(config).eval()
    peer = nn.TransformerEncoderLayer(d, h, dim_feedforward=d_ff, dropout=0.0, activation="relu",
                                      batch_first=True, norm_first=False).eval()
    with torch.no_grad():
        ours.attention.W_qkv.weight.copy_(peer.self_attn.in_proj_weight)
        ours.attention.W_qkv.bias.copy_(peer.self_attn.in_proj_bias)
        ours.attention.W_o.weight.copy_(peer.self_attn.out_proj.weight)
        ours.attention.W_o.bias.copy_(peer.self_attn.out_proj.bias)
        for mine, theirs in ((ours.feed_forward.W_1, peer.linear1), (ours.feed_forward.W_2, peer.linear2),
                             (ours.norm_1, peer.norm1), (ours.norm_2, peer.norm2)):
            mine.weight.copy_(theirs.weight)
            mine.bias.copy_(theirs.bias)
    x = torch.randn(2, T, d)
    mask = nn.Transformer.generate_square_subsequent_mask(T) if causal else None
    expected = peer(x, src_mask=mask, is_causal=causal)
    torch.testing.assert_close(ours(x).output, expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ours(x, need_weights=True).output, expected, atol=1e-5, rtol=1e-5)


# --- properties -------------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(st.permutations(list(range(6))), st.sampled_from(["post", "pre", "none"]), st.booleans())
def test_without_position_or_mask_a_block_is_permutation_equivariant(order, layer_norm, residual):
    torch.manual_seed(3)
    block = Block(replace(SMALL, causal=False, layer_norm=layer_norm, residual=residual)).eval()
    x = torch.randn(1, 6, 16)
    perm = torch.tensor(order)
    with torch.no_grad():
        torch.testing.assert_close(block(x[:, perm]).output, block(x).output[:, perm], atol=1e-5, rtol=1e-5)


def test_position_breaks_equivariance_of_the_whole_model():
    idx = torch.tensor([[1, 2, 3, 4, 5]])
    perm = torch.tensor([4, 3, 2, 1, 0])
    for positional, equal in (("none", True), ("sinusoidal", False), ("learned", False)):
        model = built(replace(SMALL, causal=False, positional=positional))
        with torch.no_grad():
            same = torch.allclose(model(idx[:, perm])[0], model(idx)[0][:, perm], atol=1e-5)
        assert same == equal, positional


CAUSAL_MODEL = built(replace(SMALL, positional="learned", layer_norm="pre", final_norm=True))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 10), min_size=2, max_size=12), st.data())
def test_a_causal_model_never_sees_the_future(ids, data):
    model = CAUSAL_MODEL
    t = data.draw(st.integers(0, len(ids) - 2))
    changed = list(ids)
    changed[t + 1:] = [(i + 1) % 11 for i in ids[t + 1:]]
    with torch.no_grad():
        before = model(torch.tensor([ids]))[0][0, : t + 1]
        after = model(torch.tensor([changed]))[0][0, : t + 1]
        weights = model.trace(torch.tensor([ids])).attention_weights
    torch.testing.assert_close(before, after)
    for w in weights:
        assert torch.all(w.triu(1) == 0)


def test_trace_matches_forward_and_keeps_every_layer():
    model = built(replace(SMALL, n_layers=3))
    idx = torch.tensor([[1, 5, 2, 7, 3], [0, 0, 1, 1, 2]])
    trace = model.trace(idx)
    logits, _ = model(idx)
    torch.testing.assert_close(trace.logits, logits, atol=1e-5, rtol=1e-5)
    assert len(trace.hidden_states) == len(trace.attention_weights) == 3
    assert trace.attention_weights[0].shape == (2, 4, 5, 5)
    torch.testing.assert_close(trace.attention_weights[2].sum(-1), torch.ones(2, 4, 5))
    assert trace.hidden_states[-1].shape == trace.embeddings.shape == (2, 5, 16)


def test_loss_at_initialisation_is_about_ln_vocab():
    model = built(SMALL)
    idx = torch.randint(0, 11, (8, 12), generator=torch.Generator().manual_seed(0))
    _, loss = model(idx[:, :-1], idx[:, 1:])
    assert abs(loss.item() - math.log(11)) < 0.1


def test_too_long_an_input_is_refused():
    with pytest.raises(ValueError, match="at most 12 tokens"):
        built(SMALL)(torch.zeros(1, 13, dtype=torch.long))


def test_sinusoidal_encoding_values():
    pe = sinusoidal_encoding(4, 6)
    assert pe[0, 0] == 0 and pe[0, 1] == 1
    assert pe[1, 0].item() == pytest.approx(math.sin(1.0))
    assert pe[1, 3].item() == pytest.approx(math.cos(1.0 / 10000 ** (2 / 6)))
    assert pe[2, 5].item() == pytest.approx(math.cos(2.0 / 10000 ** (4 / 6)))


# --- the LanguageModel interface -------------------------------------------------------------

class Letters:
    name = "letters"

    def __init__(self, alphabet: str):
        self.alphabet, self.vocab_size = alphabet, len(alphabet)

    def encode(self, text):
        return [self.alphabet.index(c) for c in text]

    def decode(self, ids):
        return "".join(self.alphabet[i] for i in ids)

    def tokens(self, text):
        return list(text)


def test_language_model_interface():
    model = built(SMALL)
    lm = TransformerLanguageModel(model, Letters("abcdefghijk"))
    probs = lm.next_token_probs([1, 2, 3])
    assert probs.shape == (11,) and probs.sum() == pytest.approx(1.0)
    ids = list(np.random.default_rng(0).integers(0, 11, 40))
    # by hand: -ln P(w_t | w_<t) with the window restarting every context_length tokens
    by_hand = [-math.log(lm.next_token_probs(ids[(t - 1) // 12 * 12:t])[ids[t]]) for t in range(1, 40)]
    assert lm.cross_entropy(ids) == pytest.approx(float(np.mean(by_hand)), rel=1e-5)
    assert lm.sample(10, seed=4, prompt=[1]) == lm.sample(10, seed=4, prompt=[1])
    assert lm.sample(5, seed=4, temperature=0, prompt=[1]) == [int(np.argmax(lm.next_token_probs([1])))] + \
        lm.sample(4, seed=4, temperature=0, prompt=[1, int(np.argmax(lm.next_token_probs([1])))])
    with pytest.raises(ValueError, match="vocabulary|tokens but"):
        TransformerLanguageModel(model, Letters("abc"))


# --- the key/value cache: generation reads each new token once ------------------------------------

causal_configs = configs.map(lambda config: replace(config, causal=True, dropout=0.0))


@settings(max_examples=40, deadline=None)
@given(causal_configs, st.data())
def test_extending_a_cache_piece_by_piece_equals_one_forward_pass(config, data):
    assert_pieces_equal_one_pass(built(config, seed=data.draw(st.integers(0, 3))), data)


def assert_pieces_equal_one_pass(model: TransformerLM, data) -> None:
    """A random text cut at random points and fed piece by piece through the cache (extend) gives
    the logits of one forward pass over the whole text."""
    config = model.config
    T = data.draw(st.integers(1, config.context_length))
    idx = torch.tensor([data.draw(st.lists(st.integers(0, config.vocab_size - 1), min_size=T, max_size=T))])
    cuts = sorted(set(data.draw(st.lists(st.integers(1, T - 1), max_size=4)))) if T > 1 else []
    cache, pieces = model.empty_cache(), []
    for start, stop in zip([0, *cuts], [*cuts, T]):
        pieces.append(model.extend(idx[:, start:stop], cache))
    with torch.no_grad():
        whole, _ = model(idx)
    torch.testing.assert_close(torch.cat(pieces, dim=1), whole, atol=1e-5, rtol=1e-4)
    assert all(layer.length == T for layer in cache)


@pytest.mark.parametrize("need_weights", [False, True])
def test_cached_attention_explicit_and_fused_paths_agree(need_weights):
    torch.manual_seed(1)
    attention = MultiHeadAttention(SMALL).eval()
    x = torch.randn(2, 7, 16)
    whole = attention(x, need_weights=need_weights)
    cache = LayerCache()
    first = attention(x[:, :4], need_weights=need_weights, cache=cache)
    rest = attention(x[:, 4:], need_weights=need_weights, cache=cache)
    torch.testing.assert_close(torch.cat([first.output, rest.output], dim=1), whole.output, atol=1e-6, rtol=1e-5)
    if need_weights:
        torch.testing.assert_close(rest.weights, whole.weights[:, :, 4:, :], atol=1e-6, rtol=1e-5)


def test_the_cached_reader_equals_next_token_probs_as_the_window_slides():
    model = built(replace(SMALL, positional="learned", layer_norm="pre", final_norm=True))
    lm = TransformerLanguageModel(model, Letters("abcdefghijk"))
    read, context = lm.reader(), [3, 1, 4]
    for step in range(30):                              # 12-token window: it fills, then slides
        cached, plain = read(context), lm.next_token_probs(context)
        np.testing.assert_allclose(cached, plain, atol=1e-6)
        context.append(int(np.argmax(cached)) if step % 3 else (step * 7) % 11)
    np.testing.assert_allclose(read([5, 5]), lm.next_token_probs([5, 5]), atol=1e-6)   # a new context
    np.testing.assert_allclose(read([5, 5]), lm.next_token_probs([5, 5]), atol=1e-6)   # the same one again


class WithoutCache:
    """A language model that only answers next_token_probs (as an n-gram does)."""

    def __init__(self, lm: TransformerLanguageModel):
        self.lm, self.name, self.tokenizer = lm, lm.name, lm.tokenizer

    def next_token_probs(self, context):
        return self.lm.next_token_probs(context)


def test_generation_with_the_cache_draws_what_full_passes_draw():
    lm = TransformerLanguageModel(built(replace(SMALL, positional="learned")), Letters("abcdefghijk"))
    cached = generate(lm, "abc", 40, seed=3, temperature=0.9)
    plain = generate(WithoutCache(lm), "abc", 40, seed=3, temperature=0.9)
    assert cached.ids == plain.ids
    for a, b in zip(cached.steps, plain.steps):
        np.testing.assert_allclose(a.probs, b.probs, atol=1e-6)


def test_a_model_that_sees_both_ways_is_not_read_incrementally():
    model = built(replace(SMALL, causal=False))
    with pytest.raises(ValueError, match="Only a causal model"):
        model.extend(torch.tensor([[1, 2]]), model.empty_cache())
    lm = TransformerLanguageModel(model, Letters("abcdefghijk"))
    read = lm.reader()
    np.testing.assert_allclose(read([1, 2]), lm.next_token_probs([1, 2]))
    np.testing.assert_allclose(read([1, 2, 3]), lm.next_token_probs([1, 2, 3]))   # every call a full pass


def test_a_cache_past_the_window_is_refused():
    model = built(SMALL)
    cache = model.empty_cache()
    model.extend(torch.zeros(1, 12, dtype=torch.long), cache)
    with pytest.raises(ValueError, match="at most 12 tokens"):
        model.extend(torch.zeros(1, 1, dtype=torch.long), cache)


def test_the_models_sinusoids_are_the_position_pages():
    from engine.transformer.positional import sinusoidal_encoding as page_table
    np.testing.assert_allclose(sinusoidal_encoding(50, 16).numpy(), page_table(50, 16), atol=1e-6)
    assert sinusoidal_encoding(1024, 768).shape == (1024, 768)   # beyond the page's table limits
