"""N-gram language models: P(w_t | the n-1 tokens before it), from counts.

    MLE          P(w | c) = C(c w) / C(c .)
    add-k        P(w | c) = (C(c w) + k) / (C(c .) + k V)              (k = 1: Laplace)
    Kneser-Ney   P(w | c) = max(C(c w) - D, 0) / C(c .) + D N1+(c .) / C(c .) * P(w | c')

c is the context (the n-1 tokens before w), c' the context without its first token, C(c .)
the number of times c is followed by any token, V the vocabulary size. Interpolated
Kneser-Ney (Chen & Goodman 1998) uses raw counts at the top order and continuation counts
N1+(. c w) (how many distinct tokens precede c w) below it, and ends in the uniform 1/V;
D is Ney's estimate n1 / (n1 + 2 n2) per order.

Counting is numpy: one lexicographic sort of the text's positions groups equal k-grams for
every k at once; each k-gram gets an integer key (dense id of its first k-1 tokens) * V +
(its last token). Because the keys are sorted, the k-grams that share a context sit side
by side, so a context's next-token counts are one slice. The same interface as every model in
the app (`engine.lm.LanguageModel`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from engine import limits, numbers
from engine.i18n import N_, _, ngettext
from engine.lm import Tokenizer, apply_temperature_top_k, check_ids, check_temperature

SMOOTHINGS = ("none", "add-k", "kneser-ney")
SMOOTHING_NAMES = {"none": N_("MLE (no smoothing)"), "add-k": N_("add-k (Lidstone)"), "kneser-ney": "Kneser-Ney"}
HELD_OUT_K = 1.0   # the k of add-k in the held-out tables (held_out_rows): add-one, Laplace's


def smoothing_name(smoothing: str, k: float | None = None) -> str:
    """A smoothing as the pages name it, in the reader's language. add-k with k = 1 is Laplace's add-one; with any
    other k, Lidstone's."""
    if smoothing == "add-k" and k is not None:
        return _("add-1 (Laplace)") if float(k) == 1.0 else _("add-k, k = {k} (Lidstone)",
                                                               k=numbers.localized(f"{float(k):g}"))
    return _(SMOOTHING_NAMES[smoothing])


def nats_to_bits(nats: float) -> float:
    """bits = nats / ln 2."""
    return nats / math.log(2)


def perplexity(nats: float) -> float:
    """PPL = exp(H), H in nats per token: the number of equally likely choices it amounts to."""
    return math.exp(nats) if nats < 700 else math.inf


# --- counting ---------------------------------------------------------------------------------

@dataclass
class OrderStats:
    """Per-k-gram statistic `a` (raw counts or continuation counts) grouped by context."""
    a: np.ndarray             # a[g] for each distinct k-gram g (sorted by key)
    start: np.ndarray         # k-grams of context c are g in [start[c], start[c+1])
    total: np.ndarray         # S(c) = sum of a over the context's k-grams
    types: np.ndarray         # T(c) = number of its k-grams with a > 0
    discount: float           # D for Kneser-Ney at this order


@dataclass
class NGramCounts:
    """Counts of every k-gram, k = 1..max_order, over one sequence of token ids."""
    vocab_size: int
    max_order: int
    n_tokens: int
    keys: list[np.ndarray]         # keys[k]: sorted distinct keys of the k-grams (index 0 unused)
    counts: list[np.ndarray]       # counts[k][g] = C(g) (int32, as are the statistics below)
    continuation: list[np.ndarray]  # continuation[k][g] = N1+(. g), for k < max_order
    raw: list[OrderStats] = field(default_factory=list)       # stats of counts per order
    kn_lower: list[OrderStats] = field(default_factory=list)  # stats of continuation counts per order

    def lookup(self, order: int, prefix_dense: np.ndarray, last: np.ndarray) -> np.ndarray:
        """Dense ids of the k-grams (prefix, last) at this order; -1 where never seen."""
        keys = self.keys[order]
        prefix_dense = np.asarray(prefix_dense, dtype=np.int64)
        query = prefix_dense * self.vocab_size + np.asarray(last, dtype=np.int64)
        index = np.searchsorted(keys, query)
        found = (prefix_dense >= 0) & (index < keys.size)
        found[found] = keys[index[found]] == query[found]
        return np.where(found, index, -1)

    def dense_ids(self, x: np.ndarray, max_order: int) -> list[np.ndarray]:
        """dense[k][s]: dense id of the k-gram x[s : s+k] in these counts (-1 if unseen), k = 0..max_order."""
        dense = [np.zeros(x.size + 1, dtype=np.int64)]
        for k in range(1, min(max_order, self.max_order) + 1):
            s = np.arange(max(x.size - k + 1, 0))
            dense.append(self.lookup(k, dense[k - 1][s], x[s + k - 1]))
        return dense

    def step(self, order: int, prefix_dense: int, token: int) -> int:
        """Dense id of the k-gram (prefix, token) at this order; -1 if never seen (one lookup)."""
        if prefix_dense < 0:
            return -1
        keys = self.keys[order]
        query = prefix_dense * self.vocab_size + token
        index = int(keys.searchsorted(query))
        return index if index < keys.size and keys[index] == query else -1

    def context_id(self, context: Sequence[int]) -> int:
        """Dense id of a context (a (k-1)-gram) at order k = len(context) + 1; -1 if never seen."""
        dense = 0
        for j, token in enumerate(context, start=1):
            dense = self.step(j, dense, int(token))
        return dense

    def context_ids(self, context: Sequence[int]) -> list[int]:
        """[dense id of the last j tokens of context, j = 0..len(context)] (-1 where unseen)."""
        return [self.context_id(context[len(context) - j:] if j else ()) for j in range(len(context) + 1)]

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict]:
        """Every table as named arrays plus JSON numbers (engine.machinery.cache writes them; no pickle)."""
        arrays, discounts = {}, {"raw": [], "kn_lower": []}
        for k in range(1, self.max_order + 1):
            arrays[f"keys{k}"], arrays[f"counts{k}"] = self.keys[k], self.counts[k]
            if k < self.max_order:
                arrays[f"continuation{k}"] = self.continuation[k]
        for family in ("raw", "kn_lower"):
            for k, stats in enumerate(getattr(self, family), start=1):
                arrays.update({f"{family}{k}.{part}": getattr(stats, part)
                               for part in ("a", "start", "total", "types")})
                discounts[family].append(stats.discount)
        return arrays, {"vocab_size": self.vocab_size, "max_order": self.max_order, "n_tokens": self.n_tokens,
                        "discounts": discounts}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict) -> "NGramCounts":
        """The counts to_arrays wrote (the arrays may be read-only memory maps)."""
        top = meta["max_order"]
        empty_keys, empty_counts = np.zeros(0, np.int64), np.zeros(0, np.int32)
        model = cls(meta["vocab_size"], top, meta["n_tokens"],
                    [empty_keys] + [arrays[f"keys{k}"] for k in range(1, top + 1)],
                    [empty_counts] + [arrays[f"counts{k}"] for k in range(1, top + 1)],
                    [empty_counts] + [arrays[f"continuation{k}"] for k in range(1, top)])
        for family in ("raw", "kn_lower"):
            for k, discount in enumerate(meta["discounts"][family], start=1):
                getattr(model, family).append(OrderStats(*(arrays[f"{family}{k}.{part}"]
                                                           for part in ("a", "start", "total", "types")), discount))
        return model

    def gram_tokens(self, order: int, dense: int) -> list[int]:
        """The tokens of the k-gram with this dense id, first to last."""
        tokens = []
        while order >= 1:
            key = int(self.keys[order][dense])
            dense, last = divmod(key, self.vocab_size)
            tokens.append(last)
            order -= 1
        return tokens[::-1]


