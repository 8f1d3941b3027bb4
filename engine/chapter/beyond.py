"""Beyond words: the page's spec, its choices (pictures, sizes, sounds, proteins), what it computes from its link (the
same attention on image patches, spectrogram frames and residues), the sentences both front ends say about them, and
its class question.

`image(values)`, `audio(values)` and `protein(values)` are what the page draws for its typed link values (an upload
is handed in as pixels or a sound), so the Streamlit page, the Gradio tab and the class question compute the same
numbers and say the same sentences. Nothing heavy is read at import. The spec itself (PAGE) closes the file.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from engine import limits
from engine.beyond.modalities import (
    BUNDLED_PICTURES, FITS, PROTEIN_PRESETS, SIGNALS, Signal, TokenAttention, attention_cost, bundled_picture,
    frame_attention, image_attention, parse_sequence, patch_costs, residue_attention, resize_square,
    segment_of, spectrogram_frames, synth_signal,
)
from engine.chapter import references
from engine.chapter.spec import PageSpec, Param, between, one_of, text
from engine.charts.images import OVERLAY_STYLES
from engine.classroom.questions import _numbers
from engine.classroom.store import Question
from engine.numbers import significant

KINDS = {"image": ":material/image: Image patches", "audio": ":material/graphic_eq: Audio frames",
         "protein": ":material/genetics: Protein residues"}
UPLOAD = "upload your own"
CUSTOM = "your own (paste below)"
SIDES = {224: "224 x 224 (as ViT)", 128: "128 x 128", 384: "384 x 384", 0: "as it is"}
PROJECTIONS = (0, 16, 32, 64, 128, 256)
FRAMES = (128, 256, 512, 1024, 2048)
HOPS = (32, 64, 128, 256, 512)
PATCH_SIZES_FOR_COST = (4, 7, 8, 14, 16, 28, 32, 56, 64, 112, 128)
MAX_SEED = 10_000
SAMPLE_RATE = 8_000                 # the synthesised sounds
PROTEIN = "Human insulin, A chain"  # the protein the page opens on
UNTRAINED_RESIDUES = "Untrained, a residue can only find residues of the same letter or similar properties."
LEAD = ("Any list of vectors worth comparing will do: each kind of data becomes one token per row, and the same "
        "softmax(x xᵀ / √d) x runs on it. Nothing is trained: tokens attend to tokens that look alike.")


def projected(d: int | None) -> str:
    return f", projected to d = {d}" if d else ""


def cost_reading(T: int, d: int, what: str) -> str:
    """What both front ends say about the cost of T tokens of d numbers."""
    cost = attention_cost(T, d)
    return (f"**Cost:** T = {T:,} {what} → T² = **{cost.scores:,} scores**, each a dot product of d = {d} numbers: "
            f"{cost.multiply_adds:,} multiply-adds for QKᵀ and αV, {significant(cost.megabytes)} MB to hold the "
            "weights α at 4 bytes each.")


# --- image patches -----------------------------------------------------------------------------------------

def picture(values: Mapping[str, Any], pixels: np.ndarray | None = None) -> np.ndarray:
    """The picture the page cuts: an upload's pixels or the bundled one, resized to the link's square side."""
    if pixels is None:
        if values["picture"] == UPLOAD:
            raise ValueError("An uploaded picture is not in the link: pick a bundled one, or upload it again.")
        pixels = bundled_picture(values["picture"])
    side = int(values["side"])
    return resize_square(pixels, side) if side else pixels


@dataclass(frozen=True)
class Image:
    """The picture as the page shows it: its pixels, the attention over its patches and the query patch."""
    pixels: np.ndarray
    result: TokenAttention
    patch: int
    d: int | None
    row: int
    col: int

    @property
    def query(self) -> int:
        return self.row * self.result.source.cols + self.col

    @property
    def weights(self) -> np.ndarray:
        return self.result.attention.weights[self.query]

    @property
    def sizes(self) -> str:
        """The picture, its grid and its tokens, as both front ends say them."""
        patches, p = self.result.source, self.patch
        height, width = self.pixels.shape[:2]
        return (f"**{height} x {width} pixels, p = {p}: a grid of {patches.rows} x {patches.cols} = {patches.N} "
                f"tokens, each {p} x {p} x {patches.channels} = {self.result.tokens.features.shape[1]:,} numbers"
                f"{projected(self.d)}.**")

    @property
    def itself(self) -> str:
        """How much the query patch keeps on itself, against a uniform share."""
        return (f"Patch ({self.row}, {self.col}) keeps **{self.weights[self.query]:.4f}** on itself; uniform would "
                f"be {1 / self.result.source.N:.4f}.")

    @property
    def cost(self) -> str:
        return cost_reading(self.result.source.N, self.result.tokens.d, "patches")


def image(values: Mapping[str, Any], pixels: np.ndarray | None = None, result: TokenAttention | None = None) -> Image:
    """The patches' attention for these (typed) values (`pixels`: an upload, before resizing), or, given `result`
    (the attention a front end cached), the picture as it was resized for it; the query patch is kept inside the
    grid, as the page keeps it."""
    d = int(values["d"]) or None
    if result is None:
        pixels = picture(values, pixels)
        result = image_attention(pixels, int(values["patch"]), values["fit"], d, int(values["seed"]))
    patches = result.source
    row = min(max(int(values["qrow"]), 0), patches.rows - 1)
    col = min(max(int(values["qcol"]), 0), patches.cols - 1)
    return Image(pixels, result, int(values["patch"]), d, row, col)


# --- audio frames ------------------------------------------------------------------------------------------

def sound(values: Mapping[str, Any]) -> Signal:
    """The link's synthesised sound."""
    if values["signal"] == UPLOAD:
        raise ValueError("An uploaded sound is not in the link: pick a synthesised one, or upload it again.")
    return synth_signal(values["signal"], SAMPLE_RATE)


