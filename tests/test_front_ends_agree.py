"""One home per part for what both front ends say: given the same input, the Streamlit page and the Gradio tab print
the same sentence, the engine's (engine.attention.readings.context_reading for the Context page,
calculator_reading for the attention calculator), and offer the same examples and the
same window range (engine.chapter.context; the Context page's own test is tests/front_ends/test_context.py).
Before, each front end kept its own copy of the sentences, the slider's range and the two-sentence reading; a change
to one copy left the other front end saying something else.
"""
from __future__ import annotations

import re

import pytest

from tests.pages.conftest import run_file

pytest.importorskip("gradio")

CALCULATOR = "views/attention_calculator.py"


@pytest.mark.parametrize("link", [
    {},                                                                 # the chapter's crane by the lake
    {"scaled": "0"},                                                    # its raw steps, d_k not divided out
    {"x": "a: 1 0\nb: 1 0\nc: 0 1", "query": "1", "causal": "1"},      # a tie between a and b, masked
    {"x": "loud: 90 0 40\nby: 0 1 0.1\nthe: 0.1 0.9 0\nlake: 80 0.2 30", "query": "3", "scaled": "0"},
    {"sharp": "4"},                                                     # sharper: beta multiplies the scores
    {"proj": "1", "w_start": "random", "w_seed": "7", "query": "2"},    # learned projections, random from a seed
    {"proj": "1", "W_q": "1 0 0\n0 2 0\n0 0 1", "sharp": "0.5"},       # an edited W_Q, in the link
])
def test_the_calculator_says_and_shows_the_same_in_both_front_ends_and_the_class(link):
    """One link, three readers: the page's sentence and heatmap, the Gradio tab's sentence and table, and the class
    question's answer all come from engine.chapter.attention.calculation (beta and projections included)."""
    from engine.attention.readings import calculator_reading
    from engine.chapter.attention import PAGE, calculation
    from engine.chapter.questions import questions_for
    from gradio_tabs.attention_calculator import from_link
    from tests.pages.conftest import chart_rows

    values = PAGE.values(link)
    shown = calculation(values)
    q, row = shown.query, shown.result.weights[shown.query]
    expected = calculator_reading(row, shown.labels, q, d_k=shown.result.d_k, scaled=values["scaled"],
                                  keys_are_inputs=not values["proj"])
    at = run_file(CALCULATOR, link)
    assert not at.exception, [e.value for e in at.exception]
    assert expected in [m.value for m in at.markdown]                    # the page's sentence
    heatmap = next(c.proto for c in at.get("vega_lite_chart") if "each row sums to 1" in c.proto.spec)
    cells = [cell for cell in chart_rows(heatmap).to_pylist() if cell["i"] == q]       # the heatmap's row q
    assert [cell["text"] for cell in sorted(cells, key=lambda cell: cell["j"])] == [f"{w:.3f}" for w in row]
    weights, _, gradio_says, _ = from_link(values)
    assert gradio_says == expected                                       # the Gradio tab's
    assert weights.iloc[q][shown.labels].astype(float).round(3).tolist() == list(row.round(3))
    largest = questions_for("attention", link)[0]                        # the class's, as revealed
    best = max(range(len(row)), key=lambda j: row[j])
    assert f"{row[best]:.3f}" in largest.explanation
    assert ("tie" in largest.explanation) == (largest.options[largest.answer].startswith("Two or more"))


HEAD_VIEWER = "views/head_viewer.py"
REPEATED = ("violet gravel oyster tundra sprocket lantern walnut pebble orbit "
            "violet gravel oyster tundra sprocket lantern walnut pebble orbit")