def _context_starts(keys: np.ndarray, n_contexts: int, vocab_size: int) -> np.ndarray:
    """start[c]: the first k-gram of context c in the sorted keys (int32: counts stay below 2^31)."""
    return np.searchsorted(keys // vocab_size, np.arange(n_contexts + 1)).astype(np.int32)


def _order_stats(a: np.ndarray, start: np.ndarray) -> OrderStats:
    cum_a = np.concatenate([[0], np.cumsum(a, dtype=np.int64)])
    cum_t = np.concatenate([[0], np.cumsum(a > 0, dtype=np.int64)])
    n1, n2 = int(np.sum(a == 1)), int(np.sum(a == 2))
    discount = 0.75 if n1 + 2 * n2 == 0 else min(max(n1 / (n1 + 2 * n2), 0.05), 0.95)
    total = (cum_a[start[1:]] - cum_a[start[:-1]]).astype(np.int32)
    types = (cum_t[start[1:]] - cum_t[start[:-1]]).astype(np.int32)
    return OrderStats(a, start, total, types, discount)


def check_order(n: int, limit: int = limits.MAX_NGRAM_ORDER) -> int:
    """n as an int, if it is a whole number from 1 to `limit` (a student's models: MAX_NGRAM_ORDER)."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or not 1 <= n <= limit:
        raise ValueError(_("n must be a whole number from 1 to {limit}.", limit=limit))
    return int(n)


def lexicographic_order(ids: np.ndarray, width: int, vocab_size: int) -> np.ndarray:
    """Positions sorted by the `width` tokens starting there (past the end counts as smallest).

    One sort serves every order: sorted by k tokens, positions that share their first j <= k
    tokens sit side by side. np.lexsort sorts by one token column at a time (a stable radix
    sort when ids fit in 16 bits).
    """
    padded = np.concatenate([ids + 1, np.zeros(width, dtype=np.int64)])  # 0 = past the end
    dtype = np.uint16 if vocab_size + 1 < 2 ** 16 else np.int64
    N = ids.size
    return np.lexsort([padded[j:j + N].astype(dtype) for j in reversed(range(width))])


def count_ngrams(ids, max_order: int, vocab_size: int | None = None, *,
                 limit: int = limits.MAX_NGRAM_ORDER) -> NGramCounts:
    """Count every k-gram for k = 1..max_order from one lexicographic sort, plus continuation counts.

    In sorted order, a new k-gram starts wherever an entry shares fewer than k leading
    tokens with the entry before it (lcp < k). Its key is (dense id of its first k-1 tokens)
    * V + (last token); dense ids are ranks in sorted order, so the keys come out sorted.
    """
    max_order = check_order(max_order, limit)
    ids = check_ids(ids, vocab_size, limit=limits.MAX_NGRAM_TOKENS, reader="an n-gram model")
    if ids.size < max_order:
        raise ValueError(ngettext("The text has only {n} token; a {order}-gram needs at least {order}. Use a longer "
                                  "text or a smaller n.",
                                  "The text has only {n} tokens; a {order}-gram needs at least {order}. Use a longer "
                                  "text or a smaller n.", int(ids.size), order=max_order))
    V = int(vocab_size if vocab_size is not None else ids.max() + 1)
    N = ids.size
    order = lexicographic_order(ids, max_order, V)
    padded = np.concatenate([ids, np.full(max_order, -1, dtype=np.int64)])
    lcp = np.zeros(N, dtype=np.int8)  # leading tokens shared with the previous sorted entry
    running = np.zeros(N, dtype=bool)
    running[1:] = True
    for j in range(max_order):
        column = padded[order + j]
        running[1:] &= column[1:] == column[:-1]
        lcp += running

    keys, counts, continuation = [np.zeros(0, np.int64)], [np.zeros(0, np.int32)], [np.zeros(0, np.int32)]
    prefix_dense = np.zeros(N + 1, dtype=np.int64)  # the empty prefix, at every position
    for k in range(1, max_order + 1):
        valid = order <= N - k                    # a whole k-gram starts there
        starts = valid & (lcp < k)
        group = np.cumsum(starts) - 1
        first = order[starts]                     # one position of each distinct k-gram, in sorted order
        dense = np.empty(N - k + 1, dtype=np.int64)
        dense[order[valid]] = group[valid]
        keys.append(prefix_dense[first] * V + ids[first + k - 1])
        counts.append(np.bincount(group[valid], minlength=first.size).astype(np.int32))
        if k >= 2:  # N1+(. g) for the (k-1)-grams g: how many distinct k-grams end in g
            continuation.append(np.bincount(prefix_dense[first + 1], minlength=keys[k - 1].size).astype(np.int32))
        prefix_dense = dense
    del order, padded, lcp, running, prefix_dense, dense, group, starts, valid
    model = NGramCounts(V, max_order, N, keys, counts, continuation)
    for k in range(1, max_order + 1):
        start = _context_starts(keys[k], 1 if k == 1 else keys[k - 1].size, V)  # shared by both statistics
        model.raw.append(_order_stats(counts[k], start))
        if k < max_order:
            model.kn_lower.append(_order_stats(continuation[k], start))
    return model


# --- the model ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Distribution:
    """P(next token | context) over the whole vocabulary, with what it was built from."""
    context: tuple[int, ...]   # the last n-1 tokens (fewer at the start of a text)
    probs: np.ndarray          # (V,), sums to 1 (MLE: may be all on seen tokens only)
    order_used: int            # the order whose counts are shown: the longest context seen in training
                               # (add-k: the full context, or 0 when it was never seen)
    context_count: int         # C(c .) at that order: how often the context was followed by anything
    counts: np.ndarray         # (V,) C(c w) at that order, raw counts

    def top(self, k: int = 10) -> list[tuple[int, float, int]]:
        """(token id, probability, count) of the k most likely next tokens, most likely first."""
        k = max(1, min(int(k), self.probs.size, limits.MAX_TOP_K_VIEW))
        best = np.argpartition(-self.probs, k - 1)[:k]
        best = best[np.lexsort((best, -self.probs[best]))]
        return [(int(i), float(self.probs[i]), int(self.counts[i])) for i in best]


@dataclass(frozen=True)
class Component:
    """One part of a mixture: `weight` of the probability, spread over `ids` by `probs` (sum 1).

    order 0 is the uniform distribution over the whole vocabulary (ids empty).
    """
    order: int
    weight: float
    ids: np.ndarray
    probs: np.ndarray
    context_id: int  # dense id of the context at this order (names the component for caching)


@dataclass(frozen=True)
class Mixture:
    """P(w | context) = sum over components of weight * P_component(w)."""
    context: tuple[int, ...]
    components: list[Component]
    order_used: int
    count_ids: np.ndarray      # tokens seen after the context at order_used, and C(c w)
    count_values: np.ndarray
    vocab_size: int

    def dense(self) -> Distribution:
        probs = np.zeros(self.vocab_size)
        for component in self.components:
            if component.order == 0:
                probs += component.weight / self.vocab_size
            else:
                probs[component.ids] += component.weight * component.probs
        counts = np.zeros(self.vocab_size, dtype=np.int64)
        counts[self.count_ids] = self.count_values
        return Distribution(self.context, probs, self.order_used, int(self.count_values.sum()), counts)


@dataclass(frozen=True)
class Score:
    """Cross-entropy of a model on a text: H = -(1/T) sum_t ln P(w_t | w_<t)."""
    log_probs: np.ndarray  # ln P(w_t | context) for t = 1..len-1 (-inf where P = 0)
    nats: float            # per token (inf when some token got P = 0)
    bits: float
    perplexity: float
    n_zero: int            # tokens the model gave probability 0 (MLE only)


@dataclass(frozen=True)
class TableRow:
    order: int
    seen: int         # distinct k-grams in the training text
    possible: float   # V^k
    fraction: float   # seen / possible


class NGramModel:
    """An n-gram language model over token ids (n = 1..6; higher from counts that go further), makemore-style."""

    def __init__(self, n: int, smoothing: str = "kneser-ney", k: float = 1.0, tokenizer: Tokenizer | None = None,
                 *, limit: int = limits.MAX_NGRAM_ORDER):
        self.n = check_order(n, limit)
        if smoothing not in SMOOTHINGS:
            raise ValueError(_("Smoothing must be one of {names}; not {smoothing}.", names=", ".join(SMOOTHINGS),
                               smoothing=repr(smoothing)))
        if smoothing == "add-k" and not (isinstance(k, (int, float)) and 0 < k <= limits.MAX_ADD_K):
            raise ValueError(_("k of add-k smoothing must be more than 0 and at most {limit}.",
                               limit=numbers.localized(f"{limits.MAX_ADD_K:g}")))
        self.smoothing = smoothing
        self.k = float(k)
        self.tokenizer = tokenizer
        self.ngrams: NGramCounts | None = None
        self._parts: dict = {}  # Kneser-Ney pieces per (order, context id), filled as they are met
        self.links: dict = {}  # the same for sampling (ChainSampler), with running sums

    @property
    def name(self) -> str:
        extra = f", k={self.k:g}" if self.smoothing == "add-k" else ""
        return _("{n}-gram ({smoothing})", n=self.n, smoothing=_(SMOOTHING_NAMES[self.smoothing]) + extra)

    @property
    def vocab_size(self) -> int:
        return self.fitted().vocab_size

    def fit(self, ids, vocab_size: int | None = None) -> "NGramModel":
        """Count the k-grams of `ids` for k = 1..n. V = vocab_size, else the tokenizer's, else max id + 1."""
        if vocab_size is None and self.tokenizer is not None:
            vocab_size = self.tokenizer.vocab_size
        self.ngrams = count_ngrams(ids, self.n, vocab_size)
        self._parts, self.links = {}, {}
        return self

    @classmethod
    def from_counts(cls, ngrams: NGramCounts, n: int, smoothing: str = "kneser-ney", k: float = 1.0,
                    tokenizer: Tokenizer | None = None) -> "NGramModel":
        """A model of order n <= ngrams.max_order sharing counts already made (no recounting)."""
        model = cls(n, smoothing, k, tokenizer, limit=max(ngrams.max_order, limits.MAX_NGRAM_ORDER))
        if model.n > ngrams.max_order:
            raise ValueError(_("These counts go up to {order}-grams (the text has {tokens} tokens); n = {n} needs "
                               "more. Choose a smaller n or a longer text.", order=ngrams.max_order,
                               tokens=numbers.grouped(ngrams.n_tokens), n=n))
        model.ngrams = ngrams
        return model

    def fitted(self) -> NGramCounts:
        """The counts this model reads; a sentence if it has none yet."""
        if self.ngrams is None:
            raise ValueError("The model has not been fitted yet: call fit(ids) first.")
        return self.ngrams

    def _stats(self, order: int) -> OrderStats:
        """Kneser-Ney: raw counts at the top order, continuation counts below; otherwise raw counts."""
        ngrams = self.fitted()
        if self.smoothing == "kneser-ney" and order < self.n:
            return ngrams.kn_lower[order - 1]
        return ngrams.raw[order - 1]

    # --- one context ----------------------------------------------------------------------------

    def mixture(self, context: Sequence[int] = ()) -> Mixture:
        """P(w | last n-1 tokens of context) as a mixture of count tables and the uniform 1/V.

        MLE: the counts after the longest context seen. add-k: C(c .)/(C(c .) + kV) of the counts
        plus kV/(C(c .) + kV) of the uniform. Kneser-Ney: at each order from the top, a share
        1 - gamma of the discounted counts max(a - D, 0), where gamma = D N1+(c .) / C(c .) is
        handed down to the shorter context; what is left at the bottom goes to the uniform.
        """
        ngrams = self.fitted()
        context = tuple(int(t) for t in check_ids(list(context), ngrams.vocab_size, reader="an n-gram model"))
        context = context[max(0, len(context) - (self.n - 1)):] if self.n > 1 else ()
        return self._mixture(context, ngrams.context_ids(context))

    def _mixture(self, context: tuple[int, ...], found: list[int]) -> Mixture:
        """The mixture for a checked context whose suffixes have dense ids `found` (see context_ids)."""
        ngrams = self.fitted()
        V = ngrams.vocab_size
        top_order = len(context) + 1
        # found[k-1]: dense id of the last k-1 tokens, or -1; seen[k-1]: was it ever followed by a token?
        seen = [c >= 0 and ngrams.raw[k - 1].total[c] > 0 for k, c in enumerate(found, start=1)]

        if self.smoothing == "add-k":
            used = top_order if seen[-1] else 0
        else:
            used = max(k for k in range(1, top_order + 1) if seen[k - 1])
        count_ids, count_values = self._slice(ngrams.raw[used - 1], used, found[used - 1]) if used else \
            (np.zeros(0, np.int64), np.zeros(0, np.int64))
        S = int(count_values.sum())

        components: list[Component] = []
        if self.smoothing == "none":
            components.append(Component(used, 1.0, count_ids, count_values / S, found[used - 1]))
        elif self.smoothing == "add-k":  # an unseen context has C(c .) = 0: all of it uniform
            if S:
                components.append(Component(used, S / (S + self.k * V), count_ids, count_values / S, found[used - 1]))
            components.append(Component(0, self.k * V / (S + self.k * V), np.zeros(0, np.int64), np.zeros(0), 0))
        else:
            remaining = 1.0
            for order in range(top_order, 0, -1):
                part = self._kneser_ney_part(order, found[order - 1])
                if part is None:
                    continue
                ids, probs, gamma = part
                components.append(Component(order, remaining * (1 - gamma), ids, probs, found[order - 1]))
                remaining *= gamma
            components.append(Component(0, remaining, np.zeros(0, np.int64), np.zeros(0), 0))
        return Mixture(context, components, used, count_ids, count_values, V)

    def _kneser_ney_part(self, order: int, c: int):
        """(ids, max(a - D, 0) normalised, gamma) for context c at this order; None if c was never seen.

        Kept per (order, context): sampling meets the same short contexts over and over.
        """
        key = (order, c)
        part = self._parts.get(key, False)
        if part is not False:
            return part
        stats = self._stats(order)
        if c < 0 or stats.total[c] == 0:
            part = None
        else:
            ids, a = self._slice(stats, order, c)
            discounted = np.maximum(a - stats.discount, 0)
            part = ids, discounted / discounted.sum(), stats.discount * stats.types[c] / stats.total[c]
        if len(self._parts) > 200_000:
            self._parts.clear()
        self._parts[key] = part
        return part

    def distribution(self, context: Sequence[int] = ()) -> Distribution:
        """P(w | last n-1 tokens of context) for every w of the vocabulary."""
        return self.mixture(context).dense()

    def _slice(self, stats: OrderStats, order: int, context: int) -> tuple[np.ndarray, np.ndarray]:
        """(next tokens w, statistic a(c w)) for the k-grams of this context: one slice of the sorted keys."""
        ngrams = self.fitted()
        lo, hi = stats.start[context], stats.start[context + 1]
        return ngrams.keys[order][lo:hi] % ngrams.vocab_size, stats.a[lo:hi]

    def next_token_probs(self, context: Sequence[int]) -> np.ndarray:
        return self.distribution(context).probs

    # --- a whole text -----------------------------------------------------------------------------

    def token_probabilities(self, ids, dense: list[np.ndarray] | None = None) -> np.ndarray:
        """P(w_t | up to n-1 tokens before it) for t = 1..len(ids)-1, all positions at once.

        `dense` (from `ngrams.dense_ids(ids, n)`) may be passed in to score several models
        sharing these counts without looking the text up again.
        """
        ngrams = self.fitted()
        V = ngrams.vocab_size
        x = check_ids(ids, V, limit=limits.MAX_NGRAM_TOKENS, reader="an n-gram model")
        L = x.size
        if L < 2:
            raise ValueError(_("Scoring needs at least two tokens: one to predict from and one to predict."))
        t = np.arange(1, L)
        if dense is None or len(dense) <= self.n:
            dense = ngrams.dense_ids(x, self.n)

        probs = np.full(t.size, 1.0 / V) if self.smoothing == "kneser-ney" else np.full(t.size, np.nan)
        for order in range(1, self.n + 1):
            has_context = t - order + 1 >= 0
            s = np.where(has_context, t - order + 1, 0)
            context = np.where(has_context, dense[order - 1][s], -1)
            gram = np.where(has_context, dense[order][np.minimum(s, dense[order].size - 1)], -1)
            stats = self._stats(order)
            seen = context >= 0
            S = np.where(seen, stats.total[np.maximum(context, 0)], 0).astype(float)
            T = np.where(seen, stats.types[np.maximum(context, 0)], 0)
            a = np.where(gram >= 0, stats.a[np.maximum(gram, 0)], 0).astype(float)
            if self.smoothing == "kneser-ney":
                D = stats.discount
                with np.errstate(divide="ignore", invalid="ignore"):
                    mixed = np.maximum(a - D, 0) / S + D * T / S * probs
                probs = np.where(S > 0, mixed, probs)
            elif self.smoothing == "add-k":
                # the longest available context, seen or not: unseen gives (0 + k) / (0 + kV)
                probs = np.where(has_context, (a + self.k) / (S + self.k * V), probs)
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    probs = np.where(S > 0, a / S, probs)  # back off to the longest seen context
        return probs

    def score(self, ids, dense: list[np.ndarray] | None = None) -> Score:
        """Cross-entropy in nats per token over positions 1..len-1, each with up to n-1 tokens of context."""
        probs = self.token_probabilities(ids, dense)
        with np.errstate(divide="ignore"):
            log_probs = np.log(probs)
        n_zero = int(np.sum(probs == 0))
        nats = math.inf if n_zero else float(-log_probs.mean())
        return Score(log_probs, nats, nats_to_bits(nats), perplexity(nats), n_zero)

    def cross_entropy(self, ids: Sequence[int]) -> float:
        return self.score(ids).nats

    def sample(self, length: int, *, seed: int, temperature: float = 1.0, top_k: int | None = None,
               prompt: Sequence[int] = ()) -> list[int]:
        """`length` new ids after `prompt`: w_t ~ P(w | last n-1 tokens)^(1/tau), renormalised.

        Randomness only from numpy's Generator(seed): the same seed gives the same ids.
        Temperature 0 is greedy (always the most likely token).
        """
        ngrams = self.fitted()
        if not isinstance(length, (int, np.integer)) or not 0 <= length <= limits.MAX_SAMPLE_TOKENS:
            raise ValueError(_("Sample length must be a whole number from 0 to {limit}.",
                               limit=numbers.grouped(limits.MAX_SAMPLE_TOKENS)))
        check_temperature(temperature)
        if temperature > limits.MAX_TEMPERATURE:
            raise ValueError(_("Temperature {temperature} is beyond the limit of {most}; past about 5 every token is "
                               "already nearly equally likely.", temperature=numbers.localized(f"{temperature:g}"),
                               most=numbers.localized(f"{limits.MAX_TEMPERATURE:g}")))
        history = tuple(int(i) for i in check_ids(list(prompt), ngrams.vocab_size, reader="an n-gram model"))
        rng = np.random.default_rng(seed)
        # No top-k: walk down the orders (ChainSampler; TemperedChain for T != 1), no per-context
        # table over the vocabulary. Top-k or greedy: one table per context met (ReshapedSampler).
        if top_k is None and temperature > 0:
            chain, reshaped = (ChainSampler(self) if temperature == 1 else TemperedChain(self, temperature)), None
        else:
            chain, reshaped = None, ReshapedSampler(self, float(temperature), top_k)
        tables: dict = {}
        out = []
        width = self.n - 1
        context = tuple(history[max(0, len(history) - width):]) if width else ()
        found = ngrams.context_ids(context)  # dense ids of the context's suffixes, kept up to date
        for _step in range(length):
            if chain is not None:
                token = chain.draw(found, rng)
            else:
                if context not in tables:
                    tables[context] = reshaped.table(self._mixture(context, found))
                token = reshaped.draw(tables[context], rng)
            out.append(token)
            if width:  # the new context: the last width tokens, and each suffix's id one lookup away
                found = [0] + [ngrams.step(j, found[j - 1], token) for j in range(1, min(len(found), width) + 1)]
                context = (context + (token,))[-width:]
        return out

    # --- the tables ---------------------------------------------------------------------------------

    def table_stats(self) -> list[TableRow]:
        """Distinct k-grams seen vs V^k possible, k = 1..n: the table the chapter says cannot be filled."""
        ngrams = self.fitted()
        V = ngrams.vocab_size
        return [TableRow(k, int(ngrams.keys[k].size), float(V) ** k, ngrams.keys[k].size / float(V) ** k)
                for k in range(1, self.n + 1)]

    def top_contexts(self, rows: int = 10) -> list[tuple[tuple[int, ...], int]]:
        """The most frequent contexts of the top order (n-1 tokens) and C(c .) for each."""
        ngrams = self.fitted()
        if self.n == 1:
            return [((), ngrams.n_tokens)]
        totals = ngrams.raw[self.n - 1].total
        rows = max(1, min(rows, totals.size))
        best = np.argpartition(-totals, rows - 1)[:rows]
        best = best[np.lexsort((best, -totals[best]))]
        return [(tuple(ngrams.gram_tokens(self.n - 1, int(c))), int(totals[c])) for c in best]


class ChainSampler:
    """Samples P(w | context) at T = 1 by walking down the orders, without building the mixture.

    Every smoothing here is a chain: at the longest context, keep to its own table with
    probability `stay`, else hand down to the next shorter context, and at the bottom the
    uniform 1/V. Kneser-Ney: stay = 1 - gamma at every order that saw its context. add-k:
    stay = C(c .) / (C(c .) + kV) at the full context only, then uniform. MLE: stay = 1 at
    the longest context seen. The chance of ending at each order is the mixture's weight.
    """

    def __init__(self, model: "NGramModel"):
        self.model = model
        self.ngrams = model.fitted()
        self.links: dict = model.links

    def link(self, order: int, c: int):
        """(next tokens, their running probabilities, stay) for context id c at this order; None if unseen."""
        key = (order, c)
        link = self.links.get(key, False)
        if link is not False:
            return link
        model = self.model
        stats = model._stats(order)
        if c < 0 or stats.total[c] == 0:
            link = None
        elif model.smoothing == "kneser-ney":
            ids, probs, gamma = model._kneser_ney_part(order, c)
            link = ids, np.cumsum(probs), 1 - gamma, probs
        else:
            ids, a = model._slice(stats, order, c)
            S = float(stats.total[c])
            stay = 1.0 if model.smoothing == "none" else S / (S + model.k * self.ngrams.vocab_size)
            link = ids, np.cumsum(a) / S, stay, a / S
        if len(self.links) > 200_000:
            self.links.clear()
        self.links[key] = link
        return link

    def walk(self, found: list[int]):
        """((order, context id), link) from the longest context down, for the links this smoothing visits."""
        top = len(found)
        for order in range(top, (top if self.model.smoothing == "add-k" else 1) - 1, -1):  # add-k: full context only
            link = self.link(order, found[order - 1])
            if link is not None:
                yield (order, found[order - 1]), link
                if link[2] >= 1.0:  # MLE: the longest context seen takes it all
                    return

    def chain(self, found: list[int]) -> list[tuple[tuple[int, int], tuple]]:
        return list(self.walk(found))

    def draw(self, found: list[int], rng: np.random.Generator) -> int:
        """One token after the context whose suffixes have dense ids `found` (see NGramCounts.context_ids)."""
        for _order, (ids, cumulative, stay, _probs) in self.walk(found):
            if stay >= 1.0 or rng.random() < stay:
                i = int(cumulative.searchsorted(rng.random() * cumulative[-1], side="right"))
                return int(ids[min(i, ids.size - 1)])
        return int(rng.integers(self.ngrams.vocab_size))


class TemperedChain:
    """Samples p^(1/T) / Z (any T > 0, no top-k) on the same chain, one small table per link.

    A chain level is p(w) = stay P(w) + (1 - stay) p'(w), p' the level below (the uniform
    1/V at the bottom). Off U, the tokens P covers, p = (1 - stay) p', so
        Z = sum_w p(w)^(1/T) = (1 - stay)^(1/T) (Z' - sum_{u in U} p'(u)^(1/T)) + sum_{u in U} p(u)^(1/T),
    and a draw either lands on U (by p(u)^(1/T)) or is a draw of the level below that is
    not in U. Each level is cached by (order, context id), so a new context costs lookups
    on its own few tokens, not V. Work is in logs: tiny T cannot underflow Z.
    """

    MAX_TRIES = 64  # rejections before a level draws off U from its whole distribution instead
    SMALL_VOCABULARY = 512  # up to this V each level keeps p over all tokens (characters: no rejections)

    def __init__(self, model: "NGramModel", temperature: float):
        self.chain = ChainSampler(model)
        self.inverse = 1.0 / temperature
        self.V = self.chain.ngrams.vocab_size
        self.levels: dict = {}

    def point(self, links: list, tokens: np.ndarray) -> np.ndarray:
        """p(tokens) at the level whose links (from its top down) are `links`."""
        p = np.zeros(tokens.size)
        weight = 1.0
        for _order, (ids, _sums, stay, probs) in links:
            at = np.minimum(ids.searchsorted(tokens), ids.size - 1)
            p += weight * stay * np.where(ids[at] == tokens, probs[at], 0.0)
            weight *= 1.0 - stay
        return p + weight / self.V

    def level(self, links: list):
        """(U, running chance of drawing each u of U, log Z, share off U kept by the level below, p or None)."""
        if not links:
            return None
        key = links[0][0]
        known = self.levels.get(key)
        if known is not None:
            return known
        ids, _, stay, probs = links[0][1]
        below = links[1:]
        if self.V <= self.SMALL_VOCABULARY:  # few tokens: p over all of them, from the level below's
            p = (1.0 - stay) * (self.level(below)[4] if below else np.full(self.V, 1.0 / self.V))
            p[ids] += stay * probs
            with np.errstate(divide="ignore"):
                log_q = np.log(p) * self.inverse
            log_z = float(np.logaddexp.reduce(log_q))
            level = np.arange(self.V), np.cumsum(np.exp(log_q - log_z)), log_z, 1.0, p
            self.levels[key] = level
            return level
        p_below = self.point(below, ids)
        log_p = np.log(stay * probs + (1.0 - stay) * p_below) * self.inverse
        log_own = float(np.logaddexp.reduce(log_p))
        if stay >= 1.0:
            log_z = log_own
        else:
            log_z_below = self.level(below)[2] if below else (1.0 - self.inverse) * math.log(self.V)
            with np.errstate(divide="ignore"):
                log_own_below = float(np.logaddexp.reduce(np.log(p_below) * self.inverse))
            # the share of the level below that lands off U: how often a rejected draw would succeed
            # (expm1, not 1 - exp: when U holds almost all of it, exp rounds to 1 and the log of 0 fails)
            accept = -math.expm1(min(log_own_below - log_z_below, 0.0))
            gap = log_z_below + math.log(accept) if accept > 0.0 else -math.inf
            log_z = float(np.logaddexp(log_own, self.inverse * math.log(1.0 - stay) + gap))
        level = ids, np.cumsum(np.exp(log_p - log_z)), log_z, (1.0 if stay >= 1.0 else accept), None
        if len(self.levels) > 200_000:
            self.levels.clear()
        self.levels[key] = level
        return level

    def draw(self, found: list[int], rng: np.random.Generator) -> int:
        return self._draw(self.chain.chain(found), rng)

    def _draw(self, links: list, rng: np.random.Generator) -> int:
        if not links:
            return int(rng.integers(self.V))
        ids, cumulative, _, accept, dense = self.level(links)
        own = float(cumulative[-1])
        x = rng.random()
        if x < own or links[0][1][2] >= 1.0 or dense is not None:
            return int(ids[min(int(cumulative.searchsorted(min(x, own), side="right")), ids.size - 1)])
        below = links[1:]
        if accept >= 0.5:
            for _ in range(self.MAX_TRIES):  # a draw of the level below, kept only off U
                token = self._draw(below, rng)
                at = min(int(ids.searchsorted(token)), ids.size - 1)
                if ids[at] != token:
                    return token
        running = self._off(links, below, ids)
        return int(min(running.searchsorted(rng.random() * running[-1], side="right"), self.V - 1))

    def _off(self, links: list, below: list, ids: np.ndarray) -> np.ndarray:
        """Running sum over the vocabulary of the level below's p^(1/T), zero on U (kept per level)."""
        key = ("off",) + links[0][0]
        running = self.levels.get(key)
        if running is None:
            with np.errstate(divide="ignore"):
                weights = np.exp(np.log(self.point(below, np.arange(self.V))) * self.inverse
                                 - (self.level(below)[2] if below else 0.0))
            weights[ids] = 0.0
            running = self.levels[key] = np.cumsum(weights)
        return running

    def probabilities(self, found: list[int]) -> np.ndarray:
        """The whole distribution (V,) draws follow: for checking against the dense reshaping."""
        links = self.chain.chain(found)
        if not links:
            return np.full(self.V, 1.0 / self.V)
        with np.errstate(divide="ignore"):
            return np.exp(np.log(self.point(links, np.arange(self.V))) * self.inverse - self.level(links)[2])


class ReshapedSampler:
    """Greedy (T = 0) and top-k sampling: one small table per context, never all V entries.

    A mixture splits into a *base* that is the same for every context (the uniform 1/V and
    the unigram table: one vector b, weighted R by this context) and the tokens U that the
    context's own longer counts saw, so p = R b + s. The k largest p lie among U and the
    k + |U| largest of b (b is sorted once per sample() call); the table keeps exactly the
    tokens engine.lm.apply_temperature_top_k keeps, ties included (tested against it).
    """

    MAX_TIED = 4_096  # a top-k cutoff that ties more base tokens than this: use the dense vector instead

    def __init__(self, model: "NGramModel", temperature: float, top_k: int | None):
        self.model = model
        self.V = model.fitted().vocab_size
        self.temperature = temperature
        self.top_k = None if top_k is None or top_k >= self.V else int(top_k)
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(_("top-k must keep at least one token."))
        self.bases: dict = {}

    def _base(self, key: tuple, weights: tuple[float, ...], components: list[Component]):
        """(b, tokens by b descending) for the base made of these components; None if weighted otherwise."""
        known = self.bases.get(key)
        if known is not None:
            same = all(abs(w - v) <= 1e-9 * abs(v) for w, v in zip(weights, known[0], strict=True))
            return known[1] if same else None
        b = np.zeros(self.V)
        for weight, component in zip(weights, components, strict=True):
            if component.order == 0:
                b += weight / self.V
            else:
                b[component.ids] += weight * component.probs
        base = b, np.lexsort((np.arange(self.V), -b))
        self.bases[key] = (weights, base)
        return base

    def table(self, mixture: Mixture):
        """What draw() needs for one context: ("greedy", token) or ("explicit", ids, running sum)."""
        base_parts = [c for c in mixture.components if c.order <= 1]
        own = [c for c in mixture.components if c.order > 1]
        R = sum(c.weight for c in base_parts)
        base = None
        if R > 0:
            key = tuple(c.order for c in base_parts)
            base = self._base(key, tuple(c.weight / R for c in base_parts), base_parts)
            if base is None:
                return self._dense(mixture)
        s = np.zeros(self.V)
        for c in own:
            s[c.ids] += c.weight * c.probs
        ids = np.flatnonzero(s)  # U, sorted
        p = s[ids]
        if base is None:  # everything is in the context's own counts (MLE)
            if self.top_k is not None and self.top_k < ids.size:
                keep = p >= np.partition(p, -self.top_k)[-self.top_k]
                ids, p = ids[keep], p[keep]
            return self._explicit(ids, p)
        b, by_b = base
        p += R * b[ids]
        in_own = np.zeros(self.V, dtype=bool)
        in_own[ids] = True
        k = 1 if self.temperature == 0 else self.top_k
        outside = by_b[:k + ids.size]
        outside = outside[~in_own[outside]][:k]
        candidates = np.concatenate([ids, outside])
        values = np.concatenate([p, R * b[outside]])
        if self.temperature == 0:  # the most likely token; ties go to the smallest id, as np.argmax does
            return ("greedy", int(candidates[values == values.max()].min()))
        cutoff = np.partition(values, -k)[-k]
        # every base token at or above the cutoff stays, ties included (as the dense version keeps them)
        n_above = int(np.searchsorted(-(R * b[by_b]), -cutoff, side="right"))
        if n_above > self.MAX_TIED + ids.size:
            return self._dense(mixture)
        above = by_b[:n_above]
        above = above[~in_own[above]]
        return self._explicit(np.concatenate([ids[p >= cutoff], above]),
                              np.concatenate([p[p >= cutoff], R * b[above]]))

    def _explicit(self, ids: np.ndarray, p: np.ndarray):
        if self.temperature == 0:
            return ("greedy", int(ids[p == p.max()].min()))
        with np.errstate(divide="ignore"):
            logits = np.log(p) / self.temperature
        q = np.exp(logits - logits.max())
        return ("explicit", ids, np.cumsum(q))

    def _dense(self, mixture: Mixture):
        probs = apply_temperature_top_k(mixture.dense().probs, self.temperature, self.top_k)
        return ("explicit", np.arange(self.V), np.cumsum(probs))

    def probabilities(self, table) -> np.ndarray:
        """The whole distribution (V,) a table draws from: for checking against the dense reshaping."""
        probs = np.zeros(self.V)
        if table[0] == "greedy":
            probs[table[1]] = 1.0
        else:
            _, ids, cumulative = table
            probs[ids] += np.diff(np.concatenate([[0.0], cumulative])) / cumulative[-1]
        return probs

    @staticmethod
    def draw(table, rng: np.random.Generator) -> int:
        """One token from a context's table (one random number; none when greedy)."""
        if table[0] == "greedy":
            return table[1]
        _, ids, cumulative = table
        i = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
        return int(ids[min(i, ids.size - 1)])


@dataclass(frozen=True)
class TransitionTable:
    """Bigram counts C(a b) and P(b | a) = C(a b) / C(a .) among the most frequent tokens."""
    tokens: list[int]     # ids, most frequent first (rows: a, columns: b)
    counts: np.ndarray    # (k, k)
    probs: np.ndarray     # (k, k), each row's share of all that follows a (rows need not sum to 1)
    row_totals: np.ndarray  # (k,) C(a .): how often each row's token is followed by anything


def transition_table(ngrams: NGramCounts, top: int = 20) -> TransitionTable:
    """The bigram table restricted to the `top` most frequent tokens."""
    if ngrams.max_order < 2:
        raise ValueError(_("A transition table needs bigram counts (n of 2 or more)."))
    V = ngrams.vocab_size
    unigram = np.zeros(V, dtype=np.int64)
    unigram[ngrams.keys[1]] = ngrams.counts[1]
    top = max(1, min(int(top), int(np.count_nonzero(unigram))))
    tokens = [int(i) for i in np.lexsort((np.arange(V), -unigram))[:top]]
    position = np.full(V, -1)
    position[tokens] = np.arange(top)
    keys, values = ngrams.keys[2], ngrams.counts[2]
    first, second = ngrams.keys[1][keys // V], keys % V  # a bigram's prefix dense id -> its token
    keep = (position[first] >= 0) & (position[second] >= 0)
    counts = np.zeros((top, top), dtype=np.int64)
    counts[position[first[keep]], position[second[keep]]] = values[keep]
    row_totals = np.array([ngrams.raw[1].total[ngrams.context_id([t])] for t in tokens], dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        probs = np.where(row_totals[:, None] > 0, counts / row_totals[:, None], 0.0)
    return TransitionTable(tokens, counts, probs, row_totals)


# --- held-out comparison ------------------------------------------------------------------------

@dataclass(frozen=True)
class HeldOutRow:
    n: int
    smoothing: str
    nats: float
    bits: float
    perplexity: float
    n_zero: int


FLAT_BITS = 0.01   # orders whose held-out cross-entropy is within this of the best are "flat" (held_out_sentences)


def held_out_sentences(rows: list[HeldOutRow], k: float = HELD_OUT_K) -> list[str]:
    """What the held-out cross-entropy per n shows for each smoothing, read off the rows (bits per token)."""
    sentences = []
    for smoothing in SMOOTHINGS:
        curve = sorted((r.n, r.bits) for r in rows if r.smoothing == smoothing)
        if not curve:
            continue
        name = smoothing_name(smoothing, k)
        finite = [(n, b) for n, b in curve if math.isfinite(b)]
        if not finite:
            sentences.append(_("**{name}**: infinite at every n, because at every n some held-out n-gram was never "
                               "counted, so it gets probability 0.", name=name))
            continue
        best_n, best_bits = min(finite, key=lambda nb: nb[1])
        last_n = curve[-1][0]
        said = {"name": name, "best_n": best_n, "best_bits": numbers.fixed(best_bits)}
        flat = [n for n, b in finite if b - best_bits <= FLAT_BITS]
        higher = [(n, b) for n, b in curve if n > best_n]
        if best_n == last_n:
            text = _("**{name}**: lowest at n = {best_n} ({best_bits} bits per token), still falling at the largest "
                     "n shown.", **said)
        elif len(flat) > 1 and all(n in flat for n, _b in higher):
            text = _("**{name}**: lowest at n = {best_n} ({best_bits} bits per token); from n = {first} to {last} it "
                     "stays within {flat} bits of that: more context stops helping, because longer contexts were "
                     "seen too rarely and the model falls back on shorter ones.", **said, first=min(flat),
                     last=last_n, flat=numbers.localized(f"{FLAT_BITS}"))
        else:
            worst_n, worst_bits = higher[-1]
            shown = _("infinite") if math.isinf(worst_bits) else numbers.fixed(worst_bits)
            text = _("**{name}**: lowest at n = {best_n} ({best_bits} bits per token), then worse with more context "
                     "(n = {worst_n}: {worst}): the counts run out and the unseen entries take more of the "
                     "probability.", **said, worst_n=worst_n, worst=shown)
        sentences.append(text)
    return sentences


def held_out_table(train_ids, held_out_ids, vocab_size: int, orders: Sequence[int] = range(1, 7),
                   smoothings: Sequence[str] = SMOOTHINGS, k: float = HELD_OUT_K) -> list[HeldOutRow]:
    """Cross-entropy on held-out text for every n and smoothing, from one count of the training text."""
    orders = [check_order(n) for n in orders]
    return held_out_rows(count_ngrams(train_ids, max(orders), vocab_size), held_out_ids, orders, smoothings, k)


def held_out_rows(ngrams: NGramCounts, held_out_ids, orders: Sequence[int] = range(1, 7),
                  smoothings: Sequence[str] = SMOOTHINGS, k: float = HELD_OUT_K) -> list[HeldOutRow]:
    """The same table from counts already made (orders up to ngrams.max_order)."""
    held_out = check_ids(held_out_ids, ngrams.vocab_size, limit=limits.MAX_NGRAM_TOKENS,
                         reader="an n-gram model")
    if held_out.size < 2:
        raise ValueError(_("The held-out part of the text (its last 10%, cut at a line break) has fewer than two "
                           "tokens to score. Use a longer text with several lines."))
    dense = ngrams.dense_ids(held_out, max(orders))
    rows = []
    for n in orders:
        for smoothing in smoothings:
            score = NGramModel.from_counts(ngrams, n, smoothing, k).score(held_out, dense)
            rows.append(HeldOutRow(n, smoothing, score.nats, score.bits, score.perplexity, score.n_zero))
    return rows


# --- prompts and loops --------------------------------------------------------------------------

def prompt_ids(tokenizer: Tokenizer, text: str) -> list[int]:
    """A typed prompt as ids; words or characters the tokenizer never saw raise a sentence."""
    unknown = getattr(tokenizer, "unknown", None)
    if unknown is not None and text:
        missing = list(unknown(text))
        if missing:
            shown = ", ".join(repr(w) for w in missing[:5])
            raise ValueError(ngettext("The prompt uses {n} token the corpus never does ({shown}); an n-gram model "
                                      "has no counts for it. Use words from the text.",
                                      "The prompt uses {n} tokens the corpus never does ({shown}); an n-gram model "
                                      "has no counts for them. Use words from the text.", len(missing), shown=shown))
    return tokenizer.encode(text)


LINE_START = "\n"   # where a sample with no prompt starts: after a line break, where every line of the plays starts
# The N-gram page's opening sample: a 3-gram that always takes its likeliest next token goes round in a loop of
# words within a few lines, as the chapter's bigram does ("the river flows to the sea and the river ..."); a longer
# context (n = 6) does not come round again within the page's 100 tokens.
LOOP_EXAMPLE_N = 3
LOOP_EXAMPLE_TEMPERATURE = 0.0


def sample_context(tokenizer: Tokenizer, text: str) -> list[int]:
    """The ids a sample starts after: the typed prompt's (prompt_ids), or with none a line break's (LINE_START).
    With no context at all the first token is drawn by its count alone, and the plays' commonest token is ',': a
    sample started there began with a comma. A text that has no line break starts with no context."""
    if text:
        return prompt_ids(tokenizer, text)
    unknown = getattr(tokenizer, "unknown", None)
    if unknown is not None and list(unknown(LINE_START)):
        return []
    try:
        return tokenizer.encode(LINE_START)
    except ValueError:   # a character vocabulary without the line break
        return []


@dataclass(frozen=True)
class Loop:
    """tokens[start:end] repeats a cycle of `period` tokens `repeats` times (the last copy may be partial)."""
    start: int
    end: int
    period: int

    @property
    def repeats(self) -> float:
        return (self.end - self.start) / self.period


def loop_sentence(loop: Loop, n: int, temperature: float, characters: bool = False) -> str:
    """Why a sample went round in a loop (a phrase to follow "Highlighted: " or "The sample falls into "): the model
    sees only its last n - 1 tokens, so when they come round again it is back where it was and cannot tell it has
    written this before (the chapter's reason); what makes it take the same way again is the temperature: always at
    τ = 0, more often the lower τ is below 1. `characters`: the tokens are called characters (the Gradio tab, which
    samples characters only). Each count has its own noun, in the plural form its language gives it."""
    repeats = numbers.fixed(loop.repeats, 1)
    if characters:
        cycle = ngettext("a loop of {n} character repeated {repeats} times",
                         "a loop of {n} characters repeated {repeats} times", loop.period, repeats=repeats)
        reason = (ngettext("The model sees only its last {n} character: once it comes round again the model is back "
                           "where it was, and cannot see that it has written this before",
                           "The model sees only its last {n} characters: once they come round again the model is "
                           "back where it was, and cannot see that it has written this before", n - 1) if n > 1 else
                  _("The model sees no character before it at all: every draw starts from the same place, so it "
                    "cannot see that it has written this before"))
    else:
        cycle = ngettext("a loop of {n} token repeated {repeats} times",
                         "a loop of {n} tokens repeated {repeats} times", loop.period, repeats=repeats)
        reason = (ngettext("The model sees only its last {n} token: once it comes round again the model is back "
                           "where it was, and cannot see that it has written this before",
                           "The model sees only its last {n} tokens: once they come round again the model is back "
                           "where it was, and cannot see that it has written this before", n - 1) if n > 1 else
                  _("The model sees no token before it at all: every draw starts from the same place, so it cannot "
                    "see that it has written this before"))
    text = _("{loop}. {reason}", loop=cycle, reason=reason)
    if temperature == 0:
        return _("{sentence}; at τ = 0 it always takes the likeliest next token, so it goes the same way round every "
                 "time. A longer context takes longer to come round again.", sentence=text)
    if temperature < 1:
        return _("{sentence}; at τ = {tau} the likeliest next token gets even more of the probability than the "
                 "counts give it, so the sample takes the same way round again.", sentence=text,
                 tau=numbers.localized(f"{temperature:g}"))
    return _("{sentence}.", sentence=text)


def find_loop(tokens: Sequence, min_period: int = 1, min_length: int = 8) -> Loop | None:
    """The longest stretch that repeats a cycle at least twice: tokens[i] == tokens[i + p] throughout.

    For each period p, runs of tokens[i] == tokens[i + p] of length r >= p mark a stretch of
    r + p tokens with period p. The longest stretch wins (ties: the shorter period, then the
    earlier start); stretches shorter than min_length tokens are not called loops.
    """
    if len(tokens) == 0:
        return None
    codes = {}
    x = np.array([codes.setdefault(t, len(codes)) for t in tokens], dtype=np.int64)
    best: Loop | None = None
    for p in range(max(1, min_period), x.size // 2 + 1):
        same = np.concatenate([[False], x[:-p] == x[p:], [False]])
        edges = np.flatnonzero(np.diff(same.astype(np.int8)))
        starts, stops = edges[::2], edges[1::2]
        runs = stops - starts
        ok = runs >= p
        if not ok.any():
            continue
        i = int(np.argmax(np.where(ok, runs, -1)))
        length = int(runs[i]) + p
        if length >= min_length and (best is None or length > best.end - best.start):
            best = Loop(int(starts[i]), int(starts[i]) + length, p)
    return best
