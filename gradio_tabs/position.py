"""Position (views/position.py) in the Gradio Space: the same spec (engine.chapter.position: defaults, labels, limits,
the sentences it says) and the same computations from it, `shuffled` and `encodings`."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr

from engine import limits
from engine.i18n import N_, _
from engine.chapter.position import (
    TABLE_TITLE,
    CHANGES_TITLE, ENCODING_NAMES, MAX_SEED, MIN_D, MIN_T, PAGE, STRENGTHS, TABLE_NAMES, encodings, shuffle, shuffled,
    words_note,
)
from engine.charts.bars import difference_bars
from engine.charts.heatmaps import encoding_heatmap, heatmap_panels, heatmap_spec
from engine.charts.lines import offset_profile
from engine.charts.style import side_by_side
from engine.embeddings.tiny_vocabulary import load_vocabulary
from engine.transformer.positional import ENCODINGS
from gradio_tabs.common import chart, choices, engine_call, heading, label_of, plot, question, say, table, whole

P = PAGE.by_name


def position_from_link(values: Mapping[str, Any]):
    """Each word of B, the weights in A and in B, the changes and the sentence for the page's typed link values
    (PAGE.values): what the Streamlit page shows for the same link."""
    shown = engine_call(shuffled, values)
    check, tokens_a, tokens_b = shown.check, shown.tokens_a, shown.tokens_b
    rows = [{_("word"): word, _("slot in A"): int(slot), _("slot in B"): j, _("largest change"): float(change)}
            for j, (word, slot, change) in enumerate(zip(tokens_b, check.perm, check.difference))]
    weights = heatmap_panels({_("weights α in A"): (check.original.weights, tokens_a, tokens_a),
                              _("weights α in B"): (check.shuffled.weights, tokens_b, tokens_b)},
                             domain=(0.0, 1.0), cell=40, columns=2, causal=bool(values["causal"]), digits=3)
    changes = difference_bars(check.difference, tokens_b, title=_(CHANGES_TITLE))
    return table(rows), plot(weights), plot(changes, width=480), shown.reading


def encodings_from_link(values: Mapping[str, Any]):
    """The offsets' table, the two tables p_t, the offset profile, the rotary scores and the sentence for the page's
    typed link values."""
    drawn = engine_call(encodings, values)
    T, d, profiles = drawn.T, drawn.d, drawn.profiles
    cell = max(3, 300 // max(T, d))
    pictures = side_by_side(*[encoding_heatmap(P, title=_(TABLE_TITLE, name=_(TABLE_NAMES[name]), T=T, d=d), cell=cell)
                              for name, P in drawn.tables.items()])
    offsets = offset_profile({_(TABLE_NAMES[name]): profile for name, profile in profiles.items()},
                             title=_("p_i . p_(i+k) by offset k: mean over i, band lowest to highest"))
    rows = [{_("offset k"): int(k), _("sinusoidal: mean p_i . p_(i+k)"): round(float(sin_mean), 4),
             _("sinusoidal: spread over i"): float(sin_spread), _("learned: mean"): round(float(learned_mean), 4),
             _("learned: spread"): round(float(learned_spread), 4)}
            for k, sin_mean, sin_spread, learned_mean, learned_spread in
            zip(profiles["sinusoidal"].offsets, profiles["sinusoidal"].mean, profiles["sinusoidal"].spread,
                profiles["learned"].mean, profiles["learned"].spread)]
    shown = drawn.rotary.shape[0]
    rotary = heatmap_spec(drawn.rotary, [str(i) for i in range(shown)], [str(j) for j in range(shown)], digits=2,
                          cell=34, value_name=_("score"), scheme="viridis", x_title=_("key position j"),
                          y_title=_("query position i"), title=drawn.rotary_title)
    return (table(rows), plot(pictures), plot(offsets, width=480), plot(rotary),
            f"{drawn.reading} {drawn.rotary_reading}")


def from_link(values: Mapping[str, Any]):
    """Both endpoints' outputs for a page's typed link values: the shuffle's, then the tables'."""
    return position_from_link(values), encodings_from_link(values)


def position_tab(a: str, b: str, encoding: str, strength: float, projections: bool, causal: bool, seed: float):
    """Attention over sentence A and over B, the same words in another order: does any word's context
    vector change? Not without a positional encoding (or a mask); yes with one."""
    values = PAGE.defaults() | {"a": a or "", "b": b or "", "enc": encoding, "strength": float(strength),
                                "proj": bool(projections), "causal": bool(causal),
                                "seed": whole(seed, 0, MAX_SEED, _("seed"))}
    return position_from_link(values)


def shuffle_tab(a: str, shuffles: int):
    """Sentence B as a fresh shuffle of A's words (the next seed each press)."""
    return engine_call(shuffle, a or "", shuffles + 1), shuffles + 1


