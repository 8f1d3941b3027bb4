"""Context: a fixed window average against attention weights, on 'the crane by the lake'."""
from __future__ import annotations

import numpy as np
import streamlit as st

from engine import limits
from engine.attention.code import context_code
from engine.attention.readings import beats, clear_winner
from engine.charts.bars import compare_bars
from engine.charts.heatmaps import heatmap_spec
from engine.chapter.context import (
    TAKES_TITLE,
    MAX_K, PAGE, SENTENCES, WINDOWS_SHOWN, compare, hand_vectors, token_labels, unknown_words_note,
)
from engine.embeddings.hand_vectors import sentence_vectors
from engine.attention.typed_matrices import format_matrix
from ui import challenges, charts, code, formula, page, url_state
from engine import i18n
from engine.i18n import N_, _
from ui.matrix import matrix_editor

LAKE_FURTHER = np.array([[0.9, 0.1, 0.5]])   # the hint's lake: reaches further along crane's direction than crane
# the challenges' hints applied to the first sentence (tests/pages/test_challenges.py opens the page with them)
FIRST_TOKENS, FIRST_X, _unknown = sentence_vectors(SENTENCES[0])          # crane, by, the, lake
SOLVED_LAKE = format_matrix(np.vstack([FIRST_X[:3], LAKE_FURTHER]), FIRST_TOKENS)
SOLVED_BY = format_matrix(np.vstack([FIRST_X[:1], 2 * FIRST_X[:1], FIRST_X[2:]]), FIRST_TOKENS)


WINDOW, ATTENTION = N_("window"), N_("attention")   # the two context vectors' superscripts


def superscript(word: str) -> str:
    """A context vector's superscript in the reader's language: upright Latin letters in English, as the chapter
    writes it; a \\text{} elsewhere (KaTeX's \\mathrm has no glyphs for CJK, Hangul or Arabic)."""
    return rf"\mathrm{{{word}}}" if i18n.is_source() else formula.word(_(word))


def load_sentence(keep_query: bool = False) -> None:
    """Rebuild X from the hand-picked vectors whenever the sentence changes; keep X if it cannot.
    On a page opened from a link, the link's query token is kept (keep_query)."""
    try:
        x_text, query, unknown = hand_vectors(STATE["sentence"])
    except ValueError as error:
        STATE["sentence_error"] = str(error)
        return
    STATE["sentence_error"] = None
    STATE["x"] = x_text
    if not keep_query:
        STATE["query"] = query
    STATE["unknown"] = unknown


def load_example() -> None:
    STATE["sentence"] = STATE["example"]
    load_sentence()


page.header(PAGE)

STATE = url_state.PageState(PAGE)


def help_text(name: str) -> str:
    return _(PAGE.param(name).help)

RESULT = "context.result"   # the section the window, the scaling and the token rerun alone (ui.page.section)
STATE.init()
if not STATE["x"].strip():   # a link without X: the sentence's own vectors
    load_sentence(keep_query=True)

with st.sidebar:
    st.header(_("Settings"))
    st.toggle(PAGE.param("scaled").label, key=STATE.key("scaled"), on_change=page.only(STATE, RESULT),
              help=help_text("scaled"))

st.selectbox(_("A sentence to start from"), SENTENCES, index=None, placeholder=_("Pick an example..."),
             key=STATE.key("example"), on_change=load_example)
st.text_input(PAGE.param("sentence").label, key=STATE.key("sentence"), on_change=load_sentence,
              max_chars=limits.MAX_CONTEXT_SENTENCE_CHARS)
if STATE.get("sentence_error"):
    page.show_error(STATE["sentence_error"] + " " + _("The vectors below are kept."))
if STATE.get("unknown"):
    st.info(unknown_words_note(STATE["unknown"]), icon=":material/edit:")

labels, x = matrix_editor(STATE.key("x"), np.zeros((1, 3)), label=PAGE.param("x").label)
labels = token_labels(labels)
T = len(labels)


