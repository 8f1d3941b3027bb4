"""engine/charts/: every builder yields a Vega-Lite spec that passes the schema (pages skip that check), with its
text at 13 px or more from one config block; weights coloured against the uniform 1/T of their row; value axes
that fit the data."""
from __future__ import annotations

import altair as alt
import numpy as np
import pytest

from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X, attention
from engine.charts.bars import compare_bars
from engine.charts.heatmaps import head_grid, heatmap_panels, heatmap_spec, uniform_colours, uniform_shades
from engine.charts.palette import (
    BLACK, BLUE, MASKED, QUIET_ORANGE, UNIFORM_SCALE, WHITE, ink, relative_luminance, rgb,
)
from engine.charts.style import PROJECTOR_TEXT_SIZE, TEXT_SIZE, nice_bound, value_scale, with_text
from tests.engine.vegalite import assert_valid, data_rows


def rows_of(spec: dict) -> list[dict]:
    return spec["data"]["values"]


def test_heatmap_spec_is_valid_and_carries_the_numbers():
    weights = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X).weights
    spec = heatmap_spec(weights, CHAPTER_TOKENS, CHAPTER_TOKENS, domain=(0, 1))
    alt.LayerChart.from_dict(spec)  # validates against the Vega-Lite schema
    assert {"0.298", "0.293"} <= {row["text"] for row in rows_of(spec)}


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


# --- text that reads from the back of a classroom ------------------------------------------------

