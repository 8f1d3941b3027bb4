"""Attention calculator: every number of X, W_Q, W_K, W_V editable; scores -> weights -> context."""
from __future__ import annotations

import numpy as np
import streamlit as st

from engine import limits
from engine.attention import (
    CHAPTER_TOKENS, CHAPTER_X, identity_projections, naive_softmax_rows, random_projections, self_attention,
    softmax_rows,
)
from engine.charts.heatmaps import heatmap_spec
from engine.snippets import attention_code
from engine.textmatrix import format_matrix
from ui import challenges, charts, code, formula, page, tables, url_state
from ui.matrix import last_good, matrix_editor

PRESETS = {
    "Chapter: crane by the lake": (CHAPTER_TOKENS, CHAPTER_X),
    "Random (5 tokens, 4 numbers each)": (["w1", "w2", "w3", "w4", "w5"],
                                         np.round(np.random.default_rng(7).normal(size=(5, 4)), 2)),
    "All the same": (["a", "a", "a", "a"], np.tile([[0.5, 0.5, 0.5]], (4, 1))),
    "A huge-score row (softmax stability)": (["loud", "by", "the", "lake"],
                                             np.array([[90.0, 0.0, 40.0], [0.0, 1.0, 0.1],
                                                       [0.1, 0.9, 0.0], [80.0, 0.2, 30.0]])),
}
W_PRESETS = ("identity", "random")


STATE = url_state.PageState(
    "attention",
    url_state.Param("x", format_matrix(CHAPTER_X, CHAPTER_TOKENS), url_state.text(limits.MAX_MATRIX_TEXT_CHARS)),
    url_state.Param("scaled", True, url_state.parse_bool),
    url_state.Param("proj", False, url_state.parse_bool),
    url_state.Param("causal", False, url_state.parse_bool),
    url_state.Param("query", 0, url_state.between(0, limits.MAX_TOKENS - 1)),
)

RESULT = "attention.result"   # the section the sidebar's toggles and the query rerun alone (ui.page.section)


def preset_changed() -> None:
    labels, x = PRESETS[STATE["preset"]]
    STATE["x"] = format_matrix(x, labels)
    STATE["query"] = 0


def projection_defaults(kind: str, d: int, seed: int) -> dict[str, np.ndarray]:
    """The W_q, W_k, W_v a student starts editing from: the engine's identity or seeded random ones,
    shown to 2 decimals."""
    W = identity_projections(d) if kind == "identity" else random_projections(d, seed)
    return {name: np.round(W[name], 2) for name in ("W_q", "W_k", "W_v")}


def reset_projections() -> None:
    for name in ("W_q", "W_k", "W_v"):
        STATE.pop(name)


page.header("Attention calculator", "How does one token decide how much every other token matters?")

STATE.init()

with st.sidebar:
    st.header("Settings")
    st.selectbox("Example", list(PRESETS), key=STATE.key("preset"), on_change=preset_changed,
                 help="Loading an example replaces X.")
    st.toggle("Scale scores by 1/sqrt(d_k)", key=STATE.key("scaled"), on_change=page.only(STATE, RESULT),
              help="Off: the chapter's raw steps 1-3. On: softmax(QK^T / sqrt(d_k)) V.")
    st.toggle("Learned projections W_Q, W_K, W_V", key=STATE.key("proj"),
              help="Off: queries, keys and values are X itself.")
    if STATE["proj"]:
        st.radio("Start the projections from", W_PRESETS, key=STATE.key("w_start"), horizontal=True,
                 on_change=reset_projections)
        st.number_input("Seed for random projections", 0, 10_000, 0, key=STATE.key("w_seed"),
                        on_change=reset_projections)
    st.toggle("Causal mask (a token sees only itself and earlier ones)", key=STATE.key("causal"),
              on_change=page.only(STATE, RESULT))
    st.toggle("Show steps with 4 decimals", key=STATE.key("fine"), value=False, on_change=page.only(STATE, RESULT))

st.markdown("**X: one row per token.** Edit any number or token name; add or remove rows.")
labels, x = matrix_editor(STATE.key("x"), CHAPTER_X, row_labels=CHAPTER_TOKENS, label="X (token embeddings)")
labels = [name or f"token {i}" for i, name in enumerate(labels)]
d = x.shape[1]

