"""Multi-head attention: h heads of width d/h, concatenated, times W_O; what it computes and what it costs."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from engine import limits, numbers
from engine.attention.mechanism import shape_trace
from engine.attention.code import multi_head_code
from engine.charts.bars import cost_comparison
from engine.charts.heatmaps import head_grid, heatmap_panels
from engine.transformer.shipped_model import head_weights, shipped_available
from engine.chapter.multi_head import (
    GAINS, H_CHOICES, HEADS_LABEL, LINE_LABEL, MAX_SEED, PAGE, WEIGHTS, costs, heads, vocabulary_note,
)
from engine.i18n import N_, _, ngettext
from engine.embeddings.tiny_vocabulary import embed, load_vocabulary
from ui import challenges, charts, code, decimal_slider, formula, loaders, page, tables, url_state

page.header(PAGE)

vocabulary = load_vocabulary()
d = vocabulary.d
SENTENCE_CHARS = limits.MAX_MULTI_HEAD_SENTENCE_CHARS
P = PAGE.by_name


def help_text(name: str) -> str:
    return _(P[name].help)


STATE = url_state.PageState(PAGE)
# the shipped model's habits as engine.transformer.shipped_model names them: marked here, shown as _(name)
HABITS = (N_("on the previous character"), N_("on itself"), N_("on the first character"))


def ROW_0() -> str:   # noqa: N802  a formula's subscript, in the reader's language
    return formula.word(_("row 0"))
# The sections that rerun alone (ui.page.section): each head's weights and numbers; the shipped model's
# heads; the cost of h heads with the code and the challenges (these read the heads' result too).
HEADS, TRAINED, COSTS, TAIL = "multihead.heads", "multihead.trained", "multihead.costs", "multihead.tail"
STATE.init()
if STATE["h"] not in H_CHOICES:
    STATE["h"] = P["h"].default

with st.sidebar:
    st.header(_("Settings"))
    st.select_slider(_(HEADS_LABEL, d=d), H_CHOICES, key=STATE.key("h"),
                     on_change=page.only(STATE, HEADS, TAIL))
    st.radio(P["weights"].label, list(WEIGHTS), key=STATE.key("weights"), format_func=lambda key: _(WEIGHTS[key]),
             on_change=page.only(STATE, HEADS, TAIL))
    decimal_slider.slider(st, P["gain"].label, GAINS[0], GAINS[1], step=GAINS[2], key=STATE.key("gain"),
                          on_change=page.only(STATE, HEADS, TAIL), help=help_text("gain"))
    st.number_input(P["seed"].label, 0, MAX_SEED, key=STATE.key("seed"), on_change=page.only(STATE, HEADS, TAIL))
    st.toggle(P["causal"].label, key=STATE.key("causal"), on_change=page.only(STATE, HEADS, TAIL))
    st.subheader(_("Cost of one attention layer"))
    costs_only = page.only(STATE, COSTS, TAIL)
    st.caption(_("Defaults: GPT-2 small (T = {T} tokens, d = {d}, h = {h}).", T=1024, d=768, h=12))
    st.number_input(P["cost_T"].label, 1, limits.MAX_COST_TOKENS, key=STATE.key("cost_T"), on_change=costs_only)
    st.number_input(P["cost_d"].label, 1, limits.MAX_COST_WIDTH, key=STATE.key("cost_d"), on_change=costs_only)
    st.number_input(P["cost_h"].label, 1, limits.MAX_COST_HEADS, key=STATE.key("cost_h"), on_change=costs_only)

st.text_input(P["sentence"].label, key=STATE.key("sentence"), max_chars=SENTENCE_CHARS)
sentence = page.run_engine(embed, STATE["sentence"], vocabulary)
st.caption(vocabulary_note(vocabulary))
STATE.mirror()


def heads_result():
    """Each head's result on the sentence with the sidebar's settings, read from the state (the sections
    that call it rerun alone when a setting moves); None without a sentence or after an error sentence."""
    if sentence is None:
        return None
    return page.run_engine(heads, {name: STATE[name] for name in ("sentence", "h", "weights", "gain", "seed",
                                                                  "causal")})


@page.section(HEADS)
def heads_section() -> None:
    """Each head's weights, the shapes at every step and the numbers: what the sidebar's heads, weights,
    gain, seed and mask change."""
    shown = heads_result()
    if shown is None:
        return
    h, result, titles = shown.h, shown.result, shown.titles
    tokens, d_head = sentence.tokens, result.d_head
    st.subheader(ngettext("Each head's weights: {n} head of width d/h = {d_head}",
                          "Each head's weights: {n} heads of width d/h = {d_head}", h, d_head=d_head))
    charts.show(head_grid([head.weights for head in result.heads], tokens, titles=titles,
                          cell=34 if h > 2 else 40, causal=STATE["causal"]), width="content")
    st.markdown(shown.reading)

    st.subheader(_("Shapes at every step"))
    trace_col, formula_col = st.columns([3, 2])
    with trace_col:
        lines = [_("| step | computed as | shape | how many |"), "|---|---|---|---|"]
        for step in shape_trace(result):
            shape = " x ".join(str(n) for n in step.shape)
            lines.append(f"| {_(step.name)} | ${step.formula}$ | {shape} | {step.count} |")
        st.markdown("\n".join(lines))
    with formula_col:
        st.latex(r"\operatorname{head}_m = \operatorname{softmax}\!\Big(\frac{(X W^Q_m)(X W^K_m)^\top}"
                 r"{\sqrt{d/h}}\Big)\, X W^V_m")
        st.latex(r"\operatorname{MultiHead}(X) = \begin{bmatrix} \operatorname{head}_1 & \cdots & "
                 r"\operatorname{head}_h \end{bmatrix} W^O")
        st.caption(_("T = {T} tokens, d = {d}, h = {h}: each W^Q_m (heads m = 1 .. {h}) is {d} x {d_head}, the "
                     "columns {d_head}(m - 1) .. {d_head}m - 1 of W^Q (counting columns from 0).", T=len(tokens), d=d,
                     h=h, d_head=d_head))

    st.markdown(_("**The numbers**: each head's output, side by side, then times W_O"))
    formula.formula_with_numbers(
        r"[\operatorname{head}_1 \cdots \operatorname{head}_h]_{" + ROW_0() + "}",
        formula.latex_vector(result.concat[0], 2),
        caption=_("Row 0 ('{token}') of the concatenation: head 1 fills columns 0..{last}, head 2 the next {d_head}, "
                  "and so on.", token=tokens[0], last=d_head - 1, d_head=d_head))
    formula.formula_with_numbers(r"\operatorname{MultiHead}(X)_{" + ROW_0() + "}",
                                 formula.latex_vector(result.output[0], 2),
                caption=_("Hand-built heads use W_O = I, so the output is the concatenation itself; with seeded "
                          "random weights W_O mixes every head into every column.") if STATE["weights"] == "identity"
                else _("W_O mixes the heads: every output column draws on every head."))
    box = page.folded(_("Every head's output and the full result"), STATE.key("outputs"), icon=":material/table:")
    if box.open:
        with box:
            frames = {_("head {m}", m=m + 1): head.context for m, head in enumerate(result.heads)}
            frames["MultiHead(X)"] = result.output
            for name, values in frames.items():
                st.markdown(f"**{name}** ({values.shape[0]} x {values.shape[1]})")
                tables.table(pd.DataFrame(values, index=pd.Index(tokens, name=_("token"))), digits=3,
                             hide_index=False)


@page.section(TRAINED)
def trained_section() -> None:
    """The shipped model's heads: its switch, its line and its block rerun only this."""
    st.subheader(_("Heads of a trained model"))
    if not shipped_available():
        st.info(_("The small model that comes with the app is missing from this copy of it, so there are no trained "
                  "heads to show here."), icon=":material/info:")
        return
    st.toggle(P["trained"].label, key=STATE.key("trained"),
              on_change=page.only(STATE, TRAINED))
    if not STATE["trained"]:
        return
    shipped = page.run_engine(loaders.shipped_transformer)   # (language model, notes)
    st.text_input(_(LINE_LABEL, most=limits.MAX_HEAD_VIEW_CHARS), key=STATE.key("line"),
                  max_chars=SENTENCE_CHARS, on_change=page.only(STATE, TRAINED))
    heads = None
    if shipped is not None:
        lm, notes = shipped
        heads = page.run_engine(head_weights, lm.model, lm.tokenizer, STATE["line"])
    if heads is not None:
        if not 1 <= STATE["layer"] <= heads.n_layers:
            STATE.fall_back("layer", 1)
        layer = st.select_slider(P["layer"].label, list(range(1, heads.n_layers + 1)), key=STATE.key("layer"),
                                 on_change=page.only(STATE, TRAINED))
        chars = [c if c != " " else "␣" for c in heads.tokens]
        panels = {_("block {block}, head {head}", block=layer, head=m + 1): (heads.weights[layer - 1, m], chars, chars)
                  for m in range(heads.n_heads)}
        charts.show(heatmap_panels(panels, domain=(0.0, 1.0), cell=18 if len(chars) > 12 else 26, columns=2,
                                   numbers=False, x_title=_("key (character)"), y_title=_("query (character)"),
                                   causal=True))
        labels = ([_("block {block}", block=b + 1) for b in range(heads.n_layers)],
                  [_("head {m}", m=m + 1) for m in range(heads.n_heads)])
        charts.show(heatmap_panels({_(name): (share, *labels) for name, share in heads.habits.items()},
                                   value_name=_("mean weight"), domain=(0.0, 1.0), cell=34, columns=3,
                                   x_title=_("head"), y_title=_("block")))
        share, name, block, head = heads.strongest_habit()
        percent = numbers.localized(f"{share:.0%}")
        habit = (_("Its clearest habit on this line: head {head} of block {block} puts {share} of its weight {name}, "
                   "on average over the characters.", head=head, block=block, share=percent, name=_(name))
                 if share > 0.5 else
                 _("On this line no head gives more than half its weight to one of these habits (the most: {share} "
                   "{name}, head {head} of block {block}); its heads mix several relations.", share=percent,
                   name=_(name), head=head, block=block))
        nats = notes.get("held_out_nats_per_char")
        blocks, n_heads = lm.model.config.n_layers, lm.model.config.n_heads
        model = (_("A {blocks}-block, {heads}-head character model trained on Shakespeare (held-out loss {bits} bits "
                   "per character).", blocks=blocks, heads=n_heads, bits=numbers.fixed(nats / math.log(2)))
                 if nats else
                 _("A {blocks}-block, {heads}-head character model trained on Shakespeare.", blocks=blocks,
                   heads=n_heads))
        st.caption(f"{model} {habit} " + _("The causal mask leaves the upper triangle empty: no character sees the "
                                           "future."))


