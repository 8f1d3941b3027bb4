"""Position: attention has no notion of order until each token's vector says where it sits.

Self-attention is permutation-equivariant: shuffle the rows of X with a permutation pi and
every context vector moves with its row, unchanged,  c(X[pi])_j = c(X)_{pi(j)}.
The standard fix adds a positional encoding p_t to each embedding before the first block,
x_t + p_t; then the same word at another position is another vector. Sinusoidal
encodings (Vaswani et al. 2017):
    PE(t, 2i) = sin(t / 10000^(2i/d)),    PE(t, 2i+1) = cos(t / 10000^(2i/d)).
Learned encodings are a free table with one d-vector per position that training adjusts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import limits
from engine.attention.mechanism import SelfAttentionResult, check_matrix, self_attention
from engine.i18n import _, pgettext
from engine.numbers import alike, localized

ENCODINGS = ("none", "sinusoidal", "learned")
SINUSOID_BASE = 10_000.0
LEARNED_STD = np.sqrt(0.5)  # a learned row then has the same expected squared length, d/2, as a sinusoidal one


# --- the encodings ------------------------------------------------------------------------

def _check_table_size(T: int, d: int) -> None:
    if not isinstance(T, (int, np.integer)) or not 1 <= T <= limits.MAX_POSITIONS:
        raise ValueError(_("The number of positions T must be a whole number from 1 to {most}; got {T}.",
                           most=limits.MAX_POSITIONS, T=T))
    if not isinstance(d, (int, np.integer)) or not 1 <= d <= limits.MAX_ENCODING_DIM:
        raise ValueError(_("The encoding width d must be a whole number from 1 to {most}; got {d}.",
                           most=limits.MAX_ENCODING_DIM, d=d))


def sinusoid_frequencies(d: int, base: float = SINUSOID_BASE) -> np.ndarray:
    """omega_i = 1 / base^(2i/d) for each pair i = 0 .. ceil(d/2)-1 of columns (2i, 2i+1)."""
    return 1.0 / base ** (2 * np.arange((d + 1) // 2) / d)


def sinusoidal_encoding(T: int, d: int, base: float = SINUSOID_BASE) -> np.ndarray:
    """(T, d) table: PE(t, 2i) = sin(t omega_i), PE(t, 2i+1) = cos(t omega_i), omega_i = base^(-2i/d).

    Each pair of columns is a clock turning at its own speed, so p_{t+k} is p_t rotated pair
    by pair, and p_t . p_{t+k} = sum_i cos(k omega_i) depends on the offset k only.
    """
    _check_table_size(T, d)
    base = float(base)
    if not np.isfinite(base) or not limits.MIN_SINUSOID_BASE <= base <= limits.MAX_SINUSOID_BASE:
        raise ValueError(_("The sinusoid base must be between {low} and {high}; got {base}.",
                           low=localized(f"{limits.MIN_SINUSOID_BASE:g}"),
                           high=localized(f"{limits.MAX_SINUSOID_BASE:g}"), base=localized(f"{base:g}")))
    angles = np.arange(T)[:, None] * sinusoid_frequencies(d, base)[None, :]   # (T, ceil(d/2))
    table = np.empty((T, d))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d // 2])
    return table


def learned_encoding(T: int, d: int, seed: int = 0) -> np.ndarray:
    """(T, d) table of free parameters p_t, shown as training starts them: drawn N(0, 1/2), seeded.

    Rows come from one (MAX_POSITIONS, d) draw, so position t keeps its vector when T changes.
    Training would move these numbers; nothing ties p_t to p_{t+1} until it does.
    """
    _check_table_size(T, d)
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(_("The seed must be a whole number, 0 or more; got {seed}.", seed=seed))
    table = np.random.default_rng(int(seed)).normal(0.0, LEARNED_STD, size=(limits.MAX_POSITIONS, d))
    return table[:T]


def positional_encoding(kind: str, T: int, d: int, *, seed: int = 0, base: float = SINUSOID_BASE) -> np.ndarray:
    """(T, d) table p_t for kind 'none' (zeros), 'sinusoidal' or 'learned'."""
    if kind == "none":
        _check_table_size(T, d)
        return np.zeros((T, d))
    if kind == "sinusoidal":
        return sinusoidal_encoding(T, d, base)
    if kind == "learned":
        return learned_encoding(T, d, seed)
    raise ValueError(_("Unknown positional encoding '{kind}'; choose one of: {choices}.", kind=kind,
                       choices=", ".join(ENCODINGS)))


# --- dot products by offset ---------------------------------------------------------------

@dataclass(frozen=True)
class OffsetDotProducts:
    """How alike two positions' encodings are, p_i . p_j, and the same gathered by offset k = j - i."""
    encoding: np.ndarray   # (T, d)  p_t
    gram: np.ndarray       # (T, T)  p_i . p_j
    offsets: np.ndarray    # (T,)    k = 0 .. T-1
    mean: np.ndarray       # (T,)    mean over i of p_i . p_{i+k}
    low: np.ndarray        # (T,)    smallest p_i . p_{i+k} over i
    high: np.ndarray       # (T,)    largest

    @property
    def spread(self) -> np.ndarray:
        """high - low at each offset: 0 when the dot product depends on the offset alone."""
        return self.high - self.low


