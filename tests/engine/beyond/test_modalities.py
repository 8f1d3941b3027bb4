"""engine.beyond.modalities: images, audio and proteins as tokens; exact shapes, round trips, twins, bad input."""
from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import limits
from engine.attention.mechanism import attention
from engine.beyond.modalities import (
    AMINO_ACIDS, PROTEIN_PRESETS, SIGNALS, attention_cost, hann, image_to_patches, load_image, patch_costs,
    patches_to_image, read_wav, residue_features, resize_square, spectrogram_frames, synth_signal, token_attention,
    tokens_from_features
)
from tests.media import png_bytes, wav_bytes


# ---- images -----------------------------------------------------------------------------

def test_vit_shapes_224_at_16_give_196_tokens_of_768():
    image = np.zeros((224, 224, 3), dtype=np.uint8)
    patches = image_to_patches(image, 16)
    assert patches.x.shape == (196, 768)
    assert (patches.rows, patches.cols, patches.N, patches.channels) == (14, 14, 196, 3)


def test_bundled_pictures_are_read_only_pixels_and_an_unknown_name_is_a_sentence():
    from engine.beyond.modalities import BUNDLED_PICTURES, bundled_picture

    for name in BUNDLED_PICTURES:
        pixels = bundled_picture(name)
        assert pixels.dtype == np.uint8 and not pixels.flags.writeable
    with pytest.raises(ValueError, match="Unknown picture 'mona lisa'; choose one of astronaut"):
        bundled_picture("mona lisa")


def test_bundled_pictures_shapes():
    from skimage import data
    assert image_to_patches(data.astronaut(), 16).x.shape == (1024, 768)
    assert image_to_patches(data.camera(), 32).x.shape == (256, 1024)      # grey: one channel
    assert image_to_patches(resize_square(data.coffee(), 224), 32).x.shape == (49, 3072)


def test_patch_numbers_exact_reading_order():
    image = np.arange(16, dtype=np.uint8).reshape(4, 4)
    patches = image_to_patches(image, 2)
    expected = np.array([[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]]) / 255
    np.testing.assert_array_equal(patches.x, expected)


def test_colour_is_last_within_a_patch():
    image = np.arange(2 * 2 * 3, dtype=np.uint8).reshape(2, 2, 3)
    np.testing.assert_array_equal(image_to_patches(image, 2).x[0], np.arange(12) / 255)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 5), cols=st.integers(1, 5), patch=st.integers(2, 6), channels=st.sampled_from([1, 3]),
       seed=st.integers(0, 10_000))
def test_round_trip_patches_to_image(rows, cols, patch, channels, seed):
    image = np.random.default_rng(seed).random((rows * patch, cols * patch, channels))
    patches = image_to_patches(image, patch)
    np.testing.assert_array_equal(patches_to_image(patches.x, rows, cols, patch, channels), image)


def test_crop_rule_cuts_half_from_each_side_extra_at_bottom_right():
    image = np.random.default_rng(0).random((10, 13, 3))
    patches = image_to_patches(image, 4, fit="crop")
    assert patches.trimmed == (1, 1, 0, 1)
    assert (patches.rows, patches.cols) == (2, 3)
    np.testing.assert_array_equal(patches.image, image[1:9, 0:12])


def test_pad_rule_adds_black_half_on_each_side():
    image = np.random.default_rng(0).random((10, 13, 3)) * 0.5 + 0.5
    patches = image_to_patches(image, 4, fit="pad")
    assert patches.padded == (1, 1, 1, 2)
    assert (patches.rows, patches.cols) == (3, 4)
    np.testing.assert_array_equal(patches.image[1:11, 1:14], image)
    assert patches.image[0].max() == 0 and patches.image[:, -2:].max() == 0


@pytest.mark.parametrize("image, patch, fit, words", [
    (np.zeros((20, 20, 3)), 32, "crop", "larger than the 20 x 20 image"),
    (np.zeros((100, 100, 3)), 16, "exact", "does not divide"),
    (np.zeros((512, 512, 3)), 8, "crop", "limit is 1024 patches"),
    (np.zeros((64, 64, 3)), 1, "crop", "between 2 and 128"),
    (np.zeros((64, 64, 3)), 4.5, "crop", "whole number"),
    (np.zeros((64, 64, 2)), 8, "crop", "colour channels"),
    (np.zeros((64, 64, 3)) + 3.0, 8, "crop", "between 0 and 1"),
    (np.zeros((64, 64, 3)), 8, "stretch", "Unknown rule"),
])
def test_bad_image_input_is_a_sentence(image, patch, fit, words):
    with pytest.raises(ValueError, match=words):
        image_to_patches(image, patch, fit=fit)


