"""engine.interpret.interventions: the identities each tool must keep (a small random TransformerLM, then SmolLM2)."""
from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest
import torch

from engine.interpret import interventions as I
from engine import limits
from engine.interpret.readings import spearman
from engine.transformer.model import TransformerLM
from engine.language.tokenizers import CharTokenizer
from engine.transformer.config import TransformerConfig
from engine.transformer.language_model import TransformerLanguageModel
from tests.engine.pretrained import test_smollm2 as test_pretrained

PRE_LEARNED = TransformerConfig(vocab_size=40, context_length=32, d_model=32, n_heads=4, d_ff=48, n_layers=3,
                                layer_norm="pre", positional="learned", final_norm=True)
POST_ROTARY = dataclasses.replace(PRE_LEARNED, layer_norm="post", positional="rotary", final_norm=False)
BOTH_WAYS = dataclasses.replace(PRE_LEARNED, causal=False, positional="sinusoidal")
CONFIGS = {"pre-norm, learned": PRE_LEARNED, "post-norm, rotary": POST_ROTARY, "not causal": BOTH_WAYS}

IDS = [3, 17, 5, 29, 11, 3, 17, 8]
OTHER = [3, 17, 5, 31, 11, 3, 17, 8]        # the same length, one token changed at position 3


def small(config: TransformerConfig = PRE_LEARNED, seed: int = 0) -> TransformerLM:
    torch.manual_seed(seed)
    model = TransformerLM(config).eval()
    with torch.no_grad():                    # larger weights than GPT-2's init, so heads matter
        for parameter in model.parameters():
            parameter.mul_(8.0 if parameter.ndim > 1 else 1.0)
    return model


def plain_logits(model: TransformerLM, ids) -> np.ndarray:
    with torch.no_grad():
        return model(torch.tensor([ids]))[0][0].numpy()


def log_p(logits: np.ndarray, target: int) -> float:
    return float(torch.log_softmax(torch.from_numpy(logits).double(), dim=-1)[target])


# --- logit lens --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", CONFIGS)
def test_the_last_row_of_the_logit_lens_is_the_models_own_prediction(name):
    model = small(CONFIGS[name])
    lens = I.logit_lens(model, IDS, k=5, target=8)
    assert lens.top_ids.shape == lens.top_log_probs.shape == (4, len(IDS), 5)
    assert lens.layers == ["embedding", "after block 0", "after block 1", "after block 2"]
    own = torch.log_softmax(torch.from_numpy(plain_logits(model, IDS)), dim=-1)
    best = torch.topk(own, 5, dim=-1)
    np.testing.assert_array_equal(lens.top_ids[-1], best.indices.numpy())
    np.testing.assert_allclose(lens.top_log_probs[-1], best.values.numpy(), atol=1e-5)
    np.testing.assert_allclose(lens.target_log_probs[-1], own[:, 8].numpy(), atol=1e-5)
    assert np.all(np.diff(lens.top_log_probs, axis=-1) <= 0)
    assert np.all((lens.target_ranks == 0) == (lens.top_ids[..., 0] == 8))
    assert lens.top_tokens[-1, 0, 0] == str(lens.top_ids[-1, 0, 0])    # no tokenizer: ids as text


def test_first_top_layer_is_where_a_token_wins_for_good():
    lens = I.LogitLens(ids=[0], tokens=["a"], layers=["embedding", "after block 0", "after block 1", "after block 2"],
                       top_ids=np.array([7, 7, 3, 7])[:, None, None], top_tokens=np.empty((4, 1, 1), dtype=object),
                       top_log_probs=np.zeros((4, 1, 1)))
    assert lens.first_top_layer(7) == 3
    assert lens.first_top_layer(3) is None


# --- ablating heads ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", CONFIGS)
def test_ablating_no_head_is_the_plain_pass(name):
    model = small(CONFIGS[name])
    result = I.ablate_heads(model, IDS)
    assert result.heads == ()
    np.testing.assert_allclose(result.logits, plain_logits(model, IDS), atol=1e-5)


