"""The transformer: Position, the Block builder (with a short live training, streamed) and Generate
(views/position.py, views/block_builder.py, views/generate.py)."""
from __future__ import annotations

import math
import time

import gradio as gr

from engine import limits
from engine.attention.mechanism import random_projections
from engine.charts.bars import difference_bars, ladder_bars, next_token_bars, parameter_bars
from engine.charts.heatmaps import encoding_heatmap, heatmap_panels, heatmap_spec
from engine.charts.lines import loss_curves, offset_profile
from engine.charts.style import side_by_side, visible
from engine.transformer.generation import generate
from engine.transformer.ladder import Bar, ladder_sentences
from engine.language.ngram import nats_to_bits
from engine.transformer.positional import (
    ENCODINGS, SINUSOID_BASE, diagonal_spread, dot_products_by_offset, permutation_between, permutation_check,
    positional_encoding, random_permutation, rotary_scores,
)
from engine.embeddings.tiny_vocabulary import embed, load_vocabulary, tokenize
from engine.transformer.config import (
    ACTIVATIONS, COUNT_RULE, LAYER_NORMS, POSITIONALS, PRESETS, TransformerConfig, count_parameters, dataflow,
    scale_row,
)
from gradio_tabs import loaders
from gradio_tabs.common import chart, engine_call, plot, question, refuse, table, whole

# --- position ---------------------------------------------------------------------------------------------
ENCODING_NAMES = {"none": "none (words only)", "sinusoidal": "sinusoidal (Vaswani et al.)",
                  "learned": "learned (a free table, shown untrained)"}
ROTARY_SHOWN = 12      # positions in the rotary table, as on the page


def position_tab(a: str, b: str, encoding: str, strength: float, projections: bool, causal: bool, seed: float):
    """Attention over sentence A and over B, the same words in another order: does any word's context
    vector change? Not without a positional encoding (or a mask); yes with one."""
    vocabulary = load_vocabulary()
    seed = whole(seed, 0, 100_000, "seed")
    sentence = engine_call(embed, a or "", vocabulary)
    perm = engine_call(permutation_between, sentence.tokens, tokenize(b or ""))
    W = random_projections(vocabulary.d, seed) if projections else {}
    check = engine_call(permutation_check, sentence.x, perm, encoding, W_q=W.get("W_q"), W_k=W.get("W_k"),
                        W_v=W.get("W_v"), causal=bool(causal), strength=float(strength), seed=seed)
    tokens_a = sentence.tokens
    tokens_b = [tokens_a[j] for j in check.perm]
    rows = [{"word": word, "slot in A": int(slot), "slot in B": j, "largest change": float(change)}
            for j, (word, slot, change) in enumerate(zip(tokens_b, check.perm, check.difference))]
    if check.equivariant:
        verdict = (f"Largest change of any word's context vector: **{check.largest_written}**, under "
                   f"the rounding tolerance {check.tolerance:.0e}. Same bag of words, same context vectors, only "
                   "listed in another order: attention cannot tell A from B.")
    else:
        verdict = (f"Largest change of any word's context vector: **{check.largest_written}**. The words' "
                   "context vectors differ between A and B: now order matters.")
    weights = heatmap_panels({"weights alpha in A": (check.original.weights, tokens_a, tokens_a),
                              "weights alpha in B": (check.shuffled.weights, tokens_b, tokens_b)},
                             domain=(0.0, 1.0), cell=40, columns=2, causal=bool(causal), digits=3)
    changes = difference_bars(check.difference, tokens_b, title="max |c_B(word) - c_A(word)| for each word")
    return table(rows), plot(weights), plot(changes, width=480), verdict


def shuffle_tab(a: str, shuffles: int):
    """Sentence B as a fresh shuffle of A's words (the next seed each press)."""
    words = tokenize(a or "")
    if not 1 < len(words) <= limits.MAX_SENTENCE_WORDS:
        refuse(f"Sentence A needs 2 to {limits.MAX_SENTENCE_WORDS} words to shuffle.")
    order = engine_call(random_permutation, len(words), shuffles + 1)
    return " ".join(words[j] for j in order), shuffles + 1


