"""engine.charts_embeddings: every builder yields a Vega-Lite spec that passes the schema (pages skip that check)."""
from __future__ import annotations

import numpy as np

from engine import charts_embeddings as C


def _rows(spec: dict) -> list[list[dict]]:
    return list(spec["datasets"].values())


def test_score_bars_print_the_scores_and_mark_the_expected_answer():
    spec = C.score_bars(["queen", "throne"], [0.8524, 0.7664], highlight="throne").to_dict()  # validates
    rows = _rows(spec)[0]
    assert [r["label"] for r in rows] == ["0.852", "0.766"]
    assert [r["expected"] for r in rows] == ["other", "expected answer"]


def test_map_draws_one_arrow_per_pair_pointing_at_b():
    coords = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
    spec = C.embedding_map(["a", "b", "c", "d"], coords, arrows=[("a", "b"), ("c", "d"), ("a", "zzz")],
                           roles={"a": "analogy word", "d": "answer"}, neighbours={"a": "x, y"},
                           explained=np.array([0.6, 0.3])).to_dict()
    arrows = next(rows for rows in _rows(spec) if rows and "pair" in rows[0])
    # the pair with an unknown word is skipped; each arrow is a shaft and two barbs, all ending at b
    assert [r["pair"] for r in arrows] == ["a → b"] * 3 + ["c → d"] * 3
    assert [(r["x2"], r["y2"]) for r in arrows] == [(1.0, 0.0)] * 3 + [(0.0, 2.0)] * 3
    assert (arrows[0]["x"], arrows[0]["y"]) == (0.0, 0.0)
    barbs = arrows[1:3]  # a -> b points right: both barbs lie left of the tip, one above, one below
    assert all(r["x"] < 1.0 for r in barbs) and barbs[0]["y"] * barbs[1]["y"] < 0


def test_sense_scatter_and_accuracy_bars_are_valid():
    C.sense_scatter(["heron", "gantry"], [0.9, 0.1], [0.1, 0.9], sense_a="bird", sense_b="machine",
                    anchor_a="heron", anchor_b="gantry", closest=["bird", "machine"]).to_dict()
    spec = C.accuracy_bars([{"vocabulary": "10,000", "measure": "top-1", "accuracy": 0.459},
                            {"vocabulary": "10,000", "measure": "top-5", "accuracy": 0.607}]).to_dict()
    assert [r["label"] for r in _rows(spec)[0]] == ["46%", "61%"]
