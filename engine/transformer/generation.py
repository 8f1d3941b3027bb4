"""Generation from any language model, one token at a time, keeping each step's distribution.

At each step: P(w | w_<t) from the model, reshaped by temperature and top-k
    q_i = p_i^(1/tau) / sum_j p_j^(1/tau)   (top-k: only the k largest kept),
then w_t ~ q. The same seed gives the same draws for every model, so n-grams and
transformers can be compared side by side on the same prompt.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from engine.i18n import _
from engine import limits
from engine.lm import LanguageModel, bits_per_character, check_temperature, context_reader, draw


@dataclass
class Step:
    """One generated token: the model's distribution p, the reshaped q it was drawn from, the draw."""
    probs: np.ndarray
    reshaped: np.ndarray
    token: int

    def top(self, k: int = 10) -> list[tuple[int, float, float]]:
        """(token id, p, q) of the k most likely tokens under p."""
        order = np.argsort(-self.probs, kind="stable")[:k]
        return [(int(i), float(self.probs[i]), float(self.reshaped[i])) for i in order]


@dataclass
class Generation:
    model: str
    prompt: list[int]
    steps: list[Step]
    text: str

    @property
    def ids(self) -> list[int]:
        return [step.token for step in self.steps]


def check_sampling(length: int, temperature: float, top_k: int | None) -> None:
    if not isinstance(length, (int, np.integer)) or not 1 <= length <= limits.MAX_GENERATE_TOKENS:
        raise ValueError(_("Generate between 1 and {most} tokens; asked for {asked}.", most=limits.MAX_GENERATE_TOKENS,
                           asked=length))
    check_temperature(temperature, limits.MAX_TEMPERATURE)
    if top_k is not None and top_k < 1:
        raise ValueError(_("top-k must keep at least one token."))


def encode_prompt(lm: LanguageModel, prompt: str) -> list[int]:
    """The prompt's ids under the model's tokenizer; an empty or over-long prompt says why."""
    if not prompt:
        raise ValueError(_("The prompt is empty: type a few characters for the models to continue."))
    if len(prompt) > limits.MAX_PROMPT_CHARS:
        raise ValueError(_("The prompt has {n} characters; the limit is {most}.", n=len(prompt),
                           most=limits.MAX_PROMPT_CHARS))
    return lm.tokenizer.encode(prompt)


def generate(lm: LanguageModel, prompt: str, length: int, *, seed: int, temperature: float = 1.0,
             top_k: int | None = None) -> Generation:
    """`length` tokens after `prompt`, each drawn from q = reshape(P(w | everything so far))."""
    check_sampling(length, temperature, top_k)
    context = encode_prompt(lm, prompt)
    prompt_ids = list(context)
    rng = np.random.default_rng(seed)
    steps = [Step(probs, reshaped, token) for probs, reshaped, token in
             draw(context_reader(lm), context, length, rng=rng, temperature=temperature, top_k=top_k)]
    return Generation(lm.name, prompt_ids, steps, lm.tokenizer.decode([s.token for s in steps]))


@dataclass(frozen=True)
class Rung:
    """One model on the ladder: held-out cross-entropy per token, and per character in bits."""
    model: str
    nats_per_token: float
    bits_per_char: float
    n_tokens: int
    n_characters: int


def held_out_rung(lm: LanguageModel, text: str) -> Rung:
    """H = -(1/N) sum ln P(w_t | w_<t) on `text`, and the same information spread over its characters."""
    ids = lm.tokenizer.encode(text)
    nats = lm.cross_entropy(ids)
    # cross_entropy scores ids[1:]: the characters they spell are all but the first token's
    predicted = len(text) - len(lm.tokenizer.decode(ids[:1]))
    return Rung(lm.name, nats, bits_per_character(nats, len(ids) - 1, predicted), len(ids) - 1, predicted)


def ladder(models: Sequence[LanguageModel], text: str) -> list[Rung]:
    """Every model scored on the same held-out text, best (fewest bits per character) last."""
    return sorted((held_out_rung(lm, text) for lm in models), key=lambda rung: -rung.bits_per_char)
