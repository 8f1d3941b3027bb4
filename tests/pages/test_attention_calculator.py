"""views/attention_calculator.py in AppTest: defaults, an edit, bad input, URL state."""
from __future__ import annotations

import numpy as np
import pytest

from tests.pages.conftest import no_exception, texts, whole_page

PAGE = "views/attention_calculator.py"


def test_defaults_show_the_chapter_numbers(run_page):
    at = run_page(PAGE)
    no_exception(at)
    assert not at.error
    shown = texts(at)
    assert "0.298 & 0.203 & 0.206 & 0.293" in shown
    assert "0.464 & 0.476 & 0.286" in shown


def test_turning_scaling_off_gives_the_raw_steps(run_page):
    at = run_page(PAGE)
    at.toggle(key="attention.scaled").set_value(False).run()
    no_exception(at)
    assert "0.332 & 0.170 & 0.175 & 0.322" in texts(at)


def test_editing_a_number_changes_the_weights(run_page):
    at = run_page(PAGE)
    at.text_area(key="attention.x").input("crane: 0.8, 0.1, 0.4\nby: 0.9, 0.2, 0.4\n"
                                          "the: 0.1, 0.9, 0\nlake: 0.7, 0.2, 0.5").run()
    no_exception(at)
    assert "0.298 & 0.203" not in texts(at)
    assert "make *crane* look at *by*).** Done." in texts(at).replace(" **Done.**", "** Done.")


def test_projections_and_causal_mask(run_page):
    at = run_page(PAGE)
    at.toggle(key="attention.proj").set_value(True).run()
    at.toggle(key="attention.causal").set_value(True).run()    # reruns only the result section
    no_exception(at)
    assert "0.298" not in texts(at)  # crane now sees only itself
    assert r"\alpha_{\text{crane},\cdot} = \begin{bmatrix}1.000 & 0.000 & 0.000 & 0.000" in texts(at)
    assert whole_page(at).text_area(key="attention.W_q").value.startswith("1, 0, 0")  # identity to start


def test_letter_in_a_cell_is_a_sentence_and_keeps_the_last_good_matrix(run_page):
    at = run_page(PAGE)
    at.text_area(key="attention.x").input("crane: 0.8, oops, 0.4\nby: 0 1 0.1").run()
    no_exception(at)
    assert any("'oops' is not a number" in e.value for e in at.error)
    assert "0.298 & 0.203 & 0.206 & 0.293" in texts(at)


def test_nan_and_oversize_are_sentences(run_page):
    at = run_page(PAGE)
    at.text_area(key="attention.x").input("crane: nan, 0.1, 0.4").run()
    no_exception(at)
    assert any("finite" in e.value for e in at.error)
    at.text_area(key="attention.x").input("\n".join("1, 2" for _ in range(200))).run()
    no_exception(at)
    assert any("rows; the limit is" in e.value for e in at.error)


def test_huge_scores_overflow_only_the_naive_softmax(run_page):
    at = run_page(PAGE)
    at.selectbox(key="attention.preset").set_value("A huge-score row (softmax stability)").run()
    no_exception(at)
    assert any("overflowed" in w.value for w in at.warning)
    table = at.table[-1].value      # a short table: plain HTML (ui.tables), its numbers formatted
    assert np.all(np.isfinite(table["after subtracting the max"].astype(float)))
    assert "nan" in table["exp(score) / sum (as written)"].tolist()


def test_url_state_opens_the_exact_example(run_page):
    at = run_page(PAGE, query={"x": "a: 1, 0\nb: 0, 1", "scaled": "0", "query": "1"})
    no_exception(at)
    assert at.text_area(key="attention.x").value == "a: 1, 0\nb: 0, 1"
    assert at.selectbox(key="attention.query").value == 1
    assert at.toggle(key="attention.scaled").value is False


def test_hand_edited_url_falls_back_with_a_warning(run_page):
    at = run_page(PAGE, query={"query": "seven", "scaled": "maybe"})
    no_exception(at)
    assert any("could not be read" in w.value for w in at.warning)


