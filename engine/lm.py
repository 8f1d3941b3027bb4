"""One interface for every language model in the app (makemore's idea).

The n-gram tables, the small transformer trained live and the pretrained SmolLM2 all
answer the same questions, so the Generate page scores them with one loop on one split:
P(next token | context), cross-entropy on held-out ids, and sampling.
"""
from __future__ import annotations

from engine.i18n import _, ngettext
from engine.numbers import grouped, localized
import math
from typing import Callable, Iterator, Protocol, Sequence

import numpy as np


class Tokenizer(Protocol):
    """Text <-> token ids. `tokens(text)` gives the pieces as strings, for display."""
    name: str
    vocab_size: int

    def encode(self, text: str) -> list[int]: ...
    def decode(self, ids: Sequence[int]) -> str: ...
    def tokens(self, text: str) -> list[str]: ...


class LanguageModel(Protocol):
    """P(w_t | w_<t) over a tokenizer's vocabulary."""
    name: str
    tokenizer: Tokenizer

    def next_token_probs(self, context: Sequence[int]) -> np.ndarray:
        """Probabilities over the whole vocabulary for the token after `context` (sums to 1)."""
        ...

    def cross_entropy(self, ids: Sequence[int]) -> float:
        """Mean -ln P(w_t | w_<t) over the predictable positions of `ids`, in nats per token."""
        ...

    def sample(self, length: int, *, seed: int, temperature: float = 1.0, top_k: int | None = None,
               prompt: Sequence[int] = ()) -> list[int]:
        """`length` new token ids after `prompt`; the same seed gives the same ids."""
        ...


def _too_few(reader: str, n: int) -> str:
    """check_ids's sentence for too few ids, a whole message for each reader it names."""
    if reader == "the model":
        return ngettext("The model needs at least {n} token to read.", "The model needs at least {n} tokens to read.",
                        n, n=grouped(n))
    if reader == "an n-gram model":
        return ngettext("An n-gram model needs at least {n} token to read.",
                        "An n-gram model needs at least {n} tokens to read.", n, n=grouped(n))
    return ngettext("A model needs at least {n} token to read.", "A model needs at least {n} tokens to read.", n,
                    n=grouped(n))


def _too_many(reader: str, n: int, limit: int) -> str:
    """check_ids's sentence for more ids than `limit`, a whole message for each reader it names."""
    if reader == "the model":
        return ngettext("That is {n} token; the model here reads at most {most} (the limit).",
                        "That is {n} tokens; the model here reads at most {most} (the limit).", n, n=grouped(n),
                        most=grouped(limit))
    if reader == "an n-gram model":
        return ngettext("That is {n} token; an n-gram model here reads at most {most} (the limit).",
                        "That is {n} tokens; an n-gram model here reads at most {most} (the limit).", n,
                        n=grouped(n), most=grouped(limit))
    return ngettext("That is {n} token; a model here reads at most {most} (the limit).",
                    "That is {n} tokens; a model here reads at most {most} (the limit).", n, n=grouped(n),
                    most=grouped(limit))


def check_ids(ids, vocab_size: int | None = None, *, limit: int | None = None, reader: str = "a model",
              at_least: int = 0) -> np.ndarray:
    """Token ids as a flat int64 array, each in [0, vocab_size), between `at_least` and `limit` of them.
    The one check every model and tokenizer makes of ids it is given; each failure is a sentence."""
    try:
        array = np.asarray(ids, dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(_("Token ids must be whole numbers.")) from None
    if array.ndim != 1:
        raise ValueError(_("Token ids must be one flat sequence."))
    if array.size < at_least:
        raise ValueError(_too_few(reader, at_least))
    if limit is not None and array.size > limit:
        raise ValueError(_too_many(reader, array.size, limit))
    if array.size and array.min() < 0:
        raise ValueError(_("Token ids cannot be negative: id {id} is outside the vocabulary.", id=int(array.min())))
    if array.size and vocab_size is not None and array.max() >= vocab_size:
        raise ValueError(_("Token ids run from 0 to {last}: id {id} is outside the vocabulary.", last=vocab_size - 1,
                           id=int(array.max())))
    return array


def context_reader(lm: LanguageModel) -> Callable[[Sequence[int]], np.ndarray]:
    """next_token_probs for one growing context: the model's own incremental reader (a
    transformer's key/value cache) when it has one, else next_token_probs itself."""
    reader = getattr(lm, "reader", None)
    return reader() if callable(reader) else lm.next_token_probs


def bits_per_character(nats_per_token: float, n_tokens: int, n_characters: int) -> float:
    """Total information n_tokens * H (nats) spread over the characters it spells, in bits.

    This makes models with different tokenizers comparable on the same text.
    """
    if n_characters <= 0:
        raise ValueError(_("Bits per character needs a text with at least one character."))
    return nats_per_token * n_tokens / (n_characters * math.log(2))


def check_temperature(temperature: float, limit: float = math.inf) -> float:
    """The temperature tau, if it is a number from 0 (always the most likely token) to `limit`."""
    number = isinstance(temperature, (int, float, np.floating)) and not isinstance(temperature, bool)
    if not number or not math.isfinite(temperature) or not 0 <= temperature <= limit:
        if math.isfinite(limit):
            raise ValueError(_("Temperature must be 0 or more (0: always the most likely token) and at most {most}.",
                               most=localized(f"{limit:g}")))
        raise ValueError(_("Temperature must be 0 or more (0: always the most likely token) and a finite number."))
    return float(temperature)


def apply_temperature_top_k(probs: np.ndarray, temperature: float, top_k: int | None) -> np.ndarray:
    """Reshape a next-token distribution: p_i^(1/tau) renormalised (tau: the temperature), then only the k largest kept.

    Temperature 0 means greedy: all mass on the most likely token.
    """
    probs = np.asarray(probs, dtype=float)
    check_temperature(temperature)
    if temperature == 0:
        greedy = np.zeros_like(probs)
        greedy[int(np.argmax(probs))] = 1.0
        return greedy
    with np.errstate(divide="ignore"):
        logits = np.log(probs) / temperature
    if top_k is not None:
        if top_k < 1:
            raise ValueError(_("top-k must keep at least one token."))
        if top_k < logits.size:
            cutoff = np.partition(logits, -top_k)[-top_k]
            logits = np.where(logits >= cutoff, logits, -np.inf)
    logits = logits - np.max(logits)
    weights = np.exp(logits)
    return weights / weights.sum()


def draw(read: Callable[[list[int]], np.ndarray], context: list[int], length: int, *, rng: np.random.Generator,
         temperature: float, top_k: int | None) -> Iterator[tuple[np.ndarray, np.ndarray, int]]:
    """The one sampling loop of the app, for every model (makemore's single `generate`).

    For each of `length` steps: p = read(context), q = p reshaped by temperature and top-k, w ~ q,
    then w joins `context` (the list grows in place). Yields (p, q, w). `read` is the model's
    P(next token | context): its next_token_probs, or a reader that keeps what it has already seen.
    """
    for _step in range(length):
        probs = read(context)
        reshaped = apply_temperature_top_k(probs, temperature, top_k)
        token = int(rng.choice(reshaped.size, p=reshaped))
        context.append(token)
        yield probs, reshaped, token
