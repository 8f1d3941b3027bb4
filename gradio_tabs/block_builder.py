"""Block builder (views/block_builder.py) in the Gradio Space, with a short live training, streamed: the same spec
(engine.chapter.block: the sizes and switches, their labels, the presets, the schedule's defaults and limits) and the
same count from it, and the sentence both front ends say about it (`shares`)."""
from __future__ import annotations

import math
import time
from typing import Any, Mapping

import gradio as gr

from engine import limits, numbers
from engine.chapter.block import (
    DEFAULT_PRESET, FIELDS, MAX_SEED, NORM_NAMES, PAGE, SIZES, STAGES_TITLE, TRAIN_HEADING, config_of, progress, shares,
    waiting,
)
from engine.i18n import N_, _, ngettext
from engine.charts.bars import parameter_bars
from engine.charts.lines import loss_curves
from engine.language.ngram import nats_to_bits
from engine.transformer.config import (
    ACTIVATIONS, COUNT_RULE, LAYER_NORMS, POSITIONALS, PRESETS, TransformerConfig, count_parameters, dataflow,
    position_name,
    scale_row,
)
from gradio_tabs import loaders
from gradio_tabs.common import (
    chart, choices, engine_call, help_of, label_of, plot, question, refuse, say, static, table, whole,
)

P = PAGE.by_name

TRAIN_SECONDS = 10      # the Gradio tab's default run: a few seconds at the smallest preset
POLL_S = 1.0            # seconds between two progress updates of a run (the page's too)


def history_columns() -> list[str]:
    """The training history's headers, in the reader's language."""
    return [_("step"), _("seconds"), _("training loss (bits/char)"), _("held-out loss (bits/char)")]


def _config(values: dict) -> TransformerConfig:
    """The sizes and switches (a dict with every name of FIELDS) as the engine's configuration, whole numbers
    checked first."""
    fields = {name: values[name] for name in FIELDS}
    for name in ("vocab_size", "context_length", "d_model", "n_heads", "d_ff", "n_layers"):
        fields[name] = whole(fields[name], 1 if name != "n_layers" else 0, 10**9, P[f"bb_{name}"].label)
    return engine_call(config_of, {f"bb_{name}": value for name, value in fields.items()})


def from_link(values: Mapping[str, Any]):
    """The block endpoint's outputs for a page's typed link values (engine.chapter.block.settings): parameters by
    part, every stage, the presets for scale, the bars and the sentence."""
    config = engine_call(config_of, values)
    count = count_parameters(config)
    parts = [{_("part"): part, _("parameters"): n} for part, n in count.parts().items()]
    stages = [{_("stage"): s.title, _("computes"): s.formula, _("output shape"): " x ".join(map(str, s.shape)),
               _("parameters"): s.parameters, _("per block"): _("yes") if s.in_block else ""}
              for s in dataflow(config)]
    scale = [scale_row(name, c) for name, c in {_("your block"): config, **{_(name): preset for name, preset in
                                                                             PRESETS.items()}}.items()]
    total = ngettext("{n} parameter", "{n} parameters", count.total, n=numbers.grouped(count.total))
    summary = (f"**{total}.** {shares(config)} "
               + ngettext("The stack repeats the block N = {n} time.", "The stack repeats the block N = {n} times.",
                          config.n_layers)
               + " " + _("For scale, the presets: {rule}", rule=_(COUNT_RULE)))
    return (table(parts), table(stages), table(scale), plot(parameter_bars(count.parts())), summary)


def preset_tab(preset: str):
    """A known model's sizes and switches (FIELDS order), to load into the form."""
    if preset not in PRESETS:
        refuse(_("Choose one of the presets: {presets}.", presets=", ".join(PRESETS)))
    return [getattr(PRESETS[preset], field) for field in FIELDS]


def block_tab(vocab_size: float, context_length: float, d_model: float, n_heads: float, d_ff: float,
              n_layers: float, activation: str, layer_norm: str, residual: bool, positional: str, causal: bool,
              tied_head: bool, final_norm: bool, bias: bool):
    """Parameters by part, every stage with its formula and output shape, and the presets for scale."""
    config = _config(locals())
    return from_link({f"bb_{field}": getattr(config, field) for field in FIELDS})


