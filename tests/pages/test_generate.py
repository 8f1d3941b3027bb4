"""views/generate.py in AppTest: samples side by side, per-step distributions, the ladder, bad prompts."""
from __future__ import annotations

import pytest

from tests.pages.conftest import no_exception, texts, whole_page, unfold

PAGE = "views/generate.py"
SHORT = {"gen_length": "12"}


@pytest.fixture
def at(run_page):
    return unfold(run_page(PAGE, query=SHORT, timeout=300))


def samples(at) -> list[str]:
    return [c.value for c in at.code if c.value.startswith("ROMEO:")]


def test_defaults_sample_three_models_and_rank_them(at):
    no_exception(at)
    assert not at.error
    assert len(samples(at)) == 3 and all(s.startswith("ROMEO:\nBut soft, what light") for s in samples(at))
    assert [len(g.steps) for g in at.session_state["generate.gen_cache"].values()] == [12, 12, 12]
    assert "The model ladder: held-out bits per character" in [s.value for s in at.subheader]
    assert "needs minutes of training to beat a Kneser-Ney 4-gram" in "\n".join(i.value for i in at.info)
    assert "shipped transformer" in texts(at)


def test_greedy_changes_the_samples_and_the_step_slider_moves(at):
    before = samples(at)
    at.slider(key="generate.gen_temperature").set_value(0.0).run()
    no_exception(at)
    assert samples(at) != before
    assert "Set the temperature to 0" in texts(at) and "Done." in texts(at)
    at.slider(key="generate.gen_step").set_value(5).run()
    no_exception(at)
    assert any("step 5" in str(c.value) for c in at.caption)


def test_temperature_reruns_only_the_samples_and_the_code(at):
    """The temperature reruns the samples and the code (ui.page.section): they show the new draws and τ; the
    whole page around them (the ladder) is unchanged."""
    before, ladder = samples(at), [chart.proto.spec for chart in at.get("vega_lite_chart")[1:]]
    at.slider(key="generate.gen_temperature").set_value(1.5).run()
    no_exception(at)
    assert not at.title                                                   # only the sections ran
    now = samples(at)
    assert len(now) == 3 and now != before
    assert r"\tau = 1.5" in texts(at) and r"\tau = 0.8" not in texts(at)
    assert any("temperature=1.5" in block.value for block in at.code if "generate(lm" in block.value)
    assert "The model ladder: held-out bits per character" not in [s.value for s in at.subheader]
    assert at.query_params["gen_temperature"] == "1.5"
    whole = whole_page(at)
    no_exception(whole)
    assert [t.value for t in whole.title] == ["Generate"]
    assert whole.slider(key="generate.gen_temperature").value == 1.5
    assert samples(whole) == now
    assert "The model ladder: held-out bits per character" in [s.value for s in whole.subheader]
    assert [chart.proto.spec for chart in whole.get("vega_lite_chart")[1:]] == ladder   # the ladder as it was


def test_bad_prompts_say_why(at):
    at.text_area(key="generate.gen_prompt").set_value("").run()
    no_exception(at)
    assert any("prompt is empty" in e.value for e in at.error)
    assert "The model ladder: held-out bits per character" in [s.value for s in at.subheader]
    at.text_area(key="generate.gen_prompt").set_value("ROMEO: \u2603").run()
    no_exception(at)
    assert any("never saw" in e.value for e in at.error)


def test_the_ladder_holds_the_best_ngram_the_counts_can_make_and_says_so(at):
    """Every order 1..LADDER_MAX_NGRAM_ORDER is scored; the best is not the last (more context stopped
    helping inside the ladder), and the sentences under the bars name the measured winners."""
    import re

    from engine import limits
    from ui import loaders

    rungs = loaders.fixed_ladder()
    grams = {int(r.model.split("-")[0]): r.bits_per_char for r in rungs if "-gram" in r.model}
    assert sorted(grams) == list(range(1, limits.LADDER_MAX_NGRAM_ORDER + 1))
    best_order = min(grams, key=grams.get)
    assert best_order < limits.LADDER_MAX_NGRAM_ORDER, "the best order is the last one counted: count further"
    shown = texts(at)
    assert f"**{best_order}-gram**" in shown and f"Best on this text: **{best_order}-gram" in shown or \
        f"the **{best_order}-gram** is best ({grams[best_order]:.3f})" in shown
    shipped = next(r.bits_per_char for r in rungs if r.model == "shipped transformer")
    winner = min([*grams.values(), shipped])
    assert re.search(rf"Best on this text: \*\*[^*]+\*\*, {winner:.3f} bits per character", shown)
    margin = float(f"{grams[best_order]:.3f}") - float(f"{shipped:.3f}")   # of the figures as printed
    assert (f"beats the best n-gram by **{margin:.3f} bits**" in shown if margin > 0
            else f"it is {-margin:.3f} bits" in shown)