W = {"W_q": None, "W_k": None, "W_v": None}
if STATE["proj"]:
    start = STATE.get("w_start", "identity")
    seed = int(STATE.get("w_seed", 0))
    defaults = page.run_engine(projection_defaults, start, d, seed) or {name: np.eye(d) for name in W}
    columns = st.columns(3)
    for name, column in zip(W, columns):
        with column:
            default = defaults[name]
            if name in STATE and last_good(STATE.key(name), default).shape[0] != d:
                STATE.pop(name)  # X changed width: the old projection no longer fits
            _, W[name] = matrix_editor(STATE.key(name), default, label=f"{name.upper()} ({d} rows)",
                                       max_rows=limits.MAX_DIM)

@page.section(RESULT)
def result_section() -> None:
    """Query, weights, steps, every matrix, code, softmax stability, challenges: all that the scaling,
    mask, digits and query change. X and the projections come from the last full run (their editors
    rerun the whole page)."""
    digits = 4 if STATE.get("fine") else 3
    STATE["query"] = max(min(int(STATE["query"]), len(labels) - 1), 0)
    st.selectbox("Query token (whose context we build)", range(len(labels)), key=STATE.key("query"),
                 format_func=lambda i: f"{i}: {labels[i]}", on_change=page.only(STATE, RESULT))
    q = STATE["query"]

    result = page.run_engine(self_attention, x, W["W_q"], W["W_k"], W["W_v"],
                             scale=STATE["scaled"], causal=STATE["causal"])

    if result is not None:
        weights_row = result.weights[q]
        st.subheader("Attention weights")
        charts.show(heatmap_spec(result.weights, labels, labels, title="alpha: each row sums to 1", digits=digits,
                                domain=(0, 1)), width="content")
        top = int(np.argmax(weights_row))
        others = [j for j in range(len(labels)) if j != q and weights_row[j] > 0]
        sentence = (f"**{labels[q]}** puts its largest weight, **{weights_row[top]:.{digits}f}**, on "
                    f"**{labels[top]}**")
        if top == q and others:
            runner_up = max(others, key=lambda j: weights_row[j])
            sentence += (f" (itself: a vector always points its own way); among the others, "
                         f"**{labels[runner_up]}** gets the most, **{weights_row[runner_up]:.{digits}f}**")
        st.markdown(sentence + ".")

        Qn, Kn, Vn = ("q", "k", "v") if STATE["proj"] else ("x", "x", "x")
        name = [formula.word(label) for label in labels]
        st.subheader("Step by step for the query " + labels[q])
        st.markdown("**Step 1. Scores:** how much the query points the same way as each key.")
        j = top
        products = " + ".join(f"{formula.number(a, digits)}\\cdot{formula.number(b, digits)}"
                              for a, b in zip(result.Q[q], result.K[j]))
        formula.formula_with_numbers(
            rf"s_{{ij}} = {Qn}_i \cdot {Kn}_j",
            rf"\begin{{aligned}} s_{{{name[q]},{name[j]}}} &= {products} = "
            rf"{formula.number(result.scores[q, j], digits)}"
            rf"\\ s_{{{name[q]},\cdot}} &= {formula.latex_vector(result.scores[q], digits)} \end{{aligned}}")
        if STATE["scaled"]:
            formula.formula_with_numbers(
                r"\tilde s_{ij} = \frac{s_{ij}}{\sqrt{d_k}}",
                rf"\tilde s_{{{name[q]},\cdot}} = \frac{{1}}{{\sqrt{{{result.d_k}}}}}"
                rf"{formula.latex_vector(result.scores[q], digits)} = {formula.latex_vector(result.scaled[q], digits)}")
        st.markdown("**Step 2. Weights:** softmax turns the row of scores into positive weights that sum to 1.")
        score = r"\tilde s" if STATE["scaled"] else "s"  # softmax reads the scaled scores when scaling is on
        formula.formula_with_numbers(
            rf"\alpha_{{ij}} = \frac{{\exp({score}_{{ij}})}}{{\sum_{{k=1}}^{{T}} \exp({score}_{{ik}})}}",
            rf"\alpha_{{{name[q]},\cdot}} = {formula.latex_vector(weights_row, digits)},\quad \textstyle\sum_j "
            rf"\alpha_{{{name[q]},j}} = {formula.number(weights_row.sum(), digits)}",
            caption="Masked keys (causal mask) get weight 0." if STATE["causal"] else None)
        st.markdown("**Step 3. Context:** the weighted average of the values.")
        terms = " + ".join(f"{formula.number(weights_row[k], digits)}\\,{Vn}_{{{name[k]}}}"
                           for k in range(len(labels)) if weights_row[k] > 0)
        formula.formula_with_numbers(
            rf"c_i = \sum_{{j=1}}^{{T}} \alpha_{{ij}}\, {Vn}_j",
            rf"\begin{{aligned}} c_{{{name[q]}}} &= {terms} \\ &= {formula.latex_vector(result.context[q], digits)}"
            r"\end{aligned}")

        box = page.folded("Every matrix", STATE.key("matrices"), icon=":material/table:")
        if box.open:
            with box:
                columns = st.columns(2)
                with columns[0]:
                    charts.show(heatmap_spec(result.scores, labels, labels, title="scores  Q K^T", value_name="score",
                                        scheme="viridis", digits=digits))
                context = {f"context[{i}]": result.context[:, i] for i in range(result.context.shape[1])}
                tables.table({"token": labels} | context, digits=digits, where=columns[1])

        code.show_code(attention_code(result.x, labels, W_q=W["W_q"], W_k=W["W_k"], W_v=W["W_v"],
                                      scale=STATE["scaled"], causal=STATE["causal"], query=q))

        st.subheader("Softmax stability")
        st.markdown("The same row of scores through softmax twice: as written, and after subtracting the row's "
                    "largest score first. Multiply the scores to push them up.")
        factor = st.select_slider("Multiply this row's scores by", [1, 10, 100, 1_000, 10_000], key=STATE.key("factor"))
        row = result.scaled[q][None, :] * factor
        if STATE["causal"]:
            row = np.where(result.mask[q], row, -np.inf)
        naive = naive_softmax_rows(row)[0]
        stable = softmax_rows(row)[0]
        tables.table({"key": labels, "score": row[0], "exp(score) / sum (as written)": naive,
                      "after subtracting the max": stable}, digits=digits)
        if not np.all(np.isfinite(naive)):
            st.warning("As written, exp overflowed to infinity and the weights became inf/inf = nan. "
                       "Subtracting the maximum keeps every exponent at or below 0, so nothing overflows, "
                       "and the weights are unchanged because the shift cancels in the ratio.",
                       icon=":material/warning:")
        else:
            st.caption("Both agree here; try a larger factor or the 'huge-score row' example.")

        challenges.try_this([
            challenges.Challenge("Edit the vectors so that the first token attends most to the second "
                                 "(make *crane* look at *by*).",
                                 done=len(labels) > 1 and int(np.argmax(result.weights[0])) == 1,
                                 hint="Make row 2 point the same way as row 1, or turn row 4 away from it."),
            challenges.Challenge("Make the first token spread its attention evenly: every weight in its row within "
                                 "0.01 of 1/T.",
                                 done=bool(np.all(np.abs(result.weights[0] - 1 / len(labels)) < 0.01))
                                 and not STATE["causal"],
                                 hint="When all scores in a row are equal, softmax is uniform."),
            challenges.Challenge("Find a row where softmax as written overflows but the stable version does not.",
                                 done=not np.all(np.isfinite(naive)) and bool(np.all(np.isfinite(stable))),
                                 hint="Load the huge-score example, or multiply by 1,000."),
        ])


result_section()
STATE.mirror()

page.further_reading([
    ("Vaswani et al. 2017, Attention Is All You Need (section 3.2, scaled dot-product attention)",
     "https://arxiv.org/abs/1706.03762"),
    ("Bahdanau, Cho, Bengio 2015, attention for translation", "https://arxiv.org/abs/1409.0473"),
    ("Lin et al. 2021, A Survey of Transformers", "https://arxiv.org/abs/2106.04554"),
    ("Stanford CME 295, Transformers and LLMs, lecture 1", "https://cme295.stanford.edu/"),
])
page.next_idea(__file__)
