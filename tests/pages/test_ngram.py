"""views/ngram.py in AppTest: sample with loops, tables, held-out scores, bad input."""
from __future__ import annotations

from tests.pages.conftest import no_exception, texts, whole_page, unfold

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
    assert r"\text{nats}" in latex and "28{,}860^{3}" in latex


def test_same_seed_same_text_and_resample_changes_it(run_page):
    at = run_page(PAGE, query={"temperature": "1.0"}, timeout=300)   # at 0 every seed takes the likeliest token
    first = sample_box(at)
    at.run()
    assert sample_box(at) == first
    at.sidebar.button[0].click().run()
    no_exception(at)
    assert at.number_input(key="ngram.seed").value == 1
    assert sample_box(at) != first


def test_the_default_loop_is_a_loop_of_words_that_a_longer_context_escapes(run_page):
    """The chapter's loop is of words ("the river flows to the sea and the river ..."), from a short context: the
    page opened on ', ↵↵↵...' (a loop of 1 token 99 times) and on a temperature of 0.2 while its heading blamed
    the context. Now a 3-gram that always takes its likeliest word loops on words; n = 6 does not, at the same
    temperature; and the sample starts after a line break, not on ','."""
    import re

    at = run_page(PAGE, timeout=300)
    no_exception(at)
    assert at.number_input(key="ngram.temperature").value == 0.0 and at.slider(key="ngram.n").value == 3
    box = sample_box(at)
    loop = re.sub(r"<[^>]+>", "", re.search(r"<mark[^>]*>(.*?)</mark>", box, re.S).group(1))
    words = re.findall(r"[A-Za-z]+", loop)
    assert len(set(words)) >= 4, loop                                   # a loop of words, not of line breaks
    period = int(re.search(r"a loop of (\d+) tokens", box).group(1))
    assert period >= 4
    assert "The model sees only its last 2 tokens" in box and "at τ = 0 it always takes the likeliest" in box
    sample = re.sub(r"<[^>]+>", "", re.search(r"<pre[^>]*>(.*?)</pre>", box, re.S).group(1)).lstrip()
    assert sample.startswith("To be a") and not sample.startswith(",")
    assert "starts after a line break" in texts(at)
    assert "Get out of it: change n or the temperature until the sample has no loop. **Done.**" not in texts(at)
    at.slider(key="ngram.n").set_value(6).run()                          # the same greedy choice, a longer context
    no_exception(at)
    assert "Highlighted: a loop of" not in sample_box(at)
    assert "Get out of it: change n or the temperature until the sample has no loop. **Done.**" in texts(at)


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
    at.number_input(key="ngram.temperature").set_value(1e6).run()   # reruns only the sample, code and challenges
    no_exception(at)
    assert any("beyond the limit" in e.value for e in at.error)
    assert "held-out tokens, never counted" in texts(whole_page(at))

    at.number_input(key="ngram.temperature").set_value(1.0)
    at.text_input(key="ngram.prompt").input("To be or not to zorp").run()
    no_exception(at)
    assert any("never does ('zorp')" in e.value for e in at.error)
    assert "<pre" in sample_box(at)  # sampled without the prompt

    whole_page(at).text_input(key="ngram.prompt").input("")
    at.selectbox(key="ngram.source").set_value("Your own text").run()   # the prompt's callback: only sections
    whole_page(at)
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


def test_n_reruns_only_its_sections_and_the_rest_stays(run_page):
    """n reruns only the sections it changes (ui.page.section): the sample, the contexts, the V^n and held-out
    numbers, the code and challenges show the new n, the link follows, and the whole page still shows the title
    and the transition table as they were."""
    at = unfold(run_page(PAGE, timeout=300))
    transition = [x.value for x in at.get("latex") if r"P(b \mid a)" in x.value]
    at.slider(key="ngram.n").set_value(4).run()
    no_exception(at)
    assert not at.title  # only the sections were sent
    assert "<pre" in sample_box(at) and "last 3 tokens" in texts(at)
    assert "For n = 4 the table has one row per context of 3 tokens" in texts(at)
    latex = " ".join(x.value for x in at.get("latex"))
    assert "28{,}860^{4}" in latex and r"\text{nats}" in latex and r"P(b \mid a)" not in latex
    assert "NGramModel.from_counts(counts, 4, 'kneser-ney'" in at.code[0].value
    assert at.query_params["n"] == "4"
    whole_page(at)
    no_exception(at)
    assert at.title[0].value == "N-gram sampler"
    assert at.slider(key="ngram.n").value == 4
    assert [x.value for x in at.get("latex") if r"P(b \mid a)" in x.value] == transition
    assert "28{,}860^{4}" in " ".join(x.value for x in at.get("latex"))
    assert [s.value for s in at.subheader][:4] == [
        "A sample, and the second failure: a short context goes round in loops",
        "The transition table (bigram counts, n = 2)", "First failure: the table cannot be filled",
        "Held-out cross-entropy: what a longer context buys"]


def test_the_bigram_loop_of_newlines_is_drawn(run_page):
    """The chapter's bigram case loops on newlines: each one drawn as the visible mark ('↵'), the run highlighted,
    not 99 empty lines."""
    import re

    at = run_page(PAGE, timeout=300)
    at.slider(key="ngram.n").set_value(2).run()
    no_exception(at)
    box = sample_box(at)
    loop = re.search(r"<mark[^>]*>(.*?)</mark>", box, re.S)
    assert loop, "no loop highlighted"
    marks = re.sub(r"<[^>]+>", "", loop.group(1))
    assert marks.count("\u21b5") >= 50                  # the newlines of the loop, each visible
    assert "\n\n" not in box                            # no run of bare line breaks anywhere in the sample
    assert "overflow-wrap:anywhere" in box               # and the row of 99 marks wraps inside the box


def test_a_link_temperature_past_the_limit_falls_back_with_a_sentence(run_page):
    """`ngram?temperature=1e12` showed the engine's error instead of opening the page as usual."""
    at = run_page("views/ngram.py", query={"temperature": "1e12"})
    no_exception(at)
    assert not at.error
    from engine.language.ngram import LOOP_EXAMPLE_TEMPERATURE

    default = f"{LOOP_EXAMPLE_TEMPERATURE}"
    warned = [w.value.replace("\\", "") for w in at.warning]
    assert any("The link's value for 'temperature' ('1e12')" in w and f"using the default ('{default}')" in w
               for w in warned), warned
    assert at.number_input(key="ngram.temperature").value == LOOP_EXAMPLE_TEMPERATURE