def every_builder_spec() -> dict[str, dict]:
    """Each chart builder of engine/charts/ (its module.name) -> a spec built from small inputs."""
    from engine.interpret import heads
    from engine.attention.mechanism import compare_head_costs
    from engine.charts import bars, heatmaps, images, lines, points, style
    from engine.beyond.modalities import frame_attention, patch_costs, synth_signal
    from engine.interpret.interventions import HeadFormation
    from engine.transformer.positional import dot_products_by_offset, sinusoidal_encoding

    weights = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X).weights
    signal = synth_signal("melody", 8000)
    frames = frame_attention(signal, 512, 128, 64, 0)
    types = np.array([[heads.TYPES[(layer + h) % 6] for h in range(2)] for layer in range(2)], dtype=object)
    alpha = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    P = sinusoidal_encoding(8, 4)
    run = {"label": "a", "steps": [1, 2], "train_loss": [4.0, 3.0], "eval_steps": [2], "held_out_loss": [3.1]}
    picture = images.data_url(np.zeros((8, 8, 3), dtype=np.uint8))
    return {
        "heatmaps.heatmap_spec": heatmap_spec(weights, CHAPTER_TOKENS, CHAPTER_TOKENS, domain=(0, 1), title="alpha"),
        "heatmaps.head_grid": heatmaps.head_grid([weights, alpha], CHAPTER_TOKENS, causal=True),
        "heatmaps.heatmap_panels": heatmaps.heatmap_panels({"A": (np.eye(2), ["a", "b"], ["a", "b"])}),
        "heatmaps.transition_heatmap": heatmaps.transition_heatmap(["a", "b"], np.eye(2), np.eye(2)),
        "heatmaps.encoding_heatmap": heatmaps.encoding_heatmap(P, title="p_t"),
        "heatmaps.gram_heatmap": heatmaps.gram_heatmap(P @ P.T, title="gram"),
        "heatmaps.layer_heatmap": heatmaps.layer_heatmap(np.eye(2), ["0: embedding", "1: after block 0"], ["a", "b"],
                                                         cell_text=[["x", "y"], ["z", "w"]], title="lens"),
        "bars.compare_bars": compare_bars({"window": np.full(3, 1 / 3), "attention": np.array([0.2, 0.3, 0.5])},
                                          ["a", "b", "c"], title="weights"),
        "bars.next_token_bars": bars.next_token_bars({"a": [("x", 0.5)], "b": [("y", 0.4)]}),
        "bars.grouped_probabilities": bars.grouped_probabilities(
            {"A": np.array([0.1, 0.2]), "B": np.array([0.3, 0.2])}, ["he", "she"]),
        "bars.score_bars": bars.score_bars(["queen", "king"], [0.85, 0.7], title="cos"),
        "bars.accuracy_bars": bars.accuracy_bars([{"vocabulary": "10,000", "measure": "top-1", "accuracy": 0.46}]),
        "bars.difference_bars": bars.difference_bars(np.array([0.0, 0.5]), ["a", "b"]),
        "bars.parameter_bars": bars.parameter_bars({"embedding": 1000, "blocks": 3000}, title="p"),
        "bars.cost_bars": bars.cost_bars(compare_head_costs(64, 32, 4), measure="params", title="p"),
        "bars.cost_comparison": bars.cost_comparison(compare_head_costs(64, 32, 4)),
        "bars.ladder_bars": bars.ladder_bars([("2-gram", 3.5, "n-gram")]),
        "bars.ladder_zoom": bars.ladder_zoom([("2-gram", 3.5, "n-gram"), ("7-gram", 1.97, "n-gram")]),
        "lines.loss_curves": lines.loss_curves([run], {"4-gram": 1.7}),
        "lines.head_formation_lines": lines.head_formation_lines(
            [HeadFormation(step, np.full((2, 2), 0.1 * step), np.full((2, 2), 0.05 * step), 4.0, 4.0 - step)
             for step in (1, 2)]),
        "lines.held_out_lines": lines.held_out_lines([(1, "MLE", 3.0), (2, "MLE", float("inf"))]),
        "lines.table_growth": lines.table_growth([1, 2], [75, 1488], [75.0, 5625.0]),
        "lines.tokens_vs_merges": lines.tokens_vs_merges([0, 10], [50, 40], 10),
        "lines.offset_profile": lines.offset_profile({"sinusoidal": dot_products_by_offset(P)}),
        "lines.cosine_by_layer": lines.cosine_by_layer({"crane": np.linspace(1, 0.5, 4)}),
        "lines.cost_chart": lines.cost_chart(patch_costs(224, 224, [8, 16, 32]), 16),
        "lines.head_lines": lines.head_lines(alpha, ["a", "b", "c", "d"], title="lines"),
        "lines.rank_by_layer": lines.rank_by_layer([30, 2, 0], [0.001, 0.1, 0.5], ["embedding", "b0", "b1"],
                                                   token=" lamb"),
        "lines.loss_by_position": lines.loss_by_position({"intact": [9.0, 1.0]}, {"second copy": (2, 2)}),
        "lines.lines_by": lines.lines_by([0.5, 1, 2], {"crane": [0.3, 0.4, 0.6], "lake": [0.3, 0.3, 0.2]},
                                         x_title="beta", y_title="weight", y_domain=(0, 1), log_x=True, marked=1,
                                         marked_label="beta = 1", highlight="lake"),
        "images.patch_overlay": images.patch_overlay(picture, 8, 8, 4, 4, 2, np.full(16, 1 / 16), 5, style="heat"),
        "images.spectrogram_with_frames": images.spectrogram_with_frames(
            frames.source, 3, frames.attention.weights[3], signal.segments, picture_url=picture),
        "images.model_view": images.model_view(images.thumbnails(np.stack([[alpha] * 2] * 2)), types,
                                               {p: np.zeros((2, 2)) for p in heads.PATTERNS}),
        "points.embedding_map": points.embedding_map(
            ["a", "b", "c"], np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), arrows=[("a", "b")],
            explained=np.array([0.6, 0.3])),
        "points.sense_scatter": points.sense_scatter(
            ["heron", "gantry"], [0.9, 0.1], [0.1, 0.9], sense_a="bird", sense_b="machine", anchor_a="heron",
            anchor_b="gantry", closest=["bird", "machine"]),
        "points.attention_effect_scatter": points.attention_effect_scatter(
            np.array([[0.5, 0.1]]), np.array([[-0.2, -0.9]]), source=" Mary", target=" Mary", by_attention=[(0, 0)],
            by_effect=[(0, 1)]),
        "style.side_by_side": style.side_by_side(heatmaps.encoding_heatmap(P), heatmaps.gram_heatmap(P @ P.T)),
    }


