"""Every Gradio tab's "Take this tab home" box (gradio_tabs/take_home.py): the handout is the engine's handout_pdf of
what the tab shows (the worked example's numbers, the QR code of the Space's address), a chart shared with the
Streamlit page prints the same sentence, the charts come as SVG, PNG and CSV, and a chart or handout that cannot be
made is a sentence, never a traceback. The tab functions are called as Gradio calls them; no server is started."""
from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

gr = pytest.importorskip("gradio", reason="requirements-test.txt installs gradio")

from engine.beyond.modalities import PROTEIN_PRESETS  # noqa: E402
from engine.charts import export  # noqa: E402
from engine.charts import handout as paper_handout  # noqa: E402
from gradio_tabs import take_home  # noqa: E402
from engine.chapter.attention import CHAPTER_MATRIX  # noqa: E402
from gradio_tabs.attention_calculator import attention_tab  # noqa: E402
from gradio_tabs.beyond_words import residue_attention_tab  # noqa: E402
from tests.engine.charts.test_handout import page_count, pdf_text, qr_links  # noqa: E402
from ui.path import ideas  # noqa: E402

LINK = "http://127.0.0.1:7860/"
IDEAS = {idea.url: idea for idea in ideas()}
QUESTION = "### How does one token decide how much every other token matters?\nEdit X."


def attention_values() -> list:
    """The calculator tab's values in its layout order: question, heatmap, summary, the two tables."""
    weights, context, summary, heatmap = attention_tab(CHAPTER_MATRIX, True, False, 0, 1.0, False, "identity", 0)
    return [QUESTION, heatmap, summary, weights, context]


class Request:
    headers = {"origin": LINK.rstrip("/")}


def test_the_calculator_tabs_handout_has_the_worked_example_and_the_spaces_qr_code():
    for paper in paper_handout.PAPERS:
        path = take_home.handout_file(IDEAS["attention"], paper, attention_values(), Request())
        assert path.endswith(f"attention-calculator-handout-{paper.lower()}.pdf")
        pdf = open(path, "rb").read()
        text = pdf_text(pdf)
        assert "Attention calculator" in text and "How does one token decide" in text
        assert "0.298 0.203 0.206 0.293" in text                # alpha's first row, as the tab's table prints it
        assert "0.464 0.476 0.286" in text                      # the context of crane
        assert page_count(pdf) == 1 and qr_links(pdf) == [LINK]


def test_a_chart_the_page_shares_prints_the_same_sentence_in_both_handouts():
    """Same state, same chart: the Beyond words protein heatmap recorded by the Streamlit page and the one the Gradio
    tab draws give the handout the same spec rows and the same one-sentence summary."""
    from tests.pages.conftest import run_file
    from ui import handout

    at = run_file("views/beyond_words.py", {"kind": "protein"}, timeout=120)
    assert not at.exception
    streamlit_charts = [block for block in handout.description(at.session_state[handout.RECORD], "").blocks
                        if isinstance(block, paper_handout.Chart)]
    plot, _, _ = residue_attention_tab(PROTEIN_PRESETS["Human insulin, A chain"], 64, 0, 0)
    gradio_chart, = [block for block in take_home.description(IDEAS["beyond"], LINK, [plot]).blocks
                     if isinstance(block, paper_handout.Chart)]
    page_chart, = [chart for chart in streamlit_charts if "residue attending" in chart.summary]
    assert gradio_chart.summary == page_chart.summary
    assert export.csv_text(gradio_chart.spec) == export.csv_text(page_chart.spec)


def test_the_charts_come_as_svg_png_and_csv():
    files, note = take_home.chart_files(attention_values())
    assert sorted(name.rsplit(".", 1)[1] for name in files) == ["csv", "png", "svg"]
    svg, = [name for name in files if name.endswith(".svg")]
    assert ElementTree.parse(svg).getroot().tag.endswith("svg")
    assert open([name for name in files if name.endswith(".png")][0], "rb").read()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "0.298" in open([name for name in files if name.endswith(".csv")][0]).read()
    assert note == "1 chart: SVG, PNG and CSV."


