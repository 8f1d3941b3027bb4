"""What the causal tools found, in numbers and in words: the Inside-the-model page's readings.

engine.interpret.interventions changes something inside a model and reports what the output did; this
module reads those results the way the page explains them:
    read_lens            the row where a target wins at one position, its rank per row, the longest
                         stretch of one other top token before it, row 0 echoing the input
    knock_out            P(next token) before and after knocking out a set of heads
    head_groups          heads named by engine.interpret.heads (previous-token, induction) and the top ones by effect
    attention_vs_effect  the heads that look hardest at a source token against those whose removal
                         costs the target most: overlap and rank correlation
    compare_rankings     the one-pass estimate of every head's effect (attribution) against the exact scan:
                         rank correlation, and the heads only one of them puts in its top k
    patching_route       which position carries the fact at each row, and where it moves to the last one
    compare_copying      the copying probe intact and with heads knocked out, in bits and nats
Nothing here is written by hand about a particular model or prompt: every sentence is built from
the numbers it describes (as engine.transformer.ladder does for the model ladder), so words and charts agree.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from engine.markup import said   # a prompt's tokens are typed by a student; these sentences are Markdown
from engine.interpret import interventions
from engine.i18n import _, ngettext
from engine.numbers import enough_digits, fixed, grouped, localized, python_fixed, worked
from engine.interpret.interventions import CopyingProbe, HeadEffects, LogitLens, Patching
from engine.interpret.choices import (  # noqa: F401  (the page's examples and choices, read here by many)
    BARS_TOP_K, COPYING_EXAMPLE, EIFFEL, EXAMPLE_GROUP_SIZE, GROUP_PATTERNS, KNOCK_OUT_EXAMPLES, LENS_EXAMPLE,
    LENS_TOP_K, MARY, NAMES, OWN_EXAMPLES, PATCHING_EXAMPLES, every_head_label, head_label, largest_effect_group)

NATS_PER_BIT = math.log(2)
HEAD_LABEL = re.compile(r"^L(\d{1,3})H(\d{1,3})$")
ARRIVING = 0.1          # a restored fraction from which a position counts as carrying part of the fact
MIN_RUN = 3             # rows in a row with one top token before it is worth a sentence


def bits(nats: float) -> float:
    """Nats -> bits (1 bit = ln 2 nats)."""
    return float(nats) / NATS_PER_BIT


def bits_of(nats):
    """Nats -> bits for a number or an array."""
    return np.asarray(nats, dtype=float) / NATS_PER_BIT


def parse_head_label(label: str) -> tuple[int, int]:
    """'L17H4' -> (17, 4); anything else is a sentence."""
    found = HEAD_LABEL.match(str(label).strip())
    if not found:
        raise ValueError(_("Name a head as L<layer>H<head>, e.g. L17H4, not {label}.", label=repr(str(label)[:40])))
    return int(found.group(1)), int(found.group(2))


# --- the logit lens -------------------------------------------------------------------------------

@dataclass(frozen=True)
class LensReading:
    """The logit lens at one position, followed for one target token."""
    position: int                        # the position read (from 0)
    position_token: str                  # the input token there
    target_token: str
    layers: list[str]                    # row names: "embedding", "after block 0", ...
    top_tokens: list[str]                # (L + 1,) the top prediction at this position per row
    top_probabilities: np.ndarray        # (L + 1,)
    ranks: np.ndarray                    # (L + 1,) the target's rank per row, 0 = most likely
    probabilities: np.ndarray            # (L + 1,) P(target) per row
    first_top_row: int | None            # the row from which the target stays top-1, None if it is not at the end
    run: tuple[str, int, int, float] | None   # (token, first row, last row, highest P): the longest stretch
    #                                            of one other top token before the target wins
    echoes: int                          # positions where row 0's top token is the input token itself
    n_positions: int

    @property
    def sentences(self) -> list[str]:
        last = len(self.layers) - 1
        target, p_end = self.target_token, float(self.probabilities[-1])
        words = []
        if self.first_top_row is None:
            words.append(_("{target} is not the top prediction after {token}: after the last block it is ranked "
                           "{rank} (P = {p}); the model says {top} (P = {p_top}).", target=said(target),
                           token=said(self.position_token), rank=grouped(int(self.ranks[-1]) + 1), p=fixed(p_end, 3),
                           top=said(self.top_tokens[-1]), p_top=fixed(float(self.top_probabilities[-1]), 3)))
        elif self.first_top_row == last:
            words.append(_("{target} becomes the top prediction after {token} only after the last block (P = {p}); a "
                           "row earlier ({layer}) it is ranked {rank}.", target=said(target),
                           token=said(self.position_token), p=fixed(p_end, 3), layer=layer_name(self.layers[last - 1]),
                           rank=grouped(int(self.ranks[last - 1]) + 1)))
        else:
            row = self.first_top_row
            words.append(_("{target} is the top prediction after {token} from row {row} ({layer}) on, with P = {p} "
                           "there and {p_end} after the last block.", target=said(target),
                           token=said(self.position_token), row=row, layer=layer_name(self.layers[row]),
                           p=fixed(float(self.probabilities[row]), 3), p_end=fixed(p_end, 3)))
        if self.run is not None:
            token, first, final, highest = self.run
            words.append(_("On the way, rows {first} to {final} ({first_layer} to {final_layer}) put {token} on top (P "
                           "up to {highest}).", first=first, final=final, first_layer=layer_name(self.layers[first]),
                           final_layer=layer_name(self.layers[final]), token=said(token), highest=fixed(highest, 3)))
        words.append(ngettext("Row 0, the embedding read straight back, predicts the input token itself at {echoes} of "
                              "{n} position.", "Row 0, the embedding read straight back, predicts the input token "
                              "itself at {echoes} of {n} positions.", self.n_positions, echoes=self.echoes))
        return words


def read_lens(lens: LogitLens, target_token: str, position: int = -1) -> LensReading:
    """Read a logit lens that followed a target (`logit_lens(..., target=...)`) at one position;
    `target_token` is how the target is spelled (the text given as the target)."""
    if lens.target is None or lens.target_ranks is None or lens.target_log_probs is None:
        raise ValueError(_("Follow a target token through the layers first: logit_lens(model, text, target=...)."))
    T = len(lens.tokens)
    if not -T <= position < T:
        raise ValueError(ngettext("Position {position} is outside the text's {n} token.",
                                  "Position {position} is outside the text's {n} tokens.", T, position=position))
    position %= T
    top = [str(token) for token in lens.top_tokens[:, position, 0]]
    top_p = lens.top_probabilities[:, position, 0]
    first = lens.first_top_layer(lens.target, position)
    stop = first if first is not None else len(top) - 1      # rows 1 .. stop - 1: after the embedding, before it wins
    run, row = None, 1
    while row < stop:
        end = row
        while end + 1 < stop and top[end + 1] == top[row]:
            end += 1
        length = end - row + 1
        if length >= MIN_RUN and top[row] != target_token and (run is None or length > run[2] - run[1] + 1):
            run = (top[row], row, end, float(top_p[row:end + 1].max()))
        row = end + 1
    echoes = int((lens.top_ids[0, :, 0] == np.asarray(lens.ids)).sum())
    return LensReading(position=position, position_token=lens.tokens[position], target_token=target_token,
                       layers=list(lens.layers), top_tokens=top, top_probabilities=top_p,
                       ranks=lens.target_ranks[:, position], probabilities=np.exp(lens.target_log_probs[:, position]),
                       first_top_row=first, run=run, echoes=echoes, n_positions=T)


# --- knocking heads out ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class KnockOut:
    """P(next token) at the last position with the model intact and with some heads knocked out."""
    heads: tuple[tuple[int, int], ...]
    mode: str
    target_token: str
    before: list[tuple[str, float]]      # the k most likely next tokens, intact
    after: list[tuple[str, float]]       # ... with the heads knocked out
    target_before: float                 # P(target), intact
    target_after: float
    rank_after: int                      # the target's rank with the heads knocked out, 0 = most likely

    @property
    def sentence(self) -> str:
        if not self.heads:
            return _("No head is knocked out: P({target}) = {p}. Pick heads or a group above to see what they do.",
                     target=said(self.target_token), p=fixed(self.target_before, 3))
        n = len(self.heads)
        # three significant digits each, and the ratio worked from them: "0.802 to 0.001 (764.3 times smaller)"
        # did not follow from the numbers printed
        before, after = probability_text(self.target_before, python=True), probability_text(self.target_after,
                                                                                             python=True)
        if before == after:
            change = _("the same to 3 significant digits")
        elif float(after) == 0 or float(before) == 0:
            change = _("to 0") if float(after) == 0 else _("up from 0")
        elif float(after) < float(before):   # of the numbers as printed
            change = _("{ratio} times smaller", ratio=ratio_text(float(before) / float(after)))
        else:
            change = _("{ratio} times larger", ratio=ratio_text(float(after) / float(before)))
        top, p_top = self.after[0]
        now = (_("it is still the top prediction") if self.rank_after == 0 else
               _("it is now ranked {rank}, behind {top} ({p})", rank=grouped(self.rank_after + 1), top=said(top),
                 p=fixed(p_top, 3)))
        return ngettext("Knocking out {n} head ({mode} ablation) takes P({target}) from {before} to {after} "
                        "({change}); {now}.", "Knocking out {n} heads ({mode} ablation) takes P({target}) from "
                        "{before} to {after} ({change}); {now}.", n, mode=mode_name(self.mode),
                        target=said(self.target_token), before=localized(before), after=localized(after),
                        change=change, now=now)


def probability_text(p: float, python: bool = False) -> str:
    """A probability to three significant digits, its zeros kept (0.802, 0.00105, 1.000, 1.23e-07): a small one
    keeps digits enough for a ratio worked from it to mean something. In the reader's digits, or as Python writes it
    (`python`: a number read back)."""
    p = float(p)
    if p <= 0:
        return "0"
    decimals = max(3, 2 - math.floor(math.log10(p)))
    text = python_fixed(p, decimals) if decimals <= 6 else f"{p:.2e}"   # 0.000123, then 1.23e-07
    return text if python else localized(text)


def ratio_text(ratio: float) -> str:
    """A ratio to three significant digits (1.25, 12.5, 764), past a thousand in whole numbers (12,345), in the
    reader's digits."""
    return grouped(round(ratio)) if ratio >= 100 else localized(f"{ratio:.3g}")


