"""Embedding explorer (views/embeddings.py) in the Gradio Space: the same spec (engine.chapter.embeddings: defaults,
labels, limits, the sentences that read the results) and the same computations from it, `analogy`, `offset_map` and
`neighbours`."""
from __future__ import annotations

from typing import Any, Mapping

import gradio as gr

from engine.i18n import N_, _, pgettext
from engine import limits
from engine.chapter.embeddings import (
    ANSWERS_SHOWN, DEFAULT_VOCAB, EXTRA_HELP, HOVER_NEIGHBOURS, METHOD_LABELS, NEIGHBOURS_HEADING, NEIGHBOURS_SHOWN,
    PAGE, analogy, analogy_reading, map_reading, neighbours, neighbours_reading, offset_map,
)
from engine.charts.bars import score_bars
from engine.charts.points import embedding_map
from engine.embeddings import glove as E
from gradio_tabs import loaders
from gradio_tabs.common import (
    chart, choices, engine_call, heading, help_of, label_of, kept, plot, question, results, say, table, whole,
)

P = PAGE.by_name
ALL_WORDS = limits.VOCAB_SIZE_CHOICES[-1]
WIDE = 480               # px of a bar chart the page stretches to its column


# the page's tables and the bars beside them write a cosine with 3 decimals (0.847): the tables show as many (an API
# caller still reads the 4 the numbers are rounded to)
SHOWN_DIGITS = 3

def _vocab(vocab_size) -> int:
    """The most frequent words searched (the engine checks the range and says it)."""
    return whole(vocab_size, 1, ALL_WORDS, _("vocabulary size"))


def analogy_from_link(values: Mapping[str, Any], k: int = ANSWERS_SHOWN):
    """The analogy endpoint's outputs for a page's typed link values: the `k` best answers and the sentence."""
    result = engine_call(analogy, values, engine_call(loaders.glove), k)
    rows = zip(result.words, result.scores.astype(float).round(4), result.cos_add.astype(float).round(4))
    return (table(rows, [_("word"), _("score"), "cos(w, b) - cos(w, a) + cos(w, c)"], digits=SHOWN_DIGITS),
            analogy_reading(result))


def map_from_link(values: Mapping[str, Any]):
    """The embedding_map endpoint's outputs for a page's typed link values: the map, its points, how parallel the
    offsets are in all dimensions (cos(b - a, d - c)), and the sentence."""
    wv = engine_call(loaders.glove)
    shown = engine_call(offset_map, values, wv, engine_call(analogy, values, wv, 1))
    projection, offsets = shown.projection, shown.offsets
    nearest = E.nearest_many(wv, projection.words, k=HOVER_NEIGHBOURS, vocab_size=values["vocab"])
    hover = {w: ", ".join(n.words) for w, n in zip(projection.words, nearest)}
    points = [{_("word"): w, "x": round(float(x), 4), "y": round(float(y), 4),
               pgettext("chart field", "role"): _(shown.roles.get(w, "other word")), _("nearest words"): hover[w]}
              for w, (x, y) in zip(projection.words, projection.coords)]
    labels = [f"{p} → {q}" for p, q in offsets.pairs]
    cosines = table([[label, *map(float, row.round(4))] for label, row in zip(labels, offsets.cosines)],
                    [_("offset"), *labels], digits=SHOWN_DIGITS)
    drawn = embedding_map(projection.words, projection.coords, arrows=list(offsets.pairs), roles=shown.roles,
                          neighbours=hover, explained=projection.explained, size=480)
    return plot(drawn), table(points, digits=SHOWN_DIGITS), cosines, map_reading(shown)


def neighbours_from_link(values: Mapping[str, Any], k: int = NEIGHBOURS_SHOWN):
    """The neighbours endpoint's outputs for a page's typed link values: the `k` nearest words to the sum, their
    bars and the sentence."""
    total, found = engine_call(neighbours, values, engine_call(loaders.glove), k)
    rows = [{_("word"): w, _("cosine"): round(float(c), 4)} for w, c in found.pairs]
    bars = score_bars(found.words, found.cosines, title=_("nearest to {sum}", sum=total.text))
    return table(rows, digits=SHOWN_DIGITS), plot(bars, width=WIDE), neighbours_reading(total, found)


