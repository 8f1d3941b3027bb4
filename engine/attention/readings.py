"""What the attention pages say about a row of weights, decided here so every front end says the same.

Two weights that print the same are reported as a tie ("by and lake tie at 0.272"): a page never names
one winner where its own printed numbers show two. The self-score of plain self-attention is
s_ii = x_i . x_i = |x_i|^2, and x_i . x_j > |x_i|^2 exactly when x_j reaches further along x_i's direction
than x_i itself (x_j . x_i / |x_i| > |x_i|): a longer key pointing nearly the same way wins, so "a token
attends most to itself" is no rule.
"""
from __future__ import annotations

import numpy as np

from engine import markup, numbers
from engine.attention.mechanism import window_reach, window_reach_sentence
from engine.i18n import _, ngettext

PRINTED_DIGITS = 3   # weights are printed to 3 decimals: two weights that print the same tie


def printed(value: float, digits: int = PRINTED_DIGITS) -> str:
    """A weight as the pages print it (a rounded zero prints without a minus sign)."""
    text = f"{float(value):.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def shown_weight(value: float, digits: int = PRINTED_DIGITS) -> str:
    """A weight as a sentence shows it: `printed`, in the reader's decimal sign (0,298 in Spanish)."""
    return numbers.localized(printed(value, digits))


