"""Tokens & next-token prediction: the page's spec, its examples, what it computes from its link, and its questions.

Every value the page's link carries is a Param below (default, parser, label); `prediction(values, ...)` is the
next-token distribution the page draws for those values, `counts_reading` the sentence that reads its counts, and
`learned_bpe(values, ...)` the BPE its tokenizer rows use, so the Streamlit page, the Gradio tab and the class questions
compute the same numbers from the same link. The heavy objects (the plays' tokenizer and counts, GPT-2's merges)
are passed in: each front end brings them from its own loaders. The spec itself (PAGE) closes the file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from engine import limits, markup, numbers
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, one_of, text
from engine.charts.style import visible
from engine.classroom.questions import TIE_TOLERANCE, _has_word, _quote, _top_choice
from engine.classroom.store import Question
from engine.i18n import N_, _, ngettext
from engine.language.corpus import ALL_PLAYS
from engine.language.ngram import SMOOTHINGS, Distribution, NGramModel, prompt_ids
from engine.language.tokenizers import LEVEL_NAMES, LEVELS, BPETokenizer, token_text, train_bpe

# The chapter's example: the model predicts what follows the start of the rhyme, and the text to cut is the rhyme.
DEFAULT_PROMPT = "Mary had a little"
DEFAULT_TEXT = (f"{DEFAULT_PROMPT} lamb, its fleece was white as snow; and everywhere that Mary went, "
                "the lamb was sure to go.")
# where the BPE learns its merges: link values, in English; shown through _()
BPE_SOURCES = (N_("the corpus (first 100,000 characters)"), N_("the text above"))
MERGE_STEP = 10        # the merges slider's step
TOP_SHOWN = 10         # the next-token bars: the likeliest this many (a question picks its options among them)
WITH_SMOLLM2 = N_("Beside it: SmolLM2-135M, a transformer trained on web text (its own tokens; loads once)")
SMOLLM2_NAME = "SmolLM2-135M"   # a model's name, as written in every language


def smollm2_series() -> str:
    """SmolLM2 named as a chart's series beside other models: its name as written, what it read in the reader's
    language."""
    return _("{model}, web text", model=SMOLLM2_NAME)


def tokenizer_names(merges: int) -> tuple[str, str, str, str]:
    """The page's four tokenizers, in its order, as both front ends name them (in the reader's language)."""
    return _("Characters"), _("Words"), _("BPE, {merges} merges", merges=merges), "GPT-2 BPE"


def learned_bpe(values: Mapping[str, Any], corpus_bpe: BPETokenizer) -> BPETokenizer:
    """The page's BPE: the corpus's (`corpus_bpe`, its TOKENS_BPE_MERGES merges) cut to the link's merges, or one
    learned from the link's text. ValueError for a text the trainer cannot read."""
    merges = int(values["merges"])
    if values["bpe_source"] == BPE_SOURCES[0]:
        return corpus_bpe.truncated(merges)
    return train_bpe(values["text"], merges)


# --- the next-token prediction ------------------------------------------------------------------------------

def checked_prompt(prompt: str) -> str:
    """The context as the page reads it: at most TOKENS_MAX_PROMPT_CHARS characters, else a sentence."""
    if len(prompt) > limits.TOKENS_MAX_PROMPT_CHARS:
        raise ValueError(_("The context has {size} characters; the page predicts after at most {limit}. Keep the "
                           "last words that matter.", size=numbers.grouped(len(prompt)),
                           limit=limits.TOKENS_MAX_PROMPT_CHARS))
    return prompt


@dataclass(frozen=True)
class Prediction:
    """What the page shows for a context: the n-gram model, its distribution after the context, and the bars
    (the TOP_SHOWN likeliest tokens as (id, P, count), likeliest first)."""
    model: NGramModel
    tokenizer: Any
    distribution: Distribution
    top: list[tuple[int, float, int]]

    def text(self, token_id: int) -> str:
        """What a token id spells."""
        return token_text(self.tokenizer, token_id)


def prediction(values: Mapping[str, Any], tokenizer, counts) -> Prediction:
    """P(next token | the context) from the n-gram of the plays at the link's level, n and smoothing. `tokenizer`
    and `counts` are the plays' at that level. ValueError for a context too long, or with a word the plays never
    use."""
    context = prompt_ids(tokenizer, checked_prompt(values["prompt"]))
    model = NGramModel.from_counts(counts, int(values["n"]), values["smoothing"], tokenizer=tokenizer)
    distribution = model.distribution(context)
    return Prediction(model, tokenizer, distribution, distribution.top(TOP_SHOWN))


def counts_reading(shown: Prediction) -> str:
    """The counts behind the likeliest next token, as both front ends say them: how often the context the model
    used was followed by anything, and by that token."""
    found = shown.distribution
    best_id, _best_p, best_count = shown.top[0]
    best = markup.quoted(visible(shown.text(best_id)))
    pieces = [visible(shown.text(i)) for i in found.context]
    if found.order_used > 1:
        context = markup.quoted(" ".join(pieces[len(pieces) - (found.order_used - 1):]))
        return _("Counted on the training split of all 38 plays: the context {context} was followed {total} times by "
                 "some token (order {order}), {count} times by {best}, the likeliest next token.", context=context,
                 total=numbers.grouped(found.context_count), order=found.order_used,
                 count=numbers.grouped(best_count), best=best)
    if found.order_used == 1:
        return _("Counted on the training split of all 38 plays: no context (order 1): {count} of its {total} tokens "
                 "are {best}, the likeliest next token.", count=numbers.grouped(best_count),
                 total=numbers.grouped(found.context_count), best=best)
    return _("Counted on the training split of all 38 plays: the context {context} never appears there, so add-k "
             "gives every token the same probability.", context=markup.quoted(" ".join(pieces)))


