"""engine.pretrained.weight_formats: SmolLM2's matrices in float16, bfloat16, int8 or the file's own 4-bit numbers,
how far their next-token distributions are from float32's, and the sampler that draws with them while every number
shown stays float32's."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from engine import limits, lm
from engine.pretrained import smollm2 as P
from engine.pretrained import weight_formats as W
from tests.engine.pretrained import test_smollm2 as test_pretrained

smollm2 = test_pretrained.model            # the session's SmolLM2 on one torch thread; skips without its weights


@pytest.mark.parametrize("number_format, tolerance", [("float16", 1e-3), ("bfloat16", 0.02), ("int8", 0.05)])
def test_a_matrix_in_another_format_multiplies_as_the_float32_one_within_its_precision(number_format, tolerance):
    generator = torch.Generator().manual_seed(0)
    x, weights = torch.randn(7, 64, generator=generator), torch.randn(64, 96, generator=generator)
    exact = x @ weights
    approximate = x @ W.Matrix(weights, number_format)
    assert approximate.dtype == torch.float32 and approximate.shape == exact.shape
    relative = float((approximate - exact).abs().max() / exact.abs().max())
    assert 0 < relative < tolerance, relative            # not float32 itself, and close to it


def test_unknown_formats_are_sentences(smollm2):
    assert W.formatted(smollm2, "float32") is smollm2
    with pytest.raises(ValueError, match="float32, float16, bfloat16, int8, int4"):
        W.formatted(smollm2, "int2")


def test_the_file_s_4_bit_numbers_multiply_as_the_float32_weights_dequantized_from_them(smollm2):
    """int4 packs the GGUF file's own Q4_1 blocks (and the Q8_0 output layer): the same numbers as the float32
    weights, so a product differs only by the order of its sums (float32 rounding), far below bfloat16's 0.4 %."""
    fast = W.formatted(smollm2, "int4")
    generator = torch.Generator().manual_seed(0)
    for layer in (0, 17, 29):
        for name in W.MATRICES:
            exact = getattr(smollm2.blocks[layer], name)
            x = torch.randn(5, exact.shape[0], generator=generator)
            product = x @ getattr(fast.blocks[layer], name)
            assert product.dtype == torch.float32 and product.shape == (5, exact.shape[1])
            relative = float((product - x @ exact).abs().max() / (x @ exact).abs().max())
            assert relative < 1e-5, (layer, name, relative)
    x = torch.randn(2, 3, smollm2.config.d_model, generator=generator)
    logits = x @ fast.output_matrix
    exact = x @ smollm2.output.T
    assert logits.shape == exact.shape and float((logits - exact).abs().max() / exact.abs().max()) < 1e-5


def test_the_4_bit_format_needs_a_file_stored_in_q4_1_blocks(smollm2):
    unknown = copy.copy(smollm2)
    unknown.path = None                                    # a model whose file is not known (or not Q4_1)
    with pytest.raises(ValueError, match="Q4_1 matrices and a Q8_0 output layer"):
        W.formatted(unknown, "int4")


def test_the_distance_between_distributions_is_half_the_summed_difference_of_probabilities(smollm2):
    """closeness against numpy on one prompt, with a format whose logits differ from float32's by a known shift."""
    class Shifted(W.FormattedLlama):
        def logits(self, x):
            z = smollm2.logits(x)
            return z + torch.where(torch.arange(z.shape[-1]) == 3, 2.0, 0.0)      # token 3's score raised by 2

    shifted = Shifted.__new__(Shifted)
    shifted.__dict__.update(smollm2.__dict__)
    prompt = ("Once upon a time",)
    close = W.closeness(smollm2, shifted, prompt)
    ids = smollm2.encode_text(prompt[0])[0]
    z = smollm2.logits(smollm2._run(ids, keep_weights=False, keep_hidden=False)[0]).double().numpy()
    P = np.exp(z - z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    Q = P.copy()
    Q[:, 3] *= np.e ** 2
    Q /= Q.sum(axis=1, keepdims=True)
    assert close.largest_distance == pytest.approx(0.5 * np.abs(P - Q).sum(axis=1).max(), rel=1e-9)
    assert close.largest_logit_error == pytest.approx(2.0, abs=1e-5) and close.same_top_tokens
    assert W.closeness(smollm2, smollm2, prompt) == W.Closeness(0.0, True, 0.0)


def test_each_format_s_distance_on_the_pages_prompts_and_the_sampling_format_within_the_stated_limit(smollm2):
    close = {name: W.closeness(smollm2, W.formatted(smollm2, name)) for name in W.FORMATS[1:]}
    print("\nlargest total variation distance from float32 at T = 1 on the pages' prompts: "
          + ", ".join(f"{name} {c.largest_distance:.4f}" for name, c in close.items()))
    assert all(c.largest_logit_error > 0 and c.largest_distance > 0 for c in close.values())   # each one changes them
    assert not close["int8"].may_sample                  # why the pages do not sample in int8 (the module says)
    assert not close["bfloat16"].may_sample              # ... nor in bfloat16
    assert close["int4"].may_sample and close["int4"].largest_logit_error < 0.01   # float32's numbers, reordered sums
    assert close["float16"].largest_distance < limits.SAMPLING_FORMAT_MAX_TVD / 2   # with room to spare
    if W.SAMPLING_FORMAT != "float32":
        assert close[W.SAMPLING_FORMAT].may_sample


def test_the_file_s_own_numbers_and_float16_draw_float32_s_tokens_on_the_generate_page_s_default(smollm2):
    """The Generate page's default sample (20 tokens, T = 0.8, top-k 40, seed 0): the same text either way."""
    prompt = smollm2.encode_text("Once upon a time")[0]
    drawn = {name: W.formatted(smollm2, name).sample(20, seed=0, temperature=0.8, top_k=40, prompt=prompt)
             for name in ("float32", "int4", "float16")}
    assert drawn["float32"] == drawn["int4"] == drawn["float16"]


@pytest.mark.parametrize("number_format", W.FORMATS[1:])
def test_a_sample_drawn_in_another_format_shows_float32_probabilities(smollm2, number_format):
    """The tokens come from the cheaper format; every P the page prints is float32's for those tokens."""
    fast = W.formatted(smollm2, number_format)
    generation = P.sample_text("Once upon a time", max_new_tokens=6, temperature=0.8, top_k=40, seed=3,
                               model=smollm2, sampler=fast)
    context = smollm2.encode_text("Once upon a time", keep="end")[0]
    for step in generation.steps:
        reshaped = lm.apply_temperature_top_k(smollm2.next_token_probs(context), 0.8, 40)
        assert step.probability == pytest.approx(reshaped[step.token_id], abs=1e-5)
        np.testing.assert_allclose(step.top_probabilities, np.sort(reshaped)[::-1][:5], atol=1e-5)
        context.append(step.token_id)
    drawn_alone = fast.sample(6, seed=3, temperature=0.8, top_k=40,
                              prompt=smollm2.encode_text("Once upon a time", keep="end")[0])
    assert [step.token_id for step in generation.steps] == drawn_alone
