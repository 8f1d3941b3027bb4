"""Generate: the page's spec, its models, what it samples from its link, the sentences both front ends say, and its
class questions.

`samples(values, generation)` is what the page draws for its typed link values: the same prompt and seed through each
model the link names, checked against the page's limits (engine.limits: GENERATE_MAX_MODELS, GENERATE_MAX_TEMPERATURE,
GENERATE_MAX_TOP_K, MAX_GENERATE_TOKENS, MAX_PROMPT_CHARS) whichever front end asks. `generation` is the caller's
cached `(name, prompt, temperature, top_k, length, seed) -> Generation` (ui.loaders.generation, the Gradio tab's, the
class's sources), so the Streamlit page, the Gradio tab and the class question read the same draws. `ladder` and
`ladder_reading` are the model ladder's bars and sentences. The spec itself (PAGE) closes the file.

The model names (SHIPPED, NGRAMS) are engine.prepare's, which opens the models by them (generation_model) for every
front door's cache (ui.loaders, gradio_tabs.loaders, EngineSources); they are imported from there.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from engine import limits, numbers
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, text
from engine.charts.style import visible
from engine.classroom.questions import _top_choice
from engine.prepare import GENERATE_NGRAMS as NGRAMS
from engine.prepare import SHIPPED, generation_model
from engine.classroom.store import Question
from engine.i18n import N_, _
from engine.transformer.generation import Generation, Rung
from engine.transformer.ladder import Bar, ladder_sentences

DEFAULT_PROMPT = "ROMEO:\nBut soft, what light"
LIVE = "your live model"                  # a model trained on the Block builder: it lives in one browser tab
MODELS = (SHIPPED, LIVE, *NGRAMS)         # every name a link may give
DEFAULT_MODELS = (SHIPPED, "4-gram", "2-gram")
TEMPERATURE_STEP = 0.05                   # the temperature slider's step
MAX_SEED = 2**31 - 1
TOP_SHOWN = 8                             # next characters drawn per model
UNIFORM = "uniform guess (1/V)"           # the ladder's floor
SAMPLES_TITLE = N_("Samples from the same prompt and seed")
# the models' names as a reader sees them (the link keeps the English keys; the n-grams are named by their order)
MODEL_NAMES = {SHIPPED: N_("shipped transformer"), LIVE: N_("your live model"), UNIFORM: N_("uniform guess (1/V)")}
TRAINED_ON_ENGLISH = N_("The small GPT and the n-grams here were trained on English text (Shakespeare's plays): the "
                        "prompt, the samples and the characters on the bars stay in English.")
VARIETY_TAUS = (0.2, 1.0, 1.8)            # the class question compares these, the page's own in one's place
VEILS = ("generate.ladder", "generate.code")


_GRAM = re.compile(r"(\d+)-gram(?: \((.+)\))?")


def model_name(name: str) -> str:
    """A model as the reader's language names it: the page's own models, an n-gram by its n ('4-gram' is '4-grama'
    in Spanish, '7-gram (Kneser-Ney)' '7-grama (Kneser-Ney)'); a file brought along keeps its name."""
    if name in MODEL_NAMES:
        return _(MODEL_NAMES[name])
    found = _GRAM.fullmatch(name)
    if found is None:
        return name
    n = int(found.group(1))
    return _("{n}-gram ({smoothing})", n=n, smoothing=found.group(2)) if found.group(2) else _("{n}-gram", n=n)


def model_list(raw: str) -> str:
    """The link's models ('shipped transformer,4-gram'): 1 to limits.GENERATE_MAX_MODELS names the page knows."""
    names = [name.strip() for name in raw.split(",")]
    if not 1 <= len(names) <= limits.GENERATE_MAX_MODELS or len(set(names)) != len(names):
        raise ValueError(_("name 1 to {most} different models", most=limits.GENERATE_MAX_MODELS))
    unknown = [name for name in names if name not in MODELS]
    if unknown:
        raise ValueError(_("{name} is not a model of the page", name=repr(unknown[0][:40])))
    return ",".join(names)


@dataclass(frozen=True)
class Sampling:
    """The link's settings, checked: models side by side, prompt, temperature, top-k (None keeps all), length, seed."""
    models: tuple[str, ...]
    prompt: str
    temperature: float
    top_k: int | None
    length: int
    seed: int


