"""Prediction questions about the example on screen, one to three per page, answered by the engine.

A teacher clicks "Ask the class" on a page; the page's state (its link's values, `{"n": "3", ...}`)
goes to `questions_for(page, values, sources)`, which builds each question from those values and
computes its answer with the same engine functions the page calls, never a hand-typed one. Students
predict, then the reveal shows the page's own chart that explains the answer.

`sources` gives the heavy objects and the cached results a page already computed: the Streamlit app
passes its `ui.loaders` module (one cache per server), a notebook or a test passes `EngineSources()`,
which loads the same things straight from the engine. Both answer the same calls
(`sources.ngram_counts(source, level, own_text)`, `sources.pretrained_head_effects(name, text, target,
mode)`, ...), so a question never loads a model the page has not.

Options come in a natural order (positions, numbers, names), not best first; where the engine's
numbers tie at the top, "two or more tie" is an option and may be the answer. A question reads exactly what its
page shows: the page's own settings (temperature, length, seed, the estimate the page draws rather than an exact
scan it does not), options as the page prints them (numbers closer than its printed precision tie), and options
worth telling apart (never a choice between punctuation marks alone).

Each question names the parts of its page that give its answer away (`Question.veils`: ui.page.section keys, or
the keys pages give the parts drawn outside a section): a class veils them for students and on the projector until
the reveal. Building a page's questions takes at most a couple of seconds once the page's models are loaded
(bench/class_questions.py measures every page).
"""
from __future__ import annotations

import functools
import math
import re
from typing import Callable, Mapping, Sequence

import numpy as np

from engine import limits
from engine.classroom.store import Question

Values = Mapping[str, str]
TIE = "Two or more tie for first"
TIE_TOLERANCE = 5e-4          # weights shown to 3 decimals: closer than this reads as the same number
BITS_TIE = 0.01               # held-out bits closer than this are the same for any use: the question says so
LOOP_MIN_TOKENS = {"characters": 16, "words": 8, "BPE": 10}   # a repeat at least this long counts as a loop
VARIETY_TAUS = (0.2, 1.0, 1.8)            # the Generate page's question compares these, the page's own in one's place
MAX_LABEL = 40                                                 # characters of a token or text quoted in an option
NEXT_TOKENS_SHOWN = 10        # the bars of the Tokens page (views/tokens.py): a question picks its options there
SHIPPED = "shipped transformer"                                # the Generate page's models, as its link names them
GENERATE_NGRAMS = {"2-gram": 2, "3-gram": 3, "4-gram": 4, "5-gram": 5}


# --- reading the link's values ---------------------------------------------------------------------

def _text(values: Values, name: str, default: str) -> str:
    value = values.get(name)
    return default if value is None else str(value)


def _int(values: Values, name: str, default: int) -> int:
    try:
        return int(float(values[name]))
    except (KeyError, TypeError, ValueError):
        return default


def _float(values: Values, name: str, default: float) -> float:
    try:
        value = float(values[name])
    except (KeyError, TypeError, ValueError):
        return default
    return value if math.isfinite(value) else default


def _bool(values: Values, name: str, default: bool) -> bool:
    raw = str(values.get(name, "")).strip().lower()
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    return default


def _quote(text: str) -> str:
    """A token or text as an option shows it: quoted, spaces kept visible, cut to MAX_LABEL."""
    shown = text.replace("\n", "\u21b5")
    if len(shown) > MAX_LABEL:
        shown = shown[:MAX_LABEL - 1] + "\u2026"
    return f"'{shown}'"


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.3f}"


def _top_choice(labels: Sequence[str], scores: Sequence[float], *, keep: int = 4,
                tolerance: float = 0.0) -> tuple[tuple[str, ...], int, list[int]]:
    """Options for "which one scores highest?": the `keep` best (in their given order), plus TIE when
    they are more than two; the answer (TIE's index when the best are within `tolerance`), and the
    indices of the leaders."""
    values = np.asarray(scores, dtype=float)
    best = float(values.max())
    leaders = [i for i in range(len(values)) if values[i] >= best - tolerance]
    ranked = sorted(range(len(values)), key=lambda i: (-values[i], i))
    kept = sorted(ranked[:keep])                                     # the leaders come first in `ranked`
    options = [labels[i] for i in kept]
    with_tie = len(kept) > 2 or len(leaders) > 1
    if with_tie:
        options.append(TIE)
    answer = len(options) - 1 if len(leaders) > 1 else kept.index(leaders[0])
    return tuple(options), answer, leaders


