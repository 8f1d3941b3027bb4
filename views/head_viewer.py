"""Head viewer: every layer x head of SmolLM2-135M (or a model brought along) on a sentence, each head named."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import i18n, limits, markup
from engine.attention.readings import listed
from engine.chapter.heads import (DEFAULT_PRESET, PAGE, PRESETS, READS_ENGLISH, REPEATED, asks, fitted, head_sentence,
                                  head_view)
from engine.i18n import N_, _
from engine.interpret import heads
from engine.interpret.code import head_viewer_code
from engine.pretrained import smollm2 as pretrained
from engine.charts.heatmaps import heatmap_spec
from engine.charts.images import model_view
from engine.charts.lines import head_lines
from engine.charts.palette import TYPE_COLOURS
from engine.pretrained.gguf_file import Config
from engine.pretrained.llama import DEFAULT_NAME
from ui import challenges, charts, code, formula, language, loaders, page, tables, url_state
from ui.pretrained_views import absorbed_probes, load_model, model_picker

PATTERN_FORMULAS = {   # (formula, its name: marked, shown as _(name))
    "previous-token": (r"\frac{1}{T-2}\sum_{i=2}^{T-1}\alpha_{i,\,i-1}", N_("previous")),
    "first-token": (r"\frac{1}{T-2}\sum_{i=2}^{T-1}\alpha_{i,\,0}", N_("first")),
    "self": (r"\frac{1}{T-2}\sum_{i=2}^{T-1}\alpha_{i,\,i}", N_("self")),
    "broad": (r"\frac{1}{T-2}\sum_{i=2}^{T-1}\frac{-\sum_j \alpha_{ij}\ln\alpha_{ij}}{\ln(i+1)}", N_("broad")),
    "induction": (r"\frac{1}{|I|}\sum_{i\in I}\ \sum_{j<i:\ w_{j-1}=w_i}\alpha_{ij}", N_("induction")),
}


def key_value_groups(config: Config) -> str:
    """The sentence on grouped keys and values, with this model's numbers of heads."""
    h, h_kv, size = config.n_head, config.n_kv_head, config.group_size
    if h_kv == h:
        return "- " + _("**Keys and values** as in the chapter: each of the {h} query heads has its own key/value head "
                        "(other Llama models group them, to keep fewer numbers per token when generating).", h=h)
    if h_kv == 1:
        return "- " + _("**Grouped keys and values**: all {h} query heads share one key/value head. Fewer numbers to "
                        "keep per token when generating.", h=h)
    groups = [f"{g * size}-{g * size + size - 1}" for g in range(h_kv)]
    shown = listed(groups) if h_kv <= 4 else ", ".join(groups[:2]) + f", ... {groups[-1]}"
    return "- " + _("**Grouped keys and values**: {h} query heads but only {h_kv} key/value heads; heads {groups} "
                    "share theirs. Fewer numbers to keep per token when generating.", h=h, h_kv=h_kv, groups=shown)


def type_name(kind: str) -> str:
    """A head type as the page names it, in the reader's language (the key stays English in the link)."""
    return _(heads.TYPE_NAMES.get(kind, kind))


def pick_preset() -> None:
    STATE["text"] = PRESETS[STATE["preset"]]


def take_click() -> None:
    """A click on a head in the model view selects it."""
    picked = STATE.get("model_view", {}).get("selection", {}).get("head_pick") or []
    if picked:
        STATE["layer"] = int(picked[0]["layer"])
        STATE["head"] = int(picked[0]["head"])


def open_clicked_head() -> None:
    """The model view's on_select: select the clicked head, then rerun only the model view and the head."""
    take_click()
    page.only(STATE, GRID, HEAD)()


language.choose()        # the header (below) comes after the sidebar: the language is chosen first
title = st.container()   # filled once the model is known: its name and number of heads

STATE = url_state.PageState(PAGE)
STATE.init()
# The sections that rerun alone (ui.page.section): the model view; the selected head and all below it.
GRID, HEAD = "heads.grid", "heads.head"

with st.sidebar:
    picked = model_picker(STATE, "model")
model = load_model(picked)
config = model.config if model is not None else Config()     # SmolLM2's sizes until a model is there
# what the page calls the model shown (a file's name, in Markdown below)
model_name = "SmolLM2" if picked == DEFAULT_NAME else markup.markdown(picked)
with title:
    page.header(_("Head viewer: {model}", model=model_name), asks(config.n_layer * config.n_head))
    page.beyond_the_chapter(__file__)
last_layer, last_head = config.n_layer - 1, config.n_head - 1

with st.sidebar:
    st.header(_("Filters"))
    # one range per model (its own key): another model starts with all of its layers shown
    st.slider(_("Layers shown"), 0, last_layer, (0, last_layer), key=STATE.key(f"layer_range.{picked}"),
              on_change=page.only(STATE, GRID))
    st.multiselect(_("Head types shown"), list(heads.TYPES), default=list(heads.TYPES), key=STATE.key("types_shown"),
                   format_func=type_name, on_change=page.only(STATE, GRID))
    st.caption(_("Types are named on your sentence, except induction, which is measured once on a random "
                 "sequence of 30 tokens repeated twice (copying is the only way to predict its second half)."))