def mode_name(mode: str) -> str:
    """A knock-out's mode (choices.MODES) as a sentence names it."""
    return {"zero": _("zero"), "mean": _("mean")}.get(mode, mode)


def layer_name(layer: str) -> str:
    """A residual stream row's name ("embedding", "after block 3": interventions) in the reader's language."""
    if layer == "embedding":
        return _("embedding")
    found = re.fullmatch(r"after block (\d+)", layer)
    return _("after block {block}", block=found.group(1)) if found else layer


def knock_out(model, text, target, heads=(), mode: str = "zero", k: int = 10) -> KnockOut:
    """Two passes, intact and with `heads` ((layer, head) pairs) knocked out, read at the last position."""
    runner = interventions._runner(model)
    target_id = interventions._target(runner, target)
    intact = interventions.ablate_heads(model, text)
    ablated = interventions.ablate_heads(model, intact.ids, heads, mode)
    before, after = intact.next_token_log_probs, ablated.next_token_log_probs

    def top(log_probs: np.ndarray) -> list[tuple[str, float]]:
        order = np.argsort(-log_probs, kind="stable")[:k]
        return [(runner.display(int(i)), float(np.exp(log_probs[i]))) for i in order]

    return KnockOut(heads=ablated.heads, mode=ablated.mode, target_token=runner.display(target_id),
                    before=top(before), after=top(after), target_before=float(np.exp(before[target_id])),
                    target_after=float(np.exp(after[target_id])),
                    rank_after=int((after > after[target_id]).sum()))


