"""N-gram sampler: count, sample and score n-grams; the V^n table and the loops, the chapter's two failures."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from engine import i18n, limits, markup, numbers
from engine.chapter.ngram import (
    LENGTH_STEP, MAX_LENGTH, MIN_LENGTH, MIN_LOOP, PAGE, sample_start,
)
from engine.charts.heatmaps import transition_heatmap
from engine.charts.lines import held_out_lines, table_growth
from engine.charts.style import visible
from engine.i18n import N_, _, ngettext
from engine.language.code import ngram_code
from engine.language.corpus import ALL_PLAYS, OWN_TEXT, user_text
from engine.lm import apply_temperature_top_k
from engine.language.ngram import (
    HELD_OUT_K, SMOOTHING_NAMES, SMOOTHINGS, NGramModel,
    find_loop, held_out_sentences, loop_sentence, smoothing_name,
)
from engine.numbers import enough_digits, worked
from engine.language.tokenizers import LEVEL_NAMES, LEVELS, decoded_pieces, token_text
from ui import challenges, charts, chips, code, formula, loaders, page, tables, url_state, warmup

HEATMAP_TOKENS = 20
CONTEXT_ROWS = 8
P = PAGE.by_name
# the corpus is English (Shakespeare's plays): its tokens and samples stay as they are, in every language
READS_ENGLISH = N_("The model counts Shakespeare's English plays: its tokens, samples and contexts stay in English.")


def latex_g(value: float) -> str:
    """A number as Python's :g writes it, for a formula in the reader's language (0{,}7 in Spanish)."""
    text = f"{value:g}"
    return text if "e" in text else numbers.latex(value, len(text.partition(".")[2]))


def source_name(source: str) -> str:
    """A corpus as the sidebar shows it: a play's title as written, the two others in the reader's language."""
    return _(source) if source in (ALL_PLAYS, OWN_TEXT) else source


@st.cache_data(max_entries=256, show_spinner=False)
def sample(model_key: tuple, length: int, seed: int, temperature: float, prompt: tuple, _model) -> list[int]:
    """_model.sample, cached on what makes the model (source, level, own text, n, smoothing, k) and the
    draw: a hundred draws take longer than the rest of a rerun, which most often changes something else."""
    return _model.sample(length, seed=seed, temperature=temperature, prompt=list(prompt))


def resample() -> None:
    STATE["seed"] = int(STATE["seed"]) + 1


def model_settings() -> tuple[int, str, float]:
    """n, smoothing and k as the sidebar holds them now: a section reads them here, not from the last full run."""
    return int(STATE["n"]), STATE["smoothing"], 1.0 if STATE.get("k") is None else float(STATE["k"])


page.header(PAGE)
if not i18n.is_source():   # English pages say nothing: their readers read the corpus's language
    st.caption(_(READS_ENGLISH))

corpus = loaders.corpus()
SOURCES = [ALL_PLAYS] + corpus.plays + [OWN_TEXT]
STATE = url_state.PageState(PAGE)
# sections that rerun alone (ui.page.section): the sample; the frequent contexts, the V^n entries and the held-out
# cross-entropy of the chosen n; the code and the challenges
HELD_OUT = "ngram.held_out"   # the held-out chart, its table and sentences: veiled while a class predicts the best n
SAMPLE, CONTEXTS, SIZE, HELD, TAIL = ("ngram.sample", "ngram.contexts", "ngram.table_size", "ngram.held_out_numbers",
                                      "ngram.tail")
STATE.init()

with st.sidebar:
    st.header(_("Model"))
    st.selectbox(P["source"].label, SOURCES, key=STATE.key("source"), format_func=source_name)
    st.radio(P["level"].label, LEVELS, key=STATE.key("level"), horizontal=True, help=P["level"].help,
             format_func=lambda level: _(LEVEL_NAMES[level]))
    st.slider(P["n"].label, 1, limits.MAX_NGRAM_ORDER, key=STATE.key("n"),
              on_change=page.only(STATE, SAMPLE, CONTEXTS, SIZE, HELD, TAIL))
    st.selectbox(P["smoothing"].label, SMOOTHINGS, key=STATE.key("smoothing"),
                 format_func=lambda name: _(SMOOTHING_NAMES[name]))
    if STATE["smoothing"] == "add-k":
        st.number_input(P["k"].label, min_value=0.0, step=0.1, key=STATE.key("k"), format="%.3f",
                        on_change=page.only(STATE, SAMPLE, CONTEXTS, TAIL))
    st.header(_("Sampling"))
    st.number_input(P["temperature"].label, min_value=0.0, step=0.1,
                    key=STATE.key("temperature"), on_change=page.only(STATE, SAMPLE, TAIL))
    st.number_input(P["seed"].label, min_value=0, step=1, key=STATE.key("seed"),
                    on_change=page.only(STATE, SAMPLE, TAIL))
    st.button(_("Resample (next seed)"), on_click=resample, icon=":material/casino:")
    st.slider(P["length"].label, MIN_LENGTH, MAX_LENGTH, key=STATE.key("length"), step=LENGTH_STEP,
              on_change=page.only(STATE, SAMPLE, TAIL))

own_text = None
if STATE["source"] == OWN_TEXT:
    uploaded = st.file_uploader(_("Upload a UTF-8 .txt file"), type=["txt"],
                                max_upload_size=page.upload_megabytes(limits.MAX_USER_TEXT_BYTES),
                                help=_("At most {size} MB.", size=numbers.fixed(limits.MAX_USER_TEXT_BYTES / 1e6, 0)))
    st.text_area(_("... or paste a text (the last {share} is held out for scoring)", share="10%"),
                 key=STATE.key("own_text"), height=120)
    raw = uploaded.getvalue() if uploaded is not None else STATE.get("own_text", "")
    own_text = page.run_engine(user_text, raw)
st.text_input(P["prompt"].label, key=STATE.key("prompt"), max_chars=limits.NGRAM_MAX_PROMPT_CHARS,
              on_change=page.only(STATE, SAMPLE, TAIL))
STATE.mirror()

source, level = STATE["source"], STATE["level"]
if source == OWN_TEXT and own_text is None:
    st.info(_("Showing all 38 plays until the text above can be used."), icon=":material/info:")
    source = ALL_PLAYS

prepared = page.run_engine(loaders.tokenized, source, level, own_text)
counts = page.run_engine(loaders.ngram_counts, source, level, own_text) if prepared else None
if counts is not None:
    tokenizer, train_ids, validation_ids = prepared


# --- the sample, loops highlighted ------------------------------------------------------------------
model = sample_ids = loop = None   # what the sample section sets for the sections after it (none while it is veiled)


@page.section(SAMPLE)
def the_sample() -> None:
    """The model of the chosen n, and its sample: what n, k, the temperature, the seed, the length and the
    prompt change. Sets `model`, `sample_ids` and `loop` for the sections after it, which rerun with it. The
    counts and the tokenizer come from the last full run (the corpus and the token level rerun the whole page)."""
    global model, sample_ids, loop
    n, smoothing, k = model_settings()
    model = None
    if counts is not None:
        model = page.run_engine(NGramModel.from_counts, counts, n, smoothing, k, tokenizer)
    sample_ids, loop = None, None
    if model is None:
        return
    st.subheader(_("A sample, and the second failure: a short context goes round in loops"))
    # the typed prompt (a sentence where it cannot be read), or else a line break: shown is only what was typed
    values = {name: STATE[name] for name in P}
    prompt = (page.run_engine(sample_start, values, tokenizer) if STATE["prompt"] else None) or []
    start = prompt or sample_start(values | {"prompt": ""}, tokenizer)
    sample_ids = page.run_engine(sample, (source, level, own_text, n, smoothing, k), int(STATE["length"]),
                                 int(STATE["seed"]), float(STATE["temperature"]), tuple(start), model)
    if sample_ids is not None:
        if not prompt:
            st.caption(_("Without a prompt the sample starts after a line break, where every line of the plays "
                         "starts: with nothing before it, the first token would be drawn by its count alone, and the "
                         "commonest is ','.") if start else
                       _("Without a prompt, and with no line break in the text, the first token is drawn by its "
                         "count alone."))
        pieces = decoded_pieces(tokenizer, list(prompt) + sample_ids)
        loop = find_loop(sample_ids, min_length=MIN_LOOP[level])
        if loop is not None:
            note = _("Highlighted: {why}", why=loop_sentence(loop, n, float(STATE["temperature"])))
            chips.highlighted_text(pieces, len(prompt) + loop.start, len(prompt) + loop.end, note)
        else:
            chips.highlighted_text(pieces, None, None,
                                   _("No loop of {least}+ tokens in this sample (temperature 0 finds one fast).",
                                     least=MIN_LOOP[level]))
        first = model.distribution(list(start)[-(n - 1):] if n > 1 else [])
        tau = float(STATE["temperature"])
        tempered = page.run_engine(apply_temperature_top_k, first.probs, tau, None)
        top = first.top(3)
        first_text = ", ".join(f"{markup.said(visible(token_text(tokenizer, i)))} {numbers.fixed(p)}"
                               + (f" -> {numbers.fixed(tempered[i])}" if tempered is not None else "")
                               for i, p, _count in top)
        formula.formula_with_numbers(
            r"w_t \sim \frac{P(w \mid c_t)^{1/\tau}}{\sum_{v} P(v \mid c_t)^{1/\tau}}",
            rf"\tau = {latex_g(float(STATE['temperature']))},\ "
            + _(r"\text{{seed}} = {seed}", seed=int(STATE["seed"])),
            caption=ngettext("Each token is drawn from the model's distribution after c_t, the last {n} token, "
                             "sharpened (τ < 1) or flattened (τ > 1), then divided by the sum over all V tokens v so "
                             "that it adds up to 1 again. The first draw's top choices, P before -> after τ: {first}. "
                             "The same seed gives the same text.",
                             "Each token is drawn from the model's distribution after c_t, the last {n} tokens, "
                             "sharpened (τ < 1) or flattened (τ > 1), then divided by the sum over all V tokens v so "
                             "that it adds up to 1 again. The first draw's top choices, P before -> after τ: {first}. "
                             "The same seed gives the same text.", n - 1, first=first_text))


the_sample()

# --- the tables ---------------------------------------------------------------------------------------
@page.section(CONTEXTS)
def contexts_table() -> None:
    """The chosen n's most frequent contexts: what n and k change (n and the model as the sample section left
    them)."""
    n, smoothing, k = model_settings()
    if model is not None and n >= 3:
        rows = []
        for context, total, top in loaders.frequent_contexts(source, level, own_text, n, smoothing, k, CONTEXT_ROWS):
            best = ", ".join(f"{visible(token_text(tokenizer, i))} {numbers.fixed(p, 2)}" for i, p, _count in top)
            rows.append((visible("".join(decoded_pieces(tokenizer, list(context)))), total, best))
        st.markdown(_("For n = {n} the table has one row per context of {before} tokens. The most frequent:", n=n,
                      before=n - 1))
        columns = [_("context"), _("times seen"), _("top next tokens ({smoothing})",
                                                    smoothing=smoothing_name(smoothing, k))]
        tables.table(pd.DataFrame(rows, columns=columns), formats={columns[1]: "localized"})


@page.section(SIZE)
def table_size_numbers() -> None:
    """V^n for the chosen n: what n changes. The counts and their growth come from the last full run."""
    n = int(STATE["n"])
    chosen = growth[min(n, len(growth)) - 1]
    entries = _("entries")
    formula.formula_with_numbers(rf"\text{{{entries}}} = V^n",
                                 rf"{numbers.latex_grouped(counts.vocab_size)}^{{{chosen.order}}} = "
                                 rf"{chips.latex_number(chosen.possible)},\ "
                                 + _(r"\text{{seen: }} {seen},\ \text{{a fraction }} {fraction}",
                                     seen=numbers.latex_grouped(chosen.seen),
                                     fraction=chips.latex_number(chosen.fraction)),
                                 caption=_("The training text has {tokens} tokens, so it can show at most that many "
                                           "distinct n-grams: almost every row of a long context is empty.",
                                           tokens=numbers.grouped(counts.n_tokens)))


@page.section(HELD)
def held_out_numbers() -> None:
    """The chosen n and smoothing's held-out cross-entropy, written out: what n changes. The scores come from the
    last full run."""
    n, smoothing, _k = model_settings()
    current = next((r for r in held if r.n == n and r.smoothing == smoothing), None)
    if current is not None:
        # nats and ln 2 printed with enough digits that their ratio gives the bits as printed; PPL from those bits
        places = enough_digits(lambda nats, ln2: nats / ln2, current.nats, math.log(2), result_digits=3) \
            if math.isfinite(current.nats) else 3
        formula.formula_with_numbers(
            r"H = -\tfrac{1}{T}\sum_t \log_2 P_t = \frac{-\tfrac{1}{T}\sum_t \ln P_t}{\ln 2}",
            _(r"H = {bits}\ \text{{bits}} = \frac{{{nats}\ \text{{nats}}}}{{{ln2}}},\ ",
              bits=formula.number(current.bits), nats=formula.number(current.nats, places),
              ln2=formula.number(math.log(2), places))
            + r"\mathrm{PPL} = 2^H = "
            + (numbers.localized(f"{worked(lambda h: 2 ** h, current.bits):,.1f}")
               if math.isfinite(current.perplexity) else r"\infty"),
            stacked=True,
            caption=_("P_t = P(w_t | c_t) over the T = {T} held-out tokens, never counted. Perplexity 2^H (= e^H in "
                      "nats) is the number of equally likely tokens the model is as unsure as. Without smoothing one "
                      "unseen n-gram makes H infinite. The sentences under the chart say what longer contexts do "
                      "with each smoothing.", T=numbers.grouped(len(validation_ids))))


@page.section(TAIL)
def code_and_challenges() -> None:
    """The code and the challenges: they rerun with the sample section (the settings show here, and `sample_ids`
    and `loop` are the ones it just drew). The table sizes and the held-out scores come from the last full run."""
    n, smoothing, k = model_settings()
    if model is not None:
        code.show_code({"Python": ngram_code(
            source, level, n, smoothing, k, length=int(STATE["length"]),
            seed=int(STATE["seed"]), temperature=float(STATE["temperature"]), prompt=STATE["prompt"],
            min_loop=MIN_LOOP[level], model=model, tokenizer=tokenizer, validation_ids=validation_ids)})

    challenges.try_this([
        challenges.Challenge(_("The default sample falls into a loop. Get out of it: change n or the temperature "
                               "until the sample has no loop."),
                             done=sample_ids is not None and loop is None,
                             # words: a longer context escapes at the same temperature; five characters are
                             # still a short context (n = 6 loops on 'the state of the state of'), so a higher one
                             hint=_("Raise n to 6: with five words of context the model does not come back to "
                                    "where it was within the sample (raising the temperature to 1 works too).")
                                  if level == "words" else
                                  _("Raise the temperature to 1: five characters are still a short context, and at "
                                    "τ = 0 even n = 6 goes round in a loop."),
                             solution={STATE.key("n"): 6} if level == "words" else {STATE.key("temperature"): 1.0}),
        challenges.Challenge(_("Choose the n with the lowest held-out cross-entropy for Kneser-Ney."),
                             done=best_kn is not None and n == best_kn.n and smoothing == "kneser-ney",
                             hint=_("Read the Kneser-Ney column of the table under the held-out chart, find its "
                                    "smallest number and set n to that row's n: the lines sit close."),
                             solution={STATE.key("n"): best_kn.n} if best_kn is not None else None),
        challenges.Challenge(_("With characters as tokens, find the smallest n at which fewer than one in a "
                               "thousand possible n-grams was ever seen."),
                             done=level == "characters" and sparse is not None and n == sparse.order,
                             hint=_("Switch the token level to characters, find the first n where the seen line "
                                    "sits more than three powers of ten (1,000 times) below the possible one, and "
                                    "set n to it."),
                             solution={STATE.key("level"): "characters", STATE.key("n"): sparse.order}
                             if level == "characters" and sparse is not None else None),
    ])


if counts is not None:
    st.subheader(_("The transition table (bigram counts, n = 2)"))
    if counts.max_order >= 2:
        table = loaders.transition(source, level, own_text, HEATMAP_TOKENS)
        labels = [token_text(tokenizer, i) for i in table.tokens]
        charts.show(transition_heatmap(labels, table.counts, table.probs,
                                       title=_("P(b | a) among the {k} most frequent tokens (hover for counts)",
                                               k=len(labels))))
        a, b = np.unravel_index(int(np.argmax(table.probs)), table.probs.shape)
        formula.formula_with_numbers(r"P(b \mid a) = \frac{C(a\,b)}{C(a\,\cdot)}",
                                     rf"P({chips.latex_text(labels[b])} \mid {chips.latex_text(labels[a])}) = "
                                     rf"\frac{{{numbers.latex_grouped(int(table.counts[a][b]))}}}"
                                     rf"{{{numbers.latex_grouped(int(table.row_totals[a]))}}} = "
                                     rf"{numbers.latex(table.probs[a][b], 4)}",
                                     caption=_("Each row is a distribution over all V tokens; only the most frequent "
                                               "columns are drawn, so rows sum to less than 1."))
    contexts_table()

    st.subheader(_("First failure: the table cannot be filled"))
    growth = NGramModel.from_counts(counts, counts.max_order, "none").table_stats()
    charts.show(table_growth([r.order for r in growth], [r.seen for r in growth], [r.possible for r in growth],
                             title=_("Distinct n-grams seen vs V^n possible (V = {V})",
                                     V=numbers.grouped(counts.vocab_size))))
    table_size_numbers()

    st.subheader(_("Held-out cross-entropy: what a longer context buys"))
    held = page.run_engine(loaders.held_out, source, level, own_text)
    if held and not page.veiled(HELD_OUT):
        charts.show(held_out_lines([(r.n, smoothing_name(r.smoothing, HELD_OUT_K), r.bits) for r in held],
                                   title=_("Cross-entropy on the held-out 10% (lower is better)")))
        bits = {(r.n, r.smoothing): numbers.fixed(r.bits) if math.isfinite(r.bits) else "inf" for r in held}
        orders = sorted({r.n for r in held})
        tables.table(pd.DataFrame({smoothing_name(s, HELD_OUT_K): [bits.get((m, s)) for m in orders]
                                   for s in SMOOTHINGS},
                                  index=pd.Index(orders, name="n")), hide_index=False)
        st.markdown(_("Held-out cross-entropy in **bits per token** per n (rows) and smoothing (columns), the "
                      "numbers of the chart; inf: some held-out token got probability 0."))
        for sentence in held_out_sentences(held, HELD_OUT_K):
            st.markdown(sentence)
        held_out_numbers()
    best_kn = min((r for r in held if r.smoothing == "kneser-ney"), key=lambda r: r.nats) if held else None

    sparse = next((r for r in growth if r.fraction < 1e-3), None)
    code_and_challenges()

page.further_reading(PAGE.reading)
page.next_idea(__file__)
warmup.prefetch(warmup.NGRAMS)  # ui.warmup