def _progress(job, config_label: str, baselines: dict) -> tuple:
    """What a run looks like now: a sentence, its history (bits per character), the loss chart."""
    history = list(job.history)
    shown = [p for p in history if p.held_out_loss is not None] + history[-1:]   # each evaluation, and now
    rows = [(p.step, round(p.seconds, 2), round(nats_to_bits(p.train_loss), 4),
             None if p.held_out_loss is None else round(nats_to_bits(p.held_out_loss), 4)) for p in shown]
    latest = history[-1] if history else None
    if job.state == "waiting":             # place 0 once the line is behind it, though the run may not have begun
        text = waiting(job.queue_position)
    elif latest is None:
        text = progress(None)
    else:
        now = progress(latest.step, latest.seconds, nats_to_bits(latest.train_loss), latest.tokens_per_second, 1)
        text = {"done": _("Done: {progress}.", progress=now),
                "stopped": _("Stopped: {progress}.", progress=now)}.get(job.state, _("Training: {progress}.",
                                                                                    progress=now))
        if job.result is not None and job.result.final_held_out_loss is not None:
            text += " " + _("Held-out: **{loss} bits per character** (the uniform guess over the characters: "
                            "{uniform}).", loss=numbers.fixed(nats_to_bits(job.result.final_held_out_loss), 3),
                            uniform=numbers.fixed(math.log2(job.model.config.vocab_size), 2))
    evaluated = [p for p in history if p.held_out_loss is not None]
    run = {"label": config_label, "steps": [p.step for p in history], "train_loss": [p.train_loss for p in history],
           "eval_steps": [p.step for p in evaluated], "held_out_loss": [p.held_out_loss for p in evaluated]}
    return text, table(rows, history_columns()), plot(loss_curves([run], baselines))


def train_tab(vocab_size: float, context_length: float, d_model: float, n_heads: float, d_ff: float,
              n_layers: float, activation: str, layer_norm: str, residual: bool, positional: str, causal: bool,
              tied_head: bool, final_norm: bool, bias: bool, seconds: float, steps: float, learning_rate: float,
              batch: float, seed: float):
    """Train the block on the plays' characters for a few seconds, streaming progress (a generator: the
    queue sends each update); the block's sizes and switches, then the schedule. The budget and sizes are
    limited as on the Block builder (engine.limits)."""
    from engine.transformer.training_jobs import live_job
    from engine.transformer.training import live_schedule

    config = _config(locals())
    seconds = whole(seconds, 1, limits.MAX_TRAIN_SECONDS, _("time budget (seconds)"))
    steps = whole(steps, 1, limits.MAX_TRAIN_STEPS, _("number of steps"))
    batch = whole(batch, 1, limits.MAX_TRAIN_BATCH, _("batch"))
    seed = whole(seed, 0, MAX_SEED, _("seed"))
    tokenizer, train_ids, held_out_ids = engine_call(loaders.tokens, "characters")
    schedule = engine_call(live_schedule, batch, steps, seconds, float(learning_rate), seed)
    # the n-gram lines first: counted while the run trained, on a server without the prepared cache, they took the
    # CPU from the run's time budget and held back its first progress update until it had ended
    baselines = {rung.model.split(" ")[0]: rung.nats_per_token for rung in engine_call(loaders.ladder)
                 if rung.model.split("-")[0] in ("2", "3", "4", "5")}
    job = engine_call(live_job, config, tokenizer.vocab_size, train_ids, held_out_ids, schedule)
    norm = {"post": _("post-norm"), "pre": _("pre-norm"), "none": _("no LN")}[config.layer_norm]
    label = f"d={config.d_model} h={config.n_heads} N={config.n_layers}, {norm}, {seconds} s"
    try:
        while not job.finished:
            yield _progress(job, label, baselines)
            time.sleep(POLL_S)
        if job.state == "failed":
            refuse(_("The run failed: {error}", error=job.error))
        yield _progress(job, label, baselines)
    finally:
        job.stop()            # a visitor who leaves (or a cancelled call) frees the training slot