def without_head_in_w_o(model: TransformerLM, layer: int, head: int, add_to_bias=None) -> TransformerLM:
    """A copy whose block `layer` has head `head`'s d_k columns of W_O set to 0 (and, for mean
    ablation, W_O m_head added to the bias: the constant output the head is replaced by)."""
    changed = copy.deepcopy(model)
    W_o = changed.blocks[layer].attention.W_o
    columns = slice(head * model.config.d_k, (head + 1) * model.config.d_k)
    with torch.no_grad():
        if add_to_bias is not None:
            W_o.bias += W_o.weight[:, columns] @ add_to_bias
        W_o.weight[:, columns] = 0.0
    return changed


@pytest.mark.parametrize("name", CONFIGS)
def test_a_zeroed_head_is_its_slice_of_w_o_set_to_zero(name):
    model = small(CONFIGS[name])
    for layer, head in [(0, 1), (2, 3)]:
        ablated = I.ablate_heads(model, IDS, [(layer, head)])
        expected = plain_logits(without_head_in_w_o(model, layer, head), IDS)
        np.testing.assert_allclose(ablated.logits, expected, atol=1e-4)
    two = I.ablate_heads(model, IDS, [(1, 0), (1, 2)])
    assert two.heads == ((1, 0), (1, 2))
    assert not np.allclose(two.logits, plain_logits(model, IDS), atol=1e-3)


def test_a_mean_ablated_head_outputs_its_mean_over_the_reference():
    model, reference = small(), [9, 1, 4, 22, 30, 2]
    layer, head, d_k = 1, 2, PRE_LEARNED.d_k
    seen = []
    hook = model.blocks[layer].attention.W_o.register_forward_pre_hook(lambda module, inputs: seen.append(inputs[0]))
    plain_logits(model, reference)           # a torch hook, as a peer: W_O's input is the heads' z, concatenated
    hook.remove()
    mean = seen[0][0, :, head * d_k:(head + 1) * d_k].mean(dim=0)
    expected = plain_logits(without_head_in_w_o(model, layer, head, add_to_bias=mean), IDS)
    ablated = I.ablate_heads(model, IDS, [(layer, head)], mode="mean", reference_ids=reference)
    np.testing.assert_allclose(ablated.logits, expected, atol=1e-4)


# --- every head's effect --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("mode", I.MODES)
def test_head_effects_equal_one_ablated_pass_per_head(name, mode):
    model, target, reference = small(CONFIGS[name]), 8, [1, 2, 3, 4, 5]
    effects = I.head_effects(model, IDS, target, mode=mode, reference_ids=reference)
    assert effects.effects.shape == (3, 4)
    assert effects.clean_log_prob == pytest.approx(log_p(plain_logits(model, IDS)[-1], target), abs=1e-5)
    naive = np.array([[log_p(I.ablate_heads(model, IDS, [(layer, head)], mode, reference).logits[-1], target)
                       for head in range(4)] for layer in range(3)])
    np.testing.assert_allclose(effects.ablated_log_probs, naive, atol=1e-4)
    np.testing.assert_allclose(effects.effects, naive - effects.clean_log_prob, atol=1e-4)
    ranking = effects.ranking()
    assert len(ranking) == 12 and [e for _, _, e in ranking] == sorted(e for _, _, e in ranking)


# --- attribution: every head's effect from one forward and one backward pass -------------------------------

def linear_in_the_heads(seed: int = 0) -> TransformerLM:
    """A model whose last logits are a linear function of every head's output z: no LayerNorm, an FFN that
    outputs 0, and W_q = 0, so every head spreads its weight evenly over the keys whatever the input."""
    config = dataclasses.replace(PRE_LEARNED, layer_norm="none", final_norm=False)
    model = small(config, seed)
    with torch.no_grad():
        for block in model.blocks:
            block.attention.W_qkv.weight[:config.d_model] = 0.0
            block.attention.W_qkv.bias[:config.d_model] = 0.0
            block.feed_forward.W_2.weight.zero_()
            block.feed_forward.W_2.bias.zero_()
            block.attention.W_o.weight.mul_(50.0)           # heads that move the logits by whole units
    return model