@pytest.mark.parametrize("link", [
    {},                                                                        # the coreference sentence, 16/0
    {"text": "The cat sat on the mat because the cat was tired.", "layer": "3", "head": "2"},
    {"text": REPEATED, "layer": "18", "head": "6"},                            # an induction head with a copy
    {"text": "the owl saw the cat " * 12, "layer": "99", "head": "4"},        # past the token limit; no layer 99
])
def test_the_head_viewer_reads_the_same_head_in_both_front_ends_and_the_class(link, smollm2_installed):
    """One link, three readers of SmolLM2's head: the page (its head, its sentence, its heatmap), the Gradio tab
    (engine.chapter.heads.head_view on its own pass) and the class questions read the same weights, type and
    sentence, and all three cut the text at the one token limit, limits.HEAD_VIEWER_MAX_TOKENS."""
    import numpy as np

    from engine import limits
    from engine.chapter.heads import PAGE, head_sentence, head_view
    from engine.chapter.questions import questions_for
    from engine.classroom.questions import EngineSources
    from gradio_tabs.head_viewer import from_link
    from tests.pages.conftest import chart_rows

    values = PAGE.values(link)
    sources = EngineSources()
    result = sources.pretrained_heads(values["model"], values["text"], limits.HEAD_VIEWER_MAX_TOKENS)
    view = head_view(values, result, sources.pretrained_head_types(values["model"], values["text"],
                                                                    limits.HEAD_VIEWER_MAX_TOKENS))
    T = len(view.tokens)
    assert T <= limits.HEAD_VIEWER_MAX_TOKENS and (T == limits.HEAD_VIEWER_MAX_TOKENS) == (result.note is not None)
    at = run_file(HEAD_VIEWER, link, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert f"Layer {view.layer}, head {view.head}: {view.kind}" in [s.value for s in at.subheader]
    assert any(head_sentence(view) in c.value for c in at.caption)                 # the page's sentence
    heatmap = next(c.proto for c in at.get("vega_lite_chart") if "same weights as a heatmap" in c.proto.spec)
    cells = sorted((cell for cell in chart_rows(heatmap).to_pylist() if cell["i"] == T - 1), key=lambda c: c["j"])
    assert len(cells) == T and np.allclose([cell["weight"] or 0.0 for cell in cells], view.alpha[-1], atol=1e-6)
    rows, gradio_says, _ = from_link(values)
    assert head_sentence(view) in gradio_says and f"**{view.kind}**" in gradio_says            # the Gradio tab's
    assert len(rows) == T and np.allclose(rows.iloc[-1, 1:].astype(float), view.alpha[-1].round(3), atol=1e-3)
    kind, looks = questions_for("heads", link, sources)                                    # the class's
    assert kind.options[kind.answer] == view.kind
    assert f"layer {view.layer}, head {view.head}?" in kind.prompt
    best = int(np.argmax(view.alpha[-1]))
    assert looks.options[looks.answer].startswith(f"{best}: ") or looks.options[looks.answer].startswith("Two")
    assert f"{view.alpha[-1][best]:.3f}" in looks.explanation


@pytest.mark.parametrize("link", [
    {},                                                                 # the chapter's 'Mary had a little'
    {"n": "2", "smoothing": "none"},                                    # plain counts after one word
    {"level": "characters", "n": "5", "prompt": "O Romeo, Rome"},       # characters: the order the plays hold
    {"prompt": "Good my", "merges": "40", "bpe_source": "the text above", "text": "low lower lowest slow slower"},
])
def test_the_tokens_page_says_and_shows_the_same_in_both_front_ends_and_the_class(link):
    """One link, three readers: the page's bars and its sentence about the counts, the Gradio tab's rows and
    sentence, and the class question's revealed answer all come from engine.chapter.tokens.prediction; the four
    tokenizers count the same tokens on the page and in the tab."""
    from engine.chapter.questions import questions_for
    from engine.chapter.tokens import PAGE, counts_reading, prediction
    from engine.classroom.questions import EngineSources, _quote
    from engine.language.corpus import ALL_PLAYS
    from gradio_tabs.tokens import from_link
    from tests.pages.conftest import chart_rows, texts

    values = PAGE.values(link)
    sources = EngineSources()
    shown = prediction(values, sources.tokenized(ALL_PLAYS, values["level"], None)[0],
                       sources.ngram_counts(ALL_PLAYS, values["level"], None))
    expected = counts_reading(shown)
    name = f"{shown.model.name}, Shakespeare"
    bars = [round(p, 3) for _, p, _ in shown.top]

    at = run_file("views/tokens.py", link, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert expected in texts(at)                                         # the page's sentence
    chart = next(c.proto for c in at.get("vega_lite_chart") if "P(next token" in c.proto.spec)
    page_bars = [row for row in chart_rows(chart).to_pylist() if row["model"] == name]
    assert [round(row["probability"], 3) for row in page_bars] == bars  # the page's bars

    following, _, gradio_says, overview, _, _ = from_link(values)
    assert expected in gradio_says and f"P = {bars[0]:.3f}" in gradio_says         # the Gradio tab's
    assert [round(p, 3) for p in following[following["model"] == name]["P"]] == bars
    page_counts = [int(c) for c in at.table[0].value["tokens for your text"].tolist()]
    assert [int(c) for c in overview["tokens for your text"]] == page_counts

    asked = questions_for("tokens", link, sources)                       # the class's, as revealed
    nexts = [q for q in asked if q.prompt.startswith("After")]
    assert nexts or values["level"] == "characters"     # single letters: no next-token question worth asking
    if nexts:
        best_id, best_p, _ = shown.top[0]
        assert f"P({_quote(shown.text(best_id))}) = {best_p:.3f}" in nexts[0].explanation
        assert f"the {values['n']}-gram model" in nexts[0].prompt


def test_both_front_ends_refuse_a_context_past_the_engines_limit():
    """Issue 40: the Tokens prompt limit (400) was the text boxes' alone; an API caller past it now gets the engine's
    sentence, and a link past it opens the page at its default context with a sentence saying so."""
    import gradio as gr

    from engine import limits
    from engine.chapter.tokens import DEFAULT_PROMPT
    from gradio_tabs.tokens import next_token_tab
    from tests.pages.conftest import texts

    too_long = "the king " * 45
    assert len(too_long) > limits.TOKENS_MAX_PROMPT_CHARS
    with pytest.raises(gr.Error, match=f"the page predicts after at most {limits.TOKENS_MAX_PROMPT_CHARS}"):
        next_token_tab(too_long, "words", 3, "kneser-ney", False)
    at = run_file("views/tokens.py", {"prompt": too_long}, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert at.text_input(key="tokens.prompt").value == DEFAULT_PROMPT
    assert "'prompt'" in texts(at) + "".join(w.value for w in at.warning)


@pytest.mark.parametrize("link", [
    {},                                                           # the chapter's loop: a 3-gram of words at τ = 0
    {"n": "6"},                                                   # five words of context: no loop in 100 tokens
    {"level": "characters", "temperature": "1.0", "seed": "3", "length": "200"},
    {"prompt": "Romeo", "n": "2", "smoothing": "add-k", "k": "0.5"},
])
def test_the_ngram_sampler_draws_and_says_the_same_in_both_front_ends_and_the_class(link):
    """One link, three readers: the page's sample and its loop sentence, the Gradio tab's sample and sentence, and
    the class question's loop all come from engine.chapter.ngram.sampled."""
    import html

    from engine.chapter.ngram import PAGE, sampled
    from engine.chapter.questions import questions_for
    from engine.classroom.questions import EngineSources
    from engine.language.ngram import loop_sentence
    from gradio_tabs.ngram import from_link
    from ui.chips import NEWLINE

    values = PAGE.values(link)
    sources = EngineSources()
    tokenizer = sources.tokenized(values["source"], values["level"], None)[0]
    shown = sampled(values, tokenizer, sources.ngram_counts(values["source"], values["level"], None))
    characters = values["level"] == "characters"                       # the tab calls its tokens characters
    said = loop_sentence(shown.loop, values["n"], values["temperature"], characters) if shown.loop else None

    at = run_file("views/ngram.py", link, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    box = at.get("html")[0].value                                        # the page's sample
    if said is None:
        assert "<mark" not in box and "No loop of" in box
    else:
        assert html.escape("Highlighted: " + loop_sentence(shown.loop, values["n"], values["temperature"])) in box
        marked = html.unescape(re.sub(r"<[^>]+>", "", re.search(r"<mark[^>]*>(.*?)</mark>", box, re.S).group(1)))
        looped = tokenizer.decode(shown.ids[shown.loop.start:shown.loop.end])
        assert marked.replace(NEWLINE, "").replace("\n", "") == looped.replace("\n", "")

    text, _, gradio_says = from_link(values)                             # the Gradio tab's
    assert text == values["prompt"] + tokenizer.decode(shown.ids)
    assert (said in gradio_says) if said else ("falls into" not in gradio_says)

    looping = next(q for q in questions_for("ngram", link, sources) if "fall into a loop" in q.prompt)
    assert looping.answer == (0 if shown.loop else 1)                    # the class's, as revealed
    if shown.loop:
        cycle = f"{shown.loop.period} token" + ("" if shown.loop.period == 1 else "s")   # one token, 3 tokens
        assert looping.explanation == (f"From token {shown.loop.start} on, a cycle of {cycle} repeats "
                                       f"{shown.loop.repeats:.1f} times. The loop is "
                                       f"{shown.loop.end - shown.loop.start} tokens long.")
