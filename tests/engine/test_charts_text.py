"""The text pages' Altair builders produce valid Vega-Lite (validated here once, not on every rerun)."""
import math

import numpy as np

from engine.charts_text import (held_out_lines, next_token_bars, table_growth, tokens_vs_merges,
                                transition_heatmap, visible)


def test_visible_marks_spaces_and_line_breaks():
    assert visible(" the\n") == "\u2423the\u21b5"
    assert visible("") == "(empty)"


def test_every_builder_validates():
    charts = [
        next_token_bars({"3-gram": [(" lamb", 0.5), (",", 0.25)]}),
        next_token_bars({"3-gram": [(" lamb", 0.5)], "SmolLM2": [(" lamb", 0.9)]}),
        transition_heatmap(["a", " ", "\n"], np.arange(9).reshape(3, 3), np.full((3, 3), 1 / 3)),
        table_growth([1, 2, 3], [75, 1488, 14272], [75.0, 75.0 ** 2, 75.0 ** 3]),
        held_out_lines([(1, "MLE", 3.2), (2, "MLE", math.inf), (1, "Kneser-Ney", 3.2), (2, "Kneser-Ney", 2.4)]),
        tokens_vs_merges([0, 10, 20], [50, 40, 35], 10),
    ]
    for chart in charts:
        spec = chart.to_dict()  # raises if the spec is not valid Vega-Lite
        assert "$schema" in spec


def test_infinite_cross_entropy_is_labelled_not_plotted():
    spec = held_out_lines([(1, "MLE", 3.0), (2, "MLE", math.inf)]).to_dict()
    values = next(iter(spec["datasets"].values()))
    assert [row["label"] for row in values] == ["3.00", "inf"]
    assert values[1]["value"] is None
