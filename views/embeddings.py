"""Embedding explorer: real GloVe vectors, their neighbours, analogy arithmetic, a 2-D map,
and homonyms that must share one vector."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.embeddings import glove as E
from engine import limits, markup
from engine.embeddings.code import analogy_code
from engine.charts.bars import accuracy_bars, score_bars
from engine.charts.heatmaps import heatmap_spec
from engine.charts.points import embedding_map, sense_scatter
from engine.chapter.embeddings import (
    ANALOGY, ANSWERS_SHOWN, CUSTOM, DEFAULT_VOCAB, HOMONYM, HOMONYMS, HOVER_NEIGHBOURS, MAP, METHOD_LABELS, NEIGHBOURS,
    PAGE, PRESET_FIELDS, PRESETS, SIZE, TAIL, WITH_ANALOGY, analogy, analogy_reading, map_reading, neighbours_reading,
    offset_map,
)
from engine.chapter.embeddings import neighbours as nearest_to_sum
from engine.numbers import enough_digits, fixed, worked
from ui import challenges, charts, code, formula, loaders, page, pretrained_views, tables, url_state, warmup

md = markup.markdown   # a word in a sentence: GloVe's words hold * _ $ [ ] < > too

page.header(PAGE)
wv = loaders.glove()

# --- settings ---------------------------------------------------------------------------
STATE = url_state.PageState(PAGE)
STATE.init()
P = PAGE.by_name


def link_values() -> dict:
    """The typed values of the page's settings, as the session holds them (engine.chapter.embeddings reads them)."""
    return {name: STATE[name] for name in P}

with st.sidebar:
    st.header("Settings")
    st.radio(P["vocab"].label, limits.VOCAB_SIZE_CHOICES, key=STATE.key("vocab"),
             format_func=lambda n: f"top {n:,} words" if n < len(wv) else f"all {n:,} words",
             help=P["vocab"].help, on_change=page.only(STATE, ANALOGY, MAP, NEIGHBOURS, HOMONYM, TAIL))
    st.radio(P["method"].label, list(METHOD_LABELS), key=STATE.key("method"), format_func=METHOD_LABELS.get,
             on_change=page.only(STATE, *WITH_ANALOGY))
    st.caption(f"GloVe 6B: {len(wv):,} lower-case words, {wv.dim} numbers each, trained on Wikipedia 2014 "
               "and Gigaword 5 (Pennington et al. 2014).")


@st.cache_data(max_entries=512, show_spinner=False)
def glove_call(name: str, *args, **kwargs):
    """engine.embeddings.glove.<name> on the shared vectors, cached on its arguments (every one is pure)."""
    return getattr(E, name)(loaders.glove(), *args, **kwargs)


def apply_preset() -> None:
    choice = STATE["preset"]
    if choice in PRESETS:
        for key, value in zip(PRESET_FIELDS, PRESETS[choice]):
            STATE[key] = value


def mark_custom(key: str) -> None:
    """A word typed over a preset makes it '(your own)', once the word is one the vectors know:
    a rejected word leaves every other input as it was."""
    typed = STATE[key]
    if key == "d" and not typed.strip():
        STATE["preset"] = CUSTOM
        return
    try:
        E.lookup(wv, typed)
    except ValueError:
        return
    STATE["preset"] = CUSTOM


def preset_chosen() -> None:
    """The preset's words into the inputs, then a rerun of only the sections they change."""
    apply_preset()
    page.only(STATE, *WITH_ANALOGY)()


def word_typed(key: str) -> None:
    """mark_custom, then a rerun of only the sections the analogy's words change."""
    mark_custom(key)
    page.only(STATE, *WITH_ANALOGY)()


