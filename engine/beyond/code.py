"""'Show the code' for Beyond words: numpy lines that reproduce the page's numbers as they stand.

Each function returns the program (engine.shown_code.Program): its source, and what it prints, worked out here
with the same lines on the same data. The data comes from where the page took it (scikit-image's bundled
pictures, `engine.beyond.modalities` for the synthesised sounds and residue tables); the tokens and the
attention are written out in numpy, in the chapter's steps.
"""
from __future__ import annotations

import hashlib

import numpy as np

from engine.shown_code import Printout, Program

_TOKENS_AND_ATTENTION = '''\
# tokens: centre, a fixed random projection to d numbers (seeded), LayerNorm
centred = features - features.mean(axis=0)
{projection}
x = (z - z.mean(axis=1, keepdims=True)) / np.sqrt(z.var(axis=1, keepdims=True) + 1e-5)   # (T, d)

# attention with Q = K = V = x: alpha = softmax(x x^T / sqrt(d))
scores = x @ x.T / np.sqrt(x.shape[1])                                  # (T, T)
weights = np.exp(scores - scores.max(axis=1, keepdims=True))
weights /= weights.sum(axis=1, keepdims=True)

query = {query}
print(f"{{len(x)}} tokens -> {{len(x) ** 2:,}} scores")
print("weight on itself:", round(float(weights[query, query]), 4))
order = [int(j) for j in np.argsort(-weights[query], kind="stable") if j != query]
print("strongest others:", [(j, round(float(weights[query, j]), 4)) for j in order[:5]])
'''


def _tokens_and_attention_printout(features: np.ndarray, d: int | None, seed: int, query: int) -> str:
    """What _TOKENS_AND_ATTENTION prints after `features`: its lines, in its order."""
    centred = features - features.mean(axis=0)
    if d is None:
        z = centred
    else:
        W = np.random.default_rng(seed).normal(0, 1 / np.sqrt(d), size=(features.shape[1], d))
        z = centred @ W
    x = (z - z.mean(axis=1, keepdims=True)) / np.sqrt(z.var(axis=1, keepdims=True) + 1e-5)
    scores = x @ x.T / np.sqrt(x.shape[1])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    out = Printout()
    out.print(f"{len(x)} tokens -> {len(x) ** 2:,} scores")
    out.print("weight on itself:", round(float(weights[query, query]), 4))
    order = [int(j) for j in np.argsort(-weights[query], kind="stable") if j != query]
    out.print("strongest others:", [(j, round(float(weights[query, j]), 4)) for j in order[:5]])
    return out.text


def _projection(d: int | None, seed: int) -> str:
    if d is None:
        return "z = centred                                                  # no projection: d = D"
    return (f"W = np.random.default_rng({seed}).normal(0, 1 / np.sqrt({d}), size=(features.shape[1], {d}))\n"
            f"z = centred @ W                                                          # (T, {d})")


