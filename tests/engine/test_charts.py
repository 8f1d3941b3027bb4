"""engine.charts: every builder yields a Vega-Lite spec that passes the schema (pages skip that check)."""
from __future__ import annotations

import altair as alt
import numpy as np

from engine.attention import CHAPTER_TOKENS, CHAPTER_X, attention
from engine.charts import compare_bars, heatmap, heatmap_spec


def rows_of(spec: dict) -> list[dict]:
    return spec["data"]["values"]


def test_heatmap_spec_is_valid_and_carries_the_numbers():
    weights = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X).weights
    spec = heatmap_spec(weights, CHAPTER_TOKENS, CHAPTER_TOKENS, domain=(0, 1))
    alt.LayerChart.from_dict(spec)  # validates against the Vega-Lite schema
    assert {"0.298", "0.293"} <= {row["text"] for row in rows_of(spec)}


def test_heatmap_as_altair_is_the_same_spec():
    spec = heatmap(np.eye(2), ["a", "b"], ["a", "b"]).to_dict()
    assert [r["text"] for r in next(iter(spec["datasets"].values()))] == ["1.000", "0.000", "0.000", "1.000"]


def test_non_finite_cells_are_blank_not_broken():
    spec = heatmap_spec(np.array([[np.nan, 1.0]]), ["q"], ["a", "b"])
    alt.LayerChart.from_dict(spec)
    assert [r["text"] for r in rows_of(spec)] == ["", "1.000"]


def test_repeated_labels_stay_distinct():
    spec = heatmap_spec(np.eye(3), ["the", "cat", "the"], ["the", "cat", "the"])
    assert {row["row"] for row in rows_of(spec)} == {"the (1)", "cat", "the (2)"}


def test_compare_bars_is_valid():
    spec = compare_bars({"window": np.array([0.5, 0.5]), "attention": np.array([0.2, 0.8])}, ["a", "b"])
    alt.LayerChart.from_dict(spec)
    assert len(rows_of(spec)) == 4
