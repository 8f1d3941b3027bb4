"""'Show the code' for the Position page: a numpy program that reproduces its check as it stands.

Both sentences as tiny-vocabulary vectors, the chosen positional encoding P added with strength s,
self-attention (with or without projections and a causal mask), and the largest change between A's
context vectors, reordered as B's words are, and B's: 0 without an encoding, when attention is
permutation-equivariant.
"""
from __future__ import annotations

from engine import limits


def position_code(words: dict[str, list[float]], a_tokens: list[str], b_words: str, *, encoding: str,
                  strength: float, seed: int, projections: bool, causal: bool, perm: list[int],
                  difference: str) -> str:
    """The program for sentence A (`a_tokens`) against B (`b_words`, B's words as typed), `encoding` one of
    none, sinusoidal, learned; `perm` (slot j of B holds word perm[j] of A) and `difference` (the page's
    largest change, as printed) go into the program as they are."""
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
    return f'''import numpy as np

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
print(np.abs(c_B - c_A[pi]).max())   # {difference}
'''
