"""Block builder: assemble a transformer block and stack, count its parameters, train it live."""
from __future__ import annotations

import math
from typing import Callable

import streamlit as st

from engine import limits, numbers
from engine.charts.bars import parameter_bars
from engine.charts.diagrams import block_diagram
from engine.charts.style import COLUMN_GAP_PX
from engine.charts.lines import head_formation_lines, loss_curves
from engine.i18n import _, ngettext, pgettext
from engine.interpret.readings import formation_sentence
from engine.transformer.code import block_code
from engine.chapter.block import (
    STAGES_TITLE,
    TRAIN_HEADING,
    CUSTOM, DEFAULT_PRESET, FIELDS, LEARNING_RATES, MAX_SEED, NORM_NAMES, PAGE, SIZES, TRAINING, percent, progress,
    shares, waiting,
)
from engine.transformer.config import (
    ACTIVATIONS, COUNT_RULE, LAYER_NORMS, POSITIONALS, PRESETS, TransformerConfig, block_formula, count_parameters,
    dataflow, position_name, scale_row,
)
from ui import challenges, charts, code, diagrams, loaders, page, screen, tables, url_state, warmup
from ui.screen import AS_BUILT_PX
from ui.session_slots import BLOCK_RUNS, LIVE_MODEL

page.header(PAGE)
P = PAGE.by_name


BELOW_3_3 = "baby GPT (nanoGPT on a CPU)"   # the preset the held-out challenge's hint trains (the tiny one stalls)


def key(field: str) -> str:
    """The session key of a switch or size (its URL name is bb_<field>)."""
    return STATE.key(f"bb_{field}")


STATE = url_state.PageState(PAGE)

# sections that rerun alone (ui.page.section): the switches change these three, the learning rate the code
CHANGED = "block.changed"   # the sidebar's line saying the switches no longer match the preset
BLOCK = "block.block"       # diagram, parameter counts, one block's formula, the presets for scale
DIAGRAM_SHARE = 5 / 11      # the diagram's column, beside the parameter counts
CODE = "block.code"         # the code, the challenges and GPT-2's line at the foot of the page


def switches() -> dict:
    """The sizes and switches as they are now: read from session state, so a section rerun alone sees them."""
    return {field: STATE[f"bb_{field}"] for field in FIELDS}


def training_now() -> bool:
    """Whether this session's latest run still trains: started (STATE "job"), not yet recorded among the runs."""
    return STATE.get("job") is not None and not STATE.get("job_recorded", True)


def saved_runs() -> list[dict]:
    """This session's finished runs, oldest first (BLOCK_RUNS: Generate's ladder shows them too)."""
    return BLOCK_RUNS.get() or []


def built() -> TransformerConfig | None:
    """The configuration the sizes and switches make, or None where they make none (the block section says why)."""
    try:
        return TransformerConfig(**switches())
    except ValueError:
        return None


@page.section(CHANGED)
def changed_section() -> None:
    """'Changed from the preset', in the sidebar under the switches."""
    preset = PRESETS.get(STATE["bb_preset"])
    if preset is not None and any(getattr(preset, f) != v for f, v in switches().items()):
        chosen = STATE["bb_preset"]
        st.caption(_("Changed from the preset '{preset}'.", preset=_(chosen)))


def load_preset() -> None:
    """Copy the chosen preset into every switch (runs before the widgets are drawn)."""
    preset = PRESETS.get(STATE["bb_preset"])
    if preset is not None:
        for field in FIELDS:
            STATE[f"bb_{field}"] = getattr(preset, field)


# --- settings: the sidebar -------------------------------------------------------------------
# Besides the link's values, STATE holds the run training now ("job", "job_label", "job_lm": its model for the
# pages, "job_recorded"); the finished runs are BLOCK_RUNS, which Generate reads too. A class that moves the student
# here opens the page afresh, and a run it forgets is stopped rather than left training unseen.
forgotten = STATE.get("job")
STATE.init("bb_preset")
if forgotten is not None and STATE.get("job") is None:
    forgotten.stop()
