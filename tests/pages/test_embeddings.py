"""views/embeddings.py in AppTest: defaults, presets, the vocabulary control, bad input as sentences."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.pages.conftest import no_exception, texts, whole_page, unfold

PAGE = "views/embeddings.py"


def tables(at) -> list:
    """The page's tables as shown (short ones are HTML, their numbers formatted text: ui.tables)."""
    return [frame.value for frame in at.table]


def answers(at) -> list[str]:
    """The top-5 answers of the analogy (first table on the page)."""
    return list(tables(at)[0]["answer"])


def test_defaults_open_on_the_pages_question_paris_france_rome_italy(run_page):
    at = run_page(PAGE)
    no_exception(at)
    assert not at.error
    assert [at.text_input(key=f"embeddings.{k}").value for k in "abc"] == ["france", "paris", "italy"]
    assert answers(at)[0] == "rome"


def test_king_to_queen(run_page):
    at = run_page(PAGE)
    at.selectbox(key="embeddings.preset").select("man : king :: woman : ?").run()   # reruns only its sections
    no_exception(at)
    assert not at.error
    assert at.text_input(key="embeddings.a").value == "man" and at.text_input(key="embeddings.c").value == "woman"
    assert answers(at)[0] == "queen"
    assert any("queen** comes out on top" in s.value for s in at.success)
    queen = r"\cos(\text{queen},\ \hat u_{\text{king}} - \hat u_{\text{man}} + \hat u_{\text{woman}}) = 0.852"
    assert queen in texts(at)
    whole_page(at)
    assert not at.error
    assert at.radio(key="embeddings.vocab").value == 50_000 and at.radio(key="embeddings.method").value == "3cosadd"
    shown = texts(at)
    assert queen in shown
    assert "Of the 15 nearest words to **crane**" in shown
    assert "= 1.000" in shown  # the static vector of crane is the same in both sentences
    neighbours = tables(at)[1]
    assert list(neighbours["sense"]) == ["bird", "machine"]


def test_preset_that_lands_second(run_page):
    at = run_page(PAGE)
    at.selectbox(key="embeddings.preset").select("go : went :: see : ?  (lands second)").run()
    no_exception(at)
    assert at.text_input(key="embeddings.b").value == "went"
    assert answers(at)[:2] == ["came", "saw"]
    assert any("**saw** lands at rank **2**" in i.value for i in at.info)
    assert "Find an analogy the vectors get wrong" in texts(at)
    assert "the top answer.** Done." in texts(at).replace(" **Done.**", "** Done.")


def test_vocabulary_and_method_change_the_answers(run_page):
    at = run_page(PAGE, query={"a": "canada", "b": "ottawa", "c": "kenya", "d": "nairobi", "preset": "(your own)"})
    no_exception(at)
    assert answers(at)[0] == "nairobi"
    at.radio(key="embeddings.vocab").set_value(400_000).run()   # reruns only the sections it changes
    no_exception(at)
    assert answers(at)[0] == "eldoret"
    assert "Change the vocabulary size until the top answer of your analogy changes.** Done." in \
        texts(at).replace(" **Done.**", "** Done.")
    whole_page(at).radio(key="embeddings.method").set_value("3cosmul").run()
    no_exception(at)
    assert r"\cos' = \tfrac{1+\cos}{2}" in texts(at)
    assert answers(at) != ["eldoret"] * 5


def test_sum_without_leaving_out_the_inputs(run_page):
    at = run_page(PAGE, query={"query": "king - man + woman", "leave_out": "0"})
    no_exception(at)
    assert any("The nearest word is **king**" in i.value for i in at.info)
    assert "one of the words you typed.** Done." in texts(at).replace(" **Done.**", "** Done.")


def test_homonym_switch(run_page):
    at = run_page(PAGE)
    at.radio(key="embeddings.homonym").set_value("pitcher").run()   # reruns only the homonym section
    no_exception(at)
    shown = texts(at)
    assert "15 are closer to *baseball* (baseball) and 0 closer to *jug* (jug)" in shown
    ranks = tables(at)[0]   # the section's first table (the page's second)
    assert list(ranks["sense"]) == ["baseball", "jug"]
    assert int(ranks.iloc[1, 3].replace(",", "")) > 5_000  # jug: thousands of words down (of the 50,000 searched)