def test_the_shipped_transformer_beats_the_best_ngram_by_a_tenth_of_a_nat():
    """The shipped checkpoint (bench/ship_checkpoint.py) wins clearly on the ladder's own held-out text:
    at least 0.10 nats per character below the best Kneser-Ney n-gram the counts can make."""
    import math

    from ui import loaders

    rungs = loaders.fixed_ladder()
    best_gram = min(r.bits_per_char for r in rungs if "-gram" in r.model)
    shipped = next(r.bits_per_char for r in rungs if r.model == "shipped transformer")
    assert (best_gram - shipped) * math.log(2) >= 0.10, (best_gram, shipped)


def test_a_line_break_is_drawn_as_everywhere_else(run_page):
    """After 'ROMEO:' the shipped model's likeliest next character is a line break: its bar is labelled '↵' (the
    engine's visible(), as on every other page), never the escape '\\n', and the formula quotes it."""
    at = run_page(PAGE, query={"gen_length": "12", "gen_prompt": "ROMEO:"}, timeout=300)
    no_exception(at)
    data = next(h.value for h in at.get("html") if "chart-data" in h.value)   # the bars' numbers (ui.charts)
    assert "<td>\u21b5</td>" in data and "\\n" not in data
    assert r"P(\texttt{'↵'})" in " ".join(x.value for x in at.get("latex"))


def test_the_live_model_is_said_to_live_in_the_tab_that_trained_it(at):
    """A student who trained in another tab found no 'your live model' here: the page says where it lives."""
    from ui.session_slots import LIVE_MODEL_NOTE

    no_exception(at)
    assert LIVE_MODEL_NOTE in [caption.value for caption in at.sidebar.caption]
    assert "in this browser tab" in LIVE_MODEL_NOTE and "another tab, or a reload, starts without it" in LIVE_MODEL_NOTE


def test_the_ladder_says_it_is_sorted_by_score(at):
    import json

    ladder = next(json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")
                  if "held-out bits per character (fewer is better)" in chart.proto.spec)
    assert ladder["title"] == "Sorted by score: the fewest bits at the bottom"


# --- languages (issue 41) ----------------------------------------------------------------------------------------

# What the pseudo language may leave readable on this page, marked (or to be marked) elsewhere or not words to
# translate: the n-grams' names (model names, as the link keys them), the model ladder's sentences
# (engine/transformer/ladder.py), the live model's note (ui/session_slots.py), the shell's own words (Try this, Hint:,
# Download, Show the code, What it prints, the code panel's note, Further reading, Next:), the further reading's
# paper titles and the code's tab (Python); a LaTeX \text{...} keeps its words whole under the pseudo language.
PSEUDO_ALLOWED = ("-gram", "Best on this text", "Try this", "Further reading", "Next:", "Hint:", "Download",
                  "Show the code", "Train a model on the Block builder page in this browser tab",
                  "\\text{(top-}", "](http", "Python", "What it prints:", "the data packages).")


@pytest.mark.parametrize("lang, title", [("es", "Generar"), ("ar", "التوليد")])
def test_the_page_runs_in_spanish_and_arabic(run_page, lang, title):
    at = unfold(run_page(PAGE, query=SHORT | {"lang": lang}, timeout=300))
    no_exception(at)
    assert not at.error
    assert at.title[0].value == title
    assert len(samples(at)) == 3                              # the samples stay in English, as the model wrote them
    said = texts(at) + "\n".join(s.value for s in at.subheader)
    assert "The model ladder" not in said and "needs minutes of training" not in said
    if lang == "es":
        assert "La escalera de modelos" in said and "se entrenaron con texto en inglés" in said


def test_the_pseudo_language_leaves_only_the_allowed_english(run_page):
    from engine import i18n
    from tests.i18n_probe import unmarked

    at = unfold(run_page(PAGE, query=SHORT | {"lang": i18n.PSEUDO.code}, timeout=300))
    no_exception(at)
    left = [text for text in unmarked(at) if not any(allowed in text for allowed in PSEUDO_ALLOWED)]
    assert left == []
