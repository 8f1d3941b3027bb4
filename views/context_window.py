"""Context: a fixed window average against attention weights, on 'the crane by the lake'."""
from __future__ import annotations

import numpy as np
import streamlit as st

from engine.attention import attention, window_weights
from engine.charts import compare_bars, heatmap_spec
from engine.handvectors import sentence_vectors
from engine.textmatrix import format_matrix
from ui import challenges, charts, code, formula, page, url_state
from ui.matrix import matrix_editor

SENTENCES = ["the crane by the lake", "the pitcher threw a fastball", "she sat by the river bank",
             "the crane lifted the steel"]
MAX_K_SHOWN = 3


def load_sentence(keep_query: bool = False) -> None:
    """Rebuild X from the hand-picked vectors whenever the sentence changes; keep X if it cannot.
    On a page opened from a link, the link's query token is kept (keep_query)."""
    try:
        tokens, X, unknown = sentence_vectors(st.session_state.sentence)
    except ValueError as error:
        st.session_state.sentence_error = str(error)
        return
    st.session_state.sentence_error = None
    st.session_state.x = format_matrix(X, tokens)
    if not keep_query:
        st.session_state.query = min(1, len(tokens) - 1)
    st.session_state.unknown = unknown


def load_example() -> None:
    st.session_state.sentence = st.session_state.example
    load_sentence()


page.header("Context: window vs attention", "Which words should *crane* borrow meaning from?")

url_state.init("sentence", SENTENCES[0])
url_state.init("k", 1, url_state.between(0, 6))
url_state.init("query", 1, int)
url_state.init("scaled", False, url_state.parse_bool)
if "x" not in st.session_state:
    load_sentence(keep_query=True)

with st.sidebar:
    st.header("Settings")
    st.slider("Window half-width k", 0, 6, key="k", help="The window around token t covers t-k ... t+k.")
    st.toggle("Scale scores by 1/sqrt(d)", key="scaled",
              help="Off: the chapter's steps 1-3 exactly. On: as in softmax(QK^T/sqrt(d_k)).")

st.selectbox("A sentence to start from", SENTENCES, index=None, placeholder="Pick an example...",
             key="example", on_change=load_example)
st.text_input("Sentence (words get hand-picked 3-number vectors you can edit below)", key="sentence",
              on_change=load_sentence, max_chars=400)
if st.session_state.get("sentence_error"):
    st.error(st.session_state.sentence_error + " The vectors below are kept.", icon=":material/error:")
if st.session_state.get("unknown"):
    st.info("No hand-picked vector for: " + ", ".join(st.session_state.unknown) +
            ". They start at 0, 0, 0: give them numbers below.", icon=":material/edit:")

labels, x = matrix_editor("x", np.zeros((1, 3)), label="X (one row per token: nature, function word, people/action)")
labels = [name or f"token {i}" for i, name in enumerate(labels)]
T = len(labels)
st.session_state.query = min(int(st.session_state.query), T - 1)
st.selectbox("Token whose context we build", range(T), key="query", format_func=lambda i: f"{i}: {labels[i]}")
t = st.session_state.query
k = int(st.session_state.k)
url_state.mirror(["sentence", "k", "query", "scaled"])

