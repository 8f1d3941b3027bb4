"""Chart builders of the multi-head and position pages: valid Vega-Lite (pages skip that check), right data."""
from __future__ import annotations

import altair as alt
import numpy as np
import pytest

from tests.engine.vegalite import assert_valid, data_rows

from engine.attention.mechanism import compare_head_costs, identity_projections, multi_head_attention
from engine.charts.bars import cost_comparison, difference_bars
from engine.charts.heatmaps import encoding_heatmap, gram_heatmap, head_grid, heatmap_panels
from engine.charts.lines import offset_profile
from engine.charts.style import side_by_side
from engine.transformer.positional import dot_products_by_offset, learned_encoding, sinusoidal_encoding
from engine.embeddings.tiny_vocabulary import embed


def test_head_grid_has_one_heatmap_per_head_four_to_a_row():
    sentence = embed("the owl saw the cat")
    W = identity_projections(8, gain=2.0)
    result = multi_head_attention(sentence.x, W["W_q"], W["W_k"], W["W_v"], W["W_o"], 8)
    spec = head_grid([head.weights for head in result.heads], sentence.tokens)
    alt.VConcatChart.from_dict(spec)  # validates against the Vega-Lite schema
    assert [len(row["hconcat"]) for row in spec["vconcat"]] == [4, 4]
    assert spec["resolve"]["scale"]["color"] == "shared"   # one 0..1 scale for every head


def test_cost_comparison_labels_ratios_against_one_head():
    spec = assert_valid(cost_comparison(compare_head_costs(1024, 768, 12)))
    labels = {(row["layout"], row["ratio"]) for row in data_rows(spec)}
    assert ("h heads of width d each", "12 x") in labels and ("1 head of width d", "1 x") in labels
    params = spec["vconcat"][0]["data"]["values"]
    assert [row["label"] for row in params] == ["2.36 M  (1 x)"] * 2 + ["28.3 M  (12 x)"]


def test_position_charts_are_valid():
    P = sinusoidal_encoding(16, 8)
    table = assert_valid(encoding_heatmap(P))
    assert len(data_rows(table)) == 16 * 8 and data_rows(table)[1] == {"position t": 0, "dimension": 1, "value": 1.0}
    gram = assert_valid(gram_heatmap(P @ P.T))
    assert max(row["dot"] for row in data_rows(gram)) == np.float64(4.0)
    profiles = {"sinusoidal": dot_products_by_offset(P), "learned": dot_products_by_offset(learned_encoding(16, 8))}
    spec = assert_valid(offset_profile(profiles))
    assert len(data_rows(spec)) == 32
    bars = difference_bars(np.array([0.0, 1e-17, 0.5]), ["the", "owl", "the"])
    alt.LayerChart.from_dict(bars)
    assert [row["text"] for row in data_rows(bars)] == ["0.000", "0.000", "0.500"]   # one way, as the table writes it
    pair = assert_valid(side_by_side(encoding_heatmap(P), encoding_heatmap(2 * P), shared_colour=True))
    assert [panel["data"] for panel in pair["hconcat"]] == [{"name": "panel_0"}, {"name": "panel_1"}]
    assert pair["datasets"]["panel_1"][1]["value"] == 2.0 and pair["resolve"]["scale"]["color"] == "shared"
    panels = heatmap_panels({"A": (np.eye(2), ["a", "b"], ["a", "b"]), "B": (np.eye(2), ["b", "a"], ["b", "a"])},
                            columns=1, numbers=False)
    alt.VConcatChart.from_dict(panels)
    assert all(len(part["layer"]) == 1 for row in panels["vconcat"] for part in row["hconcat"])  # no number layer


def test_tables_too_large_to_draw_are_a_sentence():
    with pytest.raises(ValueError, match="too large to draw"):
        encoding_heatmap(np.zeros((100, 64)))
    with pytest.raises(ValueError, match="too large to draw"):
        gram_heatmap(np.zeros((80, 80)))