def listed(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c' in the reader's language."""
    if len(items) == 1:
        return items[0]
    return _("{items} and {last}", items=_(", ").join(items[:-1]), last=items[-1])


def leaders(row, digits: int = PRINTED_DIGITS, among=None) -> list[int]:
    """The indices (of `among`, all by default) whose weight prints the same as the largest one, in order:
    one index where there is a clear winner, several where the printed numbers tie."""
    row = np.asarray(row, dtype=float)
    candidates = list(range(len(row))) if among is None else list(among)
    if not candidates:
        return []
    best = printed(max(row[j] for j in candidates), digits)
    return [j for j in candidates if printed(row[j], digits) == best]


def clear_winner(row, digits: int = PRINTED_DIGITS) -> int | None:
    """The one index with the largest weight at the printed precision, or None where two or more tie."""
    top = leaders(row, digits)
    return top[0] if len(top) == 1 else None


def beats(row, j: int, k: int, digits: int = PRINTED_DIGITS) -> bool:
    """Whether weight j is larger than weight k as printed (two that print the same tie: neither beats)."""
    return float(printed(row[j], digits)) > float(printed(row[k], digits))


def _shown(labels: list[str]) -> list[str]:
    """Token labels as a sentence shows them: typed by a student, so escaped (engine.markup): a label such as
    `$x$` or a picture's Markdown reads as typed."""
    return [markup.markdown(label) for label in labels]


def names(labels: list[str], indices: list[int]) -> str:
    """'**a**', '**a** and **b**', '**a**, **b** and **c**' (the labels as typed: they are escaped here)."""
    return listed([f"**{markup.markdown(labels[j])}**" for j in indices])


def largest_weight_sentence(row, labels: list[str], query: int, *, digits: int = PRINTED_DIGITS,
                            keys_are_inputs: bool = True) -> str:
    """The calculator's sentence about the query's row: where its largest weight goes, ties as ties, and,
    where it stays on the query itself, why (when the keys are the inputs themselves) and who comes next.

    keys_are_inputs: the queries and keys are X itself (no projections), so the self-score is |x|^2."""
    row = np.asarray(row, dtype=float)
    top = leaders(row, digits)
    who = _shown(labels)[query]
    weight = shown_weight(row[top[0]], digits)
    others = [j for j in range(len(row)) if j != query and row[j] > 0]
    if len(top) > 1:
        if query in top and others and keys_are_inputs:
            return _("**{who}**'s largest weights tie: {names} at **{weight}** (one of them is itself: its own score "
                     "is x·x = |x|², and only a key that reaches further along {who}'s direction than {who} itself "
                     "scores more).", who=who, names=names(labels, top), weight=weight)
        return _("**{who}**'s largest weights tie: {names} at **{weight}**.", who=who, names=names(labels, top),
                 weight=weight)
    if not (query in top and others):
        return _("**{who}** puts its largest weight, **{weight}**, on **{target}**.", who=who, weight=weight,
                 target=_shown(labels)[top[0]])
    runner_up = leaders(row, digits, among=others)
    second = shown_weight(row[runner_up[0]], digits)
    if keys_are_inputs:
        return ngettext(
            "**{who}** puts its largest weight, **{weight}**, on **{who}** (itself: its own score is x·x = |x|², and "
            "only a key that reaches further along {who}'s direction than {who} itself scores more); among the "
            "others, {names} gets the most, **{second}**.",
            "**{who}** puts its largest weight, **{weight}**, on **{who}** (itself: its own score is x·x = |x|², and "
            "only a key that reaches further along {who}'s direction than {who} itself scores more); among the "
            "others, {names} tie for the most, **{second}**.",
            len(runner_up), who=who, weight=weight, names=names(labels, runner_up), second=second)
    return ngettext("**{who}** puts its largest weight, **{weight}**, on **{who}** (itself); among the others, "
                    "{names} gets the most, **{second}**.",
                    "**{who}** puts its largest weight, **{weight}**, on **{who}** (itself); among the others, "
                    "{names} tie for the most, **{second}**.",
                    len(runner_up), who=who, weight=weight, names=names(labels, runner_up), second=second)


def favourite_neighbours(row, query: int, digits: int = PRINTED_DIGITS) -> list[int]:
    """The other tokens with the largest weight at the printed precision (several where they tie), nearest
    first; the query itself where it is alone."""
    others = [j for j in range(len(row)) if j != query]
    if not others:
        return [query]
    return sorted(leaders(row, digits, among=others), key=lambda j: (abs(j - query), j))


def favourite_neighbour_sentence(row, labels: list[str], query: int, *, digits: int = PRINTED_DIGITS) -> str:
    """The Context page's first sentence: attention's favourite neighbour(s) of the query, ties as ties, how
    far away, and whether the query's own weight is larger still (and why that is not a rule)."""
    row = np.asarray(row, dtype=float)
    best = favourite_neighbours(row, query, digits)
    who = _shown(labels)[query]
    if len(best) == 1:
        sentence = ngettext("Attention's favourite neighbour of **{who}** is **{neighbour}** ({weight}), {n} position "
                            "away.",
                            "Attention's favourite neighbour of **{who}** is **{neighbour}** ({weight}), {n} positions "
                            "away.", abs(int(best[0]) - int(query)),
                            who=who, neighbour=_shown(labels)[best[0]], weight=shown_weight(row[best[0]], digits))
    else:
        sentence = _("Attention's favourite neighbours of **{who}** tie: {names} at {weight} each, {distances} "
                     "positions away.", who=who, names=names(labels, best), weight=shown_weight(row[best[0]], digits),
                     distances=listed([str(abs(j - query)) for j in best]))
    top = leaders(row, digits)
    if best != [query] and top == [query]:
        sentence += " " + _("Its largest weight, **{weight}**, is on itself: its own score is x·x = |x|², and only a "
                            "key that reaches further along {who}'s direction than {who} itself scores more.",
                            weight=shown_weight(row[query], digits), who=who)
    elif best != [query] and query in top:
        sentence += " " + (_("Its weight on itself ties with it.") if len(best) == 1 else
                           _("Its weight on itself ties with them."))
    return sentence


# --- the calculator's sharpness, softmax stability and learned projections --------------------------------

EXP_OVERFLOW = float(np.log(np.finfo(float).max))   # about 709.78: exp of anything larger is infinity


def context_reading(row, labels: list[str], query: int, *, digits: int = PRINTED_DIGITS) -> str:
    """The Context page's sentence under its chart: the token attention favours for `query` (ties named as
    ties), then what a fixed window would need to reach it (engine.attention.mechanism.window_reach_sentence); a row
    whose every weight prints the same (a query of zeros) is said to prefer no token. Both front ends print exactly
    this."""
    row = np.asarray(row, dtype=float)
    T, who = len(labels), labels[query]
    if T > 1 and len(leaders(row, digits)) == T:     # every weight prints the same: attention prefers no token
        k, _share = window_reach(T, query, 0 if query >= T - 1 - query else T - 1)   # to the farther end
        return _("**{who}** gives every token the same weight, {weight}, itself included: its scores are all alike (as "
                 "a vector of zeros makes them: it scores 0 with every key), so attention prefers no token. A window "
                 "average does the same once it covers the whole sentence (k = {k}).",
                 who=who, weight=shown_weight(row[0], digits), k=k)
    neighbours = favourite_neighbours(row, query, digits)
    best = neighbours[0]                                    # the nearest of those that tie
    name = None if len(neighbours) == 1 else labels[best]
    return (f"{favourite_neighbour_sentence(row, labels, query, digits=digits)} "
            f"{window_reach_sentence(T, query, best, attention_weight=float(row[best]), name=name)}")


def overflow_solution(scores_row, factors) -> int | None:
    """The smallest of `factors` that pushes the row's largest score past EXP_OVERFLOW (softmax as written
    then overflows), or None where none does."""
    row = np.asarray(scores_row, dtype=float)
    finite = row[np.isfinite(row)]
    top = float(finite.max()) if finite.size else 0.0
    return next((int(f) for f in factors if top * f > EXP_OVERFLOW), None)


def calculator_reading(row, labels: list[str], query: int, *, d_k: int, scaled: bool, digits: int = PRINTED_DIGITS,
                       keys_are_inputs: bool = True) -> str:
    """What the attention calculator says under its heatmap, on either front end: the query row's largest weight
    (`largest_weight_sentence`), then that every row of α sums to 1 and whether the scores were divided by √d_k."""
    sums = (_("Each row of α sums to 1; d_k = {d_k}, the scores divided by √d_k.", d_k=d_k) if scaled else
            _("Each row of α sums to 1; d_k = {d_k}, the scores not scaled (the chapter's raw steps 1-3).", d_k=d_k))
    return f"{largest_weight_sentence(row, labels, query, digits=digits, keys_are_inputs=keys_are_inputs)} {sums}"


def sharpness_sentence(row, labels: list[str], query: int, *, beta: float, d_k: int, scaled: bool,
                       digits: int = PRINTED_DIGITS) -> str:
    """What the sharpness beta did to the query's row, and why the 1/sqrt(d_k) keeps a model near beta = 1."""
    row = np.asarray(row, dtype=float)
    top = float(row.max())
    uniform = 1 / np.count_nonzero(row > 0) if np.any(row > 0) else 1.0
    raw = (" " + _("With scaling on, β = √{d_k} ≈ {root} would give back the unscaled scores of steps 1-3.",
                   d_k=d_k, root=numbers.fixed(np.sqrt(d_k), 2)) if scaled else "")
    return _("At β = {beta} the largest weight in **{who}**'s row is **{top}** (uniform would be {uniform}); "
             "softmax's slope there, α(1 − α), is {slope} (at most {most}, at α = {half}). Why divide by √d_k: the dot "
             "product of two random vectors of d_k numbers, each of variance 1, has variance d_k, so unscaled scores "
             "grow like √d_k: at d_k = 64 they are 8 times the scaled ones, as at β = 8 here. The row then saturates, "
             "one weight near 1 and the rest near 0, the slope nears 0 and learning stalls. Dividing by √d_k keeps "
             "β at 1 whatever the width.",
             beta=numbers.localized(f"{beta:g}"), who=_shown(labels)[query], top=shown_weight(top, digits),
             uniform=shown_weight(uniform, digits), slope=shown_weight(top * (1 - top), digits),
             most=numbers.fixed(0.25), half=numbers.fixed(0.5, 1)) + raw


def learning_sentence(run, *, digits: int = PRINTED_DIGITS) -> str:
    """Where the learned projections left the query's attention after the run's last step."""
    last = run.steps[-1]
    who, target = markup.markdown(run.tokens[run.query]), markup.markdown(run.tokens[run.target])
    winner = clear_winner(last.weights, digits)
    first = run.first_step_on_target
    if winner == run.target:
        return ngettext("After {n} step, **{who}** puts its largest weight, **{weight}**, on **{target}** (first at "
                        "step {first}); the loss fell from {before} to {after}. Nothing in X changed: W_Q and W_K "
                        "learned to make {who}'s query and {target}'s key point the same way.",
                        "After {n} steps, **{who}** puts its largest weight, **{weight}**, on **{target}** (first at "
                        "step {first}); the loss fell from {before} to {after}. Nothing in X changed: W_Q and W_K "
                        "learned to make {who}'s query and {target}'s key point the same way.", last.step,
                        who=who, weight=shown_weight(last.weights[winner], digits), target=target, first=first,
                        before=numbers.fixed(run.steps[0].loss), after=numbers.fixed(last.loss))
    top = leaders(last.weights, digits)
    return ngettext("After {n} step, **{who}**'s largest weight is still on {names} ({weight}; {target} has {own}): "
                    "take more steps.",
                    "After {n} steps, **{who}**'s largest weight is still on {names} ({weight}; {target} has {own}): "
                    "take more steps.", last.step, who=who, names=names(run.tokens, top),
                    weight=shown_weight(last.weights[top[0]], digits), target=target,
                    own=shown_weight(last.weights[run.target], digits))
