"""Embedding explorer: the page's spec, its presets and homonyms, what it computes from its link, and its question.

Every value the page's link carries is a Param below (default, parser, label); `analogy(values, wv)`,
`offset_map(values, wv, result)` and `neighbours(values, wv)` are what the page computes for those values, and
`analogy_reading`, `map_reading` and `neighbours_reading` the sentences that read them, so the Streamlit page, the
Gradio tab and the class question compute the same numbers and say the same sentences from the same link. The word
vectors (engine.embeddings.glove.WordVectors) are passed in: each front end brings them from its own loaders. The
spec itself (PAGE) closes the file.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from engine import limits, markup, numbers
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, one_of, parse_bool, text
from engine.classroom.questions import TIE_TOLERANCE, _top_choice
from engine.classroom.store import Question
from engine.embeddings import glove as E
from engine.i18n import N_, _

# a : b :: c : ? with the answer a reader expects (d), and more pairs of the same relation for the map;
# the second group lands second
PRESETS: dict[str, tuple[str, str, str, str, str]] = {
    "france : paris :: italy : ?": ("france", "paris", "italy", "rome", "germany, berlin, japan, tokyo"),
    "man : king :: woman : ?": ("man", "king", "woman", "queen", "boy, prince, girl, princess"),
    "germany : berlin :: japan : ?": ("germany", "berlin", "japan", "tokyo", "russia, moscow, egypt, cairo"),
    "big : bigger :: small : ?  (lands second)": ("big", "bigger", "small", "smaller", "tall, taller, long, longer"),
    "go : went :: see : ?  (lands second)": ("go", "went", "see", "saw", "take, took, give, gave"),
    "quick : quickly :: slow : ?  (lands second)": ("quick", "quickly", "slow", "slowly",
                                                     "happy, happily, careful, carefully"),
    "banana : bananas :: apple : ?  (lands second)": ("banana", "bananas", "apple", "apples", "car, cars, dog, dogs"),
    "man : doctor :: woman : ?  (inputs are never answers)": ("man", "doctor", "woman", "doctor", "he, she"),
}
PRESET_NOTES = (N_("(lands second)"), N_("(inputs are never answers)"))   # the presets' notes, shown through _()
CUSTOM = N_("(your own)")   # a link value, in English; shown through _()
PRESET_FIELDS = ("a", "b", "c", "d", "extra")          # the link values a preset sets, in its tuple's order
FIRST_PRESET = next(iter(PRESETS))
DEFAULT_VOCAB = 50_000  # words searched when the page opens: the vocabulary-size challenge starts from it
NEIGHBOURS_HEADING = N_("Nearest words to a word or to a sum you compose")   # both front ends' heading
METHOD_LABELS = {"3cosadd": N_("3CosAdd (gensim's most_similar)"), "3cosmul": N_("3CosMul (Levy & Goldberg)")}
ANSWERS_SHOWN = 5       # the analogy's bars and table
NEIGHBOURS_SHOWN = 10   # the nearest words to a sum
HOVER_NEIGHBOURS = 5    # a map point's nearest words, on hover
QUESTION_OPTIONS = 4    # the class question's words: the first of the analogy's bars
# homonym -> its two senses (named in English, the keys the probe goes by; the page says them with `_`), one word
# standing for each (a word GloVe reads), and two sentences, one per sense
HOMONYMS: dict[str, dict] = {
    "crane": {"senses": {N_("bird"): "heron", N_("machine"): "gantry"},
              "note": N_("Many of crane's nearest words (rex, wolf, decker, bell, ...) are surnames: a third "
                         "sense, from people called Crane, that neither word above stands for."),
              "sentences": ("The crane stood in the shallow water of the lake.",
                            "The crane lifted the steel beams onto the roof.")},
    "bank": {"senses": {N_("money"): "loan", N_("river"): "river"},
             "sentences": ("She paid the cheque into her account at the bank.",
                           "We sat on the grassy bank of the river and fished.")},
    "pitcher": {"senses": {N_("baseball"): "baseball", N_("jug"): "jug"},
                "sentences": ("The pitcher threw a fastball in the ninth inning.",
                              "She poured lemonade from the pitcher into glasses.")},
    "shark": {"senses": {N_("fish"): "fish", N_("swindler"): "swindler"},
              "sentences": ("The shark swam past the divers near the reef.",
                            "She is a real shark: she cheated every client out of money.")},
}
# the page's sections (ui.page.section keys), in its order; the analogy's words and score change WITH_ANALOGY
ANALOGY, MAP, NEIGHBOURS, HOMONYM, SIZE, TAIL = (
    "embeddings.analogy", "embeddings.map", "embeddings.neighbours", "embeddings.homonyms", "embeddings.vocab_size",
    "embeddings.tail")
WITH_ANALOGY = (ANALOGY, MAP, SIZE, TAIL)


def _words(result: E.Analogy) -> tuple[str, str, str, str]:
    """a, b, c and the top answer of an analogy b - a + c."""
    return result.negative[0], *result.positive, result.words[0]


# --- the analogy ---------------------------------------------------------------------------------------------

def analogy(values: Mapping[str, Any], wv: E.WordVectors, k: int = ANSWERS_SHOWN) -> E.Analogy:
    """a : b :: c : ? for the link's words, score and vocabulary: the `k` best answers, the inputs left out.
    ValueError (a sentence) for a word the vectors do not know or a degenerate analogy."""
    return E.solve_analogy(wv, values["a"], values["b"], values["c"], k=k, method=values["method"],
                           vocab_size=values["vocab"])


def analogy_reading(result: E.Analogy) -> str:
    """The analogy's top answer, as both front ends say it."""
    a, b, c, top = (markup.markdown(w) for w in _words(result))
    return _("**{a} : {b} :: {c} : {top}** by {method}, searching the {size} most frequent words. The three input "
             "words are never answers (as in gensim and in Mikolov et al.'s evaluation).", a=a, b=b, c=c, top=top,
             method=_(METHOD_LABELS[result.method]), size=numbers.grouped(result.vocab_size))


