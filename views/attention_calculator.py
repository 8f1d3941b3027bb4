"""Attention calculator: every number of X, W_Q, W_K, W_V editable; scores -> weights -> context."""
from __future__ import annotations

import numpy as np
import streamlit as st

from engine import limits, markup, numbers
from engine.attention.mechanism import (
    CHAPTER_TOKENS, CHAPTER_X, naive_softmax_rows, self_attention, softmax_rows, weights_by_sharpness,
)
from engine.attention.readings import (
    calculator_reading, clear_winner, learning_sentence, overflow_solution, sharpness_sentence,
)
from engine.charts.heatmaps import heatmap_spec
from engine.charts.lines import lines_by
from engine.attention.learning import LEARNING_RATE, learn_query_key
from engine.attention.code import attention_code
from engine.attention.typed_matrices import format_matrix
from engine.chapter.attention import (
    FACTORS, MAX_LEARN_STEPS_SHOWN, MAX_PROJECTION_SEED, PAGE, PRESETS, PROJECTION_START_NAMES, PROJECTION_STARTS,
    PROJECTIONS, SHARPNESS, starting_projections, token_labels,
)
from engine.i18n import _, pgettext
from ui import challenges, charts, code, formula, page, tables, url_state
from ui.matrix import last_good, matrix_editor

STATE = url_state.PageState(PAGE)


def help_text(name: str) -> str:
    return _(PAGE.param(name).help)
DEFAULT_OVERFLOW = overflow_solution(self_attention(CHAPTER_X).scaled[0], FACTORS)   # crane's row: 10,000


# pure and cheap to key: computed once per server process (a class that follows its teacher asks for the same ones
# in every student's session); a ValueError is raised each time, never kept
@st.cache_data(max_entries=256, show_spinner=False)
def cached_sweep(*args, **kwargs) -> np.ndarray:
    return weights_by_sharpness(*args, **kwargs)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_learning(target: int, steps: int):
    return learn_query_key(CHAPTER_X, CHAPTER_TOKENS, 0, target, steps=steps)


RESULT = "attention.result"   # the section the sidebar's toggles and the query rerun alone (ui.page.section)
LEARN = "attention.learn"     # "Learn W_Q and W_K": its target and steps rerun it alone


def preset_changed() -> None:
    labels, x = PRESETS[STATE["preset"]]
    STATE["x"] = format_matrix(x, labels)
    STATE["query"] = 0


def reset_projections() -> None:
    for name in PROJECTIONS:
        STATE[name] = ""
        st.session_state.pop(f"{STATE.key(name)}__last_good", None)   # refill from the new start, not an error


page.header(PAGE)

STATE.init()

with st.sidebar:
    st.header(_("Settings"))
    st.selectbox(_("Example"), list(PRESETS), key=STATE.key("preset"), on_change=preset_changed, format_func=_,
                 help=_("Loading an example replaces X."))
    st.toggle(PAGE.param("scaled").label, key=STATE.key("scaled"), on_change=page.only(STATE, RESULT),
              help=help_text("scaled"))
    st.toggle(PAGE.param("proj").label, key=STATE.key("proj"), help=help_text("proj"))
    if STATE["proj"]:
        st.radio(PAGE.param("w_start").label, PROJECTION_STARTS, key=STATE.key("w_start"), horizontal=True,
                 on_change=reset_projections, format_func=lambda start: _(PROJECTION_START_NAMES[start]))
        st.number_input(PAGE.param("w_seed").label, 0, MAX_PROJECTION_SEED, key=STATE.key("w_seed"),
                        on_change=reset_projections)
    st.toggle(PAGE.param("causal").label, key=STATE.key("causal"), on_change=page.only(STATE, RESULT))
    st.toggle(_("Show steps with 4 decimals"), key=STATE.key("fine"), value=False, on_change=page.only(STATE, RESULT))

st.markdown(_("**X: one row per token.** Edit any number or token name; add or remove rows."))
labels, x = matrix_editor(STATE.key("x"), CHAPTER_X, row_labels=CHAPTER_TOKENS, label=PAGE.param("x").label)
labels = token_labels(labels)
d = x.shape[1]

W: dict[str, np.ndarray | None] = dict.fromkeys(PROJECTIONS)
if not STATE["proj"]:
    for name in PROJECTIONS:   # hidden: shown again, an editor Streamlit emptied refills from its start
        st.session_state.pop(f"{STATE.key(name)}__last_good", None)
