"""'Show the code' for the Position page, Generate and the Block builder, each with what it prints.

Position: a numpy program that reproduces its check as it stands.

Both sentences as tiny-vocabulary vectors, the chosen positional encoding P added with strength s,
self-attention (with or without projections and a causal mask), and the largest change between A's
context vectors, reordered as B's words are, and B's: 0 without an encoding, when attention is
permutation-equivariant.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from engine import limits
from engine.shown_code import Printout, Program


def position_code(words: dict[str, list[float]], a_tokens: list[str], b_words: str, *, encoding: str,
                  strength: float, seed: int, projections: bool, causal: bool, perm: list[int]) -> Program:
    """The program for sentence A (`a_tokens`) against B (`b_words`, B's words as typed), `encoding` one of
    none, sinusoidal, learned; `perm` (slot j of B holds word perm[j] of A) goes into the program as it is. With
    what it prints: the largest change, to three significant digits."""
    vectors = "\n".join(f"    {w!r}: {list(words[w])}," for w in sorted(set(a_tokens)))
    encoding_lines = {
        "none": "P = np.zeros((T, d))",
        "sinusoidal": ("omega = 1 / 10000.0 ** (2 * np.arange((d + 1) // 2) / d)\n"
                       "angles = np.arange(T)[:, None] * omega\n"
                       "P = np.empty((T, d))\n"
                       "P[:, 0::2], P[:, 1::2] = np.sin(angles), np.cos(angles[:, :d // 2])"),
        "learned": f"P = np.random.default_rng({seed}).normal(0, np.sqrt(0.5), size=({limits.MAX_POSITIONS}, d))[:T]",
    }[encoding]
    projection_lines = (f"rng = np.random.default_rng({seed})\n"
                        "W_q, W_k, W_v = (rng.normal(0, 1 / np.sqrt(d), size=(d, d)) for _ in range(3))\n"
                        if projections else "W_q = W_k = W_v = np.eye(d)\n")
    mask_line = "    s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)\n" if causal else ""
    source = f'''import numpy as np

words = {{
{vectors}
}}
A = "{" ".join(a_tokens)}".split()
B = "{b_words}".split()
X_A, X_B = np.array([words[w] for w in A]), np.array([words[w] for w in B])
T, d = X_A.shape
{encoding_lines}
{projection_lines}
def attention(X):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    s = Q @ K.T / np.sqrt(d)
{mask_line}    alpha = np.exp(s - s.max(axis=1, keepdims=True))
    alpha /= alpha.sum(axis=1, keepdims=True)
    return alpha @ V

s = {strength}
c_A, c_B = attention(X_A + s * P), attention(X_B + s * P)
pi = {perm}   # slot j of B holds word pi[j] of A
print(f"largest change: {{np.abs(c_B - c_A[pi]).max():.3g}}")
'''

    def printout() -> str:   # the program's lines, on its numbers
        A, B = " ".join(a_tokens).split(), b_words.split()
        X_A = np.array([[float(v) for v in words[w]] for w in A])
        X_B = np.array([[float(v) for v in words[w]] for w in B])
        T, d = X_A.shape
        if encoding == "sinusoidal":
            omega = 1 / 10000.0 ** (2 * np.arange((d + 1) // 2) / d)
            angles = np.arange(T)[:, None] * omega
            P = np.empty((T, d))
            P[:, 0::2], P[:, 1::2] = np.sin(angles), np.cos(angles[:, :d // 2])
        elif encoding == "learned":
            P = np.random.default_rng(seed).normal(0, np.sqrt(0.5), size=(limits.MAX_POSITIONS, d))[:T]
        else:
            P = np.zeros((T, d))
        if projections:
            rng = np.random.default_rng(seed)
            W_q, W_k, W_v = (rng.normal(0, 1 / np.sqrt(d), size=(d, d)) for _ in range(3))
        else:
            W_q = W_k = W_v = np.eye(d)

        def attention(X):
            Q, K, V = X @ W_q, X @ W_k, X @ W_v
            s = Q @ K.T / np.sqrt(d)
            if causal:
                s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)
            alpha = np.exp(s - s.max(axis=1, keepdims=True))
            alpha /= alpha.sum(axis=1, keepdims=True)
            return alpha @ V

        s = float(strength)
        c_A, c_B = attention(X_A + s * P), attention(X_B + s * P)
        out = Printout()
        out.print(f"largest change: {np.abs(c_B - c_A[list(perm)]).max():.3g}")
        return out.text

    if not a_tokens or len(perm) != len(a_tokens):   # no two sentences of the same words: nothing to print yet
        return Program(source, why="It prints the largest change once A and B hold the same words.")
    return Program(source, printout)


def generate_code(prompt: str, length: int, *, seed: int, temperature: float, top_k: int | None,
                  generation: Callable[[], object]) -> Program:
    """Generate's program: the shipped character model samples `length` characters after `prompt`, and prints the
    text and its first step's five likeliest characters. `generation()` gives the page's own generate() of the
    shipped model with these settings (engine.transformer.generation.generate, cached by the page)."""
    source = f'''from engine.transformer.generation import generate
from engine.transformer.training import load_checkpoint
from engine.transformer.language_model import TransformerLanguageModel
from engine.language.tokenizers import CharTokenizer
from engine.transformer.shipped_model import SHIPPED_CHECKPOINT

model, notes = load_checkpoint(SHIPPED_CHECKPOINT)
lm = TransformerLanguageModel(model, CharTokenizer(tuple(notes["vocabulary"])))
g = generate(lm, {prompt!r}, {length}, seed={seed}, temperature={temperature}, top_k={top_k})
print(g.text)
# the five likeliest first characters: (id, P, q after temperature and top-k)
print([(i, round(p, 4), round(q, 4)) for i, p, q in g.steps[0].top(5)])
'''

    def printout() -> str:
        g = generation()
        out = Printout()
        out.print(g.text)
        out.print([(i, round(p, 4), round(q, 4)) for i, p, q in g.steps[0].top(5)])
        return out.text

    return Program(source, printout)


def block_code(config, *, batch: int, steps: int, seconds: float, learning_rate: float, seed: int,
               fields: tuple[str, ...]) -> Program:
    """The Block builder's program: the configuration's parameter count, then a training run on the plays. It is
    not run to print (a training of up to `seconds`, whose last step depends on the machine): `why` says what its
    lines print, the count worked out here."""
    from engine.transformer.config import count_parameters

    arguments = ", ".join(f"{f}={getattr(config, f)!r}" for f in fields)
    total = count_parameters(config).total
    source = f'''import math

from engine.transformer.config import TransformerConfig, count_parameters, with_vocab
from engine.transformer.model import TransformerLM
from engine.transformer.training import TrainConfig, train
from engine.language.corpus import load_corpus
from engine.language.tokenizers import CharTokenizer

config = TransformerConfig({arguments})
print(count_parameters(config).total)        # {total:,}

corpus = load_corpus()
tokenizer = CharTokenizer.from_text(corpus.text)
model = TransformerLM(with_vocab(config, tokenizer.vocab_size))   # the plays' characters
result = train(model, tokenizer.encode(corpus.train), tokenizer.encode(corpus.validation),
               TrainConfig(batch_size={batch}, max_steps={steps}, \
max_seconds={seconds}, learning_rate={learning_rate}, seed={seed}))
print(result.held_out_loss[-1] / math.log(2))  # bits per character (training computes nats)
'''
    return Program(source, why=f"It trains a model for up to {seconds:g} s, so it is not run here. Its first line "
                               f"prints {total} (count_parameters of this configuration); its last, the held-out bits "
                               "per character the run reaches, which the loss chart above shows for the runs you "
                               "trained.")
