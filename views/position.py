"""Position: shuffle the words and attention's outputs shuffle with them, unchanged, until p_t is added."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine import limits
from engine.attention.mechanism import random_projections
from engine.charts.bars import difference_bars
from engine.charts.heatmaps import encoding_heatmap, gram_heatmap, heatmap_panels, heatmap_spec
from engine.charts.lines import offset_profile
from engine.charts.style import side_by_side
from engine.transformer.code import position_code
from engine.transformer.positional import (
    ENCODINGS, SINUSOID_BASE, OffsetDotProducts, diagonal_spread, dot_products_by_offset, permutation_between,
    permutation_check, positional_encoding, random_permutation, rotary_scores,
)
from engine.embeddings.tiny_vocabulary import embed, load_vocabulary, tokenize
from ui import challenges, charts, chips, code, formula, page, tables, url_state

ENCODING_NAMES = {"none": "none (words only)", "sinusoidal": "sinusoidal (Vaswani et al.)",
                  "learned": "learned (a free table, shown untrained)"}

page.header("Position", "Shuffle the words: does attention notice?")

SENTENCE_CHARS = 200
ROTARY_SHOWN = 12  # positions in the rotary table (numbers readable in every cell)

STATE = url_state.PageState(
    "position",
    url_state.Param("a", "the owl saw the cat", url_state.text(SENTENCE_CHARS)),
    url_state.Param("b", "the cat saw the owl", url_state.text(SENTENCE_CHARS)),
    url_state.Param("enc", "none", url_state.one_of(ENCODINGS)),
    url_state.Param("strength", 1.0, url_state.between(0.0, 2.0, float)),
    url_state.Param("proj", False, url_state.parse_bool),
    url_state.Param("causal", False, url_state.parse_bool),
    url_state.Param("seed", 0, url_state.between(0, 100_000, int)),
    url_state.Param("T", 32, url_state.between(4, limits.MAX_DRAWN_POSITIONS, int)),
    url_state.Param("d", 32, url_state.between(2, limits.MAX_DRAWN_POSITIONS, int)),
    url_state.Param("base", SINUSOID_BASE, url_state.between(limits.MIN_SINUSOID_BASE, limits.MAX_SINUSOID_BASE,
                                                             float)),
)
STATE.init()
# The sections that rerun alone (ui.page.section): every word's context vector in A and in B; the encoding
# tables and the rotary scores; the code and the challenges (these read the context vectors too).
CHECK, TABLES, CODE = "position.check", "position.tables", "position.code"


STATE.setdefault("shuffles", 0)

with st.sidebar:
    st.header("Settings")
    st.radio("Positional encoding added to each word", ENCODINGS, key=STATE.key("enc"), format_func=ENCODING_NAMES.get,
             on_change=page.only(STATE, CHECK, CODE),
             help="x_t + s p_t: the word's vector plus a vector that says where it sits.")
    st.slider("Strength s of the encoding", 0.0, 2.0, step=0.05, key=STATE.key("strength"),
              on_change=page.only(STATE, CHECK, CODE))
    st.toggle("Projections W_Q, W_K, W_V (seeded, untrained)", key=STATE.key("proj"),
              on_change=page.only(STATE, CHECK, CODE),
              help="Off: Q = K = V = X, the chapter's first form. On: random 8 x 8 matrices drawn with the seed.")
    st.toggle("Causal mask (each word sees only the words before it)", key=STATE.key("causal"),
              on_change=page.only(STATE, CHECK, CODE))
    st.number_input("Seed (projections and the learned table)", 0, 100_000, key=STATE.key("seed"),
                    on_change=page.only(STATE, CHECK, TABLES, CODE))
    st.subheader("The encoding tables (below)")
    st.slider("Positions T", 4, limits.MAX_DRAWN_POSITIONS, key=STATE.key("T"), on_change=page.only(STATE, TABLES))
    st.slider("Width d", 2, limits.MAX_DRAWN_POSITIONS, step=2, key=STATE.key("d"), on_change=page.only(STATE, TABLES))
    st.number_input("Base of the sinusoids", limits.MIN_SINUSOID_BASE, limits.MAX_SINUSOID_BASE, key=STATE.key("base"),
                    on_change=page.only(STATE, TABLES),
                    help="The 10000 in sin(t / 10000^(2i/d)): a larger base means slower clocks.")

vocabulary = load_vocabulary()


def shuffle_b() -> None:
    """Button callback: B becomes a fresh shuffle of A's words (a new seed each press)."""
    words = tokenize(STATE["a"])
    if 1 < len(words) <= limits.MAX_SENTENCE_WORDS:
        STATE["shuffles"] += 1
        order = random_permutation(len(words), STATE["shuffles"])
        STATE["b"] = " ".join(words[j] for j in order)