@pytest.mark.parametrize("mode", I.MODES)
def test_attribution_is_the_exact_effect_where_the_output_is_linear_in_the_heads(mode):
    """For a metric linear in every z (the target's logit in a model linear in its heads), the first-order
    estimate is no estimate: it equals one ablated pass per head, to float tolerance."""
    model, target, reference = linear_in_the_heads(), 8, [1, 2, 3, 4, 5]
    runner = I._runner(model)
    clean, estimate = I._attribution(runner, IDS, lambda last: last[target], mode, reference)
    assert clean == pytest.approx(float(plain_logits(model, IDS)[-1, target]), abs=1e-4)
    exact = np.array([[I.ablate_heads(model, IDS, [(layer, head)], mode, reference).logits[-1, target] - clean
                       for head in range(4)] for layer in range(3)])
    assert np.abs(exact).max() > 1.0                       # the heads matter: the test is not 0 == 0
    np.testing.assert_allclose(estimate, exact, rtol=1e-4, atol=1e-4)


def test_attribution_is_not_exact_through_a_softmax_but_ranks_like_the_exact_scan():
    """Through ln P (a softmax) the estimate differs from the exact effect; on a small model it still ranks the
    heads alike. Mean ablation without a reference text uses the prompt's own mean, as head_effects does."""
    model, target = small(PRE_LEARNED), 8
    for mode in I.MODES:
        estimated = I.head_attribution(model, IDS, target, mode=mode)
        exact = I.head_effects(model, IDS, target, mode=mode)
        assert estimated.estimated and not exact.estimated
        assert estimated.clean_log_prob == pytest.approx(exact.clean_log_prob, abs=1e-6)
        np.testing.assert_allclose(estimated.ablated_log_probs, estimated.clean_log_prob + estimated.effects)
        assert not np.allclose(estimated.effects, exact.effects, atol=1e-3)
        assert spearman(estimated.effects.ravel(), exact.effects.ravel()) > 0.5


def test_attribution_checks_its_input_as_the_exact_scan_does():
    model = small(PRE_LEARNED)
    with pytest.raises(ValueError, match="'zero'"):
        I.head_attribution(model, IDS, 8, mode="half")
    with pytest.raises(ValueError):
        I.head_attribution(model, IDS, 99)
    with pytest.raises(ValueError):
        I.head_attribution(model, [], 8)


# --- activation patching --------------------------------------------------------------------------------

def logit_difference(logits: np.ndarray, good: int, bad: int) -> float:
    return float(logits[-1, good] - logits[-1, bad])


@pytest.mark.parametrize("name", CONFIGS)
def test_patching_every_cell_equals_one_patched_run(name):
    model, good, bad = small(CONFIGS[name]), 8, 12
    result = I.activation_patching(model, IDS, OTHER, good, bad)
    assert result.restored.shape == (4, len(IDS))
    assert result.clean_logit_diff == pytest.approx(logit_difference(plain_logits(model, IDS), good, bad), abs=1e-4)
    assert result.corrupt_logit_diff == pytest.approx(logit_difference(plain_logits(model, OTHER), good, bad),
                                                      abs=1e-4)
    for layer in range(4):
        for t in range(len(IDS)):
            naive = logit_difference(I.patch_residual(model, IDS, OTHER, layer, [t]), good, bad)
            assert result.patched_logit_diff[layer, t] == pytest.approx(naive, abs=1e-4), (layer, t)
    np.testing.assert_allclose(result.restored,
                               (result.patched_logit_diff - result.corrupt_logit_diff)
                               / (result.clean_logit_diff - result.corrupt_logit_diff))
    if CONFIGS[name].causal:                 # before the changed token both runs are the same: nothing to restore
        assert np.all(result.restored[:, :3] == 0)