linked_preset = PRESETS.get(STATE["bb_preset"], PRESETS[DEFAULT_PRESET])
# a link naming a preset opens with its sizes, unless it names a switch too
STATE.init(*(f"bb_{field}" for field in FIELDS),
           defaults={f"bb_{field}": getattr(linked_preset, field) for field in FIELDS})


def only(*sections: str) -> Callable[[], None]:
    """ui.page.only, but a whole run while a live run trains: a widget's rerun stops the browser's timer of the
    training's auto-rerunning fragment, and only a whole run starts it again (Streamlit 1.67)."""
    rerun_sections = page.only(STATE, *sections)

    def changed() -> None:
        if training_now():
            return              # training: the widget's usual whole run, which keeps its progress moving
        rerun_sections()
    return changed


# a switch reruns only the three sections; the preset, the sizes and the positions (rotary refuses an odd d_k)
# can also enable or disable the Train button, so they rerun the whole page
switched = only(CHANGED, BLOCK, CODE)

with st.sidebar:
    st.selectbox(P["bb_preset"].label, list(PRESETS) + [CUSTOM], key=key("preset"), on_change=load_preset,
                 format_func=_, help=P["bb_preset"].help)
    st.caption(_("Sizes"))
    left, right = st.columns(2)
    left.number_input(P["bb_d_model"].label, *SIZES["d_model"], key=key("d_model"))
    right.number_input(P["bb_n_heads"].label, *SIZES["n_heads"], key=key("n_heads"))
    left.number_input(P["bb_d_ff"].label, *SIZES["d_ff"], key=key("d_ff"))
    right.number_input(P["bb_n_layers"].label, *SIZES["n_layers"], key=key("n_layers"))
    left.number_input(P["bb_context_length"].label, *SIZES["context_length"], key=key("context_length"))
    right.number_input(P["bb_vocab_size"].label, *SIZES["vocab_size"], key=key("vocab_size"))
    st.caption(_("Switches"))
    st.radio(P["bb_layer_norm"].label, LAYER_NORMS, key=key("layer_norm"), format_func=lambda norm: _(NORM_NAMES[norm]),
             horizontal=False,
             on_change=switched)
    st.radio(P["bb_activation"].label, ACTIVATIONS, key=key("activation"), horizontal=True, on_change=switched)
    st.radio(P["bb_positional"].label, POSITIONALS, key=key("positional"), format_func=position_name,
             horizontal=True)
    st.toggle(P["bb_residual"].label, key=key("residual"), on_change=switched)
    st.toggle(P["bb_causal"].label, key=key("causal"), on_change=switched)
    st.toggle(P["bb_tied_head"].label, key=key("tied_head"), on_change=switched)
    st.toggle(P["bb_final_norm"].label, key=key("final_norm"), on_change=switched)
    st.toggle(P["bb_bias"].label, key=key("bias"), on_change=switched)
    changed_section()
STATE.mirror(["bb_preset"] + [f"bb_{f}" for f in FIELDS])


