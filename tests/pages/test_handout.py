"""A page's handout (ui/handout.py records what a page shows; engine/charts/handout.py prints it): the calculator's fits
two pages of A4 and of Letter with the worked example's numbers and the QR code of its link; a section that reruns
alone replaces its own blocks; the sidebar's box makes the PDF on click and says a sentence where it cannot. That
every page's first view makes its handout is checked in test_challenges.py, which runs them all already."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.charts import handout as paper_handout
from tests.engine.charts.test_handout import page_count, pdf_text, qr_links
from tests.pages.conftest import no_exception, run_file
from ui import handout

LINK = "http://localhost:8501/attention?scaled=1&query=0"


def recorded(at: AppTest) -> handout.Record:
    kept = at.session_state[handout.RECORD]
    assert isinstance(kept, handout.Record)
    return kept


def test_the_calculators_handout_fits_two_pages_with_the_worked_example():
    at = run_file("views/attention_calculator.py")
    no_exception(at)
    description = handout.description(recorded(at), LINK)
    for paper in paper_handout.PAPERS:
        pdf = paper_handout.handout_pdf(description, paper)
        assert page_count(pdf) <= 2, paper
        text = pdf_text(pdf)
        assert "[0.298 0.203 0.206 0.293]" in text and "[0.464 0.476 0.286]" in text, paper
        assert "The code (Python)" in text and "Try this" in text   # the code is printed though its box is folded
        assert qr_links(pdf) == [LINK]


def test_a_section_rerun_alone_replaces_its_own_blocks():
    at = run_file("views/attention_calculator.py")
    before = recorded(at).blocks()
    at.toggle(key="attention.causal").set_value(True).run()   # reruns the result section alone (ui.page.only)
    assert not at.title, "expected a section-only rerun"
    after = recorded(at).blocks()
    assert [type(b) for b in after] == [type(b) for b in before]   # nothing recorded twice, nothing lost
    weights = [b for b in after if isinstance(b, paper_handout.Formula) and r"\alpha_{ij}" in b.formula]
    assert "0.298" not in weights[0].numbers and "Masked keys" in weights[0].caption   # crane sees only itself


def _page_with_handout_box(charts: int) -> None:
    import streamlit as st

    from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X, self_attention
    from engine.charts.heatmaps import heatmap_spec
    from ui import charts as ui_charts
    from ui import handout, page, tables

    page.header("A page", "Which question?")
    tables.table({"token": ["a*b", "- x", "us$"], "weight": [0.5, 0.25, 0.25]})
    weights = self_attention(CHAPTER_X).weights
    for index in range(charts):
        ui_charts.show(heatmap_spec(weights, CHAPTER_TOKENS, CHAPTER_TOKENS, title=f"chart {index}"), key=f"c{index}")
    st.session_state["folded.app.handout"] = True
    handout.control("http://localhost:8501/a-page?n=1")


@pytest.mark.parametrize("charts, made", [(1, True), (17, False)])
def test_the_sidebar_box_makes_the_pdf_on_click_or_says_why_not(charts, made):
    at = AppTest.from_function(_page_with_handout_box, args=(charts,), default_timeout=120).run()
    no_exception(at)
    assert not at.get("download_button") or all("handout" not in b.proto.label for b in at.get("download_button"))
    at.button(key="app.handout.make").click().run()
    no_exception(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert ("Download the handout (A4, PDF)" in labels) is made
    errors = [e.value for e in at.error]
    assert bool(errors) is not made
    if not made:
        assert "more than the 16 a handout can hold" in errors[0]
    table, = [b for b in handout.description(recorded(at), "").blocks if isinstance(b, paper_handout.Table)]
    assert table.rows == (("a*b", "0.500"), ("- x", "0.250"), ("us$", "0.250"))   # as typed, not Markdown-escaped


def test_a_handout_that_fails_unexpectedly_is_a_sentence_and_the_page_stays(monkeypatch):
    """Not a ValueError from the engine's limits but any failure (vl-convert or fpdf2 broken): one sentence in the box,
    no traceback, and the page's own content still drawn."""
    def broken(*args, **kwargs):
        raise RuntimeError("fpdf2 is broken")

    monkeypatch.setattr(paper_handout, "handout_pdf", broken)
    at = AppTest.from_function(_page_with_handout_box, args=(1,), default_timeout=120).run()
    at.button(key="app.handout.make").click().run()
    no_exception(at)
    assert [e.value for e in at.error] == ["The handout could not be made for this view; the page itself is unchanged."]
    assert at.get("vega_lite_chart") and not any("handout" in b.proto.label for b in at.get("download_button"))
