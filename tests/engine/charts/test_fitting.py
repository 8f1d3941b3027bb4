"""engine.charts.fitting: every chart fitted to a phone's column fits it (drawn by Vega itself, vl-convert, under
Streamlit's chart theme: no browser), with its text at 11 px or more; on a projector the charts grow to fill the
column, their numbers at the projector's size; on a desktop (no width known) a chart is exactly as built. Only sizes,
places and line breaks change: the data and the colours are the builder's."""
from __future__ import annotations

import json

import numpy as np
import pytest

from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X, attention, compare_head_costs
from engine.charts import bars, heatmaps, images, style
from engine.charts import fitting
from engine.charts.fitting import fitted
from engine.charts.style import (
    DESKTOP, MIN_TEXT_SIZE, PROJECTOR_COLUMN_PX, PROJECTOR_TEXT_SIZE, TEXT_SIZE, Layout, layout_for, with_text,
)
from tests.engine.charts.test_charts import every_builder_spec, font_sizes
from tests.engine.vegalite import assert_valid, data_rows, drawn_size

PHONE = layout_for(340, projector=False)        # a 390 px phone's main column (358 px), rounded down as ui.screen does
PROJECTOR = layout_for(PROJECTOR_COLUMN_PX, projector=True)
SPECS = every_builder_spec()