def _has_word(text: str) -> bool:
    """Whether a token holds a letter or a digit (not only punctuation or spaces)."""
    return any(ch.isalnum() for ch in text)


def _numbers(correct: int, wrong: Sequence[int]) -> tuple[tuple[str, ...], int]:
    """The right count and the computed wrong ones (distinct, positive), smallest first."""
    choices = sorted({int(correct), *(int(w) for w in wrong if int(w) > 0)})
    return tuple(_number(c) for c in choices), choices.index(int(correct))


# --- where heavy things come from ------------------------------------------------------------------

class EngineSources:
    """The heavy objects and results questions read, loaded straight from the engine (a notebook, a test).
    The app passes `ui.loaders` instead, whose functions have these names and arguments and share the
    pages' caches."""

    @functools.lru_cache(maxsize=None)
    def tokenized(self, source: str, level: str, own_text: str | None):
        from engine.machinery import prepare
        from engine.language.corpus import ALL_PLAYS, source_split
        from engine.language.tokenizers import id_array, tokenizer_for

        if source == ALL_PLAYS and own_text is None:
            return prepare.corpus_tokens(level)
        train, validation = source_split(source, own_text)
        tokenizer = tokenizer_for(level, train, validation)
        return (tokenizer, id_array(tokenizer.encode(train), tokenizer.vocab_size),
                id_array(tokenizer.encode(validation), tokenizer.vocab_size))

    @functools.lru_cache(maxsize=None)
    def ngram_counts(self, source: str, level: str, own_text: str | None):
        from engine.machinery import prepare
        from engine.language.corpus import ALL_PLAYS
        from engine.language.ngram import count_ngrams

        if source == ALL_PLAYS and own_text is None:
            return prepare.corpus_counts(level)
        tokenizer, train, _ = self.tokenized(source, level, own_text)
        return count_ngrams(train, min(limits.MAX_NGRAM_ORDER, max(train.size, 1)), tokenizer.vocab_size)

    @functools.lru_cache(maxsize=None)
    def held_out(self, source: str, level: str, own_text: str | None):
        from engine.machinery import prepare
        from engine.language.corpus import ALL_PLAYS
        from engine.language.ngram import held_out_rows

        if source == ALL_PLAYS and own_text is None:
            return prepare.corpus_held_out(level)
        counts = self.ngram_counts(source, level, own_text)
        return held_out_rows(counts, self.tokenized(source, level, own_text)[2], range(1, counts.max_order + 1))

    @functools.lru_cache(maxsize=None)
    def gpt2_tokenizer(self):
        from engine.language.tokenizers import gpt2_tokenizer

        return gpt2_tokenizer()

    @functools.lru_cache(maxsize=None)
    def glove(self):
        from engine.machinery.prepare import glove

        return glove()

    @functools.lru_cache(maxsize=None)
    def _model(self, name: str):
        from engine.pretrained import smollm2 as pretrained

        models = pretrained.available_models()
        if name not in models:
            raise ValueError(f"There is no model called {name!r} here.")
        return pretrained.load(models[name])

    @functools.lru_cache(maxsize=None)
    def pretrained_heads(self, name: str, text: str, max_tokens: int):
        return self._model(name).forward_text(text, max_tokens=max_tokens, all_logits=False)

    @functools.lru_cache(maxsize=None)
    def pretrained_head_types(self, name: str, text: str, max_tokens: int):
        from engine.interpret import heads
        from engine.machinery import prepare
        from engine.pretrained import smollm2 as pretrained

        result = self.pretrained_heads(name, text, max_tokens)
        return heads.score_heads(result.weights, result.ids,
                                 induction=prepare.induction_scores(pretrained.available_models()[name]))

    @functools.lru_cache(maxsize=None)
    def pretrained_head_effects(self, name: str, text: str, target: str, mode: str):
        from engine.interpret import interventions

        return interventions.head_effects(self._model(name), text, target, mode=mode)

    @functools.lru_cache(maxsize=None)
    def pretrained_head_attribution(self, name: str, text: str, target: str, mode: str):
        from engine.interpret import interventions

        return interventions.head_attribution(self._model(name), text, target, mode=mode)

    @functools.lru_cache(maxsize=None)
    def shipped_transformer(self):
        from engine.machinery import prepare

        return prepare.shipped_model()

    @functools.lru_cache(maxsize=None)
    def generation(self, name: str, prompt: str, temperature: float, top_k: int | None, length: int, seed: int):
        from engine.transformer.generation import generate

        return generate(generation_model(name, self), prompt, length, seed=seed, temperature=temperature,
                        top_k=top_k)

    @functools.lru_cache(maxsize=None)
    def pretrained_logit_lens(self, name: str, text: str, target: str, k: int):
        from engine.interpret import interventions

        return interventions.logit_lens(self._model(name), text, k=k, target=target)

    @functools.lru_cache(maxsize=None)
    def char_ngrams(self) -> dict:
        from engine.language.corpus import ALL_PLAYS
        from engine.language.ngram import NGramModel

        tokenizer = self.tokenized(ALL_PLAYS, "characters", None)[0]
        counts = self.ngram_counts(ALL_PLAYS, "characters", None)
        return {n: NGramModel.from_counts(counts, n, "kneser-ney", tokenizer=tokenizer) for n in (2, 3, 4, 5)}

    @functools.lru_cache(maxsize=None)
    def fixed_ladder(self):
        from engine.machinery import prepare

        return prepare.model_ladder(lambda: self.shipped_transformer()[0])

    @functools.lru_cache(maxsize=None)
    def bundled_picture(self, name: str):
        from engine.beyond import modalities as patches

        return patches.bundled_picture(name)


