"""Tokens & next-token prediction (views/tokens.py) in the Gradio Space: the same spec (engine.chapter.tokens: defaults,
labels, limits, the sentence that reads the counts) and the same computations from it, `prediction` and
`learned_bpe`."""
from __future__ import annotations

import html
from typing import Any, Mapping

import gradio as gr

from engine import limits, markup, numbers
from engine.i18n import _, ngettext, pgettext
from engine.chapter.tokens import (
    BPE_SOURCES, MERGE_STEP, PAGE, TOP_SHOWN, WITH_SMOLLM2, counts_reading, learned_bpe, prediction, smollm2_series,
    tokenizer_names,
)
from engine.charts.bars import next_token_bars
from engine.charts.style import visible
from engine.language.ngram import SMOOTHING_NAMES, SMOOTHINGS
from engine.language.tokenizers import LEVEL_NAMES, LEVELS, check_typed_text, tokenize
from gradio_tabs import loaders
from engine.i18n import N_
from gradio_tabs.common import (
    choices, engine_call, heading, help_of, label_of, plot, question, refuse, results, say, table, whole,

)

P = PAGE.by_name


def _tokenizers(values: Mapping[str, Any]) -> list[tuple[str, object]]:
    """The page's four tokenizers, in its order, named as it names them; a BPE learned from the text itself may
    refuse it."""
    bpe = learned_bpe(values, loaders.corpus_bpe())
    return list(zip(tokenizer_names(int(values["merges"])),
                    (loaders.corpus_characters(), loaders.tokens("words")[0], bpe, loaders.gpt2())))


def _chips(tokens: list[str], ids: list[int], unknown_id: int | None) -> str:
    """Tokens as chips (HTML code spans): spaces as '␣', a word the corpus never uses struck through; in the text's
    order left to right in every language (an Arabic page would run them right to left)."""
    return '<span dir="ltr">' + " ".join(f"<code>{'<s>' if i == unknown_id else ''}{html.escape(visible(t))}"
                                         f"{'</s>' if i == unknown_id else ''}</code>"
                                         for t, i in zip(tokens, ids)) + "</span>"


def tokenized_from_link(values: Mapping[str, Any]):
    """The tokenize endpoint's outputs for a page's typed link values: one summary row per tokenizer, one row per
    token, and the tokens as chips. A tokenizer that cannot read the text (a character the plays never use) gets
    its sentence in the summary; the others go on."""
    text = engine_call(check_typed_text, values["text"])
    overview, rows, chips = [], [], []
    for label, tokenizer in engine_call(_tokenizers, values):
        try:
            result = tokenize(tokenizer, text)
        except ValueError as error:
            overview.append((label, tokenizer.vocab_size, None, None, str(error)))
            chips.append(f"**{label}**: {markup.markdown(error)}")
            continue
        overview.append((label, result.vocab_size, len(result.ids), round(result.characters_per_token, 2), ""))
        rows += [(label, t, visible(token), i) for t, (token, i) in enumerate(zip(result.tokens, result.ids))]
        counted = ngettext("{n} token", "{n} tokens", len(result.ids), n=numbers.grouped(len(result.ids)))
        chips.append(f"**{label}** ({counted}): {_chips(result.tokens, result.ids, result.unknown_id)}")
    return (table(overview, [_("tokenizer"), _("vocabulary size V"), _("tokens for your text"),
                             _("characters per token"), _("note")]),
            table(rows, [_("tokenizer"), _("position"), _("token"), pgettext("a token's number", "id")]),
            "\n\n".join(chips))


def predicted_from_link(values: Mapping[str, Any], with_smollm2: bool = False):
    """The next_token endpoint's outputs for a page's typed link values: the bars' rows, the bars, and the page's
    sentence about the counts (with the likeliest token's P), SmolLM2's bars beside when asked."""
    level = values["level"]
    shown = engine_call(lambda: prediction(values, loaders.tokens(level)[0], loaders.counts(level)))
    name = _("{model}, Shakespeare", model=shown.model.name)
    rows = [(name, visible(shown.text(i)), round(p, 4), count) for i, p, count in shown.top]
    bars = {name: [(shown.text(i), p) for i, p, _ in shown.top]}
    prompt = values["prompt"]
    note = ""
    if with_smollm2:
        try:
            from engine.pretrained import smollm2 as pretrained

            found = pretrained.next_token_distribution(prompt, TOP_SHOWN, model=loaders.smollm2())
            pairs = list(zip(found.tokens, map(float, found.probabilities)))
            bars[smollm2_series()] = pairs
            rows += [(smollm2_series(), visible(token), round(p, 4), None) for token, p in pairs]
        except ValueError as error:            # the n-gram's answer stands; say why SmolLM2's is missing
            note = f" SmolLM2: {markup.markdown(error)}"
    summary = f"**{name}**. {counts_reading(shown)} P = {numbers.fixed(shown.top[0][1])}.{note}"
    chart = next_token_bars(bars, title=_("P(next token | '{context}')", context=prompt[-40:]))
    # P with 3 decimals, as the bars beside it and the sentence write it (an API caller reads the 4 it is rounded to)
    return table(rows, [_("model"), _("token"), "P", _("count")],
                 formats={"P": "%.3f"}), plot(chart), summary