# --- 1. the analogy ---------------------------------------------------------------------
@page.section(ANALOGY)
def the_analogy() -> None:
    """The preset, the words and the answers: what they, the vocabulary and the score change. Sets `result`,
    `expected`, `expected_rank` and the words `a`, `b`, `c`, `top` for the map, the vocabulary-size part, the code
    and the challenges, which rerun with it."""
    global result, expected, expected_rank, a, b, c, top
    vocab, method = STATE["vocab"], STATE["method"]
    st.subheader("a is to b as c is to ?")
    st.selectbox(P["preset"].label, [*PRESETS, CUSTOM], key=STATE.key("preset"), on_change=preset_chosen)
    cols = st.columns(4)
    for col, key in zip(cols, "abcd"):
        col.text_input(P[key].label, key=STATE.key(key), on_change=word_typed, args=(key,),
                       max_chars=limits.MAX_WORD_CHARS * 2)
    where_analogy = st.container()
    result = page.run_engine(analogy, link_values(), wv, where=where_analogy)
    expected = STATE["d"].strip().lower()
    expected_rank = None  # where d lands among the answers (0: it can never be one)
    if result is not None and expected:
        if page.run_engine(E.lookup, wv, expected, "expected answer d", where=where_analogy) is not None:
            question = E.AnalogyQuestion("yours", result.negative[0], *result.positive, expected)
            expected_rank = int(glove_call("score_analogies", [question], method=method, vocab_size=vocab).ranks[0])

    if result is not None:
        a, (b, c) = result.negative[0], result.positive
        top = result.words[0]
        if expected_rank == 1:
            where_analogy.success(f"**{md(expected)}** comes out on top.", icon=":material/check_circle:")
        elif expected_rank == 0 and expected in (a, b, c):
            where_analogy.warning(
                f"**{md(expected)}** is one of the three input words, and those are always left out of the answers, "
                f"so the top answer is **{md(top)}**. With the inputs allowed, the nearest word to b − a + c is often "
                "b itself (try it in the sum below).", icon=":material/info:")
        elif expected_rank == 0:
            where_analogy.warning(f"**{md(expected)}** is not among the {vocab:,} words searched: choose a larger "
                                  "vocabulary.", icon=":material/info:")
        elif expected_rank is not None:
            where_analogy.info(f"**{md(expected)}** lands at rank **{expected_rank:,}**; the top answer is "
                               f"**{md(top)}**.",
                               icon=":material/info:")
        charts.show(score_bars(result.words, result.scores, highlight=expected or None,
                               value_title="cosine with b − a + c" if method == "3cosadd" else "3CosMul score",
                               title=f"{a} : {b} :: {c} : ?   top {ANSWERS_SHOWN} of {result.vocab_size:,} words"),
                    width="stretch")
        rows = [wv.unit[wv.index[w]][:4] for w in (b, a, c)]
        st.markdown(f"**The arithmetic, written out.** Each word's vector scaled to length 1, then "
                    f"{markup.code(b)} − {markup.code(a)} + {markup.code(c)}; the first 4 of the {wv.dim} numbers, "
                    "each rounded to 2 decimals (the sum adds the rounded numbers, so its last digit can differ from "
                    "the exact sum's):")
        st.latex(rf"\hat u_{{{formula.word(b)}}} - \hat u_{{{formula.word(a)}}} + \hat u_{{{formula.word(c)}}} = "
                 + formula.latex_vector(rows[0], 2) + r"\dots - " + formula.latex_vector(rows[1], 2) + r"\dots")
        st.latex("+ " + formula.latex_vector(rows[2], 2) + r"\dots = "
                 + formula.latex_vector(worked(E.offset_sum, *rows, digits=2), 2) + r"\dots")

        # the last column adds the three cosines as shown (3 decimals): a student's sum of the row comes out
        cos_add = worked(E.offset_sum, result.cos_inputs[:, 0], result.cos_inputs[:, 2], result.cos_inputs[:, 1])
        table = pd.DataFrame({
            "answer": result.words,
            "score": result.scores,
            f"cos(w, {b})": result.cos_inputs[:, 0],
            f"cos(w, {c})": result.cos_inputs[:, 1],
            f"cos(w, {a})": result.cos_inputs[:, 2],
            f"cos(w,{b}) − cos(w,{a}) + cos(w,{c})": cos_add,
        })
        tables.table(table, digits=3)
        st.caption(analogy_reading(result))
        if method == "3cosadd":
            formula.formula_with_numbers(
                r"\cos(u, v) = \frac{u \cdot v}{\lVert u\rVert\,\lVert v\rVert} \qquad "
                r"\text{3CosAdd: } \arg\max_w \cos(w,\ \hat u_b - \hat u_a + \hat u_c)",
                rf"\cos({formula.word(top)},\ \hat u_{{{formula.word(b)}}} - \hat u_{{{formula.word(a)}}} "
                rf"+ \hat u_{{{formula.word(c)}}})"
                rf" = {formula.number(result.scores[0])}",
                caption="Dividing by the constant |u_b − u_a + u_c| changes no ranking, so 3CosAdd ranks words as "
                        f"cos(w,b) − cos(w,a) + cos(w,c) does: {fixed(cos_add[0])} for {markup.quoted(top)}.",
                stacked=True)
        else:
            primes = [(1 + result.cos_inputs[0, column]) / 2 for column in range(3)]   # cos'(w, b), (w, c), (w, a)
            mul_places = enough_digits(E.cos_mul, *primes, result_digits=3)
            formula.formula_with_numbers(
                r"\text{3CosMul: } \arg\max_w \frac{\cos'(w,b)\,\cos'(w,c)}{\cos'(w,a) + 10^{-6}}, \qquad "
                r"\cos' = \tfrac{1+\cos}{2}",
                rf"{formula.word(top)}: \frac{{{formula.number(primes[0], mul_places)} \times "
                rf"{formula.number(primes[1], mul_places)}}}{{{formula.number(primes[2], mul_places)}}}"
                rf" = {formula.number(E.cos_mul(*primes))}",
                caption="cos' shifts each cosine into [0, 1]. 3CosMul multiplies the similarities instead of adding "
                        "them, so one large cosine cannot make up for a small one.", stacked=True)


