"""Reading every head of a TransformerLM: weights equal the model's own, habits measured right."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from engine import limits  # noqa: E402
from engine.transformer.config import TransformerConfig  # noqa: E402
from engine.transformer.model import TransformerLM  # noqa: E402
from engine.transformer.shipped_model import SHIPPED_CHECKPOINT, head_weights, shipped_available  # noqa: E402
from engine.language.tokenizers import CharTokenizer  # noqa: E402

TOKENIZER = CharTokenizer(tuple(" ,abehnortT"))


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=TOKENIZER.vocab_size, context_length=32, d_model=16, n_heads=4, d_ff=32,
                               n_layers=2, positional="learned", layer_norm="pre", final_norm=True)
    return TransformerLM(config).eval()


def test_weights_are_the_models_own_and_causal(model):
    heads = head_weights(model, TOKENIZER, "To be, or not to be")
    assert heads.weights.shape == (2, 4, 19, 19) and heads.tokens[0] == "T"
    np.testing.assert_allclose(heads.weights.sum(axis=-1), 1.0, atol=1e-6)
    assert np.all(np.triu(heads.weights, k=1) == 0)          # nothing from the future
    trace = model.trace(torch.tensor([TOKENIZER.encode("To be, or not to be")]))
    np.testing.assert_allclose(heads.weights[1, 2], trace.attention_weights[1][0, 2].numpy(), atol=1e-7)


def test_habits_are_means_of_the_right_diagonals(model):
    heads = head_weights(model, TOKENIZER, "to be or not")
    w = heads.weights[0, 1]
    T = w.shape[0]
    assert heads.previous_share[0, 1] == pytest.approx(np.mean([w[i, i - 1] for i in range(1, T)]))
    assert heads.self_share[0, 1] == pytest.approx(np.mean([w[i, i] for i in range(1, T)]))
    assert heads.first_share[0, 1] == pytest.approx(np.mean([w[i, 0] for i in range(1, T)]))
    share, name, block, head = heads.strongest_habit()
    assert share == max(float(v.max()) for v in heads.habits.values())
    assert share == pytest.approx(heads.habits[name][block - 1, head - 1])
    one = head_weights(model, TOKENIZER, "t")
    assert one.self_share.min() == 1.0 and one.weights.shape == (2, 4, 1, 1)


def test_bad_text_is_a_sentence(model):
    with pytest.raises(ValueError, match="empty"):
        head_weights(model, TOKENIZER, "")
    with pytest.raises(ValueError, match="limit here"):
        head_weights(model, TOKENIZER, "a" * (limits.MAX_HEAD_VIEW_CHARS + 1))
    with pytest.raises(ValueError):
        head_weights(model, TOKENIZER, "to be? {}")


@pytest.mark.skipif(not shipped_available(), reason="the shipped checkpoint is not in assets/ yet")
def test_the_shipped_model_loads_and_reads_a_line():
    from engine.transformer.training import load_checkpoint

    model, notes = load_checkpoint(SHIPPED_CHECKPOINT)
    heads = head_weights(model, CharTokenizer(tuple(notes["vocabulary"])), "To be, or not to be")
    assert heads.n_heads == model.config.n_heads and heads.n_layers == model.config.n_layers
    np.testing.assert_allclose(heads.weights.sum(axis=-1), 1.0, atol=1e-5)