@pytest.mark.parametrize("name", CONFIGS)
def test_patching_the_whole_embedding_or_the_last_position_at_the_end_restores_the_clean_run(name):
    model = small(CONFIGS[name])
    every = I.patch_residual(model, IDS, OTHER, 0, range(len(IDS)))
    np.testing.assert_allclose(every, plain_logits(model, IDS), atol=1e-4)
    result = I.activation_patching(model, IDS, OTHER, 8, 12)
    assert result.restored[-1, -1] == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(result.restored[-1, :-1], 0.0, atol=1e-5)   # at the end only the last row is read


# --- bad input: a sentence each ----------------------------------------------------------------------------

def test_unknown_heads_and_layers_say_the_valid_ranges():
    model = small()
    with pytest.raises(ValueError, match="Layer 3 does not exist: layers run from 0 to 2"):
        I.ablate_heads(model, IDS, [(3, 0)])
    with pytest.raises(ValueError, match="Head 4 does not exist: each layer has heads 0 to 3"):
        I.ablate_heads(model, IDS, [(0, 4)])
    with pytest.raises(ValueError, match=r"\(layer, head\) pair"):
        I.ablate_heads(model, IDS, [0])
    with pytest.raises(ValueError, match="'zero'.*'mean'"):
        I.ablate_heads(model, IDS, [(0, 0)], mode="half")
    with pytest.raises(ValueError, match="rows run from 0 \\(the embedding\\) to 3"):
        I.patch_residual(model, IDS, OTHER, 4, [0])


def test_bad_ids_texts_and_models_are_sentences():
    model = small()
    with pytest.raises(ValueError, match="at least 1 token"):
        I.logit_lens(model, [])
    with pytest.raises(ValueError, match="outside the vocabulary"):
        I.logit_lens(model, [1, 40])
    with pytest.raises(ValueError, match="at most 32"):              # the model's context
        I.logit_lens(model, [1] * 33)
    with pytest.raises(ValueError, match="no tokenizer"):
        I.logit_lens(model, "abc")
    with pytest.raises(ValueError, match="Type some text"):
        I.logit_lens(letters_lm(), "  ")
    with pytest.raises(ValueError, match="between 1 and"):
        I.logit_lens(model, IDS, k=0)
    with pytest.raises(ValueError, match="TransformerLM; got str"):
        I.logit_lens("a model", IDS)
    model.train()
    with pytest.raises(ValueError, match=r"model\.train\(False\)"):
        I.logit_lens(model, IDS)


def test_patching_refuses_prompts_of_different_lengths_and_equal_targets():
    model = small()
    with pytest.raises(ValueError, match="the clean one has 8, the corrupted one 7"):
        I.activation_patching(model, IDS, OTHER[:7], 8, 12)
    with pytest.raises(ValueError, match="same token"):
        I.activation_patching(model, IDS, OTHER, 8, 8)
    with pytest.raises(ValueError, match="nothing to restore"):
        I.activation_patching(model, IDS, IDS, 8, 12)


def test_over_limit_prompts_are_refused(monkeypatch):
    big = small(dataclasses.replace(PRE_LEARNED, context_length=128))
    with pytest.raises(ValueError, match=f"at most {limits.INTERVENTION_MAX_TOKENS}"):
        I.ablate_heads(big, [1] * (limits.INTERVENTION_MAX_TOKENS + 1))
    with pytest.raises(ValueError, match=f"at most {limits.HEAD_EFFECTS_MAX_TOKENS}"):
        I.head_effects(big, [1] * (limits.HEAD_EFFECTS_MAX_TOKENS + 1), 2)
    monkeypatch.setattr(limits, "PATCHING_MAX_CELLS", 20)
    with pytest.raises(ValueError, match="4 layers x 8 positions is 32 runs; the limit here is 20"):
        I.activation_patching(big, IDS, OTHER, 8, 12)


def letters_lm() -> TransformerLanguageModel:
    """A small model of 27 characters, with its tokenizer: texts in, tokens out."""
    letters = CharTokenizer.from_text("abcdefghijklmnopqrstuvwxyz ")
    return TransformerLanguageModel(small(dataclasses.replace(PRE_LEARNED, vocab_size=27)), letters)


