"""What each attention head does: one score per known pattern, a ranking, and a name per head.

For one head with weights alpha (T x T, row i = query, column j = key), averaged over the
queries i = 2 .. T-1 (at i = 0 and 1 the first, previous and own token coincide):
    previous-token   mean_i alpha[i, i-1]
    first-token      mean_i alpha[i, 0]                the "attention sink"
    self             mean_i alpha[i, i]
    broad            mean_i H(alpha[i]) / ln(i + 1)    1 = spread evenly over the past, 0 = one token
    induction        mean_i sum_{j < i, ids[j-1] = ids[i]} alpha[i, j]
                     attend to the token that followed an earlier copy of my token
                     (measured on a random sequence repeated twice, where only copying helps)
A head is named after the pattern whose score clears its threshold by the widest margin;
a head that clears none is "mixed".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import limits
from engine.i18n import N_, _

PATTERNS = ("previous-token", "first-token", "self", "broad", "induction")
MIXED = "mixed"
TYPES = PATTERNS + (MIXED,)
# each type as a page names it (the keys stay English: links and class answers carry them)
TYPE_NAMES = {"previous-token": N_("previous-token"), "first-token": N_("first-token"), "self": N_("self"),
              "broad": N_("broad"), "induction": N_("induction"), MIXED: N_("mixed")}
# How high a score must be to name a head after it (fractions of the attention, or of the maximal entropy).
THRESHOLDS = {"previous-token": 0.5, "first-token": 0.8, "self": 0.5, "broad": 0.75, "induction": 0.3}
DESCRIPTIONS = {   # what a head of each type does, shown translated: _(DESCRIPTIONS[type])
    "previous-token": N_("looks at the token just before: the ingredient of bigram-like features"),
    "first-token": N_("parks its attention on the first token (the 'attention sink'): often a head that is off"),
    "self": N_("looks at its own token"),
    "broad": N_("spreads its attention over the whole past, like an average"),
    "induction": N_("finds an earlier copy of the current token and looks at what came next: copying"),
    MIXED: N_("no single pattern dominates on this text"),
}
MIN_TOKENS = 3


@dataclass(frozen=True)
class HeadScores:
    """Every head's score for every pattern, and its name."""
    scores: dict[str, np.ndarray]    # pattern -> (L, h); induction may be nan where nothing repeats
    types: np.ndarray                # (L, h) of pattern names, or "mixed"

    @property
    def n_layer(self) -> int:
        return self.types.shape[0]

    @property
    def n_head(self) -> int:
        return self.types.shape[1]

    def ranking(self, pattern: str, k: int | None = None) -> list[tuple[int, int, float]]:
        """(layer, head, score) of the heads with the highest score for `pattern`, best first."""
        if pattern not in self.scores:
            raise ValueError(_("Unknown pattern '{pattern}'; choose one of: {patterns}.", pattern=pattern,
                               patterns=", ".join(PATTERNS)))
        values = np.nan_to_num(self.scores[pattern], nan=-np.inf)
        order = np.argsort(-values, axis=None, kind="stable")
        ranked = [(int(i // self.n_head), int(i % self.n_head), float(self.scores[pattern].flat[i])) for i in order]
        ranked = [row for row in ranked if np.isfinite(row[2])]
        return ranked[:k] if k is not None else ranked

    def table(self) -> list[dict]:
        """One row per head: layer, head, type, and each score (for a sortable table)."""
        return [{"layer": layer, "head": head, "type": str(self.types[layer, head]),
                 **{pattern: float(self.scores[pattern][layer, head]) for pattern in PATTERNS}}
                for layer in range(self.n_layer) for head in range(self.n_head)]

    def count(self) -> dict[str, int]:
        """How many heads carry each name."""
        return {name: int((self.types == name).sum()) for name in TYPES}


def _check_weights(weights, ids) -> tuple[np.ndarray, np.ndarray]:
    alpha = np.asarray(weights, dtype=float)
    if alpha.ndim == 2:
        alpha = alpha[None, None]
    if alpha.ndim != 4 or alpha.shape[-1] != alpha.shape[-2]:
        raise ValueError(_("Head scores need attention weights shaped (layers, heads, T, T)."))
    T = alpha.shape[-1]
    if T < MIN_TOKENS:
        raise ValueError(_("Head patterns need at least {least} tokens to tell the first, previous and own token "
                           "apart; use a longer text.", least=MIN_TOKENS))
    if not np.all(np.isfinite(alpha)) or np.any(alpha < 0) or not np.allclose(alpha.sum(-1), 1, atol=1e-3):
        raise ValueError(_("Attention weights must be finite, non-negative, and each row must sum to 1."))
    ids_array = np.asarray(ids)
    if ids_array.shape != (T,):
        raise ValueError(_("There must be one token id per position: {ids} ids for {T} positions.", ids=ids_array.size,
                           T=T))
    return alpha, ids_array


def pattern_scores(weights, ids) -> dict[str, np.ndarray]:
    """The five scores of every head, each (L, h) (see the module's formulas)."""
    alpha, ids = _check_weights(weights, ids)
    T = alpha.shape[-1]
    queries = np.arange(2, T)
    previous = alpha[..., queries, queries - 1].mean(-1)
    first = alpha[..., queries, 0].mean(-1)
    own = alpha[..., queries, queries].mean(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(alpha > 0, alpha * np.log(alpha), 0.0)
    entropy = -plogp.sum(-1)[..., queries]                                  # (L, h, len(queries))
    broad = (entropy / np.log(queries + 1)).mean(-1)
    return {"previous-token": previous, "first-token": first, "self": own, "broad": broad,
            "induction": induction_scores(alpha, ids)}


def induction_targets(ids) -> np.ndarray:
    """(T, T) boolean: key j is an induction target of query i when j < i and ids[j-1] == ids[i]."""
    ids = np.asarray(ids)
    T = ids.size
    target = np.zeros((T, T), dtype=bool)
    target[:, 1:] = ids[:, None] == ids[None, :-1]          # key j's previous token equals query i's token
    return target & np.tril(np.ones((T, T), dtype=bool), k=-1)


def induction_scores(weights, ids) -> np.ndarray:
    """mean over queries with an earlier copy of sum_{j in targets(i)} alpha[i, j]; nan if nothing repeats."""
    alpha = np.asarray(weights, dtype=float)
    target = induction_targets(ids)
    has_target = target.any(axis=1)
    if not has_target.any():
        return np.full(alpha.shape[:-2], np.nan)
    on_target = (alpha * target).sum(-1)                     # (L, h, T)
    return on_target[..., has_target].mean(-1)


def name_heads(scores: dict[str, np.ndarray]) -> np.ndarray:
    """Each head's name: the pattern with the largest score / threshold, if that ratio is at least 1."""
    ratios = np.stack([np.nan_to_num(scores[p], nan=0.0) / THRESHOLDS[p] for p in PATTERNS])   # (5, L, h)
    best = ratios.argmax(axis=0)
    names = np.array(PATTERNS, dtype=object)[best]
    names[ratios.max(axis=0) < 1] = MIXED
    return names


def score_heads(weights, ids, *, induction=None) -> HeadScores:
    """Scores and names of every head on one text.

    `induction` (L, h) replaces the induction score measured on this text, typically with
    the one measured on a repeated random sequence (see `repeated_random_tokens`).
    """
    scores = pattern_scores(weights, ids)
    if induction is not None:
        induction = np.asarray(induction, dtype=float)
        if induction.shape != scores["induction"].shape:
            raise ValueError(_("The induction scores must have one value per head (layers x heads)."))
        scores["induction"] = induction
    return HeadScores(scores=scores, types=name_heads(scores))


def repeated_random_tokens(length: int, *, seed: int, low: int, high: int, start: int | None = None) -> np.ndarray:
    """[start] + r + r: `length` random token ids from [low, high), then the same ids again.

    The first copy is unpredictable; in the second, a head that copies (induction) can
    predict every token, so only induction heads put weight where `induction_targets` says.
    """
    if not 2 <= length <= limits.INDUCTION_MAX_LENGTH:
        raise ValueError(_("The random sequence must have 2 to {most} tokens.", most=limits.INDUCTION_MAX_LENGTH))
    if not 0 <= low < high or high - low < length:
        raise ValueError(_("The id range must hold at least as many ids as the sequence is long."))
    rng = np.random.default_rng(seed)
    once = rng.choice(np.arange(low, high), size=length, replace=False)
    prefix = [] if start is None else [start]
    return np.concatenate([np.asarray(prefix, dtype=int), once, once]).astype(int)


INDUCTION_PROBE_LENGTH = 30
ORDINARY_TOKENS = (1_000, 20_000)   # SmolLM2 ids of whole words and pieces: no control or byte tokens


def induction_probe(model, *, length: int = INDUCTION_PROBE_LENGTH, seed: int = 0) -> np.ndarray:
    """Each head's induction score, (L, h), on <|endoftext|> + r + r for `length` random tokens r.

    `model` is anything with `forward(ids).weights` shaped (L, h, T, T), e.g. engine.pretrained.llama.Llama; its
    `ordinary_tokens` range and its document start `start_id` are used when it has them (SmolLM2's:
    ORDINARY_TOKENS and <|endoftext|>, id 0).
    """
    low, high = getattr(model, "ordinary_tokens", ORDINARY_TOKENS)
    ids = repeated_random_tokens(length, seed=seed, low=low, high=high, start=getattr(model, "start_id", 0))
    return induction_scores(model.forward(ids).weights, ids)
