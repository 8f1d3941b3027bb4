"""What every page's class questions share: reading a link's values, options and ties, and where heavy things come
from. Each page's questions live in its spec (engine.chapter.<page>.PAGE.questions); engine.chapter.questions
asks them.

A question is built from the page's link values and answered with the engine functions the page calls, never a
hand-typed one. `sources` gives the heavy objects and the cached results a page already computed: the Streamlit
app passes its `ui.loaders` module (one cache per server), a notebook or a test passes `EngineSources()`, which
loads the same things straight from the engine. Both answer the same calls, so a question never loads a model
the page has not.

Options come in a natural order (positions, numbers, names), not best first; where the engine's numbers tie at the
top (closer than the page prints), "two or more tie" is an option and may be the answer. Each question names the
parts of its page that give its answer away (`Question.veils`), which a class veils until the reveal.
Building a page's questions takes at most a couple of seconds once its models are loaded (bench/class_questions.py).
"""
from __future__ import annotations

import functools
import math
from typing import Mapping, Sequence

import numpy as np

from engine import limits

Values = Mapping[str, str]
TIE = "Two or more tie for first"
TIE_TOLERANCE = 5e-4          # weights shown to 3 decimals: closer than this reads as the same number
BITS_TIE = 0.01               # held-out bits closer than this are the same for any use: the question says so
MAX_LABEL = 40                                                 # characters of a token or text quoted in an option
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
        from engine import prepare
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
        from engine import prepare
        from engine.language.corpus import ALL_PLAYS
        from engine.language.ngram import count_ngrams

        if source == ALL_PLAYS and own_text is None:
            return prepare.corpus_counts(level)
        tokenizer, train, _ = self.tokenized(source, level, own_text)
        return count_ngrams(train, min(limits.MAX_NGRAM_ORDER, max(train.size, 1)), tokenizer.vocab_size)

    @functools.lru_cache(maxsize=None)
    def held_out(self, source: str, level: str, own_text: str | None):
        from engine import prepare
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
        from engine.prepare import glove

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
        from engine import prepare
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
        from engine import prepare

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
        from engine import prepare

        return prepare.model_ladder(lambda: self.shipped_transformer()[0])

    @functools.lru_cache(maxsize=None)
    def bundled_picture(self, name: str):
        from engine.beyond import modalities as patches

        return patches.bundled_picture(name)




# --- Generate's models (engine.chapter.generate names them; the caches open them by name) -----------

def generation_model(name: str, sources):
    """The Generate page's model called `name` (as its link names it): the shipped transformer or a character n-gram
    (`sources`: ui.loaders or EngineSources). A live model lives in one browser: never in a link."""
    if name == SHIPPED:
        return sources.shipped_transformer()[0]
    if name in GENERATE_NGRAMS:
        return sources.char_ngrams()[GENERATE_NGRAMS[name]]
    raise ValueError(f"'{name[:40]}' is not in the link (a live model lives in one browser): put the shipped "
                     "transformer or an n-gram first to ask about it.")