else:
    defaults = (page.run_engine(starting_projections, STATE["w_start"], d, int(STATE["w_seed"]))
                or {name: np.eye(d) for name in W})
    columns = st.columns(3)
    for name, column in zip(W, columns):
        with column:
            default = defaults[name]
            never_drawn = f"{STATE.key(name)}__last_good" not in st.session_state
            if (never_drawn and not STATE[name].strip()) or last_good(STATE.key(name), default).shape[0] != d:
                STATE[name] = format_matrix(default)   # as it starts, or X changed width: the old one no longer fits
            # emptied by the student: the editor says so and keeps the last good matrix
            _labels, W[name] = matrix_editor(STATE.key(name), default,
                                             label=_("{name} ({d} rows)", name=name.upper(), d=d),
                                       max_rows=limits.MAX_DIM)

@page.section(RESULT)
def result_section() -> None:
    """Query, weights, steps, every matrix, code, softmax stability, challenges: all that the scaling,
    mask, digits and query change. X and the projections come from the last full run (their editors
    rerun the whole page)."""
    digits = 4 if STATE.get("fine") else 3
    STATE["query"] = max(min(int(STATE["query"]), len(labels) - 1), 0)
    st.selectbox(PAGE.param("query").label, range(len(labels)), key=STATE.key("query"),
                 format_func=lambda i: f"{i}: {labels[i]}", on_change=page.only(STATE, RESULT))
    q = STATE["query"]

    beta = float(STATE["sharp"])
    result = page.run_engine(self_attention, x, W["W_q"], W["W_k"], W["W_v"],
                             scale=STATE["scaled"], causal=STATE["causal"], sharpness=beta)

    if result is not None:
        weights_row = result.weights[q]
        st.subheader(_("Attention weights"))
        st.select_slider(PAGE.param("sharp").label, SHARPNESS, key=STATE.key("sharp"),
                         format_func=lambda value: numbers.localized(f"{value:g}"), on_change=page.only(STATE, RESULT))
        charts.show(heatmap_spec(result.weights, labels, labels, title=_("α: each row sums to 1"),
                                 digits=digits, domain=(0, 1), mask=result.mask), width="content")
        top = int(np.argmax(weights_row))
        st.markdown(calculator_reading(weights_row, labels, q, d_k=result.d_k, scaled=STATE["scaled"], digits=digits,
                                       keys_are_inputs=not STATE["proj"]))
        sweep = page.run_engine(cached_sweep, x, W["W_q"], W["W_k"], query=q, sharpnesses=SHARPNESS,
                                scale=STATE["scaled"], causal=STATE["causal"])
        if sweep is not None:
            charts.show(lines_by(SHARPNESS, {label: sweep[:, j] for j, label in enumerate(labels)},
                                 x_title=_("sharpness β (log scale)"),
                                 y_title=_("weight of {token} on each key", token=labels[q]),
                                 title=_("{token}'s weights as β grows", token=labels[q]), y_domain=(0, 1), log_x=True,
                                 marked=beta, marked_label=f"β = {numbers.localized(f'{beta:g}')}"), width="stretch")
            st.markdown(sharpness_sentence(weights_row, labels, q, beta=beta, d_k=result.d_k,
                                           scaled=STATE["scaled"], digits=digits))

        Qn, Kn, Vn = ("q", "k", "v") if STATE["proj"] else ("x", "x", "x")
        name = [formula.word(label) for label in labels]
        st.subheader(_("Step by step for the query {token}", token=markup.markdown(labels[q])))
        st.markdown(_("**Step 1. Scores:** how much the query points the same way as each key."))
        j = top
        products = " + ".join(f"{formula.number(a, digits)}\\cdot{formula.number(b, digits)}"
                              for a, b in zip(result.Q[q], result.K[j]))
        formula.formula_with_numbers(
            rf"s_{{ij}} = {Qn}_i \cdot {Kn}_j",
            rf"\begin{{aligned}} s_{{{name[q]},{name[j]}}} &= {products} = "
            rf"{formula.number(result.scores[q, j], digits)}"
            rf"\\ s_{{{name[q]},\cdot}} &= {formula.latex_vector(result.scores[q], digits)} \end{{aligned}}")
        if STATE["scaled"] or beta != 1:
            by = rf"\frac{{1}}{{\sqrt{{{result.d_k}}}}}" if STATE["scaled"] else ""
            factor_shown = (numbers.latex(beta, 0 if beta == int(beta) else len(f"{beta:g}".split(".")[1]))
                            + (r"\cdot" if by else "")) if beta != 1 else ""
            formula.formula_with_numbers(
                (r"\tilde s_{ij} = " + (r"\beta\," if beta != 1 else "")
                 + (r"\frac{s_{ij}}{\sqrt{d_k}}" if STATE["scaled"] else "s_{ij}")),
                rf"\tilde s_{{{name[q]},\cdot}} = {factor_shown}{by}"
                rf"{formula.latex_vector(result.scores[q], digits)} = {formula.latex_vector(result.scaled[q], digits)}")
        st.markdown(_("**Step 2. Weights:** softmax turns the row of scores into positive weights that sum to 1."))
        score = r"\tilde s" if STATE["scaled"] or beta != 1 else "s"  # softmax reads the scaled scores
        formula.formula_with_numbers(
            rf"\alpha_{{ij}} = \frac{{\exp({score}_{{ij}})}}{{\sum_{{k=1}}^{{T}} \exp({score}_{{ik}})}}",
            rf"\alpha_{{{name[q]},\cdot}} = {formula.latex_vector(weights_row, digits)},\quad \textstyle\sum_j "
            rf"\alpha_{{{name[q]},j}} = {formula.number(weights_row.sum(), digits)}",
            caption=_("Masked keys (causal mask) get weight 0.") if STATE["causal"] else None)
        st.markdown(_("**Step 3. Context:** the weighted average of the values."))
        terms = " + ".join(f"{formula.number(weights_row[k], digits)}\\,{Vn}_{{{name[k]}}}"
                           for k in range(len(labels)) if weights_row[k] > 0)
        formula.formula_with_numbers(
            rf"c_i = \sum_{{j=1}}^{{T}} \alpha_{{ij}}\, {Vn}_j",
            rf"\begin{{aligned}} c_{{{name[q]}}} &= {terms} \\ &= {formula.latex_vector(result.context[q], digits)}"
            r"\end{aligned}")

        box = page.folded(_("Every matrix"), STATE.key("matrices"), icon=":material/table:")
        if box.open:
            with box:
                columns = st.columns(2)
                with columns[0]:
                    charts.show(heatmap_spec(result.scores, labels, labels, title=_("scores  Q K^T"),
                                             value_name=_("score"),
                                        scheme="viridis", digits=digits))
                context = {_("context[{i}]", i=i): result.context[:, i] for i in range(result.context.shape[1])}
                tables.table({_("token"): labels} | context, digits=digits, where=columns[1])

        code.show_code(attention_code(result.x, labels, W_q=W["W_q"], W_k=W["W_k"], W_v=W["W_v"],
                                      scale=STATE["scaled"], causal=STATE["causal"], query=q, sharpness=beta))

        st.subheader(_("Softmax stability"))
        st.markdown(_("The same row of scores through softmax twice: as written, and after subtracting the row's "
                      "largest score first. Multiply the scores to push them up."))
        factor = st.select_slider(PAGE.param("factor").label, FACTORS, key=STATE.key("factor"),
                                  format_func=numbers.grouped, on_change=page.only(STATE, RESULT))
        row = result.scaled[q][None, :] * factor
        if STATE["causal"]:
            row = np.where(result.mask[q], row, -np.inf)
        naive = naive_softmax_rows(row)[0]
        stable = softmax_rows(row)[0]
        tables.table({pgettext("attention", "key"): labels, _("score"): row[0],
                      _("exp(score) / sum (as written)"): naive, _("after subtracting the max"): stable}, digits=digits)
        if not np.all(np.isfinite(naive)):
            st.warning(_("As written, exp overflowed to infinity and the weights became inf/inf = nan. "
                         "Subtracting the maximum keeps every exponent at or below 0, so nothing overflows, "
                         "and the weights are unchanged because the shift cancels in the ratio."),
                       icon=":material/warning:")
        else:
            st.caption(_("Both agree here; try a larger factor or the 'huge-score row' example."))

        second = f"{labels[1]}: " + format_matrix(2 * x[:1], [""]).split(": ", 1)[-1] if len(labels) > 1 else ""
        overflowing = overflow_solution(result.scaled[q], FACTORS)
        challenges.try_this([
            challenges.Challenge(_("Edit the vectors so that the first token attends most to the second "
                                   "(make *crane* look at *by*)."),
                                 done=len(labels) > 1 and clear_winner(result.weights[0], digits) == 1,
                                 hint=_("Make row 2 point the same way as row 1 and reach further: type {row} (row 1's "
                                        "numbers doubled: its score with row 1 is then twice row 1's own).",
                                        row=markup.code(second)),
                                 solution={STATE.key("x"): format_matrix(np.vstack([CHAPTER_X[:1], 2 * CHAPTER_X[:1],
                                                                         CHAPTER_X[2:]]), CHAPTER_TOKENS)}),
            challenges.Challenge(_("Make the first token spread its attention evenly: every weight in its row within "
                                   "{tolerance} of 1/T.", tolerance=numbers.fixed(0.01, 2)),
                                 done=bool(np.all(np.abs(result.weights[0] - 1 / len(labels)) < 0.01))
                                 and not STATE["causal"],
                                 hint=_("Type 0, 0, 0 as row 1's numbers ({row}): every score in its row is then 0, "
                                        "and softmax of equal scores is uniform.",
                                        row=markup.code(f'{labels[0]}: 0, 0, 0')),
                                 solution={STATE.key("x"): format_matrix(np.vstack([np.zeros((1, 3)), CHAPTER_X[1:]]),
                                                              CHAPTER_TOKENS)}),
            challenges.Challenge(_("Find a row where softmax as written overflows but the stable version does not."),
                                 done=not np.all(np.isfinite(naive)) and bool(np.all(np.isfinite(stable))),
                                 hint=(_("Multiply this row's scores by {factor}. exp overflows past a score of about "
                                         "709.", factor=numbers.grouped(overflowing)) if overflowing else
                                       _("Load the huge-score example. exp overflows past a score of about 709.")),
                                 solution={STATE.key("factor"): DEFAULT_OVERFLOW}),
        ])


