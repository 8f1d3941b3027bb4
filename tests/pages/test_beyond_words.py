"""Beyond words page in AppTest: defaults, one change each, bad uploads and sequences -> st.error, no exception."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine import i18n

from tests.media import png_bytes, wav_bytes
from tests.pages.conftest import whole_page

PAGE = "../../views/beyond_words.py"


def _app(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def _text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def _errors(at) -> list[str]:
    return [e.value for e in at.error]


def _ok(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    lang = at.query_params["lang"] if "lang" in at.query_params else None
    with i18n.use(lang if isinstance(lang, str) or lang is None else lang[0]):
        further = i18n._("Further reading")                      # the shell's heading, in the page's language
    assert further in [s.value for s in at.subheader]            # the rest of the page is still drawn


def _section_ok(at) -> None:
    """After an interaction that reran only a section (ui.page.section): no exception in it. Read its numbers,
    then check the rest of the page with _ok(whole_page(at))."""
    assert not at.exception, [e.value for e in at.exception]


# ---- image ------------------------------------------------------------------------------

def test_image_defaults_are_vit_sizes():
    at = _app()
    _ok(at)
    assert not _errors(at)
    text = _text(at)
    assert "224 x 224 pixels, p = 16: a grid of 14 x 14 = 196 tokens, each 16 x 16 x 3 = 768 numbers" in text
    assert "38,416 scores" in text
    assert "Patch (4, 6) keeps" in text
    assert len(at.get("vega_lite_chart")) == 2          # the overlay and the cost chart


def test_overlay_reruns_only_the_picture():
    """The overlay style reruns only the picture (ui.page.section): it is drawn in the new style; the whole page
    around it (sizes, the query's numbers, the cost chart) is unchanged."""
    at = _app()
    spotlight = at.get("vega_lite_chart")[0].proto.spec
    numbers, cost = _text(at), at.get("vega_lite_chart")[1].proto.spec
    assert "viridis" not in spotlight
    at.radio(key="beyond.overlay").set_value("heat").run()
    _section_ok(at)
    assert not at.title and not at.markdown                     # only the picture ran
    charts = at.get("vega_lite_chart")
    assert len(charts) == 1 and charts[0].proto.spec != spotlight and "viridis" in charts[0].proto.spec
    assert at.query_params["overlay"] == "heat"
    whole = whole_page(at)
    _ok(whole)
    assert [t.value for t in whole.title] == ["Beyond words"]
    assert whole.radio(key="beyond.overlay").value == "heat"
    assert [chart.proto.spec for chart in whole.get("vega_lite_chart")] == [charts[0].proto.spec, cost]
    assert _text(whole) == numbers and "Patch (4, 6) keeps" in numbers


def test_a_typed_number_and_the_kind_in_one_interaction_draw_the_new_kind():
    """A number is sent when it loses the focus, so typing a patch size and then clicking the kind reach the page
    together: the whole page reruns (the kind's callback), not only the image section."""
    at = _app()
    at.number_input(key="beyond.patch").set_value(32)
    at.radio(key="beyond.kind").set_value("audio").run()
    _ok(at)
    assert [t.value for t in at.title] == ["Beyond words"]
    assert "T = 97 tokens of 257 frequency bins" in _text(at) and "a grid of" not in _text(at)
    assert at.query_params["kind"] == "audio"


def test_patch_size_change_and_query_change():
    at = _app()
    first = _text(at)
    at.number_input(key="beyond.patch").set_value(32).run()       # reruns only the image section
    _section_ok(at)
    assert "a grid of 7 x 7 = 49 tokens" in _text(at)
    assert ":material/check_circle: Cut the picture into exactly 49 tokens. **Done.**" in _text(at)
    _ok(whole_page(at))
    at.number_input(key="beyond.qrow").set_value(0).run()
    at.number_input(key="beyond.qcol").set_value(0).run()
    assert "Patch (0, 0) keeps" in _text(at) and _text(whole_page(at)) != first


def test_patch_not_dividing_with_refuse_is_a_sentence():
    at = _app(fit="exact")
    at.number_input(key="beyond.patch").set_value(15).run()
    _section_ok(at)
    assert any("A patch size of 15 does not divide the 224 x 224 image" in e for e in _errors(at))
    _ok(whole_page(at))
    at.radio(key="beyond.fit").set_value("pad").run()
    assert not _errors(at) and "15 x 15 = 225 tokens" in _text(at)


def test_too_many_patches_is_a_sentence():
    at = _app(side="0")
    at.number_input(key="beyond.patch").set_value(8).run()       # 512 / 8 = 64, 64^2 = 4096 patches
    _section_ok(at)
    assert any("64 x 64 = 4096 patches" in e and "limit is 1024" in e for e in _errors(at))
    _ok(whole_page(at))


def test_upload_a_small_png_then_a_patch_too_large():
    at = _app(picture="upload your own", side="0")
    _ok(at)
    assert "Upload a PNG or JPEG" in [i.value for i in at.info][0]
    pixels = np.random.default_rng(0).integers(0, 256, (40, 60, 3), dtype=np.uint8)
    at.file_uploader(key="beyond.image_file").set_value(("mine.png", png_bytes(pixels), "image/png"))
    at.number_input(key="beyond.patch").set_value(20).run()
    _section_ok(at)
    assert "40 x 60 pixels, p = 20: a grid of 2 x 3 = 6 tokens" in _text(at)
    _ok(whole_page(at))
    at.number_input(key="beyond.patch").set_value(48).run()
    assert any("A 48 x 48 patch is larger than the 40 x 60 image" in e for e in _errors(at))


@pytest.mark.parametrize("name, data, words", [
    ("notes.png", b"these are words, not pixels", "not a PNG or JPEG"),
    ("huge.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 8_000_100, "limit is 8 MB"),
], ids=["text", "huge"])
def test_bad_image_uploads_are_sentences(name, data, words):
    at = _app(picture="upload your own")
    at.file_uploader(key="beyond.image_file").set_value((name, data, "image/png")).run()
    _ok(at)
    assert any(words in e for e in _errors(at))


def test_decompression_bomb_upload_is_refused():
    import struct
    import zlib
    small = png_bytes(np.zeros((4, 4), dtype=np.uint8))
    ihdr = bytearray(small[16:29])
    ihdr[0:8] = struct.pack(">II", 50_000, 50_000)
    chunk = b"IHDR" + bytes(ihdr)
    bomb = small[:8] + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk)) + small[33:]
    at = _app(picture="upload your own")
    at.file_uploader(key="beyond.image_file").set_value(("bomb.png", bomb, "image/png")).run()
    _ok(at)
    assert any("decompression bomb" in e for e in _errors(at))


