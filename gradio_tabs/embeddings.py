"""Embeddings: the Embedding explorer (views/embeddings.py): nearest words, analogies, a 2-D map of offsets."""
from __future__ import annotations

import gradio as gr

from engine.embeddings import glove as E
from engine import limits, markup
from engine.charts.bars import score_bars
from engine.charts.points import embedding_map
from gradio_tabs import loaders
from gradio_tabs.common import chart, results, engine_call, plot, question, table, whole

DEFAULT_VOCAB = 50_000
ALL_WORDS = limits.VOCAB_SIZE_CHOICES[-1]
WIDE = 480               # px of a bar chart the page stretches to its column


def _vocab(vocab_size) -> int:
    """The most frequent words searched (the engine checks the range and says it)."""
    return whole(vocab_size, 1, ALL_WORDS, "vocabulary size")


def neighbours_tab(expression: str, k: float, leave_out: bool, vocab_size: int):
    """The k words nearest to a word or a sum such as 'paris - france + italy': cos(w, q), q the sum of unit vectors."""
    wv = engine_call(loaders.glove)
    vocab = _vocab(vocab_size)
    k = whole(k, 1, limits.MAX_NEIGHBOURS, "number of words")
    total = engine_call(E.compose, wv, expression, vocab_size=vocab)
    found = engine_call(E.nearest, wv, total.vector, k=k, exclude=total.words if leave_out else (), vocab_size=vocab)
    rows = [{"word": w, "cosine": round(float(c), 4)} for w, c in found.pairs]
    itself = (" It is one of the words you typed: without leaving them out, a sum usually stays closest to its "
              "own terms." if found.words[0] in total.words else "")
    summary = (f"Nearest to **{markup.markdown(total.text)}** among the {found.vocab_size:,} most frequent words: "
               f"**{markup.markdown(found.words[0])}** (cosine {found.cosines[0]:.3f}).{itself}")
    bars = score_bars(found.words, found.cosines, title=f"nearest to {total.text}")
    return table(rows), plot(bars, width=WIDE), summary


def analogy_tab(a: str, b: str, c: str, k: float, method: str):
    """a : b :: c : ?  ranked by cos(w, b - a + c) (3CosAdd) or 3CosMul, among all 400,000 words."""
    k = whole(k, 1, limits.MAX_NEIGHBOURS, "number of answers")
    result = engine_call(E.solve_analogy, engine_call(loaders.glove), a, b, c, k=k, method=method or "3cosadd")
    rows = zip(result.words, result.scores.astype(float).round(4), result.cos_add.astype(float).round(4))
    first, second, third = result.negative[0], result.positive[0], result.positive[1]
    first, second, third, answer = (markup.markdown(w) for w in (first, second, third, result.words[0]))
    summary = (f"**{first} : {second} :: {third} : {answer}**  ({result.method}, "
               f"searched the {result.vocab_size:,} most frequent words; input words left out)")
    return table(rows, ["word", "score", "cos(w, b) - cos(w, a) + cos(w, c)"]), summary


