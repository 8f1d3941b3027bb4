"""'Show the code' on Beyond words reproduces the page's numbers, and its charts pass the Vega-Lite schema."""
from __future__ import annotations

import contextlib
import io

import altair as alt
import numpy as np
import pytest

from engine.beyond.code import audio_code, image_code, protein_code
from engine.charts.images import data_url, patch_overlay, spectrogram_with_frames, viridis
from engine.charts.lines import cost_chart
from engine.beyond.modalities import (
    PROTEIN_PRESETS, frame_attention, image_attention, patch_costs, residue_attention, resize_square, synth_signal
)


def _run(program) -> str:
    """What the program prints when run; the printout the page shows under it must be the same."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(program.source, "<snippet>", "exec"), {})
    assert program.printout() == out.getvalue()
    return out.getvalue()


def _expected(result, query: int) -> str:
    weights = result.attention.weights
    others = [(j, round(w, 4)) for j, w in result.strongest_others(query, 5)]
    T = weights.shape[0]
    return (f"{T} tokens -> {T * T:,} scores\nweight on itself: {round(float(weights[query, query]), 4)}\n"
            f"strongest others: {others}\n")


@pytest.mark.parametrize("side, patch, fit, d, seed, query", [
    (224, 16, "crop", 64, 0, 62),
    (None, 28, "crop", 32, 3, 10),          # 300 x 451 chelsea cropped to 280 x 448
    (None, 28, "pad", None, 0, 0),
    (128, 16, "exact", 16, 7, 5),
])
def test_image_snippet_prints_the_page_numbers(side, patch, fit, d, seed, query):
    from skimage import data
    pixels = data.chelsea()
    if side:
        pixels = resize_square(pixels, side)
    result = image_attention(pixels, patch, fit, d, seed)
    assert _run(image_code("chelsea", side, patch, fit, d, seed, query)) == _expected(result, query)


def test_grey_picture_snippet():
    from skimage import data
    result = image_attention(resize_square(data.camera(), 128), 32, "crop", 64, 1)
    assert _run(image_code("camera", 128, 32, "crop", 64, 1, 3)) == _expected(result, 3)


@pytest.mark.parametrize("signal, frame, hop, d, query", [("melody", 512, 128, 64, 86), ("chirp", 256, 64, None, 5)])
def test_audio_snippet_prints_the_page_numbers(signal, frame, hop, d, query):
    result = frame_attention(synth_signal(signal, 8000), frame, hop, d, 0)
    assert _run(audio_code(signal, frame, hop, d, 0, query)) == _expected(result, query)


def test_protein_snippet_prints_the_page_numbers():
    sequence = PROTEIN_PRESETS["Human insulin, B chain"]
    result = residue_attention(sequence, 64, 2)
    assert _run(protein_code(sequence, 64, 2, 6)) == _expected(result, 6)


def test_upload_snippets_name_the_file_to_read():
    picture = image_code(None, None, 16, "crop", 64, 0, 0)
    assert 'Image.open("your_picture.png")' in picture.source
    assert picture.printout is None and "from your own disk" in picture.why   # an upload is read only as the app does
    assert 'read_wav(open("your_sound.wav", "rb").read())' in audio_code(None, 512, 128, 64, 0, 0).source


# ---- charts: valid Vega-Lite (pages draw them without validation) -------------------------

def test_patch_overlay_is_valid_and_carries_the_weights():
    weights = np.full(16, 0.05)
    weights[5], weights[9] = 0.25, 0.0
    for style in ("spotlight", "heat"):
        spec = patch_overlay(data_url(np.zeros((8, 8, 3), dtype=np.uint8)), 8, 8, 4, 4, 2, weights, 5,
                             style=style, selection="token")
        alt.LayerChart.from_dict(spec, validate=True)            # the Vega-Lite schema
        rows = spec["layer"][1]["data"]["values"]
        assert len(rows) == 16
        shade = {row["patch"]: row["shade"] for row in rows}
        assert shade[9] == 0 and shade[0] == pytest.approx(1.0)  # scaled by the largest *other* weight


def test_spectrogram_chart_is_valid():
    signal = synth_signal("melody", 8000)
    result = frame_attention(signal, 512, 128, 64, 0)
    spec = spectrogram_with_frames(result.source, 10, result.attention.weights[10], signal.segments,
                                   selection="token")
    alt.VConcatChart.from_dict(spec, validate=True)
    frames = spec["vconcat"][1]["layer"][0]["data"]["values"]
    assert len(frames) == 97 and frames[10]["ink"] == "#e08214" and frames[11]["ink"] == "#1f6fb4"


def test_the_notes_are_named_above_the_weights_not_over_their_bars():
    """The note names sat 6 px inside the weights' plot, over its tallest bars and the spectrogram's time axis.
    They sit above the plot now, in a gap under that axis tall enough for them at the projector's text size."""
    from engine.charts.style import PROJECTOR_TEXT_SIZE

    signal = synth_signal("melody", 8000)
    result = frame_attention(signal, 512, 128, 64, 0)
    spec = spectrogram_with_frames(result.source, 86, result.attention.weights[86], signal.segments)
    names = next(layer for layer in spec["vconcat"][1]["layer"] if layer["mark"]["type"] == "text")
    assert [note["label"] for note in names["data"]["values"]] == ["C", "D", "E", "C again"]
    bottom = names["encoding"]["y"]["value"] + names["mark"]["dy"]   # px from the top of the weights' plot
    assert names["mark"]["baseline"] == "bottom" and bottom < 0
    assert spec["spacing"] >= PROJECTOR_TEXT_SIZE - bottom + 2


def test_cost_chart_is_valid_and_marks_the_current_patch():
    spec = cost_chart(patch_costs(224, 224, [8, 16, 32]), 16)
    alt.LayerChart.from_dict(spec, validate=True)                  # the Vega-Lite schema
    assert [(r["size"], r["tokens"], r["scores"]) for r in spec["data"]["values"]] == [
        (8, 784, 784 ** 2), (16, 196, 196 ** 2), (32, 49, 49 ** 2)]
    assert [r["ink"] for r in spec["data"]["values"]] == ["#1f6fb4", "#e08214", "#1f6fb4"]



def test_close_points_of_the_cost_chart_label_one_above_and_one_below():
    """Patch sizes 16 and 14 (196 and 256 tokens) lie close on the log axes: their labels, both above, ran into each
    other on a phone (and touched at 1400 px); the left one's goes below it. Far points keep theirs above."""
    from engine.chapter.beyond import PATCH_SIZES_FOR_COST

    spec = cost_chart(patch_costs(224, 224, PATCH_SIZES_FOR_COST), 16)
    alt.LayerChart.from_dict(spec, validate=True)
    below = {r["size"]: r["_below"] for r in spec["data"]["values"]}
    assert below == {4: False, 7: False, 8: True, 14: False, 16: True, 28: False, 32: True, 56: False, 64: True,
                     112: False, 128: False}
    texts = [layer for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    assert [layer["transform"][0]["filter"] for layer in texts] == ["!datum._below", "datum._below"]

def test_viridis_ends():
    np.testing.assert_allclose(viridis(np.array([0.0, 1.0])), [[68 / 255, 1 / 255, 84 / 255],
                                                                [253 / 255, 231 / 255, 37 / 255]])
