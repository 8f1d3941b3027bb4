"""Generate: stack -> last position -> linear -> softmax, sampled one token at a time; the model ladder."""
from __future__ import annotations

import math

import streamlit as st

from engine import limits, markup, numbers
from engine.chapter.generate import (
    LADDER_HEADING,
    LIVE, MAX_SEED, NGRAMS, PAGE, SAMPLES_TITLE, SHIPPED, TEMPERATURE_STEP, TRAINED_ON_ENGLISH, ladder, ladder_reading,
    model_name, samples,
)
from engine.charts.bars import ladder_bars, ladder_zoom, next_token_bars
from engine.transformer.code import generate_code
from engine.transformer.generation import generate
from engine.transformer.ladder import Bar
from engine.i18n import _, is_source, ngettext
from engine.transformer.language_model import window_sentence
from ui import challenges, charts, chips, code, decimal_slider, loaders, page, pretrained_views, url_state, warmup
from ui.session_slots import BLOCK_RUNS, LIVE_MODEL, LIVE_MODEL_NOTE

page.header(PAGE)
P = PAGE.by_name


# --- settings --------------------------------------------------------------------------------------
STATE = url_state.PageState(PAGE)
STATE.init()

# sections that rerun alone (ui.page.section): the temperature and the models change the first two, not the
# ladder. The prompt and the numbers rerun the whole page: a text or number is sent when it loses the focus, so
# typing one and then clicking a switch outside the sections (the ladder's, SmolLM2's) is one rerun, and a
# section alone would not draw that switch
SAMPLES = "generate.samples"   # the generations: each step's distribution and the samples side by side
CODE = "generate.code"         # the code with the settings, and the challenges
SMOLLM2 = "generate.smollm2"   # SmolLM2's sampling panel, whose own widgets change only it
LADDER = "generate.ladder"     # the model ladder: veiled while a class predicts which model scores best
settings_only = page.only(STATE, SAMPLES, CODE)


def remember_models() -> None:
    """The models picked, as the link's list."""
    STATE["gen_models"] = ",".join(STATE["gen_pick"])


def models_picked_changed() -> None:
    """Picking models: remember them (a whole run does it in the main body), then rerun only the two sections."""
    remember_models()
    settings_only()


live = LIVE_MODEL.get()
available = [SHIPPED] + ([LIVE] if live is not None else []) + list(NGRAMS)
if not set(STATE["gen_models"].split(",")) <= set(available):   # a link naming models this session lacks
    STATE.fall_back("gen_models", STATE.params["gen_models"].default)
chosen_default = [m for m in STATE["gen_models"].split(",") if m in available] or [SHIPPED]

with st.sidebar:
    st.text_area(P["gen_prompt"].label, key=STATE.key("gen_prompt"), height=90,
                 max_chars=limits.MAX_PROMPT_CHARS, help=P["gen_prompt"].help)
    st.multiselect(P["gen_models"].label, available, default=chosen_default,
                   max_selections=limits.GENERATE_MAX_MODELS, key=STATE.key("gen_pick"), format_func=model_name,
                   on_change=models_picked_changed)
    decimal_slider.slider(st, P["gen_temperature"].label, 0.0, limits.GENERATE_MAX_TEMPERATURE, step=TEMPERATURE_STEP,
                          key=STATE.key("gen_temperature"), help=P["gen_temperature"].help, on_change=settings_only)
    st.number_input(P["gen_top_k"].label, 0, limits.GENERATE_MAX_TOP_K, key=STATE.key("gen_top_k"))
    st.number_input(P["gen_length"].label, 1, limits.MAX_GENERATE_TOKENS, key=STATE.key("gen_length"),
                    help=window_sentence(loaders.shipped_transformer()[0]))
    st.number_input(P["gen_seed"].label, 0, MAX_SEED, key=STATE.key("gen_seed"))
    if live is None:
        st.caption(_(LIVE_MODEL_NOTE))
remember_models()
STATE.mirror()


