"""engine.chapter.heads: the head viewer's one token limit, its head fitted to the model, its link's model name."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from engine import limits
from engine.chapter.heads import PAGE, fitted, head_view, read_heads
from engine.interpret import heads
from engine.pretrained.llama import DEFAULT_NAME


def a_pass(T: int, n_layer: int = 2, n_head: int = 3):
    """A pass of T tokens, every head looking back one token (the first at itself), scored as the page scores it."""
    alpha = np.zeros((n_layer, n_head, T, T))
    alpha[..., 0, 0] = 1.0
    for i in range(1, T):
        alpha[..., i, i - 1] = 1.0
    ids = list(range(T))
    return SimpleNamespace(tokens=[f"t{i}" for i in ids], ids=ids, weights=alpha), heads.score_heads(alpha, ids)


def test_every_front_end_reads_the_one_token_limit():
    asked = []
    model = SimpleNamespace(forward_text=lambda text, **kw: asked.append(kw) or "pass")
    assert read_heads(model, "any text") == "pass"
    assert asked == [{"max_tokens": limits.HEAD_VIEWER_MAX_TOKENS, "all_logits": False}]
    assert not hasattr(limits, "GRADIO_HEAD_MAX_TOKENS")          # one limit, for both front ends


def test_a_pass_past_the_limit_is_refused_whoever_made_it():
    values = PAGE.defaults() | {"layer": 1, "head": 2}
    view = head_view(values, *a_pass(limits.HEAD_VIEWER_MAX_TOKENS))
    assert (view.layer, view.head, view.kind) == (1, 2, "previous-token") and len(view.tokens) == 40
    with pytest.raises(ValueError, match=f"at most {limits.HEAD_VIEWER_MAX_TOKENS} tokens"):
        head_view(values, *a_pass(limits.HEAD_VIEWER_MAX_TOKENS + 1))


@pytest.mark.parametrize("layer, head, on_smollm2, on_a_small_model", [
    (3, 1, (3, 1), (1, 1)), (99, 1, (16, 1), (1, 1)), (-1, 20, (16, 0), (1, 0)), (29, 8, (29, 8), (1, 0)),
])
def test_a_head_the_model_lacks_goes_back_to_the_default(layer, head, on_smollm2, on_a_small_model):
    """As the page opens it: a layer or head the model lacks goes to the default (16, 0), or to the model's last
    where the default is beyond it (a model of 2 layers x 4 heads)."""
    assert fitted({"layer": layer, "head": head}, 30, 9) == on_smollm2
    assert fitted({"layer": layer, "head": head}, 2, 4) == on_a_small_model


def test_the_link_names_a_model_that_is_here(monkeypatch, tmp_path):
    monkeypatch.delenv("PLAYGROUND_MODELS", raising=False)
    assert PAGE.values({"model": "no-such-model"})["model"] == DEFAULT_NAME
    (tmp_path / "mine.gguf").write_bytes(b"")
    monkeypatch.setenv("PLAYGROUND_MODELS", str(tmp_path))
    assert PAGE.values({"model": "mine"})["model"] == "mine"