def from_link(values: Mapping[str, Any], with_smollm2: bool = False):
    """The tab's outputs for a page's typed link values (PAGE.values): the next-token endpoint's (rows, bars,
    sentence), then the tokenize endpoint's (overview, tokens, chips)."""
    return (*predicted_from_link(values, with_smollm2), *tokenized_from_link(values))


def tokenize_tab(text: str, merges: float, bpe_source: str):
    """The text cut by characters, words, BPE (`merges` merges) and GPT-2's BPE."""
    if bpe_source not in BPE_SOURCES:
        refuse(_("Learn the BPE merges from one of: {sources}.", sources="; ".join(BPE_SOURCES)))
    values = PAGE.defaults() | {"text": text if isinstance(text, str) else "", "bpe_source": bpe_source,
                                "merges": whole(merges, 0, limits.TOKENS_BPE_MERGES, _("number of merges"))}
    return tokenized_from_link(values)


def next_token_tab(prompt: str, level: str, n: float, smoothing: str, with_smollm2: bool):
    """P(next token | the prompt) from an n-gram of the plays at a token level, beside SmolLM2's when asked."""
    values = PAGE.defaults() | {"prompt": prompt if isinstance(prompt, str) else "", "level": level,
                                "n": whole(n, 1, limits.MAX_NGRAM_ORDER, _("order n")), "smoothing": smoothing}
    return predicted_from_link(values, bool(with_smollm2))


def tokens_tab(demo: gr.Blocks) -> None:
    question(PAGE.question,
             N_("First the prediction: P(next token) after a context, from counts of the 38 plays (and from "
                "SmolLM2, a transformer trained on web text). Then the tokens themselves, four ways."))
    with gr.Row():
        prompt = gr.Textbox(P["prompt"].default, label=label_of(P["prompt"]), max_length=limits.TOKENS_MAX_PROMPT_CHARS,
                            scale=3)
        level = gr.Radio(choices({level: LEVEL_NAMES[level] for level in LEVELS}), value=P["level"].default,
                         label=label_of(P["level"]))
    with gr.Row():
        n = gr.Slider(1, limits.MAX_NGRAM_ORDER, value=P["n"].default, step=1, label=label_of(P["n"]))
        smoothing = gr.Dropdown(choices({s: SMOOTHING_NAMES[s] for s in SMOOTHINGS}), value=P["smoothing"].default,
                                label=label_of(P["smoothing"]))
        with_smollm2 = gr.Checkbox(True, label=say(WITH_SMOLLM2))
    predict = gr.Button(say("Predict the next token"), variant="primary")
    predict.click(next_token_tab, [prompt, level, n, smoothing, with_smollm2],
                  results(say("P(next token)"), say("The likeliest next tokens")), api_name="next_token")

    heading(N_("What exactly is a token?"))
    text = gr.Textbox(P["text"].default, label=label_of(P["text"]), info=help_of(P["text"]), lines=3,
                      max_length=limits.MAX_TOKENIZE_CHARS)
    with gr.Row():
        merges = gr.Slider(0, limits.TOKENS_BPE_MERGES, value=P["merges"].default, step=MERGE_STEP,
                           label=label_of(P["merges"]), info=help_of(P["merges"]))
        source = gr.Radio(choices({source: source for source in BPE_SOURCES}), value=P["bpe_source"].default,
                          label=label_of(P["bpe_source"]))
    cut = gr.Button(say("Tokenize"), variant="primary")
    chips = gr.Markdown(label=say("summary"))
    overview = gr.Dataframe(label=say("Each tokenizer on your text"))
    pieces = gr.Dataframe(label=say("Every token, in order"), max_height=300)

    cut.click(tokenize_tab, [text, merges, source], [overview, pieces, chips], api_name="tokenize")
    demo.load(tokenize_tab, [text, merges, source], [overview, pieces, chips], api_visibility="private")