def dot_products_by_offset(encoding) -> OffsetDotProducts:
    """G_ij = p_i . p_j, then for each offset k the mean, min and max of G_{i, i+k} over i."""
    P = check_matrix(encoding, "The encoding table", max_rows=limits.MAX_POSITIONS, max_cols=limits.MAX_ENCODING_DIM)
    gram = P @ P.T
    T = P.shape[0]
    diagonals = [np.diagonal(gram, offset=k) for k in range(T)]
    return OffsetDotProducts(encoding=P, gram=gram, offsets=np.arange(T),
                             mean=np.array([diag.mean() for diag in diagonals]),
                             low=np.array([diag.min() for diag in diagonals]),
                             high=np.array([diag.max() for diag in diagonals]))


# --- the permutation check ----------------------------------------------------------------

def check_permutation(perm, T: int) -> np.ndarray:
    """perm as an int array holding each of 0 .. T-1 once, or a ValueError."""
    try:
        order = np.asarray(perm)
        if order.dtype.kind not in "iu" and not (order.dtype.kind == "f" and np.all(order == np.round(order))):
            raise TypeError
        order = order.astype(int)
    except (TypeError, ValueError):
        raise ValueError(_("A permutation is a list of whole-number positions.")) from None
    if order.ndim != 1 or order.size != T or sorted(order.tolist()) != list(range(T)):
        raise ValueError(_("The new order must use each of the {T} positions 0 .. {last} exactly once; got {order}.",
                           T=T, last=T - 1, order=order.tolist()))
    return order


def permutation_between(original: list[str], shuffled: list[str]) -> np.ndarray:
    """pi with shuffled[j] == original[pi[j]]: where each word of the shuffled sentence came from.

    Repeated words are matched in order (the first 'the' to the first 'the').
    """
    if sorted(original) != sorted(shuffled):
        missing = sorted(set(original) - set(shuffled)) or sorted(
            w for w in set(original) if original.count(w) > shuffled.count(w))
        extra = sorted(set(shuffled) - set(original)) or sorted(
            w for w in set(shuffled) if shuffled.count(w) > original.count(w))
        nothing = pgettext("words", "none")
        raise ValueError(_("The second sentence must use exactly the same words as the first, in any order (the same "
                           "bag). Missing or too few: {missing}; extra: {extra}.",
                           missing=", ".join(missing) or nothing, extra=", ".join(extra) or nothing))
    remaining: dict[str, list[int]] = {}
    for t, word in enumerate(original):
        remaining.setdefault(word, []).append(t)
    return np.array([remaining[word].pop(0) for word in shuffled], dtype=int)


def random_permutation(T: int, seed: int) -> np.ndarray:
    """A shuffle of 0 .. T-1 drawn with this seed; never the identity when T > 1."""
    if not isinstance(T, (int, np.integer)) or not 1 <= T <= limits.MAX_TOKENS:
        raise ValueError(_("A shuffle needs between 1 and {most} tokens; got {T}.", most=limits.MAX_TOKENS, T=T))
    rng = np.random.default_rng(int(seed))
    order = rng.permutation(T)
    while T > 1 and np.array_equal(order, np.arange(T)):
        order = rng.permutation(T)
    return order


@dataclass(frozen=True)
class PermutationCheck:
    """Attention over X + P and over X[pi] + P (the encoding stays with the slots, not the words).

    Equivariance holds when the shuffled sentence's context at slot j equals the original
    context of the word it holds: c(X[pi] + P)_j = c(X + P)_{pi(j)}.
    """
    perm: np.ndarray                # (T,)  slot j of the shuffled sentence holds token perm[j]
    x: np.ndarray                   # (T, d) embeddings in the original order
    encoding: np.ndarray            # (T, d) p_t added at slot t (zeros for 'none')
    original: SelfAttentionResult   # attention over x + P
    shuffled: SelfAttentionResult   # attention over x[perm] + P
    expected: np.ndarray            # (T, d_v) original.context[perm]: old contexts moved with their words
    difference: np.ndarray          # (T,) max over columns of |shuffled.context[j] - expected[j]|
    max_difference: float
    tolerance: float

    @property
    def equivariant(self) -> bool:
        return self.max_difference <= self.tolerance

    @property
    def written(self) -> list[str]:
        """Each word's difference as the pages write it: all in one format (engine.numbers.alike)."""
        return alike(self.difference)

    @property
    def largest_written(self) -> str:
        """The largest difference, written as the bars and the table write it."""
        return self.written[int(np.argmax(self.difference))]