attended = page.run_engine(attention, x, x, x, scale=st.session_state.scaled)
windows = page.run_engine(lambda: np.stack([window_weights(T, r)[t] for r in range(MAX_K_SHOWN + 1)]))
if attended is not None and windows is not None:
    window_row = window_weights(T, k)[t]
    attention_row = attended.weights[t]
    charts.show(compare_bars({f"window k = {k}": window_row, "attention": attention_row}, labels,
                                 title=f"How much '{labels[t]}' takes from each token"), width="stretch")
    rows = [f"window k = {r}" for r in range(MAX_K_SHOWN + 1)] + ["attention"]
    charts.show(heatmap_spec(np.vstack([windows, attention_row]), rows, labels, domain=(0, 1),
                            title=f"Weights on each token for '{labels[t]}': the window by position, attention by content",
                            y_title="method", x_title="token"), width="content")

    others = [j for j in range(T) if j != t]
    best = max(others, key=lambda j: attention_row[j]) if others else t
    reach = next((r for r in range(T) if window_weights(T, r)[t][best] > 0), None)
    st.markdown(f"Attention's favourite neighbour of **{labels[t]}** is **{labels[best]}** "
                f"({attention_row[best]:.3f}), {abs(best - t)} position(s) away. A window needs k = {reach} to "
                f"reach it, and then gives it only {window_weights(T, reach)[t][best]:.3f}, the same as every "
                "other token inside.")

    window_context = window_row @ x
    st.subheader("The two context vectors")
    formula.formula_with_numbers(r"c_t = \frac{1}{|W_t|}\sum_{j=t-k}^{t+k} x_j",
                                 rf"c_{{{labels[t]}}}^{{\,\mathrm{{window}}}} = {formula.latex_vector(window_context)}",
                                 caption="|W_t| is the number of positions that exist in the window (fewer at the edges).")
    formula.formula_with_numbers(r"c_t = \sum_{j=1}^{T} \alpha_{tj}\, x_j",
                                 rf"c_{{{labels[t]}}}^{{\,\mathrm{{attention}}}} = {formula.latex_vector(attended.context[t])}",
                                 caption="alpha_tj = exp(s_tj) / sum_k exp(s_tk), with s_tj = x_t . x_j (divided by "
                                         "sqrt(d) when scaling is on): weights chosen by content, not position.")
    code.show_code({"Python": (
        "import numpy as np\n\n"
        f"x = np.array({np.round(x, 4).tolist()})  # {' '.join(labels)}\n"
        f"t, k = {t}, {k}\n"
        "T = len(x)\n"
        "inside = np.abs(np.arange(T)[:, None] - np.arange(T)[None, :]) <= k\n"
        "window = inside / inside.sum(axis=1, keepdims=True)\n"
        f"scores = x @ x.T{' / np.sqrt(x.shape[1])' if st.session_state.scaled else ''}\n"
        "weights = np.exp(scores - scores.max(axis=1, keepdims=True))\n"
        "weights /= weights.sum(axis=1, keepdims=True)\n"
        "print('window   ', np.round(window[t], 3), np.round(window[t] @ x, 3))\n"
        "print('attention', np.round(weights[t], 3), np.round(weights[t] @ x, 3))\n")})

    crane = labels.index("crane") if "crane" in labels else None
    lake = labels.index("lake") if "lake" in labels else None
    challenges.try_this([
        challenges.Challenge("With 'the crane by the lake', find the smallest k whose window reaches *lake* "
                             "from *crane*.",
                             done=crane is not None and lake is not None and t == crane and
                             k == abs(lake - crane),
                             hint="Pick crane as the token and raise k one step at a time."),
        challenges.Challenge("Edit the vectors so that *crane* puts more weight on *lake* than on itself.",
                             done=crane is not None and lake is not None and
                             attended.weights[crane, lake] > attended.weights[crane, crane],
                             hint="Lengthen the lake vector in crane's direction, e.g. lake: 0.9, 0.1, 0.5."),
        challenges.Challenge("Edit the vectors so that *crane* attends most to *by*.",
                             done=crane is not None and "by" in labels and
                             int(np.argmax(attended.weights[crane])) == labels.index("by"),
                             hint="Point by's vector the same way as crane's."),
    ])

page.further_reading([
    ("Bahdanau, Cho, Bengio 2015: weights computed from content", "https://arxiv.org/abs/1409.0473"),
    ("Vaswani et al. 2017, Attention Is All You Need", "https://arxiv.org/abs/1706.03762"),
    ("Stanford CME 295, lecture 1: from embeddings to attention", "https://cme295.stanford.edu/"),
])
page.next_idea(__file__)
