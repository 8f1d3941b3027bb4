"""engine.pretrained.weight_formats: SmolLM2's matrices in bfloat16, int8 or the file's own 4-bit numbers, how far
their logits are from float32's, and the sampler that draws with them while every number shown stays float32's."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from engine import lm
from engine.pretrained import smollm2 as P
from engine.pretrained import weight_formats as W
from tests.engine.pretrained import test_smollm2 as test_pretrained

smollm2 = test_pretrained.model            # the session's SmolLM2 on one torch thread; skips without its weights


@pytest.mark.parametrize("number_format, tolerance", [("bfloat16", 0.02), ("int8", 0.05)])
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
    with pytest.raises(ValueError, match="float32, bfloat16, int8, int4"):
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


def test_each_format_s_logits_on_the_pages_prompts_and_the_sampling_format_within_the_stated_tolerance(smollm2):
    errors = {name: W.largest_logit_error(smollm2, W.formatted(smollm2, name)) for name in W.FORMATS[1:]}
    print("\nlargest |logit - float32 logit| on the pages' prompts: "
          + ", ".join(f"{name} {error:.3f}" for name, error in errors.items()))
    assert all(error > 0 for error in errors.values())   # each format does change the numbers
    assert errors["int8"] > W.FORMAT_LOGIT_TOLERANCE       # why the pages do not sample in int8 (the module says)
    assert errors["bfloat16"] > W.FORMAT_LOGIT_TOLERANCE   # ... nor in bfloat16
    assert errors["int4"] <= W.FORMAT_LOGIT_TOLERANCE       # the file's own numbers: float32's, summed in another order
    if W.SAMPLING_FORMAT != "float32":
        assert errors[W.SAMPLING_FORMAT] <= W.FORMAT_LOGIT_TOLERANCE


def test_the_file_s_own_numbers_draw_float32_s_tokens_on_the_generate_page_s_default(smollm2):
    """The Generate page's default sample (20 tokens, T = 0.8, top-k 40, seed 0): the same text either way."""
    prompt = smollm2.encode_text("Once upon a time")[0]
    drawn = {name: W.formatted(smollm2, name).sample(20, seed=0, temperature=0.8, top_k=40, prompt=prompt)
             for name in ("float32", "int4")}
    assert drawn["float32"] == drawn["int4"]


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
