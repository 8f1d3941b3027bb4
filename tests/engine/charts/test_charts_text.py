"""The text pages' chart builders produce valid Vega-Lite (validated here once, not on every rerun)
and carry the numbers they draw."""
import math

import numpy as np

from engine.charts.bars import next_token_bars
from engine.charts.heatmaps import transition_heatmap
from engine.charts.lines import held_out_lines, table_growth, tokens_vs_merges
from engine.charts.style import visible
from tests.engine.vegalite import assert_valid, data_rows


def test_visible_marks_spaces_and_line_breaks():
    assert visible(" the\n") == "\u2423the\u21b5"
    assert visible("") == "(empty)"


def test_next_token_bars_one_model_prints_each_probability():
    spec = assert_valid(next_token_bars({"3-gram": [(" lamb", 0.5), (",", 0.25)]}, title="P"))
    assert [(r["token"], r["text"]) for r in data_rows(spec)] == [("\u2423lamb", "0.500"), (",", "0.250")]
    assert spec["layer"][0]["encoding"]["x"]["scale"]["domain"] == [0, 0.8]   # room for the printed number
    assert "facet" not in spec


def test_next_token_bars_two_models_are_two_panels_in_two_colours():
    spec = assert_valid(next_token_bars({"3-gram": [(" lamb", 0.5)], "SmolLM2": [(" lamb", 0.9)]}))
    assert spec["facet"]["column"]["sort"] == ["3-gram", "SmolLM2"]
    assert spec["resolve"] == {"scale": {"y": "independent"}}
    colour = spec["spec"]["layer"][0]["encoding"]["color"]
    assert colour["scale"] == {"domain": ["3-gram", "SmolLM2"], "range": ["#1f6fb4", "#e08214"]}
    assert [r["probability"] for r in data_rows(spec)] == [0.5, 0.9]


def test_transition_heatmap_has_a_cell_per_pair_with_its_count():
    spec = assert_valid(transition_heatmap(["a", " ", "\n"], np.arange(9).reshape(3, 3), np.full((3, 3), 1 / 3)))
    rows = data_rows(spec)
    assert len(rows) == 9
    assert rows[1] == {"a": "a", "b": "\u2423", "P(b | a)": 1 / 3, "C(a b)": 1}
    assert spec["encoding"]["x"]["sort"] == ["a", "\u2423", "\u21b5"]


def test_table_growth_labels_large_numbers_short():
    spec = assert_valid(table_growth([1, 2, 3], [75, 1488, 14272], [75.0, 75.0 ** 2, 75.0 ** 3]))
    rows = data_rows(spec)
    assert [(r["kind"], r["label"]) for r in rows[:3]] == [("possible (V^n)", "75"), ("possible (V^n)", "5,625"),
                                                           ("possible (V^n)", "4.2e+05")]
    assert [r["entries"] for r in rows[3:]] == [75.0, 1488.0, 14272.0]


def test_infinite_cross_entropy_is_labelled_not_plotted():
    spec = assert_valid(held_out_lines([(1, "MLE", 3.0), (2, "MLE", math.inf), (1, "Kneser-Ney", 3.0),
                                        (2, "Kneser-Ney", 2.4)]))
    rows = data_rows(spec)
    assert [row["label"] for row in rows] == ["3.00", "inf", "3.00", "2.40"]
    assert rows[1]["value"] is None and rows[1]["at"] == 3.0 * 1.08   # drawn as text just above the highest line


def test_tokens_vs_merges_marks_the_current_step():
    spec = assert_valid(tokens_vs_merges([0, 10, 20], [50, 40, 35], 10))
    line, rule = spec["layer"]
    assert line["data"]["values"] == [{"merges": 0, "tokens": 50}, {"merges": 10, "tokens": 40},
                                      {"merges": 20, "tokens": 35}]
    assert rule["data"]["values"] == [{"merges": 10}] and rule["mark"]["type"] == "rule"