def test_a_chart_too_large_is_a_sentence_and_the_others_still_come(monkeypatch):
    huge = {"mark": "bar", "title": "huge", "data": {"values": [{"x": i} for i in range(60_000)]},
            "encoding": {"x": {"field": "x", "type": "ordinal"}}}
    files, note = take_home.chart_files(attention_values() + [take_home_plot(huge)])
    assert len(files) == 3 and "'huge': This chart draws 60,000 values, more than the 50,000" in note


def test_a_failing_export_or_handout_is_a_sentence_and_the_tab_stays(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("vl-convert is broken")

    monkeypatch.setattr(export, "svg", broken)
    files, note = take_home.chart_files(attention_values())
    assert files == [] and note.endswith("could not be made for this view; the tab itself is unchanged.")
    monkeypatch.setattr(paper_handout, "handout_pdf", broken)
    with pytest.raises(gr.Error) as refused:
        take_home.handout_file(IDEAS["attention"], "A4", attention_values(), Request())
    assert refused.value.message == "The handout could not be made for this view; the tab itself is unchanged."


def test_a_handout_past_its_limits_is_the_engines_sentence():
    many = [attention_values()[1]] * 17
    with pytest.raises(gr.Error) as refused:
        take_home.handout_file(IDEAS["attention"], "A4", [QUESTION, *many], Request())
    assert "more than the 16 a handout can hold" in str(refused.value)
    with pytest.raises(gr.Error, match="A4 or Letter paper, not 'A3'"):
        take_home.handout_file(IDEAS["attention"], "A3", attention_values(), Request())


def test_every_tab_has_the_box_and_it_reads_the_tabs_charts_tables_and_sentences():
    import gradio_app

    made = {fn.fn.__name__: fn for fn in gradio_app.demo.fns.values()
            if getattr(fn.fn, "__name__", "") in ("made_handout", "made_charts")}
    handouts = [fn for fn in gradio_app.demo.fns.values() if getattr(fn.fn, "__name__", "") == "made_handout"]
    assert len(handouts) == len(IDEAS) and made
    for fn in handouts:
        kinds = {type(component) for component in fn.inputs}
        assert gr.Radio in kinds and gr.Markdown in kinds, fn.inputs   # the paper, and at least the question


def take_home_plot(spec: dict):
    from gradio_tabs.common import plot

    return plot(spec)


def test_table_cells_print_as_a_reader_reads_them():
    import numpy as np

    assert [take_home._cell(v) for v in (np.int64(38_654_705_664), 0.29812, float("nan"), None, True,
                                         "$Q_m = X W^Q_m$")] == ["38,654,705,664", "0.2981", "", "", "True",
                                                                 "Q_m = X W^Q_m"]


def test_a_handouts_table_prints_its_numbers_as_the_tab_shows_them():
    """0.19 in a column the tab rounded to 3 decimals is 0.190 on paper as on screen; in Spanish 0,190 and 2.359.296
    (gradio_tabs.common.shown_table)."""
    import pandas as pd

    from engine import i18n

    frame = pd.DataFrame({"token": ["by", "the"], "weight": [0.19, 0.298], "count": [2359296, 3]})
    assert take_home._table(frame).rows == (("by", "0.190", "2,359,296"), ("the", "0.298", "3"))
    with i18n.use("es"):
        assert take_home._table(frame).rows == (("by", "0,190", "2.359.296"), ("the", "0,298", "3"))


def test_each_click_has_its_own_folder_and_old_ones_go(monkeypatch):
    import os

    first = take_home._folder()
    (first / "a.pdf").write_bytes(b"%PDF")
    os.utime(first, (0, 0))                         # made long ago
    second = take_home._folder()
    assert second != first and second.parent == first.parent and not first.exists()
