"""Position: shuffle the words and attention's outputs shuffle with them, unchanged, until p_t is added."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import i18n, limits, numbers
from engine.charts.bars import difference_bars
from engine.charts.heatmaps import encoding_heatmap, gram_heatmap, heatmap_panels, heatmap_spec
from engine.charts.lines import offset_profile
from engine.charts.style import side_by_side
from engine.chapter.position import (
    TABLE_TITLE,
    CHANGES_TITLE, ENCODING_NAMES, MAX_SEED, MIN_D, MIN_T, PAGE, STRENGTHS, TABLE_NAMES, Encodings, encodings,
    order_of_b, sentence_a as embed_a, shuffle, shuffled, words_note,
)
from engine.transformer.code import position_code
from engine.transformer.positional import ENCODINGS, diagonal_spread
from engine.embeddings.tiny_vocabulary import load_vocabulary
from engine.i18n import _, pgettext
from ui import challenges, charts, chips, code, decimal_slider, formula, page, tables, url_state

page.header(PAGE)

SENTENCE_CHARS = limits.MAX_POSITION_SENTENCE_CHARS
P = PAGE.by_name


STATE = url_state.PageState(PAGE)
STATE.init()
# The sections that rerun alone (ui.page.section): every word's context vector in A and in B; the encoding
# tables and the rotary scores; the code and the challenges (these read the context vectors too).
CHECK, TABLES, CODE = "position.check", "position.tables", "position.code"


STATE.setdefault("shuffles", 0)

with st.sidebar:
    st.header(_("Settings"))
    names = {e: _(ENCODING_NAMES[e]) for e in ENCODINGS}   # read now, in the reader's language (as a test reads them)
    st.radio(P["enc"].label, ENCODINGS, key=STATE.key("enc"), format_func=names.__getitem__,
             on_change=page.only(STATE, CHECK, CODE), help=P["enc"].help)
    decimal_slider.slider(st, P["strength"].label, STRENGTHS[0], STRENGTHS[1], step=STRENGTHS[2],
                          key=STATE.key("strength"), on_change=page.only(STATE, CHECK, CODE))
    st.toggle(P["proj"].label, key=STATE.key("proj"), on_change=page.only(STATE, CHECK, CODE),
              help=P["proj"].help)
    st.toggle(P["causal"].label, key=STATE.key("causal"), on_change=page.only(STATE, CHECK, CODE))
    st.number_input(P["seed"].label, 0, MAX_SEED, key=STATE.key("seed"),
                    on_change=page.only(STATE, CHECK, TABLES, CODE))
    st.subheader(_("The encoding tables (below)"))
    st.slider(P["T"].label, MIN_T, limits.MAX_DRAWN_POSITIONS, key=STATE.key("T"),
              on_change=page.only(STATE, TABLES))
    st.slider(P["d"].label, MIN_D, limits.MAX_DRAWN_POSITIONS, step=2, key=STATE.key("d"),
              on_change=page.only(STATE, TABLES))
    st.number_input(P["base"].label, limits.MIN_SINUSOID_BASE, limits.MAX_SINUSOID_BASE, key=STATE.key("base"),
                    on_change=page.only(STATE, TABLES), help=P["base"].help)

vocabulary = load_vocabulary()


def values() -> dict:
    """The page's typed values, as the state holds them now."""
    return {param.name: STATE[param.name] for param in PAGE.params}


def shuffle_b() -> None:
    """Button callback: B becomes a fresh shuffle of A's words (a new seed each press); nothing for a sentence A of
    fewer than two words or more than the page reads (its own error sentence says why)."""
    try:
        STATE["b"] = shuffle(STATE["a"], STATE["shuffles"] + 1)
    except ValueError:
        return
    STATE["shuffles"] += 1


left, right = st.columns(2)
with left:
    st.text_input(P["a"].label, key=STATE.key("a"), max_chars=SENTENCE_CHARS)
    sentence_a = page.run_engine(embed_a, values())
with right:
    st.text_input(P["b"].label, key=STATE.key("b"), max_chars=SENTENCE_CHARS)
    st.button(_("Shuffle A into B"), icon=":material/shuffle:", on_click=shuffle_b)
    perm = None
    if sentence_a is not None:
        perm = page.run_engine(order_of_b, sentence_a, values())
st.caption(words_note(vocabulary))
STATE.mirror()


def checked():
    """A against B with the sidebar's encoding, strength, projections, mask and seed, read from the state (the
    sections that call it rerun alone when one of them moves); None without two sentences of the same words
    or after an error sentence."""
    if perm is None:
        return None
    return page.run_engine(shuffled, values())


