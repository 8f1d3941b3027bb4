"""Block builder: the page's spec, its sizes and switches, what it counts from its link, the sentence both front ends
say about the count, and its class questions.

Every value the page's link carries is a Param below: the preset, each field of engine.transformer.config's
TransformerConfig as `bb_<field>` (its widget's bounds and label), and the live run's schedule. `config(link)` is the
model the page builds for a link (a preset the link names gives the sizes the link does not), so the Streamlit page,
the Gradio tab and the class questions count the same parameters. The spec itself (PAGE) closes the file.
"""
from __future__ import annotations

from typing import Any, Mapping

from engine import limits, numbers
from engine.i18n import N_, _, ngettext
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, one_of, parse_bool
from engine.classroom.questions import _numbers, _top_choice
from engine.classroom.store import Question
from engine.transformer.config import (
    ACTIVATIONS, LAYER_NORMS, POSITIONALS, PRESETS, TransformerConfig, count_parameters,
)
from engine.transformer.recipe import LIVE_RECIPE

FIELDS = ("vocab_size", "context_length", "d_model", "n_heads", "d_ff", "n_layers", "activation", "layer_norm",
          "residual", "positional", "causal", "tied_head", "final_norm", "bias")
BOOLEAN = {"residual", "causal", "tied_head", "final_norm", "bias"}
CHOICES = {"activation": ACTIVATIONS, "layer_norm": LAYER_NORMS, "positional": POSITIONALS}
# the size inputs' bounds
SIZES = {"d_model": (1, 100_000), "n_heads": (1, 1024), "d_ff": (1, 400_000), "n_layers": (0, 1000),
         "context_length": (1, limits.MAX_CONTEXT_LENGTH), "vocab_size": (1, 1_000_000)}
STAGES_TITLE = N_("Every stage, its formula, its output shape")   # both front ends' table of stages
TRAIN_HEADING = N_("Train it live on Shakespeare, one character at a time")   # both front ends' heading
DEFAULT_PRESET = "tiny (the chapter's block)"
CUSTOM = N_("custom")   # a preset's name is a link's value: shown as _(name)
LEARNING_RATES = ("0.0003", "0.001", "0.002", "0.003", "0.01")
NORM_NAMES = {"post": N_("post-norm (the chapter)"), "pre": N_("pre-norm (GPT-2)"),
              "none": N_("no LayerNorm")}   # shown as _(NORM_NAMES[norm])
MAX_SEED = 2**31 - 1
TRAINING = "bb_training"   # the link's mark of a training running
VEILS = ("block.block", "block.code")
LABELS = {"d_model": N_("width d_model"), "n_heads": N_("heads h"), "d_ff": N_("FFN width d_ff"),
          "n_layers": N_("blocks N"), "context_length": N_("context T"), "vocab_size": N_("vocabulary V"),
          "layer_norm": N_("LayerNorm"), "activation": N_("Activation in the FFN"), "positional": N_("Positions"),
          "residual": N_("Residual connections (x + sublayer(x))"), "causal": N_("Causal mask (no peeking ahead)"),
          "tied_head": N_("Tied LM head (W_vocab = Eᵀ, the embedding matrix reused)"),
          "final_norm": N_("Final LayerNorm before the head"), "bias": N_("Biases in linear layers and LayerNorm")}


def parse_field(field: str):
    """How a link's text becomes this field's value: a switch, one of the choices, or a size its input allows."""
    if field in BOOLEAN:
        return parse_bool
    if field in CHOICES:
        return one_of(CHOICES[field])
    return between(*SIZES[field])


def settings(link: Mapping[str, str]) -> dict:
    """A link's typed values as the page opens them: each size and switch the link gives (and can be read), the others
    the preset's it names (the page opens a link naming a preset with its sizes)."""
    values, fallbacks = PAGE.read(link)
    preset = PRESETS.get(values["bb_preset"], PRESETS[DEFAULT_PRESET])
    given = set(link) - {f.name for f in fallbacks}
    return values | {f"bb_{field}": getattr(preset, field) for field in FIELDS if f"bb_{field}" not in given}


def config_of(values: Mapping[str, Any]) -> TransformerConfig:
    """The model typed values build; ValueError (the engine's sentence) for sizes that make no model."""
    return TransformerConfig(**{field: values[f"bb_{field}"] for field in FIELDS})


def config(link: Mapping[str, str]) -> TransformerConfig:
    """The model the page builds for a link (settings)."""
    return config_of(settings(link))


def shares(c: TransformerConfig) -> str:
    """What both front ends say of a block's parameters: attention's and the feed-forward network's shares."""
    count = count_parameters(c)
    per_block = max(count.per_block, 1)
    return _("Inside a block, attention holds **{attention}** of the parameters and the feed-forward network "
             "**{ffn}**. Multi-head costs no more than one full-width head: h = {h} heads of d_k = {d_k} use the same "
             "4d² numbers.", attention=percent(count.attention_per_block / per_block),
             ffn=percent(count.feed_forward_per_block / per_block), h=c.n_heads, d_k=c.d_k)


def percent(share: float) -> str:
    """A share as a whole percentage, in the reader's digits (33%)."""
    return numbers.localized(f"{share:.0%}")