def from_link(values: Mapping[str, Any]):
    """The tab's outputs for a page's typed link values (PAGE.values): the analogy's (answers, sentence), the map's
    (map, points, offsets' cosines, sentence), then the nearest words' (rows, bars, sentence), as many as the page
    shows."""
    return (*analogy_from_link(values), *map_from_link(values), *neighbours_from_link(values))


def neighbours_tab(expression: str, k: float, leave_out: bool, vocab_size: int):
    """The k words nearest to a word or a sum such as 'paris - france + italy': cos(w, q), q the sum of unit vectors."""
    values = PAGE.defaults() | {"query": expression if isinstance(expression, str) else "",
                                "leave_out": bool(leave_out), "vocab": _vocab(vocab_size)}
    return neighbours_from_link(values, whole(k, 1, limits.MAX_NEIGHBOURS, _("number of words")))


def analogy_tab(a: str, b: str, c: str, k: float, method: str):
    """a : b :: c : ?  ranked by cos(w, b - a + c) (3CosAdd) or 3CosMul, among all 400,000 words."""
    k = whole(k, 1, limits.MAX_NEIGHBOURS, _("number of answers"))
    values = PAGE.defaults() | {"a": a, "b": b, "c": c, "method": method or P["method"].default, "vocab": ALL_WORDS}
    return analogy_from_link(values, k)


def map_tab(a: str, b: str, c: str, extra: str, vocab_size: int):
    """The analogy's words and its answer on the PCA plane of their unit vectors, each pair an arrow, and
    how parallel the offsets are in all 50 dimensions (cos(b - a, d - c))."""
    values = PAGE.defaults() | {"a": a, "b": b, "c": c, "extra": extra or "", "vocab": _vocab(vocab_size)}
    return map_from_link(values)


def embeddings_tab(demo: gr.Blocks) -> None:
    question(PAGE.question,
             N_("GloVe 6B 50-d: 400,000 lower-case words, 50 numbers each (the first use reads them, a few seconds)."))
    vocab = gr.Slider(limits.MIN_VOCAB_SIZE, ALL_WORDS, value=DEFAULT_VOCAB, step=1000, label=label_of(P["vocab"]),
                      info=help_of(P["vocab"]))

    heading(N_("a is to b as c is to ?"))
    with gr.Row():
        a, b, c = (gr.Textbox(P[letter].default, label=kept(letter), max_length=limits.MAX_WORD_CHARS * 2)
                   for letter in "abc")

    with gr.Row():
        k = gr.Slider(1, limits.MAX_NEIGHBOURS, value=ANSWERS_SHOWN, step=1, label=say("answers shown"))
        method = gr.Radio(choices(METHOD_LABELS), value=P["method"].default, label=label_of(P["method"]))
    solve = gr.Button(say("Solve the analogy"), variant="primary")
    analogy_summary = gr.Markdown(label=say("summary"))
    answers = gr.Dataframe(label=say("best answers"))
    solve.click(analogy_tab, [a, b, c, k, method], [answers, analogy_summary], api_name="analogy")

    heading(N_("A 2-D map of the offsets"))
    extra = gr.Textbox(P["extra"].default, max_length=limits.MAX_MAP_EXTRA_CHARS, label=label_of(P["extra"]),
                       info=say(EXTRA_HELP, limit=limits.MAX_MAP_WORDS))
    draw = gr.Button(say("Draw the map"), variant="primary")
    map_summary = gr.Markdown(label=say("summary"))
    word_map = chart(label=say("The words on their PCA plane"))
    offsets = gr.Dataframe(label=say("cos(offset, offset) in all 50 dimensions"))
    points = gr.Dataframe(label=say("The words' coordinates"))
    draw.click(map_tab, [a, b, c, extra, vocab], [word_map, points, offsets, map_summary], api_name="embedding_map")

    heading(NEIGHBOURS_HEADING)
    with gr.Row():
        expression = gr.Textbox(P["query"].default, label=label_of(P["query"]), scale=3,
                                max_length=limits.MAX_EXPRESSION_CHARS)
        count = gr.Slider(1, limits.MAX_NEIGHBOURS, value=NEIGHBOURS_SHOWN, step=1, label=say("words shown"))
        leave_out = gr.Checkbox(P["leave_out"].default, label=label_of(P["leave_out"]))
    find = gr.Button(say("Find the nearest words"), variant="primary")
    find.click(neighbours_tab, [expression, count, leave_out, vocab],
               results(say("nearest words"), kept("cos(w, q)")), api_name="neighbours")