left, right = st.columns(2)
with left:
    st.text_input("Sentence A", key=STATE.key("a"), max_chars=SENTENCE_CHARS)
    sentence_a = page.run_engine(embed, STATE["a"], vocabulary)
with right:
    st.text_input("Sentence B: the same words in another order", key=STATE.key("b"), max_chars=SENTENCE_CHARS)
    st.button("Shuffle A into B", icon=":material/shuffle:", on_click=shuffle_b)
    perm = None
    if sentence_a is not None:
        perm = page.run_engine(permutation_between, sentence_a.tokens, tokenize(STATE["b"]))
st.caption("Words this tiny vocabulary knows: " + ", ".join(vocabulary.words) + ".")
STATE.mirror()


def checked():
    """A against B with the sidebar's encoding, strength, projections, mask and seed, read from the state (the
    sections that call it rerun alone when one of them moves); None without two sentences of the same words
    or after an error sentence."""
    seed = int(STATE["seed"])
    W = random_projections(vocabulary.d, seed) if STATE["proj"] else {}
    if perm is None:
        return None
    return page.run_engine(permutation_check, sentence_a.x, perm, STATE["enc"], W_q=W.get("W_q"),
                           W_k=W.get("W_k"), W_v=W.get("W_v"), causal=STATE["causal"],
                           strength=float(STATE["strength"]), seed=seed)


@page.section(CHECK)
def check_section() -> None:
    """Every word's context vector in A and in B: what the encoding, its strength, the projections, the
    mask and the seed change."""
    check = checked()
    if check is None:
        return
    tokens_a = sentence_a.tokens
    tokens_b = [tokens_a[j] for j in check.perm]
    st.subheader("Every word's context vector: in A, and in B")
    largest = (f"{check.largest_written}, under the rounding tolerance {check.tolerance:.0e}" if check.equivariant
               else check.largest_written)
    verdict = f"Largest change of any word's context vector: **{largest}**. "
    if check.equivariant:
        st.success(verdict + "Same bag of words, same context vectors, only listed in another order: "
                   "attention cannot tell A from B.", icon=":material/drag_indicator:")
    else:
        st.warning(verdict + "The words' context vectors differ between A and B: now order matters.",
                   icon=":material/swap_vert:")
    charts.show(difference_bars(check.difference, tokens_b,
                                    title="max |c_B(word) - c_A(word)| for each word"), width="stretch")

    charts.show(heatmap_panels({"weights alpha in A": (check.original.weights, tokens_a, tokens_a),
                                "weights alpha in B": (check.shuffled.weights, tokens_b, tokens_b)},
                               domain=(0.0, 1.0), cell=44, columns=2, causal=STATE["causal"], digits=3))
    st.caption("Without an encoding B's weights are A's, rows and columns reordered with the words.")

    worst = int(np.argmax(check.difference))
    word, slot_a = tokens_b[worst], int(check.perm[worst])
    if check.equivariant:  # every difference is rounding (below the check's tolerance): no word to single out
        st.markdown(f"**No word's context moved**: every difference is below {check.tolerance:.0e}, rounding "
                    f"in the last digits. For example '{word}' (slot {slot_a} in A, slot {worst} in B):")
    else:
        st.markdown(f"**The word whose context moved most: '{word}'** (slot {slot_a} in A, slot {worst} in B)")
    st.latex(r"c\big(X_B + s P\big)_j \overset{?}{=} c\big(X_A + s P\big)_{\pi(j)}, \qquad \pi = ("
             + ", ".join(str(int(p)) for p in check.perm) + ")")
    st.latex(rf"c_B(\text{{{word}}}) = {formula.latex_vector(check.shuffled.context[worst], 2)}")
    st.latex(rf"c_A(\text{{{word}}}) = {formula.latex_vector(check.expected[worst], 2)}")
    st.markdown("**Without an encoding (s P = 0) and without a mask, shuffling the words only shuffles the "
                "answers:** each word gets back exactly the context vector it had, now listed in its new slot. "
                "Adding p_t to slot t changes that: the same word, moved, carries a different vector.")

    st.markdown(f"**All context vectors, one row per word of B** (features: {', '.join(vocabulary.features)})")
    features = [name.split()[0] for name in vocabulary.features]
    charts.show(heatmap_panels({"c_A, moved to B's order": (check.expected, tokens_b, features),
                                "c_B": (check.shuffled.context, tokens_b, features)},
                               value_name="c", x_title="feature", y_title="word", cell=48, columns=1))
    table = pd.DataFrame({"word": tokens_b, "slot in A": check.perm, "slot in B": range(len(tokens_b)),
                          "largest change": check.written})
    tables.table(table)