def encodings_tab(T: float, d: float, base: float, seed: float):
    """The sinusoidal and (untrained) learned tables p_t, how alike two positions k apart are, and rotary
    scores that depend on the offset i - j only."""
    T = whole(T, 4, limits.MAX_DRAWN_POSITIONS, "number of positions T")
    d = whole(d, 2, limits.MAX_DRAWN_POSITIONS, "width d")
    seed = whole(seed, 0, 100_000, "seed")
    tables = {name: engine_call(positional_encoding, name, T, d, seed=seed, base=float(base))
              for name in ("sinusoidal", "learned")}
    profiles = {name: dot_products_by_offset(P) for name, P in tables.items()}
    cell = max(3, 300 // max(T, d))
    pictures = side_by_side(*[encoding_heatmap(P, title=f"{name}: p_t for t < {T}, d = {d}", cell=cell)
                              for name, P in tables.items()])
    offsets = offset_profile(profiles, title="p_i . p_(i+k) by offset k: mean over i, band lowest to highest")
    rows = [{"offset k": int(k), "sinusoidal: mean p_i . p_(i+k)": round(float(sin_mean), 4),
             "sinusoidal: spread over i": float(sin_spread), "learned: mean": round(float(learned_mean), 4),
             "learned: spread": round(float(learned_spread), 4)}
            for k, sin_mean, sin_spread, learned_mean, learned_spread in
            zip(profiles["sinusoidal"].offsets, profiles["sinusoidal"].mean, profiles["sinusoidal"].spread,
                profiles["learned"].mean, profiles["learned"].spread)]
    vocabulary = load_vocabulary()
    shown = min(T, ROTARY_SHOWN)
    rot = engine_call(rotary_scores, vocabulary.vector("owl"), vocabulary.vector("cat"), shown, float(base))
    rotary = heatmap_spec(rot, [str(i) for i in range(shown)], [str(j) for j in range(shown)], digits=2, cell=34,
                          value_name="score", scheme="viridis", x_title="key position j", y_title="query position i",
                          title=f"rot(q_owl, i) . rot(k_cat, j), d = {vocabulary.d}, base = {float(base):g}")
    summary = (f"Sinusoidal: p_t . p_(t+1) = {profiles['sinusoidal'].mean[1]:.3f} at every t (spread "
               f"{profiles['sinusoidal'].spread[1]:.1e}): each pair of columns is a clock, so the dot product depends "
               f"only on the offset. Learned (untrained): spread {profiles['learned'].spread[1]:.2f}, nothing ties "
               f"p_5 to p_6 until training does. Rotary: the largest spread along any diagonal is "
               f"{diagonal_spread(rot).max():.1e}, rounding only.")
    return table(rows), plot(pictures), plot(offsets, width=480), plot(rotary), summary


def position_page_tab(demo: gr.Blocks) -> None:
    vocabulary = load_vocabulary()
    question("Shuffle the words: does attention notice?",
             f"Words this tiny vocabulary knows: {', '.join(vocabulary.words)}.")
    with gr.Row():
        a = gr.Textbox("the owl saw the cat", label="Sentence A", max_length=200)
        b = gr.Textbox("the cat saw the owl", label="Sentence B: the same words in another order", max_length=200)
        shuffle = gr.Button("Shuffle A into B")
    shuffles = gr.State(0)
    with gr.Row():
        encoding = gr.Radio([(ENCODING_NAMES[e], e) for e in ENCODINGS], value="none",
                            label="Positional encoding added to each word")
        strength = gr.Slider(0.0, 2.0, value=1.0, step=0.05, label="Strength s of the encoding")
    with gr.Row():
        projections = gr.Checkbox(False, label="Projections W_Q, W_K, W_V (seeded, untrained)")
        causal = gr.Checkbox(False, label="Causal mask (each word sees only the words before it)")
        seed = gr.Number(0, label="Seed (projections and the learned table)", precision=0, minimum=0,
                         maximum=100_000)
    go = gr.Button("Compare A and B", variant="primary")
    verdict = gr.Markdown(label="summary")
    changes = chart(label="How much each word's context moved")
    rows = gr.Dataframe(label="Each word of B")
    weights = chart(label="The weights in A and in B")
    inputs, outputs = [a, b, encoding, strength, projections, causal, seed], [rows, weights, changes, verdict]
    shuffle.click(shuffle_tab, [a, shuffles], [b, shuffles], api_visibility="private").then(
        position_tab, inputs, outputs, api_visibility="private")
    go.click(position_tab, inputs, outputs, api_name="position")
    demo.load(position_tab, inputs, outputs, api_visibility="private")

    gr.Markdown("#### The encodings themselves")
    with gr.Row():
        T = gr.Slider(4, limits.MAX_DRAWN_POSITIONS, value=32, step=1, label="Positions T")
        d = gr.Slider(2, limits.MAX_DRAWN_POSITIONS, value=32, step=2, label="Width d")
        base = gr.Number(SINUSOID_BASE, label="Base of the sinusoids", minimum=limits.MIN_SINUSOID_BASE,
                         maximum=limits.MAX_SINUSOID_BASE)
    draw = gr.Button("Draw the tables", variant="primary")
    summary = gr.Markdown(label="summary")
    pictures = chart(label="p_t, position by dimension")
    offsets = chart(label="Dot products by offset")
    rotary = chart(label="Rotary scores")
    offset_rows = gr.Dataframe(label="p_i . p_(i+k) by offset k", max_height=300)
    inputs, outputs = [T, d, base, seed], [offset_rows, pictures, offsets, rotary, summary]
    draw.click(encodings_tab, inputs, outputs, api_name="encodings")
    demo.load(encodings_tab, inputs, outputs, api_visibility="private")


# --- block builder ---------------------------------------------------------------------------------------
FIELDS = ["vocab_size", "context_length", "d_model", "n_heads", "d_ff", "n_layers", "activation", "layer_norm",
          "residual", "positional", "causal", "tied_head", "final_norm", "bias"]
DEFAULT_PRESET = "tiny (the chapter's block)"
NORM_NAMES = {"post": "post-norm (the chapter)", "pre": "pre-norm (GPT-2)", "none": "no LayerNorm"}
TRAIN_SECONDS = 10      # the Gradio tab's default run: a few seconds at the smallest preset
POLL_S = 1.0            # seconds between two progress updates of a run (the page's too)
HISTORY_COLUMNS = ["step", "seconds", "training loss (bits/char)", "held-out loss (bits/char)"]


def _config(values: dict) -> TransformerConfig:
    """The sizes and switches (a dict with every name of FIELDS) as the engine's configuration, whole numbers
    checked first."""
    fields = {name: values[name] for name in FIELDS}
    for name in ("vocab_size", "context_length", "d_model", "n_heads", "d_ff", "n_layers"):
        fields[name] = whole(fields[name], 1 if name != "n_layers" else 0, 10**9, name)
    return engine_call(lambda: TransformerConfig(**fields))


def preset_tab(preset: str):
    """A known model's sizes and switches (FIELDS order), to load into the form."""
    if preset not in PRESETS:
        refuse(f"Choose one of the presets: {', '.join(PRESETS)}.")
    return [getattr(PRESETS[preset], field) for field in FIELDS]


def block_tab(vocab_size: float, context_length: float, d_model: float, n_heads: float, d_ff: float,
              n_layers: float, activation: str, layer_norm: str, residual: bool, positional: str, causal: bool,
              tied_head: bool, final_norm: bool, bias: bool):
    """Parameters by part, every stage with its formula and output shape, and the presets for scale."""
    config = _config(locals())
    count = count_parameters(config)
    parts = [{"part": part, "parameters": n} for part, n in count.parts().items()]
    stages = [{"stage": s.name, "computes": s.formula, "output shape": " x ".join(map(str, s.shape)),
               "parameters": s.parameters, "per block": "yes" if s.in_block else ""} for s in dataflow(config)]
    scale = [scale_row(name, c) for name, c in {"your block": config, **PRESETS}.items()]
    per_block = max(count.per_block, 1)
    summary = (f"**{count.total:,} parameters.** Inside a block, attention holds "
               f"**{count.attention_per_block / per_block:.0%}** of the parameters and the feed-forward network "
               f"**{count.feed_forward_per_block / per_block:.0%}**; the stack repeats the block N = "
               f"{config.n_layers} times. Multi-head costs no more than one full-width head: h = {config.n_heads} "
               f"heads of d_k = {config.d_k} use the same 4d² numbers. For scale, the presets: {COUNT_RULE}")
    return (table(parts), table(stages), table(scale), plot(parameter_bars(count.parts())), summary)


def _progress(job, config_label: str, baselines: dict) -> tuple:
    """What a run looks like now: a sentence, its history (bits per character), the loss chart."""
    history = list(job.history)
    shown = [p for p in history if p.held_out_loss is not None] + history[-1:]   # each evaluation, and now
    rows = [(p.step, round(p.seconds, 2), round(nats_to_bits(p.train_loss), 4),
             None if p.held_out_loss is None else round(nats_to_bits(p.held_out_loss), 4)) for p in shown]
    latest = history[-1] if history else None
    position = job.queue_position          # 0 once the line is behind it, though the run may not have begun yet
    if job.state == "waiting" and position:
        text = (f"Waiting for a free slot: you are number {position} in line "
                f"({limits.MAX_TRAININGS_PER_MACHINE} trainings run at once on this machine).")
    elif job.state == "waiting":
        text = "Your turn: the run is starting."
    elif latest is None:
        text = "Starting (the first run on a server also loads PyTorch's optimiser)."
    else:
        ended = {"done": "Done", "stopped": "Stopped"}.get(job.state, "Training")
        text = (f"{ended}: step {latest.step:,}, {latest.seconds:.1f} s, training loss "
                f"{nats_to_bits(latest.train_loss):.3f} bits per character, {latest.tokens_per_second:,.0f} tokens/s.")
        if job.result is not None and job.result.final_held_out_loss is not None:
            text += (f" Held-out: **{nats_to_bits(job.result.final_held_out_loss):.3f} bits per character** "
                     f"(the uniform guess over the characters: {math.log2(job.model.config.vocab_size):.2f}).")
    evaluated = [p for p in history if p.held_out_loss is not None]
    run = {"label": config_label, "steps": [p.step for p in history], "train_loss": [p.train_loss for p in history],
           "eval_steps": [p.step for p in evaluated], "held_out_loss": [p.held_out_loss for p in evaluated]}
    return text, table(rows, HISTORY_COLUMNS), plot(loss_curves([run], baselines))


def train_tab(vocab_size: float, context_length: float, d_model: float, n_heads: float, d_ff: float,
              n_layers: float, activation: str, layer_norm: str, residual: bool, positional: str, causal: bool,
              tied_head: bool, final_norm: bool, bias: bool, seconds: float, steps: float, learning_rate: float,
              batch: float, seed: float):
    """Train the block on the plays' characters for a few seconds, streaming progress (a generator: the
    queue sends each update); the block's sizes and switches, then the schedule. The budget and sizes are
    limited as on the Block builder (engine.limits)."""
    from engine.machinery.training_jobs import live_job
    from engine.transformer.training import live_schedule

    config = _config(locals())
    seconds = whole(seconds, 1, limits.MAX_TRAIN_SECONDS, "time budget (seconds)")
    steps = whole(steps, 1, limits.MAX_TRAIN_STEPS, "number of steps")
    batch = whole(batch, 1, limits.MAX_TRAIN_BATCH, "batch")
    seed = whole(seed, 0, 2**31 - 1, "seed")
    tokenizer, train_ids, held_out_ids = engine_call(loaders.tokens, "characters")
    schedule = engine_call(live_schedule, batch, steps, seconds, float(learning_rate), seed)
    # the n-gram lines first: counted while the run trained, on a server without the prepared cache, they took the
    # CPU from the run's time budget and held back its first progress update until it had ended
    baselines = {rung.model.split(" ")[0]: rung.nats_per_token for rung in engine_call(loaders.ladder)
                 if rung.model.split("-")[0] in ("2", "3", "4", "5")}
    job = engine_call(live_job, config, tokenizer.vocab_size, train_ids, held_out_ids, schedule)
    label = f"d={config.d_model} h={config.n_heads} N={config.n_layers}, {config.layer_norm}-norm, {seconds} s"
    try:
        while not job.finished:
            yield _progress(job, label, baselines)
            time.sleep(POLL_S)
        if job.state == "failed":
            refuse(f"The run failed: {job.error}")
        yield _progress(job, label, baselines)
    finally:
        job.stop()            # a visitor who leaves (or a cancelled call) frees the training slot


def block_builder_tab(demo: gr.Blocks) -> None:
    question("What is inside a transformer block, what does each part cost, and what does it buy?",
             "Set the sizes and switches (or load a preset): parameter counts and shapes follow from the formula.")
    preset = gr.Dropdown(list(PRESETS), value=DEFAULT_PRESET, label="Preset")
    tiny = PRESETS[DEFAULT_PRESET]
    with gr.Row():
        d_model = gr.Number(tiny.d_model, label="width d_model", precision=0, minimum=1)
        n_heads = gr.Number(tiny.n_heads, label="heads h", precision=0, minimum=1)
        d_ff = gr.Number(tiny.d_ff, label="FFN width d_ff", precision=0, minimum=1)
        n_layers = gr.Number(tiny.n_layers, label="blocks N", precision=0, minimum=0)
        context_length = gr.Number(tiny.context_length, label="context T", precision=0, minimum=1,
                                   maximum=limits.MAX_CONTEXT_LENGTH)
        vocab_size = gr.Number(tiny.vocab_size, label="vocabulary V", precision=0, minimum=1)
    with gr.Row():
        layer_norm = gr.Radio([(NORM_NAMES[n], n) for n in LAYER_NORMS], value=tiny.layer_norm, label="LayerNorm")
        activation = gr.Radio(list(ACTIVATIONS), value=tiny.activation, label="Activation in the FFN")
        positional = gr.Radio(list(POSITIONALS), value=tiny.positional, label="Positions")
    with gr.Row():
        residual = gr.Checkbox(tiny.residual, label="Residual connections")
        causal = gr.Checkbox(tiny.causal, label="Causal mask")
        tied_head = gr.Checkbox(tiny.tied_head, label="Tied LM head (W_vocab = Eᵀ)")
        final_norm = gr.Checkbox(tiny.final_norm, label="Final LayerNorm")
        bias = gr.Checkbox(tiny.bias, label="Biases")
    fields = dict(vocab_size=vocab_size, context_length=context_length, d_model=d_model, n_heads=n_heads, d_ff=d_ff,
                  n_layers=n_layers, activation=activation, layer_norm=layer_norm, residual=residual,
                  positional=positional, causal=causal, tied_head=tied_head, final_norm=final_norm, bias=bias)
    sizes = [fields[name] for name in FIELDS]
    count = gr.Button("Count the parameters", variant="primary")
    summary = gr.Markdown(label="summary")
    bars = chart(label="Parameters by part, as bars")
    parts = gr.Dataframe(label="Parameters by part")
    stages = gr.Dataframe(label="Every stage, its formula, its output shape (one sequence of T tokens)")
    scale = gr.Dataframe(label="For scale: the same formula for the presets")
    outputs = [parts, stages, scale, bars, summary]
    preset.change(preset_tab, [preset], sizes, api_name="block_preset").then(
        block_tab, sizes, outputs, api_visibility="private")
    count.click(block_tab, sizes, outputs, api_name="block")
    demo.load(block_tab, sizes, outputs, api_visibility="private")

    gr.Markdown("#### Train it live on Shakespeare, one character at a time (a few seconds on a shared CPU; "
                f"at most {limits.MAX_TRAIN_SECONDS} s, {limits.MAX_TRAININGS_PER_MACHINE} runs at once)")
    with gr.Row():
        seconds = gr.Slider(1, limits.MAX_TRAIN_SECONDS, value=TRAIN_SECONDS, step=1, label="time budget (s)")
        steps = gr.Number(10_000, label="max steps", precision=0, minimum=1, maximum=limits.MAX_TRAIN_STEPS)
        learning_rate = gr.Number(0.003, label="peak learning rate", minimum=0, maximum=1, step=0.001)
        batch = gr.Number(16, label="batch B", precision=0, minimum=1, maximum=limits.MAX_TRAIN_BATCH)
        train_seed = gr.Number(0, label="seed", precision=0, minimum=0)
    with gr.Row():
        start = gr.Button("Train", variant="primary")
        stop = gr.Button("Stop")
    progress = gr.Markdown(label="summary")
    curves = chart(label="Loss in bits per character (dashed: the n-gram baselines)")
    history = gr.Dataframe(label="Each held-out evaluation, and the latest step", max_height=300)
    run = start.click(train_tab, [*sizes, seconds, steps, learning_rate, batch, train_seed],
                      [progress, history, curves], api_name="train")
    stop.click(None, cancels=[run])


# --- generate ------------------------------------------------------------------------------------------------
DEFAULT_PROMPT = "ROMEO:\nBut soft, what light"
SHIPPED = "shipped transformer"
NGRAMS = {"2-gram": 2, "3-gram": 3, "4-gram": 4, "5-gram": 5}
MAX_MODELS = 4          # side by side, as on the page
TOP_SHOWN = 8           # next characters drawn per model


def _language_model(name: str):
    if name == SHIPPED:
        return loaders.shipped()[0]
    if name in NGRAMS:
        return loaders.char_ngram(NGRAMS[name])
    refuse(f"Choose models among: {', '.join([SHIPPED, *NGRAMS])}; not {name!r}.")


def generate_tab(prompt: str, models: list[str], temperature: float, top_k: float, length: float, seed: float,
                 step: float):
    """The same prompt and seed through each model, one character at a time: the samples, and each model's
    P(next character) at one step (p as the model gives it, q after temperature and top-k)."""
    models = list(dict.fromkeys(models or []))
    if not 1 <= len(models) <= MAX_MODELS:
        refuse(f"Choose 1 to {MAX_MODELS} models to compare side by side.")
    length = whole(length, 1, limits.MAX_GENERATE_TOKENS, "number of characters")
    seed = whole(seed, 0, 2**31 - 1, "seed")
    top_k = whole(top_k, 0, 75, "top-k (0 keeps all)") or None
    step = whole(step, 1, length, "step")
    runs = {name: engine_call(generate, engine_call(_language_model, name), prompt or "", length, seed=seed,
                              temperature=float(temperature), top_k=top_k) for name in models}
    tokenizer = loaders.tokens("characters")[0]
    samples = [{"model": name, "sample": (prompt or "") + g.text} for name, g in runs.items()]
    tops = {name: [(tokenizer.decode([i]), p, q) for i, p, q in g.steps[step - 1].top(TOP_SHOWN)]
            for name, g in runs.items()}
    rows = [{"model": name, "character": visible(c), "P": round(p, 4), "q (sampled from)": round(q, 4)}
            for name, top in tops.items() for c, p, q in top]
    first = runs[models[0]].steps[step - 1].top(1)[0]
    summary = (f"Step {step}: each model's context is the prompt plus its own {step - 1} earlier draws. For the "
               f"{models[0]}, the likeliest next character is '{visible(tokenizer.decode([first[0]]))}', "
               f"P = {first[1]:.3f} -> q = {first[2]:.3f} after temperature {float(temperature):g}"
               + (f" and top-{top_k}" if top_k else "")
               + ". The same seed draws the same random numbers for every model.")
    texts = "\n\n".join(f"**{row['model']}**\n```text\n{row['sample']}\n```" for row in samples)
    return table(samples), table(rows), plot(next_token_bars(tops, width=220)), summary, texts


def ladder_tab():
    """Every character n-gram (1 to 8) and the shipped transformer on the same held-out characters, in bits
    per character (fewer is better), with a uniform guess as the floor."""
    rungs = engine_call(loaders.ladder)
    bars = [(r.model, r.bits_per_char, "n-gram" if "gram" in r.model else "transformer") for r in rungs]
    bars.append(("uniform guess (1/V)", math.log2(loaders.tokens("characters")[0].vocab_size), "baseline"))
    rows = [{"model": r.model, "bits per character": round(r.bits_per_char, 4),
             "nats per token": round(r.nats_per_token, 4), "held-out characters": r.n_characters} for r in rungs]
    sentences = " ".join(ladder_sentences([Bar(*bar) for bar in bars], shipped=SHIPPED))
    return table(rows), plot(ladder_bars(bars)), sentences


def generate_page_tab(demo: gr.Blocks) -> None:
    question("How does a stack of blocks become text, and which model predicts Shakespeare best?",
             "Characters of the plays only: every model here reads the same 75-character vocabulary.")
    prompt = gr.Textbox(DEFAULT_PROMPT, label="Prompt", lines=2, max_length=limits.MAX_PROMPT_CHARS)
    models = gr.Dropdown([SHIPPED, *NGRAMS], value=[SHIPPED, "4-gram", "2-gram"], multiselect=True,
                         max_choices=MAX_MODELS, label="Models, side by side")
    with gr.Row():
        temperature = gr.Slider(0.0, 2.0, value=0.8, step=0.05, label="Temperature τ")
        top_k = gr.Number(0, label="top-k (0 = keep all)", precision=0, minimum=0, maximum=75)
        length = gr.Number(100, label="characters to generate", precision=0, minimum=1,
                           maximum=limits.MAX_GENERATE_TOKENS)
        seed = gr.Number(0, label="seed", precision=0, minimum=0)
        step = gr.Number(1, label="step shown", precision=0, minimum=1)
    go = gr.Button("Generate", variant="primary")
    summary = gr.Markdown(label="summary")
    texts = gr.Markdown(label="The samples, as text")
    samples = gr.Dataframe(label="Samples from the same prompt and seed", visible=False)
    bars = chart(label="P(next character) at that step (orange: q, what is sampled)")
    following = gr.Dataframe(label="The likeliest next characters", max_height=360)
    inputs = [prompt, models, temperature, top_k, length, seed, step]
    outputs = [samples, following, bars, summary, texts]
    go.click(generate_tab, inputs, outputs, api_name="generate")
    demo.load(generate_tab, inputs, outputs, api_visibility="private")

    gr.Markdown("#### The model ladder: held-out bits per character")
    rank = gr.Button("Rank the models", variant="primary")
    sentences = gr.Markdown(label="summary")
    ladder_chart = chart(label="The ladder")
    rungs = gr.Dataframe(label="Every model on the same held-out text")
    rank.click(ladder_tab, [], [rungs, ladder_chart, sentences], api_name="ladder")
    demo.load(ladder_tab, [], [rungs, ladder_chart, sentences], api_visibility="private")