def values() -> dict:
    """The page's typed link values as the sidebar holds them now (the models as picked): read from session state,
    so that a section rerun alone sees them."""
    return {name: STATE[name] for name in P} | {"gen_models": ",".join(STATE["gen_pick"])}


def settings() -> tuple[list[str], str, float, int | None, int, int]:
    """The models, prompt, temperature, top-k, length and seed as the sidebar holds them now."""
    return (STATE["gen_pick"], STATE["gen_prompt"], float(STATE["gen_temperature"]), int(STATE["gen_top_k"]) or None,
            int(STATE["gen_length"]), int(STATE["gen_seed"]))


def shipped_summary(notes: dict) -> str:
    """What the shipped checkpoint's notes say of its training, in a line."""
    threads = notes.get("train", {}).get("threads") or 1
    minutes = round(notes["train_seconds"] / 60)
    shown = dict(steps=numbers.grouped(notes["steps"]), millions=f"{notes.get('tokens_seen', 0) / 1e6:.0f}",
                 minutes=minutes)
    if threads == 1:
        return ngettext("{steps} training steps, {millions} M characters read, {minutes} minute on one CPU thread",
                        "{steps} training steps, {millions} M characters read, {minutes} minutes on one CPU thread",
                        minutes, **shown)
    return ngettext("{steps} training steps, {millions} M characters read, {minutes} minute on {threads} CPU threads",
                    "{steps} training steps, {millions} M characters read, {minutes} minutes on {threads} CPU threads",
                    minutes, threads=threads, **shown)


def language_model(name: str):
    if name == SHIPPED:
        return loaders.shipped_transformer()[0]
    if name == LIVE:
        return live
    return loaders.char_ngrams()[NGRAMS[name]]


def cached_generation(name: str, prompt: str, temperature: float, top_k: int | None, length: int, seed: int):
    """One generation per (model, settings) per session: moving the step slider does not resample."""
    lm = language_model(name)
    cache = STATE.setdefault("gen_cache", {})
    signature = (name, id(lm), prompt, temperature, top_k, length, seed)
    if signature not in cache:
        if len(cache) > 16:
            cache.clear()
        # the shipped model and the n-grams are the same for everyone and a seed fixes the draw: one generation per
        # settings for every session of the server (ui.loaders.generation; a class's question reads it too)
        cache[signature] = (loaders.generation(name, prompt, temperature, top_k, length, seed) if name != LIVE else
                            generate(lm, prompt, length, seed=seed, temperature=temperature, top_k=top_k))
    return cache[signature]


