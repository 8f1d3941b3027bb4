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
from engine.i18n import N_, _
from engine.numbers import fixed, grouped, localized, significant

KINDS = {"image": N_(":material/image: Image patches"), "audio": N_(":material/graphic_eq: Audio frames"),
         "protein": N_(":material/genetics: Protein residues")}
UPLOAD = N_("upload your own")            # a value of the link (English), shown translated
CUSTOM = N_("your own (paste below)")
SIDES = {224: N_("224 x 224 (as ViT)"), 128: "128 x 128", 384: "384 x 384", 0: N_("as it is")}
# what the reader sees of the link's values (which stay English keys)
PICTURE_NAMES = {"astronaut": N_("astronaut"), "coffee": N_("coffee"), "chelsea": N_("chelsea (a cat)"),
                 "camera": N_("camera"), "rocket": N_("rocket")}
SOUND_NAMES = {"melody": N_("melody"), "tones": N_("tones"), "chirp": N_("chirp")}
FIT_NAMES = {"exact": N_("refuse"), "crop": N_("crop edges"), "pad": N_("pad with black")}
OVERLAY_NAMES = {"spotlight": N_("spotlight"), "heat": N_("heat")}
NOTE_NAMES = {"C again": N_("C again")}   # the melody's parts (C, D, E: note names) in the reader's language
PROJECTIONS = (0, 16, 32, 64, 128, 256)
FRAMES = (128, 256, 512, 1024, 2048)
HOPS = (32, 64, 128, 256, 512)
PATCH_SIZES_FOR_COST = (4, 7, 8, 14, 16, 28, 32, 56, 64, 112, 128)
MAX_SEED = 10_000
SAMPLE_RATE = 8_000                 # the synthesised sounds
PROTEIN = "Human insulin, A chain"  # the protein the page opens on
UNTRAINED_RESIDUES = N_("Untrained, a residue can only find residues of the same letter or similar properties.")
LEAD = N_("Any list of vectors worth comparing will do: each kind of data becomes one token per row, and the same "
          "softmax(x xᵀ / √d) x runs on it. Nothing is trained: tokens attend to tokens that look alike.")


def shown_name(names: Mapping[str, str], value: str) -> str:
    """A link value (a picture, a sound, a fit...) as the reader's language names it; one without a name as it is."""
    return _(names[value]) if value in names else _(value) if value in (UPLOAD, CUSTOM) else value


COSTS = {   # the cost line of each kind's tokens
    "patches": N_("**Cost:** T = {T} patches → T² = **{scores} scores**, each a dot product of d = {d} numbers: "
                  "{adds} multiply-adds for QKᵀ and αV, {megabytes} MB to hold the weights α at 4 bytes each."),
    "frames": N_("**Cost:** T = {T} frames → T² = **{scores} scores**, each a dot product of d = {d} numbers: "
                 "{adds} multiply-adds for QKᵀ and αV, {megabytes} MB to hold the weights α at 4 bytes each."),
    "residues": N_("**Cost:** T = {T} residues → T² = **{scores} scores**, each a dot product of d = {d} numbers: "
                   "{adds} multiply-adds for QKᵀ and αV, {megabytes} MB to hold the weights α at 4 bytes each."),
}


def cost_reading(T: int, d: int, what: str) -> str:
    """What both front ends say about the cost of T tokens (`what`: "patches", "frames" or "residues") of d
    numbers."""
    cost = attention_cost(T, d)
    return _(COSTS[what], T=grouped(T), scores=grouped(cost.scores), d=d, adds=grouped(cost.multiply_adds),
             megabytes=significant(cost.megabytes))


# --- image patches -----------------------------------------------------------------------------------------