def colours(node) -> list:
    """Every colour encoding and scale range of a spec, in order."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("color", "fill", "stroke") and isinstance(value, dict):
                found.append(json.dumps({k: v for k, v in value.items() if k != "legend"}, sort_keys=True))
            elif key not in ("data", "datasets"):
                found += colours(value)
    elif isinstance(node, list):
        for value in node:
            found += colours(value)
    return found


def drawn(spec: dict) -> dict:
    """A fitted spec as ui.charts.show hands it on: a one-view chart with no autosize keeps its size."""
    from engine.charts.fitting import _single

    return spec if "autosize" in spec or not _single(spec) else spec | {"autosize": {"type": "pad"}}


def test_a_desktop_chart_is_drawn_as_built():
    """No width known (AppTest, the handout, a download): the builder's sizes, at the desktop's text."""
    for name, spec in SPECS.items():
        assert fitted(spec, DESKTOP) == with_text(spec), name


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_chart_fits_a_phone_column(name):
    spec = fitted(SPECS[name], PHONE)
    assert_valid(spec)
    width, _ = drawn_size(drawn(spec))
    assert width <= PHONE.width, f"{name}: {width:.0f} px in a {PHONE.width} px column"
    small = [(path, size) for path, size in font_sizes(spec) if size < MIN_TEXT_SIZE]
    assert not small, f"{name}: text under {MIN_TEXT_SIZE} px at {small}"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_fitting_changes_sizes_never_data_or_colours(name):
    for layout in (PHONE, PROJECTOR):
        spec = fitted(SPECS[name], layout)
        assert data_rows(spec) == data_rows(SPECS[name]), (name, layout)
        assert sorted(colours(spec)) == sorted(colours(SPECS[name])), (name, layout)


def weights_heatmap(tokens=CHAPTER_TOKENS, x=CHAPTER_X) -> dict:
    return heatmaps.heatmap_spec(attention(x, x, x).weights, tokens, tokens, domain=(0, 1), title="alpha")


def test_on_a_projector_the_calculators_heatmap_fills_the_column_and_its_numbers_read_from_afar():
    """The issue's goal: at least 40 % of a 1920 px projector's main column, numbers at 24 px."""
    spec = fitted(weights_heatmap(), PROJECTOR)
    width, _ = drawn_size(drawn(spec))
    assert 0.4 * PROJECTOR_COLUMN_PX <= width <= PROJECTOR_COLUMN_PX
    assert spec["config"]["text"]["fontSize"] == PROJECTOR_TEXT_SIZE == 24
    assert min(size for _, size in font_sizes(spec)) >= PROJECTOR_TEXT_SIZE


def test_every_chart_stays_within_a_projectors_column():
    for name, built in SPECS.items():
        spec = fitted(built, PROJECTOR)
        assert_valid(spec)
        assert drawn_size(drawn(spec))[0] <= PROJECTOR_COLUMN_PX, name


def test_panels_side_by_side_go_one_under_the_other_on_a_phone():
    side = fitted(SPECS["style.side_by_side"], PHONE)
    assert "hconcat" not in side and len(side["vconcat"]) == 2
    facet = fitted(bars.next_token_bars({"3-gram": [("x", 0.5)], "SmolLM2": [("y", 0.4)]}), PHONE)
    assert facet["columns"] == 1 and "column" not in facet["facet"]
    grid = fitted(heatmaps.head_grid([np.eye(4)] * 4, list("abcd")), PHONE)
    assert len(grid["vconcat"]) == 4 and not any("hconcat" in panel for panel in grid["vconcat"])
    assert "hconcat" in fitted(SPECS["style.side_by_side"], PROJECTOR)        # a projector keeps them side by side


def test_long_bar_names_go_above_their_bars_on_a_phone():
    """The cost chart's names ('12 heads of width d = 768 each') took most of a phone's width from the bars."""
    spec = fitted(bars.cost_comparison(compare_head_costs(64, 768, 12)), PHONE)
    panel = spec["vconcat"][0]
    assert panel["encoding"]["y"]["axis"]["labelAlign"] == "left" and panel["encoding"]["y"]["axis"]["labelPadding"] < 0
    assert panel["width"] >= 0.7 * PHONE.width


def test_numbers_too_wide_for_a_phones_cells_are_left_to_the_tooltip_and_table():
    """Twelve tokens' weights leave cells too narrow for '0.083' at 11 px on a phone: the cells keep their colour, the
    numbers are under Data; on a desktop they are printed."""
    tokens = [f"token{i}" for i in range(12)]
    x = np.random.default_rng(0).normal(size=(12, 4))
    built = weights_heatmap(tokens, x)
    marks = lambda spec: [layer["mark"]["type"] for layer in spec["layer"]]   # noqa: E731
    assert "text" in marks(fitted(built, DESKTOP))
    assert "text" not in marks(fitted(built, PHONE))
    four = fitted(weights_heatmap(), PHONE)
    assert "text" in marks(four) and four["config"]["text"]["fontSize"] >= MIN_TEXT_SIZE


def test_a_wide_grid_that_may_turn_turns_on_a_phone_and_weights_never_do():
    """The model view (30 layers across) turns so its layers run down the page at full size; a weights heatmap, whose
    rows are what sums to 1, keeps its rows."""
    types = np.array([["broad"] * 9] * 30, dtype=object)
    thumbs = images.thumbnails(np.full((30, 9, 4, 4), 0.25))
    view = fitted(images.model_view(thumbs, types, {}), PHONE)
    assert view["layer"][0]["encoding"]["y"]["field"] == "layer"
    assert view["layer"][0]["encoding"]["x"]["axis"]["orient"] == "top"        # the side keeps its axis
    assert drawn_size(drawn(view))[0] <= PHONE.width
    tokens = [f"t{i}" for i in range(12)]
    turned = fitted(heatmaps.heatmap_spec(np.full((12, 12), 1 / 12), tokens, tokens), PHONE)
    assert turned["encoding"]["y"]["field"] == "row"


def test_long_titles_wrap_on_a_phone():
    title = "Weights on each token for 'crane': the window by position, attention by content"
    spec = heatmaps.heatmap_spec(np.eye(2), ["a", "b"], ["a", "b"], title=title)
    title = fitted(spec, PHONE)["title"]
    assert isinstance(title, list) and len(title) >= 2 and " ".join(title) == spec["title"]


def test_layouts():
    assert not DESKTOP.narrow and DESKTOP.width is None and DESKTOP.text == TEXT_SIZE
    assert PHONE.narrow and PHONE.text == TEXT_SIZE and PHONE.grow == 1
    assert not PROJECTOR.narrow and PROJECTOR.grow > 1 and PROJECTOR.text == PROJECTOR_TEXT_SIZE
    assert layout_for(None, projector=True).width == PROJECTOR_COLUMN_PX
    assert layout_for(639, projector=False).narrow and not layout_for(style.NARROW_PX, projector=False).narrow
    part = layout_for(1000, projector=False).share(0.5)
    assert part.width == 500 - style.COLUMN_GAP_PX and not part.narrow   # a column of a wide screen is no phone


def test_beyond_a_phone_numbers_in_cells_keep_the_desktops_size():
    """The head viewer's heatmap in 60 % of a 1400 px screen's column (528 px) was estimated a little too wide: its
    numbers went to 11 px. Only a phone draws them under TEXT_SIZE."""
    tokens = [f"w{i}" for i in range(13)]
    spec = heatmaps.heatmap_spec(np.tril(np.ones((13, 13))) / np.arange(1, 14)[:, None], tokens, tokens, digits=2,
                                 cell=30, causal=True, domain=(0, 1))
    assert fitted(spec, Layout(480))["config"]["text"]["fontSize"] == TEXT_SIZE
    assert fitted(spec, PHONE)["config"]["text"]["fontSize"] >= MIN_TEXT_SIZE


def test_a_title_longer_than_its_fitted_chart_wraps_instead_of_squeezing_the_plot():
    """On a projector the Context page's heatmap (4 tokens, 680 px) had a title of about 1,100 px at 27 px: Vega
    fitted the whole chart, title included, into its 680 px and squeezed the cells to nothing."""
    title = "Weights on each token for 'crane': the window by position, attention by content"
    rows = [f"window k = {k}" for k in range(4)] + ["attention"]
    spec = heatmaps.heatmap_spec(np.full((5, 4), 0.25), rows, list(CHAPTER_TOKENS), domain=(0, 1), title=title)
    out = fitted(spec, PROJECTOR)
    assert isinstance(out["title"], list) and " ".join(out["title"]) == title
    assert first_cell_width(out) >= 2 * spec["width"]["step"]          # grown, not squeezed (46 px as built)


def first_cell_width(spec: dict) -> float:
    """The width of the first cell Vega draws (vl-convert, under Streamlit's chart theme)."""
    import re

    import vl_convert

    from tests.engine.vegalite import STREAMLIT_CHART_THEME, _merged

    svg = vl_convert.vegalite_to_svg(spec | {"config": _merged(STREAMLIT_CHART_THEME, spec["config"])})
    return float(re.search(r'mark-rect role-mark[^>]*>.*?d="M[-\d.]+,[-\d.]+h([\d.]+)v', svg, re.S).group(1))


def test_on_a_projector_a_chart_as_wide_as_its_column_grows_its_rows_with_the_text():
    """The head viewer's lines chart (stretch, in 2/5 of the column) kept its 22 px rows under 24 px labels, which
    ran into each other."""
    spec = bars.parameter_bars({"token embedding": 2400, "attention (all blocks)": 8448})
    out = fitted(spec, PROJECTOR.share(0.4), stretch=True)
    assert out["height"]["step"] >= spec["height"]["step"] * PROJECTOR_TEXT_SIZE / TEXT_SIZE


def test_one_character_bar_labels_grow_on_a_projector_and_count_in_a_phones_width():
    """main's next-token bars draw a one-character token (',' '↵') larger than a word, by a condition on the label
    (style.one_character_labels): the fitting read that size as a number and failed; on a projector the comma stayed
    at its desktop 20 px beside 24 px words."""
    from engine.charts.bars import CHARACTER_LABEL_SIZE

    spec = bars.next_token_bars({"3-gram": [(",", 0.5), ("e", 0.3)], "SmolLM2": [("the", 0.4), (".", 0.2)]})
    size = fitted(spec, PROJECTOR)["config"]["axisY"]["labelFontSize"]
    assert size["value"] == PROJECTOR_TEXT_SIZE
    assert size["condition"]["value"] == round(CHARACTER_LABEL_SIZE * PROJECTOR_TEXT_SIZE / TEXT_SIZE, 1)
    phone = fitted(spec, PHONE)
    assert drawn_size(drawn(phone))[0] <= PHONE.width
    assert phone["config"]["axisY"]["labelFontSize"]["condition"]["value"] == CHARACTER_LABEL_SIZE


def test_on_a_projector_heads_whose_numbers_would_shrink_side_by_side_go_one_under_the_other():
    """The multi-head page's two heads of eight tokens, three decimals a cell (main's head_grid): side by side in a
    projector's column their numbers came out at 20 px; one under the other they are drawn at the projector's 24."""
    weights = np.random.default_rng(0).dirichlet(np.ones(8), size=8)
    spec = fitted(heatmaps.head_grid([weights, weights], [f"w{i}" for i in range(8)]), PROJECTOR)
    assert spec["config"]["text"]["fontSize"] == PROJECTOR_TEXT_SIZE
    assert len(spec["vconcat"]) == 2 and not any("hconcat" in panel for panel in spec["vconcat"])
    assert drawn_size(drawn(spec))[0] <= PROJECTOR_COLUMN_PX
    assert "hconcat" in fitted(SPECS["style.side_by_side"], PROJECTOR)        # panels without numbers stay beside


def test_a_legend_title_longer_than_vegas_limit_wraps_instead_of_being_cut():
    """Vega cuts a legend title line at its limit ("peso: por encima / por deba…" on the calculator in Spanish):
    such a line goes in lines within it, a short one is left as it is."""
    from engine.charts.fitting import legend_titles_wrapped
    from engine.charts.style import LEGEND_TITLE_LIMIT, TEXT_SIZE

    long = ["peso: por encima / por debajo de la media uniforme", "1/T (uniforme)"]
    spec = {"layer": [{"mark": "rect", "encoding": {"color": {"field": "w", "legend": {"title": long}}}},
                      {"mark": "text", "encoding": {"color": {"field": "k", "title": "short"}}}]}
    out = legend_titles_wrapped(spec)
    lines = out["layer"][0]["encoding"]["color"]["legend"]["title"]
    assert " ".join(lines) == " ".join(long) and len(lines) > 2
    assert all(fitting.text_width(line, TEXT_SIZE + 1) <= LEGEND_TITLE_LIMIT for line in lines)
    assert out["layer"][1] == spec["layer"][1]
    assert spec["layer"][0]["encoding"]["color"]["legend"]["title"] == long      # the spec itself is not changed


def test_an_arabic_title_that_begins_with_a_formula_is_marked_right_to_left():
    from engine.charts.style import RLM, right_to_left_marked

    spec = {"title": {"text": ["P(b | a) بين الرموز", "(V = 28,860)"]},
            "encoding": {"x": {"title": "n"}, "y": {"axis": {"title": "السياق"}},
                         "color": {"legend": {"title": "ممكنة (V^n)"}}},
            "data": {"values": [{"title": "عربي"}]}}
    out = right_to_left_marked(spec)
    assert out["title"]["text"] == [RLM + "P(b | a) بين الرموز", "(V = 28,860)"]
    assert out["encoding"]["x"]["title"] == "n" and out["encoding"]["y"]["axis"]["title"] == RLM + "السياق"
    assert out["encoding"]["color"]["legend"]["title"] == RLM + "ممكنة (V^n)"
    assert out["data"] == spec["data"] and right_to_left_marked(out) == out


def test_a_chinese_title_breaks_between_its_characters_and_a_phones_fitting_chart_wraps_its_x_title():
    """Chinese has no spaces to break a title at: a title longer than a line breaks between its characters (a Latin
    word in it kept whole); on a phone an x axis title wider than its plot goes in lines even where the chart fits
    as it is (the zoomed model ladder's title ran past the screen in Chinese)."""
    from engine.charts.fitting import _lines

    title = "留出文本上每个字符的比特数，放大（越少越好）Transformer"
    lines = _lines(title, 14, 150)
    assert "".join(lines) == title and len(lines) > 1 and "Transformer" in lines[-1]
    assert all(fitting.text_width(line, 14 * 1.08) <= 150 for line in lines[:-1])
    spec = {"mark": "point", "width": 160, "data": {"values": [{"b": 1.8}, {"b": 2.1}]},
            "encoding": {"x": {"field": "b", "type": "quantitative", "title": title}}}
    out = fitted(spec, style.layout_for(390, False))
    assert isinstance(out["encoding"]["x"]["title"], list)


@pytest.mark.parametrize("code", ["en", "es", "ar"])
def test_a_signed_number_in_a_phones_cell_is_printed_whole_or_not_at_all_in_every_language(code):
    """Arabic writes a minus as a direction mark and "-": its numbers were taken for words and cut at the cell ("-…",
    "1.…" on Position's heatmap on a phone) where English printed them. Every language: whole numbers or none."""
    from engine import i18n

    values = np.random.default_rng(1).normal(size=(9, 9))   # nine tokens: cells too narrow for "-0.52" at full size
    labels = list("abcdefghi")
    with i18n.use(code):
        built = heatmaps.heatmap_spec(values, labels, labels, scheme="blueorange", digits=2)
        phone = fitted(built, PHONE)
    texts = [layer for layer in phone["layer"] if layer["mark"]["type"] == "text"]
    english = fitted(heatmaps.heatmap_spec(values, labels, labels, scheme="blueorange", digits=2), PHONE)
    assert len(texts) == len([layer for layer in english["layer"] if layer["mark"]["type"] == "text"])
    assert all("limit" not in layer["mark"] for layer in texts)
    assert phone.get("config", {}).get("text") == english.get("config", {}).get("text")


def test_numbers_in_every_languages_signs_are_numbers():
    assert all(fitting._is_number(text) for text in ("\u200e-0.52", "0,52", "−1.5", "28,860", "28.860", "1\u202f234"))
    assert not any(fitting._is_number(text) for text in ("<|en", "lit", "0.5x", ""))