the_analogy()

# --- 2. the map -------------------------------------------------------------------------
@page.section(MAP)
def the_map() -> None:
    """The analogy's words and the typed pairs in 2-D: what those words, the vocabulary and the analogy change
    (the analogy as the analogy section left it)."""
    vocab = STATE["vocab"]
    st.subheader("A 2-D map of the offsets")
    st.text_input(P["extra"].label, key=STATE.key("extra"), max_chars=limits.MAX_MAP_EXTRA_CHARS,
                  help=P["extra"].help, on_change=page.only(STATE, MAP))
    where_map = st.container()
    if result is None:
        where_map.caption("The map draws the analogy above: fix its words to see it.")
    else:
        shown = page.run_engine(offset_map, link_values(), wv, result, where=where_map)
        if shown is not None:
            projection, offsets = shown.projection, shown.offsets
            hover = glove_call("nearest_many", projection.words, k=HOVER_NEIGHBOURS, vocab_size=vocab)
            charts.show(embedding_map(
                projection.words, projection.coords, arrows=list(offsets.pairs), roles=shown.roles,
                neighbours={w: ", ".join(n.words) for w, n in zip(projection.words, hover)},
                explained=projection.explained, size=560))
            st.caption(f"PCA of the words' unit vectors. {map_reading(shown)} Hover a point for its "
                       f"{HOVER_NEIGHBOURS} nearest words.")
            labels = [f"{p} → {q}" for p, q in offsets.pairs]
            charts.show(heatmap_spec(offsets.cosines, labels, labels, value_name="cosine", x_title="offset",
                                     y_title="offset", scheme="blues", domain=(-1, 1), cell=84,
                                     title="How parallel are the offsets in all 50 dimensions?"))
            formula.formula_with_numbers(
                r"\cos(\hat u_b - \hat u_a,\ \hat u_d - \hat u_c)",
                rf"\cos({formula.word(a)}\!\to\!{formula.word(b)},\ {formula.word(c)}\!\to\!{formula.word(top)}) = "
                + formula.number(offsets.cosines[0, 1]),
                caption="1: the two offsets point the same way; 0: at right angles (orthogonal), neither has any "
                        "component along the other; −1: opposite ways. The 2-D map can only hint at this.",
                stacked=True)


the_map()

