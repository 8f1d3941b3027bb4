"""SmolLM2-135M, a real trained transformer, and the questions the pages ask it.

engine.pretrained.gguf_file reads the weights file, engine.pretrained.gguf_tokenizer builds its tokenizer,
engine.pretrained.llama runs the forward pass; this module loads the model once per process (its float32 weights
memory-mapped from the prepared cache, engine.machinery.cache) and answers the pages: the next-token
distribution, candidates' probabilities, sampling, bits per character, contextual vectors.

Bring your own model: the *.gguf files of the folder named by PLAYGROUND_MODELS are models too
(`available_models`), any Llama-architecture file (SmolLM2's other sizes, TinyLlama, Llama 2, ...);
`load(path)` reads any of them the same way, and keeps SmolLM2 plus the last few others loaded.
"""
from __future__ import annotations

import collections
import dataclasses
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from engine import limits, lm
from engine.i18n import _
from engine.numbers import grouped
from engine.machinery import cache
from engine.pretrained import gguf_file, gguf_tokenizer
from engine.pretrained.gguf_file import Config, model_path, read_gguf
from engine.pretrained.gguf_tokenizer import GGUFTokenizer
from engine.pretrained.llama import (  # noqa: F401 (SmolLM2: the old name)
    DEFAULT_NAME, GenerationStep, Llama, SmolLM2, _check_prompt
)

MODELS_VARIABLE = "PLAYGROUND_MODELS"   # a folder whose *.gguf files are models beside SmolLM2


# --- which models there are ---------------------------------------------------------------------

def _default_path() -> Path:
    """SmolLM2's file, or where it would be (loading it then says what to install)."""
    try:
        return model_path()
    except ValueError:
        return Path(gguf_file.GGUF_NAME)


def _models_folder() -> Path | None:
    folder = os.environ.get(MODELS_VARIABLE, "").strip()
    return Path(folder).expanduser() if folder else None


def _outside(path: Path, folder: Path) -> str | None:
    """None for a regular file inside `folder` (a link that stays in it is followed), else why it is not read: a
    link leaving the folder (`x.gguf -> /etc/passwd` was listed and read), or not a file (a folder, a device, a
    pipe, which would block the reader)."""
    try:
        target = path.resolve(strict=True)
        target.relative_to(folder.resolve(strict=True))
    except (OSError, RuntimeError):
        return (f"{path.name} in the models folder cannot be read (a link to nothing, or a loop of links); it is "
                "left out.")
    except ValueError:
        return (f"{path.name} in the models folder is a link to a file outside it; it is left out (only files "
                "inside the folder are read).")
    if not target.is_file():
        return f"{path.name} in the models folder is not a file; it is left out."
    return None


def _scan() -> tuple[dict[str, Path], dict[str, str]]:
    models, refused = {DEFAULT_NAME: _default_path()}, {}
    folder = _models_folder()
    if folder is None:
        return models, refused
    try:
        found = sorted(folder.glob("*.gguf"))
    except OSError:
        return models, refused
    for path in found:
        why = _outside(path, folder)
        if why is not None:
            refused[path.name] = why
            continue
        name = path.stem if path.stem not in models else path.name
        models[name] = path
    return models, refused


def available_models() -> dict[str, Path]:
    """{name: GGUF file}: SmolLM2 first, then each *.gguf file of the PLAYGROUND_MODELS folder by its
    file name (without .gguf), in alphabetical order: regular files inside the folder only (`refused_models` says
    which were left out and why). Listing reads no file: one that cannot be read says why when it is loaded."""
    return _scan()[0]


def refused_models() -> dict[str, str]:
    """{file name: the sentence why it was left out} for the *.gguf entries of the models folder that are not
    regular files inside it."""
    return _scan()[1]


# --- one model per process (SmolLM2, and a few brought along) -----------------------------------

_LOCK = threading.Lock()
_others: collections.OrderedDict[str, Llama] = collections.OrderedDict()   # path -> model, least recent first
_building: dict[str, threading.Lock] = {}


def load(path: Path | str | None = None) -> Llama:
    """A model read and dequantized once per process (a second call returns the same object): SmolLM2
    by default, or any Llama-architecture GGUF file. SmolLM2 stays loaded; of the others the last
    limits.MAX_LOADED_MODELS used are kept (their weights are memory-mapped, so one dropped costs a
    second to map again)."""
    default = str(_default_path())
    path = default if path is None else str(Path(path).expanduser())
    if path == default:
        with _LOCK:
            return _load(path)
    folder = _models_folder()
    if folder is not None and Path(path).parent.resolve() == folder.resolve():   # named from the folder: checked
        why = _outside(Path(path), folder)                                     # again as it is opened
        if why is not None:
            raise ValueError(why)
    with _LOCK:
        lock = _building.setdefault(path, threading.Lock())
    with lock:                       # one build per file; SmolLM2's sessions are never kept waiting
        with _LOCK:
            if path in _others:
                _others.move_to_end(path)
                return _others[path]
        model = _build(path, Path(path).stem)
        with _LOCK:
            _others[path] = model
            while len(_others) > limits.MAX_LOADED_MODELS:
                _others.popitem(last=False)
        return model