# --- the block: diagram and parameter counts ----------------------------------------------------
@page.section(BLOCK)
def block_section() -> None:
    """Everything the sizes and switches show above the training (a switch reruns this, the sidebar's 'changed'
    line and the code, not the training)."""
    config = page.run_engine(lambda: TransformerConfig(**switches()))
    if config is None:
        return
    count = count_parameters(config)
    stages = dataflow(config)
    diagram, counts = st.columns([DIAGRAM_SHARE, 1 - DIAGRAM_SHARE])
    with diagram:
        st.subheader(_("Data flow, with shapes at each arrow"))
        names = ", ".join(stage.title for stage in stages)
        # the picture is scaled to its column: laid out for the column's width, its text stays readable on a phone
        column_px = screen.layout(DIAGRAM_SHARE).width or AS_BUILT_PX * DIAGRAM_SHARE - COLUMN_GAP_PX
        diagrams.show(block_diagram(stages, config.n_layers, config.residual, column_px=column_px),
                      alt=ngettext("Data flow, top to bottom: {stages}; the block repeated {n} time; residual "
                                   "connections around attention and the feed-forward network.",
                                   "Data flow, top to bottom: {stages}; the block repeated {n} times; residual "
                                   "connections around attention and the feed-forward network.",
                                   config.n_layers, stages=names) if config.residual else
                      ngettext("Data flow, top to bottom: {stages}; the block repeated {n} time; no residual "
                               "connections.",
                               "Data flow, top to bottom: {stages}; the block repeated {n} times; no residual "
                               "connections.", config.n_layers, stages=names))
        st.caption(_("Shapes are for one sequence of T tokens (a batch adds a leading B). Dashed orange arrows: the "
                     "residual connections."))
    with counts:
        st.subheader(ngettext("{n} parameter", "{n} parameters", count.total, n=numbers.grouped(count.total)))
        charts.show(parameter_bars(count.parts()), width="stretch")   # fits a phone's column
        st.markdown(shares(config))
        box = page.folded(_(STAGES_TITLE), "block.stages")
        if box.open:
            with box:
                tables.table([{_("stage"): s.title, _("computes"): s.formula, _("output shape"): str(s.shape),
                               _("parameters"): s.parameters, _("per block"): _("yes") if s.in_block else ""}
                              for s in stages], formats={_("parameters"): "localized"})
    terms = block_formula(config)
    st.latex(" + ".join(rf"\underbrace{{{latex}}}_{{{part}}}" for part, latex, _ in terms) + " = "
             + " + ".join(numbers.latex_grouped(n) for _part, _latex, n in terms)
             + rf" = {numbers.latex_grouped(count.per_block)}")
    share = percent(count.blocks / max(count.total, 1))
    st.caption(ngettext("One block (biases on); the stack repeats it N = {n} time, {share} of the model.",
                        "One block (biases on); the stack repeats it N = {n} times, {share} of the model.",
                        config.n_layers, share=share) if config.bias else
               ngettext("One block (biases off: no +4d, +d_ff + d terms, and one number per LayerNorm feature); the "
                        "stack repeats it N = {n} time, {share} of the model.",
                        "One block (biases off: no +4d, +d_ff + d terms, and one number per LayerNorm feature); the "
                        "stack repeats it N = {n} times, {share} of the model.", config.n_layers, share=share))

    st.markdown(_("**For scale**: the same formula, counted for the presets. The block is the same idea at every "
                  "size; only d, d_ff, N, V and T grow."))
    others = [name for name in PRESETS if name != STATE["bb_preset"]]
    scale = {_("your block"): config} | {_(name): PRESETS[name] for name in others}
    tables.table([scale_row(name, c) for name, c in scale.items()], turn_on_phone=True,
                 formats=dict.fromkeys(("d", "d_ff", _("vocabulary V"), _("context T"), _("parameters")),
                                       "localized"))
    st.caption(_(COUNT_RULE))
    gpt3 = count_parameters(PRESETS["GPT-3 175B"]).total
    st.markdown(_("GPT-3 (Brown et al. 2020) comes to **{count}** parameters by this count, the 175 billion its "
                  "paper reports. Most later commercial models do not publish their sizes: read a parameter count "
                  "quoted for one of them as an outside estimate, and check where it came from.",
                  count=numbers.grouped(gpt3)))


block_section()
config = built()   # the Train button's: a whole run (the sizes, the preset, the positions) sees it change

# --- training live ---------------------------------------------------------------------------------
st.subheader(_(TRAIN_HEADING))
st.caption(_("Next-token prediction on the plays' training split; held-out loss on the validation split. Runs use one "
             "CPU thread; a few students at a time train, the others wait in line."))