# ---- audio ------------------------------------------------------------------------------

def test_audio_defaults_show_the_twin():
    at = _app(kind="audio")
    _ok(at)
    text = _text(at)
    assert "T = 97 tokens of 257 frequency bins" in text
    assert "(t = 1.408 s, in C again)" in text
    weights = dict(zip(at.table[0].value["part"], at.table[0].value["total weight"].astype(float)))
    assert weights["C"] > weights["D"] + weights["E"]            # the repeated note attends to its twin


def test_audio_hop_change_changes_the_token_count():
    at = _app(kind="audio")
    at.select_slider(key="beyond.hop").set_value(512).run()
    _section_ok(at)
    assert "T = 25 tokens" in _text(at)            # 1 + (12800 - 512) // 512
    assert ":material/check_circle: Make the melody fewer than 40 tokens" in _text(at)
    _ok(whole_page(at))


@pytest.mark.parametrize("link", [{}, {"kind": "audio"}], ids=["image-then-audio", "audio-link"])
def test_a_new_token_count_keeps_the_query_frame(link):
    """A frame length that changes T redraws the query-frame slider as a new widget (its bounds are part of its
    identity). It must keep frame 86: opened on the image, it took the link's -1 ("the page picks one") and raised
    StreamlitValueBelowMinError; opened on audio, it fell back to 0 while the chart showed frame 86."""
    at = _app(**link)
    if not link:
        at.radio(key="beyond.kind").set_value("audio").run()
    assert "Frame 86 (t = 1.408 s, in C again)" in _text(at)
    at.select_slider(key="beyond.frame").set_value(256).run()      # reruns only the audio section
    _section_ok(at)
    assert "T = 99 tokens" in _text(at) and at.slider(key="beyond.qframe").value == 86
    assert "Frame 86 (t = 1.392 s, in C again)" in _text(at)
    _ok(whole_page(at))
    assert at.slider(key="beyond.qframe").value == 86 and at.query_params["qframe"] == "86"


