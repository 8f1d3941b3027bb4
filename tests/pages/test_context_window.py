"""views/context_window.py in AppTest."""
from __future__ import annotations

import pytest

from tests.pages.conftest import no_exception, texts, whole_page, unfold

PAGE = "views/context_window.py"


def test_defaults_crane_looks_at_lake(run_page):
    at = run_page(PAGE)
    no_exception(at)
    assert not at.error
    assert "favourite neighbour of **crane** is **lake**" in texts(at)
    assert "A window needs k = 3 to reach it" in texts(at)


def test_defaults_are_the_calculators_worked_example(run_page):
    """Same four vectors as the attention calculator, so crane's weights are the chapter's numbers."""
    from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X
    from engine.attention.typed_matrices import format_matrix

    at = run_page(PAGE)
    assert at.text_area(key="context.x").value == format_matrix(CHAPTER_X, CHAPTER_TOKENS)
    assert at.selectbox(key="context.query").value == 0  # crane
    assert "Its largest weight, **0.298**, is on itself" in texts(at)
    assert "(0.293)" in texts(at)  # lake, crane's favourite neighbour


def test_slider_changes_the_window(run_page):
    at = run_page(PAGE)
    before = texts(at)
    at.slider(key="context.k").set_value(3).run()
    no_exception(at)
    assert texts(at) != before
    assert "smallest k whose window reaches *lake* from *crane*.** Done." in texts(at).replace(" **Done.**", "** Done.")


def test_new_sentence_rebuilds_the_vectors(run_page):
    at = run_page(PAGE)
    at.text_input(key="context.sentence").input("the pitcher threw a fastball").run()
    no_exception(at)
    assert at.text_area(key="context.x").value.startswith("the: 0.1, 0.9, 0\npitcher:")


def test_bad_input_is_a_sentence(run_page):
    at = run_page(PAGE)
    at.text_input(key="context.sentence").input("   !!! ").run()
    no_exception(at)
    assert any("at least one word" in e.value for e in at.error)
    assert "favourite neighbour" in texts(at)  # the vectors were kept
    at.text_area(key="context.x").input("the: 1, 2\ncrane: 3").run()
    no_exception(at)
    assert any("same number of entries" in e.value for e in at.error)


def test_unknown_words_start_at_zero_with_a_note(run_page):
    at = run_page(PAGE)
    at.text_input(key="context.sentence").input("the zebra by the lake").run()
    no_exception(at)
    assert any("zebra" in i.value for i in at.info)


def test_window_reruns_only_the_result_and_the_rest_stays(run_page):
    """The window half-width reruns only the result section (ui.page.section): its numbers change, the link
    follows, and the whole page still shows the sentence, X and the title as they were."""
    at = unfold(run_page(PAGE))
    x_before = at.text_area(key="context.x").value
    window_before = [x.value for x in at.get("latex") if "window" in x.value]
    at.slider(key="context.k").set_value(2).run()
    no_exception(at)
    assert not at.title                                    # only the section was sent
    assert "t, k = 0, 2" in at.code[0].value
    window_after = [x.value for x in at.get("latex") if "window" in x.value]
    assert window_after and window_after != window_before  # crane's window average now spans three tokens
    assert at.query_params["k"] == "2"
    whole_page(at)
    no_exception(at)
    assert at.title[0].value == "Context: window vs attention"
    assert at.text_input(key="context.sentence").value == "crane by the lake"
    assert at.text_area(key="context.x").value == x_before
    assert at.slider(key="context.k").value == 2 and at.selectbox(key="context.query").value == 0
    assert [x.value for x in at.get("latex") if "window" in x.value] == window_after