def permutation_check(x, perm, encoding="none", *, W_q=None, W_k=None, W_v=None, scale: bool = True,
                      causal: bool = False, strength: float = 1.0, seed: int = 0,
                      base: float = SINUSOID_BASE) -> PermutationCheck:
    """Compare c(X[pi] + s P) with c(X + s P)[pi]; equal for every pi when P = 0 and there is no mask.

    `encoding` is a kind ('none', 'sinusoidal', 'learned') or a (T, d) table; `strength` is s.
    """
    X = check_matrix(x, "X (the token embeddings)")
    T, d = X.shape
    order = check_permutation(perm, T)
    strength = float(strength)
    if not np.isfinite(strength) or not 0.0 <= strength <= limits.MAX_ENCODING_STRENGTH:
        raise ValueError(_("The encoding strength must be between 0 and {most}; got {strength}.",
                           most=localized(f"{limits.MAX_ENCODING_STRENGTH:g}"), strength=localized(f"{strength:g}")))
    if isinstance(encoding, str):
        P = positional_encoding(encoding, T, d, seed=seed, base=base)
    else:
        P = check_matrix(encoding, "The encoding table", max_rows=limits.MAX_POSITIONS)
        if P.shape != X.shape:
            raise ValueError(_("The encoding must have one row per token and one column per dimension, {T} x {d}; it "
                               "is {rows} x {cols}.", T=T, d=d, rows=P.shape[0], cols=P.shape[1]))
    P = strength * P
    original = self_attention(X + P, W_q, W_k, W_v, scale=scale, causal=causal)
    shuffled = self_attention(X[order] + P, W_q, W_k, W_v, scale=scale, causal=causal)
    expected = original.context[order]
    difference = np.abs(shuffled.context - expected).max(axis=1)
    tolerance = 1e-9 * (1.0 + float(np.abs(expected).max()))
    return PermutationCheck(perm=order, x=X, encoding=P, original=original, shuffled=shuffled,
                            expected=expected, difference=difference,
                            max_difference=float(difference.max()), tolerance=tolerance)


# --- rotary positions (RoPE, as in Llama and SmolLM2) -----------------------------------------

def _check_base(base: float) -> float:
    base = float(base)
    if not np.isfinite(base) or not limits.MIN_SINUSOID_BASE <= base <= limits.MAX_SINUSOID_BASE:
        raise ValueError(_("The rotary base must be between {least} and {most}; got {base}.",
                           least=localized(f"{limits.MIN_SINUSOID_BASE:g}"),
                           most=localized(f"{limits.MAX_SINUSOID_BASE:g}"), base=localized(f"{base:g}")))
    return base


def rotate(x, positions, base: float = SINUSOID_BASE) -> np.ndarray:
    """RoPE: turn each pair (x_i, x_{i+d/2}) of row t by the angle p_t theta_i, theta_i = base^(-2i/d).

    The "rotate_half" pairing of GPT-NeoX and Llama (engine.transformer.model.apply_rotary, same numbers):
    (x_i, x_{i+d/2}) -> (x_i cos - x_{i+d/2} sin, x_{i+d/2} cos + x_i sin). x is (T, d) with d even,
    positions T whole numbers (any size: angles in float64). Lengths are kept, and
    rotate(q, i) . rotate(k, j) depends on i - j only.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2 or x.shape[1] < 2 or x.shape[1] % 2:
        raise ValueError(_("Rotary positions turn coordinates in pairs: give rows of an even width d (2 or more)."))
    positions = np.asarray(positions)
    if positions.shape != (x.shape[0],) or not np.issubdtype(positions.dtype, np.integer):
        raise ValueError(_("Give one whole-number position per row: {n} of them.", n=x.shape[0]))
    if not np.all(np.isfinite(x)):
        raise ValueError(_("The vectors must hold finite numbers."))
    d = x.shape[1]
    theta = 1.0 / _check_base(base) ** (2 * np.arange(d // 2) / d)                  # (d/2,)
    angles = positions.astype(np.float64)[:, None] * theta[None, :]                  # (T, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    x_1, x_2 = x[:, : d // 2], x[:, d // 2:]
    return np.concatenate((x_1 * cos - x_2 * sin, x_2 * cos + x_1 * sin), axis=1)


def rotary_scores(q, k, T: int, base: float = SINUSOID_BASE) -> np.ndarray:
    """(T, T) table of rot(q, i) . rot(k, j): the same q and k at every position, so entry (i, j)
    depends on the offset i - j only (every diagonal is constant): the position page's RoPE picture."""
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    if q.ndim != 1 or q.shape != k.shape:
        raise ValueError(_("q and k must be two vectors of the same length."))
    _check_table_size(T, max(q.size, 1))
    positions = np.arange(T)
    Q = rotate(np.tile(q, (T, 1)), positions, base)                                    # (T, d)
    K = rotate(np.tile(k, (T, 1)), positions, base)
    return Q @ K.T


def diagonal_spread(M) -> np.ndarray:
    """For a square table M, the range (largest - smallest) of each diagonal i - j = k, k = -(T-1)..T-1.

    All zeros (up to rounding) means M[i, j] depends on the offset i - j only, as rotary scores do.
    """
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(_("Give a square table (T x T)."))
    T = M.shape[0]
    return np.array([np.ptp(np.diagonal(M, offset=-k)) for k in range(-(T - 1), T)])
