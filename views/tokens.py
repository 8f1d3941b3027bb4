"""Tokens & next-token prediction: any text as characters, words, BPE and GPT-2 tokens; then P(next token)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import limits, markup, numbers
from engine.chapter.tokens import (
    BPE_SOURCES, DEFAULT_TEXT, MERGE_STEP, PAGE, TOP_SHOWN, WITH_SMOLLM2, counts_reading, learned_bpe, prediction,
    tokenizer_names,
)
from engine.charts.bars import next_token_bars
from engine.charts.lines import tokens_vs_merges
from engine.charts.style import visible
from engine import i18n
from engine.i18n import N_, _, ngettext
from engine.language.corpus import ALL_PLAYS
from engine.language.code import tokens_code
from engine.language.ngram import SMOOTHING_NAMES, SMOOTHINGS
from engine.language.tokenizers import LEVEL_NAMES, LEVELS, WordTokenizer, fewest_merges_for, tokenize, tokens_by_merges
from ui import challenges, charts, chips, code, formula, loaders, page, pretrained_views, tables, url_state, warmup

CORPUS_BPE_CHARS = limits.TOKENS_BPE_TRAIN_CHARS
# the models of this page read English: their tokens and the example text stay as they are, in every language
READS_ENGLISH = N_("The n-gram counts Shakespeare's English plays, and GPT-2 and SmolLM2 were trained on English "
                   "text: the tokens and examples on this page stay in English.")
MAX_MERGES_SHOWN = limits.TOKENS_BPE_MERGES
P = PAGE.by_name


def other_distributions(prompt: str) -> dict[str, list[tuple[str, float]]]:
    """Next-token distributions of other models for the same prompt, drawn beside the n-gram's.

    {model name: [(token text, probability), ...]}: SmolLM2, a transformer trained on web text
    with its own subword tokens, when the toggle is on.
    """
    if not STATE.get("with_smollm2"):
        return {}
    return pretrained_views.next_token_pairs(prompt, TOP_SHOWN)


@st.cache_data(max_entries=256, show_spinner=False)
def merge_curve(source: str, merges: int, text: str, _bpe) -> tuple[list[int], list[int]]:
    """tokens_by_merges for the BPE that (source, merges, text) determine: two dozen encodings of the
    text, which a slider on the same tokenizer and text need not repeat."""
    return tokens_by_merges(_bpe, text)


def link_values() -> dict:
    """The page's link values as its session holds them now (what the spec's functions read)."""
    return {name: STATE[name] for name in P}


page.header(PAGE)
if not i18n.is_source():   # English pages say nothing: their readers read the models' language
    st.caption(_(READS_ENGLISH))

STATE = url_state.PageState(PAGE)
# sections that rerun alone (ui.page.section): the next-token prediction, watching BPE learn, and the code and
# challenges, which show the next-token settings too
NEXT, STEPS, TAIL = "tokens.next", "tokens.bpe_steps", "tokens.tail"
TOKENIZERS = "tokens.tokenizers"   # the four tokenizers' chips and table: veiled while a class predicts a count
STATE.init()

with st.sidebar:
    st.header(_("Next-token model"))
    st.radio(P["level"].label, LEVELS, key=STATE.key("level"), horizontal=True,
             format_func=lambda level: _(LEVEL_NAMES[level]), on_change=page.only(STATE, NEXT, TAIL))
    st.slider(P["n"].label, 1, limits.MAX_NGRAM_ORDER, key=STATE.key("n"), on_change=page.only(STATE, NEXT, TAIL))
    st.selectbox(P["smoothing"].label, SMOOTHINGS, key=STATE.key("smoothing"),
                 format_func=lambda name: _(SMOOTHING_NAMES[name]), on_change=page.only(STATE, NEXT, TAIL))
    st.header("BPE")
    st.slider(P["merges"].label, 0, MAX_MERGES_SHOWN, key=STATE.key("merges"), step=MERGE_STEP,
              help=P["merges"].help)
    st.radio(P["bpe_source"].label, BPE_SOURCES, key=STATE.key("bpe_source"), format_func=_)

# --- next-token prediction ---------------------------------------------------------------------------

@page.section(NEXT)
def next_token_prediction() -> None:
    """P(next token) after the context: what the sidebar's model settings, the context and the SmolLM2 switch
    change. Sets `predicted` (engine.chapter.tokens.Prediction) for the code and challenges section, which reruns
    with it."""
    global predicted
    st.subheader(_("Next-token prediction"))
    st.text_input(P["prompt"].label, key=STATE.key("prompt"), max_chars=limits.TOKENS_MAX_PROMPT_CHARS,
                  on_change=page.only(STATE, NEXT, TAIL))
    st.toggle(_(WITH_SMOLLM2), value=True, key=STATE.key("with_smollm2"))
    level = STATE["level"]
    predicted = page.run_engine(prediction, link_values(), loaders.tokenized(ALL_PLAYS, level, None)[0],
                                loaders.ngram_counts(ALL_PLAYS, level, None))
    shown = {}
    if predicted is not None:
        shown[_("{model}, Shakespeare", model=predicted.model.name)] = [(predicted.text(i), p)
                                                                       for i, p, _count in predicted.top]
    # SmolLM2 reads any text, cut into its own subword pieces: a word the plays never use refuses only the n-gram
    others = other_distributions(STATE["prompt"])
    shown.update(others)
    if shown:
        title = _("P(next token | '{context}')", context=STATE["prompt"][-40:])
        charts.show(next_token_bars(shown, title=title if len(shown) > 1 else f"{next(iter(shown))}: {title}"))
    if predicted is None and others:
        st.caption(_("Only the n-gram is refused: it knows only the plays' words. SmolLM2 cuts any word into subword "
                     "pieces it knows, so it still answers."))
    if predicted is not None:
        counting_formulas(predicted)


def counting_formulas(shown) -> None:
    """The chapter's plain counts for the most likely token, first; then what the smoothing does to them, its
    detail (Kneser-Ney's discounts and shorter contexts) folded for a second read."""
    distribution, model, tokenizer = shown.distribution, shown.model, shown.tokenizer
    smoothing = model.smoothing
    pieces = [visible(shown.text(i)) for i in distribution.context]
    best_id, best_p, best_count = shown.top[0]
    best = chips.latex_text(shown.text(best_id))
    S = distribution.context_count
    where = (ngettext("c = the last {n} token, the longest context the corpus has seen",
                      "c = the last {n} tokens, the longest context the corpus has seen", distribution.order_used - 1)
             if distribution.order_used > 1 else _("c = no context at all: each token by its own count"))
    if S:   # the chapter's estimate: how often w followed c, over how often c was followed by anything
        formula.formula_with_numbers(
            r"P(w \mid c) = \frac{C(c\,w)}{C(c\,\cdot)}",
            rf"P({best} \mid c) = \frac{{{best_count}}}{{{S}}} = {numbers.latex(best_count / S)}",
            caption=_("{where}. {counts}", where=where, counts=counts_reading(shown))
                    + (" " + _("Tokens never seen after it get probability 0.") if smoothing == "none" else ""))
    if smoothing == "add-k":
        formula.formula_with_numbers(
            r"P = \frac{C(c\,w) + k}{C(c\,\cdot) + kV}",
            rf"P({best} \mid c) = \frac{{{best_count} + 1}}{{{S} + {numbers.latex_grouped(tokenizer.vocab_size)}}} = "
            rf"{numbers.latex(best_p, 4)}",
            caption=_("The bars add k = 1 (Laplace) to the counts: every one of the V = {V} tokens gets one imaginary "
                      "count, which is why the seen tokens keep so little.",
                      V=numbers.grouped(tokenizer.vocab_size)))
    elif smoothing == "kneser-ney":
        st.markdown(_("The bars smooth these counts (Kneser-Ney), so that a token never seen after c keeps a little "
                      "probability: the most likely token gets **{p}** where the plain counts give {plain}.",
                      p=numbers.fixed(best_p), plain=numbers.fixed(best_count / S)) if S else
                    _("The bars smooth these counts (Kneser-Ney), so that a token never seen after c keeps a little "
                      "probability: the most likely token gets **{p}**.", p=numbers.fixed(best_p)))
        box = page.folded(_("How Kneser-Ney smooths the counts: discounts and shorter contexts"), "tokens.kneser_ney",
                          icon=":material/functions:")
        if box.open:
            with box:
                mixture = model.mixture(list(distribution.context))
                parts = [(markup.quoted(" ".join(pieces[len(pieces) - (c.order - 1):])) if c.order > 1 else
                          (_("no context (continuation counts)") if c.order == 1 else _("uniform 1/V")), c.weight)
                         for c in mixture.components]
                formula.formula_with_numbers(
                    r"P = \hat P_c + \gamma_c\, P_{c'}",
                    rf"P({best} \mid c) = {numbers.latex(best_p)}",
                    caption=_("Kneser-Ney: P-hat_c(w) = max(C(c w) - D, 0) / C(c .) keeps most of the counts, and "
                              "the share gamma_c taken off them goes to the shorter context c', so unseen tokens "
                              "still get some; at the shortest, a token counts by how many different tokens it "
                              "follows (continuation counts). Shares of this prediction: {shares}.",
                              shares="; ".join(f"{name}: {numbers.fixed(weight)}" for name, weight in parts)))


next_token_prediction()

# --- tokens: what the model reads ----------------------------------------------------------------
st.subheader(_("What exactly is a token?"))
st.text_area(P["text"].label, key=STATE.key("text"), height=90, max_chars=limits.MAX_TOKENIZE_CHARS,
             help=P["text"].help)
STATE.mirror()
text = STATE["text"]
merges = int(STATE["merges"])

# --- the four tokenizers -------------------------------------------------------------------------
char_vocab = loaders.corpus_characters()
words_vocab = loaders.tokenized(ALL_PLAYS, "words", None)[0]
bpe = page.run_engine(learned_bpe, link_values(), loaders.corpus_bpe(MAX_MERGES_SHOWN, CORPUS_BPE_CHARS))
gpt2 = loaders.gpt2_tokenizer()

rows = []
tokenizations = {}
hidden = page.veiled(TOKENIZERS)   # a class's open question asks what these show: predict first
NOTES = (N_("one token per character of the corpus's alphabet"),
         N_("words and punctuation of the corpus; a dashed chip is a word it never uses (<unk>, id 0)"),
         N_("bytes, merged pair by pair in the order learned"), N_("GPT-2's own 50,000 merges (the real thing)"))
for label, tokenizer, note in zip(tokenizer_names(merges), (char_vocab, words_vocab, bpe, gpt2), NOTES):
    if not hidden:
        st.markdown(_("**{title}**: {line}", title=label, line=_(note)))
    where = st.container()
    result = page.run_engine(tokenize, tokenizer, text, where=where) if tokenizer is not None else None
    if result is not None:
        tokenizations[label] = result
        if not hidden:
            chips.token_chips(result.tokens, result.ids, result.unknown_id)
        rows.append((label, result.vocab_size, len(result.ids), round(result.characters_per_token, 2)))

if rows and not hidden:
    columns = [_("tokenizer"), _("vocabulary size V"), _("tokens for your text"), _("characters per token")]
    tables.table(pd.DataFrame(rows, columns=columns), formats={columns[1]: "localized", columns[3]: "%.2f"})
    st.caption(_("Among subword tokenizers, a bigger vocabulary spends fewer tokens on the same text; whole words "
                 "are cheaper still, but cannot spell a word they never saw. Fewer tokens: the model's context "
                 "holds more words, at the price of a larger table of token vectors (V rows)."))

# --- watching BPE learn ----------------------------------------------------------------------------

@page.section(STEPS)
def watch_bpe_learn() -> None:
    """The text after each merge: its slider reruns only this. The BPE and the text come from the last full
    run (the merges, their source and the text rerun the whole page)."""
    st.subheader(_("Watch BPE learn"))
    learned = len(bpe.merges)
    step = st.slider(_("Show your text after merge number"), 0, learned, value=learned, key=STATE.key("step"),
                     disabled=learned == 0) if learned else 0
    stepped = bpe.truncated(step)
    result = page.run_engine(tokenize, stepped, text)
    if result is not None:
        curve = dict(zip(*merge_curve(STATE["bpe_source"], merges, text, bpe))) | {step: len(result.ids)}
        marks, counts = sorted(curve), [curve[m] for m in sorted(curve)]
        charts.show(tokens_vs_merges(marks, counts, step, title=_("Tokens your text takes as merges are learned")))
        chips.token_chips(result.tokens, result.ids)
        if step:
            recent = bpe.merges[max(0, step - 8):step]
            table = [(m.rank + 1, visible(bpe.merge_text(m)[0]), visible(bpe.merge_text(m)[1]),
                      visible(bpe.merge_text(m)[2]), m.new_id, m.count) for m in recent]
            columns = [_("merge #"), _("left"), _("right"), _("new token"), _("new id"), _("pair count when learned")]
            tables.table(pd.DataFrame(table, columns=columns), formats={columns[-1]: "localized"})
            last = recent[-1]
            formula.formula_with_numbers(
                r"\arg\max_{a,b}\, C(a\,b)",
                _(r"\text{{merge {step}: }}({left},{right}) \text{{ seen }} {count} \text{{ times}}", step=step,
                  left=chips.latex_text(bpe.merge_text(last)[0]), right=chips.latex_text(bpe.merge_text(last)[1]),
                  count=last.count)
                if last.count is not None else _(r"\text{merge read from a file}"),
                caption=_("C(a b) counts token a followed by token b in the training text: join the most frequent "
                          "pair into a new token, repeat. Bytes first, so any text can be encoded."))


GPT2 = tokenizer_names(merges)[-1]
text_ok = GPT2 in tokenizations  # GPT-2 encodes any text, so this fails only for empty or long text
if bpe is not None and text_ok:
    watch_bpe_learn()

# --- show the code, challenges ---------------------------------------------------------------------------
gpt2_result = tokenizations.get(GPT2)
bpe_result = tokenizations.get(tokenizer_names(merges)[2])
# the fewest merges (in the slider's steps) that spell ' the' as one token in this text, with these merges' source
fewest_the = fewest_merges_for(bpe, text, " the", MERGE_STEP) if bpe is not None and bpe_result is not None else None
split_word = None
if gpt2_result is not None:
    for word in sorted(set(WordTokenizer.from_text(text).vocabulary[1:])):
        if word.isalpha() and len(gpt2.encode(" " + word)) >= 3:
            split_word = word
            break


@page.section(TAIL)
def code_and_challenges() -> None:
    """The code and the challenges: they rerun with the next-token section (its settings show here, and
    `predicted` is the one it just made). The text and the BPE come from the last full run."""
    if predicted is not None:
        code.show_code({"Python": tokens_code(STATE["level"], int(STATE["n"]), STATE["smoothing"], STATE["prompt"],
                                              text, model=predicted.model, tokenizer=predicted.tokenizer, gpt2=gpt2)})

    challenges.try_this([
        challenges.Challenge(_("Type a word that GPT-2 cuts into three or more tokens (try a rare or made-up "
                               "word)."),
                             done=split_word is not None,
                             hint=_("Long rare words such as 'honorificabilitudinitatibus' fall apart."),
                             solution={STATE.key("text"): "honorificabilitudinitatibus"}),
        challenges.Challenge(_("Find the fewest merges (in the slider's steps of 10) at which our BPE spells ' the' "
                               "as one token in your text."),
                             done=fewest_the is not None and merges == fewest_the,
                             hint=_("Slide '{slider}' to 0, then up one step at a time, and stop as soon as ' the' is "
                                    "one chip in the BPE row (drawn ␣the: ␣ is the space).",
                                    slider=P["merges"].label),
                             solution={STATE.key("merges"): fewest_merges_for(
                                 loaders.corpus_bpe(MAX_MERGES_SHOWN, CORPUS_BPE_CHARS), DEFAULT_TEXT, " the",
                                 MERGE_STEP)}),
        challenges.Challenge(_("Find a context whose most likely next token has probability above {half}.",
                               half=numbers.fixed(0.5, 1)),
                             done=predicted is not None and predicted.top[0][1] > 0.5,
                             hint=_("Set phrases leave few possibilities: type 'Good my' as the context."),
                             solution={STATE.key("prompt"): "Good my"}),
    ])


code_and_challenges()

page.further_reading(PAGE.reading)
page.next_idea(__file__)
warmup.prefetch(warmup.NGRAMS)  # ui.warmup