# --- Tokens & next-token prediction ---------------------------------------------------------------
TOKENS_PROMPT = "Mary had a little"
TOKENS_TEXT = ("Mary had a little lamb, its fleece was white as snow; and everywhere that Mary went, "
               "the lamb was sure to go.")


def tokens_next(values: Values, sources) -> Question:
    from engine.language.corpus import ALL_PLAYS
    from engine.language.ngram import NGramModel, prompt_ids
    from engine.language.tokenizers import token_text

    level, n = _text(values, "level", "words"), _int(values, "n", 3)
    smoothing, prompt = _text(values, "smoothing", "kneser-ney"), _text(values, "prompt", TOKENS_PROMPT)
    tokenizer = sources.tokenized(ALL_PLAYS, level, None)[0]
    model = NGramModel.from_counts(sources.ngram_counts(ALL_PLAYS, level, None), n, smoothing, tokenizer=tokenizer)
    shown = model.distribution(prompt_ids(tokenizer, prompt)).top(NEXT_TOKENS_SHOWN)   # the page's bars
    texts = {i: token_text(tokenizer, i) for i, _, _ in shown}
    best_p = shown[0][1]
    tied = [s for s in shown if s[1] >= best_p - TIE_TOLERANCE]     # the page prints 3 decimals: these tie
    rest = sorted((s for s in shown if s not in tied), key=lambda s: (not _has_word(texts[s[0]]), -s[1]))
    picked = (tied + rest)[:max(4, min(len(tied) + 1, 5))]           # words before punctuation among the rest
    if sum(_has_word(texts[i]) for i, _, _ in picked) < 2:
        raise ValueError(f"After {_quote(prompt[-60:])} the {n}-gram model's likeliest tokens are punctuation marks: "
                         "no question worth asking about them.")
    picked.sort(key=lambda s: texts[s[0]])                            # alphabetical: the best is not always first
    options, answer, leaders = _top_choice([_quote(texts[i]) for i, _, _ in picked], [p for _, p, _ in picked],
                                           keep=len(picked), tolerance=TIE_TOLERANCE)
    best = picked[leaders[0]]
    return Question("tokens", f"After {_quote(prompt[-60:])}, which next token does the {n}-gram model "
                              f"({level}, counted on Shakespeare) rank first?", options, answer,
                    f"P({_quote(texts[best[0]])}) = {best[1]:.3f}, the largest; the bars on the page show the "
                    f"{len(shown)} best.", veils=("tokens.next", "tokens.tail"))