@page.section(RESULT)
def result_section() -> None:
    """Token, weights, context vectors, code, challenges: all that the window, the scaling and the token
    change. X comes from the last full run (the sentence and its editor rerun the whole page)."""
    STATE["query"] = min(int(STATE["query"]), T - 1)
    # beside the chart they change, not in the sidebar: on a phone the sidebar is folded away
    token_column, window_column = st.columns(2)
    token_column.selectbox(PAGE.param("query").label, range(T), key=STATE.key("query"),
                           format_func=lambda i: f"{i}: {labels[i]}", on_change=page.only(STATE, RESULT))
    window_column.slider(PAGE.param("k").label, 0, MAX_K, key=STATE.key("k"), help=help_text("k"),
                         on_change=page.only(STATE, RESULT))
    t = STATE["query"]
    k = int(STATE["k"])

    shown = page.run_engine(compare, x, labels, t, k, STATE["scaled"])
    if shown is not None:
        attended, window_row, attention_row = shown.attended, shown.window, shown.weights
        charts.show(compare_bars({_("window k = {k}", k=k): window_row, _("attention"): attention_row}, labels,
                                 title=_(TAKES_TITLE, token=labels[t]), domain=(0, 1)),
                    width="stretch")
        drawn = range(WINDOWS_SHOWN + 1)
        rows = [_("window k = {k}", k=r) for r in drawn] + [_("attention")]
        seen = np.vstack([shown.windows_inside(drawn), np.ones(T, bool)])
        charts.show(heatmap_spec(np.vstack([*shown.windows(drawn).values(), attention_row]), rows, labels,
                                 domain=(0, 1), mask=seen,
                                 title=_("Weights on each token for '{token}': the window by position, attention "
                                         "by content", token=labels[t]), y_title=_("method"), x_title=_("token")),
                    width="content")
        st.caption(_("Each row is coloured against an even share of what it sees: a window shares evenly (white) "
                     "among the tokens inside it and never looks outside (grey); attention chooses among all of "
                     "them."))

        reading = page.run_engine(lambda: shown.reading)
        if reading is not None:
            st.markdown(reading)

        window_context = shown.window_context
        st.subheader(_("The two context vectors"))
        formula.formula_with_numbers(r"c_t = \frac{1}{|W_t|}\sum_{j=t-k}^{t+k} x_j",
                                     rf"c_{{{formula.word(labels[t])}}}^{{\,{superscript(WINDOW)}}} = "
                                     rf"{formula.latex_vector(window_context)}",
                                     caption=_("|W_t| is the number of positions in the window: 2k + 1 away from "
                                               "the edges (the chapter's 1/(2k+1)), fewer near the start or end of "
                                               "the sentence."))
        formula.formula_with_numbers(r"c_t = \sum_{j=1}^{T} \alpha_{tj}\, x_j",
                                     rf"c_{{{formula.word(labels[t])}}}^{{\,{superscript(ATTENTION)}}} = "
                                     rf"{formula.latex_vector(attended.context[t])}",
                                     caption=_("α_tj = exp(s_tj) / sum_k exp(s_tk), with s_tj = x_t . x_j "
                                               "(divided by sqrt(d) when scaling is on): weights chosen by content, "
                                               "not position."))
        code.show_code({"Python": context_code(x, labels, t, k, STATE["scaled"])})

        crane = labels.index("crane") if "crane" in labels else None
        lake = labels.index("lake") if "lake" in labels else None
        by = labels.index("by") if "by" in labels else None
        doubled = format_matrix(2 * (x[crane:crane + 1] if crane is not None else FIRST_X[:1]), ["by"])
        challenges.try_this([
            challenges.Challenge(_("With 'crane by the lake', find the smallest k whose window reaches *lake* "
                                   "from *crane*."),
                                 done=crane is not None and lake is not None and t == crane and
                                 k == abs(lake - crane),
                                 hint=_("Pick crane as the token and raise k one step at a time."),
                                 solution={STATE.key("query"): 0, STATE.key("k"): 3}),
            challenges.Challenge(_("Edit the vectors so that *crane* puts more weight on *lake* than on itself."),
                                 done=crane is not None and lake is not None and
                                 beats(attended.weights[crane], lake, crane),
                                 hint=_("Make lake reach further along crane's direction than crane itself: type "
                                        "`{row}` as lake's row.", row=format_matrix(LAKE_FURTHER, ['lake'])),
                                 solution={STATE.key("x"): SOLVED_LAKE}),
            challenges.Challenge(_("Edit the vectors so that *crane* attends most to *by*."),
                                 done=crane is not None and by is not None
                                 and clear_winner(attended.weights[crane]) == by,
                                 hint=_("Point by's vector the same way as crane's and make it longer: type `{row}` "
                                        "as by's row (crane's numbers doubled; pointing the same way at the same "
                                        "length only ties).", row=doubled),
                                 solution={STATE.key("x"): SOLVED_BY}),
        ])


result_section()
STATE.mirror()

page.further_reading(PAGE.reading)
page.next_idea(__file__)