def sampling(values: Mapping[str, Any]) -> Sampling:
    """The page's settings from its typed link values; ValueError with a sentence for any beyond the page's limits
    (whatever a front end's widgets allowed)."""
    models = tuple(name.strip() for name in str(values["gen_models"]).split(",") if name.strip())
    if not 1 <= len(models) <= limits.GENERATE_MAX_MODELS:
        raise ValueError(_("Choose 1 to {most} models to compare side by side.", most=limits.GENERATE_MAX_MODELS))
    temperature = float(values["gen_temperature"])
    if not 0.0 <= temperature <= limits.GENERATE_MAX_TEMPERATURE:
        raise ValueError(_("The temperature goes from 0 to {most}; not {asked}.",
                           most=numbers.localized(f"{limits.GENERATE_MAX_TEMPERATURE:g}"),
                           asked=numbers.localized(f"{temperature:g}")))
    top_k = int(values["gen_top_k"])
    if not 0 <= top_k <= limits.GENERATE_MAX_TOP_K:
        raise ValueError(_("top-k goes from 0 (keep all) to {most}, the plays' characters; not {asked}.",
                           most=limits.GENERATE_MAX_TOP_K, asked=top_k))
    length, seed = int(values["gen_length"]), int(values["gen_seed"])
    if not 1 <= length <= limits.MAX_GENERATE_TOKENS:
        raise ValueError(_("Generate between 1 and {most} characters; asked for {asked}.",
                           most=limits.MAX_GENERATE_TOKENS, asked=length))
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(_("The seed goes from 0 to {most}; not {asked}.", most=numbers.grouped(MAX_SEED),
                           asked=numbers.grouped(seed)))
    prompt = str(values["gen_prompt"])
    if len(prompt) > limits.MAX_PROMPT_CHARS:
        raise ValueError(_("The prompt has {n} characters; the limit is {most}.", n=len(prompt),
                           most=limits.MAX_PROMPT_CHARS))
    return Sampling(models, prompt, temperature, top_k or None, length, seed)


Generator = Callable[[str, str, float, "int | None", int, int], Generation]


@dataclass(frozen=True)
class Samples:
    """The same prompt and seed through each model: the settings and each model's generation, in the link's order."""
    settings: Sampling
    generations: dict[str, Generation]

    @property
    def steps(self) -> int:
        """Steps every model made (the step slider's top)."""
        return min(len(g.steps) for g in self.generations.values())

    def top(self, step: int, decode: Callable[[list[int]], str], k: int = TOP_SHOWN) -> dict[str, list]:
        """Each model's k likeliest next characters at step `step` (from 1): (character, p, q)."""
        return {name: [(decode([i]), p, q) for i, p, q in g.steps[step - 1].top(k)]
                for name, g in self.generations.items()}

    def likeliest(self, step: int, decode: Callable[[list[int]], str]) -> str:
        """What both front ends say of the first model's likeliest next character at step `step`."""
        name, first = next(iter(self.generations.items()))
        token, p, q = first.steps[step - 1].top(1)[0]
        top_k = self.settings.top_k
        shown = dict(model=model_name(name), step=step, character=visible(decode([token])), p=numbers.fixed(p),
                     q=numbers.fixed(q), tau=numbers.localized(f"{self.settings.temperature:g}"))
        if top_k:
            return _("For the {model}, the likeliest next character at step {step} is '{character}': P = {p} -> q = "
                     "{q} after temperature {tau} and top-{k}.", k=top_k, **shown)
        return _("For the {model}, the likeliest next character at step {step} is '{character}': P = {p} -> q = {q} "
                 "after temperature {tau}.", **shown)


def samples(values: Mapping[str, Any], generation: Generator) -> Samples:
    """What the page samples for its typed link values, each model's draw made by `generation` (the caller's
    cache)."""
    s = sampling(values)
    return Samples(s, {name: generation(name, s.prompt, s.temperature, s.top_k, s.length, s.seed)
                       for name in s.models})


# --- the model ladder --------------------------------------------------------------------------------------------

def ladder(rungs: Sequence[Rung], vocab_size: int, more: Sequence[Bar] = ()) -> list[Bar]:
    """The ladder's bars: every rung (n-grams and the shipped transformer), then `more` (a student's live runs,
    SmolLM2), then the uniform guess over the vocabulary as the floor."""
    bars = [Bar(rung.model, rung.bits_per_char, "n-gram" if "gram" in rung.model else "transformer") for rung in rungs]
    return [*bars, *more, Bar(UNIFORM, math.log2(vocab_size), "baseline")]


def ladder_reading(bars: Sequence[Bar]) -> str:
    """The sentences under the ladder, as measured."""
    return " ".join(ladder_sentences([Bar(model_name(bar.model), bar.bits_per_char, bar.kind) for bar in bars],
                                     shipped=model_name(SHIPPED)))


# --- the class's questions ---------------------------------------------------------------------------------------

def variety(text: str) -> int:
    """How varied a sample is: the number of distinct 3-character pieces in it (a loop repeats the same few)."""
    return len({text[i:i + 3] for i in range(max(len(text) - 2, 0))})