def tokens_gpt2(values: Values, sources) -> Question:
    text = _text(values, "text", TOKENS_TEXT)
    words = re.findall(r"[A-Za-z]+", text)
    if not words:
        raise ValueError("The text has no word made of letters to ask about.")
    gpt2 = sources.gpt2_tokenizer()
    split = {word: gpt2.tokens(" " + word) for word in dict.fromkeys(words)}
    word = max(split, key=lambda w: (len(split[w]), len(w)))        # the word cut into most pieces, then longest
    pieces = split[word]
    count = len(pieces)
    top = max(4, count)
    options = tuple(str(i) for i in range(top - 3, top + 1))
    return Question("tokens", f"Into how many GPT-2 tokens does GPT-2 cut ' {word}' (with the space before it)?",
                    options, options.index(str(count)),
                    f"GPT-2 spells it as {count} token(s): " + " | ".join(_quote(p) for p in pieces) + ".",
                    veils=("tokens.tokenizers", "tokens.tail"))


# --- N-gram sampler ---------------------------------------------------------------------------------

def _ngram_model(values: Values, sources):
    from engine.language.corpus import ALL_PLAYS, OWN_TEXT
    from engine.language.ngram import LOOP_EXAMPLE_N, NGramModel

    source, level = _text(values, "source", ALL_PLAYS), _text(values, "level", "words")
    if source == OWN_TEXT:
        raise ValueError("A text of your own is not in the link: pick a play to ask about.")
    n, smoothing = _int(values, "n", LOOP_EXAMPLE_N), _text(values, "smoothing", "kneser-ney")
    k = _float(values, "k", 1.0)
    tokenizer = sources.tokenized(source, level, None)[0]
    model = NGramModel.from_counts(sources.ngram_counts(source, level, None), n, smoothing, k, tokenizer)
    return source, level, n, smoothing, tokenizer, model


def ngram_loop(values: Values, sources) -> Question:
    from engine.language.ngram import LOOP_EXAMPLE_TEMPERATURE, find_loop, sample_context

    _, level, n, _, tokenizer, model = _ngram_model(values, sources)
    tau, seed = _float(values, "temperature", LOOP_EXAMPLE_TEMPERATURE), _int(values, "seed", 0)
    length = min(max(_int(values, "length", 100), 10), 500)          # the page's sample, as long as it shows it
    prompt = sample_context(tokenizer, _text(values, "prompt", ""))   # as the page samples: no prompt, a line break
    ids = model.sample(length, seed=seed, temperature=tau, prompt=prompt)
    loop = find_loop(ids, min_length=LOOP_MIN_TOKENS.get(level, 8))
    options = ("Yes: it falls into a loop", f"No: no loop within its {length} tokens")
    why = (f"From token {loop.start} on, a cycle of {loop.period} token(s) repeats {loop.repeats:.1f} times "
           f"({loop.end - loop.start} tokens)." if loop is not None else
           f"No stretch of {LOOP_MIN_TOKENS.get(level, 8)} or more tokens repeats in the {length} sampled.")
    return Question("ngram", f"The {n}-gram model ({level}) samples {length} tokens at temperature "
                             f"\u03c4 = {tau:g}, seed {seed}. Does the sample fall into a loop?",
                    options, 0 if loop is not None else 1, why, veils=("ngram.sample", "ngram.tail"))