# --- 3. neighbours ----------------------------------------------------------------------
@page.section(NEIGHBOURS)
def nearest_words() -> None:
    """The nearest words to a word or a sum: what the sum, 'leave out' and the vocabulary change. Sets `total`
    and `neighbours` for the challenges, which rerun with it."""
    global total, neighbours
    st.subheader("Nearest words to a word or to a sum you compose")
    query_col, option_col = st.columns([3, 2])
    query_col.text_input(P["query"].label, key=STATE.key("query"),
                         max_chars=limits.MAX_EXPRESSION_CHARS, on_change=page.only(STATE, NEIGHBOURS, TAIL))
    option_col.checkbox(P["leave_out"].label, key=STATE.key("leave_out"),
                        on_change=page.only(STATE, NEIGHBOURS, TAIL))
    where_query = st.container()
    total, neighbours = page.run_engine(nearest_to_sum, link_values(), wv, where=where_query) or (None, None)
    if neighbours is not None:
        charts.show(score_bars(neighbours.words, neighbours.cosines, title=f"nearest to {total.text}"),
                    width="stretch")
        formula.formula_with_numbers(
            r"q = \sum_i \pm\,\hat u_i \qquad \cos(w, q) = \frac{\hat u_w \cdot q}{\lVert q\rVert}",
            rf"\cos({formula.word(neighbours.words[0])},\ q) = {formula.number(neighbours.cosines[0])}",
            caption=f"|q| = {np.linalg.norm(total.vector):.3f}; the length of q does not change any cosine.",
            stacked=True)
        if neighbours.words[0] in total.words:
            st.info(neighbours_reading(total, neighbours), icon=":material/info:")
        else:
            st.markdown(neighbours_reading(total, neighbours))


nearest_words()

# --- 4. homonyms ------------------------------------------------------------------------
def homonym_in_two_sentences(word: str, sentence_a: str, sentence_b: str, probe) -> None:
    """The same word in two sentences: what a static lookup gives, and what the context holds.

    The pretrained model's contextual vectors of the same word in the same two sentences are drawn
    below it, behind the "Compare with a trained model's contextual vectors" switch. `probe`: the homonym's
    sense probe (its two anchor words), or None.
    """
    vocab = STATE["vocab"]
    where = st.container()
    first = page.run_engine(E.static_in_context, wv, word, sentence_a, vocab_size=vocab, where=where)
    second = page.run_engine(E.static_in_context, wv, word, sentence_b, vocab_size=vocab, where=where)
    if first is None or second is None:
        return
    anchors = {sense: wv.unit[wv.index[w]] for sense, w in zip(probe.senses, probe.anchors)} if probe else {}
    formula.formula_with_numbers(
        r"x^{(A)} = x^{(B)} = e_{" + formula.word(word) + r"} \qquad "
        r"\text{context } c = \frac{1}{|C|} \sum_{j \in C} \hat u_j",
        r"\cos\left(x_{" + formula.word(word) + r"}^{(A)},\ x_{" + formula.word(word) + r"}^{(B)}\right) = "
        + formula.number(E.cosine(first.vector, second.vector)),
        caption=f"e_{word} is row {wv.index[word]:,} of the lookup table (the embedding matrix), returned for "
                f"'{word}' in both sentences: the same 50 numbers, whatever the sense. C is the set of words "
                "around it, û_j their vectors scaled to length 1.", stacked=True)
    rows = []
    for name, found in (("A", first), ("B", second)):
        row = {"sentence": name, "context words averaged": ", ".join(found.context_words)}
        row |= {f"cos(context, {w})": round(E.cosine(found.context, vector), 3) + 0.0  # no "-0.000"
                for w, vector in zip(probe.anchors if probe else (), anchors.values())}
        rows.append(row)
    table = pd.DataFrame(rows)
    tables.table(table, digits=3)
    st.caption(f"The words around {markup.quoted(word)} (the {limits.CONTEXT_SKIP_MOST_FREQUENT} most frequent "
               "words such as 'the' and 'of' left out) point towards one sense: that is the information attention "
               "draws on to give the word a vector that fits where it stands.")