# --- the class's questions ---------------------------------------------------------------------------------

def likeliest_next_token(link: Mapping[str, str], sources) -> Question:
    """Which token the page's bars put first, among the words of its ten bars (the leaders within the printed
    precision tie)."""
    values = PAGE.values(link)
    level, n, prompt = values["level"], values["n"], values["prompt"]
    shown = prediction(values, sources.tokenized(ALL_PLAYS, level, None)[0],
                       sources.ngram_counts(ALL_PLAYS, level, None))
    texts = {i: shown.text(i) for i, _, _ in shown.top}
    best_p = shown.top[0][1]
    tied = [s for s in shown.top if s[1] >= best_p - TIE_TOLERANCE]     # the page prints 3 decimals: these tie
    rest = sorted((s for s in shown.top if s not in tied), key=lambda s: (not _has_word(texts[s[0]]), -s[1]))
    picked = (tied + rest)[:max(4, min(len(tied) + 1, 5))]                # words before punctuation among the rest
    if sum(_has_word(texts[i]) for i, _, _ in picked) < 2:
        raise ValueError(_("After {prompt} the {n}-gram model's likeliest tokens are punctuation marks: no question "
                           "worth asking about them.", prompt=_quote(prompt[-60:]), n=n))
    picked.sort(key=lambda s: texts[s[0]])                                # alphabetical: the best is not always first
    options, answer, leaders = _top_choice([_quote(texts[i]) for i, _, _ in picked], [p for _, p, _ in picked],
                                           keep=len(picked), tolerance=TIE_TOLERANCE)
    best = picked[leaders[0]]
    return Question("tokens", _("After {prompt}, which next token does the {n}-gram model ({level}, counted on "
                                "Shakespeare) rank first?", prompt=_quote(prompt[-60:]), n=n,
                                level=_(LEVEL_NAMES[level])), options, answer,
                    _("P({token}) = {p}, the largest; the bars on the page show the {shown} best.",
                      token=_quote(texts[best[0]]), p=numbers.fixed(best[1]), shown=len(shown.top)),
                    veils=("tokens.next", "tokens.tail"))


def gpt2_pieces(link: Mapping[str, str], sources) -> Question:
    """Into how many GPT-2 tokens the text's most cut-up word falls (the page's GPT-2 row shows it)."""
    words = re.findall(r"[A-Za-z]+", PAGE.values(link)["text"])
    if not words:
        raise ValueError(_("The text has no word made of letters to ask about."))
    gpt2 = sources.gpt2_tokenizer()
    split = {word: gpt2.tokens(" " + word) for word in dict.fromkeys(words)}
    word = max(split, key=lambda w: (len(split[w]), len(w)))        # the word cut into most pieces, then longest
    pieces = split[word]
    count = len(pieces)
    top = max(4, count)
    options = tuple(str(i) for i in range(top - 3, top + 1))
    return Question("tokens", _("Into how many GPT-2 tokens does GPT-2 cut ' {word}' (with the space before it)?",
                                word=word),
                    options, options.index(str(count)),
                    ngettext("GPT-2 spells it as {n} token: {pieces}.", "GPT-2 spells it as {n} tokens: {pieces}.",
                             count, pieces=" | ".join(_quote(p) for p in pieces)),
                    veils=("tokens.tokenizers", "tokens.tail"))


PAGE = PageSpec(
    key="tokens", url="tokens", view="tokens",
    title=N_("Tokens & next-token prediction"),
    question=N_("What does a language model predict, and what exactly is a token?"),
    one_line=N_("Cut any text into characters, words, BPE and GPT-2 tokens; then see P(next token) for "
                "'Mary had a little'."),   # DEFAULT_PROMPT
    icon=":material/token:",
    params=(
        Param("text", DEFAULT_TEXT, text(limits.MAX_TOKENIZE_CHARS), label=N_("Your text"),
              help=N_("Type anything: every tokenizer below cuts it up as you go.")),
        Param("merges", 200, between(0, limits.TOKENS_BPE_MERGES), label=N_("Merges to learn"),
              help=N_("Each merge joins the most frequent adjacent pair of tokens into one new token.")),
        Param("bpe_source", BPE_SOURCES[0], one_of(BPE_SOURCES), label=N_("Learn the merges from")),
        Param("level", "words", one_of(LEVELS), label=N_("Token level")),
        Param("n", 3, between(1, limits.MAX_NGRAM_ORDER), label=N_("n (the model sees the n-1 tokens before)")),
        Param("smoothing", "kneser-ney", one_of(SMOOTHINGS), label=N_("Smoothing")),
        Param("prompt", DEFAULT_PROMPT, text(limits.TOKENS_MAX_PROMPT_CHARS), label=N_("Context (the text so far)")),
    ),
    questions=(likeliest_next_token, gpt2_pieces),
    reading=(references.SENNRICH_2016,
             references.RADFORD_2019,
             references.JURAFSKY_MARTIN_3,
             references.CME_295.on("lecture 1: tokens and language models")),
)