def test_identical_patch_pair_attends_most_to_its_twin():
    rng = np.random.default_rng(3)
    image = rng.random((64, 64, 3))
    image[16:32, 48:64] = image[0:16, 0:16]          # patch 7 is a copy of patch 0
    patches = image_to_patches(image, 16)
    result = token_attention(tokens_from_features(patches.x, d=32, seed=1))
    for me, twin in ((0, 7), (7, 0)):
        others = result.weights[me].copy()
        others[me] = -1
        assert int(np.argmax(others)) == twin
        assert result.weights[me, twin] == pytest.approx(result.weights[me, me])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.sampled_from([None, 8, 64]))
def test_twin_property_holds_for_any_picture_and_projection(seed, d):
    rng = np.random.default_rng(seed)
    image = rng.random((32, 48, 1))
    a, b = rng.choice(6, size=2, replace=False)
    (ra, ca), (rb, cb) = divmod(int(a), 3), divmod(int(b), 3)
    image[rb * 16:(rb + 1) * 16, cb * 16:(cb + 1) * 16] = image[ra * 16:(ra + 1) * 16, ca * 16:(ca + 1) * 16]
    result = token_attention(tokens_from_features(image_to_patches(image, 16).x, d=d, seed=seed))
    others = result.weights[a].copy()
    others[a] = -1
    assert int(np.argmax(others)) == b


def test_token_attention_is_engine_attention_on_small_inputs():
    x = np.random.default_rng(5).normal(size=(6, 4))
    ours = token_attention(x)
    theirs = attention(x, x, x)
    for name in ("scores", "scaled", "weights", "context"):
        np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=1e-12, atol=1e-15)


def test_token_attention_peer_torch_sdpa():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(6).normal(size=(50, 16))
    t = torch.tensor(x)
    expected = torch.nn.functional.scaled_dot_product_attention(t[None], t[None], t[None])[0].numpy()
    np.testing.assert_allclose(token_attention(x).context, expected, rtol=1e-10, atol=1e-12)


def test_tokens_are_centred_projected_and_layer_normed():
    features = np.random.default_rng(2).random((30, 100))
    tokens = tokens_from_features(features, d=16, seed=4)
    assert tokens.W.shape == (100, 16) and tokens.x.shape == (30, 16)
    np.testing.assert_allclose(tokens.centred.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(tokens.x, axis=1), 4.0, rtol=1e-4)   # sqrt(d)
    np.testing.assert_array_equal(tokens.W, tokens_from_features(features, d=16, seed=4).W)
    assert not np.allclose(tokens.W, tokens_from_features(features, d=16, seed=5).W)
    assert tokens_from_features(features, d=None).x.shape == (30, 100)
    with pytest.raises(ValueError, match="projection width d"):
        tokens_from_features(features, d=1000)


def test_resize_square_centre_crop():
    from skimage import data
    out = resize_square(data.chelsea(), 224)      # 300 x 451 -> 224 x 337 -> centre 224 x 224
    assert out.shape == (224, 224, 3) and out.dtype == np.uint8
    assert resize_square(data.camera(), 96).shape == (96, 96)


# ---- uploads ----------------------------------------------------------------------------