def image_code(picture: str | None, side: int | None, patch: int, fit: str, d: int | None, seed: int,
               query: int) -> Program:
    """`picture` is a scikit-image name, or None for an uploaded file (read from your own path: its printout is not
    worked out here, where the app reads an upload only through its own checks)."""
    if picture is None:
        load = ('from PIL import Image\n'
                'picture = np.asarray(Image.open("your_picture.png").convert("RGB"))   # the file you uploaded')
    else:
        load = f"from skimage import data\npicture = data.{picture}()                     # uint8 pixels"
    lines = ["import numpy as np", load, ""]
    if side is not None:
        lines += ["# shorter side to {0}, then the centre {0} x {0} square (as ViT's preprocessing)".format(side),
                  "from PIL import Image",
                  "im = Image.fromarray(picture)",
                  f"scale = {side} / min(im.size)",
                  f"w, h = max({side}, round(im.size[0] * scale)), max({side}, round(im.size[1] * scale))",
                  "im = im.resize((w, h), Image.Resampling.BICUBIC)",
                  f"left, top = (w - {side}) // 2, (h - {side}) // 2",
                  f"picture = np.asarray(im.crop((left, top, left + {side}, top + {side})))", ""]
    lines += ["pixels = picture.astype(float) / 255",
              "if pixels.ndim == 2:                       # a grey picture has one channel",
              "    pixels = pixels[:, :, None]",
              f"p = {patch}",
              "height, width = pixels.shape[:2]"]
    if fit == "crop":
        lines += ["top, left = height % p // 2, width % p // 2        # crop: half the leftover from each side",
                  "pixels = pixels[top:top + height // p * p, left:left + width // p * p]"]
    elif fit == "pad":
        lines += ["add_h, add_w = -height % p, -width % p              # pad: black, half on each side",
                  "pixels = np.pad(pixels, ((add_h // 2, add_h - add_h // 2), "
                      "(add_w // 2, add_w - add_w // 2), (0, 0)))"]  # one line in the shown code
    lines += ["rows, cols = pixels.shape[0] // p, pixels.shape[1] // p",
              "features = (pixels.reshape(rows, p, cols, p, -1)      # (rows, p, cols, p, C)",
              "            .transpose(0, 2, 1, 3, 4)                 # (rows, cols, p, p, C)",
              "            .reshape(rows * cols, -1))                # (N, p*p*C): one token per patch",
              ""]
    source = "\n".join(lines) + "\n" + _TOKENS_AND_ATTENTION.format(projection=_projection(d, seed), query=query)
    if picture is None:
        return Program(source, why="It reads the picture you uploaded from your own disk, so it prints there: the "
                                   "numbers above are the same for a picture the app did not have to shrink.")

    def printout() -> str:   # the program's lines, on scikit-image's picture
        from PIL import Image
        from skimage import data

        pixels = getattr(data, picture)()
        if side is not None:
            im = Image.fromarray(pixels)
            scale = side / min(im.size)
            w, h = max(side, round(im.size[0] * scale)), max(side, round(im.size[1] * scale))
            im = im.resize((w, h), Image.Resampling.BICUBIC)
            left, top = (w - side) // 2, (h - side) // 2
            pixels = np.asarray(im.crop((left, top, left + side, top + side)))
        pixels = pixels.astype(float) / 255
        if pixels.ndim == 2:
            pixels = pixels[:, :, None]
        p = patch
        height, width = pixels.shape[:2]
        if fit == "crop":
            top, left = height % p // 2, width % p // 2
            pixels = pixels[top:top + height // p * p, left:left + width // p * p]
        elif fit == "pad":
            add_h, add_w = -height % p, -width % p
            pixels = np.pad(pixels, ((add_h // 2, add_h - add_h // 2), (add_w // 2, add_w - add_w // 2), (0, 0)))
        rows, cols = pixels.shape[0] // p, pixels.shape[1] // p
        features = pixels.reshape(rows, p, cols, p, -1).transpose(0, 2, 1, 3, 4).reshape(rows * cols, -1)
        return _tokens_and_attention_printout(features, d, seed, query)

    return Program(source, printout)


def audio_code(signal: str | None, frame: int, hop: int, d: int | None, seed: int, query: int,
               upload: bytes | None = None) -> Program:
    """`signal` is a name from engine.beyond.modalities.SIGNALS, or None for an uploaded WAV (`upload`, its bytes,
    which the program reads from your own path)."""
    if signal is None:
        load = ('from engine.beyond.modalities import read_wav\n'
                'sound = read_wav(open("your_sound.wav", "rb").read())    # the file you uploaded')
    else:
        load = f'from engine.beyond.modalities import synth_signal\nsound = synth_signal("{signal}", 8000)'
    source = f'''\
import numpy as np
{load}
samples, rate = sound.samples, sound.sample_rate

N, hop = {frame}, {hop}
window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N) / N)             # periodic Hann
T = 1 + (len(samples) - N) // hop
frames = samples[hop * np.arange(T)[:, None] + np.arange(N)] * window   # (T, N)
magnitude = np.abs(np.fft.rfft(frames, axis=1))                        # (T, N/2 + 1)
features = 20 * np.log10(np.maximum(magnitude / magnitude.max(), 1e-4))  # dB, floor -80

'''
    source += _TOKENS_AND_ATTENTION.format(projection=_projection(d, seed), query=query)

    def printout() -> str:   # the program's lines, on the same sound
        from engine.beyond.modalities import read_wav, synth_signal

        sound = read_wav(upload) if signal is None else synth_signal(signal, 8000)
        samples = sound.samples
        N = frame
        window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N) / N)
        T = 1 + (len(samples) - N) // hop
        frames = samples[hop * np.arange(T)[:, None] + np.arange(N)] * window
        magnitude = np.abs(np.fft.rfft(frames, axis=1))
        features = 20 * np.log10(np.maximum(magnitude / magnitude.max(), 1e-4))
        return _tokens_and_attention_printout(features, d, seed, query)

    if signal is None and upload is None:
        return Program(source)
    return Program(source, printout, key=hashlib.sha256(upload).hexdigest() if signal is None else "")


def protein_code(sequence: str, d: int | None, seed: int, query: int) -> Program:
    source = f'''\
import numpy as np
from engine.beyond.modalities import residue_features       # 20 one-hot columns + hydrophobicity, charge, volume

features = residue_features("{sequence}").features   # (L, 23)

'''
    source += _TOKENS_AND_ATTENTION.format(projection=_projection(d, seed), query=query)

    def printout() -> str:
        from engine.beyond.modalities import residue_features

        return _tokens_and_attention_printout(residue_features(sequence).features, d, seed, query)

    return Program(source, printout)