def ngram_held_out(values: Values, sources) -> Question:
    source, level, _, smoothing, _, _ = _ngram_model(values, sources)
    rows = [row for row in sources.held_out(source, level, None) if row.smoothing == smoothing]
    if len(rows) < 2:
        raise ValueError("There are not two orders n to compare for this smoothing.")
    rows.sort(key=lambda row: row.n)
    rows = [row for row in rows if math.isfinite(row.bits)]
    if len(rows) < 2:
        raise ValueError("There are not two orders n with a finite score to compare for this smoothing.")
    kept = sorted(sorted(rows, key=lambda row: (row.bits, row.n))[:5], key=lambda row: row.n)   # with a tie: six
    options, answer, leaders = _top_choice([f"n = {row.n}" for row in kept], [-row.bits for row in kept],
                                           keep=len(kept), tolerance=BITS_TIE)
    scores = "; ".join(f"n = {row.n}: {row.bits:.3f}" for row in kept)     # as the page's table prints them
    verdict = (f"n = {kept[leaders[0]].n} scores fewest" if len(leaders) == 1 else
               " and ".join(f"n = {kept[i].n}" for i in leaders) + f" lie within {BITS_TIE} bits: a tie")
    return Question("ngram", f"With {smoothing} smoothing ({level}), which n scores the fewest bits per token "
                             f"on held-out text (within {BITS_TIE} bits counts as a tie)?", options, answer,
                    f"{verdict}. Bits per token, {scores}; the held-out chart and table on the page show every n.",
                    veils=("ngram.held_out", "ngram.tail"))   # the held-out part holds its numbers' section


# --- Embedding explorer -----------------------------------------------------------------------------

def embeddings_analogy(values: Values, sources) -> Question:
    from engine.embeddings.glove import solve_analogy

    a, b, c = _text(values, "a", "france"), _text(values, "b", "paris"), _text(values, "c", "italy")
    method, vocab = _text(values, "method", "3cosadd"), _int(values, "vocab", 50_000)
    result = solve_analogy(sources.glove(), a, b, c, k=4, method=method, vocab_size=vocab)
    order = sorted(range(len(result.words)), key=lambda j: result.words[j])
    options, answer, leaders = _top_choice([result.words[j] for j in order],
                                           [float(result.scores[j]) for j in order], tolerance=TIE_TOLERANCE)
    best = order[leaders[0]]
    return Question("embeddings", f"{a} : {b} :: {c} : ?  Which word comes first ({method}, "
                                  f"{vocab:,} words)?", options, answer,
                    f"{result.words[best]} scores {float(result.scores[best]):.3f}; the others: "
                    + ", ".join(f"{w} {float(s):.3f}" for w, s in zip(result.words, result.scores)
                                if w != result.words[best]) + ".",
                    veils=("embeddings.analogy", "embeddings.map", "embeddings.neighbours", "embeddings.vocab_size",
                           "embeddings.tail"))


# --- Inside the model (SmolLM2; the page's cached results) -----------------------------------------


def _model_name(values: Values) -> str:
    from engine.pretrained.llama import DEFAULT_NAME

    return _text(values, "model", DEFAULT_NAME)