@page.section(COSTS)
def costs_section() -> None:
    """The cost of h heads: the sidebar's T, d and h rerun this (and the tail)."""
    st.subheader(_("What it costs: h heads of d/h against one head of width d"))

    counted = page.run_engine(costs, {name: STATE[name] for name in ("cost_T", "cost_d", "cost_h")})
    if counted is not None:
        split, renamed = counted.split, counted.named
        charts.show(cost_comparison(renamed))
        table = pd.DataFrame(
            [(name, c.params, c.flops_qkv, c.flops_scores + c.flops_weighted_sum, c.flops_softmax, c.flops_out, c.flops)
             for name, c in renamed.items()],
            columns=[_("layout"), _("parameters"), _("FLOPs: X W_Q, X W_K, X W_V"), _("FLOPs: Q K^T and α V"),
                     _("FLOPs: softmax"), _("FLOPs: W_O"), _("FLOPs: total")])
        tables.table(table, formats=dict.fromkeys(table.columns[1:], "localized"), turn_on_phone=True)
        formula.formula_with_numbers(
            formula.word(_("params")) + r" = \underbrace{3 \times d \times (h \cdot \tfrac{d}{h})}_{W^Q,\, W^K,\, "
            r"W^V:\ d \times d" + formula.word(" " + _("each")) + r"} + \underbrace{(h \cdot \tfrac{d}{h}) \times d}"
            r"_{W^O:\ d \times d}",
            rf"= 4d^2 = 4 \times {split.d}^2 = " + numbers.latex_grouped(split.params), stacked=True,
            caption=counted.reading)


