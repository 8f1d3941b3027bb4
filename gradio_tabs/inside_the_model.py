"""Inside the model (views/inside_the_model.py) in the Gradio Space: the same spec (engine.chapter.inside: the
prompts, targets, ablation modes and their limits, the question) and the same engine calls on SmolLM2-135M
(engine.interpret.interventions), with the page's sentences (engine.interpret.readings). `*_from_link(values)` give
each endpoint's outputs for a page's typed link values (PAGE.values)."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr
import numpy as np

from engine import limits, markup
from engine.chapter.inside import LENS_HEADING, MAX_CHARS, PAGE, PATCHING_HEADING, SHORT_KNOCK_OUT, SHORT_PATCHING
from engine.interpret import readings, interventions
from engine.charts.bars import score_bars
from engine.charts.heatmaps import CHANGE, heatmap_spec
from engine.charts.style import unique_labels, visible
from engine.numbers import enough_digits, fixed, grouped, localized
from gradio_tabs import loaders
from gradio_tabs.head_viewer import LOADS
from engine.i18n import N_, _, pgettext
from gradio_tabs.common import (
    engine_call, heading, help_of, label_of, plot, question, results, say, static, table, whole,
)

md = markup.markdown   # tokens and sentences echoed in a Markdown summary read as typed


P = PAGE.by_name
TOP_HEADS = 5                    # heads named in the summary


def lens_from_link(values: Mapping[str, Any], k: int = readings.LENS_TOP_K):
    """/logit_lens's outputs for a page's link values: its text and target, read through SmolLM2 (the Space brings
    no other model); `k` tokens per layer (the page keeps readings.LENS_TOP_K)."""
    return logit_lens_tab(values["text"], values["target"], k)


def effects_from_link(values: Mapping[str, Any]):
    """/head_effects's outputs for a page's link values: every head of SmolLM2 knocked out alone on the knock-out's
    prompt and target, by the link's mode (the exact scan the page runs when asked)."""
    return head_effects_tab(values["ko_text"], values["ko_target"], values["mode"])


def patching_from_link(values: Mapping[str, Any]):
    """/patching's outputs for a page's link values: its clean and corrupted prompts and answers."""
    return patching_tab(values["clean"], values["corrupt"], values["clean_target"], values["corrupt_target"])


def logit_lens_tab(text: str, target: str, k: float):
    """Each layer's residual stream read through the model's own output (ln softmax(W_vocab norm(x_l))), at
    the last position: the top k tokens, and the probability and rank of `target` (one token)."""
    k = whole(k, 1, limits.LOGIT_LENS_MAX_TOP_K, _("number of tokens per layer"))
    lens = engine_call(interventions.logit_lens, engine_call(loaders.smollm2), text, k=k, target=target)
    top_p = lens.top_probabilities[:, -1]                                   # (L + 1, k) at the last position
    target_p = np.exp(lens.target_log_probs[:, -1])                        # (L + 1,)
    name = visible(target)
    columns = (_("layer"), _("top token"), _("P(top token)"), _("top {k}", k=k), _("P(target)"), _("rank of target"))
    rows = [dict(zip(columns, (readings.layer_name(layer), lens.top_tokens[r, -1, 0], round(float(top_p[r, 0]), 4),
                               " | ".join(visible(t) for t in lens.top_tokens[r, -1]), round(float(target_p[r]), 4),
                               int(lens.target_ranks[r, -1]))))
            for r, layer in enumerate(lens.layers)]
    first = lens.first_top_layer(lens.target)
    said = md(name)
    summary = (_("After **{token}** the model's own answer (after the last block) is **{answer}**, P = {p}.",
                 token=md(visible(lens.tokens[-1])), answer=md(visible(lens.top_tokens[-1, -1, 0])),
                 p=fixed(float(top_p[-1, 0])))
               + " " + (_("**{target}** is the top prediction from *{layer}* on.", target=said,
                          layer=readings.layer_name(lens.layers[first]))
                        if first is not None else _("**{target}** is not its final top prediction.", target=said))
               + " " + readings.read_lens(lens, target).sentences[0])   # the page's reading, word for word
    bars = score_bars([readings.layer_name(layer) for layer in lens.layers], target_p, value_title=f"P('{name}')",
                      title=_("P({token} next), read after each layer", token=f"'{name}'"))
    return table(rows), plot(bars, width=360), summary