def encodings_tab(T: float, d: float, base: float, seed: float):
    """The sinusoidal and (untrained) learned tables p_t, how alike two positions k apart are, and rotary
    scores that depend on the offset i - j only."""
    values = PAGE.defaults() | {"T": whole(T, MIN_T, limits.MAX_DRAWN_POSITIONS, _("number of positions T")),
                                "d": whole(d, MIN_D, limits.MAX_DRAWN_POSITIONS, _("width d")),
                                "base": float(base), "seed": whole(seed, 0, MAX_SEED, _("seed"))}
    return encodings_from_link(values)


def position_page_tab(demo: gr.Blocks) -> None:
    question(PAGE.question, lambda: words_note(load_vocabulary()))
    with gr.Row():
        a = gr.Textbox(P["a"].default, label=label_of(P["a"]), max_length=limits.MAX_POSITION_SENTENCE_CHARS)
        b = gr.Textbox(P["b"].default, label=label_of(P["b"]), max_length=limits.MAX_POSITION_SENTENCE_CHARS)
        shuffle_button = gr.Button(say("Shuffle A into B"))
    shuffles = gr.State(0)
    with gr.Row():
        encoding = gr.Radio(choices({e: ENCODING_NAMES[e] for e in ENCODINGS}), value=P["enc"].default,
                            label=label_of(P["enc"]))
        strength = gr.Slider(STRENGTHS[0], STRENGTHS[1], value=P["strength"].default, step=STRENGTHS[2],
                             label=label_of(P["strength"]))
    with gr.Row():
        projections = gr.Checkbox(P["proj"].default, label=label_of(P["proj"]))
        causal = gr.Checkbox(P["causal"].default, label=label_of(P["causal"]))
        seed = gr.Number(P["seed"].default, label=label_of(P["seed"]), precision=0, minimum=0, maximum=MAX_SEED)
    go = gr.Button(say("Compare A and B"), variant="primary")
    verdict = gr.Markdown(label=say("summary"))
    changes = chart(label=say("How much each word's context moved"))
    rows = gr.Dataframe(label=say("Each word of B"))
    weights = chart(label=say("The weights in A and in B"))
    inputs, outputs = [a, b, encoding, strength, projections, causal, seed], [rows, weights, changes, verdict]
    shuffle_button.click(shuffle_tab, [a, shuffles], [b, shuffles], api_visibility="private").then(
        position_tab, inputs, outputs, api_visibility="private")
    go.click(position_tab, inputs, outputs, api_name="position")
    demo.load(position_tab, inputs, outputs, api_visibility="private")

    heading(N_("The encodings themselves"))
    with gr.Row():
        T = gr.Slider(MIN_T, limits.MAX_DRAWN_POSITIONS, value=P["T"].default, step=1, label=label_of(P["T"]))
        d = gr.Slider(MIN_D, limits.MAX_DRAWN_POSITIONS, value=P["d"].default, step=2, label=label_of(P["d"]))
        base = gr.Number(P["base"].default, label=label_of(P["base"]), minimum=limits.MIN_SINUSOID_BASE,
                         maximum=limits.MAX_SINUSOID_BASE)
    draw = gr.Button(say("Draw the tables"), variant="primary")
    summary = gr.Markdown(label=say("summary"))

    pictures = chart(label=say("p_t, position by dimension"))
    offsets = chart(label=say("Dot products by offset"))
    rotary = chart(label=say("Rotary scores"))
    offset_rows = gr.Dataframe(label=say("p_i . p_(i+k) by offset k"), max_height=300)
    inputs, outputs = [T, d, base, seed], [offset_rows, pictures, offsets, rotary, summary]
    draw.click(encodings_tab, inputs, outputs, api_name="encodings")
    demo.load(encodings_tab, inputs, outputs, api_visibility="private")