@page.section(TAIL)
def tail_section() -> None:
    """The code and the challenges: they read the heads' result and the costs, so both rerun this."""
    try:
        counted = costs({name: STATE[name] for name in ("cost_T", "cost_d", "cost_h")})
    except ValueError:   # the costs section says why
        counted = None
    shown = heads_result()
    result = shown.result if shown is not None else None
    h, gain, seed = int(STATE["h"]), float(STATE["gain"]), int(STATE["seed"])
    if result is not None:
        words = {w: vocabulary.vector(w).tolist() for w in sentence.tokens}
        code.show_code({"Python": multi_head_code(words, sentence.tokens, h=h, weights=STATE["weights"], gain=gain,
                                                  seed=seed, causal=STATE["causal"])})

    largest_self = max(float(np.max(np.diag(head.weights))) for head in result.heads) if result is not None else 0.0
    challenges.try_this([
        challenges.Challenge(_("Make some head look almost only at the word itself: more than {share} of a word's "
                               "weight on itself.", share=numbers.fixed(0.9, 1)), done=largest_self > 0.9,
                             hint=_("Slide the gain up to 5: it multiplies every score, and softmax sharpens towards "
                                    "the largest, the word's own."),
                             solution={STATE.key("gain"): 5.0}),
        challenges.Challenge(_("Give every head exactly one feature to compare (d/h = 1)."),
                             done=result is not None and result.d_head == 1,
                             hint=_("Set h to d = {d}.", d=d), solution={STATE.key("h"): d}),
        challenges.Challenge(_("Find sizes where h heads of width d/h cost more than 10% more FLOPs than one head."),
                             done=counted is not None and counted.split.flops > 1.1 * counted.one.flops,
                             hint=_("Only the softmax grows with h: many narrow heads over a long sequence, such as "
                                    "T = 100000, d = 64, h = 64."),
                             solution={STATE.key("cost_T"): 100_000, STATE.key("cost_d"): 64, STATE.key("cost_h"): 64}),
    ])


heads_section()
trained_section()
costs_section()
tail_section()

page.further_reading(PAGE.reading)
page.next_idea(__file__)