def head_effects_tab(text: str, target: str, mode: str):
    """Every head knocked out alone (its output z set to 0, or to its mean): the change in ln P(target) at
    the last position, every head ranked, the largest drop first."""
    effects = engine_call(interventions.head_effects, engine_call(loaders.smollm2), text, target, mode=mode)
    L, h = effects.effects.shape
    intact = float(np.exp(effects.clean_log_prob))
    # P printed with the digits that make ln P without - ln P intact give the printed change (engine.numbers)
    places = enough_digits(readings.log_ratio, np.full(effects.effects.size, intact),
                           np.exp(effects.ablated_log_probs).ravel(), least=4, result_digits=4)
    columns = (pgettext("chart field", "rank"), _("layer"), _("head"), _("Δ ln P(target)"), _("P(target) without it"))
    rows = [dict(zip(columns, (rank, layer, head, round(effect, 4),
                               round(float(np.exp(effects.ablated_log_probs[layer, head])), places))))
            for rank, (layer, head, effect) in enumerate(effects.ranking(), start=1)]
    named = ", ".join(f"L{layer}H{head} ({localized(format(effect, '+.2f'))})"
                      for layer, head, effect in effects.ranking(TOP_HEADS))
    summary = _("Intact, P(**{target}**) = {p} after **{token}**. Knocking out one head at a time ({mode} ablation, "
                "{passes} passes), the largest drops in ln P: {named}. Negative: the head helped the target.",
                target=md(visible(effects.target_token)), p=fixed(intact, places),
                token=md(visible(effects.tokens[-1])),
                mode=readings.mode_name(effects.mode), passes=grouped(L * h), named=named)
    largest = float(np.abs(effects.effects).max()) or 1.0
    heatmap = heatmap_spec(effects.effects.T, [_("head {n}", n=j) for j in range(h)],
                           [str(layer) for layer in range(L)],
                           title=_("Δ ln P({token}) with one head knocked out (orange: the head helped; numbers in "
                                   "the table)", token=f"'{visible(effects.target_token)}'"),
                           x_title=N_("layer"), y_title=N_("head"), value_name="Δ ln P", scheme=CHANGE,
                           domain=(-largest, largest), digits=2, cell=28, max_cells_with_numbers=0)
    return table(rows), plot(heatmap), summary


def patching_tab(clean: str, corrupt: str, clean_target: str, corrupt_target: str):
    """Run the corrupted prompt with the clean residual stream put back at one (layer, position) at a time:
    the share of the logit difference LD = logit[clean target] - logit[corrupt target] that comes back."""
    result = engine_call(interventions.activation_patching, engine_call(loaders.smollm2), clean, corrupt,
                         clean_target, corrupt_target)
    positions = unique_labels([f"{t}: {visible(a)}" + (f" / {visible(b)}" if a != b else "")
                               for t, (a, b) in enumerate(zip(result.clean_tokens, result.corrupt_tokens))])
    rows = table(result.restored.T.astype(float).round(3), [readings.layer_name(layer) for layer in result.layers],
                 digits=3)
    rows.insert(0, _("position"), positions)
    layer, position = np.unravel_index(int(np.argmax(result.restored[:-1])), result.restored[:-1].shape)
    clean_said, corrupt_said = (md(visible(t)) for t in (result.clean_target_token,
                                                                        result.corrupt_target_token))
    summary = _("LD = logit['{clean}'] - logit['{corrupt}'] is {clean_ld} on the clean prompt and {corrupt_ld} on the "
                "corrupted one. 1 means the patch brings the clean answer back, 0 changes nothing. Before the last "
                "layer it comes back most at position {position}, *{layer}* ({share}).", clean=clean_said,
                corrupt=corrupt_said, clean_ld=fixed(result.clean_logit_diff, 2),
                corrupt_ld=fixed(result.corrupt_logit_diff, 2), position=md(positions[position]),
                layer=readings.layer_name(result.layers[layer]), share=fixed(result.restored[layer, position], 2))
    heatmap = heatmap_spec(result.restored.T, positions, [str(r) for r in range(len(result.layers))],
                           title=_("Share of the clean answer restored (columns: 0 = embedding, l = after block l - "
                                   "1)"),
                           x_title=N_("residual stream row"), y_title=N_("position"), value_name=N_("restored"),
                           scheme=CHANGE, domain=(-1, 1), digits=1, cell=30)
    return rows, plot(heatmap), summary