# --- the generations, the distribution at each step, the samples -----------------------------------
@page.section(SAMPLES)
def samples_section() -> None:
    """All that the prompt, models, temperature, top-k, length and seed change above the ladder; the step
    slider inside it reruns only this too."""
    models_picked, prompt, temperature, top_k, length, seed = settings()
    shown = page.run_engine(samples, values(), cached_generation) if models_picked else None
    generations = shown.generations if shown is not None else {}

    # --- the distribution at each step --------------------------------------------------------------
    if generations:
        tokenizer = loaders.char_corpus()[0]
        st.subheader(_("The next-token distribution, step by step"))
        steps_made = shown.steps
        t = st.slider(_("step"), 1, steps_made, 1, key=STATE.key("gen_step")) if steps_made > 1 else 1
        step_index = t - 1
        first = next(iter(generations.values()))
        so_far = prompt + tokenizer.decode(first.ids[:step_index])
        st.caption(ngettext("Each model's context at step {t} is the prompt plus its own {n} earlier draws (ending "
                            "{ending} for the {model}). Bars: P(next character); orange ticks: the distribution after "
                            "temperature and top-k, the one actually sampled.",
                            "Each model's context at step {t} is the prompt plus its own {n} earlier draws (ending "
                            "{ending} for the {model}). Bars: P(next character); orange ticks: the distribution after "
                            "temperature and top-k, the one actually sampled.",
                            step_index, t=t, ending=markup.quoted(so_far[-40:]), model=model_name(first.model)))

        def label(token_id: int) -> str:   # next_token_bars draws it as every token is drawn (visible)
            return tokenizer.decode([token_id])

        charts.show(next_token_bars({model_name(name): bars for name, bars in shown.top(t, tokenizer.decode).items()},
                                    width=170))
        best_id, best_p, best_q = generations[models_picked[0]].steps[step_index].top(1)[0]
        st.latex(r"P(w_{t+1} \mid w_{\le t}) = \mathrm{softmax}(h_t W_{\mathrm{vocab}})_w, \qquad "
                 r"q_w = \frac{P_w^{1/\tau}}{\sum_v P_v^{1/\tau}} \quad "
                 + _(r"\text{(top-}k\text{: only the } k \text{ largest)}"))
        tau = numbers.localized(f"{temperature:g}").replace(",", "{,}")   # KaTeX spaces a bare comma
        st.latex(rf"P({chips.latex_text(label(best_id))}) = {numbers.latex(best_p)} \quad\rightarrow\quad "
                 rf"q = {numbers.latex(best_q)}"
                 rf"\qquad (\tau = {tau}{'' if top_k is None else f', k = {top_k}'})")
        tied = loaders.shipped_transformer()[0].model.config.tied_head
        head = (_("For the transformer, h_t is the last position's vector after the final block and W_vocab (d x V) "
                  "gives one score per character (the shipped model ties it to the embedding matrix: W_vocab = Eᵀ, as "
                  "the Block builder's 'Tied LM head' switch does); for an n-gram, P is the row of its count table.")
                if tied else
                _("For the transformer, h_t is the last position's vector after the final block and W_vocab (d x V) "
                  "gives one score per character; for an n-gram, P is the row of its count table."))
        st.caption(f"{shown.likeliest(t, tokenizer.decode)} {head}")

        st.subheader(_(SAMPLES_TITLE))
        if not is_source():
            st.caption(_(TRAINED_ON_ENGLISH))
        columns = st.columns(len(generations))
        for column, (name, g) in zip(columns, generations.items()):
            with column:
                st.markdown(f"**{model_name(name)}**")
                st.code(prompt + g.text, language=None, wrap_lines=True)


samples_section()

