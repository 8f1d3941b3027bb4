"""views/ngram.py in AppTest: sample with loops, tables, held-out scores, bad input."""
from __future__ import annotations

from tests.pages.conftest import no_exception, texts

PAGE = "views/ngram.py"


def sample_box(at) -> str:
    return at.get("html")[0].value


def test_defaults_sample_and_score(run_page):
    at = run_page(PAGE, timeout=300)
    no_exception(at)
    assert not at.error
    assert "<pre" in sample_box(at)
    assert "Highlighted: a loop of" in sample_box(at)  # the chapter's second failure, by default
    shown = texts(at)
    assert "held-out tokens, never counted" in shown
    assert "For n = 3 the table has one row per context of 2 tokens" in shown
    latex = " ".join(x.value for x in at.get("latex"))
    assert r"\text{nats}" in latex and "28,860^{3}" in latex


def test_same_seed_same_text_and_resample_changes_it(run_page):
    at = run_page(PAGE, timeout=300)
    first = sample_box(at)
    at.run()
    assert sample_box(at) == first
    at.sidebar.button[0].click().run()
    no_exception(at)
    assert at.number_input(key="ngram.seed").value == 1
    assert sample_box(at) != first


def test_greedy_sampling_loops_and_is_highlighted(run_page):
    at = run_page(PAGE, timeout=300)
    at.number_input(key="ngram.temperature").set_value(0.0).run()
    no_exception(at)
    assert "Highlighted: a loop of" in sample_box(at) and "<mark" in sample_box(at)
    assert "Get out of it" in texts(at)
    assert "Get out of it: change n or the temperature until the sample has no loop. **Done.**" not in texts(at)


def test_one_play_at_character_level(run_page):
    at = run_page(PAGE, timeout=300)
    at.selectbox(key="ngram.source").set_value("Macbeth").run()
    at.radio(key="ngram.level").set_value("characters").run()
    at.slider(key="ngram.n").set_value(5).run()
    no_exception(at)
    assert not at.error
    assert "For n = 5 the table has one row per context of 4 tokens" in texts(at)


def test_bad_input_is_a_sentence_and_the_rest_works(run_page):
    at = run_page(PAGE, timeout=300)
    at.number_input(key="ngram.temperature").set_value(1e6).run()
    no_exception(at)
    assert any("beyond the limit" in e.value for e in at.error)
    assert "held-out tokens, never counted" in texts(at)

    at.number_input(key="ngram.temperature").set_value(1.0)
    at.text_input(key="ngram.prompt").input("To be or not to zorp").run()
    no_exception(at)
    assert any("never does ('zorp')" in e.value for e in at.error)
    assert "<pre" in sample_box(at)  # sampled without the prompt

    at.text_input(key="ngram.prompt").input("")
    at.selectbox(key="ngram.source").set_value("Your own text").run()
    no_exception(at)
    assert any("empty" in e.value for e in at.error)
    assert at.info and "Showing all 38 plays" in at.info[0].value

    at.text_area(key="ngram.own_text").input("to be or not to").run()
    at.slider(key="ngram.n").set_value(6).run()
    no_exception(at)
    assert any("Choose a smaller n or a longer text" in e.value for e in at.error)
    assert any("held-out part of the text" in e.value for e in at.error)

    at.selectbox(key="ngram.source").set_value("Shakespeare: all 38 plays")
    at.slider(key="ngram.n").set_value(2)
    at.selectbox(key="ngram.smoothing").set_value("add-k").run()
    at.number_input(key="ngram.k").set_value(0.0).run()
    no_exception(at)
    assert any("k of add-k" in e.value for e in at.error)