def font_sizes(node, path: str = "") -> list[tuple[str, float]]:
    """Every (path, value) of a key ending in 'fontsize' (fontSize, labelFontSize, titleFontSize, ...); both sizes
    of a conditional one (engine.charts.style.one_character_labels)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key.lower().endswith("fontsize") and isinstance(value, dict):   # one size by condition, one else
                found += [(f"{path}.{key}.condition", value["condition"]["value"]), (f"{path}.{key}", value["value"])]
            elif key.lower().endswith("fontsize"):
                found.append((f"{path}.{key}", value))
            found += font_sizes(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += font_sizes(value, f"{path}[{i}]")
    return found


def test_every_chart_builder_is_covered_here():
    import importlib
    import pkgutil

    import engine.charts
    styled = {f"{name.removeprefix('engine.charts.')}.{attr}" for name in
              (f"engine.charts.{m.name}" for m in pkgutil.iter_modules(engine.charts.__path__))
              for attr, value in vars(importlib.import_module(name)).items()
              if getattr(value, "styled", False) and value.__module__ == name}
    assert styled == set(every_builder_spec())


def test_every_chart_draws_its_text_at_13_px_or_more_from_one_config():
    from tests.engine.vegalite import assert_valid

    for name, spec in every_builder_spec().items():
        assert_valid(spec)
        assert spec["config"]["axis"]["labelFontSize"] == TEXT_SIZE, name
        assert spec["config"]["text"]["fontSize"] == TEXT_SIZE, name
        for part in ("axis", "legend", "header", "title", "text"):
            assert part in spec["config"], (name, part)
        small = [(path, size) for path, size in font_sizes(spec) if not size >= 13]
        assert not small, f"{name}: text under 13 px at {small}"
        # the config block is the only place that sets a size: no mark or axis of a builder sets its own
        assert all(path.startswith(".config.") for path, _ in font_sizes(spec)), name


def test_text_config_scales_for_a_projector():
    spec = with_text(heatmap_spec(np.eye(2), ["a", "b"], ["a", "b"]), PROJECTOR_TEXT_SIZE)
    assert min(size for _, size in font_sizes(spec)) == PROJECTOR_TEXT_SIZE == spec["config"]["text"]["fontSize"]
    overlay_config = with_text({"config": {"view": {"stroke": None}, "axis": {"grid": False}}})["config"]
    assert overlay_config["view"] == {"stroke": None} and overlay_config["axis"]["grid"] is False   # others kept


# --- weights coloured against the uniform 1/T of their row ---------------------------------------------

def cell_colours(spec: dict) -> np.ndarray:
    """The RGB each weight cell is drawn in, as Vega draws it from the spec's own scale (piecewise linear in
    RGB between its range's colours at its domain's stops); NaN for a cell off the scale."""
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    assert scale["interpolate"] == "rgb"
    stops = np.array([rgb(colour) for colour in scale["range"]])
    shades = np.array([np.nan if r["shade"] is None else r["shade"] for r in rows_of(spec)])
    return np.stack([np.interp(shades, scale["domain"], stops[:, c]) for c in range(3)], axis=-1)


def contrast(a: float, b: float) -> float:
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def test_a_uniform_row_is_drawn_neutral_white_not_as_pale_as_zero():
    # the Context page's 0.250 four times, Multi-head's 0.125 eight times
    for T in (4, 8):
        spec = heatmap_spec(np.vstack([np.full(T, 1 / T), np.eye(T)[0]]), ["uniform", "one-hot"], list("abcdefgh")[:T])
        alt.LayerChart.from_dict(spec)
        colours = cell_colours(spec)
        assert (colours[:T] == rgb(WHITE)).all()                       # every uniform cell: white
        assert [r["ink"] for r in rows_of(spec)[:T]] == ["black"] * T
        assert np.abs(colours[T + 1] - colours[0]).max() > 50          # a 0.000 cell is not drawn as the 0.250s


def test_a_near_uniform_row_is_drawn_nearly_neutral_not_as_dark_as_one():
    worked = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X).weights         # crane's row: 0.298 0.203 0.206 0.293
    spec = heatmap_spec(np.vstack([worked[0], np.eye(4)[0]]), ["crane", "one-hot"], CHAPTER_TOKENS, domain=(0, 1))
    crane = [r for r in rows_of(spec) if r["row"] == "crane"]
    assert [r["text"] for r in crane] == ["0.298", "0.203", "0.206", "0.293"]
    assert max(abs(r["shade"]) for r in crane) < 0.2
    lum = relative_luminance(cell_colours(spec))
    assert lum[:4].min() > 0.6 and lum[4] < 0.2                          # pale, while the 1.000 cell is dark


def test_a_one_hot_row_reaches_both_ends_of_the_scale_and_the_legend_names_them():
    spec = heatmap_spec(np.eye(4)[[2]], ["q"], list("abcd"))
    assert [r["shade"] for r in rows_of(spec)] == [-1.0, -1.0, 1.0, -1.0]
    colours = cell_colours(spec)
    assert tuple(colours[2]) == tuple(rgb(BLUE)) and tuple(colours[0]) == tuple(rgb(QUIET_ORANGE))
    colour = spec["layer"][0]["encoding"]["color"]
    assert colour["scale"]["domain"] == [-1, 0, 1] and colour["scale"]["range"] == list(UNIFORM_SCALE)
    assert "uniform 1/T" in " ".join(colour["legend"]["title"]) and "above / below" in colour["legend"]["title"][0]
    assert colour["legend"]["values"] == [-1, 0, 1]
    assert "'1/T'" in colour["legend"]["labelExpr"] and "'0'" in colour["legend"]["labelExpr"]


def saturation(colour) -> float:
    """HSV saturation of RGB 0..255: 0 for a grey or white, 1 for a pure hue."""
    top = max(colour)
    return 0.0 if top == 0 else (top - min(colour)) / top


def test_a_weight_of_zero_is_quiet_and_a_weight_of_one_is_loud():
    """0.000 was saturated orange, as loud as 1.000 blue: a row of zeros (the protein's heatmap, Context's window
    rows) read as "strong". Zero stays below 1/T on the scale, pale and near white; only weight on a key is loud."""
    spec = heatmap_spec(np.array([[0.0, 0.0, 1.0, 0.0], [0.25, 0.25, 0.25, 0.25]]), ["one-hot", "uniform"],
                        list("abcd"))
    colours = cell_colours(spec)
    zero, one, even = colours[0], colours[2], colours[4]
    assert saturation(zero) < 0.3 and relative_luminance(zero) > 0.7                # quiet: pale, near white
    assert saturation(one) > 0.8 and relative_luminance(one) < 0.2                  # loud: full blue
    assert tuple(even) == tuple(rgb(WHITE)) and tuple(zero) != tuple(even)         # 0 still reads below 1/T
    assert contrast(relative_luminance(one), 1.0) > 3 * contrast(relative_luminance(zero), 1.0)


def test_the_colour_is_the_weight_against_its_own_rows_uniform_and_the_numbers_stay_true():
    weights = np.array([[0.19, 0.31, 0.50], [0.40, 0.20, 0.40], [1.0, 0.0, 0.0]])
    spec = heatmap_spec(weights, ["a", "b", "c"], ["a", "b", "c"], domain=(0, 1))
    assert_valid(spec)
    rows = rows_of(spec)
    assert [r["text"] for r in rows[:3]] == ["0.190", "0.310", "0.500"]
    assert [r["weight"] for r in rows[:3]] == [0.19, 0.31, 0.5]
    third = 1 / 3
    assert [r["shade"] for r in rows[:3]] == [round((0.19 - third) / third, 4), round((0.31 - third) / third, 4),
                                              round((0.5 - third) / (1 - third), 4)]
    assert {r["uniform 1/T"] for r in rows} == {round(third, 4)}
    assert [r["ink"] for r in rows[6:9]] == ["white", "black", "black"]      # white on the dark 1.000 only
    assert heatmap_spec(weights, list("abc"), list("abc"))["layer"][0]["encoding"]["color"]["field"] == "shade"


def test_numbers_are_printed_in_the_ink_that_contrasts_with_their_cell():
    shades = np.linspace(-1, 1, 201)
    for colour in uniform_colours(shades):
        background = relative_luminance(colour)
        chosen = relative_luminance(rgb(BLACK if ink(colour) == "black" else WHITE))
        assert contrast(background, chosen) >= 4.5                       # WCAG AA for text, at every shade


def test_with_a_causal_mask_row_i_is_centred_on_one_over_i_plus_one_and_the_future_is_grey():
    T = 5
    causal_uniform = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
    for spec in (heatmap_spec(causal_uniform, list("abcde"), list("abcde"), causal=True),
                 heatmap_spec(causal_uniform, list("abcde"), list("abcde"), mask=np.tril(np.ones((T, T), bool)))):
        assert_valid(spec)
        rows = rows_of(spec)
        assert [r["uniform 1/T"] for r in rows if r["j"] == 0] == [round(1 / (i + 1), 4) for i in range(T)]
        assert {r["shade"] for r in rows if r["seen"]} == {0.0}          # every visible cell: neutral
        assert {r["shade"] for r in rows if not r["seen"]} == {None}
        masked = spec["layer"][1]
        assert masked["mark"]["fill"] == MASKED and masked["transform"] == [{"filter": "!datum.seen"}]
    # without the mask the same rows would read as sharp: row 0's forced 1.0 at the blue end
    assert rows_of(heatmap_spec(causal_uniform, list("abcde"), list("abcde")))[0]["shade"] == 1.0
    # a causal row that puts everything on its first key is one-hot among i + 1 keys
    first = np.zeros((T, T))
    first[:, 0] = 1
    shades = uniform_shades(first, np.tril(np.ones((T, T), bool)))
    assert shades[0, 0] == 0 and (shades[1:, 0] == 1).all()
    assert all((shades[i, 1:i + 1] == -1).all() and np.isnan(shades[i, i + 1:]).all() for i in range(T))


def test_scores_and_other_matrices_keep_one_scale():
    scores = np.array([[2.0, -1.0], [0.5, 3.0]])
    spec = heatmap_spec(scores, ["a", "b"], ["a", "b"], value_name="score", scheme="viridis")
    colour = spec["layer"][0]["encoding"]["color"]
    assert colour["field"] == "score" and "shade" not in rows_of(spec)[0]
    # viridis is dark at its low end: white numbers there, black on the yellow top
    assert [r["ink"] for r in rows_of(spec)] == ["black", "white", "white", "black"]
    cosines = heatmap_spec(np.array([[1.0, 0.2], [0.2, 1.0]]), ["x", "y"], ["x", "y"], domain=(-1, 1))
    assert cosines["layer"][0]["encoding"]["color"]["field"] == "weight"
    habits = heatmap_spec(np.array([[0.9, 0.8], [0.1, 0.3]]), ["b1", "b2"], ["h1", "h2"], domain=(0, 1))
    assert habits["layer"][0]["encoding"]["color"]["scale"]["domain"] == [0, 1]   # rows not distributions: global
    assert "shade" not in rows_of(habits)[0]
    forced = heatmap_spec(np.array([[0.2, 0.8]]), ["q"], ["a", "b"], color_by="all")
    assert forced["layer"][0]["encoding"]["color"]["field"] == "weight"
    with pytest.raises(ValueError, match="color_by"):
        heatmap_spec(np.eye(2), ["a", "b"], ["a", "b"], color_by="row")
    with pytest.raises(ValueError, match="one entry per cell"):
        heatmap_spec(np.eye(2), ["a", "b"], ["a", "b"], mask=np.ones((2, 3), bool))


def test_every_token_is_named_on_both_axes():
    spec = heatmap_spec(np.eye(13), list("abcdefghijklm"), list("abcdefghijklm"))
    assert spec["encoding"]["x"]["axis"]["labelOverlap"] is False
    assert spec["encoding"]["y"]["axis"]["labelOverlap"] is False


def test_head_panels_share_the_uniform_scale_for_weights_and_a_global_one_otherwise():
    weights = {"h1": (np.array([[0.3, 0.7], [0.5, 0.5]]), ["a", "b"], ["a", "b"])}
    spec = heatmap_panels(weights, domain=(0.0, 1.0))
    assert_valid(spec)
    part = spec["vconcat"][0]["hconcat"][0]
    assert part["layer"][0]["encoding"]["color"]["field"] == "shade" and "config" not in part
    habits = heatmap_panels({"m": (np.array([[0.9, 0.8]]), ["b1"], ["h1", "h2"])}, value_name="mean weight",
                            domain=(0.0, 1.0))
    assert habits["vconcat"][0]["hconcat"][0]["layer"][0]["encoding"]["color"]["field"] == "mean weight"


def test_causal_head_panels_centre_each_row_on_what_it_sees():
    causal = np.array([[1.0, 0.0], [0.5, 0.5]])
    for spec in (heatmap_panels({"h1": (causal, ["a", "b"], ["a", "b"])}, causal=True),
                 head_grid([causal, causal], ["a", "b"], causal=True)):
        assert_valid(spec)
        rows = data_rows(spec)
        assert {r["shade"] for r in rows if r["seen"]} == {0.0} and sum(not r["seen"] for r in rows) == len(rows) // 4
    assert data_rows(head_grid([causal], ["a", "b"]))[0]["shade"] == 1.0    # unmasked: the forced 1.0 looks sharp


def test_the_context_bars_keep_one_axis_when_given_one():
    window, attended = np.array([1 / 3, 1 / 3, 1 / 3, 0]), np.array([0.298, 0.203, 0.206, 0.293])
    fitted = compare_bars({"window": window, "attention": attended}, CHAPTER_TOKENS)
    fixed = [compare_bars({"window": w, "attention": attended}, CHAPTER_TOKENS, domain=(0, 1))
             for w in (window, np.eye(4)[0], np.full(4, 0.25))]
    assert fitted["encoding"]["y"]["scale"]["domain"] == [0, 0.4]        # fits its data unless told
    assert {tuple(spec["encoding"]["y"]["scale"]["domain"]) for spec in fixed} == {(0, 1)}


# --- value axes that fit their data -----------------------------------------------------------------

def test_nice_bounds_sit_just_above_the_value():
    assert [nice_bound(v) for v in (0.3663, 0.98, 0.05, 1.0, 7.0, 123.0, 0.0, float("nan"))] == \
        [0.4, 1.0, 0.05, 1.0, 8.0, 150.0, 1.0, 1.0]
    assert value_scale(0.95, headroom=1.2, cap=1.0) == {"domain": [0, 1.0], "nice": False}


def test_compare_bars_axis_ends_just_above_the_largest_weight():
    spec = compare_bars({"window k = 1": np.array([1 / 3, 1 / 3, 1 / 3]), "attention": np.array([0.3, 0.33, 0.2])},
                        ["a", "b", "c"])
    assert spec["encoding"]["y"]["scale"]["domain"] == [0, 0.4]          # not [0, 1] for a 0.333 bar
    one = compare_bars({"window k = 0": np.array([1.0, 0.0])}, ["a", "b"])
    assert one["encoding"]["y"]["scale"]["domain"] == [0, 1.0]


def test_probability_bars_fit_their_largest_value():
    from engine.charts.bars import next_token_bars

    bars = next_token_bars({"SmolLM2": [(" a", 0.3), (" b", 0.1)]})
    assert bars["layer"][0]["encoding"]["x"]["scale"]["domain"] == [0, 0.4]
    model = next_token_bars({"m": [("a", 0.2, 0.45), ("b", 0.1, 0.05)]})
    assert model["layer"][0]["encoding"]["x"]["scale"]["domain"] == [0, 0.6]   # the 0.45 tick fits too


def test_cost_bars_leave_room_for_their_printed_amounts_and_stack():
    from engine.attention.mechanism import compare_head_costs
    from engine.charts.bars import COST_LABEL, COST_WIDTH, cost_comparison

    spec = cost_comparison(compare_head_costs(1024, 768, 12))
    assert "hconcat" not in spec and len(spec["vconcat"]) == 2         # side by side they overran the column
    for part in spec["vconcat"]:
        largest = max(row[part["encoding"]["x"]["field"]] for row in part["data"]["values"])
        top = part["encoding"]["x"]["scale"]["domain"][1]
        assert COST_WIDTH * largest / top <= COST_WIDTH - COST_LABEL    # the longest bar stops short of its label
    assert spec["padding"] == {"left": 5, "top": 5, "right": 5} and "padding" not in spec["vconcat"][0]