def test_a_target_must_be_one_token():
    lm = letters_lm()
    letters = lm.tokenizer
    assert I.single_token(letters, "e") == letters.encode("e")[0]
    with pytest.raises(ValueError, match="'ab' becomes 2 tokens: 'a', 'b'"):
        I.single_token(letters, "ab")
    with pytest.raises(ValueError, match=r"Type the target character \(one character, for example 'e'"):
        I.single_token(letters, "")                                 # a character model: no ' Paris' in its hint
    with pytest.raises(ValueError, match="'xy' becomes 2 tokens"):
        I.head_effects(lm, "the cat", "xy")
    effects = I.head_effects(lm, "the cat", " ")
    assert effects.target_token == " " and effects.tokens == list("the cat")
    with pytest.raises(ValueError, match="outside the vocabulary"):
        I.head_effects(lm, "the cat", 27)


# --- the copying probe ------------------------------------------------------------------------------------

def test_copying_probe_losses_are_the_plain_passes():
    model = small()
    probe = I.copying_probe(model, 12, seed=3)
    assert len(probe.ids) == 24 and probe.ids[:12] == probe.ids[12:]
    expected = [-log_p(row, target) for row, target in zip(plain_logits(model, probe.ids)[:-1], probe.ids[1:])]
    np.testing.assert_allclose(probe.losses, expected, atol=1e-4)
    assert probe.first_copy == slice(0, 11) and probe.second_copy == slice(12, 23)
    assert probe.second_copy_loss == pytest.approx(float(np.mean(expected[12:23])))
    ablated = I.copying_probe(model, 12, seed=3, heads_to_ablate=[(0, 0)])
    assert ablated.heads_ablated == ((0, 0),) and not np.allclose(ablated.losses, probe.losses)


# --- SmolLM2 ---------------------------------------------------------------------------------------------

smollm2 = test_pretrained.model            # the session's SmolLM2 on one torch thread; skips without its weights

def test_smollm2_logit_lens_ends_on_its_own_prediction_of_lamb(smollm2):
    lens = I.logit_lens(smollm2, "Mary had a little", target=" lamb")
    own = torch.log_softmax(torch.from_numpy(smollm2.forward(lens.ids).logits), dim=-1)
    np.testing.assert_allclose(lens.top_log_probs[-1], torch.topk(own, 5, dim=-1).values.numpy(), atol=1e-4)
    assert lens.top_tokens[-1, -1, 0] == " lamb" and lens.target_ranks[-1, -1] == 0
    assert lens.top_tokens[0, -1, 0] == " little"     # tied embeddings: x_0 reads as its own token
    row = lens.first_top_layer(lens.target)
    print(f"\n' lamb' is top-1 from row {row} ({lens.layers[row]}); "
          f"its rank by row: {lens.target_ranks[:, -1].tolist()}")


def test_smollm2_zeroed_head_is_its_rows_of_w_o_set_to_zero(smollm2):
    ids = smollm2.encode_text("Mary had a little")[0]
    np.testing.assert_allclose(I.ablate_heads(smollm2, ids).logits, smollm2.forward(ids).logits, atol=1e-4)
    layer, head, d_k = 3, 4, smollm2.config.d_k
    changed = copy.copy(smollm2)
    changed.blocks = list(smollm2.blocks)
    W_o = smollm2.blocks[layer].W_o.clone()                      # (h d_k, d): head j's z meets rows j d_k ..
    W_o[head * d_k:(head + 1) * d_k] = 0.0
    changed.blocks[layer] = dataclasses.replace(smollm2.blocks[layer], W_o=W_o)
    np.testing.assert_allclose(I.ablate_heads(smollm2, ids, [(layer, head)]).logits, changed.forward(ids).logits,
                               atol=1e-3)