def block_builder_tab(demo: gr.Blocks) -> None:
    question(PAGE.question,
             N_("Set the sizes and switches (or load a preset): parameter counts and shapes follow from the formula."))
    preset = gr.Dropdown(choices({p: p for p in PRESETS}), value=DEFAULT_PRESET, label=label_of(P["bb_preset"]),
                         info=help_of(P["bb_preset"]))

    def size(field: str, **bounds) -> gr.Number:
        p = P[f"bb_{field}"]
        return gr.Number(p.default, label=label_of(p), precision=0, minimum=SIZES[field][0], **bounds)

    with gr.Row():
        d_model, n_heads, d_ff, n_layers = (size(f) for f in ("d_model", "n_heads", "d_ff", "n_layers"))
        context_length = size("context_length", maximum=limits.MAX_CONTEXT_LENGTH)
        vocab_size = size("vocab_size")
    with gr.Row():
        layer_norm = gr.Radio(choices({n: NORM_NAMES[n] for n in LAYER_NORMS}), value=P["bb_layer_norm"].default,
                              label=label_of(P["bb_layer_norm"]))
        activation = gr.Radio(choices({a: a for a in ACTIVATIONS}), value=P["bb_activation"].default,
                              label=label_of(P["bb_activation"]))
        positional = gr.Radio([(static(lambda p=p: position_name(p)), p) for p in POSITIONALS],
                              value=P["bb_positional"].default, label=label_of(P["bb_positional"]))
    with gr.Row():
        residual, causal, tied_head, final_norm, bias = (
            gr.Checkbox(P[f"bb_{f}"].default, label=label_of(P[f"bb_{f}"]))
            for f in ("residual", "causal", "tied_head", "final_norm", "bias"))
    fields = dict(vocab_size=vocab_size, context_length=context_length, d_model=d_model, n_heads=n_heads, d_ff=d_ff,
                  n_layers=n_layers, activation=activation, layer_norm=layer_norm, residual=residual,
                  positional=positional, causal=causal, tied_head=tied_head, final_norm=final_norm, bias=bias)
    sizes = [fields[name] for name in FIELDS]
    count = gr.Button(say("Count the parameters"), variant="primary")
    summary = gr.Markdown(label=say("summary"))
    bars = chart(label=say("Parameters by part, as bars"))
    parts = gr.Dataframe(label=say("Parameters by part"))
    stages = gr.Dataframe(label=say(STAGES_TITLE))
    scale = gr.Dataframe(label=say("For scale: the same formula for the presets"))
    outputs = [parts, stages, scale, bars, summary]
    preset.change(preset_tab, [preset], sizes, api_name="block_preset").then(
        block_tab, sizes, outputs, api_visibility="private")
    count.click(block_tab, sizes, outputs, api_name="block")
    demo.load(block_tab, sizes, outputs, api_visibility="private")

    gr.Markdown(static(lambda: "#### " + _(TRAIN_HEADING) + "\n" + _(
        "A few seconds on a shared CPU; at most {seconds} s, {runs} runs at once.", seconds=limits.MAX_TRAIN_SECONDS,
        runs=limits.MAX_TRAININGS_PER_MACHINE)))
    with gr.Row():
        seconds = gr.Slider(1, limits.MAX_TRAIN_SECONDS, value=TRAIN_SECONDS, step=1, label=label_of(P["bb_seconds"]))
        steps = gr.Number(P["bb_steps"].default, label=label_of(P["bb_steps"]), precision=0, minimum=1,
                          maximum=limits.MAX_TRAIN_STEPS)
        learning_rate = gr.Number(float(P["bb_lr"].default), label=label_of(P["bb_lr"]), minimum=0, maximum=1,
                                  step=0.001)
        batch = gr.Number(P["bb_batch"].default, label=label_of(P["bb_batch"]), precision=0, minimum=1,
                          maximum=limits.MAX_TRAIN_BATCH)
        train_seed = gr.Number(P["bb_seed"].default, label=label_of(P["bb_seed"]), precision=0, minimum=0,
                               maximum=MAX_SEED)
    with gr.Row():
        start = gr.Button(say("Train"), variant="primary")
        stop = gr.Button(say("Stop"))
    progress = gr.Markdown(label=say("summary"))
    curves = chart(label=say("Loss in bits per character (dashed: the n-gram baselines)"))
    history = gr.Dataframe(label=say("Each held-out evaluation, and the latest step"), max_height=300)

    run = start.click(train_tab, [*sizes, seconds, steps, learning_rate, batch, train_seed],
                      [progress, history, curves], api_name="train")
    stop.click(None, cancels=[run])
