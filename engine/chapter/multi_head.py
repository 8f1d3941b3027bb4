"""Multi-head attention: the page's spec, what it computes from its link (h heads on a sentence of the tiny vocabulary;
the cost of h heads of width d/h), the sentences both front ends say about it, and its class question.

`heads(values)` and `costs(values)` are what the page draws for its typed link values, so the Streamlit page, the
Gradio tab and the class question compute the same numbers and say the same sentences. The tiny vocabulary (a few
hundred bytes of JSON) is read at import for its width d, the heads slider's top. The spec itself (PAGE) closes the
file.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from engine import limits, numbers
from engine.attention.mechanism import (
    MultiHeadResult, compare_head_costs, identity_projections, multi_head_attention, random_projections,
)
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, one_of, parse_bool, text
from engine.classroom.questions import _numbers
from engine.classroom.store import Question
from engine.embeddings.tiny_vocabulary import EmbeddedSentence, Vocabulary, embed, load_vocabulary
from engine.i18n import N_, _, ngettext

SENTENCE = "the owl saw the cat by the lake"
LINE = "To be, or not to be"              # the shipped character model's line
WEIGHTS = {"identity": N_("hand-built: head m reads its own block of features"),
           "random": N_("seeded random (untrained)")}   # shown translated: _(WEIGHTS[key])
D = load_vocabulary().d                   # the tiny vocabulary's width: h divides it
H_CHOICES = tuple(h for h in range(1, D + 1) if D % h == 0)   # the heads slider: h divides d
GAINS = (0.5, 5.0, 0.25)                  # the gain slider: from, to, step
MAX_SEED = 100_000
MAX_BLOCK = 64                            # the shipped model's block, read from a link (the page checks its own)
# two labels with a number in them: marked here with a placeholder, filled where shown (the Params keep the English)
HEADS_LABEL = N_("Heads h (each {d}/h wide)")
LINE_LABEL = N_("A line for the model (up to {most} characters)")
GPT2_SMALL = {"cost_T": 1024, "cost_d": 768, "cost_h": 12}    # the cost counter's defaults


def vocabulary_note(vocabulary: Vocabulary) -> str:
    """What both front ends say under the sentence: the words it may use and their features."""
    return _("Words this tiny vocabulary knows: {words}. Each is {d} hand-picked numbers, one per feature: "
             "{features}.", words=", ".join(vocabulary.words), d=vocabulary.d,
             features=_(", ").join(vocabulary.named_features()))


@dataclass(frozen=True)
class Heads:
    """h heads on the sentence: its tokens and vectors, the result and each head's title."""
    sentence: EmbeddedSentence
    result: MultiHeadResult
    weights: str
    vocabulary: Vocabulary

    @property
    def h(self) -> int:
        return len(self.result.heads)

    @property
    def titles(self) -> list[str]:
        """A hand-built head is named by the features it reads; a random one by its number."""
        d_head = self.result.d_head
        return [_("head {m}: {features}", m=m + 1,
                  features=_(", ").join(self.vocabulary.named_features()[m * d_head:(m + 1) * d_head]))
                if self.weights == "identity" else _("head {m}", m=m + 1) for m in range(self.h)]

    @property
    def reading(self) -> str:
        """What both front ends say about the heads."""
        h, d_head = self.h, self.result.d_head
        return (ngettext("{n} head of width d/h = {d_head} on T = {T} tokens, d = {d}: each head's weights are T x T, "
                         "the heads' outputs side by side are T x d again, and W_O mixes them.",
                         "{n} heads of width d/h = {d_head} on T = {T} tokens, d = {d}: each head's weights are T x T, "
                         "the heads' outputs side by side are T x d again, and W_O mixes them.",
                         h, d_head=d_head, T=len(self.sentence.tokens), d=self.vocabulary.d) + " " +
                (_("**Hand-built heads:** W_Q = W_K = gain x I, cut into h column blocks, so head m compares words "
                   "only on its own features. One head matches animals with animals, another function words with "
                   "function words: different relations from the same sentence. A trained model learns its blocks.")
                 if self.weights == "identity" else
                 _("**Untrained heads:** random projections give each head its own arbitrary notion of similarity. "
                   "Training is what turns these into the interpretable heads the chapter describes.")))


def projections(values: Mapping[str, Any]) -> dict:
    """W_Q, W_K, W_V and W_O as the page sets them: hand-built blocks or seeded random, times the gain."""
    if values["weights"] == "identity":
        return identity_projections(D, gain=float(values["gain"]))
    return random_projections(D, int(values["seed"]), gain=float(values["gain"]))


def heads(values: Mapping[str, Any]) -> Heads:
    """The page's heads for these (typed) values. ValueError for a sentence with a word the vocabulary lacks, or an
    h that does not divide d."""
    if len(values["sentence"]) > limits.MAX_MULTI_HEAD_SENTENCE_CHARS:
        raise ValueError(_("The sentence is {length} characters long; the page reads up to {most}.",
                           length=numbers.grouped(len(values["sentence"])),
                           most=limits.MAX_MULTI_HEAD_SENTENCE_CHARS))
    vocabulary = load_vocabulary()
    sentence = embed(values["sentence"], vocabulary)
    W = projections(values)
    result = multi_head_attention(sentence.x, W["W_q"], W["W_k"], W["W_v"], W["W_o"], int(values["h"]),
                                  causal=bool(values["causal"]))
    return Heads(sentence, result, values["weights"], vocabulary)


