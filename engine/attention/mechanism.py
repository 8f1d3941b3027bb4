"""Attention by hand, in numpy, with every intermediate kept.

The chapter's three steps for one sentence X (T tokens, d numbers each):
    1. scores   s_ij = x_i . x_j                (with projections: Q K^T)
    2. weights  alpha_ij = exp(s_ij) / sum_k exp(s_ik)
    3. context  c_i = sum_j alpha_ij x_j        (with projections: alpha V)
and the matrix form Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import limits, numbers
from engine.i18n import N_, _, ngettext


# --- checking what a student typed -----------------------------------------------------

def check_matrix(values, name: str, *, max_rows: int = limits.MAX_TOKENS,
                 max_cols: int = limits.MAX_DIM) -> np.ndarray:
    """A finite, non-empty 2-D float array within the limits, or a ValueError saying what is wrong."""
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(_("{name} must contain only numbers.", name=name)) from None
    if array.ndim != 2:
        raise ValueError(ngettext("{name} must be a matrix (rows x columns); it has {n} dimension.",
                                  "{name} must be a matrix (rows x columns); it has {n} dimensions.", array.ndim,
                                  name=name))
    if array.size == 0:
        raise ValueError(_("{name} is empty: it needs at least one row and one column.", name=name))
    rows, cols = array.shape
    if rows > max_rows:
        raise ValueError(_("{name} has {rows} rows; the limit is {most}.", name=name, rows=rows, most=max_rows))
    if cols > max_cols:
        raise ValueError(_("{name} has {cols} columns; the limit is {most}.", name=name, cols=cols, most=max_cols))
    if not np.all(np.isfinite(array)):
        raise ValueError(_("{name} contains a non-finite number (nan or infinity); every entry must be a real number.",
                           name=name))
    if np.max(np.abs(array)) > limits.MAX_ABS_VALUE:
        raise ValueError(_("{name} has an entry beyond ±{most}; use smaller numbers.", name=name,
                           most=numbers.localized(f"{limits.MAX_ABS_VALUE:g}")))
    return array


# --- the three steps ---------------------------------------------------------------------

def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """alpha_ij = exp(s_ij - max_k s_ik) / sum_k exp(s_ik - max_k s_ik): finite for any finite scores.

    Subtracting each row's maximum changes nothing mathematically (it cancels in the
    ratio) but keeps every exponent <= 0, so exp never overflows.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim == 1:
        return softmax_rows(scores[None, :])[0]
    shifted = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=-1, keepdims=True)


