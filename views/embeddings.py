"""Embedding explorer: real GloVe vectors, their neighbours, analogy arithmetic, a 2-D map,
and homonyms that must share one vector."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.embeddings import glove as E
from engine import i18n, limits, markup, numbers
from engine.embeddings.code import analogy_code
from engine.charts.bars import accuracy_bars, score_bars
from engine.charts.heatmaps import heatmap_spec
from engine.charts.points import embedding_map, sense_scatter
from engine.chapter.embeddings import (
    NEIGHBOURS_HEADING,
    ANALOGY, ANSWERS_SHOWN, CUSTOM, DEFAULT_VOCAB, EXTRA_HELP, HOMONYM, HOMONYMS, HOVER_NEIGHBOURS, MAP,
    METHOD_LABELS, NEIGHBOURS, PAGE, PRESET_FIELDS, PRESETS, SIZE, TAIL, WITH_ANALOGY, analogy, analogy_reading,
    map_reading, neighbours_reading, offset_map,
)
from engine.chapter.embeddings import neighbours as nearest_to_sum
from engine.i18n import N_, _
from engine.numbers import enough_digits, fixed, worked
from ui import challenges, charts, code, formula, loaders, page, pretrained_views, tables, url_state, warmup

md = markup.markdown   # a word in a sentence: GloVe's words hold * _ $ [ ] < > too
# GloVe read English text: its words, the presets and the sentences stay English in every language
READS_ENGLISH = N_("GloVe's vectors were trained on English text: the words you type and the words the page shows "
                   "stay in English.")

page.header(PAGE)
if not i18n.is_source():   # English pages say nothing: their readers read the vectors' language
    st.caption(_(READS_ENGLISH))
wv = loaders.glove()

# --- settings ---------------------------------------------------------------------------
STATE = url_state.PageState(PAGE)
STATE.init()
P = PAGE.by_name


def preset_name(preset: str) -> str:
    """A preset as the box shows it: the words as they are, its note and '(your own)' in the reader's language."""
    if preset == CUSTOM:
        return _(CUSTOM)
    words, gap, note = preset.partition("  ")
    return words + gap + _(note) if note else preset


def link_values() -> dict:
    """The typed values of the page's settings, as the session holds them (engine.chapter.embeddings reads them)."""
    return {name: STATE[name] for name in P}

