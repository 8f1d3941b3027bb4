"""Head viewer (SmolLM2): the page's spec, its example sentences, what it reads of one head, and its class questions.

Every value the page's link carries is a Param below (the sentence, the head, the model read); `read_heads` is the
one pass the page makes over a sentence (cut to limits.HEAD_VIEWER_MAX_TOKENS, the one token limit of every front
end), and `head_view` what it shows of one head of that pass, so the Streamlit page, the Gradio tab and the class
questions read the same weights, type and scores from the same link. The spec itself (PAGE) closes the file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from engine import limits, numbers
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, text
from engine.classroom.questions import TIE_TOLERANCE, _quote, _top_choice
from engine.classroom.store import Question
from engine.i18n import N_, _
from engine.interpret import heads
from engine.pretrained.llama import DEFAULT_NAME

# The sentences a student starts from (the first opens the page; the warm-up scores it: ui/warmup.py).
PRESETS = {
    N_("The animal and the street (coreference)"): "The animal didn't cross the street because it was too tired",
    N_("A repeated random sequence (induction)"): ("violet gravel oyster tundra sprocket lantern walnut pebble orbit "
                                               "violet gravel oyster tundra sprocket lantern walnut pebble orbit"),
    N_("The crane by the lake"): "The crane by the lake spread its wings and flew over the water",
    N_("Mary had a little lamb"): "Mary had a little lamb, its fleece was white as snow",
}
DEFAULT_PRESET = "The animal and the street (coreference)"
REPEATED = "A repeated random sequence (induction)"   # the preset the induction challenge asks for
LAYER, HEAD = 16, 0                                    # the head the page opens on: a previous-token head
VEILS = ("heads.grid", "heads.head")                   # the page's sections that give a question's answer away


def model_name(raw: str) -> str:
    """A model the page can read: SmolLM2 or a GGUF file of the PLAYGROUND_MODELS folder
    (engine.pretrained.smollm2.available_models), looked up when the link is read (the folder may change)."""
    from engine.pretrained import smollm2 as pretrained   # lists a folder: no torch, no file read

    if raw not in pretrained.available_models():
        raise ValueError(_("{model} is not a model here", model=repr(raw)))
    return raw


# the model a SmolLM2 page reads (Inside the model declares it too)
MODEL = Param("model", DEFAULT_NAME, model_name, label=N_("Model"),
              help=N_("SmolLM2, or a Llama-architecture GGUF file of the folder named by PLAYGROUND_MODELS."))


def asks(n_heads: int) -> str:
    """The page's question with the number of heads of the model it reads (SmolLM2: 270)."""
    return _("What do the {n} heads of a real trained model look at?", n=n_heads)


def read_heads(model, text: str):
    """The page's one pass over a sentence: every head's weights, the text cut to limits.HEAD_VIEWER_MAX_TOKENS
    (start token included) with a note saying so. The front ends' caches (ui.loaders.pretrained_heads, the Gradio
    tab's) and the class's sources read the same limit."""
    return model.forward_text(text, max_tokens=limits.HEAD_VIEWER_MAX_TOKENS, all_logits=False)


def fitted(values: Mapping[str, Any], n_layer: int, n_head: int) -> tuple[int, int]:
    """The link's layer and head for a model of n_layer x n_head heads, as the page opens them: one the model lacks
    goes back to the default (or to the model's last, when the default is beyond it)."""
    def fit(value: int, default: int, last: int) -> int:
        return value if 0 <= value <= last else min(default, last)
    return fit(int(values["layer"]), LAYER, n_layer - 1), fit(int(values["head"]), HEAD, n_head - 1)


@dataclass(frozen=True)
class HeadView:
    """What the page shows of one head on one sentence: its weights (T x T), type, pattern scores, and whether
    anything in the sentence repeats (an induction head has something to copy)."""
    layer: int
    head: int
    n_layer: int
    n_head: int
    tokens: list[str]
    alpha: np.ndarray
    kind: str
    scores: dict[str, float]
    repeats: bool


