"""Chart builders of the multi-head and position pages: valid Vega-Lite (pages skip that check), right data."""
from __future__ import annotations

import altair as alt
import numpy as np
import pytest

from engine.attention import compare_head_costs, identity_projections, multi_head_attention
from engine.charts_heads import cost_comparison, head_grid, heatmap_panels
from engine.charts_position import (
    difference_bars, encoding_heatmap, gram_heatmap, offset_profile, side_by_side,
)
from engine.positional import dot_products_by_offset, learned_encoding, sinusoidal_encoding
from engine.tinyvocab import embed


def rows(spec: dict) -> list[dict]:
    """Data rows of an Altair-made spec (datasets) or of a plain one (inline values, possibly concatenated)."""
    if "datasets" in spec:
        return [row for values in spec["datasets"].values() for row in values]
    if "data" in spec:
        return spec["data"]["values"]
    return [row for part in spec.get("vconcat", spec.get("hconcat", [])) for row in rows(part)]


def test_head_grid_has_one_heatmap_per_head_four_to_a_row():
    sentence = embed("the owl saw the cat")
    W = identity_projections(8, gain=2.0)
    result = multi_head_attention(sentence.x, W["W_q"], W["W_k"], W["W_v"], W["W_o"], 8)
    spec = head_grid([head.weights for head in result.heads], sentence.tokens)
    alt.VConcatChart.from_dict(spec)  # validates against the Vega-Lite schema
    assert [len(row["hconcat"]) for row in spec["vconcat"]] == [4, 4]
    assert spec["resolve"]["scale"]["color"] == "shared"   # one 0..1 scale for every head


def test_cost_comparison_labels_ratios_against_one_head():
    spec = cost_comparison(compare_head_costs(1024, 768, 12)).to_dict()
    labels = {(row["layout"], row["ratio"]) for row in rows(spec)}
    assert ("h heads of width d each", "12 x") in labels and ("1 head of width d", "1 x") in labels


def test_position_charts_are_valid():
    P = sinusoidal_encoding(16, 8)
    encoding_heatmap(P).to_dict()
    gram = gram_heatmap(P @ P.T).to_dict()
    assert max(row["dot"] for row in rows(gram)) == np.float64(4.0)
    profiles = {"sinusoidal": dot_products_by_offset(P), "learned": dot_products_by_offset(learned_encoding(16, 8))}
    spec = offset_profile(profiles).to_dict()
    assert len(rows(spec)) == 32
    bars = difference_bars(np.array([0.0, 1e-17, 0.5]), ["the", "owl", "the"])
    alt.LayerChart.from_dict(bars)
    assert [row["text"] for row in rows(bars)] == ["0", "0", "0.5"]
    side_by_side(encoding_heatmap(P), encoding_heatmap(P), shared_colour=True).to_dict()
    panels = heatmap_panels({"A": (np.eye(2), ["a", "b"], ["a", "b"]), "B": (np.eye(2), ["b", "a"], ["b", "a"])},
                            columns=1, numbers=False)
    alt.VConcatChart.from_dict(panels)
    assert all(len(part["layer"]) == 1 for row in panels["vconcat"] for part in row["hconcat"])  # no number layer


def test_tables_too_large_to_draw_are_a_sentence():
    with pytest.raises(ValueError, match="too large to draw"):
        encoding_heatmap(np.zeros((100, 64)))
    with pytest.raises(ValueError, match="too large to draw"):
        gram_heatmap(np.zeros((80, 80)))