@dataclass(frozen=True)
class Costs:
    """One attention layer three ways, named as the page's table and chart name them."""
    named: dict

    @property
    def one(self):
        return next(iter(self.named.values()))

    @property
    def split(self):
        return list(self.named.values())[1]

    @property
    def unsplit(self):
        return list(self.named.values())[2]

    @property
    def reading(self) -> str:
        """What both front ends say about the cost of splitting into heads."""
        one, split, unsplit = self.one, self.split, self.unsplit
        return _("Splitting d = {d} into h = {h} heads keeps every matrix the same size: **{params}** parameters "
                 "(4d²), those of one head of width d. The FLOPs differ only in the softmax, 5 operations per score "
                 "and h times as many scores: {ratio} x one head. Giving each head the full width instead costs "
                 "{full} x.", d=split.d, h=split.h, params=numbers.grouped(split.params),
                 ratio=numbers.fixed(split.flops / one.flops, 4), full=numbers.fixed(unsplit.flops / one.flops, 1))


def costs(values: Mapping[str, Any]) -> Costs:
    """Parameters and FLOPs of one layer for the link's T, d and h. ValueError for an h that does not divide d."""
    one, split, unsplit = compare_head_costs(int(values["cost_T"]), int(values["cost_d"]),
                                             int(values["cost_h"])).values()
    return Costs({_("1 head of width d"): one,
                  _("{h} heads of width d/h = {width}", h=split.h, width=split.d_head): split,
                  _("{h} heads of width d = {width} each", h=unsplit.h, width=unsplit.d_head): unsplit})


# --- the class's question ----------------------------------------------------------------------------------

def parameters(link: Mapping[str, str], sources=None) -> Question:
    """How many parameters one layer has at the page's d and h (its cost counter's)."""
    shown = costs(PAGE.values(link))
    split, unsplit = shown.split, shown.unsplit
    d, h = split.d, split.h
    options, answer = _numbers(split.params, [split.params_qkv, unsplit.params, split.params // h,
                                              split.params + 4 * d])
    return Question("multi-head", _("One attention layer with d = {d} and h = {h} heads of width d/h = {width}: how "
                                    "many parameters (W_Q, W_K, W_V and W_O, no biases)?", d=d, h=h,
                                    width=split.d_head),
                    options, answer,
                    _("3 d (h d/h) + (h d/h) d = 4 d\u00b2 = {params}, whatever h: splitting into heads costs "
                      "nothing extra (h heads each as wide as d would need {full}).",
                      params=numbers.grouped(split.params), full=numbers.grouped(unsplit.params)),
                    veils=("multihead.costs", "multihead.tail"))


PAGE = PageSpec(
    key="multihead", url="multi-head", view="multi_head",
    title=N_("Multi-head attention"),
    question=N_("Why run h small heads instead of one big one, and what does it cost?"),
    one_line=N_("h heads of width d/h, concatenated, times W_O: shapes at every step, and what it costs."),
    icon=":material/view_week:",
    params=(
        Param("sentence", SENTENCE, text(limits.MAX_MULTI_HEAD_SENTENCE_CHARS), label=N_("Sentence")),
        Param("h", 2, between(1, D), label=f"Heads h (each {D}/h wide)"),   # shown as HEADS_LABEL
        Param("weights", "identity", one_of(WEIGHTS), label=N_("Projection weights")),
        Param("gain", 2.0, between(GAINS[0], GAINS[1], float), label=N_("Gain (sharpness of the scores)"),
              help=N_("Multiplies W_Q and W_K (hand-built) or all four matrices (random): scores grow with its "
                      "square.")),
        Param("seed", 0, between(0, MAX_SEED), label=N_("Seed (random weights)")),
        Param("causal", False, parse_bool, label=N_("Causal mask")),
        Param("cost_T", GPT2_SMALL["cost_T"], between(1, limits.MAX_COST_TOKENS), label=N_("Tokens T")),
        Param("cost_d", GPT2_SMALL["cost_d"], between(1, limits.MAX_COST_WIDTH), label=N_("Width d")),
        Param("cost_h", GPT2_SMALL["cost_h"], between(1, limits.MAX_COST_HEADS), label=N_("Heads h")),
        Param("trained", False, parse_bool, label=N_("Read a line with the shipped model (loads PyTorch once)")),
        Param("line", LINE, text(limits.MAX_MULTI_HEAD_SENTENCE_CHARS),
              label=f"A line for the model (up to {limits.MAX_HEAD_VIEW_CHARS} characters)"),   # LINE_LABEL
        Param("layer", 1, between(1, MAX_BLOCK), label=N_("Block")),
    ),
    questions=(parameters,),
    reading=(references.VASWANI_2017.on("section 3.2.2, multi-head attention"),
             references.GEEKSFORGEEKS_MULTI_HEAD,
             references.VOITA_2019,
             references.CLARK_2019,
             references.LIN_2021),
)
