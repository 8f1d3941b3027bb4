"""Block builder and Generate charts: valid Vega-Lite (pages skip that check), and the rows they draw."""
from __future__ import annotations

import math

import pytest

from engine.charts.bars import ladder_bars, ladder_zoom, next_token_bars, parameter_bars
from engine.charts.lines import loss_curves, running_mean
from tests.engine.vegalite import assert_valid, data_rows


def test_running_mean_starts_at_once_then_slides():
    assert running_mean([4, 2, 6, 8], 2) == [4.0, 3.0, 4.0, 7.0]
    assert running_mean([], 20) == []


def test_loss_curves_smooth_training_keep_held_out_and_draw_baselines():
    runs = [{"label": "a", "steps": [1, 2, 3], "train_loss": [4.0, 3.0, 2.5], "eval_steps": [3],
             "held_out_loss": [2.6]},
            {"label": "b", "steps": [1], "train_loss": [5.0], "eval_steps": [], "held_out_loss": []}]
    spec = assert_valid(loss_curves(runs, {"4-gram": 1.73}, smooth=2))
    lines, points, rule, text = spec["layer"]
    bits = math.log(2)  # the curves are drawn in bits per character: nats / ln 2
    training = [(r["run"], r["step"], round(r["bits per character"] * bits, 12)) for r in lines["data"]["values"]
                if r["loss on"] == "training (smoothed)"]
    assert training == [("a", 1, 4.0), ("a", 2, 3.5), ("a", 3, 2.75), ("b", 1, 5.0)]
    assert points["data"]["values"] == [{"run": "a", "loss on": "held-out", "step": 3,
                                         "bits per character": 2.6 / bits}]
    assert rule["data"]["values"][0]["text"] == f"4-gram: {1.73 / bits:.2f}" and rule["data"]["values"][0]["step"] == 3
    assert lines["encoding"]["color"]["scale"] == {"domain": ["a", "b"], "range": ["#1f6fb4", "#e08214"]}
    assert len(assert_valid(loss_curves(runs, {}))["layer"]) == 2
    # the line styles' legend above the plot: beside the runs' legend under it, it ran past the chart ("trainin…")
    assert lines["encoding"]["strokeDash"]["legend"]["orient"] == "top"
    assert lines["encoding"]["color"]["legend"]["orient"] == "bottom"


def test_parameter_bars_print_each_count():
    parts = {"token embedding": 38_597_376, "attention (all blocks)": 28_311_552}
    spec = assert_valid(parameter_bars(parts))
    rows = data_rows(spec)
    assert [r["text"] for r in rows] == ["38,597,376", "28,311,552"]
    assert sum(r["share"] for r in rows) == pytest.approx(1)
    assert spec["encoding"]["y"]["sort"] == list(parts)


def test_distribution_bars_one_panel_per_model_in_rank_order():
    spec = assert_valid(next_token_bars({"m": [("a", 0.5, 0.7), ("b", 0.2, 0.1)], "n": [("a", 0.4, 0.4)]},
                                        title="step 1"))
    assert spec["facet"]["column"]["sort"] == ["m", "n"] and spec["title"] == "step 1"
    assert [(r["model"], r["token"], r["rank"]) for r in data_rows(spec)] == \
        [("m", "a", 0), ("m", "b", 1), ("n", "a", 0)]


def test_ladder_bars_are_sorted_by_score_say_so_and_colour_by_kind():
    """By score the n-grams read 5-, 8-, 6-, 7-gram: the chart sorts them itself and its title says by what."""
    spec = assert_valid(ladder_bars([("shipped", 1.795, "transformer"), ("8-gram", 1.979, "n-gram"),
                                     ("2-gram", 3.5, "n-gram"), ("7-gram", 1.968, "n-gram"),
                                     ("5-gram", 2.065, "n-gram"), ("6-gram", 1.974, "n-gram")]))
    assert spec["encoding"]["y"]["sort"] == ["2-gram", "5-gram", "8-gram", "6-gram", "7-gram", "shipped"]
    assert spec["title"] == "Sorted by score: the fewest bits at the bottom"
    assert [r["text"] for r in data_rows(spec)][:2] == ["3.500", "2.065"]
    assert spec["layer"][0]["encoding"]["color"]["scale"]["domain"] == ["n-gram", "transformer"]