def picture(values: Mapping[str, Any], pixels: np.ndarray | None = None) -> np.ndarray:
    """The picture the page cuts: an upload's pixels or the bundled one, resized to the link's square side."""
    if pixels is None:
        if values["picture"] == UPLOAD:
            raise ValueError(_("An uploaded picture is not in the link: pick a bundled one, or upload it again."))
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
        shown = dict(height=height, width=width, p=p, rows=patches.rows, cols=patches.cols, N=patches.N,
                     channels=patches.channels, numbers=grouped(self.result.tokens.features.shape[1]))
        if self.d:
            return _("**{height} x {width} pixels, p = {p}: a grid of {rows} x {cols} = {N} tokens, each {p} x {p} x "
                     "{channels} = {numbers} numbers, projected to d = {d}.**", d=self.d, **shown)
        return _("**{height} x {width} pixels, p = {p}: a grid of {rows} x {cols} = {N} tokens, each {p} x {p} x "
                 "{channels} = {numbers} numbers.**", **shown)

    @property
    def itself(self) -> str:
        """How much the query patch keeps on itself, against a uniform share."""
        return _("Patch ({row}, {col}) keeps **{weight}** on itself; uniform would be {uniform}.", row=self.row,
                 col=self.col, weight=fixed(self.weights[self.query], 4), uniform=fixed(1 / self.result.source.N, 4))

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
        raise ValueError(_("An uploaded sound is not in the link: pick a synthesised one, or upload it again."))
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
        shown = dict(seconds=fixed(signal.seconds, 2), rate=grouped(signal.sample_rate), frame=spec.frame,
                     hop=spec.hop, T=spec.T, bins=spec.db.shape[1])
        if self.d:
            return _("**{seconds} s at {rate} samples/s; frames of N = {frame} samples every {hop}: T = {T} tokens of "
                     "{bins} frequency bins (dB), projected to d = {d}.**", d=self.d, **shown)
        return _("**{seconds} s at {rate} samples/s; frames of N = {frame} samples every {hop}: T = {T} tokens of "
                 "{bins} frequency bins (dB).**", **shown)

    @property
    def spread(self) -> str:
        """Where the query frame sits, over the parts (the notes) whose shares the table below lists."""
        times, segments = self.result.source.times, self.signal.segments
        here = segment_of(float(times[self.query]), segments)
        if here:
            return _("Frame {frame} (t = {t} s, in {part}) spreads its weight over the parts below.", frame=self.query,
                     t=fixed(times[self.query], 3), part=shown_name(NOTE_NAMES, here))
        return _("Frame {frame} (t = {t} s) spreads its weight over the parts below.", frame=self.query,
                 t=fixed(times[self.query], 3))

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
        shown = dict(L=len(self.labels), numbers=self.result.tokens.features.shape[1])
        if self.d:
            return _("**L = {L} residues, each {numbers} numbers (20 one-hot letters, hydrophobicity, charge, volume), "
                     "projected to d = {d}.**", d=self.d, **shown)
        return _("**L = {L} residues, each {numbers} numbers (20 one-hot letters, hydrophobicity, charge, "
                 "volume).**", **shown)

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
            raise ValueError(_("An uploaded picture is not in the link: pick a bundled one to ask about."))
        height, width = (side, side) if side else sources.bundled_picture(name).shape[:2]
        costs = patch_costs(height, width, [patch], values["fit"])
        if not costs:
            raise ValueError(_("A {patch}-pixel patch does not fit this picture.", patch=patch))
        T = costs[0][1]
        what = _("Attention over a {width} x {height} picture cut into {patch} x {patch} patches ({T} tokens): how "
                 "many attention scores (weights) does one head compute?", width=width, height=height, patch=patch, T=T)
    elif kind == "audio":
        signal = sound(values)
        T = spectrogram_frames(signal.samples, signal.sample_rate, values["frame"], values["hop"]).T
        what = _("Attention over the '{sound}' sound cut into {T} spectrogram frames: how many attention scores "
                 "(weights) does one head compute?", sound=shown_name(SOUND_NAMES, values["signal"]), T=T)
    else:
        T = len(parse_sequence(values["sequence"]))
        what = _("Attention over a protein of {T} residues: how many attention scores (weights) does one head "
                 "compute?", T=T)
    cost = attention_cost(T, max(d, 1))
    options, answer = _numbers(cost.scores, [T, 2 * T, T * (T - 1) // 2, cost.multiply_adds])
    return Question("beyond", what, options, answer,
                    _("Every token scores every token: T\u00b2 = {T}\u00b2 = {scores}, {megabytes} MB of weights in "
                      "float32. The cost chart on the page grows with T\u00b2.", T=T, scores=grouped(cost.scores),
                      megabytes=localized(f"{cost.megabytes:.2f}")),
                    veils=(f"beyond.{kind}",))


PAGE = PageSpec(
    key="beyond", url="beyond", view="beyond_words",
    title=N_("Beyond words"),
    question=N_("Can attention compare image patches, sound frames and amino acids the way it compares words?"),
    one_line=N_("Image patches, spectrogram frames and amino acids as tokens: the same attention on each."),
    icon=":material/category:",
    params=(
        Param("kind", "image", one_of(KINDS), label=N_("Tokens from")),
        Param("d", 64, one_of(PROJECTIONS, int), label=N_("Projection to d numbers per token"),
              help=N_("A fixed random matrix W (drawn from the seed) maps each token's raw numbers to d numbers.")),
        Param("seed", 0, between(0, MAX_SEED), label=N_("Seed of the projection")),
        Param("picture", "astronaut", one_of([*BUNDLED_PICTURES, UPLOAD]), label=N_("Picture"),
              help=N_("Pictures bundled with scikit-image (public domain / CC0), or your own PNG or JPEG.")),
        Param("side", 224, one_of(SIDES, int), label=N_("Resize to"),
              help=N_("Shorter side to this size, then the centre square, as ViT prepares its inputs.")),
        Param("patch", 16, between(limits.MIN_PATCH_SIZE, limits.MAX_PATCH_SIZE), label=N_("Patch size p (pixels)"),
              help=N_("Each p x p square becomes one token of p*p*3 numbers.")),
        Param("fit", "crop", one_of(FITS), label=N_("When p does not divide the picture")),
        Param("overlay", "spotlight", one_of(OVERLAY_STYLES), label=N_("Overlay"),
              help=N_("spotlight: dim what gets little weight; heat: colour by weight (viridis).")),
        Param("qrow", 4, between(0, limits.MAX_PATCH_TOKENS - 1), label=N_("Row")),   # the grid's own size: clamped
        Param("qcol", 6, between(0, limits.MAX_PATCH_TOKENS - 1), label=N_("Column")),
        Param("signal", "melody", one_of([*SIGNALS, UPLOAD]), label=N_("Sound")),
        Param("frame", 512, one_of(FRAMES, int), label=N_("Frame length N (samples)"),
              help=N_("Longer frames: finer frequency, coarser time.")),
        Param("hop", 128, one_of(HOPS, int), label=N_("Hop between frames (samples)"),
              help=N_("A smaller hop gives more frames, so more tokens.")),
        Param("qframe", -1, between(-1, limits.MAX_AUDIO_FRAMES - 1),   # -1: the middle of the last note
              label=N_("Query frame (or click a column of the spectrogram)")),
        Param("protein", PROTEIN, one_of([*PROTEIN_PRESETS, CUSTOM]), label=N_("Sequence")),
        Param("sequence", PROTEIN_PRESETS[PROTEIN], text(limits.MAX_SEQUENCE_TEXT_CHARS),
              label=N_("Sequence (one-letter amino-acid codes; FASTA '>' lines are skipped)")),
        Param("residue", 0, between(0, limits.MAX_RESIDUES - 1), label=N_("Residue")),
    ),
    questions=(scores,),
    reading=(references.DOSOVITSKIY_2020,
             references.GONG_2021,
             references.RIVES_2021,
             references.VASWANI_2017,
             references.LIN_2021),
)