@lru_cache(maxsize=1)
def _load(path: str) -> Llama:
    """SmolLM2, kept for the life of the process."""
    return _build(path, DEFAULT_NAME)


def _build(path: str, name: str) -> Llama:
    """The float32 weights come memory-mapped from the prepared cache (engine.machinery.cache): dequantized once per
    machine, one physical copy shared by every process (read-only, as the model never writes them). The
    entry's key hashes the file's content: each file has its own."""
    def build() -> tuple[dict[str, np.ndarray], dict]:
        config, weights, vocabulary = read_gguf(path)
        merges = vocabulary["merges"]
        if merges is None:                       # a sentencepiece file gives scores: its merges follow from them
            merges = gguf_tokenizer.merges_from_scores(vocabulary["tokens"], vocabulary["scores"])
        return ({**weights, "tokenizer.token_type": np.asarray(vocabulary["token_type"], dtype=np.int32)},
                {"config": dataclasses.asdict(config), "tokens": list(vocabulary["tokens"]), "merges": list(merges),
                 "tokenizer": {key: vocabulary[key] for key in ("model", "pre", "add_space_prefix")},
                 "start_id": vocabulary["start_id"]})

    if not Path(path).is_file():
        read_gguf(path)   # its sentence: the file is not installed
    entry = "smollm2" if name == DEFAULT_NAME else "gguf-models"
    arrays, meta = cache.cached(entry, build, inputs=[Path(path)], code=[gguf_file, gguf_tokenizer])
    weights = {key: array for key, array in arrays.items() if not key.startswith("tokenizer.")}
    about = meta["tokenizer"]
    tokenizer = GGUFTokenizer(meta["tokens"], meta["merges"], arrays["tokenizer.token_type"].tolist(),
                              kind=about["model"], pre=about["pre"], add_space_prefix=about["add_space_prefix"])
    return Llama(Config(**meta["config"]), weights, tokenizer, name=name, start_id=meta["start_id"],
                 path=Path(path))


# --- what the pages ask -------------------------------------------------------------------------

@dataclass(frozen=True)
class NextTokenDistribution:
    """P(next token | text): the k most likely tokens and what is left for all the others."""
    context_tokens: list[str]
    token_ids: list[int]
    tokens: list[str]
    probabilities: np.ndarray    # (k,)
    entropy_bits: float          # H = -sum_w P(w) log2 P(w) over the whole vocabulary
    truncated_from: int | None = None

    @property
    def rest(self) -> float:
        return float(max(0.0, 1.0 - self.probabilities.sum()))


def next_token_distribution(text: str, k: int = 10, *, model: Llama | None = None) -> NextTokenDistribution:
    """The top k of P(w | text) = softmax(z_T), z_T the logits at the text's last token."""
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= limits.PRETRAINED_MAX_TOP_K:
        raise ValueError(_("Show between 1 and {most} candidate tokens.", most=limits.PRETRAINED_MAX_TOP_K))
    model = model or load()
    ids, original = model.encode_text(text, keep="end")
    probs = model.next_token_probs(ids)
    top = np.argsort(-probs)[:k]
    nonzero = probs[probs > 0]
    return NextTokenDistribution(
        context_tokens=[model.tokenizer.display(i) for i in ids], token_ids=[int(i) for i in top],
        tokens=[model.tokenizer.display(i) for i in top], probabilities=probs[top],
        entropy_bits=float(-(nonzero * np.log2(nonzero)).sum()), truncated_from=original)


def candidate_probabilities(text: str, candidates: Sequence[str], *, model: Llama | None = None) -> dict[str, float]:
    """P(candidate's first token | text) for each candidate word, e.g. ' he', ' she', ' they'."""
    model = model or load()
    ids, _original = model.encode_text(text, keep="end")
    probs = model.next_token_probs(ids)
    result = {}
    for candidate in candidates:
        candidate_ids = model.tokenizer.encode(candidate)
        if not candidate_ids:
            raise ValueError(_("Each candidate must contain at least one character."))
        result[candidate] = float(probs[candidate_ids[0]])
    return result


