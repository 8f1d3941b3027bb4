"""engine.charts.text: every chart the app draws reads as one sentence and a table of its numbers."""
from __future__ import annotations

from engine.charts import text
from engine.charts.bars import next_token_bars
from engine.charts.heatmaps import heatmap_spec
from tests.engine.charts.test_charts import every_builder_spec


def test_a_heatmap_reads_as_a_sentence_and_its_cells():
    spec = heatmap_spec([[0.298, 0.702], [0.5, 0.5]], ["crane", "lake"], ["crane", "lake"], title="alpha")
    sentence = text.summary(spec)
    assert sentence.startswith("Heatmap 'alpha'") and "4 values" in sentence and sentence.endswith(".")
    columns, cells, left_out = text.table(spec)
    assert left_out == 0 and len(cells) == 4
    assert "0.298" in {cell for row in cells for cell in row}


def test_long_data_is_cut_with_a_count():
    spec = next_token_bars({"model": [(f"t{i}", 1 / 500) for i in range(500)]})
    columns, cells, left_out = text.table(spec, limit=100)
    assert len(cells) == 100 and left_out == 400


def test_every_builders_chart_has_a_summary():
    for name, spec in every_builder_spec().items():
        sentence = text.summary(spec)
        assert len(sentence) > 10 and sentence.endswith("."), (name, sentence)
        columns, cells, _ = text.table(spec)
        assert all(len(row) == len(columns) for row in cells), name


def test_panels_side_by_side_read_every_panels_rows():
    from engine.charts.heatmaps import heatmap_panels

    spec = heatmap_panels({"A": ([[0.298, 0.702], [0.5, 0.5]], ["a", "b"], ["a", "b"]),
                           "B": ([[0.1, 0.9], [0.6, 0.4]], ["a", "b"], ["a", "b"])})
    assert "8 values" in text.summary(spec)
    columns, cells, left_out = text.table(spec)
    assert len(cells) == 8 and left_out == 0
    assert {"0.298", "0.9"} <= {cell for row in cells for cell in row}