def default_frame(times: np.ndarray, signal: Signal) -> int:
    """The frame a sound opens on: the middle of its last note."""
    _, start, end = signal.segments[-1]
    return int(np.argmin(np.abs(times - (start + end) / 2)))


@dataclass(frozen=True)
class Audio:
    """The sound as the page shows it: its frames' attention and the query frame."""
    signal: Signal
    result: TokenAttention
    d: int | None
    query: int

    @property
    def weights(self) -> np.ndarray:
        return self.result.attention.weights[self.query]

    @property
    def sizes(self) -> str:
        spec, signal = self.result.source, self.signal
        return (f"**{signal.seconds:.2f} s at {signal.sample_rate:,} samples/s; frames of N = {spec.frame} samples "
                f"every {spec.hop}: T = {spec.T} tokens of {spec.db.shape[1]} frequency bins (dB)"
                f"{projected(self.d)}.**")

    @property
    def spread(self) -> str:
        """Where the query frame sits, over the parts (the notes) whose shares the table below lists."""
        times, segments = self.result.source.times, self.signal.segments
        here = segment_of(float(times[self.query]), segments)
        return (f"Frame {self.query} (t = {times[self.query]:.3f} s{f', in {here}' if here else ''}) spreads its "
                "weight over the parts below.")

    @property
    def cost(self) -> str:
        return cost_reading(self.result.source.T, self.result.tokens.d, "frames")


def audio(values: Mapping[str, Any], signal: Signal | None = None, result: TokenAttention | None = None) -> Audio:
    """The frames' attention for these (typed) values (`signal`: an upload); a query frame outside the sound (-1
    among them) is the middle of its last note, as on the page."""
    signal = sound(values) if signal is None else signal
    d = int(values["d"]) or None
    if result is None:
        result = frame_attention(signal, int(values["frame"]), int(values["hop"]), d, int(values["seed"]))
    query = int(values["qframe"])
    if not 0 <= query < result.source.T:
        query = default_frame(result.source.times, signal)
    return Audio(signal, result, d, query)


# --- protein residues --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Protein:
    """The protein as the page shows it: its residues' attention and the query residue."""
    result: TokenAttention
    d: int | None
    query: int

    @property
    def labels(self) -> list[str]:
        return self.result.source.labels

    @property
    def sizes(self) -> str:
        return (f"**L = {len(self.labels)} residues, each {self.result.tokens.features.shape[1]} numbers (20 one-hot "
                f"letters, hydrophobicity, charge, volume){projected(self.d)}.**")

    @property
    def cost(self) -> str:
        return cost_reading(len(self.labels), self.result.tokens.d, "residues")


def protein(values: Mapping[str, Any], result: TokenAttention | None = None) -> Protein:
    """The residues' attention for these (typed) values; the residue is kept inside the sequence, as on the page."""
    d = int(values["d"]) or None
    if result is None:
        result = residue_attention(values["sequence"], d, int(values["seed"]))
    query = min(max(int(values["residue"]), 0), len(result.source.labels) - 1)
    return Protein(result, d, query)


# --- the class's question ----------------------------------------------------------------------------------