def map_tab(a: str, b: str, c: str, extra: str, vocab_size: int):
    """The analogy's words and its answer on the PCA plane of their unit vectors, each pair an arrow, and
    how parallel the offsets are in all 50 dimensions (cos(b - a, d - c))."""
    wv = engine_call(loaders.glove)
    vocab = _vocab(vocab_size)
    result = engine_call(E.solve_analogy, wv, a, b, c, k=1, vocab_size=vocab)
    a, (b, c), top = result.negative[0], result.positive, result.words[0]
    others = [w.strip() for w in (extra or "").split(",") if w.strip()]
    pairs = [(a, b), (c, top)] + [tuple(others[i:i + 2]) for i in range(0, len(others) - 1, 2)]
    projection = engine_call(E.project_2d, wv, [a, b, c, top, *others], vocab_size=vocab)
    offsets = engine_call(E.offsets, wv, pairs, vocab_size=vocab)
    hover = {w: ", ".join(n.words) for w, n in
             zip(projection.words, E.nearest_many(wv, projection.words, k=5, vocab_size=vocab))}
    roles = {w: "analogy word" for w in (a, b, c)} | {top: "answer"}
    points = [{"word": w, "x": round(float(x), 4), "y": round(float(y), 4), "role": roles.get(w, "other word"),
               "nearest words": hover[w]} for w, (x, y) in zip(projection.words, projection.coords)]
    labels = [f"{p} → {q}" for p, q in offsets.pairs]
    cosines = table([[label, *map(float, row.round(4))] for label, row in zip(labels, offsets.cosines)],
                    ["offset", *labels])
    chart = embedding_map(projection.words, projection.coords, arrows=list(offsets.pairs), roles=roles,
                          neighbours=hover, explained=projection.explained, size=480)
    a, b, c, top = (markup.markdown(w) for w in (a, b, c, top))     # words in a sentence: escaped
    summary = (f"**{a} → {b}** and **{c} → {top}** on the plane along which these {len(projection.words)} words "
               f"differ most ({projection.explained.sum():.0%} of their spread; the rest is hidden). In all "
               f"{wv.dim} dimensions the two offsets have cosine **{offsets.cosines[0, 1]:.3f}** (1: parallel).")
    return plot(chart), table(points), cosines, summary


def embeddings_tab(demo: gr.Blocks) -> None:
    question("Do word vectors know that Paris is to France as Rome is to Italy?",
             "GloVe 6B 50-d: 400,000 lower-case words, 50 numbers each (the first use reads them, a few seconds).")
    vocab = gr.Slider(limits.MIN_VOCAB_SIZE, ALL_WORDS, value=DEFAULT_VOCAB, step=1000,
                      label="Vocabulary searched: the most frequent words (nearest words and the map)")

    gr.Markdown("#### a is to b as c is to ?")
    with gr.Row():
        a = gr.Textbox("france", label="a", max_length=limits.MAX_WORD_CHARS * 2)
        b = gr.Textbox("paris", label="b", max_length=limits.MAX_WORD_CHARS * 2)
        c = gr.Textbox("italy", label="c", max_length=limits.MAX_WORD_CHARS * 2)
    with gr.Row():
        k = gr.Slider(1, limits.MAX_NEIGHBOURS, value=5, step=1, label="answers shown")
        method = gr.Radio(["3cosadd", "3cosmul"], value="3cosadd", label="method")
    solve = gr.Button("Solve the analogy", variant="primary")
    analogy_summary = gr.Markdown(label="summary")
    answers = gr.Dataframe(label="best answers")
    solve.click(analogy_tab, [a, b, c, k, method], [answers, analogy_summary], api_name="analogy")

    gr.Markdown("#### A 2-D map of the offsets")
    extra = gr.Textbox("germany, berlin, japan, tokyo", max_length=600,
                       label=f"Other words on the map (pairs become arrows: a, b, c, d ...; up to "
                             f"{limits.MAX_MAP_WORDS} words in all)")
    draw = gr.Button("Draw the map", variant="primary")
    map_summary = gr.Markdown(label="summary")
    word_map = chart(label="The words on their PCA plane")
    offsets = gr.Dataframe(label="cos(offset, offset) in all 50 dimensions")
    points = gr.Dataframe(label="The words' coordinates")
    draw.click(map_tab, [a, b, c, extra, vocab], [word_map, points, offsets, map_summary], api_name="embedding_map")

    gr.Markdown("#### Nearest words to a word or to a sum you compose")
    with gr.Row():
        expression = gr.Textbox("paris - france + italy", label="A word, or words joined by + and -", scale=3,
                                max_length=limits.MAX_EXPRESSION_CHARS)
        count = gr.Slider(1, limits.MAX_NEIGHBOURS, value=10, step=1, label="words shown")
        leave_out = gr.Checkbox(True, label="Leave out the words you typed")
    find = gr.Button("Find the nearest words", variant="primary")
    find.click(neighbours_tab, [expression, count, leave_out, vocab], results("Nearest words", "cos(w, q)"),
               api_name="neighbours")
