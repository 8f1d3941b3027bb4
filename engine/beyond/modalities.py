"""Beyond words: images, audio and proteins turned into token vectors that attention can compare.

The chapter: "Nothing in the attention mechanism is specific to words. It needs a set of
vectors and a reason to compare them."
    image   -> patches:  (H, W, C) cut into N = (H/p)(W/p) squares, each flattened to p*p*C numbers
    audio   -> frames:   |FFT(hann * signal[t*hop : t*hop + frame])|, one row of frequency bins per frame
    protein -> residues: one-hot of the amino acid plus hydrophobicity, charge and size
Each gives a (T, D) matrix of features; `tokens_from_features` turns it into x (centre, a
fixed seeded projection to d numbers, LayerNorm) and `token_attention` runs
softmax(x x^T / sqrt(d)) x on it, returning the same `AttentionResult` as `engine.attention.mechanism`.
"""
from __future__ import annotations

import io
import warnings
import wave
from dataclasses import dataclass, field

import numpy as np

from engine import limits
from engine.i18n import N_, _, ngettext
from engine.numbers import fixed, grouped
from engine.attention.mechanism import AttentionResult, attention, check_matrix

# ==== images -> patches ====================================================================

FITS = ("exact", "crop", "pad")
"""What to do when the patch size does not divide the image:
exact: refuse with a sentence;  crop: cut the leftover rows and columns away, half from each
side (the extra one from the bottom or right);  pad: add black rows and columns, half on each
side, until whole patches fit."""


@dataclass(frozen=True)
class ImagePatches:
    """An image cut into square patches: x has one row per patch, N = rows * cols."""
    image: np.ndarray        # (rows*p, cols*p, C) floats in [0, 1]: the picture actually cut
    x: np.ndarray            # (N, p*p*C) one token per patch, patches in reading order
    patch: int               # p, the side of one patch in pixels
    rows: int                # patches down
    cols: int                # patches across
    fit: str                 # "exact", "crop" or "pad"
    original_shape: tuple    # (H, W) before cropping or padding
    trimmed: tuple = (0, 0, 0, 0)  # (top, bottom, left, right) pixels cut away by "crop"
    padded: tuple = (0, 0, 0, 0)   # (top, bottom, left, right) black pixels added by "pad"

    @property
    def N(self) -> int:
        return self.rows * self.cols

    @property
    def channels(self) -> int:
        return self.image.shape[2]


def as_float_image(image) -> np.ndarray:
    """(H, W) or (H, W, C) pixels -> (H, W, C) floats in [0, 1]; uint8 is divided by 255."""
    array = np.asarray(image)
    if array.ndim not in (2, 3):
        raise ValueError(ngettext("An image must be a grid of pixels (height x width, optionally x colours); "
                                  "this array has {n} dimension.",
                                  "An image must be a grid of pixels (height x width, optionally x colours); "
                                  "this array has {n} dimensions.", array.ndim))
    if array.ndim == 2:
        array = array[:, :, None]
    if array.shape[2] not in (1, 3, 4):
        raise ValueError(_("An image has 1 (grey), 3 (RGB) or 4 (RGBA) colour channels; this one has {n}.",
                           n=array.shape[2]))
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(_("The image is empty: it has no pixels."))
    if array.dtype == np.uint8:
        return array.astype(float) / 255.0
    if array.dtype == bool:
        return array.astype(float)
    try:
        array = array.astype(float)
    except (TypeError, ValueError):
        raise ValueError(_("An image must contain numbers (pixel brightnesses).")) from None
    if not np.all(np.isfinite(array)) or array.min() < 0 or array.max() > 1:
        raise ValueError(_("Pixel values of a float image must lie between 0 and 1 (or give uint8 pixels 0-255)."))
    return array