def scores(link: Mapping[str, str], sources) -> Question:
    """How many scores one head computes for the page's tokens (T², as its cost line and chart say)."""
    values = PAGE.values(link)
    kind, d = values["kind"], values["d"]
    if kind == "image":
        name, side, patch = values["picture"], values["side"], values["patch"]
        if name not in BUNDLED_PICTURES:
            raise ValueError("An uploaded picture is not in the link: pick a bundled one to ask about.")
        height, width = (side, side) if side else sources.bundled_picture(name).shape[:2]
        costs = patch_costs(height, width, [patch], values["fit"])
        if not costs:
            raise ValueError(f"A {patch}-pixel patch does not fit this picture.")
        T = costs[0][1]
        what = f"a {width} x {height} picture cut into {patch} x {patch} patches ({T} tokens)"
    elif kind == "audio":
        signal = sound(values)
        T = spectrogram_frames(signal.samples, signal.sample_rate, values["frame"], values["hop"]).T
        what = f"the '{values['signal']}' sound cut into {T} spectrogram frames"
    else:
        T = len(parse_sequence(values["sequence"]))
        what = f"a protein of {T} residues"
    cost = attention_cost(T, max(d, 1))
    options, answer = _numbers(cost.scores, [T, 2 * T, T * (T - 1) // 2, cost.multiply_adds])
    return Question("beyond", f"Attention over {what}: how many attention scores (weights) does one head "
                              "compute?", options, answer,
                    f"Every token scores every token: T\u00b2 = {T}\u00b2 = {cost.scores:,}, "
                    f"{cost.megabytes:.2f} MB of weights in float32. The cost chart on the page grows with T\u00b2.",
                    veils=(f"beyond.{kind}",))


PAGE = PageSpec(
    key="beyond", url="beyond", view="beyond_words",
    title="Beyond words",
    question="Can attention compare image patches, sound frames and amino acids the way it compares words?",
    one_line="Image patches, spectrogram frames and amino acids as tokens: the same attention on each.",
    icon=":material/category:",
    params=(
        Param("kind", "image", one_of(KINDS), label="Tokens from"),
        Param("d", 64, one_of(PROJECTIONS, int), label="Projection to d numbers per token",
              help="A fixed random matrix W (drawn from the seed) maps each token's raw numbers to d numbers."),
        Param("seed", 0, between(0, MAX_SEED), label="Seed of the projection"),
        Param("picture", "astronaut", one_of([*BUNDLED_PICTURES, UPLOAD]), label="Picture",
              help="Pictures bundled with scikit-image (public domain / CC0), or your own PNG or JPEG."),
        Param("side", 224, one_of(SIDES, int), label="Resize to",
              help="Shorter side to this size, then the centre square, as ViT prepares its inputs."),
        Param("patch", 16, between(limits.MIN_PATCH_SIZE, limits.MAX_PATCH_SIZE), label="Patch size p (pixels)",
              help="Each p x p square becomes one token of p*p*3 numbers."),
        Param("fit", "crop", one_of(FITS), label="When p does not divide the picture"),
        Param("overlay", "spotlight", one_of(OVERLAY_STYLES), label="Overlay",
              help="spotlight: dim what gets little weight; heat: colour by weight (viridis)."),
        Param("qrow", 4, between(0, limits.MAX_PATCH_TOKENS - 1), label="Row"),   # the grid's own size: clamped
        Param("qcol", 6, between(0, limits.MAX_PATCH_TOKENS - 1), label="Column"),
        Param("signal", "melody", one_of([*SIGNALS, UPLOAD]), label="Sound"),
        Param("frame", 512, one_of(FRAMES, int), label="Frame length N (samples)",
              help="Longer frames: finer frequency, coarser time."),
        Param("hop", 128, one_of(HOPS, int), label="Hop between frames (samples)",
              help="A smaller hop gives more frames, so more tokens."),
        Param("qframe", -1, between(-1, limits.MAX_AUDIO_FRAMES - 1),   # -1: the middle of the last note
              label="Query frame (or click a column of the spectrogram)"),
        Param("protein", PROTEIN, one_of([*PROTEIN_PRESETS, CUSTOM]), label="Sequence"),
        Param("sequence", PROTEIN_PRESETS[PROTEIN], text(limits.MAX_SEQUENCE_TEXT_CHARS),
              label="Sequence (one-letter amino-acid codes; FASTA '>' lines are skipped)"),
        Param("residue", 0, between(0, limits.MAX_RESIDUES - 1), label="Residue"),
    ),
    questions=(scores,),
    reading=(references.DOSOVITSKIY_2020,
             references.GONG_2021,
             references.RIVES_2021,
             references.VASWANI_2017,
             references.LIN_2021),
)