@pytest.mark.parametrize("data, words", [
    (wav_bytes((np.arange(16000) % 50 * 300).astype("<i2").tobytes(), channels=2), "2 channels (stereo)"),
    (wav_bytes(np.zeros(8000, "<i2").tobytes()), "The recording is silent"),
    (wav_bytes(bytes([128, 160]) * (8000 * 300), width=1), "lasts 600 s (10.0 minutes)"),
    (b"not a wav at all", "not a WAV recording"),
], ids=["stereo", "silent", "ten-minutes", "not-wav"])
def test_bad_wav_uploads_are_sentences(data, words):
    at = _app(kind="audio", signal="upload your own")
    at.file_uploader(key="beyond.wav_file").set_value(("sound.wav", data, "audio/wav")).run()
    _ok(at)
    assert any(words in e for e in _errors(at))


def test_good_wav_upload():
    tone = (np.sin(2 * np.pi * 440 * np.arange(8000) / 8000) * 10_000).astype("<i2").tobytes()
    at = _app(kind="audio", signal="upload your own")
    at.file_uploader(key="beyond.wav_file").set_value(("tone.wav", wav_bytes(tone), "audio/wav")).run()
    _ok(at)
    assert not _errors(at)
    assert "1.00 s at 8,000 samples/s" in _text(at)


# ---- protein ----------------------------------------------------------------------------

def test_protein_defaults_and_a_cysteine():
    at = _app(kind="protein")
    _ok(at)
    assert "L = 21 residues, each 23 numbers" in _text(at)
    assert "441 scores" in _text(at)
    assert ":material/radio_button_unchecked: Choose a cysteine (C)" in _text(at)     # G1 to start with
    at.selectbox(key="beyond.residue").set_value(5).run()          # C6
    assert ":material/check_circle: Choose a cysteine (C)" in _text(at)


def test_protein_preset_change():
    at = _app(kind="protein")
    at.selectbox(key="beyond.protein").set_value("Human insulin, B chain").run()
    _section_ok(at)
    assert "L = 30 residues" in _text(at)
    _ok(whole_page(at))


@pytest.mark.parametrize("text, words", [
    ("GIVEQXCT", "'X' at position 6 (an unknown residue) is not one of the 20 amino-acid letters"),
    ("GIVE QCC 7", "'7' at position 8 is not"),
    ("", "The sequence is empty"),
])
def test_bad_sequence_is_a_sentence(text, words):
    at = _app(kind="protein")
    at.text_area(key="beyond.sequence").set_value(text).run()
    _section_ok(at)
    assert any(words in e for e in _errors(at))
    _ok(whole_page(at))


def test_url_state_opens_the_exact_view():
    at = _app(kind="image", picture="camera", side="128", patch="32", qrow="1", qcol="2")
    _ok(at)
    assert "128 x 128 pixels, p = 32: a grid of 4 x 4 = 16 tokens, each 32 x 32 x 1 = 1,024 numbers" in _text(at)
    assert "Patch (1, 2) keeps" in _text(at)


