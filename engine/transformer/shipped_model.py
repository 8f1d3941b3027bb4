"""Every head of a trained TransformerLM on one short text: the weights alpha (layer, head, T, T).

The multi-head page shows what trained heads do with the small character-level model the app
ships (data/shakespeare_char.*, package data, trained by bench/ship_checkpoint.py, loaded by
ui.loaders.shipped_transformer). Each head m of block l
computes alpha_lm = softmax(Q_m K_m^T / sqrt(d_k)) with a causal mask; we also measure three
simple habits per head: weight on the previous character, on itself, and on the first one.
Imports torch (through engine.transformer.model), so only the page section that needs it loads this module.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import numpy as np

from engine.i18n import _
from engine import limits

SHIPPED_CHECKPOINT = Path(files("engine.transformer") / "data" / "shakespeare_char")   # .safetensors + .json


@dataclass(frozen=True)
class HeadWeights:
    """alpha for every layer and head on one text, and each head's habits."""
    tokens: list[str]              # the characters, one per position
    weights: np.ndarray            # (L, h, T, T): weights[l, m, i, j] = alpha of head m of block l, i attends to j
    previous_share: np.ndarray     # (L, h) mean over i >= 1 of alpha[i, i-1]
    self_share: np.ndarray         # (L, h) mean over i >= 1 of alpha[i, i]
    first_share: np.ndarray        # (L, h) mean over i >= 1 of alpha[i, 0]

    @property
    def n_layers(self) -> int:
        return self.weights.shape[0]

    @property
    def n_heads(self) -> int:
        return self.weights.shape[1]

    @property
    def habits(self) -> dict[str, np.ndarray]:
        """Each habit's (L, h) mean weight, named as a page says it."""
        return {"on the previous character": self.previous_share, "on itself": self.self_share,
                "on the first character": self.first_share}

    def strongest_habit(self) -> tuple[float, str, int, int]:
        """(mean weight, habit, block, head), blocks and heads counted from 1: the head most given to one habit."""
        best = []
        for name, share in self.habits.items():
            block, head = np.unravel_index(np.argmax(share), share.shape)
            best.append((float(share[block, head]), name, int(block) + 1, int(head) + 1))
        return max(best)


def shipped_available(path: Path = SHIPPED_CHECKPOINT) -> bool:
    """Whether the shipped checkpoint's two files are in assets/."""
    return path.with_suffix(".safetensors").is_file() and path.with_suffix(".json").is_file()


def head_weights(model, tokenizer, text: str) -> HeadWeights:
    """Run the text through the model's explicit attention path and keep alpha for every head."""
    import torch

    if not text:
        raise ValueError(_("The text is empty: type a few characters, for example 'To be, or not to be'."))
    if len(text) > limits.MAX_HEAD_VIEW_CHARS:
        raise ValueError(_("The text has {n} characters; the limit here is {most} (every head draws a T x T grid).",
                           n=len(text), most=limits.MAX_HEAD_VIEW_CHARS))
    ids = tokenizer.encode(text)              # ValueError naming a character the model never saw
    if len(ids) > model.config.context_length:
        raise ValueError(_("The model reads at most {n} characters at once.", n=model.config.context_length))
    trace = model.trace(torch.tensor([ids]))
    weights = torch.stack([w[0] for w in trace.attention_weights]).numpy().astype(float)   # (L, h, T, T)
    T = weights.shape[-1]
    later = np.arange(1, T)
    if T > 1:
        previous = weights[..., later, later - 1].mean(axis=-1)
        itself = weights[..., later, later].mean(axis=-1)
        first = weights[..., later, 0].mean(axis=-1)
    else:
        previous = first = np.zeros(weights.shape[:2])
        itself = np.ones(weights.shape[:2])
    return HeadWeights(tokens=list(text), weights=weights, previous_share=previous, self_share=itself,
                       first_share=first)