settings = st.columns(5)
STATE.init("bb_seconds", "bb_steps", "bb_lr", "bb_batch", "bb_seed", TRAINING)
# the learning rate shows only in the code until Train reads it, so it reruns only the code. The numbers rerun the
# whole page: a number is sent when it loses the focus, so typing one and clicking Train reach the page as one
# rerun, and a rerun of the code alone would drop the click
settings[0].number_input(P["bb_seconds"].label, 1, limits.MAX_TRAIN_SECONDS, key=key("seconds"))
settings[1].number_input(P["bb_steps"].label, 1, limits.MAX_TRAIN_STEPS, key=key("steps"))
settings[2].selectbox(P["bb_lr"].label, LEARNING_RATES, key=key("lr"), on_change=only(CODE))
settings[3].number_input(P["bb_batch"].label, 1, limits.MAX_TRAIN_BATCH, key=key("batch"))
settings[4].number_input(P["bb_seed"].label, 0, MAX_SEED, key=key("seed"))
STATE.mirror(["bb_seconds", "bb_steps", "bb_lr", "bb_batch", "bb_seed"])

job = STATE.get("job")
running = training_now()
lost = STATE[TRAINING] and job is None   # the link says a training ran, and this session never had one


def mark_training(on: bool) -> None:
    """The link's mark that a training runs: on at the start, off once it is recorded (finished or stopped)."""
    STATE[TRAINING] = on
    STATE.mirror([TRAINING])


def start_training() -> None:
    from engine.transformer.language_model import TransformerLanguageModel
    from engine.transformer.training_jobs import live_job
    from engine.transformer.training import live_schedule

    tokenizer, train_ids, held_out_ids, _ = loaders.char_corpus()
    schedule = live_schedule(STATE["bb_batch"], STATE["bb_steps"], STATE["bb_seconds"], float(STATE["bb_lr"]),
                             STATE["bb_seed"])
    from engine.interpret.interventions import head_formation

    # watch heads form: every evaluation also scores each head on a fixed repeated random probe
    probe = head_formation if config.context_length >= 4 else None
    new_job = live_job(config, tokenizer.vocab_size, train_ids, held_out_ids, schedule, probe=probe)
    STATE["job"] = new_job
    STATE["job_recorded"] = False
    STATE["job_label"] = run_label(new_job.model.config, len(saved_runs()) + 1)
    STATE["job_lm"] = TransformerLanguageModel(new_job.model, tokenizer, name=STATE["job_label"])
    mark_training(True)


def run_label(c: TransformerConfig, number: int) -> str:
    """A run's name in the loss chart's legend and the runs' table, in the language of the session that started it."""
    norm = {"post": _("post-norm"), "pre": _("pre-norm"), "none": _("no LN")}[c.layer_norm]
    parts = [f"#{number}: d={c.d_model} h={c.n_heads} N={c.n_layers}", norm,
             _("residual") if c.residual else _("NO residual"),
             _("{positions} pos.", positions=position_name(c.positional)), c.activation]
    return ", ".join(parts)


def ended_by(stopped_by: str) -> str:
    """What ended a run (engine.transformer.training's stopped_by) in the reader's language."""
    return {"steps": pgettext("ended by", "steps"), "time": pgettext("ended by", "time"),
            "stop": pgettext("ended by", "stop")}.get(stopped_by, stopped_by)


def history_of(label: str, job) -> dict:
    result = job.result
    if result is not None:
        return {"label": label, "steps": result.steps, "train_loss": result.train_loss,
                "eval_steps": result.eval_steps, "held_out_loss": result.held_out_loss}
    history = list(job.history)
    evaluated = [p for p in history if p.held_out_loss is not None]
    return {"label": label, "steps": [p.step for p in history], "train_loss": [p.train_loss for p in history],
            "eval_steps": [p.step for p in evaluated], "held_out_loss": [p.held_out_loss for p in evaluated]}