@pytest.mark.parametrize("link, sentence", [({}, "Picture cut into 14 x 14 = 196 patches of 16 x 16 pixels; the query "
                                                 "patch 62 (row 4, column 6) is outlined"),
                                            ({"kind": "audio"}, "Spectrogram of 97 frames (time across, frequency up), "
                                                                "frame 86 at 1.408 s outlined")],
                         ids=["image", "audio"])
def test_the_picture_charts_download_and_print_like_every_chart(link, sentence):
    """The patch overlay and the spectrogram go through ui.charts.show: their own sentence (not "y against x"), a
    Data table of their numbers without the inlined picture, SVG, PNG and CSV downloads, and a place in the handout."""
    from engine.charts import export
    from engine.charts import handout as paper_handout
    from ui import handout
    from ui.page import FOLDED

    at = _app(**link)
    _ok(at)
    charts = [b for b in handout.description(at.session_state[handout.RECORD], "").blocks
              if isinstance(b, paper_handout.Chart)]
    picture, = [chart for chart in charts if chart.summary.startswith(sentence)]
    csv = export.csv_text(picture.spec)
    assert "data:image" not in csv and csv.splitlines()[0].split(",")[:2] == (
        ["patch", "row"] if not link else ["frame", "t0"])
    assert len(csv.splitlines()) == 1 + (196 if not link else 97 + 4)   # a row a patch or frame, each once (+ notes)
    assert any(sentence in html.proto.body for html in at.get("html"))
    for key in [key for key in at.session_state.keys() if key.startswith(FOLDED + "download.beyond.")]:
        at.session_state[key] = True
    at.run()
    _ok(at)
    labels = [button.proto.label for button in at.get("download_button")]
    assert labels.count("SVG") == 1 and labels.count("PNG") == 1 and labels.count("CSV") == 1   # the picture's box
    pdf = paper_handout.handout_pdf(handout.description(at.session_state[handout.RECORD], ""), "A4")
    assert sentence.split(";")[0] in " ".join(pdf_text(pdf).split())


def pdf_text(pdf: bytes) -> str:
    from tests.engine.charts.test_handout import pdf_text as text

    return text(pdf)


# --- languages (issue 41) ----------------------------------------------------------------------------------------

# What the pseudo language may leave readable here, marked elsewhere or not words to translate: the shell's own words
# (Try this, Hint:, Download, Show the code, Further reading, the end of the path), the further reading's paper
# titles and the formulas' function names (softmax, FFT, LN, onehot).
PSEUDO_ALLOWED = ("Try this", "Further reading", "Hint:", "Download", "Show the code", "That is the end of the path",
                  "](http", "$$")


@pytest.mark.parametrize("kind", ["image", "audio", "protein"])
@pytest.mark.parametrize("lang, title, settings", [("es", "Más allá de las palabras", "Ajustes"),
                                                   ("ar", "ما وراء الكلمات", "الإعدادات")])
def test_every_kind_runs_in_spanish_and_arabic(kind, lang, title, settings):
    at = _app(kind=kind, lang=lang)
    _ok(at)
    assert not _errors(at)
    assert at.title[0].value == title
    assert settings in [h.value for h in at.sidebar.header]
    assert "Cost:" not in _text(at) and "Attention never asks" not in _text(at)


def test_a_spanish_error_and_numbers_are_spanish():
    at = _app(kind="protein", lang="es", sequence="GIVEQCCTSICSLYQLENYCNB")
    _ok(at)
    assert any("no es una de las 20 letras de aminoácidos" in e for e in _errors(at))
    at = _app(kind="image", lang="es")
    assert "**Coste:**" in _text(at) and "0,154 MB" in _text(at)     # numbers in the Spanish way


@pytest.mark.parametrize("kind", ["image", "audio", "protein"])
def test_the_pseudo_language_leaves_only_the_allowed_english(kind):
    from engine import i18n
    from tests.i18n_probe import unmarked

    at = _app(kind=kind, lang=i18n.PSEUDO.code)
    _ok(at)
    left = [text for text in unmarked(at) if not any(allowed in text for allowed in PSEUDO_ALLOWED)]
    assert left == []
