"""engine.charts.export: a chart downloaded as SVG, PNG (2x, white) and CSV, drawn on the server from the spec
the page shows; a chart too large to download gets a sentence."""
from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from engine.charts import export, text
from engine.charts.bars import next_token_bars
from engine.charts.heatmaps import heatmap_spec
from engine.limits import EXPORT_MAX_ROWS

SVG = "{http://www.w3.org/2000/svg}"


def worked_example():
    """The attention calculator's weights heatmap of the chapter's worked example."""
    return heatmap_spec([[0.298, 0.203, 0.206, 0.293]], ["q"], ["I", "like", "green", "apples"],
                        title="Attention weights", x_title="key (attended to)", y_title="query (attending)")


def drawn_text(root) -> list[str]:
    return [node.text for node in root.iter(f"{SVG}text") if node.text]


def test_the_svg_parses_and_carries_the_summary_as_its_title_and_the_axis_labels():
    spec = worked_example()
    root = ET.fromstring(export.svg(spec))
    assert root.tag == f"{SVG}svg"
    assert root.find(f"{SVG}title").text == text.summary(spec)
    words = drawn_text(root)
    for label in ("key (attended to)", "query (attending)", "Attention weights", "apples", "0.298", "0.293"):
        assert label in words, (label, words)


def test_the_png_is_twice_the_svgs_size_on_white():
    spec = next_token_bars({"model": [(" lamb", 0.6), (" dog", 0.3), (" cat", 0.1)]}, title="Next token")
    root = ET.fromstring(export.svg(spec))
    width, height = float(root.get("width")), float(root.get("height"))
    picture = Image.open(io.BytesIO(export.png(spec)))
    assert picture.format == "PNG"
    assert picture.size == (round(2 * width), round(2 * height))
    assert picture.convert("RGB").getpixel((1, 1)) == (255, 255, 255)


def test_a_chart_filling_its_column_gets_a_fixed_width():
    spec = heatmap_spec([[0.5, 0.5]], ["a"], ["a", "b"], title="t") | {"width": "container"}
    assert export.standalone(spec)["width"] == 640
    assert float(ET.fromstring(export.svg(spec)).get("width")) >= 640


def test_the_csv_has_every_row_of_the_data_table():
    spec = worked_example()
    columns, cells, _ = text.table(spec)
    lines = export.csv_text(spec).splitlines()
    assert lines[0].split(",") == columns
    assert len(lines) == 1 + 4 == 1 + len(cells)
    assert [line.split(",")[2] for line in lines[1:]] == ["0.298", "0.203", "0.206", "0.293"]


def test_a_chart_too_large_gets_a_sentence_and_is_not_drawn():
    spec = {"mark": "bar", "data": {"values": [{"token": i, "p": 1e-6} for i in range(EXPORT_MAX_ROWS + 1)]},
            "encoding": {"x": {"field": "token", "type": "ordinal"}, "y": {"field": "p", "type": "quantitative"}}}
    with pytest.raises(ValueError, match=r"more than the 50,000 a download can hold"):
        export.check(spec)
    with pytest.raises(ValueError, match="make it smaller"):
        export.svg(spec)
    with pytest.raises(ValueError, match="make it smaller"):
        export.png(spec)


def test_a_drawing_larger_than_the_pixel_limit_gets_a_sentence():
    spec = heatmap_spec([[0.5, 0.5]], ["a"], ["a", "b"], title="t") | {"width": 9000, "height": 9000}
    with pytest.raises(ValueError, match=r"pixels, larger than a download can be"):
        export.png(spec)


def test_file_names_come_from_the_title():
    assert export.file_stem(worked_example()) == "attention-weights"
    assert export.file_stem({"mark": "bar"}) == "chart"
    assert export.file_stem({"hconcat": [{"title": "weights α in A", "layer": []}]}) == "weights-alpha-in-a"
    assert re.fullmatch(r"[a-z0-9-]+", export.file_stem({"title": "P(next | 'Mary had a little')"}))


def test_a_large_charts_png_is_drawn_at_1x_within_the_longest_side_limit():
    import numpy as np

    from engine.charts.export import PNG_MAX_SIDE

    names = [f"t{i}" for i in range(48)]
    spec = heatmap_spec(np.full((48, 48), 1 / 48), names, names, title="alpha")   # 2,263 x 2,364 px as drawn
    picture, width, height = export.png_drawing(spec)
    size = Image.open(io.BytesIO(picture)).size
    assert max(width, height) * export.PNG_SCALE > PNG_MAX_SIDE
    assert size == (round(width), round(height))   # 1x: at 2x it was 4,526 x 4,728


def test_a_large_heatmaps_download_drops_the_cells_hairlines_a_small_one_keeps_them():
    import numpy as np

    def strokes(spec):
        layers = export.standalone(spec)["layer"]
        return [layer["mark"].get("stroke") for layer in layers if layer["mark"]["type"] == "rect"]

    small = heatmap_spec(np.full((4, 4), 0.25), list("abcd"), list("abcd"))
    names = [f"t{i}" for i in range(48)]
    large = heatmap_spec(np.full((48, 48), 1 / 48), names, names)
    assert strokes(small) == ["white"] and strokes(large) == [None]
    assert large["layer"][0]["mark"]["stroke"] == "white"   # the page's own spec is unchanged


def test_an_arabic_chart_is_drawn_right_to_left_and_a_wrapped_title_line_by_line():
    """vl-convert's renderer lays an SVG text left to right unless told: an Arabic title beginning with a formula came
    out as "α: 1 مجموع كل صف", and a wrapped Arabic legend title's two lines were drawn over each other. Each line is
    now a <text> of its own and a right-to-left one is embedded so (RLE ... PDF); an English chart is untouched."""
    import numpy as np

    from engine import i18n

    weights = np.array([[0.298, 0.203, 0.206, 0.293], [0.19, 0.314, 0.294, 0.202]])
    with i18n.use("ar"):
        spec = heatmap_spec(weights, ["crane", "by"], ["crane", "by", "the", "lake"],
                            title=i18n._("α: each row sums to 1"), domain=(0, 1))
        drawn = export.svg(spec).decode()
    texts = re.findall(r"<text\b[^>]*>(.*?)</text>", drawn, re.DOTALL)
    assert "<tspan" not in drawn                                  # every line its own text
    title = next(t for t in texts if "α" in t)
    assert title.startswith(export.RLE) and title.endswith(export.PDF)
    assert all(t.startswith(export.RLE) for t in texts if re.search("[\u0600-\u06ff]", t))
    assert "crane" in texts and "0.298" in texts                     # tokens and numbers as they were
    english = heatmap_spec(weights, ["crane", "by"], ["crane", "by", "the", "lake"], title="weights", domain=(0, 1))
    assert export.right_to_left_drawn(raw := export.svg(english).decode()) == raw


def test_the_right_to_left_drawing_keeps_each_lines_place():
    svg = ('<svg><text text-anchor="start" transform="translate(0,11)"><tspan>الوزن: أعلى</tspan>'
           '<tspan x="0" dy="16">القيمة 1/T</tspan></text><text x="3">crane</text></svg>')
    assert export.right_to_left_drawn(svg) == (
        '<svg><text text-anchor="start" transform="translate(0,11)" x="0" y="0">\u202bالوزن: أعلى\u202c</text>'
        '<text text-anchor="start" transform="translate(0,11)" x="0" y="16">\u202bالقيمة 1/T\u202c</text>'
        '<text x="3">crane</text></svg>')