@page.section(HOMONYM)
def homonyms() -> None:
    """A homonym's two senses, its neighbours and two sentences: what the word, its sense words, the sentences,
    the comparison switch and the vocabulary change."""
    vocab = STATE["vocab"]
    st.subheader("One vector per word form: homonyms")
    st.markdown("A lookup table gives *crane* the same vector by a lake and on a building site, so that one "
                "vector has to sit between the senses, pulled towards whichever sense the training text used most.")
    homonym = st.radio(P["homonym"].label, list(HOMONYMS), key=STATE.key("homonym"), horizontal=True,
                       on_change=page.only(STATE, HOMONYM))
    preset = HOMONYMS[homonym]
    (sense_a, anchor_a), (sense_b, anchor_b) = preset["senses"].items()
    anchor_cols = st.columns(2)
    typed_a = anchor_cols[0].text_input(f"A word for the sense '{sense_a}'", value=anchor_a,
                                        key=STATE.key(f"anchor_a_{homonym}"),
                                        max_chars=limits.MAX_WORD_CHARS * 2)
    typed_b = anchor_cols[1].text_input(f"A word for the sense '{sense_b}'", value=anchor_b,
                                        key=STATE.key(f"anchor_b_{homonym}"),
                                        max_chars=limits.MAX_WORD_CHARS * 2)
    where_homonym = st.container()
    probe = page.run_engine(glove_call, "sense_probe", homonym, {sense_a: typed_a, sense_b: typed_b}, k=15,
                            vocab_size=vocab, where=where_homonym)
    if probe is not None:
        charts.show(sense_scatter(
            probe.neighbours.words, probe.cos_to_anchors[:, 0], probe.cos_to_anchors[:, 1], sense_a=sense_a,
            sense_b=sense_b, anchor_a=probe.anchors[0], anchor_b=probe.anchors[1], closest=probe.closest_sense))
        counts = probe.sense_counts
        ranks = dict(zip(probe.anchors, (int(r) for r in probe.anchor_ranks)))
        cosines = dict(zip(probe.anchors, (float(c) for c in probe.anchor_cosines)))
        nearer = min(probe.anchors, key=ranks.get)
        st.markdown(f"Of the {len(probe.neighbours.words)} nearest words to **{md(probe.word)}**, "
                    f"{counts[sense_a]} are closer to *{md(probe.anchors[0])}* ({sense_a}) and "
                    f"{counts[sense_b]} closer to *{md(probe.anchors[1])}* ({sense_b}); read the words, not only the "
                    "count (names and unrelated words land on one side or the other too). The anchors themselves are "
                    f"the clearer measure: *{md(nearer)}* is {md(probe.word)}'s neighbour number **{ranks[nearer]:,}** "
                    f"(cos {cosines[nearer]:.3f}), "
                    + ", ".join(f"*{md(a)}* number **{ranks[a]:,}** (cos {cosines[a]:.3f})"
                                for a in probe.anchors if a != nearer)
                    + ".")
        cosine, rank = f"cos({probe.word}, word)", f"rank among {probe.word}'s neighbours"
        tables.table(pd.DataFrame({"sense": probe.senses, "word": probe.anchors, cosine: probe.anchor_cosines,
                                   rank: probe.anchor_ranks}), formats={cosine: "%.3f", rank: "localized"})
        st.caption(f"Rank 1 is {md(probe.word)}'s nearest word among the {probe.neighbours.vocab_size:,} searched. "
                   "A sense whose word ranks in the thousands has all but vanished from the vector. "
                   + preset.get("note", ""))

    st.markdown(f"**{homonym} in two sentences**")
    sentence_cols = st.columns(2)
    sentence_a = sentence_cols[0].text_input("Sentence A", value=preset["sentences"][0],
                                             key=STATE.key(f"sentence_a_{homonym}"),
                                             max_chars=limits.MAX_SENTENCE_CHARS * 2)
    sentence_b = sentence_cols[1].text_input("Sentence B", value=preset["sentences"][1],
                                             key=STATE.key(f"sentence_b_{homonym}"),
                                             max_chars=limits.MAX_SENTENCE_CHARS * 2)
    homonym_in_two_sentences(homonym, sentence_a, sentence_b, probe)
    if st.toggle("Compare with a trained model's contextual vectors (SmolLM2-135M; loads once, a few seconds)",
                 key=STATE.key("contextual")):
        pretrained_views.contextual_similarity_panel(
            [(homonym, sentence_a, sentence_b)] + [pair for pair in pretrained_views.HOMONYMS if pair[0] == homonym],
            static_cosine={homonym: 1.0})