@pytest.mark.parametrize("key,value,message", [
    ("c", "womn", "'womn' is not among the 400,000 words of the vocabulary. Did you mean"),
    ("a", "", "The word a is empty"),
    ("b", "k!ng", "has characters other than letters"),
    ("a", "x" * 60, "a word here has at most 40"),
    ("query", "paris - - france", "Two signs in a row"),
    ("extra", "paris, paris", "goes nowhere"),
])
def test_bad_input_is_a_sentence_and_the_page_goes_on(run_page, key, value, message):
    at = run_page(PAGE)
    at.text_input(key=f"embeddings.{key}").input(value).run()   # reruns only the sections the input changes
    no_exception(at)
    assert any(message in e.value for e in at.error), [e.value for e in at.error]
    whole_page(at)
    no_exception(at)
    assert any(message in e.value for e in at.error), [e.value for e in at.error]
    assert "What the vocabulary size changes" in [s.value for s in at.subheader]
    assert "Try this" in [s.value for s in at.subheader]


def test_same_word_three_times(run_page):
    at = run_page(PAGE, query={"a": "king", "b": "king", "c": "king", "preset": "(your own)"})
    no_exception(at)
    assert any("All three words are 'king'" in e.value for e in at.error)


def test_a_sentence_without_the_word(run_page):
    at = run_page(PAGE)
    at.text_input(key="embeddings.sentence_a_crane").input("We walked along the lake shore.").run()
    no_exception(at)
    assert any("does not use the word 'crane'" in e.value for e in at.error)


def test_the_code_shown_reproduces_the_numbers(run_page):
    at = unfold(run_page(PAGE, query={"a": "canada", "b": "ottawa", "c": "crane", "preset": "(your own)",
                                      "vocab": "10000"}))
    no_exception(at)
    source = at.code[0].value
    printed = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0, printed.stderr
    expected = [(w, round(float(s), 3)) for w, s in zip(answers(at), tables(at)[0]["score"])]
    assert printed.stdout.strip() == str(expected) == at.code[1].value   # and the printout shown under it


def test_vocabulary_reruns_only_its_sections_and_the_rest_stays(run_page):
    """The vocabulary reruns only the sections that search it (ui.page.section): they show the new size, the
    link follows, and the whole page still shows the title and the vocabulary-size part as they were."""
    at = unfold(run_page(PAGE))
    at_each_size = [m.value for m in at.markdown if "at each size" in m.value]
    assert at_each_size
    at.radio(key="embeddings.vocab").set_value(10_000).run()
    no_exception(at)
    assert not at.title  # only the sections were sent
    assert "What the vocabulary size changes" not in [s.value for s in at.subheader]
    assert "Rank 1 is crane's nearest word among the 10,000 searched." in texts(at)
    assert "U[:10000]" in at.code[0].value
    assert answers(at)[0] == "rome"
    assert at.query_params["vocab"] == "10000"
    whole_page(at)
    no_exception(at)
    assert at.title[0].value == "Embedding explorer"
    assert at.radio(key="embeddings.vocab").value == 10_000
    assert "What the vocabulary size changes" in [s.value for s in at.subheader]
    assert [m.value for m in at.markdown if "at each size" in m.value] == at_each_size
    assert "among the 10,000 searched" in texts(at) and "among the 50,000 searched" not in texts(at)


def test_the_vocabulary_size_challenge_waits_for_the_size_to_change(run_page):
    """It ticked as soon as an analogy's answers differed across sizes, before the size was touched."""
    from ui.challenges import SHOWN

    def sized(at) -> bool:
        return next(done for prompt, (done, _, _) in at.session_state[SHOWN].items()
                    if prompt.startswith("Change the vocabulary size"))

    at = run_page(PAGE, query={"preset": "(your own)", "a": "canada", "b": "ottawa", "c": "kenya", "d": "nairobi"},
                  timeout=300)
    no_exception(at)
    assert not sized(at)                       # the answers differ across sizes, but the size is as it opened
    at.radio(key="embeddings.vocab").set_value(400_000).run()
    no_exception(at)
    assert sized(whole_page(at))
