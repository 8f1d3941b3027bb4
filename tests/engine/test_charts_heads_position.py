"""Chart builders of the multi-head and position pages: valid Vega-Lite (pages skip that check), right data."""
from __future__ import annotations

import numpy as np
import pytest

from engine.attention import compare_head_costs, identity_projections, multi_head_attention
from engine.charts import heatmap
from engine.charts_heads import cost_comparison, head_grid
from engine.charts_position import (
    difference_bars, encoding_heatmap, gram_heatmap, offset_profile, side_by_side,
)
from engine.positional import dot_products_by_offset, learned_encoding, sinusoidal_encoding
from engine.tinyvocab import embed


def rows(spec: dict) -> list[dict]:
    return [row for values in spec["datasets"].values() for row in values]


def test_head_grid_has_one_heatmap_per_head_four_to_a_row():
    sentence = embed("the owl saw the cat")
    W = identity_projections(8, gain=2.0)
    result = multi_head_attention(sentence.x, W["W_q"], W["W_k"], W["W_v"], W["W_o"], 8)
    spec = head_grid([head.weights for head in result.heads], sentence.tokens).to_dict()  # validates
    assert spec["columns"] == 4 and spec["facet"]["field"] == "panel"
    panels = {row["panel"] for row in rows(spec)}
    assert panels == {f"head {m}" for m in range(1, 9)} and len(rows(spec)) == 8 * 25
    # numbers printed, ink chosen from the value (white on dark cells)
    assert all((row["ink"] == "white") == (row["weight"] > 0.5) for row in rows(spec))


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
    bars = difference_bars(np.array([0.0, 1e-17, 0.5]), ["the", "owl", "the"]).to_dict()
    assert [row["text"] for row in rows(bars)] == ["0", "0", "0.5"]
    side_by_side(heatmap(np.eye(2), ["a", "b"], ["a", "b"]), heatmap(np.eye(2), ["a", "b"], ["a", "b"]),
                 shared_colour=True).to_dict()


def test_tables_too_large_to_draw_are_a_sentence():
    with pytest.raises(ValueError, match="too large to draw"):
        encoding_heatmap(np.zeros((100, 64)))
    with pytest.raises(ValueError, match="too large to draw"):
        gram_heatmap(np.zeros((80, 80)))