st.selectbox(_("Start from an example"), list(PRESETS), index=None, placeholder=_("Pick an example sentence..."),
             key=STATE.key("preset"), on_change=pick_preset, format_func=_)
if not i18n.is_source():   # said in the reader's language: the sentence to type is English
    st.caption(_(READS_ENGLISH))
st.text_area(PAGE.param("text").label, key=STATE.key("text"), height=68, max_chars=limits.PRETRAINED_MAX_TEXT_CHARS)

result = None
if model is not None:
    result = page.run_engine(loaders.pretrained_heads, picked, STATE["text"], limits.HEAD_VIEWER_MAX_TOKENS)
if result is not None and result.note:
    st.warning(result.note + " " + _("The heatmaps would be too small to read beyond that."),
               icon=":material/content_cut:")
scored = images = None
if result is not None:
    scored, images = page.run_engine(loaders.pretrained_scored_heads, picked, STATE["text"]) or (None, None)

# the link's head, fitted to the model once it is known (a layer it lacks goes back to the default)
for name, value in zip(("layer", "head"), fitted({"layer": STATE["layer"], "head": STATE["head"]}, config.n_layer,
                                                 config.n_head)):
    if STATE[name] != value:
        STATE.fall_back(name, value)
STATE.mirror()


@page.section(GRID)
def grid_section() -> None:
    """The model view: what the layers and the types shown and the selected head change."""
    layer, head = STATE["layer"], STATE["head"]
    st.subheader(_("The model view: {layers} layers x {heads} heads", layers=config.n_layer, heads=config.n_head))
    st.caption(_("Each square is one head's weights (rows: queries, top to bottom; columns: keys), framed in "
                 "the colour of its type: blue where a query gives a token more than an even share (1/T of the T "
                 "tokens it sees), white where it gives an even share or less, grey the future it cannot see. "
                 "Click a head to open it below."))
    chart = model_view(images, scored.types, scored.scores, layers=STATE[f"layer_range.{picked}"],
                       shown_types=STATE["types_shown"], selected=(layer, head))
    charts.show(chart, key=STATE.key("model_view"), on_select=open_clicked_head, selection_mode="head_pick")
    counts = scored.count()
    st.markdown(" · ".join(f"<span style='color:{TYPE_COLOURS[t]}'>■</span> "
                           + _("{kind}: **{count}**", kind=type_name(t), count=counts[t]) for t in heads.TYPES),
                unsafe_allow_html=True)