def top_heads(scores: np.ndarray, k: int, *, largest: bool = True) -> list[tuple[int, int]]:
    """The k (layer, head) pairs with the highest scores (lowest, when not `largest`); nan counts last."""
    values = np.asarray(scores, dtype=float)
    if not 0 <= k <= values.size:
        raise ValueError(_("Choose between 0 and {most} heads.", most=values.size))
    keyed = np.where(np.isfinite(values), -values if largest else values, np.inf)
    order = np.argsort(keyed, axis=None, kind="stable")[:k]
    return [(int(i) // values.shape[1], int(i) % values.shape[1]) for i in order]


def head_groups(types: np.ndarray, effects: HeadEffects | None = None, k: int = 5) -> dict[str, list[tuple[int, int]]]:
    """Named sets of heads: every head engine.interpret.heads names previous-token or induction (types, (L, h)), and
    the k whose removal costs the target most (when `effects` is given)."""
    types = np.asarray(types)
    groups = {name: [(int(layer), int(head)) for layer, head in np.argwhere(types == pattern)]
              for name, pattern in GROUP_PATTERNS.items()}
    if effects is not None:
        groups[largest_effect_group(k)] = top_heads(effects.effects, k, largest=False)
    return groups


def largest_effect_label(k: int, estimated: bool) -> str:
    """The group as the page shows it: picked by the estimate until every head is knocked out in turn (the estimate
    can miss the head whose removal costs most and pick one that does nothing), by the exact changes after."""
    return (_("the {k} heads with the largest estimated effect", k=k) if estimated else
            _("the {k} heads with the largest effect (each knocked out in turn)", k=k))


def chosen_heads(choices, groups: dict[str, list[tuple[int, int]]]) -> tuple[tuple[int, int], ...]:
    """Group names and 'L<l>H<h>' labels -> the distinct (layer, head) pairs they name, sorted."""
    pairs = set()
    for choice in choices:
        if choice in groups:
            pairs.update(groups[choice])
        else:
            pairs.add(parse_head_label(choice))
    return tuple(sorted(pairs))


def effect_rows(effects: HeadEffects, k: int, *, types=None, attention=None) -> list[dict]:
    """The k heads whose removal costs the target most, one row each: its name, type, the change in
    ln P(target), P(target) with it and without it, and (when given, (L, h)) its attention to a source. The columns
    are named in the reader's language (row[_("P with it")]).
    An estimate (`effects.estimated`) gives its change only, named so: no pass without the head was run."""
    rows = []
    for layer, head in top_heads(effects.effects, min(k, effects.effects.size), largest=False):
        row = {_("head"): head_label(layer, head)}
        if types is not None:
            row[_("type")] = str(np.asarray(types)[layer, head])
        if effects.estimated:
            row[_("estimated change in ln P")] = float(effects.effects[layer, head])
        else:
            row |= {_("change in ln P"): float(effects.effects[layer, head]),
                    _("P with it"): math.exp(effects.clean_log_prob),
                    _("P without it"): math.exp(float(effects.ablated_log_probs[layer, head]))}
        if attention is not None:
            row[_("attention to source")] = float(np.asarray(attention)[layer, head])
        rows.append(row)
    return rows


def log_ratio(p_with, p_without):
    """ln P without - ln P with: the change in ln P(target) from the two probabilities."""
    return np.log(p_without) - np.log(p_with)


def restored_share(patched, clean, corrupt):
    """Activation patching's share of the logit difference brought back: (LD_patched - LD_corrupt) /
    (LD_clean - LD_corrupt)."""
    with np.errstate(divide="ignore", invalid="ignore"):   # equal differences: inf or nan, printed as such
        return np.float64(patched - corrupt) / np.float64(clean - corrupt)


def probability_places(rows: list[dict], change_digits: int = 3) -> int:
    """Decimals for the rows' "P with it" and "P without it" such that ln P without - ln P with, worked from the
    printed probabilities, prints as their "change in ln P" does with `change_digits` (engine.numbers)."""
    if not rows:
        return 3
    return enough_digits(log_ratio, np.array([row[_("P with it")] for row in rows]),
                         np.array([row[_("P without it")] for row in rows]), least=3, result_digits=change_digits)


# --- where a head looks against what it does -------------------------------------------------------------

@dataclass(frozen=True)
class AttentionVsEffect:
    """Per head: the weight the last position puts on a source token, and the change in ln P(target)
    when that head alone is knocked out."""
    source_position: int
    source_token: str
    last_token: str
    target_token: str
    attention: np.ndarray                # (L, h) alpha[last, source]
    effects: np.ndarray                  # (L, h) ln P_ablated - ln P: negative where the head helps
    by_attention: list[tuple[int, int]]  # the k heads that look hardest at the source
    by_effect: list[tuple[int, int]]     # the k heads whose removal costs the target most
    overlap: list[tuple[int, int]]       # heads in both lists, in by_effect's order
    rank_correlation: float              # Spearman's rho between attention and the drop (-effect)

    @property
    def k(self) -> int:
        return len(self.by_effect)

    @property
    def sentence(self) -> str:
        n, k = len(self.overlap), self.k
        named = ", ".join(head_label(*pair) for pair in self.overlap)
        params = dict(k=k, last=said(self.last_token), source=said(self.source_token), target=said(self.target_token),
                      heads=named, all=self.attention.size, rho=fixed(self.rank_correlation, 2))
        if n == 0:
            overlap = _("Of the {k} heads in which the last token {last} looks hardest at {source}, none is among the "
                        "{k} whose removal costs {target} most.", **params)
        else:
            overlap = ngettext("Of the {k} heads in which the last token {last} looks hardest at {source}, {n} is "
                               "among the {k} whose removal costs {target} most: {heads}.",
                               "Of the {k} heads in which the last token {last} looks hardest at {source}, {n} are "
                               "among the {k} whose removal costs {target} most: {heads}.", n, **params)
        return overlap + " " + _("Over all {all} heads, the rank correlation between that attention and the drop is "
                                 "{rho} (1: the more a head looks, the more it matters; 0: no relation).", **params)


def attention_vs_effect(weights, effects: HeadEffects, source: int, k: int = 10) -> AttentionVsEffect:
    """weights: every head's attention on the same tokens as `effects`, (L, h, T, T); `source` a position."""
    alpha = np.asarray(weights, dtype=float)
    T = len(effects.ids)
    if alpha.ndim != 4 or alpha.shape[:2] != effects.effects.shape or alpha.shape[-2:] != (T, T):
        raise ValueError(_("The attention weights must come from the same text as the head effects: {layers} layers x "
                           "{heads} heads x {T} x {T}.", layers=effects.effects.shape[0],
                           heads=effects.effects.shape[1], T=T))
    if not 0 <= source < T:
        raise ValueError(_("The source position must be one of the text's {T} positions (0 to {last}).", T=T,
                           last=T - 1))
    attention = alpha[:, :, -1, source]
    by_attention = top_heads(attention, min(k, attention.size))
    by_effect = top_heads(effects.effects, min(k, attention.size), largest=False)
    overlap = [pair for pair in by_effect if pair in set(by_attention)]
    return AttentionVsEffect(source_position=source, source_token=effects.tokens[source],
                             last_token=effects.tokens[-1], target_token=effects.target_token, attention=attention,
                             effects=effects.effects, by_attention=by_attention, by_effect=by_effect,
                             overlap=overlap, rank_correlation=spearman(attention.ravel(), -effects.effects.ravel()))


def spearman(a, b) -> float:
    """Spearman's rank correlation (ties share their mean rank); nan when either side is constant."""
    def ranks(values) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        order = np.argsort(values, kind="stable")
        ranked = np.empty(values.size)
        ranked[order] = np.arange(values.size)
        for value in np.unique(values):                  # ties: their mean rank
            same = values == value
            if same.sum() > 1:
                ranked[same] = ranked[same].mean()
        return ranked

    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


# --- the one-pass estimate against the exact scan ----------------------------------------------------------

@dataclass(frozen=True)
class RankAgreement:
    """How well attribution's estimate of every head's effect ranks the heads as the exact scan does."""
    target_token: str
    n_heads: int
    rank_correlation: float              # Spearman's rho between the estimated and the exact effects, all heads
    by_estimate: list[tuple[int, int]]   # the k heads whose removal the estimate says costs the target most
    by_exact: list[tuple[int, int]]      # ... the exact scan says
    estimated: np.ndarray                # (L, h) the estimate
    exact: np.ndarray                    # (L, h) the exact effects

    @property
    def k(self) -> int:
        return len(self.by_exact)

    @property
    def shared(self) -> list[tuple[int, int]]:
        """The heads in both top k, in the exact scan's order."""
        return [pair for pair in self.by_exact if pair in set(self.by_estimate)]

    @property
    def only_estimate(self) -> list[tuple[int, int]]:
        return [pair for pair in self.by_estimate if pair not in set(self.by_exact)]

    @property
    def only_exact(self) -> list[tuple[int, int]]:
        return [pair for pair in self.by_exact if pair not in set(self.by_estimate)]

    @property
    def sentence(self) -> str:
        k, shared = self.k, len(self.shared)
        params = dict(heads=self.n_heads, rho=fixed(self.rank_correlation, 2), k=k, target=said(self.target_token),
                      shared=shared, others=2 * (k - shared))
        if shared == k:
            return ngettext("The one-pass estimate and the exact scan rank the {heads} heads with a rank correlation "
                            "of {rho} (1: the same order). Of the {k} heads whose removal costs {target} most, {n} is "
                            "in both top {k}s.", "The one-pass estimate and the exact scan rank the {heads} heads "
                            "with a rank correlation of {rho} (1: the same order). Of the {k} heads whose removal "
                            "costs {target} most, {n} are in both top {k}s.", shared, **params)
        return ngettext("The one-pass estimate and the exact scan rank the {heads} heads with a rank correlation of "
                        "{rho} (1: the same order). Of the {k} heads whose removal costs {target} most, {n} is in both "
                        "top {k}s; the table lists the {others} that only one of them puts there.",
                        "The one-pass estimate and the exact scan rank the {heads} heads with a rank correlation of "
                        "{rho} (1: the same order). Of the {k} heads whose removal costs {target} most, {n} are in "
                        "both top {k}s; the table lists the {others} that only one of them puts there.", shared,
                        **params)

    @property
    def disagreements(self) -> list[dict]:
        """One row per head in one top k only: its estimated and exact change in ln P, and whose top k it is in."""
        return [{_("head"): head_label(*pair), _("estimated change in ln P"): float(self.estimated[pair]),
                 _("exact change in ln P"): float(self.exact[pair]), _("in the top {k} of", k=self.k): whose}
                for pairs, whose in ((self.only_exact, _("the exact scan")), (self.only_estimate, _("the estimate")))
                for pair in pairs]


def compare_rankings(estimated: HeadEffects, exact: HeadEffects, k: int = 10) -> RankAgreement:
    """The estimate (interventions.head_attribution) against the exact scan (head_effects) on one prompt."""
    if estimated.ids != exact.ids or estimated.target != exact.target or estimated.mode != exact.mode:
        raise ValueError(_("Compare the estimate and the exact scan on the same prompt, target and ablation."))
    n = estimated.effects.size
    return RankAgreement(target_token=exact.target_token, n_heads=n,
                         rank_correlation=spearman(estimated.effects.ravel(), exact.effects.ravel()),
                         by_estimate=top_heads(estimated.effects, min(k, n), largest=False),
                         by_exact=top_heads(exact.effects, min(k, n), largest=False),
                         estimated=estimated.effects, exact=exact.effects)


# --- activation patching --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Route:
    """Where the clean answer sits, row by row, according to the patching heatmap."""
    layers: list[str]
    tokens: list[str]                    # the clean prompt's tokens
    carriers: np.ndarray                 # (L + 1,) the position whose patch restores most, per row
    handover_row: int                    # from this row on, the last position restores most in every row
    arriving_row: int                    # from this row on, the last position restores at least ARRIVING
    early_position: int | None           # the position that carries it most often before the handover
    early_best: float                    # the most it restores there, before the handover
    at_handover: float                   # what the last position restores at the handover row

    @property
    def sentences(self) -> list[str]:
        last = len(self.tokens) - 1
        if self.early_position is None:
            return [_("The last token {token} carries the answer in every row, from the embedding on: the prompts "
                      "differ there.", token=said(self.tokens[last]))]
        row = self.handover_row
        early = self.tokens[self.early_position]
        words = [_("Up to row {row} ({layer}), patching {token} (position {position}) brings back most of the answer, "
                   "up to {best} of it: the fact sits on that token.", row=row - 1,
                   layer=layer_name(self.layers[row - 1]), token=said(early), position=self.early_position,
                   best=fixed(self.early_best, 2))]
        first_block = max(self.arriving_row - 1, 0)
        params = dict(row=row, layer=layer_name(self.layers[row]), token=said(self.tokens[last]),
                      restored=fixed(self.at_handover, 2), first=first_block, block=row - 1)
        words.append(_("From row {row} ({layer}) on, the last token {token} carries it ({restored} restored): block "
                       "{block} moves it there.", **params) if first_block >= row - 1 else
                     _("From row {row} ({layer}) on, the last token {token} carries it ({restored} restored): blocks "
                       "{first} to {block} move it there.", **params))
        return words


def patching_route(result: Patching) -> Route:
    restored = np.asarray(result.restored, dtype=float)
    rows, T = restored.shape
    last = T - 1
    carriers = np.nan_to_num(restored, nan=-np.inf).argmax(axis=1)
    is_last = carriers == last
    handover = int(np.argmax(np.logical_and.accumulate(is_last[::-1])[::-1])) if is_last[-1] else rows - 1
    strong = restored[:, last] >= ARRIVING
    arriving = int(np.argmax(np.logical_and.accumulate(strong[::-1])[::-1])) if strong[-1] else handover
    arriving = min(arriving, handover)
    early, best = None, 0.0
    if handover > 0:
        counts = np.bincount(carriers[:handover], minlength=T)
        early = int(counts.argmax())
        best = float(restored[:handover, early].max())
    return Route(layers=list(result.layers), tokens=list(result.clean_tokens), carriers=carriers,
                 handover_row=handover, arriving_row=arriving, early_position=early, early_best=best,
                 at_handover=float(restored[handover, last]))


# --- heads forming while a model trains --------------------------------------------------------------------

def formation_sentence(point, last_step: int, running: bool) -> str:
    """What the latest look at a training model (interventions.HeadFormation) found, in bits per character (one
    token is one character in the live models); the gap is the difference of the two losses as printed.
    `last_step`: the step the run is at (running) or ended at."""
    layer, head, induction = point.strongest("induction")
    p_layer, p_head, previous = point.strongest("previous-token")
    first, second = bits(point.first_copy_loss), bits(point.second_copy_loss)
    gap = worked(lambda a, b: a - b, first, second, digits=2)
    if running:
        when = _("At the latest look (step {step})", step=grouped(point.step))
    elif point.step == last_step:
        when = _("At the end (step {step})", step=grouped(point.step))
    else:
        when = _("At the last look (step {step}; the run ended at step {last})", step=grouped(point.step),
                 last=grouped(last_step))
    return _("{when}: the strongest induction head is {induction_head} ({induction} of its weight on the induction "
             "target), the strongest previous-token head {previous_head} ({previous}); the second copy costs {second} "
             "bits per character against {first} for the first (gap {gap}). Induction heads need two blocks and "
             "usually minutes of training; a gap near 0 means the model does not copy yet.", when=when,
             induction_head=f"L{layer}H{head}", induction=fixed(induction, 2), previous_head=f"L{p_layer}H{p_head}",
             previous=fixed(previous, 2), second=fixed(second, 2), first=fixed(first, 2),
             gap=("+" if gap > 0 else "") + fixed(gap, 2))


# --- the copying probe --------------------------------------------------------------------------------

@dataclass(frozen=True)
class CopyingComparison:
    intact: CopyingProbe
    ablated: CopyingProbe

    @property
    def nats_places(self) -> int:
        """Decimals for the losses in nats such that each, divided by ln 2, gives its bits as printed (2 decimals)."""
        losses = [probe.first_copy_loss for probe in (self.intact, self.ablated)] + \
                 [probe.second_copy_loss for probe in (self.intact, self.ablated)]
        return enough_digits(bits_of, np.array(losses), least=2, result_digits=2)

    @property
    def rows(self) -> list[dict]:
        """One row per run: each copy's mean loss per token, in bits and in nats (print nats with nats_places)."""
        return [{_("run"): name, _("first copy, bits"): bits(probe.first_copy_loss),
                 _("second copy, bits"): bits(probe.second_copy_loss), _("first copy, nats"): probe.first_copy_loss,
                 _("second copy, nats"): probe.second_copy_loss}
                for name, probe in ((_("intact"), self.intact), (self.ablated_name, self.ablated))]

    @property
    def stretches(self) -> dict[str, tuple[int, int]]:
        """The first and last position of the tokens each copy's mean loss is taken over."""
        first, second = self.intact.first_copy, self.intact.second_copy
        return {_("first copy"): (first.start + 1, first.stop), _("second copy"): (second.start + 1, second.stop)}

    @property
    def bits_per_position(self) -> dict[str, np.ndarray]:
        """The loss of predicting each next token, in bits, intact and with the heads knocked out."""
        return {_("intact"): self.intact.losses / NATS_PER_BIT, self.ablated_name: self.ablated.losses / NATS_PER_BIT}

    @property
    def ablated_name(self) -> str:
        n = len(self.ablated.heads_ablated)
        return ngettext("{n} induction head knocked out", "{n} induction heads knocked out", n)

    @property
    def sentences(self) -> list[str]:
        first, second = self.intact.first_copy_loss, self.intact.second_copy_loss
        places = self.nats_places
        words = [_("The first time through the {length} random tokens nothing can be predicted: {first_bits} bits per "
                   "token ({first_nats} nats). The second time the model copies: {second_bits} bits ({second_nats} "
                   "nats).", length=self.intact.length, first_bits=fixed(bits(first), 2),
                   first_nats=fixed(first, places), second_bits=fixed(bits(second), 2),
                   second_nats=fixed(second, places))]
        heads = self.ablated.heads_ablated
        if heads:
            after = self.ablated.second_copy_loss
            # the ratio of the two printed bits, so that a student's division gives it
            ratio = worked(lambda a, b: a / b, bits(after), bits(second), digits=2) if bits(second) >= 0.005 \
                else float("inf")
            words.append(_("With {heads} knocked out, the second copy costs {bits} bits ({nats} nats), {ratio} times "
                           "as much; the first copy stays at {first} bits.",
                           heads=", ".join(head_label(*pair) for pair in heads), bits=fixed(bits(after), 2),
                           nats=fixed(after, places), ratio=localized(f"{ratio:.1f}"),
                           first=fixed(bits(self.ablated.first_copy_loss), 2)))
        return words


def compare_copying(intact: CopyingProbe, ablated: CopyingProbe) -> CopyingComparison:
    if intact.ids != ablated.ids or intact.heads_ablated:
        raise ValueError(_("Compare the copying probe on one sequence: first intact, then with heads knocked out."))
    return CopyingComparison(intact=intact, ablated=ablated)
