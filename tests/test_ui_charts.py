"""ui.charts: specs reach Streamlit with their rows as Arrow, unchanged in meaning, sized as the builder asked."""
from __future__ import annotations

import pyarrow as pa

from engine.charts import heatmap_spec
from engine.charts_text import held_out_lines, next_token_bars
from ui.charts import arrow_rows, as_arrow, prepared, single_view


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