def test_smollm2_head_effects_on_lamb_equal_single_ablations(smollm2):
    effects = I.head_effects(smollm2, "Mary had a little", " lamb")
    assert effects.effects.shape == (30, 9)
    for layer, head in [(0, 0), (2, 7), (17, 4), (29, 8)]:
        alone = I.ablate_heads(smollm2, effects.ids, [(layer, head)]).next_token_log_probs[effects.target]
        assert effects.ablated_log_probs[layer, head] == pytest.approx(alone, abs=1e-3)
    print(f"\nln P(' lamb') = {effects.clean_log_prob:.2f}; largest drops: "
          + ", ".join(f"L{layer}H{head} {effect:+.2f}" for layer, head, effect in effects.ranking(5)))


def test_smollm2_patching_eiffel_tower_into_colosseum(smollm2):
    clean, corrupt = "The Eiffel Tower is in the city of", "The Colosseum is in the city of"
    result = I.activation_patching(smollm2, clean, corrupt, " Paris", " Rome")
    assert result.restored.shape == (31, 10)
    assert result.clean_logit_diff > 0 > result.corrupt_logit_diff
    assert result.restored[-1, -1] == pytest.approx(1.0, abs=1e-4)
    every = I.patch_residual(smollm2, clean, corrupt, 0, range(10))
    np.testing.assert_allclose(every, smollm2.forward(smollm2.encode_text(clean)[0]).logits, atol=1e-3)
    for layer, t in [(0, 3), (12, 3), (24, 9)]:
        naive = logit_difference(I.patch_residual(smollm2, clean, corrupt, layer, [t]), result.clean_target,
                                 result.corrupt_target)
        assert result.patched_logit_diff[layer, t] == pytest.approx(naive, abs=1e-3)
    assert result.restored[5, 3] > 0.5 and result.restored[-2, -1] > 0.5     # the subject early, the answer late
    with pytest.raises(ValueError, match="the clean one has 10, the corrupted one 9"):
        I.activation_patching(smollm2, clean, "The Colosseum is in the city", " Paris", " Rome")


def test_smollm2_patching_in_one_pass_per_block_gives_the_numbers_of_one_batch_per_position(smollm2):
    """activation_patching packs every position's copies into one matrix per block (_patched_packed); the loop it
    replaced ran one batch per position through the model's own block (_patched_by_position). Same numbers."""
    clean, corrupt = "The capital of France is", "The capital of Italy is"
    result = I.activation_patching(smollm2, clean, corrupt, " Paris", " Rome")
    runner = I._runner(smollm2)
    clean_ids, corrupt_ids = I._same_length(runner, clean, corrupt)

    def logit_diff(x):
        last = runner.logits(x[..., -1, :]).double()
        return last[..., result.clean_target] - last[..., result.corrupt_target]

    with torch.inference_mode():
        clean_stream = I._stream(runner, clean_ids)
        corrupt_stream, keys = runner.stream_with_keys(corrupt_ids)
        differs = (clean_stream != corrupt_stream).any(dim=-1)
        positions = torch.nonzero(differs.any(dim=0))[:, 0].tolist()
        by_position = I._patched_by_position(runner, clean_stream, corrupt_stream, keys, positions, logit_diff)
    assert positions == [4, 5]                                  # ' France' / ' Italy', and ' is' after it
    shown = result.patched_logit_diff[:, positions]
    ran = differs[:, positions].numpy()
    np.testing.assert_allclose(shown[ran], by_position[ran], atol=2e-4)
    assert np.all(shown[~ran] == result.corrupt_logit_diff)     # cells where both runs agree: nothing to patch


