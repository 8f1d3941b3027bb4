"""engine.charts: every builder yields a Vega-Lite spec that passes the schema (pages skip that check)."""
from __future__ import annotations

import numpy as np

from engine.attention import CHAPTER_TOKENS, CHAPTER_X, attention
from engine.charts import compare_bars, heatmap


def test_heatmap_is_valid_and_carries_the_numbers():
    weights = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X).weights
    spec = heatmap(weights, CHAPTER_TOKENS, CHAPTER_TOKENS, domain=(0, 1)).to_dict()  # validates
    values = next(iter(spec["datasets"].values()))
    assert {"0.298", "0.293"} <= {row["text"] for row in values}


def test_repeated_labels_stay_distinct():
    spec = heatmap(np.eye(3), ["the", "cat", "the"], ["the", "cat", "the"]).to_dict()
    rows = {row["row"] for row in next(iter(spec["datasets"].values()))}
    assert rows == {"the (1)", "cat", "the (2)"}


def test_compare_bars_is_valid():
    spec = compare_bars({"window": np.array([0.5, 0.5]), "attention": np.array([0.2, 0.8])}, ["a", "b"]).to_dict()
    assert len(next(iter(spec["datasets"].values()))) == 4