check_section()


@st.cache_resource(max_entries=32, show_spinner=False)
def encoding_section(T: int, d: int, base: float, seed: int) -> tuple[list[dict], OffsetDotProducts]:
    """The three charts of this section as Vega-Lite specs (charts.prepared: their thousands of cells
    already in Arrow), and the sinusoidal offset statistics.

    They depend on the table sliders only, not on the sentences: built once per setting and
    shared, read-only, by every session.
    """
    tables = {name: positional_encoding(name, T, d, seed=seed, base=base) for name in ("sinusoidal", "learned")}
    profiles = {name: dot_products_by_offset(P) for name, P in tables.items()}
    cell = max(3, 300 // max(T, d))
    specs = [
        side_by_side(*[encoding_heatmap(P, title=f"{name}: p_t for t < {T}, d = {d}", cell=cell)
                       for name, P in tables.items()]),
        offset_profile(profiles, title="How alike are two positions k apart? p_i . p_(i+k), "
                                       "line: mean over i, band: lowest to highest"),
        side_by_side(*[gram_heatmap(profile.gram, title=f"{name}: p_i . p_j", cell=max(3, 300 // T))
                       for name, profile in profiles.items()]),
    ]
    return [charts.prepared(spec) for spec in specs], profiles["sinusoidal"]


@page.section(TABLES)
def tables_section() -> None:
    """The encoding tables and the rotary scores: what the table sliders, the base and the seed change."""
    st.subheader("The encodings themselves")
    T, d, base = int(STATE["T"]), int(STATE["d"]), float(STATE["base"])
    seed = int(STATE["seed"])

    section = page.run_engine(encoding_section, T, d, base, seed)
    if section is not None:
        specs, sin = section
        for spec, width in zip(specs, ("content", "stretch", "content")):
            charts.show(spec, width=width)
        near = 1 if T > 1 else 0
        st.latex(r"PE(t, 2i) = \sin(t\,\omega_i),\quad PE(t, 2i{+}1) = \cos(t\,\omega_i),\quad "
                 r"\omega_i = \mathrm{base}^{-2i/d}")
        st.latex(rf"p_t \cdot p_{{t+{near}}} = \textstyle\sum_{{i=0}}^{{d/2-1}} \cos({near}\,\omega_i) = "
                 rf"{sin.mean[near]:.3f}"
                 rf"\quad (d = {d},\ \mathrm{{base}} = {base:g})")
        st.caption(f"Each pair of columns is a clock turning at its own speed, so the sinusoidal dot product depends "
                   f"only on the offset k: at k = {near} it varies over i by {sin.spread[near]:.1e}, a band of width "
                   f"zero (exactly so when d is even). A learned table starts as noise: nothing ties p_5 to p_6 "
                   f"until training does.")

    st.subheader("Rotary positions: only the distance between two tokens counts")
    st.markdown("Rotary positions (RoPE, used by Llama and by SmolLM2 on the head viewer) add nothing to x. Inside "
                "attention, each query and key is turned, pair of coordinates by pair, through an angle that grows "
                "with its position. Turning both by the same extra angle changes nothing, so the score of a query "
                "at i and a key at j depends on i - j alone: below, the same *owl* query meets the same *cat* key at "
                "every pair of positions, and every diagonal holds one number.")
    T_rot = min(T, ROTARY_SHOWN)
    rot = page.run_engine(rotary_scores, vocabulary.vector("owl"), vocabulary.vector("cat"), T_rot, base)
    if rot is not None:
        charts.show(heatmap_spec(rot, [str(i) for i in range(T_rot)], [str(j) for j in range(T_rot)], digits=2,
                                 cell=34, value_name="score", scheme="viridis",
                                 title=f"rot(q_owl, i) . rot(k_cat, j), d = {vocabulary.d}, base = {base:g}",
                                 x_title="key position j", y_title="query position i"), width="content")
        formula.formula_with_numbers(
            r"(R_i\, q) \cdot (R_j\, k) = q^\top R_i^\top R_j\, k = q^\top R_{j-i}\, k",
            rf"\max_{{i - j = \text{{const}}}} \big|\text{{spread}}\big| = "
            rf"{chips.latex_number(diagonal_spread(rot).max())}"
            rf",\quad s_{{3,1}} = {rot[min(3, T_rot - 1), min(1, T_rot - 1)]:.3f}"
            rf" = s_{{{T_rot - 1},{T_rot - 3}}} = {rot[T_rot - 1, max(T_rot - 3, 0)]:.3f}",
            stacked=True,
            caption="R_t turns pair m of coordinates by the angle t theta_m, theta_m = base^(-2m/d): rotations add "
                    "up, so R_i^T R_j = R_(j-i). The check is the largest difference along any diagonal of the table: "
                    "rounding only. So when the window slides, the keys of a model's first block, which depend only "
                    "on their own token and position, score exactly as before and can be kept. A later block's key "
                    "also carries what its token read from the tokens before it, the one that just left the window "
                    "included: keeping those (sliding-window attention) gives close to a fresh pass, not the same.")


tables_section()


@page.section(CODE)
def code_section() -> None:
    """The code and the challenges: they read the check too, so its settings rerun this as well."""
    check = checked()
    kind, strength, seed = STATE["enc"], float(STATE["strength"]), int(STATE["seed"])
    words = {w: vocabulary.vector(w).tolist() for w in sentence_a.tokens} if sentence_a is not None else {}
    b_words = " ".join(sentence_a.tokens[j] for j in perm) if perm is not None else STATE["b"]
    code.show_code({"Python": position_code(
        words, sentence_a.tokens if sentence_a is not None else [], b_words, encoding=kind, strength=strength,
        seed=seed, projections=STATE["proj"], causal=STATE["causal"],
        perm=check.perm.tolist() if check is not None else [])})

    difference = check.max_difference if check is not None else 0.0
    challenges.try_this([
        challenges.Challenge("Add an encoding and make some word's context vector change by more than 0.1.",
                             done=check is not None and kind != "none" and difference > 0.1,
                             hint="Choose sinusoidal in the sidebar.", solution={STATE.key("enc"): "sinusoidal"}),
        challenges.Challenge("With no encoding at all, break the equality anyway.",
                             done=check is not None and kind == "none" and not check.equivariant,
                             hint="Turn on the causal mask: a decoder's mask lets each word see only the words "
                                  "before it.",
                             solution={STATE.key("causal"): True}),
        # "not zero" as the page itself decides it: above the check's rounding tolerance (at s = 0 every change is
        # rounding, 5.55e-17, and the page says A and B cannot be told apart)
        challenges.Challenge("Keep an encoding on but make order a whisper: every change below 0.03, yet more than "
                             "rounding (the page must tell A from B).",
                             done=check is not None and kind != "none" and not check.equivariant and difference < 0.03,
                             hint="Choose sinusoidal and turn the strength s down to 0.05, the slider's first step "
                                  "above 0.",
                             solution={STATE.key("enc"): "sinusoidal", STATE.key("strength"): 0.05}),
    ])


code_section()

page.further_reading([
    ("Vaswani et al. 2017, Attention is all you need (section 3.5, positional encoding)",
     "https://arxiv.org/abs/1706.03762"),
    ("Lin et al. 2021, A survey of transformers (position representations), arXiv:2106.04554",
     "https://arxiv.org/abs/2106.04554"),
    ("Haviv et al. 2022, Transformer language models without positional encodings still learn positional "
     "information (the causal mask)", "https://arxiv.org/abs/2203.16634"),
    ("Stanford CME 295, Transformers and large language models, lecture 1", "https://cme295.stanford.edu/syllabus/"),
])
page.next_idea(__file__)