def inside_the_model_tab(demo: gr.Blocks) -> None:
    question(PAGE.question,
             lambda: _("Change something inside SmolLM2 and read what the output does.") + " " + _(LOADS))
    heading(LENS_HEADING)
    with gr.Row():
        lens_text = gr.Textbox(P["text"].default, label=label_of(P["text"]), max_length=MAX_CHARS, scale=3)
        lens_target = gr.Textbox(P["target"].default, label=label_of(P["target"]),
                                 max_length=limits.TARGET_MAX_CHARS)
        lens_k = gr.Slider(1, limits.LOGIT_LENS_MAX_TOP_K, value=readings.LENS_TOP_K, step=1,
                           label=say("tokens per layer"))
    read = gr.Button(say("Read every layer"), variant="primary")
    read.click(logit_lens_tab, [lens_text, lens_target, lens_k],
               results(say("P(target) after each layer"), say("At the last position, layer by layer"),
                       max_height=360),
               api_name="logit_lens")

    heading(N_("2. Knock out heads"))
    with gr.Row():
        effects_text = gr.Textbox(SHORT_KNOCK_OUT[0], max_length=MAX_CHARS, scale=3, label=static(
            lambda: P["ko_text"].label.format(n=limits.HEAD_EFFECTS_MAX_TOKENS)))
        effects_target = gr.Textbox(SHORT_KNOCK_OUT[1], label=label_of(P["ko_target"]),
                                    max_length=limits.TARGET_MAX_CHARS)
        mode = gr.Radio([(static(lambda m=m: readings.mode_name(m)), m) for m in interventions.MODES],
                        value=P["mode"].default, label=label_of(P["mode"]), info=help_of(P["mode"]))
    knock = gr.Button(say("Knock out each head"), variant="primary")
    knock.click(head_effects_tab, [effects_text, effects_target, mode],
                results(say("Change in ln P(target), every head"), say("Every head, largest drop first"),
                        max_height=320),
                api_name="head_effects", concurrency_limit=None)   # the engine's heavy line bounds it

    heading(PATCHING_HEADING)
    with gr.Row():
        clean = gr.Textbox(SHORT_PATCHING[0], label=label_of(P["clean"]), max_length=MAX_CHARS)
        corrupt = gr.Textbox(SHORT_PATCHING[1], label=label_of(P["corrupt"]), max_length=MAX_CHARS)
    with gr.Row():
        clean_target = gr.Textbox(SHORT_PATCHING[2], label=label_of(P["clean_target"]),
                                  max_length=limits.TARGET_MAX_CHARS)
        corrupt_target = gr.Textbox(SHORT_PATCHING[3], label=label_of(P["corrupt_target"]),
                                    max_length=limits.TARGET_MAX_CHARS)
    patch = gr.Button(say("Patch every cell"), variant="primary")
    patch.click(patching_tab, [clean, corrupt, clean_target, corrupt_target],
                results(say("Share restored, as a heatmap"),
                        say("Share restored (rows: positions; columns: residual stream rows)")),
                api_name="patching", concurrency_limit=None)

