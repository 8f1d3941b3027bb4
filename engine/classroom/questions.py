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
from typing import Callable, Mapping, Sequence

import numpy as np

from engine import limits
from engine.classroom.store import Question

Values = Mapping[str, str]
TIE = "Two or more tie for first"
TIE_TOLERANCE = 5e-4          # weights shown to 3 decimals: closer than this reads as the same number
BITS_TIE = 0.01               # held-out bits closer than this are the same for any use: the question says so
VARIETY_TAUS = (0.2, 1.0, 1.8)            # the Generate page's question compares these, the page's own in one's place
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


# --- the table ------------------------------------------------------------------------------------
# Each page's builders, until they move into the page's spec (engine.chapter.<page>.PAGE.questions);
# engine.chapter.questions.questions_for asks them.
BUILDERS: dict[str, tuple[Callable[[Values, object], Question], ...]] = {
    "block": (block_parameters, block_largest_part),
    "generate": (generate_variety, generate_ladder),
}
