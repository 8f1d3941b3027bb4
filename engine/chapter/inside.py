"""Inside the model (SmolLM2): the page's spec, its examples, its choices of heads, and its class questions.

Every value the page's link carries is a Param below (the five parts' prompts and targets, the heads knocked out, the
copying probe's sliders, the model read); the examples are engine.interpret.choices' (torch-free, so the app reads
this spec at start without loading torch). The Streamlit page, the Gradio tab (gradio_tabs.inside_the_model) and the
class questions read the same values from the same link; each part's numbers are one engine call on them (the logit
lens, the heads' estimated and exact effects, patching), and its sentences engine.interpret.readings'. The spec
itself (PAGE) closes the file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from engine import limits, numbers
from engine.i18n import N_, _
from engine.chapter.heads import MODEL
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, one_of, text
from engine.classroom.questions import TIE_TOLERANCE, _quote, _top_choice
from engine.classroom.store import Question
from engine.interpret.choices import (BARS_TOP_K, COPYING_EXAMPLE, EXAMPLE_GROUP_SIZE, GROUP_PATTERNS,
                                      KNOCK_OUT_EXAMPLES, LENS_EXAMPLE, LENS_TOP_K, MODES, OWN_EXAMPLES,
                                      PATCHING_EXAMPLES, every_head_label, head_label, largest_effect_group)
from engine.pretrained.gguf_file import Config as SmolLM2Sizes

if TYPE_CHECKING:
    from engine.interpret.heads import HeadScores
    from engine.interpret.interventions import HeadEffects
    from engine.interpret.readings import CopyingComparison, KnockOut

SIZES = SmolLM2Sizes()                   # 30 blocks x 9 heads
MAX_CHARS = limits.MAX_PROMPT_CHARS      # a prompt typed here (the engine counts its tokens)
MAX_ABLATED = 20                         # induction heads the copying probe may knock out
COPY_LENGTHS = (10, 50)                  # random tokens in each copy
MAX_SEED = 999
EFFECT_GROUP = largest_effect_group(EXAMPLE_GROUP_SIZE)
HEAD_OPTIONS = [*GROUP_PATTERNS, EFFECT_GROUP, *every_head_label(SIZES.n_layer, SIZES.n_head)]

# The examples each part starts from (the first of each opens the page); the Gradio tab opens its knock-out and
# patching on the shorter ones (fewer passes for a Space's CPU).
LENS_TEXT, LENS_TARGET = LENS_EXAMPLE
KO_TEXT, KO_TARGET, KO_SOURCE = next(iter(KNOCK_OUT_EXAMPLES.values()))
CLEAN, CORRUPT, CLEAN_TARGET, CORRUPT_TARGET = next(iter(PATCHING_EXAMPLES.values()))
COPY_LENGTH, COPY_SEED, COPY_HEADS = COPYING_EXAMPLE
OWN_TEXT, OWN_TARGET = next(iter(OWN_EXAMPLES.values()))
SHORT_KNOCK_OUT = KNOCK_OUT_EXAMPLES["The Eiffel Tower (10 tokens)"]
SHORT_PATCHING = PATCHING_EXAMPLES["Capital of France -> Italy (6 tokens)"]

# What both front ends say (the Gradio tab's own words stay there)
QUESTION = N_("What does a head *do*, not only where does it look?")
# two of the page's parts, headed the same in both front ends
LENS_HEADING = N_("1. Read every layer: the logit lens")
PATCHING_HEADING = N_("3. Where does the fact travel? Activation patching")
MODE_HELP = N_("zero: the head outputs nothing. mean: it outputs its average over the prompt's positions.")
# the page's parts a class's open question veils until the reveal (ui.page.section keys, and the keys of the parts
# drawn outside a section)
LENS, KNOCK_OUT, EFFECTS = "inside.lens", "inside.knock_out", "inside.effects"


def parse_heads(raw: str) -> list[str]:
    """A link's 'L17H4,all induction heads' -> the multiselect's choices; anything unknown is refused."""
    chosen = [item.strip() for item in raw.split(",") if item.strip()]
    unknown = [item for item in chosen if item not in HEAD_OPTIONS]
    if unknown:
        raise ValueError(_("unknown heads {heads}", heads=unknown[:3]))
    return list(dict.fromkeys(chosen))


# --- what the page computes where it is more than one engine call -------------------------------------------
# `sources` gives the heavy objects and cached results: ui.loaders on the page (ui.inside_views), the same names
# and arguments anywhere else.

@dataclass(frozen=True)
class HeadScan:
    """Part 2: every head of the model named, and its effect on the target estimated (attribution, two passes)."""
    scored: HeadScores
    estimate: HeadEffects


def head_scan(sources, picked: str, text_: str, target: str, mode: str) -> HeadScan:
    """Part 2's first computation: the heads' types on the prompt, then every head's estimated effect."""
    scored = sources.pretrained_head_types(picked, text_, limits.HEAD_VIEWER_MAX_TOKENS)
    return HeadScan(scored, sources.pretrained_head_attribution(picked, text_, target, mode))