def test_the_weights_heatmap_draws_the_worked_example_nearly_neutral_and_centres_a_causal_row_on_its_past(run_page):
    """crane's 0.298 0.203 0.206 0.293 are close to the uniform 0.25: pale cells, not the dark of a 1.000. With
    the causal mask row i sees i + 1 tokens, so its white is 1/(i + 1) (row 0's forced 1.000 is neutral)."""
    import json

    import pyarrow as pa

    def weight_cells(at):
        chart = next(c.proto for c in at.get("vega_lite_chart") if "each row sums to 1" in c.proto.spec)
        assert json.loads(chart.spec)["layer"][0]["encoding"]["color"]["scale"]["domain"] == [-1, 0, 1]
        return pa.ipc.open_stream(chart.data.data).read_all().to_pylist()

    at = run_page(PAGE)
    crane = [cell for cell in weight_cells(at) if cell["i"] == 0]
    assert [cell["text"] for cell in crane] == ["0.298", "0.203", "0.206", "0.293"]
    assert max(abs(cell["shade"]) for cell in crane) < 0.2 and {cell["ink"] for cell in crane} == {"black"}
    at.toggle(key="attention.causal").set_value(True).run()
    no_exception(at)
    cells = weight_cells(at)
    assert [cell["uniform 1/T"] for cell in cells if cell["j"] == 0] == [1.0, 0.5, round(1 / 3, 4), 0.25]
    assert cells[0]["shade"] == 0.0 and {cell["seen"] for cell in cells if cell["j"] > cell["i"]} == {False}


def test_sharpness_sharpens_the_main_heatmap_and_one_is_the_chapter(run_page):
    at = run_page(PAGE)
    assert at.select_slider(key="attention.sharp").value == 1.0
    assert "0.298 & 0.203 & 0.206 & 0.293" in texts(at)                 # the default is the worked example
    at.select_slider(key="attention.sharp").set_value(8.0).run()        # reruns only the result section
    no_exception(at)
    assert not at.title
    shown = texts(at)
    assert "0.298 & 0.203 & 0.206 & 0.293" not in shown
    assert r"\tilde s_{ij} = \beta\," in shown and "At β = 8 the largest weight" in shown
    assert at.query_params["sharp"] in (["8"], "8")


def test_learning_w_q_and_w_k_reruns_alone_and_moves_crane_to_lake(run_page):
    at = run_page(PAGE)
    assert "on **lake** (first at step 8)" in texts(at)                 # the 12 steps shown at first
    at.slider(key="attention.learn_steps").set_value(3).run()          # reruns only the learning section
    no_exception(at)
    assert not at.title and [s.value for s in at.subheader] == ["Learn W_Q and W_K"]
    assert "After 3 steps, **crane**'s largest weight is still on **crane**" in texts(at)
    assert at.query_params["learn_steps"] in (["3"], "3")
    at = whole_page(at)
    assert "0.298 & 0.203 & 0.206 & 0.293" in texts(at) and at.slider(key="attention.learn_steps").value == 3


# --- languages (issue 41) ---------------------------------------------------------------------------------

def test_spanish_and_arabic_run_translated():
    from tests.pages.i18n_checks import run_in

    for lang, title in (("es", "Calculadora de atención"), ("ar", "حاسبة الانتباه")):
        at = run_in(PAGE, lang, {"proj": "1", "causal": "1"})
        no_exception(at)
        assert at.title[0].value == title
        assert not at.error


@pytest.mark.parametrize("query", [{}, {"causal": "1"}, {"proj": "1", "causal": "1", "sharp": "8", "factor": "10000"},
                                   {"scaled": "0", "learn_steps": "3"}])
def test_the_pseudo_language_leaves_no_english_unmarked(query):
    from tests.pages.i18n_checks import unmarked_english

    assert unmarked_english(PAGE, query, tokens=("crane", "by", "the", "lake")) == []


def test_the_worked_example_in_spanish_writes_0_298_and_the_code_keeps_python():
    from tests.pages.conftest import unfold
    from tests.pages.i18n_checks import run_in

    from engine import i18n

    with i18n.use("es"):   # AppTest formats a selectbox's options here, in the test's thread: in the page's language
        at = unfold(run_in(PAGE, "es"))
    no_exception(at)
    reading = next(m.value for m in at.markdown if "pone su mayor peso" in m.value)
    assert "**crane** pone su mayor peso, **0,298**, en **crane**" in reading and "0.298" not in reading
    assert r"0{,}298 & 0{,}203 & 0{,}206 & 0{,}293" in texts(at)      # the formula
    code = "\n".join(c.value for c in at.code)
    assert "0.298" in code and "0,298" not in code                    # the code panel's printout stays Python


def test_the_worked_example_in_chinese_writes_0_298():
    from tests.pages.i18n_checks import run_in

    at = run_in(PAGE, "zh-Hans")
    no_exception(at)
    reading = next(m.value for m in at.markdown if "最大的权重" in m.value)
    assert "**0.298**" in reading and "0,298" not in texts(at)
    assert "0.298 & 0.203 & 0.206 & 0.293" in texts(at)
