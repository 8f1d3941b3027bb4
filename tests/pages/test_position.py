"""The Position page: same bag of words, same context vectors, until an encoding is added."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import run_file, whole_page, unfold
from tests.pages.i18n_checks import unmarked_left

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "position.py")


def first_run(**query) -> AppTest:
    """The page as a link opens it (its warnings about the link show on this run only)."""
    return run_file(PAGE, query)


def run(**query) -> AppTest:
    """The page with its "Show the code" open (tests run the code shown)."""
    return unfold(first_run(**query))


def printed_by_the_code(at: AppTest) -> tuple[float, float]:
    """Run the 'Show the code' program; return (what it prints, what the page shows it prints under it)."""
    source, shown = at.code[0].value, at.code[1].value
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "show-the-code", "exec"), {})
    printed = re.fullmatch(r"largest change: (\S+)", out.getvalue().strip()).group(1)
    assert out.getvalue().strip() == shown
    return float(printed), float(re.fullmatch(r"largest change: (\S+)", shown).group(1))


def test_defaults_the_owl_and_the_cat_share_their_contexts():
    at = run()
    assert not at.exception and not at.error
    assert at.radio(key="position.enc").value == "none"
    assert at.text_input(key="position.a").value == "the owl saw the cat"
    assert "under the rounding tolerance" in at.success[0].value
    printed, claimed = printed_by_the_code(at)
    assert printed < 1e-12 and claimed < 1e-12


def test_adding_the_sinusoidal_encoding_breaks_the_equality():
    at = run()
    at.radio(key="position.enc").set_value("sinusoidal").run()
    assert not at.exception and not at.error
    assert not at.success
    assert "0.749" in at.warning[0].value
    printed, claimed = printed_by_the_code(at)
    assert printed == claimed == 0.749


@pytest.mark.parametrize("query", [
    {"enc": "learned", "proj": "1", "seed": "3", "strength": "0.5"},
    {"enc": "none", "causal": "1", "a": "a hungry owl caught a small mouse", "b": "a small mouse caught a hungry owl"},
])
def test_the_code_reproduces_the_number_on_screen_for_other_settings(query):
    at = run(**query)
    assert not at.exception and not at.error
    shown = float(re.search(r"\*\*([0-9.e+-]+)\*\*", at.warning[0].value).group(1))
    printed, claimed = printed_by_the_code(at)
    assert printed == pytest.approx(shown, rel=1e-2)
    assert printed == claimed


def test_the_strength_reruns_only_the_check_and_the_code_and_the_rest_stays():
    at = run(enc="sinusoidal")
    assert "0.749" in at.warning[0].value
    at.slider(key="position.strength").set_value(0.5).run()     # reruns only the check, the code, the challenges
    assert not at.exception and not at.error
    assert not at.title and "The encodings themselves" not in [s.value for s in at.subheader]
    shown = float(re.search(r"\*\*([0-9.e+-]+)\*\*", at.warning[0].value).group(1))
    assert shown != pytest.approx(0.7494, abs=1e-3)
    printed, claimed = printed_by_the_code(at)
    assert printed == pytest.approx(shown, rel=1e-2) and printed == claimed
    assert at.query_params["strength"] in (["0.5"], "0.5")
    at = whole_page(at)
    assert not at.exception and at.title[0].value == "Position"
    assert at.slider(key="position.strength").value == 0.5 and at.radio(key="position.enc").value == "sinusoidal"
    assert at.text_input(key="position.a").value == "the owl saw the cat"
    assert float(re.search(r"\*\*([0-9.e+-]+)\*\*", at.warning[0].value).group(1)) == shown
    assert {"The encodings themselves", "Rotary positions: only the distance between two tokens counts"} <= {
        s.value for s in at.subheader}
    at.slider(key="position.T").set_value(16).run()              # reruns only the tables
    assert not at.exception and not at.title and not at.warning
    specs = [chart.proto.spec for chart in at.get("vega_lite_chart")]
    assert any("p_t for t < 16" in spec for spec in specs) and not any("t < 32" in spec for spec in specs)
    assert "The encodings themselves" in [s.value for s in at.subheader]


def test_shuffle_button_makes_b_a_reordering_of_a():
    at = run()
    at.button[0].click().run()
    b = at.text_input(key="position.b").value
    assert sorted(b.split()) == sorted("the owl saw the cat".split()) and b != "the cat saw the owl"
    assert not at.exception and not at.error


def test_bad_input_is_a_sentence_and_the_page_keeps_working():
    at = run()
    at.text_input(key="position.b").set_value("the dog saw the owl").run()
    assert not at.exception
    assert "same bag" in at.error[0].value
    assert "The encodings themselves" in [s.value for s in at.subheader]
    at.text_input(key="position.a").set_value("the zebra saw the owl").run()
    assert not at.exception and "no vector for: zebra" in at.error[0].value


def test_a_link_that_does_not_parse_falls_back_with_a_warning():
    at = first_run(enc="rotary", T="128", strength="nan")
    assert not at.exception
    assert at.radio(key="position.enc").value == "none"
    assert at.slider(key="position.T").value == 32 and at.slider(key="position.strength").value == 1.0
    assert sum("could not be read" in w.value for w in at.warning) == 3


def test_rotary_scores_depend_only_on_the_offset(run_page):
    """Issue: rotary positions on the Position page, a chart and a check that q_i . k_j depends on i - j only."""
    at = run_page(PAGE)
    assert not at.exception
    assert "Rotary positions: only the distance between two tokens counts" in [s.value for s in at.subheader]
    numbers = next(x.value for x in at.get("latex") if "spread" in x.value)
    shown = re.search(r"spread\}\\big\| = (0|([0-9.]+) \\times 10\^\{(-\d+)\})", numbers)
    assert shown.group(1) == "0" or float(shown.group(2)) * 10 ** int(shown.group(3)) < 1e-12
    first, second = re.findall(r"s_\{\d+,\d+\} = (-?[0-9.]+)", numbers)
    assert first == second


def whisper(at: AppTest) -> bool:
    """Whether the third challenge ("make order a whisper") is ticked."""
    from ui.challenges import SHOWN

    return next(done for prompt, (done, _, _) in at.session_state[SHOWN].items() if "a whisper" in prompt)


def test_the_whisper_challenge_counts_a_change_as_the_page_does():
    """At s = 0 every change is rounding (5.55e-17): the page says A and B cannot be told apart, so the challenge
    is not done; its hint's 0.05 is a step the slider can reach, and does it."""
    at = run(enc="sinusoidal", strength="0")
    assert not at.exception and not at.error
    assert "attention cannot tell A from B" in at.success[0].value
    assert not whisper(at)
    at = run(enc="sinusoidal", strength="0.05")
    assert not at.success and whisper(at)
    assert at.slider(key="position.strength").step == 0.05


def test_a_sentence_of_digits_says_what_is_wrong():
    at = first_run(a="99999999")
    assert not at.exception
    assert any("'99999999' has no words" in e.value for e in at.error)


@pytest.mark.parametrize("lang, title", [("es", "Posición"), ("ko", "위치")])
def test_the_page_in_spanish_and_korean(lang, title):
    at = first_run(lang=lang)
    assert not at.exception and not at.error
    assert at.title[0].value == title
    if lang == "es":   # a number in a sentence in the reader's way (5,55e-17), the same in the formula's words
        assert "Mayor cambio del vector de contexto" in at.success[0].value
        assert "e-17" in at.success[0].value and "5,55e-17" in at.success[0].value


def test_the_pseudo_language_leaves_no_english_unmarked():
    at = first_run(lang="en-XA")
    assert not at.exception
    assert unmarked_left(at) == []