@page.section(HEAD)
def head_section() -> None:
    """The selected head and all below it, which the layer and the head change (with the model view's frame).
    The widgets in it (rank by, the absorbed probes) rerun only this section."""
    view = head_view({"layer": STATE["layer"], "head": STATE["head"]}, result, scored)
    layer, head, tokens, alpha, kind = view.layer, view.head, view.tokens, view.alpha, view.kind
    T = len(tokens)

    st.subheader(_("Layer {layer}, head {head}: {kind}", layer=layer, head=head, kind=type_name(kind)))
    pick_layer, pick_head, _rest = st.columns([1, 1, 3])
    for column, name, last in ((pick_layer, "layer", last_layer), (pick_head, "head", last_head)):
        column.number_input(PAGE.param(name).label, 0, last, key=STATE.key(name),
                            on_change=page.only(STATE, GRID, HEAD))
    st.caption(f"{head_sentence(view)} " + _("Point at a query token on the left to keep only its lines."))
    left, right = st.columns([2, 3])
    with left:
        charts.show(head_lines(alpha, tokens, title=_("Lines: opacity = weight")), width="stretch", share=0.4)
    with right:  # cells small enough that the heatmap fits its column at 1400 px
        # two decimals where "0.00" fits its cell; past 16 tokens the numbers are in the tooltip and the Data table
        charts.show(heatmap_spec(alpha, tokens, tokens, domain=(0, 1), digits=2, causal=True,
                                 cell=30 if T <= 16 else 22, max_cells_with_numbers=16 * 16,
                                 title=_("The same weights as a heatmap"),
                                 x_title=_("key (attended to)"), y_title=_("query (attending)")), share=0.6)

    scores_here = view.scores
    figures, formulas = st.columns([2, 3])
    with figures:
        score = _("score")
        tables.table(pd.DataFrame({_("pattern"): [type_name(p) for p in scores_here], score: list(scores_here.values()),
                                   _("threshold"): [heads.THRESHOLDS[p] for p in scores_here]}),
                     formats={score: "%.3f"}, digits=None)
    with formulas:
        shown = kind if kind in PATTERN_FORMULAS else max(scores_here,
                                                          key=lambda p: scores_here[p] / heads.THRESHOLDS[p])
        expression, symbol = PATTERN_FORMULAS[shown]
        st.latex(rf"{formula.word(_(symbol))}(l, h) = {expression}")
        st.latex(rf"{formula.word(_(symbol))}({layer}, {head}) = {formula.number(scores_here[shown])}")
        st.caption(_("α_ij is the weight of query i on key j, T = {T} tokens here. A head is named after the "
                     "pattern whose score clears its threshold by the widest margin. Induction: I = queries whose "
                     "token appeared before, measured on the repeated random sequence.", T=T))

    st.subheader(_("Which heads do it most?"))
    pattern = st.selectbox(_("Rank heads by"), list(heads.PATTERNS), key=STATE.key("rank_by"), format_func=type_name)
    ranking = scored.ranking(pattern, 10)
    ranked = type_name(pattern)
    tables.table(pd.DataFrame([{_("layer"): layer_, _("head"): h, ranked: s,
                                _("type"): type_name(str(scored.types[layer_, h]))}
                               for layer_, h, s in ranking]), formats={ranked: "%.3f"})

    st.info(_("**Attention weights are not a full explanation.** A weight says how much of a token's value "
              "vector is mixed in, not how much that value matters downstream: values can be small, the "
              "output projection and the feed-forward layers transform what was mixed, and the residual "
              "stream carries most of the signal past every head. Read the patterns as clues about what the "
              "model could use, not as proof of what it does (Jain & Wallace 2019; Wiegreffe & Pinter 2019)."),
            icon=":material/lightbulb:")

    with st.expander(_("How {model}'s block differs from the chapter's", model=model_name),
                     icon=":material/difference:"):
        st.markdown(
            _("- **RMSNorm** instead of LayerNorm: x / sqrt(mean(x²) + ε) · g, no mean subtracted and no bias, "
              "applied *before* each sub-layer (pre-norm), as in GPT-2.") + "\n" +
            _("- **Rotary positions** instead of an added encoding: Q and K are rotated pair by pair by an angle "
              "t·θᵢ, so the score q·k depends on how far apart two tokens are. Nothing is added to x.") + "\n" +
            f"{key_value_groups(config)}\n" +
            _("- **SwiGLU** feed-forward: (silu(x W_gate) ⊙ x W_up) W_down instead of ReLU(x W_1) W_2.") + "\n\n" +
            _("The attention itself is the chapter's: softmax(QKᵀ/√d_k + causal mask) V, per head, then W_O. "
              "The first token here is `{start}`, the start of a document in {model}'s training data; many heads "
              "park their weight on it when they have nothing to do (the *attention sink*).",
              start=model.tokenizer.display(model.start_id), model=model_name))

    path = None if picked == DEFAULT_NAME else str(pretrained.available_models()[picked])
    code.show_code({"Python": head_viewer_code(path, STATE["text"], limits.HEAD_VIEWER_MAX_TOKENS, layer, head,
                                               result=result, scored=scored)})

    it_animal = None
    if " it" in tokens and " animal" in tokens and " street" in tokens:
        i = tokens.index(" it")
        it_animal = alpha[i, tokens.index(" animal")] > alpha[i, tokens.index(" street")]
    repeated = view.repeats
    challenges.try_this([
        challenges.Challenge(_("On the animal sentence, find a head where *it* gives more weight to *animal* than "
                               "to *street*."), done=bool(it_animal),
                             hint=_("Look in the middle layers (layer 13 has one); open a head and point at ' it' "
                                    "on the left."),
                             solution={STATE.key("text"): PRESETS[DEFAULT_PRESET], STATE.key("layer"): 13,
                                       STATE.key("head"): 8}),
        challenges.Challenge(_("Open a previous-token head in one of the first five layers."),
                             done=layer < 5 and kind == "previous-token",
                             hint=_("Filter the types to previous-token only and look at the left of the grid "
                                    "(layers 1 and 2)."),
                             solution={STATE.key("layer"): 1, STATE.key("head"): 2}),
        challenges.Challenge(_("Load the repeated random sequence and open an induction head: its lines from the "
                               "second copy go to the token after the first copy."),
                             done=repeated and kind == "induction",
                             hint=_("Load the repeated random sequence, rank heads by induction and open the top one "
                                    "(layers 17-18)."),
                             solution={STATE.key("preset"): REPEATED, STATE.key("text"): PRESETS[REPEATED],
                                       STATE.key("layer"): 18, STATE.key("head"): 6}),
    ])

    if picked == DEFAULT_NAME:
        st.subheader(_("What the model absorbed"))
        st.markdown(_("SmolLM2 learned from web text, and absorbed its information and its biases. Its next-token "
                      "probabilities are evidence to discuss, not a verdict: one prompt, one small model, its weights "
                      "stored in a 4-bit file and run here in float32."))
        absorbed_probes(key=STATE.key("heads"))


if scored is not None:
    grid_section()
    head_section()


page.further_reading(PAGE.reading)
page.next_idea(__file__)
