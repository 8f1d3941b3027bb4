"""engine.charts.diagrams: the Block builder's diagram, laid out by our own code for every switch."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.charts import diagrams
from engine.charts.diagrams import BOX_FONT_PX, LABEL_FONT_PX, PAD_X, block_diagram, block_layout, text_width
from engine.transformer.config import (
    ACTIVATIONS, LAYER_NORMS, POSITIONALS, PRESETS, TransformerConfig, dataflow,
)

TINY = PRESETS["tiny (the chapter's block)"]
SVG = "{http://www.w3.org/2000/svg}"
LIBERATION_SANS = [Path("/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"),
                   Path("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")]

switches = st.fixed_dictionaries(dict(
    vocab_size=st.sampled_from([1, 75, 50_257, 1_000_000]),
    context_length=st.sampled_from([1, 32, 2048]), d_model=st.sampled_from([8, 32, 768, 12_288, 100_000]),
    n_heads=st.sampled_from([1, 2, 4, 12, 96]), d_ff=st.sampled_from([1, 128, 49_152, 400_000]),
    n_layers=st.sampled_from([1, 2, 96, 1000]), activation=st.sampled_from(ACTIVATIONS),
    layer_norm=st.sampled_from(LAYER_NORMS), residual=st.booleans(), positional=st.sampled_from(POSITIONALS),
    causal=st.booleans(), tied_head=st.booleans(), final_norm=st.booleans(), bias=st.booleans()))


def check_layout(config: TransformerConfig) -> None:
    stages = dataflow(config)
    layout = block_layout(stages, config.n_layers, config.residual)
    boxes = layout.boxes
    assert [b.name for b in boxes] == [s.name for s in stages]
    for box in boxes:     # every line of text inside its box, every box inside the picture
        assert max(text_width(line, BOX_FONT_PX) for line in box.lines) + 2 * PAD_X <= box.width + 1e-9
        assert 0 <= box.x and box.right <= layout.width and 0 <= box.y and box.bottom <= layout.height
    for upper, lower, arrow in zip(boxes, boxes[1:], layout.arrows):   # one column, top to bottom, arrows between
        assert upper.bottom < lower.y and arrow.top == upper.bottom and arrow.bottom == lower.y
        assert upper.x + upper.width / 2 == pytest.approx(arrow.x) == pytest.approx(lower.x + lower.width / 2)
        assert upper.bottom < arrow.label_y - LABEL_FONT_PX and arrow.label_y < lower.y
        assert arrow.x + 6 + text_width(arrow.label, LABEL_FONT_PX) <= layout.width
    frame = layout.frame
    for box in boxes:     # the frame holds the block's boxes and no other
        within = frame.x < box.x and box.right < frame.x + frame.width and frame.y < box.y \
            and box.bottom < frame.y + frame.height
        assert within == box.in_block
    assert frame.x + diagrams.TITLE_INSET_PX + text_width(frame.title, LABEL_FONT_PX) < boxes[0].x + boxes[0].width / 2
    assert frame.title == f"block, repeated N = {config.n_layers} time{'s' if config.n_layers != 1 else ''}"
    by_name = {b.name: b for b in boxes}
    if not config.residual:
        assert layout.residuals == ()
        return
    # each residual feeds its sublayer's add: from the block's input to the attention sublayer, from the
    # attention sublayer's output z to the feed-forward sublayer, whatever boxes (rotary) lie between
    attention, feed_forward = layout.residuals
    assert (attention.target, feed_forward.target) == ("attention sublayer", "feed-forward sublayer")
    first = next(b for b in boxes if b.in_block)
    assert frame.y < attention.start_y < first.y
    assert by_name["attention sublayer"].bottom < feed_forward.start_y < by_name["feed-forward, inside"].y
    for residual in layout.residuals:
        target = by_name[residual.target]
        assert residual.end_x == target.right and target.y < residual.end_y < target.bottom
        passed = [b for b in boxes if residual.start_y < b.bottom and b.y <= target.y]
        assert all(b.right < residual.lane_x for b in passed)           # the lane runs clear of every box
        assert residual.lane_x + 6 + text_width("residual", LABEL_FONT_PX) < frame.x + frame.width


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_lays_out(name):
    check_layout(PRESETS[name])


@pytest.mark.parametrize("positional", POSITIONALS)
@pytest.mark.parametrize("layer_norm", LAYER_NORMS)
def test_residuals_reach_their_sublayers_whatever_the_boxes_between(positional, layer_norm):
    """Rotary positions add a box inside the block: the residual arrows still end on the two sublayers."""
    check_layout(replace(TINY, positional=positional, layer_norm=layer_norm))


@settings(max_examples=60, deadline=None)
@given(switches)
def test_any_configuration_lays_out(chosen):
    try:
        config = TransformerConfig(**chosen)
    except ValueError:   # a width that does not split into the heads, an odd d_k with rotary
        assume(False)
    check_layout(config)


def test_the_svg_draws_the_layout():
    stages = dataflow(TINY)
    svg = block_diagram(stages, TINY.n_layers, TINY.residual)
    root = ET.fromstring(svg)                       # well-formed XML, formulas' '<' escaped
    texts = [t.text for t in root.iter(f"{SVG}text")]
    for stage in stages:
        assert stage.name in texts
    assert "P(w_{t+1} | w_<=t)" in texts and "&lt;=" in svg
    assert texts.count("residual") == 2 and "block, repeated N = 2 times" in texts
    assert "(32, 128)" in texts and "4,224 parameters" in texts
    rects = [r for r in root.iter(f"{SVG}rect") if r.get("rx")]
    assert len(rects) == len(stages) + 1             # a box per stage and the block's frame
    plain = ET.fromstring(block_diagram(stages, TINY.n_layers, residual=False))
    assert "residual" not in [t.text for t in plain.iter(f"{SVG}text")]
    assert float(root.get("width")) > float(plain.get("width"))   # the lanes take room on the right


def test_a_long_formula_wraps():
    rotary = replace(TINY, positional="rotary")
    box = next(b for b in block_layout(dataflow(rotary), 2, True).boxes if b.name == "rotary positions")
    assert len(box.lines) == 3 and all(text_width(line, BOX_FONT_PX) <= diagrams.MAX_LINE_PX for line in box.lines)
    assert " ".join(box.lines[1:]) == next(s.formula for s in dataflow(rotary) if s.name == "rotary positions")


def test_helvetica_widths_are_liberation_sans_widths():
    """Browsers draw Helvetica with Liberation Sans or Arial where it is missing: the same advance widths."""
    font_file = next((path for path in LIBERATION_SANS if path.exists()), None)
    if font_file is None:
        pytest.skip("Liberation Sans is not installed (Debian's fonts-liberation2)")
    from PIL import ImageFont

    font = ImageFont.truetype(str(font_file), 1000)
    for code in range(32, 127):
        assert text_width(chr(code), 1000) == pytest.approx(font.getlength(chr(code)), abs=1), chr(code)
