"""ui.charts: specs reach Streamlit with their rows as Arrow, unchanged in meaning, sized as the builder asked."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from engine.charts.bars import next_token_bars
from engine.charts.heatmaps import heatmap_spec
from engine.charts.lines import held_out_lines

import ui.charts
import ui.screen
from ui.charts import arrow_rows, as_arrow, prepared, renderer_options, show, single_view


def test_rows_become_a_table_with_every_key_any_row_has():
    table = arrow_rows([{"n": 1, "value": 2.5}, {"n": 2, "value": None, "at": 3.0}])
    assert table.to_pylist() == [{"n": 1, "value": 2.5, "at": None}, {"n": 2, "value": None, "at": 3.0}]


def test_rows_arrow_cannot_type_stay_rows():
    mixed = [{"v": "a"}, {"v": 1.5}]
    assert arrow_rows(mixed) is mixed
    assert arrow_rows([]) == [] and arrow_rows({"name": "x"}) == {"name": "x"}


def test_as_arrow_leaves_the_builders_spec_alone():
    spec = heatmap_spec([[0.5, 0.5]], ["q"], ["a", "b"])
    drawn = as_arrow(spec)
    assert isinstance(spec["data"]["values"], list) and isinstance(drawn["data"]["values"], pa.Table)
    assert drawn["data"]["values"].to_pylist() == spec["data"]["values"]
    assert drawn["layer"] is spec["layer"]


def test_prepared_spec_carries_arrow_bytes_that_read_back_as_the_rows():
    spec = heatmap_spec([[0.25, 0.75]], ["q"], ["a", "b"])
    ready = prepared(spec)
    assert ready["data"] == {"name": "values"}
    assert pa.ipc.open_stream(ready["datasets"]["values"]).read_all().to_pylist() == spec["data"]["values"]
    assert as_arrow(ready)["datasets"] == ready["datasets"]          # drawing it converts nothing again


def test_single_views_are_told_apart_from_facets_and_concatenations():
    assert single_view(held_out_lines([(1, "MLE", 3.0)]))
    assert single_view(heatmap_spec([[1.0]], ["a"], ["a"]))
    assert not single_view(next_token_bars({"a": [("x", 0.5)], "b": [("x", 0.4)]}))   # a facet
    assert not single_view({"hconcat": []})


def drawn_spec(monkeypatch, chart, **options) -> dict:
    drawn = []
    monkeypatch.setattr(ui.charts.st, "vega_lite_chart", lambda spec, **kwargs: drawn.append(spec))
    show(chart, **options)
    return drawn[0]


def test_show_draws_text_at_13_px_or_the_projector_size(monkeypatch):
    spec = heatmap_spec([[0.25, 0.75]], ["q"], ["a", "b"])
    assert drawn_spec(monkeypatch, spec)["config"]["text"]["fontSize"] == 13
    projector = drawn_spec(monkeypatch, spec, font_size=16)["config"]
    assert projector["text"]["fontSize"] == 16 and projector["axis"]["labelFontSize"] == 16
    assert spec["config"]["text"]["fontSize"] == 13                      # the builder's spec is not changed


def test_a_renderer_is_asked_for_only_when_named(monkeypatch):
    spec = {"usermeta": {"embedOptions": {"padding": 4}}}
    monkeypatch.delenv("PLAYGROUND_CHART_RENDERER", raising=False)
    assert renderer_options(spec) is spec
    monkeypatch.setenv("PLAYGROUND_CHART_RENDERER", "svg")
    assert renderer_options(spec)["usermeta"] == {"embedOptions": {"padding": 4, "renderer": "svg"}}
    assert spec == {"usermeta": {"embedOptions": {"padding": 4}}}


def test_only_a_width_in_pixels_is_fitted_a_width_in_steps_keeps_its_size(monkeypatch):
    from engine.charts.bars import grouped_probabilities
    from engine.charts.lines import tokens_vs_merges

    bars = grouped_probabilities({"A": np.array([0.1, 0.2]), "B": np.array([0.2, 0.1])}, ["he", "she"])
    assert drawn_spec(monkeypatch, bars)["autosize"] == {"type": "pad"}          # width {"step": 40}
    assert drawn_spec(monkeypatch, bars, width="stretch")["autosize"]["type"] == "fit-x"   # Streamlit sets pixels
    assert drawn_spec(monkeypatch, tokens_vs_merges([0, 1], [3, 2], 1))["autosize"]["type"] == "fit-x"


def test_each_chart_has_a_folded_download_box_with_svg_png_and_csv():
    from streamlit.testing.v1 import AppTest

    def script():
        from engine.charts.heatmaps import heatmap_spec
        from ui.charts import prepared, show

        show(heatmap_spec([[0.298, 0.702]], ["q"], ["a", "b"], title="first"))
        show(prepared(heatmap_spec([[0.5, 0.5]], ["q"], ["a", "b"], title="second")))
        show({"mark": "bar", "data": {"values": [{"x": i} for i in range(50_001)]},
              "encoding": {"x": {"field": "x", "type": "ordinal"}}})

    at = AppTest.from_function(script, default_timeout=60).run()
    boxes = [key for key in at.session_state if key.startswith("folded.download.")]
    assert len(boxes) == 3 and not at.exception
    assert not [element for element in at.get("download_button")]      # folded: nothing made, no button drawn
    for key in boxes:
        at.session_state[key] = True
    at.run()
    assert not at.exception
    assert len(at.get("download_button")) == 6                          # 3 + 3; the third chart gets a sentence
    assert any("more than the 50,000 a download can hold" in caption.value for caption in at.caption)


def test_a_prepared_spec_downloads_the_same_rows():
    from engine.charts import export

    spec = heatmap_spec([[0.298, 0.702]], ["q"], ["a", "b"], title="alpha")
    made = ui.charts._made(export.csv_text, prepared(spec))()
    assert made == export.csv_text(spec) and "0.298" in made
    assert b"<title>" in ui.charts._made(export.svg, prepared(spec))()


def test_a_failing_export_check_leaves_the_page_whole(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from engine.charts import export

    def broken(spec):
        raise RuntimeError("vl-convert is broken")

    monkeypatch.setattr(export, "check", broken)

    def script():
        import streamlit as st

        from engine.charts.heatmaps import heatmap_spec
        from ui.charts import show

        show(heatmap_spec([[0.298, 0.702]], ["q"], ["a", "b"], title="first"))
        st.write("after the chart")

    at = AppTest.from_function(script, default_timeout=60).run()
    for key in [key for key in at.session_state if key.startswith("folded.download.")]:
        at.session_state[key] = True
    at.run()
    assert not at.exception
    assert [caption.value for caption in at.caption] == ["This chart cannot be downloaded."]
    assert "after the chart" in [markdown.value for markdown in at.markdown]


def test_hoisted_moves_nested_rows_to_named_datasets_and_keeps_the_json_when_only_numbers_change():
    from engine.charts.heatmaps import heatmap_panels
    from ui.charts import HOISTED, hoisted

    def panels(weight: float) -> dict:
        return heatmap_panels({"head 1": (np.array([[weight, 1 - weight]]), ["q"], ["a", "b"]),
                               "head 2": (np.array([[1 - weight, weight]]), ["q"], ["a", "b"])})

    before, after = hoisted(as_arrow(panels(0.25))), hoisted(as_arrow(panels(0.75)))
    without_rows = [{name: value for name, value in spec.items() if name != "datasets"} for spec in (before, after)]
    assert without_rows[0] == without_rows[1]   # the JSON Streamlit sends is the same: the browser swaps the rows
    assert set(before["datasets"]) == set(after["datasets"]) and len(before["datasets"]) == 2
    nested = before["vconcat"][0]["hconcat"][0]
    assert before["datasets"][nested["data"]["name"]].to_pylist() == \
        panels(0.25)["vconcat"][0]["hconcat"][0]["data"]["values"]
    assert "datasets" not in panels(0.25)   # the builder's spec is left alone

    # a layer's own rows beside top-level rows: both named (Streamlit's browser code puts unnamed rows into a
    # chart's only named dataset)
    layered = {"data": {"values": [{"x": 1}, {"x": 2}]},
               "layer": [{"mark": "point"}, {"data": {"values": [{"x": 1.5}]}, "mark": "rule"}]}
    drawn = hoisted(as_arrow(layered))
    assert drawn["data"] == {"name": HOISTED} and drawn["datasets"][HOISTED].to_pylist() == [{"x": 1}, {"x": 2}]
    assert drawn["datasets"][drawn["layer"][1]["data"]["name"]].to_pylist() == [{"x": 1.5}]
    assert drawn["layer"][0] == {"mark": "point"}

    single = heatmap_spec([[0.5, 0.5]], ["q"], ["a", "b"])   # no nested rows: as it was
    assert hoisted(single) == single


def test_show_fits_a_chart_to_a_phone_and_keeps_the_desktops_for_paper(monkeypatch):
    """A session whose browser reported a 340 px main column (ui.screen): panels side by side stack; the handout and
    the download box get the chart as built."""
    from engine.charts.heatmaps import encoding_heatmap
    from engine.charts.style import side_by_side

    kept = []
    monkeypatch.setattr(ui.screen, "column", lambda: 340)
    monkeypatch.setattr(ui.charts.recording, "add", lambda block: kept.append(block.spec))
    spec = side_by_side(encoding_heatmap(np.eye(32)), encoding_heatmap(np.eye(32)))
    drawn = drawn_spec(monkeypatch, spec)
    assert "vconcat" in drawn and "hconcat" not in drawn
    assert "hconcat" in kept[0] and kept[0]["config"]["axis"]["labelFontSize"] == 13


def test_show_in_projector_mode_grows_the_chart_and_its_text(monkeypatch):
    from engine.charts.style import PROJECTOR_TEXT_SIZE

    monkeypatch.setattr(ui.screen, "projector", lambda: True)
    spec = heatmap_spec([[0.25, 0.75], [0.5, 0.5]], ["a", "b"], ["a", "b"])
    drawn = drawn_spec(monkeypatch, spec)
    assert drawn["config"]["text"]["fontSize"] == PROJECTOR_TEXT_SIZE
    assert drawn["height"]["step"] > spec["height"]["step"]                # the cells grew with the column


def test_on_a_projector_a_chart_in_a_column_counts_on_a_third_of_the_main_column(monkeypatch):
    """A third: the Inside page's estimate heatmap sits in a third of the column, and counted on half it ran 200 px
    past it; a chart in a wider column says so (share=)."""
    from engine.charts.style import COLUMN_GAP_PX, PROJECTOR_COLUMN_PX

    monkeypatch.setattr(ui.screen, "projector", lambda: True)
    monkeypatch.setattr(ui.charts, "in_column", lambda: True)
    assert ui.charts.layout().width == int(PROJECTOR_COLUMN_PX / 3) - COLUMN_GAP_PX
    assert ui.charts.layout(share=0.6).width == int(PROJECTOR_COLUMN_PX * 0.6) - COLUMN_GAP_PX
    monkeypatch.setattr(ui.screen, "projector", lambda: False)
    monkeypatch.setattr(ui.screen, "column", lambda: 880)
    assert ui.charts.layout().width is None                  # a desktop: the chart as built