def head_view(values: Mapping[str, Any], result, scored: heads.HeadScores) -> HeadView:
    """The head the link names (fitted to the model) in a pass `result` (read_heads) whose heads `scored` names.
    A pass longer than limits.HEAD_VIEWER_MAX_TOKENS is refused, whichever front end made it."""
    if len(result.tokens) > limits.HEAD_VIEWER_MAX_TOKENS:
        raise ValueError(_("The head viewer draws at most {most} tokens; this pass has {count}.",
                           most=limits.HEAD_VIEWER_MAX_TOKENS, count=len(result.tokens)))
    n_layer, n_head = scored.n_layer, scored.n_head
    layer, head = fitted(values, n_layer, n_head)
    return HeadView(layer, head, n_layer, n_head, list(result.tokens), np.asarray(result.weights[layer, head]),
                    str(scored.types[layer, head]),
                    {p: float(scored.scores[p][layer, head]) for p in heads.PATTERNS},
                    bool(heads.induction_targets(result.ids).any()))


def head_sentence(view: HeadView) -> str:
    """What the head does, by its type (with why an induction head rests where nothing repeats)."""
    note = ""
    if view.kind == "induction" and not view.repeats:
        note = " " + _("Nothing repeats in this sentence, so it has nothing to copy and rests on the first token: "
                       "load the repeated random sequence to see it work.")
    return _("This head {does}.", does=_(heads.DESCRIPTIONS[view.kind])) + note


def scores_text(view: HeadView) -> str:
    """Its pattern scores, to 2 decimals (induction left out where it is not measured)."""
    return ", ".join(f"{_(heads.TYPE_NAMES[p])} {numbers.fixed(s, 2)}" for p, s in view.scores.items()
                     if not math.isnan(s))


# --- the class's questions ---------------------------------------------------------------------------------

def _shown(link: Mapping[str, str], sources) -> HeadView:
    """The head the page shows for the link, read through the class's sources (the pages' caches)."""
    values = PAGE.values(link)
    result = sources.pretrained_heads(values["model"], values["text"], limits.HEAD_VIEWER_MAX_TOKENS)
    scored = sources.pretrained_head_types(values["model"], values["text"], limits.HEAD_VIEWER_MAX_TOKENS)
    return head_view(values, result, scored)


def head_type(link: Mapping[str, str], sources) -> Question:
    """The type of the head the page opens, as its model view colours it."""
    view = _shown(link, sources)
    options = tuple(_(heads.TYPE_NAMES[kind]) for kind in heads.TYPES)
    return Question("heads", _("On this sentence, what kind of head is layer {layer}, head {head}?", layer=view.layer,
                               head=view.head),
                    options, list(heads.TYPES).index(view.kind),
                    _("Its pattern scores: {scores}. The model view on the page colours every head by its type.",
                      scores=scores_text(view)), veils=VEILS)


def last_token(link: Mapping[str, str], sources) -> Question:
    """Which token the last token looks at most in the head the page opens (its heatmap's last row)."""
    view = _shown(link, sources)
    row = view.alpha[-1]
    tokens = view.tokens
    options, answer, leaders = _top_choice([f"{j}: {_quote(tok)}" for j, tok in enumerate(tokens)], row, keep=4,
                                           tolerance=TIE_TOLERANCE)
    return Question("heads", _("Layer {layer}, head {head}: which token does the last token, {token}, look at most?",
                               layer=view.layer, head=view.head, token=_quote(tokens[-1])), options, answer,
                    _("{token} gets {weight} of the last row's weight; the heatmap of this head on the page shows "
                      "every row.", token=_quote(tokens[leaders[0]]), weight=numbers.fixed(row[leaders[0]])),
                    veils=VEILS)


READS_ENGLISH = N_("SmolLM2 learned from English text: type English for it to read. Its tokens are shown as "
                     "it reads them.")   # said to a reader of another language, in both front ends

PAGE = PageSpec(
    key="heads", url="heads", view="head_viewer",
    title=N_("Head viewer (SmolLM2)"),
    question=N_("What do the heads of a real trained model look at?"),
    one_line=N_("All 270 heads of a real trained model on your sentence: which look back one token, which copy?"),
    icon=":material/grid_view:",
    beyond=N_("The chapter says trained heads are often interpretable; this page reads the heads of a real "
              "model, SmolLM2, and names their patterns."),
    params=(
        Param("text", PRESETS[DEFAULT_PRESET], text(limits.PRETRAINED_MAX_TEXT_CHARS),
              label=N_("Sentence (the model reads it after its start-of-document token)")),
        Param("layer", LAYER, int, label=N_("Layer")),
        Param("head", HEAD, int, label=N_("Head")),
        MODEL,
    ),
    presets=PRESETS,
    questions=(head_type, last_token),
    reading=(references.CLARK_2019,
             references.OLSSON_2022,
             references.VIG_2019,
             references.JAIN_WALLACE_2019,
             references.XIAO_2023,
             references.ALLAL_2025),
)