def test_the_bar_chart_keeps_one_axis_as_k_changes_and_a_uniform_window_is_drawn_white(run_page):
    """The y-axis is 0..1 for every k (bars compare across settings, not against an axis that moved), and the
    heatmap draws the window that covers all four tokens, 0.250 each, neutral (on the uniform 1/T), and every window
    row white inside and outside the scale beyond its edges."""
    import json

    import pyarrow as pa

    at = run_page(PAGE)
    domains = set()
    for k in range(0, 7):
        at.slider(key="context.k").set_value(k).run()
        no_exception(at)
        specs = [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]
        bars = [spec for spec in specs if "takes from each token" in json.dumps(spec.get("title"))]
        assert len(bars) == 1
        domains.add(tuple(bars[0]["encoding"]["y"]["scale"]["domain"]))
        at = whole_page(at)                     # the slider reruns only the result; the next k needs the sidebar
    assert domains == {(0, 1)}
    heatmap = next(chart.proto for chart in at.get("vega_lite_chart") if "by content" in chart.proto.spec)
    cells = pa.ipc.open_stream(heatmap.data.data).read_all().to_pylist()
    uniform = [cell for cell in cells if cell["text"] == "0.250"]
    assert len(uniform) >= 4 and {cell["shade"] for cell in uniform} == {0.0}
    # a window shares evenly among what it sees: white inside, even k = 0's forced 1.000 (no choice); the keys
    # outside it are drawn outside (grey, off the scale), not as zeros as loud as a decisive 1.000 (issue 38)
    windows = [cell for cell in cells if cell["row"].startswith("window")]
    assert {cell["shade"] for cell in windows if cell["seen"]} == {0.0}
    outside = [cell for cell in windows if not cell["seen"]]
    assert outside and {cell["text"] for cell in outside} == {"0.000"} and {cell["shade"] for cell in outside} == {None}
    assert all(cell["seen"] for cell in cells if cell["row"] == "attention")


def test_a_neighbour_past_the_largest_window_is_a_sentence(run_page):
    """crane's favourite neighbour 21 positions away: past the window average's limit (k = 16). The page used to
    build that window to count the k it needs, and showed a traceback."""
    at = run_page(PAGE)
    at.text_input(key="context.sentence").input("crane " + "zz " * 20 + "lake").run()
    no_exception(at)
    assert not at.error
    assert "favourite neighbour of **crane** is **lake**" in texts(at)
    assert "A window needs k = 21 (wider than any window drawn here" in texts(at)


def test_the_window_slider_sits_beside_its_chart_not_in_the_sidebar(run_page):
    """On a phone the sidebar is folded away: k, the page's main control, is in the main area."""
    at = run_page(PAGE)
    assert [s.key for s in at.main.slider] == ["context.k"]
    assert not [s for s in at.sidebar.slider if s.key == "context.k"]


def test_crane_of_zeros_is_said_to_prefer_no_token(run_page):
    from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X
    from engine.attention.typed_matrices import format_matrix

    at = run_page(PAGE)
    x = CHAPTER_X.copy()
    x[0] = 0
    at.text_area(key="context.x").input(format_matrix(x, CHAPTER_TOKENS)).run()
    no_exception(at)
    words = texts(whole_page(at))
    assert "**crane** gives every token the same weight, 0.250, itself included" in words
    assert "favourite neighbours of **crane**" not in words


# --- languages (issue 41) ---------------------------------------------------------------------------------

def test_spanish_and_arabic_run_translated():
    from tests.pages.i18n_checks import run_in

    for lang, title in (("es", "Contexto: ventana frente a atención"), ("ar", "السياق: النافذة مقابل الانتباه")):
        at = run_in(PAGE, lang, {"k": "3"})
        no_exception(at)
        assert at.title[0].value == title
        assert not at.error


def test_the_spanish_reading_writes_the_reader_s_numbers():
    from tests.pages.i18n_checks import run_in

    at = run_in(PAGE, "es")
    no_exception(at)
    assert "Su mayor peso, **0,298**, está en sí mismo" in texts(at)
    assert r"0{,}464 & 0{,}476 & 0{,}286" in texts(at)


@pytest.mark.parametrize("query", [{}, {"k": "6"}, {"sentence": "the pitcher threw a fastball", "scaled": "0"},
                                   {"sentence": "crane zzz"}])
def test_the_pseudo_language_leaves_no_english_unmarked(query):
    from engine.chapter.context import SENTENCES
    from tests.pages.i18n_checks import unmarked_english

    # the example sentences and their words stay English: the hand-picked vectors are English words'
    assert unmarked_english(PAGE, query, tokens=SENTENCES) == []