def test_a_kind_keeps_its_colour_whatever_else_is_on_the_ladder():
    """A live run joining Generate's ladder (sorted by bits, so it can come before the n-grams) leaves the n-grams',
    the transformer's and the baseline's colours as they were."""
    plain = [("uniform", 6.2, "baseline"), ("2-gram", 3.5, "n-gram"), ("shipped", 1.8, "transformer")]
    with_run = plain[:1] + [("#1: d=32", 4.7, "your live runs")] + plain[1:]

    def colours(spec):
        scale = spec["layer"][0]["encoding"]["color"]["scale"]
        return dict(zip(scale["domain"], scale["range"]))
    before, after = colours(ladder_bars(plain)), colours(assert_valid(ladder_bars(with_run)))
    assert {kind: after[kind] for kind in before} == before and after["your live runs"] not in before.values()
    zoomed = ladder_zoom(with_run, within=0.5)
    assert colours({"layer": [zoomed["layer"][1]]}) == after


def test_ladder_zoom_keeps_only_the_rungs_near_the_best_on_an_axis_that_starts_near_them():
    rungs = [("uniform", 6.2, "baseline"), ("5-gram", 2.07, "n-gram"), ("7-gram", 1.968, "n-gram"),
             ("shipped", 1.997, "transformer")]
    spec = assert_valid(ladder_zoom(rungs, within=0.5))
    assert {row["model"] for row in spec["data"]["values"]} == {"5-gram", "7-gram", "shipped"}
    low, high = spec["encoding"]["x"]["scale"]["domain"]
    assert 1.9 < low < 1.968 and 2.07 < high < 2.3  # the 0.029-bit gap is a visible distance, not a hair
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["rule", "point", "text"]  # dots, no bars


def test_distribution_numbers_sit_right_of_both_bar_and_tick():
    spec = next_token_bars({"m": [("a", 0.62, 0.75), ("b", 0.2, 0.1)]})
    rows = spec["data"]["values"]
    assert [r["label at"] for r in rows] == [0.75, 0.2]
    assert spec["layer"][2]["encoding"]["x"]["field"] == "label at"


def test_one_character_tokens_are_labelled_large_enough_to_read():
    """',' and '.' at the 13 px minimum are specks from the back of a room: characters get CHARACTER_LABEL_SIZE."""
    from engine.charts.bars import CHARACTER_LABEL_SIZE

    spec = assert_valid(next_token_bars({"4-gram": [(",", 0.5, 0.6), (".", 0.2, 0.1), ("\n", 0.1, 0.1)]}))
    size = spec["config"]["axisY"]["labelFontSize"]
    assert size["condition"] == {"test": "length(datum.label) == 1", "value": CHARACTER_LABEL_SIZE}
    assert CHARACTER_LABEL_SIZE >= 16 and spec["config"]["axisY"]["labelFont"] == "monospace"


def test_one_character_tokens_among_words_are_large_and_words_keep_the_text_size():
    """The Tokens page's bars mix words and ',' '.': the one-character labels were 13 px specks (2-3 px of ink).
    Each label's size follows its length; the others keep the chart text size, on a projector too."""
    from engine.charts.bars import CHARACTER_LABEL_SIZE
    from engine.charts.style import PROJECTOR_TEXT_SIZE, TEXT_SIZE, with_text

    spec = assert_valid(next_token_bars({"words": [(",", 0.3), ("lamb", 0.2), (".", 0.1)]}))
    size = spec["config"]["axisY"]["labelFontSize"]
    assert size == {"condition": {"test": "length(datum.label) == 1", "value": CHARACTER_LABEL_SIZE},
                    "value": TEXT_SIZE}
    assert "labelFont" not in spec["config"]["axisY"]          # words keep the chart's font
    projected = with_text(spec, PROJECTOR_TEXT_SIZE)["config"]["axisY"]["labelFontSize"]
    assert projected["value"] == PROJECTOR_TEXT_SIZE and projected["condition"]["value"] == CHARACTER_LABEL_SIZE
    assert spec["encoding"]["y"]["axis"]["labelOverlap"] is False if "encoding" in spec else \
        spec["layer"][0]["encoding"]["y"]["axis"]["labelOverlap"] is False


def test_difference_bars_print_every_label_in_one_format():
    from engine.charts.bars import difference_bars

    spec = assert_valid(difference_bars([0.1700, 0.3752, 0.0443, 0.0988, 0.7494], ["the", "cat", "saw", "the", "owl"]))
    assert [row["text"] for row in data_rows(spec)] == ["0.170", "0.375", "0.044", "0.099", "0.749"]