# --- the map of offsets --------------------------------------------------------------------------------------

def map_words(extra: str) -> list[str]:
    """The map's other words, typed 'a, b, c, d ...': at most MAX_MAP_EXTRA_CHARS characters, else a sentence."""
    if len(extra) > limits.MAX_MAP_EXTRA_CHARS:
        raise ValueError(_("The other words on the map are {size} characters long; the limit is {limit}.",
                           size=numbers.grouped(len(extra)), limit=limits.MAX_MAP_EXTRA_CHARS))
    return [w.strip() for w in extra.split(",") if w.strip()]


@dataclass(frozen=True)
class OffsetMap:
    """The analogy's words, its answer and the other words on their PCA plane, and how parallel each pair's
    offset is with every other in all dimensions (pairs: (a, b), (c, answer), then the other words two by two)."""
    projection: E.Projection
    offsets: E.Offsets
    roles: dict[str, str]
    dim: int


def offset_map(values: Mapping[str, Any], wv: E.WordVectors, result: E.Analogy) -> OffsetMap:
    """The map the page draws for the link's other words and its analogy's `result`."""
    a, b, c, top = _words(result)
    extra = map_words(values["extra"])
    pairs = [(a, b), (c, top)] + [tuple(extra[i:i + 2]) for i in range(0, len(extra) - 1, 2)]
    projection = E.project_2d(wv, [a, b, c, top, *extra], vocab_size=values["vocab"])
    offsets = E.offsets(wv, pairs, vocab_size=values["vocab"])
    return OffsetMap(projection, offsets, {w: "analogy word" for w in (a, b, c)} | {top: "answer"}, wv.dim)


def map_reading(shown: OffsetMap) -> str:
    """What the map shows and hides, and how parallel the analogy's two offsets are, as both front ends say it."""
    (a, b), (c, top) = shown.offsets.pairs[:2]
    a, b, c, top = (markup.markdown(w) for w in (a, b, c, top))
    return _("**{a} → {b}** and **{c} → {top}** on the plane along which these {words} words differ most ({share} "
             "of their spread; the rest is hidden). In all {dim} dimensions the two offsets have cosine **{cosine}** "
             "(1: parallel).", a=a, b=b, c=c, top=top, words=len(shown.projection.words),
             share=numbers.localized(f"{shown.projection.explained.sum():.0%}"), dim=shown.dim,
             cosine=numbers.fixed(shown.offsets.cosines[0, 1]))


# --- the nearest words to a sum ------------------------------------------------------------------------------

def neighbours(values: Mapping[str, Any], wv: E.WordVectors,
               k: int = NEIGHBOURS_SHOWN) -> tuple[E.VectorSum, E.Neighbours]:
    """The link's sum (a word, or words joined by + and -) and its `k` nearest words, the typed words left out when
    the link says so."""
    total = E.compose(wv, values["query"], vocab_size=values["vocab"])
    found = E.nearest(wv, total.vector, k=k, exclude=total.words if values["leave_out"] else (),
                      vocab_size=values["vocab"])
    return total, found