def waiting(position: int) -> str:
    """What both front ends say of a run waiting for a training slot: its place in line, counted from one (a run at
    place 0 has left the line and is starting)."""
    if position:
        return ngettext("Waiting for a free slot: you are number {position} in line ({n} training runs at once on "
                        "this machine).", "Waiting for a free slot: you are number {position} in line ({n} trainings "
                        "run at once on this machine).", limits.MAX_TRAININGS_PER_MACHINE, position=position)
    return _("Your turn: the run is starting.")


def progress(step: int | None, seconds: float = 0.0, bits: float = 0.0, tokens_per_second: float = 0.0,
             seconds_digits: int = 0) -> str:
    """What both front ends say of a run training now: its step, time, training loss (bits per character) and speed;
    `step` None before its first step."""
    if step is None:
        return _("starting (the first run on a server also loads PyTorch's optimiser: it can take a minute)")
    return _("step {step}, {seconds} s, training loss {loss} bits per character, {speed} tokens/s",
             step=numbers.grouped(step), seconds=numbers.fixed(seconds, seconds_digits), loss=numbers.fixed(bits, 3),
             speed=numbers.grouped(round(tokens_per_second)))


# --- the class's questions ---------------------------------------------------------------------------------

def block_parameters(link: Mapping[str, str], sources=None) -> Question:
    """How many parameters one block of the page's model learns."""
    c = config(link)
    count = count_parameters(c)
    options, answer = _numbers(count.per_block, [count.attention_per_block, count.feed_forward_per_block,
                                                 count.blocks, count.total])
    asked = ngettext("One block with d_model = {d}, d_ff = {d_ff} and {n} head: how many parameters does it learn?",
                     "One block with d_model = {d}, d_ff = {d_ff} and {n} heads: how many parameters does it learn?",
                     c.n_heads, d=c.d_model, d_ff=c.d_ff)
    reveal = _("Attention {attention} + feed-forward {ffn} + LayerNorms {norms} = {total}. The parameter chart on the "
               "page splits the whole model.", attention=numbers.grouped(count.attention_per_block),
               ffn=numbers.grouped(count.feed_forward_per_block), norms=numbers.grouped(count.layer_norms_per_block),
               total=numbers.grouped(count.per_block))
    return Question("block", asked, options, answer, reveal, veils=VEILS)


def block_largest_part(link: Mapping[str, str], sources=None) -> Question:
    """Which part of the page's model holds the most parameters (its parameter chart's longest bar)."""
    c = config(link)
    parts = {name: value for name, value in count_parameters(c).parts().items() if value > 0}
    names = list(parts)[:6]
    options, answer, leaders = _top_choice(names, [parts[n] for n in names], keep=5)
    asked = ngettext("In this model ({n} block, d_model = {d}, vocabulary {V}), which part holds the most parameters?",
                     "In this model ({n} blocks, d_model = {d}, vocabulary {V}), which part holds the most parameters?",
                     c.n_layers, d=c.d_model, V=numbers.grouped(c.vocab_size))
    reveal = _("{part}: {count} of {total}.", part=names[leaders[0]], count=numbers.grouped(parts[names[leaders[0]]]),
               total=numbers.grouped(sum(parts.values())))
    return Question("block", asked, options, answer, reveal, veils=VEILS)


PAGE = PageSpec(
    key="block", url="block", view="block_builder",
    title=N_("Block builder"),
    question=N_("What is inside a transformer block, what does each part cost, and what does it buy?"),
    one_line=N_("Attention, FFN, residuals and LayerNorm stacked N times: shapes, parameter counts, and a live "
                "training run."),
    icon=":material/view_agenda:",
    params=(
        Param("bb_preset", DEFAULT_PRESET, one_of([*PRESETS, CUSTOM]), label=N_("Preset"),
              help=N_("Load the sizes of a known model; change any switch to make it your own.")),
        *(Param(f"bb_{field}", getattr(PRESETS[DEFAULT_PRESET], field), parse_field(field), label=LABELS[field])
          for field in FIELDS),
        Param("bb_seconds", int(LIVE_RECIPE.max_seconds), between(1, limits.MAX_TRAIN_SECONDS),
              label=N_("time budget (s)")),
        Param("bb_steps", LIVE_RECIPE.max_steps, between(1, limits.MAX_TRAIN_STEPS), label=N_("max steps")),
        Param("bb_lr", f"{LIVE_RECIPE.learning_rate:g}", one_of(LEARNING_RATES), label=N_("peak learning rate")),
        Param("bb_batch", LIVE_RECIPE.batch_size, between(1, limits.MAX_TRAIN_BATCH), label=N_("batch B")),
        Param("bb_seed", 0, between(0, MAX_SEED), label=N_("seed")),
        # set while a training runs: a session that opens the link with it but holds no training lost one (its server
        # process died, and HAProxy moved the tab to another) or got the link from someone who was training
        Param(TRAINING, False, parse_bool),
    ),
    presets=PRESETS,
    questions=(block_parameters, block_largest_part),
    reading=(references.VASWANI_2017.on("the block, post-norm"),
             references.XIONG_2020.on("pre- vs post-norm"),
             references.NANOGPT.on("the baby GPT preset and its training loop"),
             references.LIN_2021,
             references.BROWN_2020.on("GPT-3's sizes, table 2.1")),
)