def record(job) -> None:
    """Keep a finished run to compare (the oldest goes beyond the limit)."""
    lm = STATE["job_lm"]
    _, _, _, held_out_text = loaders.char_corpus()
    from engine.transformer.generation import held_out_rung

    run = history_of(STATE["job_label"], job) | {
        "config": job.model.config, "seconds": job.result.seconds, "tokens_per_second": job.result.tokens_per_second,
        "stopped_by": job.result.stopped_by, "rung": held_out_rung(lm, held_out_text), "probes": list(job.probes)}
    BLOCK_RUNS.put((saved_runs() + [run])[-limits.MAX_SAVED_RUNS:])
    LIVE_MODEL.put(lm)                            # Generate samples from the latest run, Inside the model reads it
    STATE["job_recorded"] = True
    mark_training(False)


def checked_start() -> None:
    from engine.transformer.training import check_trainable, TrainConfig

    check_trainable(config, TrainConfig(max_seconds=float(STATE["bb_seconds"])))
    start_training()


if lost:
    st.warning(_("A training was running when this page's link was last written, and it is gone: the server that ran "
                 "your training stopped (a restart or a crash), and this tab reconnected to another one. The run is "
                 "lost. Start it again: the settings above are the ones it had."), icon=":material/sync_problem:")
    again, never_mind = st.columns([1, 3])
    if again.button(_("Start again"), icon=":material/replay:", type="primary", disabled=config is None):
        page.run_engine(checked_start)
        if STATE.get("job") is not None:
            st.rerun()   # the page without this sentence, with the new run's progress
    elif never_mind.button(_("Dismiss"), icon=":material/close:"):
        mark_training(False)
        st.rerun()
job = STATE.get("job")
running = training_now()

buttons = st.columns([1, 1, 1, 4])
if buttons[0].button(_("Train"), icon=":material/play_arrow:", type="primary", disabled=running or config is None):
    page.run_engine(checked_start)
    job = STATE.get("job")
    running = training_now()
if buttons[1].button(_("Stop"), icon=":material/stop:", disabled=not running):
    job.stop()
if buttons[2].button(_("Clear runs"), icon=":material/delete:", disabled=running or not saved_runs()):
    BLOCK_RUNS.put([])

baselines = page.run_engine(loaders.ngram_baselines) or {}


def draw_training() -> None:
    job = STATE.get("job")
    if job is None:
        return
    if training_now():
        if job.state == "waiting":
            st.info(waiting(job.queue_position), icon=":material/hourglass_top:")
        elif job.state == "failed":
            page.show_error(_("The run failed: {error}", error=job.error))
            STATE["job_recorded"] = True
            mark_training(False)
        else:
            latest = job.history[-1] if job.history else None
            fraction = 0.0 if latest is None else max(latest.step / job.config.max_steps,
                                                      latest.seconds / (job.config.max_seconds or math.inf))
            text = progress(None) if latest is None else progress(
                latest.step, latest.seconds, latest.train_loss / math.log(2), latest.tokens_per_second)
            st.progress(min(fraction, 1.0), text=text)
        if job.finished and job.state != "failed":
            record(job)
            st.rerun()
    runs = [dict(r) for r in saved_runs()]
    if training_now():
        runs.append(history_of(_("{run} (training)", run=STATE["job_label"]), job))
    if any(r["steps"] for r in runs):
        charts.show(loss_curves(runs, baselines))
    steps = history_of("", job)["steps"]
    draw_formation(list(job.probes), steps[-1] if steps else 0,
                   running_now=training_now())


def draw_formation(points: list, last_step: int, running_now: bool) -> None:
    """Heads forming in the latest run: each head's previous-token and induction score on a fixed
    probe r + r, and how much easier the second r is than the first (in-context learning)."""
    if not points:
        return
    st.markdown(_("**Watch heads form.** At each evaluation the model reads a fixed probe: random characters r, then r "
                  "again. A *previous-token* head puts its weight one step back; an *induction* head, in the second r, "
                  "on the character after the earlier copy of the current one, which lets the model predict the rest "
                  "of r. The orange line is the loss gap: first copy minus second copy, in bits per character."))
    charts.show(head_formation_lines(points))
    st.caption(formation_sentence(points[-1], last_step, running_now))


if running:
    st.fragment(run_every=1.0)(draw_training)()
else:
    draw_training()