# --- the ladder ---------------------------------------------------------------------------------------
st.subheader(_(LADDER_HEADING))
rungs = page.run_engine(loaders.fixed_ladder) if not page.veiled(LADDER) else None
if rungs is not None:
    more = [Bar(run["label"][:40], run["rung"].bits_per_char, "your live runs") for run in BLOCK_RUNS.get() or []]
    smollm2 = None
    if st.toggle(_("Add SmolLM2-135M, a transformer pretrained on web text (scores {n} characters once, about a "
                   "minute)", n=numbers.grouped(20_000)), key="ladder_smollm2"):
        smollm2 = pretrained_views.model_ladder_entry(loaders.char_corpus()[3])
        if smollm2 is not None:
            more.append(Bar(_("SmolLM2-135M (pretrained, web text)"), smollm2.bits_per_character, "pretrained"))
    bars = [(bar.model, bar.bits_per_char, bar.kind) for bar in ladder(rungs, loaders.char_corpus()[0].vocab_size,
                                                                        more)]
    named = [(model_name(model), bits, kind) for model, bits, kind in bars]   # the reader's names, on the charts
    charts.show(ladder_bars(named))
    st.markdown(_("**The top of the ladder, zoomed**: the models within half a bit of the best, on an axis that "
                  "starts near them, so that the gaps the sentences below talk about can be seen."))
    charts.show(ladder_zoom(named, within=0.5))
    n_chars = rungs[0].n_characters
    notes = loaders.shipped_transformer()[1]
    st.markdown(_(
        "All models are scored on the same {n} held-out characters ({passages} passages spread over the validation "
        "split, one play's ending after another), in bits per character so that any tokenizer could join (1 bit = ln "
        "2 = {nats} nats). Every n-gram order from 1 to {most} is counted on the training split and scored. The "
        "shipped transformer: {training}.", n=numbers.grouped(n_chars), passages=limits.LADDER_PASSAGES,
        nats=numbers.fixed(math.log(2)), most=limits.LADDER_MAX_NGRAM_ORDER, training=shipped_summary(notes)))
    st.markdown(ladder_reading([Bar(*bar) for bar in bars]))
    if smollm2 is not None:
        st.caption(_("SmolLM2 reads the same {n} characters as {tokens} subword tokens ({bits} bits per token). It "
                     "is not a fair rung: it has {millions} M parameters, read trillions of tokens of web text, which "
                     "very likely include these plays, and was never limited to their 75 characters. It shows what "
                     "scale buys, not what the small models could reach.", n=numbers.grouped(smollm2.n_characters),
                     tokens=numbers.grouped(smollm2.n_tokens),
                     bits=numbers.fixed(smollm2.nats_per_token / math.log(2), 2), millions=numbers.fixed(134.5, 1)))
    st.info(_("Honestly: a transformer needs minutes of training to beat a Kneser-Ney 4-gram. The baby GPT with the "
              "Block builder's 3-minute schedule gets below the 4-gram by about {gap} bits per character on a recent "
              "server processor that multiplies matrices in a shorter number format several times faster, and stays "
              "far above the 6- and 7-grams; a one-minute run, or a run on an ordinary laptop processor, stays above "
              "the 4-gram too. The n-gram only counts (seconds of work); the transformer must learn the same "
              "statistics by gradient descent, and only pulls ahead with more compute, when it uses context longer "
              "than the n-grams can count reliably.", gap=numbers.fixed(0.1, 1)),
            icon=":material/balance:")


@page.section(SMOLLM2)
def smollm2_section() -> None:
    """SmolLM2's sampling panel: its switch and its own settings rerun only this."""
    with st.expander(_("Sample from SmolLM2, a pretrained model (its own tokens, any text)"),
                     icon=":material/edit_note:"):
        if st.toggle(_("Load SmolLM2 (once per server, a few seconds)"), key="sample_smollm2"):
            pretrained_views.sampling_panel(key="gen_smollm2")


smollm2_section()

# --- code, challenges, reading ------------------------------------------------------------------------
@page.section(CODE)
def code_section() -> None:
    """The code with the sidebar's settings, and the challenges (temperature 0, the models picked)."""
    models_picked, prompt, temperature, top_k, length, seed = settings()
    code.show_code({"Python": generate_code(
        prompt, length, seed=seed, temperature=temperature, top_k=top_k,
        generation=lambda: loaders.generation(SHIPPED, prompt, temperature, top_k, length, seed))})

    challenges.try_this([
        challenges.Challenge(_("Set the temperature to 0: every model now always picks its most likely character. "
                               "Which one falls into a loop?"), done=temperature == 0,
                             hint=_("Slide the temperature τ to 0."), solution={STATE.key("gen_temperature"): 0.0}),
        challenges.Challenge(_("Compare the 2-gram and the 5-gram side by side on the same seed."),
                             done={"2-gram", "5-gram"} <= set(models_picked),
                             hint=_("Pick the 2-gram and the 5-gram in '{models}'.", models=P["gen_models"].label),
                             solution={STATE.key("gen_pick"): ["2-gram", "5-gram"]}),
        challenges.Challenge(_("Train a model on the Block builder page and bring it here next to the shipped one."),
                             done=LIVE in models_picked,
                             hint=_("Train a run on the Block builder page in this same tab, come back, and pick "
                                    "'{live}' in '{models}'.", live=model_name(LIVE), models=P["gen_models"].label),
                             solution={STATE.key("gen_pick"): [SHIPPED, LIVE]} if live is not None else None),
    ])


code_section()

page.further_reading(PAGE.reading)
page.next_idea(__file__)
warmup.prefetch("SmolLM2's default sample")  # ui.warmup
