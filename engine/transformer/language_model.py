"""A trained TransformerLM behind the app's one language-model interface (engine.lm.LanguageModel):
next-token probabilities, held-out cross-entropy, sampling, and a reader that keeps the keys and
values of the context it has already seen (engine.lm.context_reader picks it up).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import torch

from engine.i18n import _, ngettext
from engine.numbers import grouped
from engine.lm import Tokenizer, draw
from engine.transformer.model import LayerCache, TransformerLM

@dataclass
class TransformerLanguageModel:
    """A trained TransformerLM and its tokenizer behind the app's one LanguageModel interface."""
    model: TransformerLM
    tokenizer: Tokenizer
    name: str = "transformer"
    eval_batch: int = field(default=32, repr=False)
    rolling_cache: bool = False        # generation past the window keeps the cache (rotary only)

    def __post_init__(self) -> None:
        if self.rolling_cache and self.model.config.positional != "rotary":
            raise ValueError(_("Only a model with rotary positions can keep a rolling cache."))
        if self.tokenizer.vocab_size != self.model.config.vocab_size:
            raise ValueError(_("The tokenizer has {n} tokens but the model was built for {built}.",
                               n=grouped(self.tokenizer.vocab_size), built=grouped(self.model.config.vocab_size)))
        self.model.train(False)

    def next_token_probs(self, context: Sequence[int]) -> np.ndarray:
        """softmax(logits at the last position), reading at most context_length tokens back."""
        ids = self.window(context)
        with torch.no_grad():
            logits, _ = self.model(torch.tensor([ids], dtype=torch.long))
        return torch.softmax(logits[0, -1].double(), dim=-1).numpy()

    def window(self, context: Sequence[int]) -> list[int]:
        """The last context_length ids of the context: what the model reads; a sentence if there are none."""
        ids = list(context)[-self.model.config.context_length:]
        if not ids:
            raise ValueError(_("The transformer needs at least one token of context (a prompt) to go on."))
        return ids

    def reader(self) -> "CachedReader":
        """next_token_probs for one growing context (a generation), with a key/value cache
        (a rolling one past the window when rolling_cache is set: see CachedReader)."""
        return CachedReader(self, rolling=self.rolling_cache)

    def cross_entropy(self, ids: Sequence[int]) -> float:
        """Mean -ln P(w_t | w_<t) over ids[1:], windows of context_length that overlap by one token."""
        ids = torch.as_tensor(list(ids), dtype=torch.long)
        if ids.numel() < 2:
            raise ValueError(_("Held-out text must be at least two tokens long to score a prediction."))
        T = self.model.config.context_length
        starts = list(range(0, ids.numel() - 1, T))
        total, count = 0.0, 0
        with torch.no_grad():
            for first in range(0, len(starts), self.eval_batch):
                chunk = starts[first:first + self.eval_batch]
                full = [s for s in chunk if s + T + 1 <= ids.numel()]
                if full:
                    x = torch.stack([ids[s:s + T] for s in full])
                    y = torch.stack([ids[s + 1:s + T + 1] for s in full])
                    logits, loss = self.model(x, y)
                    total += loss.item() * y.numel()
                    count += y.numel()
                for s in chunk:
                    if s + T + 1 > ids.numel():                        # the ragged last window
                        x, y = ids[s:-1][None], ids[s + 1:][None]
                        logits, loss = self.model(x, y)
                        total += loss.item() * y.numel()
                        count += y.numel()
        return total / count

    def sample(self, length: int, *, seed: int, temperature: float = 1.0, top_k: int | None = None,
               prompt: Sequence[int] = ()) -> list[int]:
        """Draw `length` ids one at a time from P(w_t | w_<t) reshaped by temperature and top-k."""
        rng = np.random.default_rng(seed)
        context = list(prompt) or [int(rng.integers(self.model.config.vocab_size))]
        return [token for _, _, token in
                draw(self.reader(), context, length, rng=rng, temperature=temperature, top_k=top_k)]


class CachedReader:
    """P(next token | context) for a context that grows a token at a time, as in generation.

    While the context fits the window, each call runs only the tokens added since the last one
    (TransformerLM.extend). Once it is longer than context_length, the window slides: every
    token's position changes and the first one drops out, so each call is a full forward pass
    again, exactly as next_token_probs. The answers equal next_token_probs' up to float rounding.

    rolling=True (rotary positions only) keeps the cache as the window slides instead: drop the
    oldest key and value of every block, read the new token at the next position. Rotary scores
    depend on offsets i - j only, so the kept keys (turned by their absolute positions) stay
    valid and the angles are exact at any position (float64). With one block this equals a full
    pass over the last window; with more, each cached key of block 2 and up was computed when its
    token still read up to context_length tokens before it, so a rolling reader is sliding-window
    attention (every query reads the last context_length keys in every block, as in Mistral),
    which sees further back than a full pass over the window: close to next_token_probs, not equal.
    """

    def __init__(self, lm: TransformerLanguageModel, rolling: bool = False):
        if rolling and lm.model.config.positional != "rotary":
            raise ValueError(_("Only a model with rotary positions can keep its cache as the window slides: "
                               "with learned or sinusoidal positions every token's position changes."))
        self.lm, self.causal, self.rolling = lm, lm.model.config.causal, rolling
        self.ids: list[int] = []
        self.cache: list[LayerCache] = []

    def __call__(self, context: Sequence[int]) -> np.ndarray:
        ids = self.lm.window(context)
        if not self.causal:
            return self.lm.next_token_probs(ids)
        known = len(self.ids)
        if self.rolling and known == len(ids) == self.lm.model.config.context_length and ids[:-1] == self.ids[1:]:
            for layer in self.cache:                                   # the window slid by one token
                layer.drop_oldest(1)
            known -= 1
        elif not (known and len(ids) > known and ids[:known] == self.ids):
            self.cache, known = self.lm.model.empty_cache(), 0        # a new context, or the window slid
        logits = self.lm.model.extend(torch.tensor([ids[known:]], dtype=torch.long), self.cache)
        self.ids = ids
        return torch.softmax(logits[0, -1].double(), dim=-1).numpy()


def window_sentence(lm: TransformerLanguageModel) -> str:
    """How a generation reads this model's context window (of characters), as the Generate page says it."""
    n = lm.model.config.context_length
    if lm.rolling_cache:
        return ngettext(
            "A transformer reads at most its context window (this one: the last {n} character). While prompt and "
            "sample fit in it, each step runs only the new token (the keys and values of the earlier ones are kept); "
            "past it, the oldest key and value leave every block's cache and each step still runs one token: with "
            "rotary positions a score depends only on how far apart two tokens are, so the kept keys stay valid "
            "(sliding-window attention, as in Mistral).",
            "A transformer reads at most its context window (this one: the last {n} characters). While prompt and "
            "sample fit in it, each step runs only the new token (the keys and values of the earlier ones are kept); "
            "past it, the oldest key and value leave every block's cache and each step still runs one token: with "
            "rotary positions a score depends only on how far apart two tokens are, so the kept keys stay valid "
            "(sliding-window attention, as in Mistral).", n)
    return ngettext(
        "A transformer reads at most its context window (this one: the last {n} character). While prompt and sample "
        "fit in it, each step runs only the new token (the keys and values of the earlier ones are kept); past it the "
        "window slides, every position moves, and each step is a whole pass again, several times slower.",
        "A transformer reads at most its context window (this one: the last {n} characters). While prompt and sample "
        "fit in it, each step runs only the new token (the keys and values of the earlier ones are kept); past it the "
        "window slides, every position moves, and each step is a whole pass again, several times slower.", n)