def head_groups(scan: HeadScan, effects: HeadEffects) -> dict[str, list[tuple[int, int]]]:
    """The groups a student can knock out at once (each head type, the largest effects on `effects`)."""
    from engine.interpret import readings

    return readings.head_groups(scan.scored.types, effects, EXAMPLE_GROUP_SIZE)


def knock_out(sources, picked: str, text_: str, target: str, chosen: tuple[tuple[int, int], ...],
              mode: str) -> KnockOut:
    """Part 2's bars: the top next tokens intact and with the `chosen` heads knocked out."""
    return sources.pretrained_knock_out(picked, text_, target, chosen, mode, BARS_TOP_K)


def copying(sources, picked: str, knocked_out: int, length: int, seed: int) -> CopyingComparison:
    """Part 4: a random sequence read twice, intact and without the `knocked_out` heads of highest induction
    score."""
    from engine.interpret import readings

    heads = tuple(readings.top_heads(sources.pretrained_induction_scores(picked), knocked_out))
    return readings.compare_copying(sources.pretrained_copying(picked, length, seed, ()),
                                    sources.pretrained_copying(picked, length, seed, heads))


# --- the class's questions (SmolLM2; the page's cached results through `sources`) ----------------------------

def heads_question(link: Mapping[str, str], sources) -> Question:
    """Which of a few heads (the ones that look hardest at the link's source token, and the estimate's top one)
    matters most for the target, as the page estimates it (attribution: the estimate the page draws first)."""
    import numpy as np

    values = PAGE.values(link)
    name, text_, target, mode = values["model"], values["ko_text"], values["ko_target"], values["mode"]
    effects = sources.pretrained_head_attribution(name, text_, target, mode)
    weights = np.asarray(sources.pretrained_heads(name, text_, limits.HEAD_VIEWER_MAX_TOKENS).weights)
    source = min(max(int(values["source"]), 0), weights.shape[-1] - 1)   # as the page fits it to the prompt
    looked = weights[:, :, -1, source]                               # (L, h): how much the last token reads there
    by_attention = np.argsort(-looked, axis=None, kind="stable")[:3]
    n_head = looked.shape[1]
    top_layer, top_head, _top = effects.ranking(1)[0]
    candidates = sorted({(int(i // n_head), int(i % n_head)) for i in by_attention} | {(top_layer, top_head)})
    drops = [-float(effects.effects[layer, head]) for layer, head in candidates]
    options, answer, leaders = _top_choice([head_label(layer, head) for layer, head in candidates], drops,
                                           keep=len(candidates), tolerance=TIE_TOLERANCE)   # the page prints 3 places
    best = candidates[leaders[0]]
    token = effects.tokens[source] if source < len(effects.tokens) else "?"
    asked = _("After {text}, which of these heads matters most for {target}, as the page estimates it? (Knocking "
              "it out alone lowers P({target}) most.)", text=_quote(text_[-60:]), target=_quote(target))
    others = "; ".join(_("{head} reads {token} with weight {weight}, effect {effect}", head=head_label(*lh),
                         token=_quote(token), weight=numbers.fixed(looked[lh], 2),
                         effect=numbers.localized(f"{effects.effects[lh]:+.3f}"))
                       for lh in candidates if lh != best)
    reveal = _("Estimated (one pass forward and one back, as the page draws it): knocking out {head} changes ln P by "
               "{effect}; {others}. Looking at a token is not the same as mattering for the answer.",
               head=head_label(*best), effect=numbers.localized(f"{effects.effects[best]:+.3f}"), others=others)
    return Question("inside", asked, options, answer, reveal, veils=(EFFECTS, KNOCK_OUT))


def lens_question(link: Mapping[str, str], sources) -> Question:
    """From which third of the blocks on the link's target is the top next token, in the page's logit lens."""
    import numpy as np

    values = PAGE.values(link)
    text_, target = values["text"], values["target"]
    lens = sources.pretrained_logit_lens(values["model"], text_, target, LENS_TOP_K)
    if lens.target_ranks is None:
        raise ValueError(_("The logit lens follows no target token here."))
    ranks = np.asarray(lens.target_ranks)[:, -1]
    first = next((r for r in range(ranks.size) if ranks[r] == 0), None)
    blocks = ranks.size - 1                                          # row 0 is the embedding
    third = math.ceil(blocks / 3)
    spans = [(1 + i * third, min(blocks, (i + 1) * third)) for i in range(3)]
    options = (_("Already at the embedding"), *(_("Blocks {first}-{last}", first=a - 1, last=b - 1) for a, b in spans),
               _("Never, not even at the end"))
    if first is None:
        answer = 4
    elif first == 0:
        answer = 0
    else:
        answer = 1 + next(i for i, (a, b) in enumerate(spans) if a <= first <= b)
    from engine.interpret.readings import layer_name

    where = _("never") if first is None else layer_name(lens.layers[first])
    asked = _("Logit lens on {text}: from which layer on is {target} the model's top next token (read through its "
              "output layer)?", text=_quote(text_[-60:]), target=_quote(target))
    return Question("inside", asked, options, answer,
                    _("First at the top: {where}. The lens heatmap on the page shows each layer's guess.", where=where),
                    veils=(LENS,))


PAGE = PageSpec(
    key="inside", url="inside", view="inside_the_model",
    title=N_("Inside the model"),
    question=QUESTION,
    one_line=N_("Read every layer, knock heads out, patch one run into another: what a head does, not only where "
                "it looks."),
    icon=":material/science:",
    beyond=N_("The chapter stops at where heads look; this page tests what they do, with the tools of "
              "interpretability research (logit lens, ablation, activation patching)."),
    params=(
        Param("text", LENS_TEXT, text(MAX_CHARS), label=N_("Text")),
        Param("target", LENS_TARGET, text(limits.TARGET_MAX_CHARS),
              label=N_("Target token (one token: mind the leading space)")),
        # the label's {n}: limits.HEAD_EFFECTS_MAX_TOKENS, filled where it is shown
        Param("ko_text", KO_TEXT, text(MAX_CHARS), label=N_("Prompt (at most {n} tokens)")),
        Param("ko_target", KO_TARGET, text(limits.TARGET_MAX_CHARS), label=N_("Target token")),
        Param("source", KO_SOURCE, between(0, limits.HEAD_EFFECTS_MAX_TOKENS - 1),
              label=N_("Source token (what the last token should read)")),
        Param("heads", [EFFECT_GROUP], parse_heads, ",".join,
              label=N_("Heads to knock out (a group, or single heads L<layer>H<head>)")),
        Param("mode", "zero", one_of(MODES), label=N_("Knock out by"), help=MODE_HELP),
        Param("clean", CLEAN, text(MAX_CHARS), label=N_("Clean prompt")),
        Param("corrupt", CORRUPT, text(MAX_CHARS), label=N_("Corrupted prompt (the same number of tokens)")),
        Param("clean_target", CLEAN_TARGET, text(limits.TARGET_MAX_CHARS), label=N_("Clean answer")),
        Param("corrupt_target", CORRUPT_TARGET, text(limits.TARGET_MAX_CHARS), label=N_("Corrupted answer")),
        Param("k", COPY_HEADS, between(0, MAX_ABLATED),
              label=N_("Induction heads knocked out (highest induction score first)")),
        Param("length", COPY_LENGTH, between(*COPY_LENGTHS), label=N_("Random tokens in each copy")),
        Param("seed", COPY_SEED, between(0, MAX_SEED), label=N_("Seed of the random sequence")),
        Param("own_text", OWN_TEXT, text(limits.HEAD_EFFECTS_MAX_TOKENS), label=N_("Prompt (characters)")),
        Param("own_target", OWN_TARGET, text(limits.TARGET_MAX_CHARS), label=N_("Target character")),
        MODEL,
    ),
    presets={"knock_out": KNOCK_OUT_EXAMPLES, "patching": PATCHING_EXAMPLES, "own": OWN_EXAMPLES},
    questions=(heads_question, lens_question),
    reading=(references.LOGIT_LENS_2020,
             references.ELHAGE_2021,
             references.OLSSON_2022,
             references.MENG_2022,
             references.WANG_2022,
             references.JAIN_WALLACE_2019),
)