def naive_softmax_rows(scores: np.ndarray) -> np.ndarray:
    """exp(s_ij) / sum_k exp(s_ik) without the max shift: overflows to inf/nan for large scores.

    Only for the stability demo; warnings are silenced because the overflow is the point.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.exp(np.asarray(scores, dtype=float))
        return weights / weights.sum(axis=-1, keepdims=True)


def causal_mask(T: int) -> np.ndarray:
    """(T, T) boolean, True where attention is allowed: token i sees tokens j <= i."""
    if not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(_("A causal mask needs at least one token."))
    if T > limits.MAX_TOKENS:
        raise ValueError(_("A causal mask over {T} tokens is beyond the limit of {most}.", T=T, most=limits.MAX_TOKENS))
    return np.tril(np.ones((T, T), dtype=bool))


@dataclass(frozen=True)
class AttentionResult:
    """Every intermediate of softmax(Q K^T / sqrt(d_k)) V."""
    scores: np.ndarray    # (T_q, T_k)  s = Q K^T
    scaled: np.ndarray    # (T_q, T_k)  s / sqrt(d_k) when scaling, else s
    weights: np.ndarray   # (T_q, T_k)  alpha: softmax of each row, masked entries 0
    context: np.ndarray   # (T_q, d_v)  c = alpha V
    d_k: int
    scale: bool
    mask: np.ndarray | None
    sharpness: float = 1.0  # beta: the scores were multiplied by it before softmax


def check_sharpness(sharpness: float) -> float:
    """A score multiplier beta in (0, limits.MAX_SHARPNESS], or a ValueError saying so."""
    try:
        beta = float(sharpness)
    except (TypeError, ValueError):
        raise ValueError(_("The sharpness must be a number.")) from None
    if not np.isfinite(beta) or not 0 < beta <= limits.MAX_SHARPNESS:
        raise ValueError(_("The sharpness must be above 0 and at most {most}; got {got}.",
                           most=numbers.localized(f"{limits.MAX_SHARPNESS:g}"), got=sharpness))
    return beta


def attention(queries, keys, values, *, scale: bool = True, mask=None, max_tokens: int = limits.MAX_TOKENS,
              max_dim: int = limits.MAX_DIM, sharpness: float = 1.0) -> AttentionResult:
    """Attention(Q, K, V) = softmax(beta Q K^T / sqrt(d_k)) V, keeping scores, scaled, weights, context.

    `mask` is boolean (T_q, T_k), True where attention is allowed (torch's convention).
    `sharpness` beta multiplies the (scaled) scores, as a larger d_k without the 1/sqrt(d_k) would:
    1 is the chapter's attention; above 1 the weights sharpen towards the largest score.
    `max_tokens` / `max_dim` bound the rows and columns: the hand-typed limits by default; the
    image, audio and protein tokens of engine.beyond.modalities pass their own.
    """
    Q = check_matrix(queries, _("Q (the queries)"), max_rows=max_tokens, max_cols=max_dim)
    K = check_matrix(keys, _("K (the keys)"), max_rows=max_tokens, max_cols=max_dim)
    V = check_matrix(values, _("V (the values)"), max_rows=max_tokens, max_cols=max_dim)
    if Q.shape[1] != K.shape[1]:
        raise ValueError(_("Queries and keys must have the same width d_k to be compared: Q has {q} columns, K has "
                           "{k}.", q=Q.shape[1], k=K.shape[1]))
    if K.shape[0] != V.shape[0]:
        raise ValueError(_("There must be one value per key: K has {k} rows, V has {v}.", k=K.shape[0], v=V.shape[0]))
    d_k = K.shape[1]
    beta = check_sharpness(sharpness)
    scores = Q @ K.T
    scaled = scores / np.sqrt(d_k) if scale else scores.copy()
    if beta != 1.0:
        scaled = beta * scaled
    allowed = None
    if mask is not None:
        allowed = np.asarray(mask, dtype=bool)
        if allowed.shape != scores.shape:
            raise ValueError(_("The mask must have one entry per (query, key) pair, shape {wanted}; it has shape "
                               "{got}.", wanted=scores.shape, got=allowed.shape))
        blocked_rows = np.flatnonzero(~allowed.any(axis=1))
        if blocked_rows.size:
            raise ValueError(_("Query {row} is masked from every key, so its weights would be 0/0. Allow at least one "
                               "key in every row of the mask.", row=blocked_rows[0]))
        weights = softmax_rows(np.where(allowed, scaled, -np.inf))
    else:
        weights = softmax_rows(scaled)
    return AttentionResult(scores=scores, scaled=scaled, weights=weights, context=weights @ V,
                           d_k=d_k, scale=scale, mask=allowed, sharpness=beta)


@dataclass(frozen=True)
class SelfAttentionResult(AttentionResult):
    """Self-attention: queries, keys and values all come from the same X."""
    x: np.ndarray = None
    Q: np.ndarray = None  # X W_q (or X when there is no projection)
    K: np.ndarray = None  # X W_k
    V: np.ndarray = None  # X W_v


def self_attention(x, W_q=None, W_k=None, W_v=None, *, scale: bool = True,
                   causal: bool = False, sharpness: float = 1.0) -> SelfAttentionResult:
    """Q = X W_q, K = X W_k, V = X W_v (each projection optional: none means the identity), then attention."""
    X = check_matrix(x, _("X (the token embeddings)"))
    projected = []
    for W, name in ((W_q, "W_Q"), (W_k, "W_K"), (W_v, "W_V")):
        if W is None:
            projected.append(X)
            continue
        W = check_matrix(W, name, max_rows=limits.MAX_DIM)
        if W.shape[0] != X.shape[1]:
            raise ValueError(_("{name} must have one row per embedding dimension: X has {cols} columns, {name} has "
                               "{rows} rows.", name=name, cols=X.shape[1], rows=W.shape[0]))
        projected.append(X @ W)
    Q, K, V = projected
    mask = causal_mask(X.shape[0]) if causal else None
    result = attention(Q, K, V, scale=scale, mask=mask, sharpness=sharpness)
    return SelfAttentionResult(**result.__dict__, x=X, Q=Q, K=K, V=V)


def weights_by_sharpness(x, W_q=None, W_k=None, *, query: int, sharpnesses, scale: bool = True,
                         causal: bool = False) -> np.ndarray:
    """(len(sharpnesses), T): the query's row alpha_query,. = softmax(beta s_query,. / sqrt(d_k)) at each beta."""
    rows = []
    for beta in sharpnesses:
        result = self_attention(x, W_q, W_k, None, scale=scale, causal=causal, sharpness=beta)
        if not 0 <= query < result.weights.shape[0]:
            raise ValueError(_("The query token must be a row of X, 0 to {last}; got {got}.",
                               last=result.weights.shape[0] - 1, got=query))
        rows.append(result.weights[query])
    return np.array(rows)


# --- the fixed window the chapter starts from -------------------------------------------

def window_average(x, k: int) -> np.ndarray:
    """c_t = mean of x_j for j in [t-k, t+k], over the positions that exist.

    Edge tokens have fewer neighbours, so they average fewer vectors. As weights this is
    the row-normalised band matrix returned by `window_weights`.
    """
    X = check_matrix(x, _("X (the token embeddings)"))
    return window_weights(X.shape[0], k) @ X


def window_inside(T: int, k: int) -> np.ndarray:
    """(T, T) True where token j is inside token t's window, |t - j| <= k: the keys a window average sees. Outside
    it the average's 0 is no choice (as a causal mask's future is not): a chart draws it as outside, not as a weight
    below 1/T."""
    if not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(_("The window half-width k must be a whole number, 0 or more."))
    if k > limits.MAX_WINDOW:
        raise ValueError(_("The window half-width k = {k} is beyond the limit of {most}.", k=k, most=limits.MAX_WINDOW))
    if T < 1 or T > limits.MAX_TOKENS:
        raise ValueError(_("A window average needs between 1 and {most} tokens; got {got}.", most=limits.MAX_TOKENS,
                           got=T))
    positions = np.arange(T)
    return np.abs(positions[:, None] - positions[None, :]) <= k


def window_weights(T: int, k: int) -> np.ndarray:
    """(T, T) weights of the window average: 1/(window size) inside |t - j| <= k, 0 outside."""
    inside = window_inside(T, k)
    return inside / inside.sum(axis=1, keepdims=True)


def window_reach(T: int, t: int, j: int) -> tuple[int, float]:
    """The smallest half-width k whose window around t covers j, k = |j - t|, and the weight 1/|W_t| that window
    gives j (and every other token inside). Counted, not built: it holds for any distance in the sentence, also
    past the largest window the page draws (limits.MAX_WINDOW)."""
    if T < 1 or T > limits.MAX_TOKENS:
        raise ValueError(_("A window average needs between 1 and {most} tokens; got {got}.", most=limits.MAX_TOKENS,
                           got=T))
    if not (0 <= t < T and 0 <= j < T):
        raise ValueError(_("Tokens {t} and {j} must both be among the {T} tokens (0 to {last}).", t=t, j=j, T=T,
                           last=T - 1))
    k = abs(j - t)
    size = min(T - 1, t + k) - max(0, t - k) + 1
    return k, 1.0 / size


def window_reach_sentence(T: int, t: int, j: int, *, attention_weight: float | None = None,
                          name: str | None = None) -> str:
    """What a window must do to take anything from token j for token t: the sentence the Context page prints.
    `attention_weight`, attention's weight on j: where the window gives j no less than attention does (a near window
    can give a neighbour more), the sentence says both numbers instead of "only"; `name`: j's label where several
    tokens tie and j is the nearest of them (None: j is the one just named, "it")."""
    k, weight = window_reach(T, t, j)
    beyond = (" " + _("(wider than any window drawn here: the window average stops at k = {largest})",
                      largest=limits.MAX_WINDOW) if k > limits.MAX_WINDOW else "")
    shown = numbers.fixed(weight)
    if attention_weight is None or round(weight, 3) < round(attention_weight, 3):
        if name is None:
            return _("A window needs k = {k}{beyond} to reach it, and then gives it only {weight}, the same as every "
                     "other token inside.", k=k, beyond=beyond, weight=shown)
        return _("A window needs k = {k}{beyond} to reach **{name}**, the nearest of them, and then gives it only "
                 "{weight}, the same as every other token inside.", k=k, beyond=beyond, name=name, weight=shown)
    attended = numbers.fixed(attention_weight)
    if name is None:
        return _("A window needs k = {k}{beyond} to reach it, and then gives it {weight}, the same as every other "
                 "token inside (attention gives it {attention}).", k=k, beyond=beyond, weight=shown,
                 attention=attended)
    return _("A window needs k = {k}{beyond} to reach **{name}**, the nearest of them, and then gives it {weight}, the "
             "same as every other token inside (attention gives it {attention}).", k=k, beyond=beyond, name=name,
             weight=shown, attention=attended)


# --- several heads ----------------------------------------------------------------------

@dataclass(frozen=True)
class MultiHeadResult:
    """MultiHead(X) = [head_1 ... head_h] W_O, each head attention on its own d/h-wide slice."""
    heads: list[SelfAttentionResult]
    concat: np.ndarray   # (T, h * d_head)
    output: np.ndarray   # (T, d)  concat @ W_o
    d_head: int


def split_heads(W: np.ndarray, h: int) -> list[np.ndarray]:
    """Cut a (d, d) projection into h column blocks of width d/h: head m uses W[:, m*d/h:(m+1)*d/h]."""
    d_out = W.shape[1]
    if h < 1 or h > limits.MAX_HEADS:
        raise ValueError(_("The number of heads h must be between 1 and {most}; got {got}.", most=limits.MAX_HEADS,
                           got=h))
    if d_out % h:
        raise ValueError(_("The width d = {d} cannot be split evenly into h = {h} heads; choose h that divides d.",
                           d=d_out, h=h))
    width = d_out // h
    return [W[:, m * width:(m + 1) * width] for m in range(h)]


def multi_head_attention(x, W_q, W_k, W_v, W_o, h: int, *, causal: bool = False) -> MultiHeadResult:
    """Each head m: attention(X W_q^m, X W_k^m, X W_v^m) with d_k = d/h; concat; times W_O."""
    X = check_matrix(x, _("X (the token embeddings)"))
    Ws = [check_matrix(W, name) for W, name in ((W_q, "W_Q"), (W_k, "W_K"), (W_v, "W_V"), (W_o, "W_O"))]
    d = X.shape[1]
    for W, name in zip(Ws[:3], ("W_Q", "W_K", "W_V")):
        if W.shape != (d, d):
            raise ValueError(_("{name} must be {d} x {d} (model width by model width); it is {rows} x {cols}.",
                               name=name, d=d, rows=W.shape[0], cols=W.shape[1]))
    if Ws[3].shape != (d, d):
        raise ValueError(_("W_O must be {d} x {d}; it is {rows} x {cols}.", d=d, rows=Ws[3].shape[0],
                           cols=Ws[3].shape[1]))
    heads = [self_attention(X, q, k, v, causal=causal)
             for q, k, v in zip(split_heads(Ws[0], h), split_heads(Ws[1], h), split_heads(Ws[2], h))]
    concat = np.concatenate([head.context for head in heads], axis=1)
    return MultiHeadResult(heads=heads, concat=concat, output=concat @ Ws[3], d_head=d // h)


def random_projections(d: int, seed: int, *, gain: float = 1.0) -> dict[str, np.ndarray]:
    """W_Q, W_K, W_V, W_O as a model starts them: each entry drawn N(0, gain^2 / d), seeded.

    The 1/d variance keeps x W about as long as x; `gain` > 1 sharpens the untrained heads.
    """
    if not isinstance(d, (int, np.integer)) or not 1 <= d <= limits.MAX_DIM:
        raise ValueError(_("The width d must be a whole number from 1 to {most}; got {got}.", most=limits.MAX_DIM,
                           got=d))
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(_("The seed must be a whole number, 0 or more; got {got}.", got=seed))
    if not np.isfinite(gain) or not 0 < gain <= limits.MAX_PROJECTION_GAIN:
        raise ValueError(_("The gain must be above 0 and at most {most}; got {got}.",
                           most=numbers.localized(f"{limits.MAX_PROJECTION_GAIN:g}"),
                           got=numbers.localized(f"{gain:g}")))
    rng = np.random.default_rng(int(seed))
    return {name: rng.normal(0.0, gain / np.sqrt(d), size=(d, d)) for name in ("W_q", "W_k", "W_v", "W_o")}


def identity_projections(d: int, *, gain: float = 1.0) -> dict[str, np.ndarray]:
    """W_Q = W_K = gain I, W_V = W_O = I: cut into heads, head m compares only features m d/h .. (m+1) d/h - 1.

    Hand-built rather than learned: each head sees its own block of the embedding's features,
    so each head's weights follow a different notion of similarity.
    """
    if not isinstance(d, (int, np.integer)) or not 1 <= d <= limits.MAX_DIM:
        raise ValueError(_("The width d must be a whole number from 1 to {most}; got {got}.", most=limits.MAX_DIM,
                           got=d))
    if not np.isfinite(gain) or not 0 < gain <= limits.MAX_PROJECTION_GAIN:
        raise ValueError(_("The gain must be above 0 and at most {most}; got {got}.",
                           most=numbers.localized(f"{limits.MAX_PROJECTION_GAIN:g}"),
                           got=numbers.localized(f"{gain:g}")))
    eye = np.eye(d)
    return {"W_q": gain * eye, "W_k": gain * eye, "W_v": eye.copy(), "W_o": eye.copy()}


@dataclass(frozen=True)
class ShapeStep:
    """One arrow of the multi-head data flow: what is computed and the shape that comes out."""
    name: str         # marked with N_: a page shows it translated, _(step.name)
    formula: str      # LaTeX, the chapter's symbols
    shape: tuple[int, ...]
    count: int        # how many such arrays (h for per-head steps)


def shape_trace(result: MultiHeadResult) -> list[ShapeStep]:
    """The shapes of every intermediate of a multi-head result, read off the arrays themselves."""
    first = result.heads[0]
    h = len(result.heads)
    return [
        ShapeStep(N_("tokens"), "X", first.x.shape, 1),
        ShapeStep(N_("queries of head m"), r"Q_m = X W^Q_m", first.Q.shape, h),
        ShapeStep(N_("keys of head m"), r"K_m = X W^K_m", first.K.shape, h),
        ShapeStep(N_("values of head m"), r"V_m = X W^V_m", first.V.shape, h),
        ShapeStep(N_("scores"), r"Q_m K_m^\top / \sqrt{d/h}", first.scaled.shape, h),
        ShapeStep(N_("weights"), r"\alpha_m = \operatorname{softmax}(\cdot)", first.weights.shape, h),
        ShapeStep(N_("head m"), r"\operatorname{head}_m = \alpha_m V_m", first.context.shape, h),
        ShapeStep(N_("concatenated"), r"[\operatorname{head}_1 \cdots \operatorname{head}_h]", result.concat.shape, 1),
        ShapeStep(N_("output"), r"[\cdots] W^O", result.output.shape, 1),
    ]


# --- what heads cost ----------------------------------------------------------------------

SOFTMAX_OPS_PER_SCORE = 5  # max, subtract, exp, sum, divide


@dataclass(frozen=True)
class AttentionCost:
    """Parameters and floating-point operations (a multiply-add counts 2) of one attention layer.

    params = 3 d (h d_head) + (h d_head) d;   FLOPs = 2 T d (3 h d_head) + 4 h T^2 d_head
             + 5 h T^2 + 2 T (h d_head) d   (projections, scores and weighted sum, softmax, W_O).
    """
    T: int
    d: int
    h: int
    d_head: int
    output_projection: bool
    params_qkv: int           # W_Q, W_K, W_V: 3 d (h d_head)
    params_out: int           # W_O: (h d_head) d, or 0
    flops_qkv: int            # X W_Q, X W_K, X W_V
    flops_scores: int         # Q_m K_m^T for every head
    flops_softmax: int        # softmax of every score
    flops_weighted_sum: int   # alpha_m V_m for every head
    flops_out: int            # concat W_O

    @property
    def params(self) -> int:
        return self.params_qkv + self.params_out

    @property
    def flops(self) -> int:
        return self.flops_qkv + self.flops_scores + self.flops_softmax + self.flops_weighted_sum + self.flops_out


def attention_cost(T: int, d: int, h: int = 1, d_head: int | None = None, *,
                   output_projection: bool = True) -> AttentionCost:
    """Count the parameters and FLOPs of h heads of width d_head (d/h unless given) over T tokens."""
    for value, name, top in ((T, _("T (tokens)"), limits.MAX_COST_TOKENS),
                             (d, _("d (model width)"), limits.MAX_COST_WIDTH),
                             (h, _("h (heads)"), limits.MAX_COST_HEADS)):
        if not isinstance(value, (int, np.integer)) or not 1 <= value <= top:
            raise ValueError(_("{name} must be a whole number from 1 to {most}; got {got}.", name=name,
                               most=numbers.grouped(top), got=value))
    if d_head is None:
        if d % h:
            raise ValueError(_("The width d = {d} cannot be split evenly into h = {h} heads; choose h that divides d.",
                               d=d, h=h))
        d_head = d // h
    if not isinstance(d_head, (int, np.integer)) or not 1 <= d_head <= limits.MAX_COST_WIDTH:
        raise ValueError(_("The head width must be a whole number from 1 to {most}; got {got}.",
                           most=numbers.grouped(limits.MAX_COST_WIDTH), got=d_head))
    T, d, h, d_head = int(T), int(d), int(h), int(d_head)
    inner = h * d_head
    return AttentionCost(
        T=T, d=d, h=h, d_head=d_head, output_projection=output_projection,
        params_qkv=3 * d * inner, params_out=inner * d if output_projection else 0,
        flops_qkv=2 * T * d * 3 * inner, flops_scores=2 * h * T * T * d_head,
        flops_softmax=SOFTMAX_OPS_PER_SCORE * h * T * T, flops_weighted_sum=2 * h * T * T * d_head,
        flops_out=2 * T * inner * d if output_projection else 0)


def compare_head_costs(T: int, d: int, h: int) -> dict[str, AttentionCost]:
    """One head of width d, h heads of width d/h (the transformer's choice), h heads of width d each."""
    return {"1 head of width d": attention_cost(T, d, 1),
            "h heads of width d/h": attention_cost(T, d, h),
            "h heads of width d each": attention_cost(T, d, h, d_head=d)}


# --- the chapter's worked example -------------------------------------------------------

CHAPTER_TOKENS = ["crane", "by", "the", "lake"]
CHAPTER_X = np.array([[0.8, 0.1, 0.4],   # crane
                      [0.0, 1.0, 0.1],   # by
                      [0.1, 0.9, 0.0],   # the
                      [0.7, 0.2, 0.5]])  # lake