def generate_variety(link: Mapping[str, str], sources) -> Question:
    """The page's first model, prompt, length, seed and top-k, at the page's temperature and two others."""
    s = sampling(PAGE.values(link))
    name, tau, top_k = s.models[0], s.temperature, s.top_k
    generation_model(name, sources)                                  # a model a link can name, else a sentence
    taus = list(VARIETY_TAUS)
    taus[min(range(len(taus)), key=lambda i: abs(taus[i] - tau))] = tau   # the page's own, in the nearest's place
    taus.sort()
    # the page's own sample (at its τ) is in the page's cache already: the same call, shared
    texts = [sources.generation(name, s.prompt, t, top_k, s.length, s.seed).text for t in taus]
    scores = [variety(sample) for sample in texts]
    def g(value: float) -> str:
        return numbers.localized(f"{value:g}")

    options, answer, leaders = _top_choice([_("\u03c4 = {tau} (the page's)", tau=g(t)) if t == tau else
                                            f"\u03c4 = {g(t)}" for t in taus], scores, keep=3)
    shown = dict(model=model_name(name), n=s.length, seed=s.seed, tau=g(tau))
    if top_k:
        asked = _("The {model} writes {n} characters after the prompt (seed {seed}, top-k {k}); the page shows it at "
                  "\u03c4 = {tau}. At which temperature \u03c4 is its sample most varied (the most different "
                  "3-character pieces)?", k=top_k, **shown)
    else:
        asked = _("The {model} writes {n} characters after the prompt (seed {seed}); the page shows it at \u03c4 = "
                  "{tau}. At which temperature \u03c4 is its sample most varied (the most different 3-character "
                  "pieces)?", **shown)
    return Question("generate", asked, options, answer,
                    _("Distinct 3-character pieces: {counts}. Low \u03c4 keeps to the likeliest paths and repeats; "
                      "high \u03c4 wanders.", counts=", ".join(f"\u03c4 = {g(t)}: {n}" for t, n in zip(taus, scores))))


def generate_ladder(link: Mapping[str, str], sources) -> Question:
    """Which of the shipped transformer, the best n-gram, the 2-gram and the 4-gram scores best on the ladder."""
    rungs = list(sources.fixed_ladder())
    picked = [r for r in rungs if "gram" not in r.model][:1]
    grams = sorted((r for r in rungs if "gram" in r.model), key=lambda r: r.bits_per_char)
    picked += [grams[0]] + [r for r in grams if r.model.startswith(("2-gram", "4-gram"))][:2]
    picked = list({r.model: r for r in picked}.values())
    options, answer, leaders = _top_choice([model_name(r.model)[:60] for r in picked],
                                           [-r.bits_per_char for r in picked], keep=len(picked))
    return Question("generate", _("Which model predicts held-out Shakespeare best (fewest bits per character)?"),
                    options, answer,
                    _("{scores}. The ladder on the page ranks every model.",
                      scores="; ".join(f"{model_name(r.model)}: {numbers.fixed(r.bits_per_char)}" for r in picked)),
                    veils=VEILS)


LADDER_HEADING = N_("The model ladder: held-out bits per character")   # both front ends' heading

PAGE = PageSpec(
    key="generate", url="generate", view="generate",
    title=N_("Generate"),
    question=N_("How does a stack of blocks become text, and which model predicts Shakespeare best?"),
    one_line=N_("Last position -> linear -> softmax: sample from n-grams and transformers side by side, and rank "
                "them."),
    icon=":material/edit_note:",
    params=(
        Param("gen_prompt", DEFAULT_PROMPT, text(limits.MAX_PROMPT_CHARS), label=N_("Prompt"),
              help=N_("Characters of the plays only: every model here reads the same 75-character vocabulary.")),
        Param("gen_temperature", 0.8, between(0.0, limits.GENERATE_MAX_TEMPERATURE, float), label=N_("Temperature τ"),
              help=N_("q_i ∝ p_i^(1/τ): below 1 sharper, above 1 flatter, 0 always the most likely.")),
        Param("gen_top_k", 0, between(0, limits.GENERATE_MAX_TOP_K), label=N_("top-k (0 = keep all)")),
        Param("gen_length", 100, between(1, limits.MAX_GENERATE_TOKENS), label=N_("characters to generate")),
        Param("gen_seed", 0, between(0, MAX_SEED), label=N_("seed")),
        Param("gen_models", ",".join(DEFAULT_MODELS), model_list, label=N_("Models, side by side")),
    ),
    questions=(generate_variety, generate_ladder),
    reading=(references.MAKEMORE,
             references.HOLTZMAN_2020.on("temperature, top-k"),
             references.CHEN_GOODMAN_1998.on("Kneser-Ney"),
             references.CME_295.on("lecture 1")),
)