@page.section(CHECK)
def check_section() -> None:
    """Every word's context vector in A and in B: what the encoding, its strength, the projections, the
    mask and the seed change."""
    shown = checked()
    if shown is None:
        return
    check, tokens_a, tokens_b = shown.check, shown.tokens_a, shown.tokens_b
    st.subheader(_("Every word's context vector: in A, and in B"))
    if check.equivariant:
        st.success(shown.reading, icon=":material/drag_indicator:")
    else:
        st.warning(shown.reading, icon=":material/swap_vert:")
    charts.show(difference_bars(check.difference, tokens_b, title=_(CHANGES_TITLE)), width="stretch")

    charts.show(heatmap_panels({_("weights α in A"): (check.original.weights, tokens_a, tokens_a),
                                _("weights α in B"): (check.shuffled.weights, tokens_b, tokens_b)},
                               domain=(0.0, 1.0), cell=44, columns=2, causal=STATE["causal"], digits=3))
    st.caption(_("Without an encoding B's weights are A's, rows and columns reordered with the words."))

    worst = shown.worst
    word, slot_a = tokens_b[worst], int(check.perm[worst])
    if check.equivariant:  # every difference is rounding (below the check's tolerance): no word to single out
        st.markdown(_("**No word's context moved**: every difference is below {tolerance}, rounding in the last "
                      "digits. For example '{word}' (slot {slot_a} in A, slot {slot_b} in B):",
                      tolerance=numbers.localized(f"{check.tolerance:.0e}"), word=word, slot_a=slot_a, slot_b=worst))
    else:
        st.markdown(_("**The word whose context moved most: '{word}'** (slot {slot_a} in A, slot {slot_b} in B)",
                      word=word, slot_a=slot_a, slot_b=worst))
    st.latex(r"c\big(X_B + s P\big)_j \overset{?}{=} c\big(X_A + s P\big)_{\pi(j)}, \qquad \pi = ("
             + ", ".join(str(int(p)) for p in check.perm) + ")")
    st.latex(rf"c_B(\text{{{word}}}) = {formula.latex_vector(check.shuffled.context[worst], 2)}")
    st.latex(rf"c_A(\text{{{word}}}) = {formula.latex_vector(check.expected[worst], 2)}")
    st.markdown(_("**Without an encoding (s P = 0) and without a mask, shuffling the words only shuffles the "
                  "answers:** each word gets back exactly the context vector it had, now listed in its new slot. "
                  "Adding p_t to slot t changes that: the same word, moved, carries a different vector."))

    st.markdown(_("**All context vectors, one row per word of B** (features: {features})",
                  features=_(", ").join(vocabulary.named_features())))
    features = list(vocabulary.named_features())
    charts.show(heatmap_panels({_("c_A, moved to B's order"): (check.expected, tokens_b, features),
                                "c_B": (check.shuffled.context, tokens_b, features)},
                               value_name="c", x_title=_("feature"), y_title=_("word"), cell=48, columns=1))
    table = pd.DataFrame({_("word"): tokens_b, _("slot in A"): check.perm, _("slot in B"): range(len(tokens_b)),
                          _("largest change"): check.written})
    tables.table(table)


check_section()


