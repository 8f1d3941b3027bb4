"""The Multi-head page: each head's weights, shapes at every step, and the cost of h heads."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.transformer.shipped_model import shipped_available
from tests.pages.conftest import no_exception, run_file, whole_page, unfold

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "multi_head.py")


def first_run(**query) -> AppTest:
    """The page as a link opens it (its warnings about the link show on this run only)."""
    return run_file(PAGE, query)


def run(**query) -> AppTest:
    """The page with its "Show the code" open (tests run the code shown)."""
    return unfold(first_run(**query))


def check_code(at: AppTest) -> None:
    """The program runs as it stands and prints what the page shows under it."""
    source, shown = at.code[0].value, at.code[1].value
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "show-the-code", "exec"), {})
    assert out.getvalue().removesuffix("\n") == shown


def headings(at: AppTest) -> list[str]:
    return [s.value for s in at.subheader]


def test_defaults_two_hand_built_heads_and_gpt2_costs():
    at = run()
    assert not at.exception and not at.error
    assert "Each head's weights: 2 heads of width d/h = 4" in headings(at)
    assert "2,359,296" in at.latex[-1].value.replace("{,}", ",")
    check_code(at)


def test_more_heads_change_the_result():
    at = run()
    at.select_slider(key="multihead.h").set_value(4).run()     # reruns only the heads' sections
    assert not at.exception and not at.error
    assert "Each head's weights: 4 heads of width d/h = 2" in headings(at)
    whole_page(at).radio(key="multihead.weights").set_value("random").run()
    assert not at.exception
    check_code(at)


def test_the_gain_reruns_only_the_heads_code_and_challenges_not_the_costs_and_the_rest_stays():
    at = run()
    row = at.latex[3].value          # row 0 of the concatenated heads
    assert "0.83 & 0.11 & 0.04 & 0.06" in row
    at.slider(key="multihead.gain").set_value(5.0).run()
    assert not at.exception and not at.error
    assert not at.title                                           # only the sections reran
    assert not any(s.value.startswith("What it costs") for s in at.subheader)   # the gain costs nothing: not rerun
    assert at.latex[3].value != row and "1.00 & 0.00 & 0.00 & 0.00" in at.latex[3].value
    assert "word's weight on itself. **Done.**" in "\n".join(m.value for m in at.markdown)
    check_code(at)                                                # the code prints the new numbers
    assert at.query_params["gain"] in (["5.0"], "5.0")
    at = whole_page(at)
    assert not at.exception and at.title[0].value == "Multi-head attention"
    assert at.slider(key="multihead.gain").value == 5.0
    assert at.text_input(key="multihead.sentence").value == "the owl saw the cat by the lake"
    assert "1.00 & 0.00 & 0.00 & 0.00" in at.latex[3].value
    assert "Heads of a trained model" in headings(at) and "Further reading" in headings(at)
    assert "2,359,296" in at.latex[-1].value.replace("{,}", ",")
    ratio = next(c.value for c in at.caption if "x one head" in c.value)
    at.number_input(key="multihead.cost_T").set_value(4096).run()   # reruns only the costs' section
    assert not at.exception and not at.title
    assert "What it costs: h heads of d/h against one head of width d" in headings(at)
    assert "Each head's weights: 2 heads of width d/h = 4" not in headings(at)
    assert next(c.value for c in at.caption if "x one head" in c.value) != ratio   # softmax grows with T
    assert "2,359,296" in at.latex[-1].value.replace("{,}", ",")      # the parameters do not


def test_cost_challenge_many_narrow_heads_on_a_long_sequence():
    at = run(cost_T="100000", cost_d="64", cost_h="64")
    assert not at.exception and not at.error
    done = [m.value for m in at.markdown if "10% more FLOPs" in m.value]
    assert done and "Done" in done[0]


def test_a_link_beyond_the_widgets_falls_back_with_a_warning():
    at = first_run(gain="99", h="3")
    assert not at.exception
    assert at.slider(key="multihead.gain").value == 2.0 and at.select_slider(key="multihead.h").value == 2
    assert any("could not be read" in w.value for w in at.warning)


def test_bad_input_is_a_sentence_and_the_page_keeps_working():
    at = run()
    at.text_input(key="multihead.sentence").set_value("the zebra saw the owl").run()
    assert not at.exception and "no vector for: zebra" in at.error[0].value
    assert "What it costs: h heads of d/h against one head of width d" in headings(at)
    at.number_input(key="multihead.cost_d").set_value(10).run()   # reruns only the costs' section
    whole_page(at).number_input(key="multihead.cost_h").set_value(3).run()
    assert not at.exception
    assert any("cannot be split evenly" in e.value for e in at.error)


@pytest.mark.skipif(not shipped_available(), reason="the shipped checkpoint is not in assets/ yet")
def test_trained_heads_of_the_shipped_model():
    at = run(trained="1")
    assert not at.exception and not at.error
    assert any("character model trained on Shakespeare" in c.value for c in at.caption)
    at.select_slider(key="multihead.layer").set_value(2).run()
    assert not at.exception and not at.error
    at.text_input(key="multihead.line").set_value("To be? {}").run()
    assert not at.exception and "never saw" in at.error[0].value


def test_each_heads_weights_print_three_decimals_and_their_rows_add_up_to_one():
    """Two decimals made rows visibly sum to 0.97-0.98; three, as every weight elsewhere, add up to 1 within the
    rounding of T numbers."""
    import pyarrow as pa

    at = run()
    grid = next(chart.proto for chart in at.get("vega_lite_chart") if "head 1" in chart.proto.spec)
    panels = [pa.ipc.open_stream(dataset.data.data).read_all().to_pylist() for dataset in grid.datasets]
    sums = {}
    for number, cells in enumerate(panels):
        for cell in cells:
            assert re.fullmatch(r"\d\.\d{3}", cell["text"]), cell["text"]
            sums.setdefault((number, cell["row"]), []).append(float(cell["text"]))
    assert len(panels) == 2 and sums
    assert all(abs(sum(row) - 1) <= 0.0005 * len(row) for row in sums.values())


# --- languages (issue 41) ---------------------------------------------------------------------------------

def test_spanish_and_arabic_run_translated():
    from tests.pages.i18n_checks import run_in

    for lang, title in (("es", "Atención multicabeza"), ("ar", "الانتباه متعدد الرؤوس")):
        at = run_in(PAGE, lang, {"h": "4", "weights": "random"})
        no_exception(at)
        assert at.title[0].value == title
        assert not at.error


def test_the_spanish_cost_sentence_groups_as_spanish_does():
    from tests.pages.i18n_checks import run_in

    at = run_in(PAGE, "es")
    no_exception(at)
    shown = "\n".join(c.value for c in at.caption)
    assert "**2.359.296** parámetros" in shown and "2,359,296" not in shown


@pytest.mark.parametrize("query", [{}, {"h": "1", "causal": "1"}, {"weights": "random", "gain": "5"},
                                   {"trained": "1"}])
def test_the_pseudo_language_leaves_no_english_unmarked(query):
    # a word the tiny vocabulary lacks gets engine.embeddings.tiny_vocabulary's sentence, marked by its own helper
    from tests.pages.i18n_checks import unmarked_english

    assert unmarked_english(PAGE, query) == []