def inside_heads(values: Values, sources) -> Question:
    from engine.interpret.readings import KNOCK_OUT_EXAMPLES, head_label

    text, target, source = next(iter(KNOCK_OUT_EXAMPLES.values()))
    name = _model_name(values)
    text, target = _text(values, "ko_text", text), _text(values, "ko_target", target)
    source = _int(values, "source", source)
    mode = _text(values, "mode", "zero")
    effects = sources.pretrained_head_attribution(name, text, target, mode)   # the estimate the page draws
    weights = np.asarray(sources.pretrained_heads(name, text, limits.HEAD_VIEWER_MAX_TOKENS).weights)
    source = min(max(source, 0), weights.shape[-1] - 1)
    looked = weights[:, :, -1, source]                               # (L, h): how much the last token reads there
    by_attention = np.argsort(-looked, axis=None, kind="stable")[:3]
    n_head = looked.shape[1]
    top_layer, top_head, _ = effects.ranking(1)[0]
    candidates = sorted({(int(i // n_head), int(i % n_head)) for i in by_attention} | {(top_layer, top_head)})
    drops = [-float(effects.effects[layer, head]) for layer, head in candidates]
    options, answer, leaders = _top_choice([head_label(layer, head) for layer, head in candidates], drops,
                                           keep=len(candidates), tolerance=TIE_TOLERANCE)   # the page prints 3 places
    best = candidates[leaders[0]]
    token = effects.tokens[source] if source < len(effects.tokens) else "?"
    return Question("inside", f"After {_quote(text[-60:])}, which of these heads matters most for "
                              f"{_quote(target)}, as the page estimates it? (Knocking it out alone lowers "
                              f"P({_quote(target)}) most.)",
                    options, answer,
                    "Estimated (one pass forward and one back, as the page draws it): knocking out "
                    f"{head_label(*best)} changes ln P by {effects.effects[best]:+.3f}; "
                    + "; ".join(f"{head_label(*lh)} reads {_quote(token)} with weight {looked[lh]:.2f}, "
                                f"effect {effects.effects[lh]:+.3f}" for lh in candidates if lh != best)
                    + ". Looking at a token is not the same as mattering for the answer.",
                    veils=("inside.effects", "inside.knock_out"))


def inside_lens(values: Values, sources) -> Question:
    from engine.interpret.readings import LENS_EXAMPLE, LENS_TOP_K

    text, target = _text(values, "text", LENS_EXAMPLE[0]), _text(values, "target", LENS_EXAMPLE[1])
    lens = sources.pretrained_logit_lens(_model_name(values), text, target, LENS_TOP_K)
    if lens.target_ranks is None:
        raise ValueError("The logit lens follows no target token here.")
    ranks = np.asarray(lens.target_ranks)[:, -1]
    first = next((r for r in range(ranks.size) if ranks[r] == 0), None)
    blocks = ranks.size - 1                                          # row 0 is the embedding
    third = math.ceil(blocks / 3)
    spans = [(1 + i * third, min(blocks, (i + 1) * third)) for i in range(3)]
    options = ("Already at the embedding", *(f"Blocks {a - 1}-{b - 1}" for a, b in spans), "Never, not even at the end")
    if first is None:
        answer = 4
    elif first == 0:
        answer = 0
    else:
        answer = 1 + next(i for i, (a, b) in enumerate(spans) if a <= first <= b)
    where = "never" if first is None else lens.layers[first]
    return Question("inside", f"Logit lens on {_quote(text[-60:])}: from which layer on is {_quote(target)} the "
                              "model's top next token (read through its output layer)?", options, answer,
                    f"First at the top: {where}. The lens heatmap on the page shows each layer's guess.",
                    veils=("inside.lens",))


# --- Position -----------------------------------------------------------------------------------------

def position_equivariance(values: Values, sources) -> Question:
    from engine.attention.mechanism import random_projections
    from engine.transformer.positional import permutation_between, permutation_check
    from engine.embeddings.tiny_vocabulary import embed, load_vocabulary, tokenize

    vocabulary = load_vocabulary()
    a, b = _text(values, "a", "the owl saw the cat"), _text(values, "b", "the cat saw the owl")
    enc, seed = _text(values, "enc", "none"), _int(values, "seed", 0)
    sentence = embed(a, vocabulary)
    perm = permutation_between(sentence.tokens, tokenize(b))
    W = random_projections(vocabulary.d, seed) if _bool(values, "proj", False) else {}
    check = permutation_check(sentence.x, perm, enc, W_q=W.get("W_q"), W_k=W.get("W_k"), W_v=W.get("W_v"),
                              causal=_bool(values, "causal", False), strength=_float(values, "strength", 1.0),
                              seed=seed)
    mask = ", causal mask on" if _bool(values, "causal", False) else ""
    options = ("Yes: the same vectors, moved with their words", "No: some words' outputs change")
    return Question("position", f"'{b}' holds the words of '{a}' in another order. With positional encoding "
                                f"'{enc}'{mask}, does each word get the same attention output as in A?",
                    options, 0 if check.equivariant else 1,
                    f"The largest change of a word's output is {check.max_difference:.3f} "
                    + ("(none: attention alone ignores order)." if check.equivariant else
                       "(order now matters).") + " The bars on the page show each word's change.",
                    veils=("position.check", "position.code"))


# --- Block builder --------------------------------------------------------------------------------

def _block_config(values: Values):
    from dataclasses import fields

    from engine.transformer.config import PRESETS, TransformerConfig

    preset = PRESETS.get(_text(values, "bb_preset", ""), next(iter(PRESETS.values())))
    settings = {}
    for field in fields(TransformerConfig):
        default = getattr(preset, field.name)
        if isinstance(default, bool):
            settings[field.name] = _bool(values, f"bb_{field.name}", default)
        elif isinstance(default, int):
            settings[field.name] = _int(values, f"bb_{field.name}", default)
        elif isinstance(default, str):
            settings[field.name] = _text(values, f"bb_{field.name}", default)
        else:
            settings[field.name] = default
    return TransformerConfig(**settings)


def block_parameters(values: Values, sources) -> Question:
    from engine.transformer.config import count_parameters

    config = _block_config(values)
    count = count_parameters(config)
    options, answer = _numbers(count.per_block, [count.attention_per_block, count.feed_forward_per_block,
                                                 count.blocks, count.total])
    return Question("block", f"One block with d_model = {config.d_model}, d_ff = {config.d_ff} and "
                             f"{config.n_heads} heads: how many parameters does it learn?", options, answer,
                    f"Attention {count.attention_per_block:,} + feed-forward {count.feed_forward_per_block:,} + "
                    f"LayerNorms {count.layer_norms_per_block:,} = "
                    f"{count.per_block:,}. The parameter chart on the page splits the whole model.",
                    veils=("block.block", "block.code"))


def block_largest_part(values: Values, sources) -> Question:
    from engine.transformer.config import count_parameters

    config = _block_config(values)
    parts = {name: value for name, value in count_parameters(config).parts().items() if value > 0}
    names = list(parts)[:6]
    options, answer, leaders = _top_choice(names, [parts[n] for n in names], keep=5)
    return Question("block", f"In this model ({config.n_layers} blocks, d_model = {config.d_model}, vocabulary "
                             f"{config.vocab_size:,}), which part holds the most parameters?", options, answer,
                    f"{names[leaders[0]]}: {parts[names[leaders[0]]]:,} of {sum(parts.values()):,}.",
                    veils=("block.block", "block.code"))


# --- Generate -------------------------------------------------------------------------------------
GENERATE_PROMPT = "ROMEO:\nBut soft, what light"


def variety(text: str) -> int:
    """How varied a sample is: the number of distinct 3-character pieces in it (a loop repeats the same few)."""
    return len({text[i:i + 3] for i in range(max(len(text) - 2, 0))})


def generation_model(name: str, sources):
    """The Generate page's model called `name` (as its link names it): the shipped transformer or a character n-gram
    (`sources`: ui.loaders or EngineSources). A live model lives in one browser: never in a link."""
    if name == SHIPPED:
        return sources.shipped_transformer()[0]
    if name in GENERATE_NGRAMS:
        return sources.char_ngrams()[GENERATE_NGRAMS[name]]
    raise ValueError(f"'{name[:40]}' is not in the link (a live model lives in one browser): put the shipped "
                     "transformer or an n-gram first to ask about it.")


def generate_variety(values: Values, sources) -> Question:
    """The page's first model, prompt, length, seed and top-k, at the page's temperature and two others."""
    prompt, seed = _text(values, "gen_prompt", GENERATE_PROMPT), _int(values, "gen_seed", 0)
    length = min(max(_int(values, "gen_length", 100), 1), limits.MAX_GENERATE_TOKENS)
    tau = min(max(_float(values, "gen_temperature", 0.8), 0.0), 2.0)
    top_k = _int(values, "gen_top_k", 0) or None
    name = _text(values, "gen_models", f"{SHIPPED},4-gram,2-gram").split(",")[0].strip()
    generation_model(name, sources)                                  # a model a link can name, else a sentence
    taus = list(VARIETY_TAUS)
    taus[min(range(len(taus)), key=lambda i: abs(taus[i] - tau))] = tau   # the page's own, in the nearest's place
    taus.sort()
    # the page's own sample (at its τ) is in the page's cache already: the same call, shared
    samples = [sources.generation(name, prompt, t, top_k, length, seed).text for t in taus]
    scores = [variety(text) for text in samples]
    options, answer, leaders = _top_choice([f"\u03c4 = {t:g}" + (" (the page's)" if t == tau else "") for t in taus],
                                           scores, keep=3)
    topk = f", top-k {top_k}" if top_k else ""
    return Question("generate", f"The {name} writes {length} characters after the prompt (seed {seed}{topk}); the "
                                f"page shows it at \u03c4 = {tau:g}. At which temperature \u03c4 is its sample most "
                                "varied (the most different 3-character pieces)?", options, answer,
                    "Distinct 3-character pieces: " + ", ".join(f"\u03c4 = {t:g}: {s}" for t, s in zip(taus, scores))
                    + ". Low \u03c4 keeps to the likeliest paths and repeats; high \u03c4 wanders.")


def generate_ladder(values: Values, sources) -> Question:
    rungs = list(sources.fixed_ladder())
    picked = [r for r in rungs if "gram" not in r.model][:1]
    grams = sorted((r for r in rungs if "gram" in r.model), key=lambda r: r.bits_per_char)
    picked += [grams[0]] + [r for r in grams if r.model.startswith(("2-gram", "4-gram"))][:2]
    picked = list({r.model: r for r in picked}.values())
    options, answer, leaders = _top_choice([r.model[:60] for r in picked], [-r.bits_per_char for r in picked],
                                           keep=len(picked))
    return Question("generate", "Which model predicts held-out Shakespeare best (fewest bits per character)?",
                    options, answer,
                    "; ".join(f"{r.model}: {r.bits_per_char:.3f}" for r in picked) + ". The ladder on the page "
                    "ranks every model.", veils=("generate.ladder", "generate.code"))


# --- Beyond words ---------------------------------------------------------------------------------

def beyond_scores(values: Values, sources) -> Question:
    from engine.beyond import modalities as patches

    kind, d = _text(values, "kind", "image"), _int(values, "d", 64)
    if kind == "image":
        name, side, patch = _text(values, "picture", "astronaut"), _int(values, "side", 224), _int(values, "patch", 16)
        if name not in patches.BUNDLED_PICTURES:
            raise ValueError("An uploaded picture is not in the link: pick a bundled one to ask about.")
        height, width = (side, side) if side else sources.bundled_picture(name).shape[:2]
        costs = patches.patch_costs(height, width, [patch], _text(values, "fit", "crop"))
        if not costs:
            raise ValueError(f"A {patch}-pixel patch does not fit this picture.")
        T = costs[0][1]
        what = f"a {width} x {height} picture cut into {patch} x {patch} patches ({T} tokens)"
    elif kind == "audio":
        signal = _text(values, "signal", "melody")
        if signal not in patches.SIGNALS:
            raise ValueError("An uploaded sound is not in the link: pick a bundled one to ask about.")
        sound = patches.synth_signal(signal)
        T = patches.spectrogram_frames(sound.samples, sound.sample_rate, _int(values, "frame", 512),
                                       _int(values, "hop", 128)).T
        what = f"the '{signal}' sound cut into {T} spectrogram frames"
    else:
        T = len(patches.parse_sequence(_text(values, "sequence", patches.PROTEIN_PRESETS["Human insulin, A chain"])))
        what = f"a protein of {T} residues"
    cost = patches.attention_cost(T, max(d, 1))
    options, answer = _numbers(cost.scores, [T, 2 * T, T * (T - 1) // 2, cost.multiply_adds])
    return Question("beyond", f"Attention over {what}: how many attention scores (weights) does one head "
                              "compute?", options, answer,
                    f"Every token scores every token: T\u00b2 = {T}\u00b2 = {cost.scores:,}, "
                    f"{cost.megabytes:.2f} MB of weights in float32. The cost chart on the page grows with T\u00b2.",
                    veils=(f"beyond.{kind if kind in ('image', 'audio') else 'protein'}",))


# --- the table ------------------------------------------------------------------------------------
# Each page's builders, until they move into the page's spec (engine.chapter.<page>.PAGE.questions);
# engine.chapter.questions.questions_for asks them.
BUILDERS: dict[str, tuple[Callable[[Values, object], Question], ...]] = {
    "tokens": (tokens_next, tokens_gpt2),
    "ngram": (ngram_loop, ngram_held_out),
    "embeddings": (embeddings_analogy,),
    "inside": (inside_heads, inside_lens),
    "position": (position_equivariance,),
    "block": (block_parameters, block_largest_part),
    "generate": (generate_variety, generate_ladder),
    "beyond": (beyond_scores,),
}
