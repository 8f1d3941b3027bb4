"""The transformer: Position (views/position.py). The Block builder and Generate have their own modules,
gradio_tabs/block_builder.py and gradio_tabs/generate.py."""
from __future__ import annotations


import gradio as gr

from engine import limits
from engine.attention.mechanism import random_projections
from engine.charts.bars import difference_bars
from engine.charts.heatmaps import encoding_heatmap, heatmap_panels, heatmap_spec
from engine.charts.lines import offset_profile
from engine.charts.style import side_by_side
from engine.transformer.positional import (
    ENCODINGS, SINUSOID_BASE, diagonal_spread, dot_products_by_offset, permutation_between, permutation_check,
    positional_encoding, random_permutation, rotary_scores,
)
from engine.embeddings.tiny_vocabulary import embed, load_vocabulary, tokenize
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