@dataclass(frozen=True)
class Generation:
    prompt: str
    text: str                        # the new text only
    steps: list[GenerationStep]
    temperature: float
    top_k: int | None
    seed: int


def sample_text(prompt: str, *, max_new_tokens: int = 20, temperature: float = 0.8, top_k: int | None = 40,
             seed: int = 0, model: Llama | None = None, sampler: Llama | None = None) -> Generation:
    """Repeat: P = softmax(z / temperature) over the k best, draw w ~ P, append w. Same seed, same text.

    `sampler`: the same model in a cheaper weight format (engine.pretrained.weight_formats) that draws the tokens; the
    probabilities of each step are still `model`'s (float32), computed in one pass over the sample."""
    model = model or load()
    ids, _ = model.encode_text(prompt, keep="end")
    steps = model._generate(ids, max_new_tokens, temperature, top_k, seed, sampler=sampler)
    return Generation(prompt=prompt, text=model.tokenizer.decode([s.token_id for s in steps]), steps=steps,
                      temperature=temperature, top_k=top_k, seed=seed)


@dataclass(frozen=True)
class BitsPerCharacter:
    bits_per_character: float
    nats_per_token: float
    n_tokens: int
    n_characters: int


def score_text(text: str, *, model: Llama | None = None) -> BitsPerCharacter:
    """bits/char = sum_t -log2 P(w_t | w_<t) / characters, every token of `text` predicted.

    The text is read as a document (after <|endoftext|>), so even its first token is scored
    and the total covers all of its characters: comparable across tokenizers.
    """
    if not isinstance(text, str) or not text:
        raise ValueError(_("Bits per character needs a text with at least one character."))
    if len(text) > limits.PRETRAINED_MAX_EVAL_CHARS:
        raise ValueError(_("The text has {n} characters; scoring is limited to {most} here.", n=grouped(len(text)),
                           most=grouped(limits.PRETRAINED_MAX_EVAL_CHARS)))
    model = model or load()
    total, count = model._nats(model.tokenizer.encode(text))
    nats_per_token = total / count
    return BitsPerCharacter(bits_per_character=lm.bits_per_character(nats_per_token, count, len(text)),
                            nats_per_token=nats_per_token, n_tokens=count, n_characters=len(text))


@dataclass(frozen=True)
class ContextualVectors:
    """The hidden state of one word in one text, at the input and after every block."""
    text: str
    word: str
    tokens: list[str]            # every token of the text
    word_positions: list[int]    # which of them spell the word
    vectors: np.ndarray          # (L + 1, d): row 0 is the static token embedding, row l after block l


def contextual_vectors(text: str, word: str, *, model: Llama | None = None) -> ContextualVectors:
    """h_l(word) for l = 0..L: the mean of the hidden states of the word's tokens, per layer.

    Row 0 is the word's static embedding (the same in every sentence); the rows after it
    have read the context through attention.
    """
    import re

    if not isinstance(word, str) or not word.strip():
        raise ValueError(_("Type the word to follow through the layers."))
    model = model or load()
    text = _check_prompt(text)
    found = re.search(rf"(?<!\w){re.escape(word.strip())}(?!\w)", text, flags=re.IGNORECASE)
    if found is None:
        raise ValueError(_("The word '{word}' does not appear in the sentence.", word=word.strip()))
    ids, offsets = model.tokenizer.encode_with_offsets(text)
    if len(ids) >= limits.PRETRAINED_MAX_TOKENS:
        raise ValueError(_("The sentence has {n} tokens; the limit is {most}.", n=grouped(len(ids)),
                           most=grouped(limits.PRETRAINED_MAX_TOKENS - 1)))
    positions = [1 + t for t, (start, end) in enumerate(offsets) if start < found.end() and end > found.start()]
    ids = [model.start_id] + ids
    _logits, hidden, _weights = model._run(ids, keep_weights=False)   # the hidden states only: no weights, no logits
    return ContextualVectors(text=text, word=found.group(0), tokens=[model.tokenizer.display(i) for i in ids],
                             word_positions=positions, vectors=hidden.numpy()[:, positions, :].mean(axis=1))


def cosine_per_layer(a: ContextualVectors, b: ContextualVectors) -> np.ndarray:
    """cos(h_l(a), h_l(b)) = h_l(a) . h_l(b) / (|h_l(a)| |h_l(b)|) for each layer l = 0..L."""
    dot = (a.vectors * b.vectors).sum(axis=1)
    return dot / (np.linalg.norm(a.vectors, axis=1) * np.linalg.norm(b.vectors, axis=1))