@st.cache_resource(max_entries=32, show_spinner=False)
def encoding_section(T: int, d: int, base: float, seed: int, language: str) -> tuple[list[dict], Encodings]:
    """The three charts of this section as Vega-Lite specs (charts.prepared: their thousands of cells
    already in Arrow), and the tables they draw (engine.chapter.position.encodings).

    They depend on the table sliders only, not on the sentences: built once per setting and language (their titles
    and numbers are in it) and shared, read-only, by every session reading it.
    """
    drawn = encodings({"T": T, "d": d, "base": base, "seed": seed})
    cell = max(3, 300 // max(T, d))
    specs = [
        side_by_side(*[encoding_heatmap(P, title=_(TABLE_TITLE, name=_(TABLE_NAMES[name]),
                                                   T=T, d=d), cell=cell)
                       for name, P in drawn.tables.items()]),
        offset_profile({_(TABLE_NAMES[name]): profile for name, profile in drawn.profiles.items()},
                       title=_("How alike are two positions k apart? p_i . p_(i+k), line: mean over i, band: lowest "
                               "to highest")),
        side_by_side(*[gram_heatmap(profile.gram, title=_("{name}: p_i . p_j", name=_(TABLE_NAMES[name])),
                                    cell=max(3, 300 // T))
                       for name, profile in drawn.profiles.items()]),
    ]
    return [charts.prepared(spec) for spec in specs], drawn


@page.section(TABLES)
def tables_section() -> None:
    """The encoding tables and the rotary scores: what the table sliders, the base and the seed change."""
    st.subheader(_("The encodings themselves"))
    T, d, base = int(STATE["T"]), int(STATE["d"]), float(STATE["base"])
    seed = int(STATE["seed"])

    section = page.run_engine(encoding_section, T, d, base, seed, i18n.current().code)
    drawn = section[1] if section is not None else None
    if drawn is not None:
        for spec, width in zip(section[0], ("content", "stretch", "content")):
            charts.show(spec, width=width)
        near, sin = drawn.near, drawn.profiles["sinusoidal"]
        st.latex(r"PE(t, 2i) = \sin(t\,\omega_i),\quad PE(t, 2i{+}1) = \cos(t\,\omega_i),\quad "
                 r"\omega_i = \mathrm{base}^{-2i/d}")
        st.latex(rf"p_t \cdot p_{{t+{near}}} = \textstyle\sum_{{i=0}}^{{d/2-1}} \cos({near}\,\omega_i) = "
                 rf"{numbers.latex(sin.mean[near], 3)}"
                 rf"\quad (d = {d},\ \mathrm{{base}} = {numbers.localized(f'{base:g}')})")
        st.caption(drawn.reading)

    st.subheader(_("Rotary positions: only the distance between two tokens counts"))
    st.markdown(_("Rotary positions (RoPE, used by Llama and by SmolLM2 on the head viewer) add nothing to x. Inside "
                  "attention, each query and key is turned, pair of coordinates by pair, through an angle that grows "
                  "with its position. Turning both by the same extra angle changes nothing, so the score of a query "
                  "at i and a key at j depends on i - j alone: below, the same *owl* query meets the same *cat* key "
                  "at every pair of positions, and every diagonal holds one number."))
    if drawn is not None:
        rot = drawn.rotary
        T_rot = rot.shape[0]
        charts.show(heatmap_spec(rot, [str(i) for i in range(T_rot)], [str(j) for j in range(T_rot)], digits=2,
                                 cell=34, value_name=_("score"), scheme="viridis",
                                 title=drawn.rotary_title, x_title=_("key position j"), y_title=_("query position i")),
                    width="content")
        spread = pgettext("formula", "spread")
        formula.formula_with_numbers(
            r"(R_i\, q) \cdot (R_j\, k) = q^\top R_i^\top R_j\, k = q^\top R_{j-i}\, k",
            rf"\max_{{i - j = \text{{const}}}} \big|\text{{{spread}}}\big| = "
            rf"{chips.latex_number(diagonal_spread(rot).max())}"
            rf",\quad s_{{3,1}} = {numbers.latex(rot[min(3, T_rot - 1), min(1, T_rot - 1)], 3)}"
            rf" = s_{{{T_rot - 1},{T_rot - 3}}} = {numbers.latex(rot[T_rot - 1, max(T_rot - 3, 0)], 3)}",
            stacked=True,
            caption=_("R_t turns pair m of coordinates by the angle t theta_m, theta_m = base^(-2m/d): rotations add "
                      "up, so R_i^T R_j = R_(j-i). The check is the largest difference along any diagonal of the "
                      "table: rounding only. So when the window slides, the keys of a model's first block, which "
                      "depend only on their own token and position, score exactly as before and can be kept. A later "
                      "block's key also carries what its token read from the tokens before it, the one that just left "
                      "the window included: keeping those (sliding-window attention) gives close to a fresh pass, not "
                      "the same."))


tables_section()


@page.section(CODE)
def code_section() -> None:
    """The code and the challenges: they read the check too, so its settings rerun this as well."""
    shown = checked()
    check = shown.check if shown is not None else None
    kind, strength, seed = STATE["enc"], float(STATE["strength"]), int(STATE["seed"])
    words = {w: vocabulary.vector(w).tolist() for w in sentence_a.tokens} if sentence_a is not None else {}
    b_words = " ".join(sentence_a.tokens[j] for j in perm) if perm is not None else STATE["b"]
    code.show_code({"Python": position_code(
        words, sentence_a.tokens if sentence_a is not None else [], b_words, encoding=kind, strength=strength,
        seed=seed, projections=STATE["proj"], causal=STATE["causal"],
        perm=check.perm.tolist() if check is not None else [])})

    difference = check.max_difference if check is not None else 0.0
    challenges.try_this([
        challenges.Challenge(_("Add an encoding and make some word's context vector change by more than {size}.",
                               size=numbers.fixed(0.1, 1)),
                             done=check is not None and kind != "none" and difference > 0.1,
                             hint=_("Choose sinusoidal in the sidebar."), solution={STATE.key("enc"): "sinusoidal"}),
        challenges.Challenge(_("With no encoding at all, break the equality anyway."),
                             done=check is not None and kind == "none" and not check.equivariant,
                             hint=_("Turn on the causal mask: a decoder's mask lets each word see only the words "
                                    "before it."),
                             solution={STATE.key("causal"): True}),
        # "not zero" as the page itself decides it: above the check's rounding tolerance (at s = 0 every change is
        # rounding, 5.55e-17, and the page says A and B cannot be told apart)
        challenges.Challenge(_("Keep an encoding on but make order a whisper: every change below {size}, yet more "
                               "than rounding (the page must tell A from B).", size=numbers.fixed(0.03, 2)),
                             done=check is not None and kind != "none" and not check.equivariant and difference < 0.03,
                             hint=_("Choose sinusoidal and turn the strength s down to {step}, the slider's first "
                                    "step above 0.", step=numbers.fixed(0.05, 2)),
                             solution={STATE.key("enc"): "sinusoidal", STATE.key("strength"): 0.05}),
    ])


code_section()

page.further_reading(PAGE.reading)
page.next_idea(__file__)