runs = saved_runs()
if runs:
    tables.table([{_("run"): r["label"], _("parameters"): count_parameters(r["config"]).total,
                   _("steps"): r["steps"][-1], _("seconds"): r["seconds"], _("tokens/s"): round(r["tokens_per_second"]),
                   _("ended by"): ended_by(r["stopped_by"]), _("held-out bits/char"): r["rung"].bits_per_char}
                  for r in runs],
                 formats={_("parameters"): "localized", _("seconds"): "%.1f", _("tokens/s"): "localized",
                          _("held-out bits/char"): "%.3f"})
    st.caption(_("Held-out figures in the table: {chars} characters in {passages} passages spread over the validation "
                 "split, the same text the n-gram lines and the Generate page's ladder are scored on. The curves use "
                 "fixed random windows of the whole validation split.",
                 chars=numbers.grouped(limits.LADDER_HELD_OUT_CHARS), passages=limits.LADDER_PASSAGES))
if baselines and (runs or running):
    st.caption(_("Dashed grey lines: Kneser-Ney character n-grams of the same training text. Losses are in bits per "
                 "character, as on the Generate page's ladder: training minimises nats (natural log), and bits = nats "
                 "/ ln 2 = nats / {ln2}. The baby GPT preset with the default 3-minute schedule gets below the 4-gram "
                 "({four_gram}) on a recent server processor that multiplies matrices in a shorter number format "
                 "several times faster; a one-minute run, or a run on an ordinary laptop processor, does not. The "
                 "n-gram only counts, the transformer has to learn.", ln2=numbers.fixed(0.693, 3),
                 four_gram=numbers.fixed(baselines.get("4-gram", 0) / math.log(2), 2)))

# --- show the code, try this, reading ------------------------------------------------------------
@page.section(CODE)
def code_section() -> None:
    """The code (sizes, switches, training settings), the challenges and GPT-2's line."""
    config = built()
    runs = saved_runs()
    if config is not None:
        code.show_code({"Python": block_code(config, batch=STATE["bb_batch"], steps=STATE["bb_steps"],
                                             seconds=STATE["bb_seconds"], learning_rate=STATE["bb_lr"],
                                             seed=STATE["bb_seed"], fields=tuple(FIELDS))})

    norms = {r["config"].layer_norm for r in runs}
    residuals = {r["config"].residual for r in runs}
    best = min((r["rung"].bits_per_char for r in runs), default=math.inf)
    gpt2 = config is not None and config == PRESETS["GPT-2 small"]
    challenges.try_this([
        challenges.Challenge(_("Train two runs that differ only in the residual switch, and compare their curves."),
                             done=residuals == {True, False},
                             hint=_("Train once, turn '{switch}' off, train again.",
                                    switch=P["bb_residual"].label)),
        challenges.Challenge(_("Train a post-norm and a pre-norm run: which one learns faster at the start?"),
                             done={"post", "pre"} <= norms, hint=_("Switch LayerNorm between runs.")),
        challenges.Challenge(_("Get a run below {bits} bits per character on held-out text.",
                               bits=numbers.fixed(3.3, 1)), done=best < 3.3,
                             hint=_("Train the {preset} preset for 500 steps, batch 16, learning rate {lr}, time limit "
                                    "300 s (about a minute on a free CPU).", preset=_(BELOW_3_3),
                                    lr=numbers.fixed(0.003, 3)),
                             solution={STATE.key("bb_preset"): BELOW_3_3, STATE.key("bb_steps"): 500,
                                       STATE.key("bb_batch"): 16, STATE.key("bb_lr"): "0.003",
                                       STATE.key("bb_seconds"): 300}),
    ])
    if gpt2:
        st.caption(_("GPT-2 small: {count} parameters, exactly the count of OpenAI's released checkpoint.",
                     count=numbers.grouped(count_parameters(config).total)))


code_section()

page.further_reading(PAGE.reading)
page.next_idea(__file__)
warmup.prefetch("the model ladder")  # ui.warmup: the next page, Generate, opens on it
