"""The Embedding explorer's charts (engine.charts.bars, engine.charts.points): every builder yields a Vega-Lite
spec that passes the schema (pages skip that check)."""
from __future__ import annotations

import numpy as np

from engine.charts.bars import accuracy_bars, score_bars
from engine.charts.points import embedding_map, sense_scatter
from tests.engine.vegalite import assert_valid, data_rows


def test_score_bars_print_the_scores_and_mark_the_expected_answer():
    spec = assert_valid(score_bars(["queen", "throne"], [0.8524, 0.7664], highlight="throne"))
    rows = data_rows(spec)
    assert [r["label"] for r in rows] == ["0.852", "0.766"]
    assert [r["expected"] for r in rows] == ["other", "expected answer"]
    assert [r["rank"] for r in rows] == [1, 2]
    assert spec["encoding"]["x"]["scale"]["domain"] == [0.0, 1.0]
    scored = assert_valid(score_bars(["a"], [2.0], value_title="3CosMul score"))
    assert scored["encoding"]["x"]["scale"]["domain"] == [0.0, 2.0 * 1.15]


def test_map_draws_one_arrow_per_pair_pointing_at_b():
    coords = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
    spec = assert_valid(embedding_map(["a", "b", "c", "d"], coords, arrows=[("a", "b"), ("c", "d"), ("a", "zzz")],
                                        roles={"a": "analogy word", "d": "answer"}, neighbours={"a": "x, y"},
                                        explained=np.array([0.6, 0.3])))
    arrows = spec["layer"][0]["data"]["values"]
    # the pair with an unknown word is skipped; each arrow is a shaft and two barbs, all ending at b
    assert [r["pair"] for r in arrows] == ["a → b"] * 3 + ["c → d"] * 3
    assert [(r["x2"], r["y2"]) for r in arrows] == [(1.0, 0.0)] * 3 + [(0.0, 2.0)] * 3
    assert (arrows[0]["x"], arrows[0]["y"]) == (0.0, 0.0)
    barbs = arrows[1:3]  # a -> b points right: both barbs lie left of the tip, one above, one below
    assert all(r["x"] < 1.0 for r in barbs) and barbs[0]["y"] * barbs[1]["y"] < 0
    points = spec["layer"][1]["data"]["values"]
    assert [(r["word"], r["role"], r["nearest"]) for r in points][:2] == [("a", "analogy word", "x, y"),
                                                                         ("b", "other word", "")]
    x_scale, y_scale = (spec["layer"][1]["encoding"][axis]["scale"]["domain"] for axis in "xy")
    assert np.isclose(x_scale[1] - x_scale[0], y_scale[1] - y_scale[0])   # one span: parallel looks parallel
    assert "60% of the spread" in spec["layer"][1]["encoding"]["x"]["title"]
    assert len(assert_valid(embedding_map(["a", "b"], coords[:2]))["layer"]) == 2   # no arrows, no arrow layer


def test_sense_scatter_and_accuracy_bars_are_valid():
    spec = assert_valid(sense_scatter(["heron", "gantry"], [0.9, 0.1], [0.1, 0.9], sense_a="bird",
                                        sense_b="machine", anchor_a="heron", anchor_b="gantry",
                                        closest=["bird", "machine"]))
    diagonal, points, *labels = spec["layer"]
    assert diagonal["data"]["values"] == [{"a": -0.05, "b": -0.05}, {"a": 0.98, "b": 0.98}]
    assert {k: points["data"]["values"][0][k] for k in ("word", "a", "b", "closer to")} == \
        {"word": "heron", "a": 0.9, "b": 0.1, "closer to": "bird"}
    assert sorted(row["word"] for label in labels for row in label["data"]["values"]) == ["gantry", "heron"]
    spec = assert_valid(accuracy_bars([{"vocabulary": "10,000", "measure": "top-1", "accuracy": 0.459},
                                         {"vocabulary": "10,000", "measure": "top-5", "accuracy": 0.607}]))
    assert [r["label"] for r in data_rows(spec)] == ["46%", "61%"]


def test_sense_scatter_labels_do_not_overprint():
    """Twelve neighbours crowded round one spot: place_labels gives each printed label a box of its own (estimated
    at the projector's 16 px), where the old fixed up-right offset printed them over each other; most still get
    one, the rest stay in the tooltip and the Data table."""
    from engine.charts.points import LABEL_FONT_PX, SENSE_PLOT_PX

    words = ["heron", "egret", "stork", "gantry", "hoist", "winch", "ibis", "derrick", "bittern", "lift", "jib",
             "boom"]
    rng = np.random.default_rng(0)
    cos_a, cos_b = 0.40 + 0.06 * rng.random(12), 0.40 + 0.06 * rng.random(12)
    spec = assert_valid(sense_scatter(words, cos_a, cos_b, sense_a="bird", sense_b="machine", anchor_a="heron",
                                      anchor_b="gantry", closest=["bird"] * 6 + ["machine"] * 6))
    low, high = spec["layer"][0]["data"]["values"][0]["a"], spec["layer"][0]["data"]["values"][1]["a"]

    def box(row, align):
        x = (row["label a"] - low) / (high - low) * SENSE_PLOT_PX
        y = (row["label b"] - low) / (high - low) * SENSE_PLOT_PX
        width = 0.55 * LABEL_FONT_PX * len(row["word"])
        left = x - {"left": 0, "right": width, "center": width / 2}[align]
        return left, y - LABEL_FONT_PX / 2, left + width, y + LABEL_FONT_PX / 2

    boxes = [box(row, layer["mark"]["align"]) for layer in spec["layer"][2:] for row in layer["data"]["values"]]
    assert 8 <= len(boxes) <= 12
    clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
               if min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])]
    assert not clashes