homonyms()

# --- 5. vocabulary size -----------------------------------------------------------------
@page.section(SIZE)
def vocabulary_size() -> None:
    """Accuracy per vocabulary size, and the analogy's answer at each size: what the score and the analogy
    change (the analogy as the analogy section left it). Sets `others` for the challenges."""
    global others
    method = STATE["method"]
    st.subheader("What the vocabulary size changes")
    accuracy = loaders.analogy_accuracy(method)
    size_chart, size_text = st.columns([3, 2])
    with size_chart:
        charts.show(accuracy_bars(accuracy), width="stretch")
    with size_text:
        n_questions = len(E.read_analogy_set())
        st.markdown(f"The {n_questions} classic analogies this app ships with (capitals, family, tenses, "
                    "plurals, comparatives ..., in the style of Mikolov et al. 2013), answered with "
                    f"{METHOD_LABELS[method]}. A small vocabulary hides rare look-alikes (names, misspellings) "
                    "but also rare right answers; all 400,000 words means 40 times as many cosines per query "
                    "as the top 10,000.")
        if result is not None:
            others = {size: glove_call("solve_analogy", a, b, c, k=1, method=method, vocab_size=size).words[0]
                      for size in limits.VOCAB_SIZE_CHOICES}
            st.markdown(f"Your analogy **{md(a)} : {md(b)} :: {md(c)} : ?** at each size: "
                        + ", ".join(f"{size:,} → **{md(w)}**" for size, w in others.items()) + ".")


vocabulary_size()

# --- code, challenges, reading ----------------------------------------------------------
@page.section(TAIL)
def code_and_challenges() -> None:
    """The code and the challenges: they rerun with the sections whose results they read (`result`,
    `expected_rank`, `neighbours`, `total`, `others`)."""
    vocab, method = STATE["vocab"], STATE["method"]
    if result is not None:
        code.show_code({"Python": analogy_code(a, b, c, method=method, vocab=vocab, all_words=len(wv),
                                               pairs=result.pairs)})

    challenge_list = [
        challenges.Challenge(
            "Find an analogy the vectors get wrong: type a, b, c and the answer d you expect, so that d is not "
            "the top answer.",
            done=bool(expected_rank is not None and expected_rank != 1 and expected not in result.inputs),
            hint="Comparatives and tenses often land second: try tall : taller :: short : ? (expect shorter).",
            solution={STATE.key("preset"): CUSTOM, STATE.key("a"): "tall", STATE.key("b"): "taller",
                      STATE.key("c"): "short", STATE.key("d"): "shorter"}),
        challenges.Challenge(
            "Untick 'Leave out the words you typed' and find a sum of two or more words whose nearest word is one "
            "of the words you typed.",
            done=bool(neighbours is not None and not STATE["leave_out"] and total is not None
                      and len(total.words) >= 2 and neighbours.words[0] in total.words),
            hint="Untick it and type king - man + woman.",
            solution={STATE.key("leave_out"): False, STATE.key("query"): "king - man + woman"}),
        challenges.Challenge(
            "Change the vocabulary size until the top answer of your analogy changes.",
            # done only once the size moved and the answer with it: an analogy whose answers differ across sizes
            # ticked this before the size was changed at all
            done=bool(result is not None and STATE["vocab"] != DEFAULT_VOCAB
                      and others.get(STATE["vocab"]) != others.get(DEFAULT_VOCAB)),
            hint="canada : ottawa :: kenya : ? (expect nairobi) answers differently with all 400,000 words.",
            solution={STATE.key("preset"): CUSTOM, STATE.key("a"): "canada", STATE.key("b"): "ottawa",
                      STATE.key("c"): "kenya", STATE.key("d"): "nairobi", STATE.key("vocab"): 400_000}),
    ]
    challenges.try_this(challenge_list)


code_and_challenges()

page.further_reading(PAGE.reading)
STATE.mirror()
page.next_idea(__file__)
warmup.prefetch("analogy accuracy, both scores")  # ui.warmup