def neighbours_reading(total: E.VectorSum, found: E.Neighbours) -> str:
    """The nearest word to the sum, as both front ends say it (and why it may be one of the words typed)."""
    word = markup.markdown(found.words[0])
    said = {"word": word, "cosine": numbers.fixed(found.cosines[0]), "total": markup.markdown(total.text),
            "size": numbers.grouped(found.vocab_size)}
    if found.words[0] in total.words:
        return _("The nearest word is **{word}**, one of the words you typed: without leaving them out, a sum usually "
                 "stays closest to its own terms (cosine {cosine} with **{total}**, among the {size} most frequent "
                 "words).", **said)
    return _("The nearest word is **{word}** (cosine {cosine} with **{total}**, among the {size} most frequent words).",
             **said)


# --- the class's question ------------------------------------------------------------------------------------

def analogy_top_answer(link: Mapping[str, str], sources) -> Question:
    """Which of the analogy's first QUESTION_OPTIONS answers (the page's bars) comes first, options alphabetical;
    scores closer than the page's 3 decimals tie."""
    values = PAGE.values(link)
    result = analogy(values, sources.glove())
    a, b, c, _top = _words(result)
    words, scores = result.words[:QUESTION_OPTIONS], [float(s) for s in result.scores[:QUESTION_OPTIONS]]
    order = sorted(range(len(words)), key=lambda j: words[j])
    options, answer, leaders = _top_choice([words[j] for j in order], [scores[j] for j in order],
                                           tolerance=TIE_TOLERANCE)
    best = order[leaders[0]]
    return Question("embeddings", _("{a} : {b} :: {c} : ?  Which word comes first ({method}, {size} words)?", a=a,
                                    b=b, c=c, method=result.method, size=numbers.grouped(result.vocab_size)),
                    options, answer,
                    _("{word} scores {score}; the others: {others}.", word=words[best],
                      score=numbers.fixed(scores[best]),
                      others=", ".join(f"{w} {numbers.fixed(s)}" for w, s in zip(words, scores) if w != words[best])),
                    veils=(ANALOGY, MAP, NEIGHBOURS, SIZE, TAIL))


EXTRA_HELP = N_("Up to {limit} words in all, separated by commas. Consecutive words form pairs, drawn as arrows "
                "from the first to the second.")
_WORD = text(limits.MAX_WORD_CHARS * 2)     # the text box's limit: the engine says what is too long for a word

PAGE = PageSpec(
    key="embeddings", url="embeddings", view="embeddings",
    title=N_("Embedding explorer"),
    question=N_("Do word vectors know that Paris is to France as Rome is to Italy?"),
    one_line=N_("400,000 real word vectors: nearest words, king - man + woman, offsets on a map, and homonyms."),
    icon=":material/scatter_plot:",
    params=(
        Param("vocab", DEFAULT_VOCAB, one_of(limits.VOCAB_SIZE_CHOICES, int), label=N_("Vocabulary searched"),
              help=N_("Answers come only from the most frequent words. Typed words may be any of the 400,000.")),
        Param("method", "3cosadd", one_of(METHOD_LABELS), label=N_("Analogy score")),
        Param("preset", FIRST_PRESET, one_of([*PRESETS, CUSTOM]), label=N_("Preset")),
        *(Param(name, word, _WORD, label=label)
          for name, word, label in zip("abcd", PRESETS[FIRST_PRESET], ("a", "b", "c", N_("expected d (optional)")))),
        Param("extra", PRESETS[FIRST_PRESET][4], text(limits.MAX_MAP_EXTRA_CHARS),
              label=N_("Other words on the map (pairs become arrows: write them as a, b, c, d ...)"),
              help=EXTRA_HELP.format(limit=limits.MAX_MAP_WORDS)),   # translated where shown: _(EXTRA_HELP, limit=)
        Param("query", "paris - france + italy", text(limits.MAX_EXPRESSION_CHARS),
              label=N_("A word, or words joined by + and −")),
        Param("leave_out", True, parse_bool, label=N_("Leave out the words you typed")),
        Param("homonym", "crane", one_of(HOMONYMS), label=N_("Word")),
    ),
    presets=PRESETS,
    questions=(analogy_top_answer,),
    reading=(references.SANDERSON_EMBEDDINGS,
             references.PENNINGTON_2014,
             references.MIKOLOV_2013.on("the analogy test"),
             references.LEVY_GOLDBERG_2014.on("3CosMul"),
             references.NISSIM_2020.on("why inputs are left out"),
             references.CME_295.on("lecture 1: from tokenization and embeddings to the transformer")),
)