with st.sidebar:
    st.header(_("Settings"))
    st.radio(P["vocab"].label, limits.VOCAB_SIZE_CHOICES, key=STATE.key("vocab"),
             format_func=lambda n: _("top {n} words", n=numbers.grouped(n)) if n < len(wv) else
             _("all {n} words", n=numbers.grouped(n)),
             help=P["vocab"].help, on_change=page.only(STATE, ANALOGY, MAP, NEIGHBOURS, HOMONYM, TAIL))
    st.radio(P["method"].label, list(METHOD_LABELS), key=STATE.key("method"),
             format_func=lambda method: _(METHOD_LABELS[method]), on_change=page.only(STATE, *WITH_ANALOGY))
    st.caption(_("GloVe 6B: {size} lower-case words, {dim} numbers each, trained on Wikipedia 2014 and Gigaword 5 "
                 "(Pennington et al. 2014).", size=numbers.grouped(len(wv)), dim=wv.dim))


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
    st.subheader(_("a is to b as c is to ?"))
    st.selectbox(P["preset"].label, [*PRESETS, CUSTOM], key=STATE.key("preset"), on_change=preset_chosen,
                 format_func=preset_name)
    cols = st.columns(4)
    for col, key in zip(cols, "abcd"):
        col.text_input(P[key].label, key=STATE.key(key), on_change=word_typed, args=(key,),
                       max_chars=limits.MAX_WORD_CHARS * 2)
    where_analogy = st.container()
    result = page.run_engine(analogy, link_values(), wv, where=where_analogy)
    expected = STATE["d"].strip().lower()
    expected_rank = None  # where d lands among the answers (0: it can never be one)
    if result is not None and expected:
        if page.run_engine(E.lookup, wv, expected, N_("expected answer d"), where=where_analogy) is not None:
            question = E.AnalogyQuestion("yours", result.negative[0], *result.positive, expected)
            expected_rank = int(glove_call("score_analogies", [question], method=method, vocab_size=vocab).ranks[0])

    if result is not None:
        a, (b, c) = result.negative[0], result.positive
        top = result.words[0]
        if expected_rank == 1:
            where_analogy.success(_("**{word}** comes out on top.", word=md(expected)), icon=":material/check_circle:")
        elif expected_rank == 0 and expected in (a, b, c):
            where_analogy.warning(
                _("**{word}** is one of the three input words, and those are always left out of the answers, so the "
                  "top answer is **{top}**. With the inputs allowed, the nearest word to b − a + c is often b itself "
                  "(try it in the sum below).", word=md(expected), top=md(top)), icon=":material/info:")
        elif expected_rank == 0:
            where_analogy.warning(_("**{word}** is not among the {size} words searched: choose a larger vocabulary.",
                                    word=md(expected), size=numbers.grouped(vocab)), icon=":material/info:")
        elif expected_rank is not None:
            where_analogy.info(_("**{word}** lands at rank **{rank}**; the top answer is **{top}**.", word=md(expected),
                                 rank=numbers.grouped(expected_rank), top=md(top)),
                               icon=":material/info:")
        charts.show(score_bars(result.words, result.scores, highlight=expected or None,
                               value_title=_("cosine with b − a + c") if method == "3cosadd" else _("3CosMul score"),
                               title=_("{a} : {b} :: {c} : ?   top {k} of {size} words", a=a, b=b, c=c,
                                       k=ANSWERS_SHOWN, size=numbers.grouped(result.vocab_size))),
                    width="stretch")
        rows = [wv.unit[wv.index[w]][:4] for w in (b, a, c)]
        st.markdown(_("**The arithmetic, written out.** Each word's vector scaled to length 1, then {b} − {a} + {c}; "
                      "the first 4 of the {dim} numbers, each rounded to 2 decimals (the sum adds the rounded numbers, "
                      "so its last digit can differ from the exact sum's):", a=markup.code(a), b=markup.code(b),
                      c=markup.code(c), dim=wv.dim))
        st.latex(rf"\hat u_{{{formula.word(b)}}} - \hat u_{{{formula.word(a)}}} + \hat u_{{{formula.word(c)}}} = "
                 + formula.latex_vector(rows[0], 2) + r"\dots - " + formula.latex_vector(rows[1], 2) + r"\dots")
        st.latex("+ " + formula.latex_vector(rows[2], 2) + r"\dots = "
                 + formula.latex_vector(worked(E.offset_sum, *rows, digits=2), 2) + r"\dots")

        # the last column adds the three cosines as shown (3 decimals): a student's sum of the row comes out
        cos_add = worked(E.offset_sum, result.cos_inputs[:, 0], result.cos_inputs[:, 2], result.cos_inputs[:, 1])
        table = pd.DataFrame({
            _("answer"): result.words,
            _("score"): result.scores,
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
                caption=_("Dividing by the constant |u_b − u_a + u_c| changes no ranking, so 3CosAdd ranks words as "
                          "cos(w,b) − cos(w,a) + cos(w,c) does: {value} for {word}.", value=fixed(cos_add[0]),
                          word=markup.quoted(top)),
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
                caption=_("cos' shifts each cosine into [0, 1]. 3CosMul multiplies the similarities instead of "
                          "adding them, so one large cosine cannot make up for a small one."), stacked=True)


the_analogy()

# --- 2. the map -------------------------------------------------------------------------
@page.section(MAP)
def the_map() -> None:
    """The analogy's words and the typed pairs in 2-D: what those words, the vocabulary and the analogy change
    (the analogy as the analogy section left it)."""
    vocab = STATE["vocab"]
    st.subheader(_("A 2-D map of the offsets"))
    st.text_input(P["extra"].label, key=STATE.key("extra"), max_chars=limits.MAX_MAP_EXTRA_CHARS,
                  help=_(EXTRA_HELP, limit=limits.MAX_MAP_WORDS), on_change=page.only(STATE, MAP))
    where_map = st.container()
    if result is None:
        where_map.caption(_("The map draws the analogy above: fix its words to see it."))
    else:
        shown = page.run_engine(offset_map, link_values(), wv, result, where=where_map)
        if shown is not None:
            projection, offsets = shown.projection, shown.offsets
            hover = glove_call("nearest_many", projection.words, k=HOVER_NEIGHBOURS, vocab_size=vocab)
            charts.show(embedding_map(
                projection.words, projection.coords, arrows=list(offsets.pairs), roles=shown.roles,
                neighbours={w: ", ".join(n.words) for w, n in zip(projection.words, hover)},
                explained=projection.explained, size=560))
            st.caption(_("PCA of the words' unit vectors. {reading} Hover a point for its {k} nearest words.",
                         reading=map_reading(shown), k=HOVER_NEIGHBOURS))
            labels = [f"{p} → {q}" for p, q in offsets.pairs]
            charts.show(heatmap_spec(offsets.cosines, labels, labels, value_name=_("cosine"), x_title=_("offset"),
                                     y_title=_("offset"), scheme="blues", domain=(-1, 1), cell=84,
                                     title=_("How parallel are the offsets in all 50 dimensions?")))
            formula.formula_with_numbers(
                r"\cos(\hat u_b - \hat u_a,\ \hat u_d - \hat u_c)",
                rf"\cos({formula.word(a)}\!\to\!{formula.word(b)},\ {formula.word(c)}\!\to\!{formula.word(top)}) = "
                + formula.number(offsets.cosines[0, 1]),
                caption=_("1: the two offsets point the same way; 0: at right angles (orthogonal), neither has any "
                          "component along the other; −1: opposite ways. The 2-D map can only hint at this."),
                stacked=True)


the_map()

# --- 3. neighbours ----------------------------------------------------------------------
@page.section(NEIGHBOURS)
def nearest_words() -> None:
    """The nearest words to a word or a sum: what the sum, 'leave out' and the vocabulary change. Sets `total`
    and `neighbours` for the challenges, which rerun with it."""
    global total, neighbours
    st.subheader(_(NEIGHBOURS_HEADING))
    query_col, option_col = st.columns([3, 2])
    query_col.text_input(P["query"].label, key=STATE.key("query"),
                         max_chars=limits.MAX_EXPRESSION_CHARS, on_change=page.only(STATE, NEIGHBOURS, TAIL))
    option_col.checkbox(P["leave_out"].label, key=STATE.key("leave_out"),
                        on_change=page.only(STATE, NEIGHBOURS, TAIL))
    where_query = st.container()
    total, neighbours = page.run_engine(nearest_to_sum, link_values(), wv, where=where_query) or (None, None)
    if neighbours is not None:
        charts.show(score_bars(neighbours.words, neighbours.cosines, title=_("nearest to {sum}", sum=total.text)),
                    width="stretch")
        formula.formula_with_numbers(
            r"q = \sum_i \pm\,\hat u_i \qquad \cos(w, q) = \frac{\hat u_w \cdot q}{\lVert q\rVert}",
            rf"\cos({formula.word(neighbours.words[0])},\ q) = {formula.number(neighbours.cosines[0])}",
            caption=_("|q| = {length}; the length of q does not change any cosine.",
                      length=fixed(np.linalg.norm(total.vector))),
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
    context = _("context")
    formula.formula_with_numbers(
        r"x^{(A)} = x^{(B)} = e_{" + formula.word(word) + r"} \qquad "
        rf"\text{{{context} }} c = \frac{{1}}{{|C|}} \sum_{{j \in C}} \hat u_j",
        r"\cos\left(x_{" + formula.word(word) + r"}^{(A)},\ x_{" + formula.word(word) + r"}^{(B)}\right) = "
        + formula.number(E.cosine(first.vector, second.vector)),
        caption=_("e_{word} is row {row} of the lookup table (the embedding matrix), returned for '{word}' in both "
                  "sentences: the same 50 numbers, whatever the sense. C is the set of words around it, û_j their "
                  "vectors scaled to length 1.", word=word, row=numbers.grouped(wv.index[word])), stacked=True)
    rows = []
    for name, found in (("A", first), ("B", second)):
        row = {_("sentence"): name, _("context words averaged"): ", ".join(found.context_words)}
        row |= {_("cos(context, {word})", word=w): round(E.cosine(found.context, vector), 3) + 0.0  # no "-0.000"
                for w, vector in zip(probe.anchors if probe else (), anchors.values())}
        rows.append(row)
    table = pd.DataFrame(rows)
    tables.table(table, digits=3)
    st.caption(_("The words around {word} (the {skip} most frequent words such as 'the' and 'of' left out) point "
                 "towards one sense: that is the information attention draws on to give the word a vector that fits "
                 "where it stands.", word=markup.quoted(word), skip=limits.CONTEXT_SKIP_MOST_FREQUENT))


@page.section(HOMONYM)
def homonyms() -> None:
    """A homonym's two senses, its neighbours and two sentences: what the word, its sense words, the sentences,
    the comparison switch and the vocabulary change."""
    vocab = STATE["vocab"]
    st.subheader(_("One vector per word form: homonyms"))
    st.markdown(_("A lookup table gives *crane* the same vector by a lake and on a building site, so that one vector "
                  "has to sit between the senses, pulled towards whichever sense the training text used most."))
    homonym = st.radio(P["homonym"].label, list(HOMONYMS), key=STATE.key("homonym"), horizontal=True,
                       on_change=page.only(STATE, HOMONYM))
    preset = HOMONYMS[homonym]
    (sense_a, anchor_a), (sense_b, anchor_b) = preset["senses"].items()
    anchor_cols = st.columns(2)
    typed_a = anchor_cols[0].text_input(_("A word for the sense '{sense}'", sense=_(sense_a)), value=anchor_a,
                                        key=STATE.key(f"anchor_a_{homonym}"),
                                        max_chars=limits.MAX_WORD_CHARS * 2)
    typed_b = anchor_cols[1].text_input(_("A word for the sense '{sense}'", sense=_(sense_b)), value=anchor_b,
                                        key=STATE.key(f"anchor_b_{homonym}"),
                                        max_chars=limits.MAX_WORD_CHARS * 2)
    where_homonym = st.container()
    probe = page.run_engine(glove_call, "sense_probe", homonym, {sense_a: typed_a, sense_b: typed_b}, k=15,
                            vocab_size=vocab, where=where_homonym)
    if probe is not None:
        charts.show(sense_scatter(
            probe.neighbours.words, probe.cos_to_anchors[:, 0], probe.cos_to_anchors[:, 1], sense_a=_(sense_a),
            sense_b=_(sense_b), anchor_a=probe.anchors[0], anchor_b=probe.anchors[1],
            closest=[_(sense) for sense in probe.closest_sense]))   # the senses in the reader's language
        counts = probe.sense_counts
        ranks = dict(zip(probe.anchors, (int(r) for r in probe.anchor_ranks)))
        cosines = dict(zip(probe.anchors, (float(c) for c in probe.anchor_cosines)))
        nearer = min(probe.anchors, key=ranks.get)
        others = ", ".join(_("*{anchor}* number **{rank}** (cos {cosine})", anchor=md(a),   # (a message of its own:
                             rank=numbers.grouped(ranks[a]), cosine=fixed(cosines[a]))    # Babel reads no message
                           for a in probe.anchors if a != nearer)                         # inside another's call)
        st.markdown(_("Of the {k} nearest words to **{word}**, {count_a} are closer to *{anchor_a}* ({sense_a}) and "
                      "{count_b} closer to *{anchor_b}* ({sense_b}); read the words, not only the count (names and "
                      "unrelated words land on one side or the other too). The anchors themselves are the clearer "
                      "measure: *{nearer}* is {word}'s neighbour number **{rank}** (cos {cosine}), {others}.",
                      k=len(probe.neighbours.words), word=md(probe.word), count_a=counts[sense_a],
                      anchor_a=md(probe.anchors[0]), sense_a=_(sense_a), count_b=counts[sense_b],
                      anchor_b=md(probe.anchors[1]), sense_b=_(sense_b), nearer=md(nearer),
                      rank=numbers.grouped(ranks[nearer]), cosine=fixed(cosines[nearer]), others=others))
        cosine, rank = (_("cos({word}, word)", word=probe.word),
                        _("rank among {word}'s neighbours", word=probe.word))
        tables.table(pd.DataFrame({_("sense"): [_(sense) for sense in probe.senses], _("word"): probe.anchors,
                                   cosine: probe.anchor_cosines,
                                   rank: probe.anchor_ranks}), formats={cosine: "%.3f", rank: "localized"})
        st.caption(_("Rank 1 is {word}'s nearest word among the {size} searched. A sense whose word ranks in the "
                     "thousands has all but vanished from the vector.", word=md(probe.word),
                     size=numbers.grouped(probe.neighbours.vocab_size))
                   + " " + (_(note) if (note := preset.get("note")) else ""))

    st.markdown(_("**{word} in two sentences**", word=homonym))
    sentence_cols = st.columns(2)
    sentence_a = sentence_cols[0].text_input(_("Sentence A"), value=preset["sentences"][0],
                                             key=STATE.key(f"sentence_a_{homonym}"),
                                             max_chars=limits.MAX_SENTENCE_CHARS * 2)
    sentence_b = sentence_cols[1].text_input(_("Sentence B"), value=preset["sentences"][1],
                                             key=STATE.key(f"sentence_b_{homonym}"),
                                             max_chars=limits.MAX_SENTENCE_CHARS * 2)
    homonym_in_two_sentences(homonym, sentence_a, sentence_b, probe)
    if st.toggle(_("Compare with a trained model's contextual vectors (SmolLM2-135M; loads once, a few seconds)"),
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
    st.subheader(_("What the vocabulary size changes"))
    accuracy = loaders.analogy_accuracy(method)
    size_chart, size_text = st.columns([3, 2])
    with size_chart:
        charts.show(accuracy_bars(accuracy), width="stretch")
    with size_text:
        n_questions = len(E.read_analogy_set())
        st.markdown(_("The {count} classic analogies this app ships with (capitals, family, tenses, plurals, "
                      "comparatives ..., in the style of Mikolov et al. 2013), answered with {method}. A small "
                      "vocabulary hides rare look-alikes (names, misspellings) but also rare right answers; all "
                      "400,000 words means 40 times as many cosines per query as the top 10,000.", count=n_questions,
                      method=_(METHOD_LABELS[method])))
        if result is not None:
            others = {size: glove_call("solve_analogy", a, b, c, k=1, method=method, vocab_size=size).words[0]
                      for size in limits.VOCAB_SIZE_CHOICES}
            st.markdown(_("Your analogy **{a} : {b} :: {c} : ?** at each size: {answers}.", a=md(a), b=md(b), c=md(c),
                          answers=", ".join(f"{numbers.grouped(size)} → **{md(w)}**" for size, w in others.items())))


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
            _("Find an analogy the vectors get wrong: type a, b, c and the answer d you expect, so that d is not "
              "the top answer."),
            done=bool(expected_rank is not None and expected_rank != 1 and expected not in result.inputs),
            hint=_("Comparatives and tenses often land second: try tall : taller :: short : ? (expect shorter)."),
            solution={STATE.key("preset"): CUSTOM, STATE.key("a"): "tall", STATE.key("b"): "taller",
                      STATE.key("c"): "short", STATE.key("d"): "shorter"}),
        challenges.Challenge(
            _("Untick '{box}' and find a sum of two or more words whose nearest word is one of the words you typed.",
              box=P["leave_out"].label),
            done=bool(neighbours is not None and not STATE["leave_out"] and total is not None
                      and len(total.words) >= 2 and neighbours.words[0] in total.words),
            hint=_("Untick it and type king - man + woman."),
            solution={STATE.key("leave_out"): False, STATE.key("query"): "king - man + woman"}),
        challenges.Challenge(
            _("Change the vocabulary size until the top answer of your analogy changes."),
            # done only once the size moved and the answer with it: an analogy whose answers differ across sizes
            # ticked this before the size was changed at all
            done=bool(result is not None and STATE["vocab"] != DEFAULT_VOCAB
                      and others.get(STATE["vocab"]) != others.get(DEFAULT_VOCAB)),
            hint=_("canada : ottawa :: kenya : ? (expect nairobi) answers differently with all {size} words.",
                   size=numbers.grouped(400_000)),
            solution={STATE.key("preset"): CUSTOM, STATE.key("a"): "canada", STATE.key("b"): "ottawa",
                      STATE.key("c"): "kenya", STATE.key("d"): "nairobi", STATE.key("vocab"): 400_000}),
    ]
    challenges.try_this(challenge_list)


code_and_challenges()

page.further_reading(PAGE.reading)
STATE.mirror()
page.next_idea(__file__)
warmup.prefetch("analogy accuracy, both scores")  # ui.warmup