def image_to_patches(image, patch: int, fit: str = "exact") -> ImagePatches:
    """Cut (H, W, C) into N = (H/p)(W/p) patches of p*p*C numbers: 224 x 224 x 3 at p = 16 -> 196 x 768.

    Patches are numbered in reading order (row by row); each is flattened row by row, colour
    last, the order of ViT's `(h p1) (w p2) c -> (h w) (p1 p2 c)`. See FITS for `fit`.
    """
    pixels = as_float_image(image)
    H, W, C = pixels.shape
    if not isinstance(patch, (int, np.integer)) or isinstance(patch, bool):
        raise ValueError(_("The patch size must be a whole number of pixels."))
    if patch < limits.MIN_PATCH_SIZE or patch > limits.MAX_PATCH_SIZE:
        raise ValueError(_("The patch size must be between {least} and {most} pixels; got {patch}.",
                           least=limits.MIN_PATCH_SIZE, most=limits.MAX_PATCH_SIZE, patch=patch))
    if min(H, W) < limits.MIN_PATCH_SIZE:
        raise ValueError(_("The image is {H} x {W} pixels: too small for even the smallest patch, {least} x {least}. "
                           "Use a larger picture.", H=H, W=W, least=limits.MIN_PATCH_SIZE))
    if patch > H or patch > W:
        raise ValueError(_("A {patch} x {patch} patch is larger than the {H} x {W} image: not even one patch fits. "
                           "Choose a patch size of at most {most}.", patch=patch, H=H, W=W, most=min(H, W)))
    if fit not in FITS:
        raise ValueError(_("Unknown rule {rule} for edges; choose one of {rules}.", rule=repr(fit),
                           rules=", ".join(FITS)))
    trimmed = padded = (0, 0, 0, 0)
    if H % patch or W % patch:
        if fit == "exact":
            raise ValueError(_("A patch size of {patch} does not divide the {H} x {W} image ({H} / {patch} = "
                               "{rows}, {W} / {patch} = {cols}). Choose a size that divides both sides, or crop or "
                               "pad the edges.", patch=patch, H=H, W=W, rows=fixed(H / patch, 2),
                               cols=fixed(W / patch, 2)))
        if fit == "crop":
            extra_h, extra_w = H % patch, W % patch
            trimmed = (extra_h // 2, extra_h - extra_h // 2, extra_w // 2, extra_w - extra_w // 2)
            pixels = pixels[trimmed[0]:H - trimmed[1], trimmed[2]:W - trimmed[3]]
        else:
            add_h, add_w = (-H) % patch, (-W) % patch
            padded = (add_h // 2, add_h - add_h // 2, add_w // 2, add_w - add_w // 2)
            pixels = np.pad(pixels, ((padded[0], padded[1]), (padded[2], padded[3]), (0, 0)))
    rows, cols = pixels.shape[0] // patch, pixels.shape[1] // patch
    if rows * cols > limits.MAX_PATCH_TOKENS:
        raise ValueError(_("{rows} x {cols} = {N} patches would need {scores} attention scores; the limit is {most} "
                           "patches ({most_scores} scores). Choose a larger patch or a smaller image.", rows=rows,
                           cols=cols, N=rows * cols, scores=grouped((rows * cols) ** 2), most=limits.MAX_PATCH_TOKENS,
                           most_scores=grouped(limits.MAX_PATCH_TOKENS ** 2)))
    if patch * patch * C > limits.MAX_TOKEN_FEATURES:
        raise ValueError(_("One patch would have {n} numbers; the limit is {most}.", n=grouped(patch * patch * C),
                           most=grouped(limits.MAX_TOKEN_FEATURES)))
    x = (pixels.reshape(rows, patch, cols, patch, C)   # (rows, p, cols, p, C)
         .transpose(0, 2, 1, 3, 4)                     # (rows, cols, p, p, C)
         .reshape(rows * cols, patch * patch * C))     # (N, p*p*C)
    return ImagePatches(image=pixels, x=x, patch=int(patch), rows=rows, cols=cols, fit=fit,
                        original_shape=(H, W), trimmed=trimmed, padded=padded)


def patches_to_image(x, rows: int, cols: int, patch: int, channels: int = 3) -> np.ndarray:
    """The inverse of `image_to_patches`: (N, p*p*C) back to (rows*p, cols*p, C)."""
    x = np.asarray(x, dtype=float)
    if x.shape != (rows * cols, patch * patch * channels):
        raise ValueError(_("Expected {n} patches of {size} numbers; got an array of shape {shape}.",
                           n=grouped(rows * cols), size=grouped(patch * patch * channels), shape=x.shape))
    return (x.reshape(rows, cols, patch, patch, channels)
            .transpose(0, 2, 1, 3, 4)
            .reshape(rows * patch, cols * patch, channels))


def patch_grid_position(index: int, cols: int) -> tuple[int, int]:
    """Patch number n (reading order) -> (row, column)."""
    return divmod(int(index), int(cols))


@dataclass(frozen=True)
class LoadedImage:
    pixels: np.ndarray       # (H, W, 3) uint8, or (H, W) for a grey picture
    format: str              # "PNG" or "JPEG"
    original_size: tuple     # (width, height) in the file
    shrunk: bool             # True when the longer side was reduced to MAX_IMAGE_SIDE


BUNDLED_PICTURES = ("astronaut", "coffee", "chelsea", "camera", "rocket")


def bundled_picture(name: str) -> np.ndarray:
    """One of scikit-image's pictures shipped inside its wheel (uint8 pixels, read-only): no file, no download."""
    if name not in BUNDLED_PICTURES:
        raise ValueError(_("Unknown picture {name}; choose one of {names}.", name=repr(name),
                           names=", ".join(BUNDLED_PICTURES)))
    from skimage import data

    pixels = getattr(data, name)()
    pixels.setflags(write=False)
    return pixels


def load_image(data: bytes) -> LoadedImage:
    """Decode an uploaded PNG or JPEG safely: file size and pixel count checked before decoding."""
    from PIL import Image, UnidentifiedImageError

    if len(data) == 0:
        raise ValueError(_("The file is empty."))
    if len(data) > limits.MAX_IMAGE_UPLOAD_BYTES:
        raise ValueError(_("The file is {size} MB; the limit is {most} MB. Save a smaller copy of the picture.",
                           size=fixed(len(data) / 1e6, 1), most=f"{limits.MAX_IMAGE_UPLOAD_BYTES / 1e6:.0f}"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            picture = Image.open(io.BytesIO(data))   # reads the header only
            width, height = picture.size
            if picture.format not in ("PNG", "JPEG"):
                raise ValueError(_("This is a {format} image; upload a PNG or JPEG.", format=picture.format))
            most = limits.MAX_JPEG_PIXELS if picture.format == "JPEG" else limits.MAX_IMAGE_PIXELS
            if max(width, height) > limits.MAX_IMAGE_FILE_SIDE:
                raise ValueError(_("The image claims {width} x {height} pixels; each side may be at most {most} "
                                   "pixels. Save a smaller copy.", width=width, height=height,
                                   most=grouped(limits.MAX_IMAGE_FILE_SIDE)))
            if min(width, height) < 1 or max(width, height) > limits.MAX_IMAGE_ASPECT * min(width, height):
                raise ValueError(_("The image is {width} x {height} pixels: one side is more than {most} times the "
                                   "other, too thin to cut into square patches. Crop it to a less elongated shape.",
                                   width=width, height=height, most=limits.MAX_IMAGE_ASPECT))
            if width * height > most:
                raise ValueError(_("The image claims {width} x {height} = {millions} million pixels; the limit for a "
                                   "{format} is {most} million. Save a smaller copy (a small file that unpacks to that "
                                   "many pixels, a 'decompression bomb', is refused before it is opened).",
                                   width=width, height=height, millions=fixed(width * height / 1e6, 1),
                                   format=picture.format, most=fixed(most / 1e6, 1)))
            if picture.format == "JPEG":   # decode at 1/2, 1/4 or 1/8 scale when that still covers the kept side
                picture.draft("RGB", (limits.MAX_IMAGE_SIDE, limits.MAX_IMAGE_SIDE))
            picture.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ValueError(_("The image unpacks to far more pixels than its file size suggests (a 'decompression "
                           "bomb'); it was not opened.")) from None
    except UnidentifiedImageError:
        raise ValueError(_("This file is not a PNG or JPEG image that can be read.")) from None
    except (OSError, SyntaxError, EOFError):
        raise ValueError(_("The image file is damaged or cut short; it could not be decoded.")) from None
    fmt = picture.format
    transparent = picture.mode in ("RGBA", "LA", "P", "PA")
    picture = picture.convert("RGBA" if transparent else "L" if picture.mode in ("L", "I", "I;16", "F", "1")
                              else "RGB")
    shrunk = max(width, height) > limits.MAX_IMAGE_SIDE
    if shrunk:   # before anything else at full size: one full-size copy at most
        picture.thumbnail((limits.MAX_IMAGE_SIDE, limits.MAX_IMAGE_SIDE), Image.Resampling.LANCZOS)
    if transparent:   # transparent parts shown on white
        white = Image.new("RGBA", picture.size, (255, 255, 255, 255))
        picture = Image.alpha_composite(white, picture).convert("RGB")
    return LoadedImage(pixels=np.asarray(picture), format=fmt, original_size=(width, height), shrunk=shrunk)


def resize_square(image, side: int) -> np.ndarray:
    """Resize so the shorter side is `side`, then cut the centre square: the usual ViT preprocessing."""
    from PIL import Image

    pixels = np.asarray(image)
    if pixels.dtype != np.uint8:
        pixels = np.round(as_float_image(pixels) * 255).astype(np.uint8)
    if pixels.ndim == 3 and pixels.shape[2] == 1:
        pixels = pixels[:, :, 0]
    if not isinstance(side, (int, np.integer)) or side < limits.MIN_PATCH_SIZE or side > limits.MAX_IMAGE_SIDE:
        raise ValueError(_("The square side must be a whole number between {least} and {most} pixels; got {side}.",
                           least=limits.MIN_PATCH_SIZE, most=grouped(limits.MAX_IMAGE_SIDE), side=side))
    picture = Image.fromarray(pixels)
    width, height = picture.size
    scale = side / min(width, height)
    new_w, new_h = max(side, round(width * scale)), max(side, round(height * scale))
    picture = picture.resize((new_w, new_h), Image.Resampling.BICUBIC)
    left, top = (new_w - side) // 2, (new_h - side) // 2
    return np.asarray(picture.crop((left, top, left + side, top + side)))


# ==== audio -> spectrogram frames =========================================================

@dataclass(frozen=True)
class Signal:
    """A mono signal in [-1, 1] and what is heard when (for labels)."""
    samples: np.ndarray      # (n,) floats
    sample_rate: int         # samples per second
    name: str
    segments: tuple = ()     # ((label, start s, end s), ...)

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.sample_rate


NOTE_HZ = {"C5": 523.25, "D5": 587.33, "E5": 659.26}
SIGNALS = {
    "melody": N_("Frère Jacques' first four notes, C D E C: the last note repeats the first"),
    "tones": N_("three pure tones, 440, 660 and 880 Hz, one after another"),
    "chirp": N_("a chirp: one tone sliding from 200 Hz up to 3000 Hz"),
}


def _note(frequency: float, seconds: float, sample_rate: int, harmonics=(1.0, 0.5, 0.25)) -> np.ndarray:
    """A tone with a few harmonics and a 10 ms fade in / 40 ms fade out (no clicks)."""
    t = np.arange(int(round(seconds * sample_rate))) / sample_rate
    tone = sum(a * np.sin(2 * np.pi * (k + 1) * frequency * t) for k, a in enumerate(harmonics))
    envelope = np.minimum(1.0, np.minimum(t / 0.010, (seconds - t) / 0.040))
    return tone * np.clip(envelope, 0.0, 1.0) / sum(harmonics)


def synth_signal(kind: str = "melody", sample_rate: int = 8_000) -> Signal:
    """One of SIGNALS, made with numpy (no files): melody, tones or chirp."""
    if kind not in SIGNALS:
        raise ValueError(_("Unknown signal {kind}; choose one of {kinds}.", kind=repr(kind), kinds=", ".join(SIGNALS)))
    _check_rate(sample_rate)
    if kind == "chirp":
        seconds, f0, f1 = 1.5, 200.0, 3000.0
        if f1 >= sample_rate / 2:
            raise ValueError(_("A chirp up to {top} Hz needs a sample rate above {rate} Hz.", top=grouped(f1),
                               rate=grouped(2 * f1)))
        t = np.arange(int(seconds * sample_rate)) / sample_rate
        samples = 0.8 * np.sin(2 * np.pi * (f0 * t + (f1 - f0) * t ** 2 / (2 * seconds)))
        return Signal(samples, sample_rate, kind, (("200 -> 3000 Hz", 0.0, seconds),))
    if kind == "tones":
        notes, seconds, harmonics = [("440 Hz", 440.0), ("660 Hz", 660.0), ("880 Hz", 880.0)], 0.5, (1.0,)
    else:
        notes = [("C", NOTE_HZ["C5"]), ("D", NOTE_HZ["D5"]), ("E", NOTE_HZ["E5"]), ("C again", NOTE_HZ["C5"])]
        seconds, harmonics = 0.4, (1.0, 0.5, 0.25)
    parts = [0.8 * _note(f, seconds, sample_rate, harmonics) for _label, f in notes]
    segments = tuple((label, i * seconds, (i + 1) * seconds) for i, (label, _f) in enumerate(notes))
    return Signal(np.concatenate(parts), sample_rate, kind, segments)


def _check_rate(sample_rate) -> None:
    if not isinstance(sample_rate, (int, np.integer)) or not (limits.MIN_SAMPLE_RATE <= sample_rate
                                                             <= limits.MAX_SAMPLE_RATE):
        raise ValueError(_("The sample rate must be a whole number of samples per second between {least} and {most}; "
                           "got {rate}.", least=grouped(limits.MIN_SAMPLE_RATE), most=grouped(limits.MAX_SAMPLE_RATE),
                           rate=sample_rate))


def read_wav(data: bytes, name: str = "upload") -> Signal:
    """A small mono PCM WAV (stdlib `wave`) -> samples in [-1, 1]; the header is checked before the samples."""
    if len(data) == 0:
        raise ValueError(_("The file is empty."))
    try:
        with wave.open(io.BytesIO(data), "rb") as reader:
            channels, width = reader.getnchannels(), reader.getsampwidth()
            rate, count = reader.getframerate(), reader.getnframes()
            seconds = count / rate if rate else 0.0
            if channels != 1:
                raise ValueError(
                    _("This WAV has 2 channels (stereo); upload a mono recording (one channel): most audio editors "
                      "can export as mono.") if channels == 2 else
                    _("This WAV has {n} channels (multichannel); upload a mono recording (one channel): most audio "
                      "editors can export as mono.", n=channels))
            if rate < limits.MIN_SAMPLE_RATE or rate > limits.MAX_SAMPLE_RATE:
                raise ValueError(_("The WAV's sample rate is {rate} Hz; it must be between {least} and {most} Hz.",
                                   rate=grouped(rate), least=grouped(limits.MIN_SAMPLE_RATE),
                                   most=grouped(limits.MAX_SAMPLE_RATE)))
            if seconds > limits.MAX_AUDIO_SECONDS:
                shown = dict(seconds=f"{seconds:.0f}", most=f"{limits.MAX_AUDIO_SECONDS:.0f}")
                raise ValueError(
                    _("The recording lasts {seconds} s ({minutes} minutes); the limit is {most} s. Cut a short "
                      "excerpt.", minutes=fixed(seconds / 60, 1), **shown) if seconds >= 60 else
                    _("The recording lasts {seconds} s; the limit is {most} s. Cut a short excerpt.", **shown))
            if len(data) > limits.MAX_WAV_BYTES:
                raise ValueError(_("The file is {size} MB; the limit is {most} MB.", size=fixed(len(data) / 1e6, 1),
                                   most=f"{limits.MAX_WAV_BYTES / 1e6:.0f}"))
            raw = reader.readframes(count)
    except (wave.Error, EOFError):
        raise ValueError(_("This file is not a WAV recording that can be read (it must be uncompressed PCM, 8, 16, "
                           "24 or 32 bits).")) from None
    if width == 1:
        samples = (np.frombuffer(raw, dtype=np.uint8).astype(float) - 128.0) / 128.0
    elif width == 2:
        samples = np.frombuffer(raw, dtype="<i2").astype(float) / 2 ** 15
    elif width == 3:
        b = np.frombuffer(raw[:len(raw) - len(raw) % 3], dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        values = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        samples = np.where(values >= 2 ** 23, values - 2 ** 24, values).astype(float) / 2 ** 23
    elif width == 4:
        samples = np.frombuffer(raw, dtype="<i4").astype(float) / 2 ** 31
    else:
        raise ValueError(_("Samples of {width} bytes are not supported; use 8, 16, 24 or 32-bit PCM.", width=width))
    if samples.size == 0:
        raise ValueError(_("The WAV holds no samples."))
    _check_not_silent(samples)
    return Signal(samples, rate, name, ((name, 0.0, samples.size / rate),))


def _check_not_silent(samples: np.ndarray) -> None:
    peak = float(np.max(np.abs(samples)))
    if peak < limits.SILENCE_PEAK:
        if peak == 0:
            raise ValueError(_("The recording is silent (every sample is zero): every frame would look the same, so "
                               "there is nothing for attention to tell apart."))
        raise ValueError(_("The recording is silent (its loudest sample is {db} dB below full scale): every frame "
                           "would look the same, so there is nothing for attention to tell apart.",
                           db=f"{20 * np.log10(peak):.0f}"))


def hann(frame: int) -> np.ndarray:
    """The periodic Hann window w[n] = 0.5 - 0.5 cos(2 pi n / N), n = 0 .. N-1."""
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(frame) / frame)


@dataclass(frozen=True)
class Spectrogram:
    """|X_t(f)| = |sum_n w[n] s[t*hop + n] e^{-2 pi i f n / N}|: one row (token) per frame t."""
    signal: np.ndarray       # (n,) the samples
    sample_rate: int
    frame: int               # N, samples per frame
    hop: int                 # samples between frame starts
    window: np.ndarray       # (N,) Hann
    frames: np.ndarray       # (T, N) windowed samples
    magnitude: np.ndarray    # (T, N/2 + 1) |rfft|
    db: np.ndarray           # (T, N/2 + 1) 20 log10(magnitude / loudest), floored at -DB_RANGE
    times: np.ndarray        # (T,) centre of each frame, seconds
    freqs: np.ndarray        # (N/2 + 1,) Hz of each bin

    @property
    def T(self) -> int:
        return self.magnitude.shape[0]


DB_RANGE = 80.0  # decibels kept below the loudest bin; quieter is shown as -80 dB


def spectrogram_frames(signal, sample_rate: int, frame: int = 512, hop: int = 128) -> Spectrogram:
    """Frames t = 0 .. T-1 with T = 1 + (n - N) // hop; row t = |rfft(hann * s[t*hop : t*hop + N])|."""
    _check_rate(sample_rate)
    samples = np.asarray(signal, dtype=float)
    if samples.ndim != 1:
        raise ValueError(_("The signal must be one row of samples (mono); it has shape {shape}.", shape=samples.shape))
    if not np.all(np.isfinite(samples)):
        raise ValueError(_("The signal contains a non-finite sample (nan or infinity)."))
    if not isinstance(frame, (int, np.integer)) or not limits.MIN_FRAME <= frame <= limits.MAX_FRAME:
        raise ValueError(_("The frame length must be between {least} and {most} samples; got {frame}.",
                           least=grouped(limits.MIN_FRAME), most=grouped(limits.MAX_FRAME), frame=frame))
    if not isinstance(hop, (int, np.integer)) or not limits.MIN_HOP <= hop <= frame:
        raise ValueError(_("The hop must be between {least} samples and the frame length ({frame}); got {hop}.",
                           least=grouped(limits.MIN_HOP), frame=frame, hop=hop))
    if samples.size / sample_rate > limits.MAX_AUDIO_SECONDS:
        raise ValueError(_("The signal lasts {seconds} s; the limit is {most} s.",
                           seconds=fixed(samples.size / sample_rate, 1), most=fixed(limits.MAX_AUDIO_SECONDS, 0)))
    if samples.size < frame:
        raise ValueError(_("The signal has {n} samples, fewer than one frame of {frame}; choose a shorter frame.",
                           n=samples.size, frame=frame))
    _check_not_silent(samples)
    T = 1 + (samples.size - frame) // hop
    if T > limits.MAX_AUDIO_FRAMES:
        raise ValueError(_("{T} frames would need {scores} attention scores; the limit is {most} frames. Choose a "
                           "longer hop or a shorter recording.", T=T, scores=grouped(T * T),
                           most=limits.MAX_AUDIO_FRAMES))
    window = hann(frame)
    starts = hop * np.arange(T)
    frames = samples[starts[:, None] + np.arange(frame)[None, :]] * window   # (T, N)
    magnitude = np.abs(np.fft.rfft(frames, axis=1))                          # (T, N/2 + 1)
    loudest = magnitude.max()
    db = 20 * np.log10(np.maximum(magnitude / loudest, 10 ** (-DB_RANGE / 20)))
    return Spectrogram(signal=samples, sample_rate=int(sample_rate), frame=int(frame), hop=int(hop),
                       window=window, frames=frames, magnitude=magnitude, db=db,
                       times=(starts + frame / 2) / sample_rate,
                       freqs=np.fft.rfftfreq(frame, d=1 / sample_rate))


# ==== proteins -> residues ================================================================

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
# Kyte & Doolittle (1982) hydropathy; positive = water-avoiding.
HYDROPHOBICITY = dict(A=1.8, R=-4.5, N=-3.5, D=-3.5, C=2.5, Q=-3.5, E=-3.5, G=-0.4, H=-3.2, I=4.5,
                      L=3.8, K=-3.9, M=1.9, F=2.8, P=-1.6, S=-0.8, T=-0.7, W=-0.9, Y=-1.3, V=4.2)
# Side-chain charge near pH 7 (histidine is mostly neutral there).
CHARGE = dict(D=-1.0, E=-1.0, K=1.0, R=1.0, H=0.1)
# Residue volume in cubic angstroms (Zamyatnin 1972).
VOLUME = dict(A=88.6, R=173.4, N=114.1, D=111.1, C=108.5, Q=143.8, E=138.4, G=60.1, H=153.2, I=166.7,
              L=166.7, K=168.6, M=162.9, F=189.9, P=112.7, S=89.0, T=116.1, W=227.8, Y=193.6, V=140.0)
PROPERTY_NAMES = ("hydrophobicity / 4.5", "charge", "volume / 227.8 A^3")
NOT_STANDARD = {"B": N_("D or N (ambiguous)"), "Z": N_("E or Q (ambiguous)"), "J": N_("I or L (ambiguous)"),
                "X": N_("an unknown residue"), "U": N_("selenocysteine"), "O": N_("pyrrolysine"), "*": N_("a stop")}

PROTEIN_PRESETS = {
    N_("Human insulin, A chain"): "GIVEQCCTSICSLYQLENYCN",       # names: link values (English), shown translated
    N_("Human insulin, B chain"): "FVNQHLCGSHLVEALYLVCGERGFFYTPKT",
    N_("Glucagon (human)"): "HSQGTFTSDYSKYLDSRRAQDFVQWLMNT",
    N_("Melittin (honeybee venom)"): "GIGAVLKVLTTGLPALISWIKRKRQQ",
    N_("Ubiquitin (human)"): "MQIFVKTLTGKTITLEVEPSDTIENVKAKIQDKEGIPPDQQRLIFAGKQLEDGRTLSDYNIQKESTLHLVLRLRGG",
}


def parse_sequence(text: str) -> str:
    """Pasted text -> upper-case one-letter codes: FASTA '>' header lines, spaces and line breaks dropped."""
    if not isinstance(text, str):
        raise ValueError(_("A protein sequence must be text: one letter per amino acid."))
    if len(text) > limits.MAX_SEQUENCE_TEXT_CHARS:
        raise ValueError(_("The text has {n} characters; the limit is {most}.", n=grouped(len(text)),
                           most=grouped(limits.MAX_SEQUENCE_TEXT_CHARS)))
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(">")]
    sequence = "".join("".join(lines).split()).upper()
    if not sequence:
        raise ValueError(_("The sequence is empty: paste one-letter amino-acid codes such as GIVEQCCTSICSLYQLENYCN."))
    for position, letter in enumerate(sequence, start=1):
        if letter not in AMINO_ACIDS:
            if letter in NOT_STANDARD:
                raise ValueError(_("'{letter}' at position {position} ({meaning}) is not one of the 20 amino-acid "
                                   "letters {letters}. Remove it or replace it.", letter=letter, position=position,
                                   meaning=_(NOT_STANDARD[letter]), letters=AMINO_ACIDS))
            raise ValueError(_("'{letter}' at position {position} is not one of the 20 amino-acid letters {letters}. "
                               "Remove it or replace it.", letter=letter, position=position, letters=AMINO_ACIDS))
    if len(sequence) > limits.MAX_RESIDUES:
        raise ValueError(_("The sequence has {n} residues; the limit is {most} ({scores} attention scores). Paste a "
                           "shorter piece.", n=len(sequence), most=limits.MAX_RESIDUES,
                           scores=grouped(limits.MAX_RESIDUES ** 2)))
    return sequence


@dataclass(frozen=True)
class Residues:
    """One token per amino acid: [one-hot over 20 letters | hydrophobicity, charge, size]."""
    sequence: str
    one_hot: np.ndarray      # (L, 20) columns in AMINO_ACIDS order
    properties: np.ndarray   # (L, 3) PROPERTY_NAMES
    features: np.ndarray     # (L, 23) one_hot and properties side by side

    @property
    def labels(self) -> list[str]:
        return [f"{letter}{i}" for i, letter in enumerate(self.sequence, start=1)]


def residue_features(sequence: str) -> Residues:
    """Row i = [onehot(a_i) (20) | KD(a_i)/4.5, charge(a_i), volume(a_i)/227.8]: 23 numbers per residue."""
    sequence = parse_sequence(sequence)
    one_hot = np.zeros((len(sequence), len(AMINO_ACIDS)))
    one_hot[np.arange(len(sequence)), [AMINO_ACIDS.index(a) for a in sequence]] = 1.0
    properties = np.array([[HYDROPHOBICITY[a] / 4.5, CHARGE.get(a, 0.0), VOLUME[a] / VOLUME["W"]]
                           for a in sequence])
    return Residues(sequence=sequence, one_hot=one_hot, properties=properties,
                    features=np.hstack([one_hot, properties]))


# ==== features -> tokens -> attention =====================================================

LAYER_NORM_EPS = 1e-5


@dataclass(frozen=True)
class Tokens:
    """x = LayerNorm((F - mean F) W): every token the same length sqrt(d), so scores compare directions."""
    features: np.ndarray     # (T, D) raw numbers: pixels, decibels or residue properties
    centred: np.ndarray      # (T, D) features minus the average token
    W: np.ndarray | None     # (D, d) fixed random projection (seeded), None for no projection
    seed: int | None
    projected: np.ndarray    # (T, d) centred @ W
    x: np.ndarray            # (T, d) LayerNorm of each row: mean 0, variance 1

    @property
    def d(self) -> int:
        return self.x.shape[1]


def random_projection(D: int, d: int, seed: int) -> np.ndarray:
    """W with entries drawn from N(0, 1/d) by numpy's default_rng(seed): the same W for the same seed."""
    return np.random.default_rng(seed).normal(0.0, 1.0 / np.sqrt(d), size=(D, d))


def tokens_from_features(features, d: int | None = 64, seed: int = 0, *,
                         max_tokens: int = limits.MAX_PATCH_TOKENS) -> Tokens:
    """x_i = LN((f_i - mean_j f_j) W), W fixed and random (seeded), LN(v) = (v - mean v) / std v.

    Nothing here is learned: the score x_i . x_j / sqrt(d) = sqrt(d) cos(x_i, x_j) says only how
    alike two tokens look. A trained model would learn W_Q and W_K instead.
    """
    F = check_matrix(features, "The token features", max_rows=max_tokens, max_cols=limits.MAX_TOKEN_FEATURES)
    centred = F - F.mean(axis=0, keepdims=True)
    if d is None:
        W, projected = None, centred
    else:
        if not isinstance(d, (int, np.integer)) or not 1 <= d <= limits.MAX_PROJECTION_DIM:
            raise ValueError(_("The projection width d must be a whole number between 1 and {most}; got {d}.",
                               most=limits.MAX_PROJECTION_DIM, d=d))
        if not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(_("The seed must be a whole number, 0 or more."))
        W = random_projection(F.shape[1], int(d), int(seed))
        projected = centred @ W                                                     # (T, d)
    mean = projected.mean(axis=1, keepdims=True)
    var = projected.var(axis=1, keepdims=True)
    x = (projected - mean) / np.sqrt(var + LAYER_NORM_EPS)                          # (T, d)
    return Tokens(features=F, centred=centred, W=W, seed=None if d is None else int(seed),
                  projected=projected, x=x)


def token_attention(x, *, max_tokens: int = limits.MAX_PATCH_TOKENS) -> AttentionResult:
    """Self-attention with Q = K = V = x: weights = softmax(x x^T / sqrt(d)), context = weights x.

    `engine.attention.mechanism.attention(x, x, x)` allowed up to `max_tokens` rows (patches, frames,
    residues) and MAX_TOKEN_FEATURES columns.
    """
    X = x.x if isinstance(x, Tokens) else x
    return attention(X, X, X, max_tokens=max_tokens, max_dim=limits.MAX_TOKEN_FEATURES)


@dataclass(frozen=True)
class AttentionCost:
    """T tokens -> T^2 scores; each score is a d-long dot product, and alpha V costs as much again."""
    T: int
    d: int
    scores: int = field(init=False)
    multiply_adds: int = field(init=False)
    megabytes: float = field(init=False)   # the (T, T) weights in float32

    def __post_init__(self):
        object.__setattr__(self, "scores", self.T * self.T)
        object.__setattr__(self, "multiply_adds", 2 * self.T * self.T * self.d)
        object.__setattr__(self, "megabytes", 4 * self.T * self.T / 1e6)


def attention_cost(T: int, d: int) -> AttentionCost:
    """scores = T^2, multiply-adds = 2 T^2 d (Q K^T, then alpha V)."""
    if T < 1 or d < 1:
        raise ValueError(_("Attention needs at least one token of at least one number."))
    return AttentionCost(int(T), int(d))


def patch_costs(height: int, width: int, patch_sizes, fit: str = "crop") -> list[tuple[int, int, int]]:
    """(patch size, tokens T, scores T^2) for each patch size that fits the image (partial patches per `fit`)."""
    rows = []
    for p in patch_sizes:
        if p > min(height, width):
            continue
        if fit == "pad":
            T = -(-height // p) * -(-width // p)
        elif fit == "exact" and (height % p or width % p):
            continue
        else:
            T = (height // p) * (width // p)
        rows.append((int(p), int(T), int(T * T)))
    return rows


# ==== the whole path for each kind of data ================================================

@dataclass(frozen=True)
class TokenAttention:
    """Data -> features -> tokens x -> attention, every step kept for the page and the notebook."""
    source: object              # ImagePatches, Spectrogram or Residues
    tokens: Tokens
    attention: AttentionResult
    cost: AttentionCost

    def strongest_others(self, query: int, k: int = 5) -> list[tuple[int, float]]:
        """The k tokens (other than the query itself) with the largest weights alpha_query,j."""
        weights = self.attention.weights[query]
        order = [int(j) for j in np.argsort(-weights, kind="stable") if j != query]
        return [(j, float(weights[j])) for j in order[:k]]


def image_attention(image, patch: int, fit: str = "crop", d: int | None = 64, seed: int = 0) -> TokenAttention:
    """Patches of the image as tokens: x = LN(centred patches W), weights = softmax(x x^T / sqrt(d))."""
    patches = image_to_patches(image, patch, fit)
    tokens = tokens_from_features(patches.x, d, seed, max_tokens=limits.MAX_PATCH_TOKENS)
    result = token_attention(tokens, max_tokens=limits.MAX_PATCH_TOKENS)
    return TokenAttention(patches, tokens, result, attention_cost(patches.N, tokens.d))


def frame_attention(signal: Signal, frame: int = 512, hop: int = 128, d: int | None = 64,
                    seed: int = 0) -> TokenAttention:
    """Spectrogram frames (in dB) as tokens, then the same attention."""
    spec = spectrogram_frames(signal.samples, signal.sample_rate, frame, hop)
    tokens = tokens_from_features(spec.db, d, seed, max_tokens=limits.MAX_AUDIO_FRAMES)
    result = token_attention(tokens, max_tokens=limits.MAX_AUDIO_FRAMES)
    return TokenAttention(spec, tokens, result, attention_cost(spec.T, tokens.d))


def residue_attention(sequence: str, d: int | None = None, seed: int = 0) -> TokenAttention:
    """Residues (one-hot and properties) as tokens, then the same attention."""
    residues = residue_features(sequence)
    tokens = tokens_from_features(residues.features, d, seed, max_tokens=limits.MAX_RESIDUES)
    result = token_attention(tokens, max_tokens=limits.MAX_RESIDUES)
    return TokenAttention(residues, tokens, result, attention_cost(len(residues.sequence), tokens.d))


def weight_by_segment(times: np.ndarray, segments, weights_row: np.ndarray) -> list[tuple[str, float]]:
    """sum of alpha_query,t over the frames t whose centre lies inside each (label, start, end) segment."""
    times, weights_row = np.asarray(times), np.asarray(weights_row)
    return [(label, float(weights_row[(times >= start) & (times < end)].sum())) for label, start, end in segments]


def segment_of(time: float, segments) -> str | None:
    """The label of the segment a time falls in, or None."""
    for label, start, end in segments:
        if start <= time < end:
            return label
    return None