def test_packed_patching_of_a_random_llama_equals_one_patched_run_per_cell(tmp_path):
    """_patched_packed on a small random Llama: positions that join at the embedding (their tokens differ) and
    after block 0 (the same token, read after a different one), the last position among them, cells skipped
    where both runs agree. Every cell equals the corrupted run with the clean row put in and run on."""
    from engine.pretrained import smollm2 as P
    from tests.gguf_models import Shape, write_llama

    model = P.load(write_llama(tmp_path / "random.gguf", Shape(n_layer=4, n_head=4, n_kv_head=2), seed=3))
    clean, corrupt = [0, 5, 6, 7, 8, 9, 10, 11], [0, 5, 20, 7, 8, 21, 10, 22]     # tokens 2, 5 and 7 differ
    result = I.activation_patching(model, clean, corrupt, 30, 40)
    ran = result.patched_logit_diff != result.corrupt_logit_diff
    assert ran[0].tolist() == [False, False, True, False, False, True, False, True]
    assert ran[1, 3] and ran[1, 4] and not ran[:, :2].any()
    for layer in range(5):
        for t in range(8):
            naive = logit_difference(I.patch_residual(model, clean, corrupt, layer, [t]), 30, 40)
            assert result.patched_logit_diff[layer, t] == pytest.approx(naive, abs=1e-4), (layer, t)


def test_smollm2_targets_name_their_tokens(smollm2):
    assert I.single_token(smollm2.tokenizer, " Paris") == smollm2.tokenizer.encode(" Paris")[0]
    with pytest.raises(ValueError, match="'Parisian' becomes 2 tokens: 'Paris', 'ian'"):
        I.single_token(smollm2.tokenizer, "Parisian")
    with pytest.raises(ValueError, match="' lamb', with the space it has after another word, is one token"):
        I.single_token(smollm2.tokenizer, "lamb")


def test_smollm2_copies_and_its_induction_heads_do_it(smollm2):
    from engine.interpret import heads
    from engine.machinery import prepare

    scores = prepare.induction_scores()                      # engine.interpret.heads.induction_probe, cached
    order = np.argsort(-scores, axis=None)[:5]
    induction = [(int(i) // scores.shape[1], int(i) % scores.shape[1]) for i in order]
    assert all(scores[pair] >= heads.THRESHOLDS["induction"] for pair in induction)
    probe = I.copying_probe(smollm2, 30, seed=1)
    ablated = I.copying_probe(smollm2, 30, seed=1, heads_to_ablate=induction)
    assert probe.second_copy_loss < probe.first_copy_loss / 4
    assert ablated.second_copy_loss > probe.second_copy_loss + 1.0
    print(f"\ncopying probe (30 random tokens twice), nats per token: first copy {probe.first_copy_loss:.2f}, "
          f"second copy {probe.second_copy_loss:.2f}; with the induction heads {induction} ablated: second copy "
          f"{ablated.second_copy_loss:.2f}")


# --- watching heads form ----------------------------------------------------------------------------

def test_head_formation_scores_every_head_and_agrees_with_the_copying_probe():
    model = small()
    point = I.head_formation(model, step=7, length=8, seed=3)
    probe = I.copying_probe(model, 8, 3)
    shape = (PRE_LEARNED.n_layers, PRE_LEARNED.n_heads)
    assert point.step == 7 and point.induction.shape == point.previous_token.shape == shape
    assert np.all((0 <= point.previous_token) & (point.previous_token <= 1))
    assert point.first_copy_loss == pytest.approx(probe.first_copy_loss, abs=1e-6)
    assert point.second_copy_loss == pytest.approx(probe.second_copy_loss, abs=1e-6)
    layer, head, score = point.strongest("induction")
    assert score == point.induction.max() == point.induction[layer, head]
    with pytest.raises(ValueError, match="probe's random sequence"):
        I.head_formation(model, step=0, length=1)


def test_training_with_a_probe_records_one_look_per_evaluation_and_keeps_the_mode():
    from engine.transformer.training import TrainConfig, train

    model = TransformerLM(PRE_LEARNED)
    ids = np.random.default_rng(0).integers(0, PRE_LEARNED.vocab_size, 2_000)
    seen = []
    result = train(model, ids, ids, TrainConfig(batch_size=4, max_steps=6, eval_every=3, eval_batches=1),
                   probe=I.head_formation, on_probe=seen.append)
    assert [point.step for point in result.probes] == result.eval_steps == [3, 6]
    assert seen == result.probes