def _png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header says width x height (the shape of a decompression bomb)."""
    small = png_bytes(np.zeros((4, 4), dtype=np.uint8))
    ihdr = bytearray(small[16:29])                 # IHDR data: width, height, depth, colour, ...
    ihdr[0:8] = struct.pack(">II", width, height)
    chunk = b"IHDR" + bytes(ihdr)
    return small[:8] + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk)) + small[33:]


def test_load_png_roundtrip_and_alpha_on_white():
    rgb = np.random.default_rng(0).integers(0, 256, (20, 30, 3), dtype=np.uint8)
    loaded = load_image(png_bytes(rgb))
    np.testing.assert_array_equal(loaded.pixels, rgb)
    assert (loaded.format, loaded.original_size, loaded.shrunk) == ("PNG", (30, 20), False)
    rgba = np.zeros((4, 4, 4), dtype=np.uint8)    # fully transparent black -> white
    assert load_image(png_bytes(rgba)).pixels.min() == 255


def test_large_picture_is_shrunk_to_the_side_limit():
    loaded = load_image(png_bytes(np.zeros((600, 2000, 3), dtype=np.uint8)))
    assert loaded.shrunk and loaded.pixels.shape == (307, 1024, 3)


def test_gif_is_refused_with_its_format():
    from PIL import Image
    buffer = io.BytesIO()
    Image.new("P", (8, 8)).save(buffer, format="GIF")
    with pytest.raises(ValueError, match="GIF image; upload a PNG or JPEG"):
        load_image(buffer.getvalue())


@pytest.mark.parametrize("data, words", [
    (b"", "empty"),
    (b"hello, this is text not a picture", "not a PNG or JPEG"),
    (b"\x89PNG\r\n\x1a\n" + b"\0" * (limits.MAX_IMAGE_UPLOAD_BYTES + 1), "limit is 8 MB"),
], ids=["empty", "text", "huge"])
def test_bad_upload_is_a_sentence(data, words):
    with pytest.raises(ValueError, match=words):
        load_image(data)


def test_decompression_bomb_refused_before_decoding():
    with pytest.raises(ValueError, match="decompression bomb"):
        load_image(_png_claiming(30_000, 30_000))


def _flat(fmt: str, mode: str, width: int, height: int) -> bytes:
    """A picture of one colour: a small file that unpacks to width x height pixels."""
    from PIL import Image
    buffer = io.BytesIO()
    Image.new(mode, (width, height), 0 if mode == "P" else (10, 20, 30)).save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize("mode", ["P", "RGB"])
def test_big_but_small_png_is_refused_by_pixel_count_before_decoding(mode, monkeypatch):
    """The issue's file: 6300 x 6300 flat pixels in a 170 kB PNG was decoded (3.9 s, +455 MB). Refused from the
    header alone: decoding it fails the test."""
    from PIL import ImageFile
    data = _flat("PNG", mode, 6300, 6300)
    assert len(data) < limits.MAX_IMAGE_UPLOAD_BYTES
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: pytest.fail("the image was decoded"))
    with pytest.raises(ValueError, match=r"6300 x 6300 = 39.7 million pixels; the limit for a PNG is 8.5 million"):
        load_image(data)


def test_the_pixel_limit_keeps_a_4k_screenshot_and_a_big_jpeg_photo():
    side = limits.MAX_IMAGE_SIDE
    assert load_image(_flat("PNG", "RGB", 3840, 2160)).pixels.shape == (side * 2160 // 3840, side, 3)
    photo = load_image(_flat("JPEG", "RGB", 7000, 5000))      # 35 M pixels, decoded at a quarter scale
    assert photo.original_size == (7000, 5000) and photo.shrunk
    assert photo.pixels.shape == (side * 5000 // 7000, side, 3)
    assert abs(photo.pixels.astype(int) - (10, 20, 30)).max() <= 3


@pytest.mark.parametrize("width, height, words", [
    (8_000_000, 1, "each side may be at most 16,384"),        # the 31 kB file: 2.6 s and +426 MB before
    (20_000, 300, "each side may be at most 16,384"),
    (4_200, 200, "more than 20 times the other"),
    (1, 300, "more than 20 times the other"),
], ids=["8000000x1", "20000x300", "21-to-1", "1x300"])
def test_a_long_thin_picture_is_refused_from_its_header(width, height, words, monkeypatch):
    """Bounded by each side and by their ratio, not only by the pixel count, before anything is decoded."""
    from PIL import ImageFile
    data = _png_claiming(width, height)
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: pytest.fail("the image was decoded"))
    with pytest.raises(ValueError, match=words):
        load_image(data)


def test_the_side_limits_keep_a_panorama():
    loaded = load_image(_flat("PNG", "RGB", 4000, 400))      # 10 to 1
    assert loaded.pixels.shape == (102, 1024, 3)


def test_a_picture_smaller_than_the_smallest_patch_never_advises_a_smaller_patch():
    """A 1-pixel-high picture advised 'a patch size of at most 1' where the smallest is 2."""
    with pytest.raises(ValueError, match="too small for even the smallest patch, 2 x 2") as refused:
        image_to_patches(np.zeros((1, 1, 3)), 2, fit="crop")
    assert "at most 1" not in str(refused.value)


def test_truncated_png_is_a_sentence():
    data = png_bytes(np.random.default_rng(1).integers(0, 256, (64, 64, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="damaged or cut short"):
        load_image(data[:len(data) // 2])


# ---- audio ------------------------------------------------------------------------------

def test_spectrogram_shapes_and_axes():
    signal = synth_signal("melody", 8000)
    spec = spectrogram_frames(signal.samples, 8000, frame=512, hop=128)
    assert len(signal.samples) == 12800
    assert spec.T == 1 + (12800 - 512) // 128 == 97
    assert spec.magnitude.shape == spec.db.shape == (97, 257) and spec.frames.shape == (97, 512)
    assert spec.freqs[1] == pytest.approx(8000 / 512) and spec.times[0] == pytest.approx(256 / 8000)
    assert spec.db.max() == 0.0 and spec.db.min() >= -80.0


def test_hann_is_periodic_hann_as_scipy():
    from scipy.signal import get_window
    np.testing.assert_allclose(hann(512), get_window("hann", 512), atol=1e-15)


def test_spectrogram_peer_scipy_stft():
    from scipy.signal import stft
    samples = synth_signal("chirp", 8000).samples
    spec = spectrogram_frames(samples, 8000, frame=256, hop=64)
    _, _, Z = stft(samples, fs=8000, window="hann", nperseg=256, noverlap=192, boundary=None, padded=False,
                   detrend=False)
    # scipy divides by the window's sum; we keep the raw |FFT|
    np.testing.assert_allclose(spec.magnitude, np.abs(Z).T * hann(256).sum(), rtol=1e-9, atol=1e-9)


def test_pure_tone_peaks_in_its_bin():
    rate, frame = 8000, 256
    bin_hz = rate / frame
    samples = np.sin(2 * np.pi * 20 * bin_hz * np.arange(4000) / rate)
    spec = spectrogram_frames(samples, rate, frame=frame, hop=128)
    assert set(np.argmax(spec.magnitude, axis=1)) == {20}


def test_repeated_note_attends_to_its_twin():
    signal = synth_signal("melody", 8000)
    spec = spectrogram_frames(signal.samples, 8000, frame=512, hop=128)
    result = token_attention(tokens_from_features(spec.db, d=64, seed=0))
    (_, c0, c1), (_, _, _), (_, _, _), (_, again0, again1) = signal.segments
    first_c = np.flatnonzero((spec.times - 0.032 > c0) & (spec.times + 0.032 < c1))
    for frame in first_c:
        others = result.weights[frame].copy()
        others[np.flatnonzero(spec.times < c1 + 0.032)] = -1     # leave out the note itself
        best = int(np.argmax(others))
        assert again0 <= spec.times[best] <= again1


@pytest.mark.parametrize("kind", list(SIGNALS))
def test_every_signal_builds_frames(kind):
    signal = synth_signal(kind, 8000)
    assert np.abs(signal.samples).max() <= 1.0
    spec = spectrogram_frames(signal.samples, signal.sample_rate)
    assert spec.T > 10


def test_read_wav_16_bit_round_trip():
    values = (np.sin(np.arange(8000) / 10) * 20000).astype("<i2")
    signal = read_wav(wav_bytes(values.tobytes()))
    assert signal.sample_rate == 8000 and signal.seconds == 1.0
    np.testing.assert_allclose(signal.samples, values / 32768)


def test_read_wav_8_and_24_bit():
    eight = read_wav(wav_bytes(bytes([128, 255, 0, 192]), width=1))
    np.testing.assert_allclose(eight.samples, [0, 127 / 128, -1, 0.5])
    values = [0, 2 ** 23 - 1, -(2 ** 23), -1]
    raw = b"".join((v % 2 ** 24).to_bytes(3, "little") for v in values)
    np.testing.assert_allclose(read_wav(wav_bytes(raw, width=3)).samples, np.array(values) / 2 ** 23)


def test_ten_minute_wav_is_refused_by_its_header():
    data = wav_bytes(bytes([128, 200]) * (8000 * 300), rate=8000, width=1)     # 600 s of 8-bit audio
    with pytest.raises(ValueError, match=r"lasts 600 s \(10.0 minutes\); the limit is 30 s"):
        read_wav(data)


@pytest.mark.parametrize("data, words", [
    (wav_bytes(np.zeros(16000, "<i2").tobytes()), "silent \\(every sample is zero\\)"),
    (wav_bytes(np.ones(16000, "<i2").tobytes()), "silent \\(its loudest sample is -90 dB"),
    (wav_bytes((np.arange(16000) % 100 * 100).astype("<i2").tobytes(), channels=2), "2 channels \\(stereo\\)"),
    (wav_bytes(np.arange(1000, dtype="<i2").tobytes(), rate=96000), "between 4,000 and 48,000 Hz"),
    (b"RIFF....WAVEfmt not really", "not a WAV recording"),
    (b"", "empty"),
], ids=["zeros", "quiet", "stereo", "rate", "not-wav", "empty"])
def test_bad_wav_is_a_sentence(data, words):
    with pytest.raises(ValueError, match=words):
        read_wav(data)


@pytest.mark.parametrize("samples, rate, frame, hop, words", [
    (np.zeros(8000), 8000, 256, 64, "silent"),
    (np.ones(100), 8000, 256, 64, "fewer than one frame"),
    (np.ones(8000), 8000, 32, 16, "frame length must be between 64"),
    (np.ones(8000), 8000, 256, 300, "hop must be between 16"),
    (np.ones((2, 8000)), 8000, 256, 64, "mono"),
    (np.sin(np.arange(8000 * 20)), 8000, 256, 64, "limit is 1024 frames"),
    (np.ones(8000 * 40), 8000, 256, 256, "limit is 30 s"),
])
def test_bad_spectrogram_input(samples, rate, frame, hop, words):
    with pytest.raises(ValueError, match=words):
        spectrogram_frames(samples, rate, frame, hop)


# ---- proteins ---------------------------------------------------------------------------

def test_insulin_a_chain_features():
    residues = residue_features(PROTEIN_PRESETS["Human insulin, A chain"])
    assert residues.features.shape == (21, 23)
    np.testing.assert_array_equal(residues.one_hot.sum(axis=1), 1)
    assert residues.labels[:3] == ["G1", "I2", "V3"]
    assert residues.one_hot[0, AMINO_ACIDS.index("G")] == 1
    np.testing.assert_allclose(residues.properties[1], [4.5 / 4.5, 0.0, 166.7 / 227.8])   # isoleucine
    np.testing.assert_allclose(residues.properties[3], [-3.5 / 4.5, -1.0, 138.4 / 227.8])  # glutamate


def test_fasta_header_spaces_and_lower_case_accepted():
    residues = residue_features(">sp|P01308 insulin\ngivEQ cct\nsic\n")
    assert residues.sequence == "GIVEQCCTSIC"


def test_identical_residues_attend_to_each_other():
    residues = residue_features(PROTEIN_PRESETS["Human insulin, B chain"])
    result = token_attention(tokens_from_features(residues.features, d=None))
    w = result.weights[0].copy()                     # F1; F24 and F25 are also phenylalanine
    w[0] = -1
    assert residues.sequence[int(np.argmax(w))] == "F"


@pytest.mark.parametrize("text, words", [
    ("GIVEQXCT", "'X' at position 6 \\(an unknown residue\\) is not one of the 20"),
    ("GIVB", "'B' at position 4 \\(D or N"),
    ("GIV3EQ", "'3' at position 4 is not"),
    ("  \n>only a header\n", "empty"),
    ("A" * (limits.MAX_RESIDUES + 1), "limit is 256"),
    ("A" * (limits.MAX_SEQUENCE_TEXT_CHARS + 1), "characters"),
])
def test_bad_sequence_is_a_sentence(text, words):
    with pytest.raises(ValueError, match=words):
        residue_features(text)


# ---- cost -------------------------------------------------------------------------------

def test_cost_line_numbers():
    cost = attention_cost(196, 64)
    assert (cost.scores, cost.multiply_adds) == (38_416, 2 * 38_416 * 64)
    assert attention_cost(1024, 64).megabytes == pytest.approx(4.194304)
    assert patch_costs(224, 224, [8, 16, 32, 300]) == [(8, 784, 614_656), (16, 196, 38_416), (32, 49, 2_401)]
    assert patch_costs(100, 100, [16], fit="pad") == [(16, 49, 2401)]
    assert patch_costs(100, 100, [16], fit="exact") == []