result_section()


@page.section(LEARN)
def learn_section() -> None:
    """Gradient steps on W_Q and W_K for the chapter's example: what the target and the steps change."""
    st.subheader(_("Learn W_Q and W_K"))
    st.markdown(_("Steps 1-3 have nothing to learn: the score x_i · x_j is fixed once the embeddings are. Give the "
                  "queries and keys their own matrices, q = x W_Q and k = x W_K, and the scores can move. Below, "
                  "starting from W_Q = W_K = I (step 0: the chapter's numbers), gradient descent changes both "
                  "matrices, step size {rate}, to make **crane** attend to a target: it lowers the loss "
                  "L = −log α(crane, target).", rate=numbers.localized(f"{LEARNING_RATE:g}")))
    columns = st.columns(2)
    with columns[0]:
        st.selectbox(PAGE.param("learn_target").label, range(1, len(CHAPTER_TOKENS)),
                     key=STATE.key("learn_target"), format_func=lambda i: CHAPTER_TOKENS[i],
                     on_change=page.only(STATE, LEARN))
    with columns[1]:
        st.slider(PAGE.param("learn_steps").label, 0, MAX_LEARN_STEPS_SHOWN, key=STATE.key("learn_steps"),
                  on_change=page.only(STATE, LEARN))
    target, steps = int(STATE["learn_target"]), int(STATE["learn_steps"])
    run = page.run_engine(cached_learning, target, steps)
    if run is None:
        return
    numbers_ = [s.step for s in run.steps]
    columns = st.columns(2)
    with columns[0]:
        charts.show(lines_by(numbers_, {_("loss"): [s.loss for s in run.steps]}, x_title=_("gradient step"),
                             y_title=_("loss −log α(crane, {target})", target=CHAPTER_TOKENS[target]),
                             title=_("The loss per step")),
                    width="stretch")
    with columns[1]:
        per_key = {label: [s.weights[j] for s in run.steps] for j, label in enumerate(CHAPTER_TOKENS)}
        charts.show(lines_by(numbers_, per_key,
                             x_title=_("gradient step"), y_title=_("crane's weight on each key"), y_domain=(0, 1),
                             title=_("crane's attention weights per step"), highlight=CHAPTER_TOKENS[target]),
                    width="stretch")
    st.markdown(learning_sentence(run))
    last = run.steps[-1]
    formula.formula_with_numbers(
        r"L = -\log \alpha_{\text{crane},t}",
        rf"L = -\log {numbers.latex(last.weights[target], 5)} = {numbers.latex(last.loss)}",
        caption=_("After step {step}, with t = {target}.", step=last.step, target=CHAPTER_TOKENS[target]))
    formula.formula_with_numbers(
        r"W \leftarrow W - \eta\, \frac{\partial L}{\partial W}",
        rf"\begin{{aligned}} W_Q &= {formula.latex_matrix(last.W_q, 3)} \\ W_K &= {formula.latex_matrix(last.W_k, 3)}"
        r"\end{aligned}",
        caption=_("η = {rate}, from W_Q = W_K = I. The gradients, exact: ∂L/∂s_j = α_j − [j = t], "
                  "∂L/∂W_Q = x_craneᵀ (α − e_t) K / √d_k, ∂L/∂W_K = Xᵀ (α − e_t)ᵀ q_crane / √d_k. Type these W_Q and "
                  "W_K into the calculator above (turn on learned projections, W_V = I) to see the same weights.",
                  rate=numbers.localized(f"{LEARNING_RATE:g}")))


learn_section()
STATE.mirror()

page.further_reading(PAGE.reading)
page.next_idea(__file__)
