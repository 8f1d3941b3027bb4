"""Beyond words: the same attention on image patches, audio frames and amino-acid residues (views/beyond_words.py)."""
from __future__ import annotations

import warnings

import gradio as gr
import numpy as np

from engine import limits
from engine.charts.heatmaps import heatmap_spec
from engine.charts.images import OVERLAY_STYLES, data_url, patch_overlay, spectrogram_with_frames
from engine.beyond.modalities import (
    BUNDLED_PICTURES, FITS, PROTEIN_PRESETS, SIGNALS, bundled_picture, frame_attention, image_attention, load_image,
    patch_grid_position, read_wav, residue_attention, resize_square, segment_of, synth_signal, weight_by_segment,
)
from gradio_tabs.common import chart, engine_call, plot, question, table, upload_bytes, whole

SAMPLE_RATE = 8_000     # the synthesised sounds
# The engine's samples are floats in [-1, 1]; Gradio writes them as a 16-bit WAV, as meant, and says so each time.
warnings.filterwarnings("ignore", message="Trying to convert audio automatically", category=UserWarning)


def _cost(T: int, d: int, what: str) -> str:
    return (f"Cost: T = {T:,} {what} → T² = **{T * T:,} scores**, each a dot product of d = {d} numbers: "
            f"{2 * T * T * d:,} multiply-adds for QKᵀ and αV.")


def image_attention_tab(picture: str, upload: str | None, side: float, patch: float, fit: str, d: float,
                        seed: float, row: float, col: float, overlay: str):
    """A picture cut into p x p patches, each patch a token (centred, a seeded projection to d numbers,
    LayerNorm); softmax(x x^T / sqrt(d)) from the patch at (row, col) to every patch."""
    patch = whole(patch, limits.MIN_PATCH_SIZE, limits.MAX_PATCH_SIZE, "patch size")
    seed = whole(seed, 0, 10_000, "seed")
    side = whole(side, 0, limits.MAX_IMAGE_SIDE, "square side")
    d = whole(d, 0, limits.MAX_PROJECTION_DIM, "projection width d")
    # the upload's size is checked on disk, its pixel count in its header (engine.beyond.modalities.load_image),
    # before any decoding: a big file is never read, a small file of many pixels never decoded
    pixels = (engine_call(load_image, upload_bytes(upload, limits.MAX_IMAGE_UPLOAD_BYTES, "The picture")).pixels
              if upload else engine_call(bundled_picture, picture))
    if side:
        pixels = engine_call(resize_square, pixels, side)
    result = engine_call(image_attention, pixels, patch, fit, d or None, seed)
    patches = result.source
    row = whole(row, 0, patches.rows - 1, "patch row")
    col = whole(col, 0, patches.cols - 1, "patch column")
    query = row * patches.cols + col
    weights = result.attention.weights[query]
    strongest = result.strongest_others(query, 5)
    rows = [(j, *patch_grid_position(j, patches.cols), round(w, 4)) for j, w in strongest]
    height, width = patches.image.shape[:2]
    chart = patch_overlay(data_url(patches.image), height, width, patches.rows, patches.cols, patch, weights, query,
                          style=overlay, display_width=min(500, max(320, 4 * width)))
    summary = (f"**{pixels.shape[0]} x {pixels.shape[1]} pixels, p = {patch}: a grid of {patches.rows} x "
               f"{patches.cols} = {patches.N} tokens, each {patch} x {patch} x {patches.channels} = "
               f"{result.tokens.features.shape[1]:,} numbers" + (f", projected to d = {d}" if d else "") + ".** "
               f"Patch ({row}, {col}) keeps {weights[query]:.4f} on itself; uniform would be {1 / patches.N:.4f}. "
               + _cost(patches.N, result.tokens.d, "patches"))
    return plot(chart), table(rows, ["patch", "row", "column", "weight"]), summary


def audio_attention_tab(signal: str, upload: str | None, frame: float, hop: float, d: float, seed: float,
                        query: float):
    """A sound cut into frames of N samples every `hop`, each frame's |FFT| in dB a token; the weights from
    one frame (-1: the middle of the last note) to every frame, and to each note."""
    seed = whole(seed, 0, 10_000, "seed")
    d = whole(d, 0, limits.MAX_PROJECTION_DIM, "projection width d")
    frame = whole(frame, limits.MIN_FRAME, limits.MAX_FRAME, "frame length")
    hop = whole(hop, limits.MIN_HOP, limits.MAX_FRAME, "hop")
    sound = (engine_call(read_wav, upload_bytes(upload, limits.MAX_WAV_BYTES, "The recording"), "your recording")
             if upload else engine_call(synth_signal, signal, SAMPLE_RATE))
    result = engine_call(frame_attention, sound, frame, hop, d or None, seed)
    spec = result.source
    if query == -1:
        _, start, end = sound.segments[-1]
        query = int(np.argmin(np.abs(spec.times - (start + end) / 2)))
    query = whole(query, 0, spec.T - 1, "query frame")
    weights = result.attention.weights[query]
    notes = [{"part": label, "total weight": round(w, 4)}
             for label, w in weight_by_segment(spec.times, sound.segments, weights)]
    frames = [{"frame": j, "time (s)": round(float(spec.times[j]), 3), "weight": round(w, 4)}
              for j, w in result.strongest_others(query, 5)]
    here = segment_of(float(spec.times[query]), sound.segments)
    summary = (f"**{sound.seconds:.2f} s at {sound.sample_rate:,} samples/s; frames of N = {spec.frame} samples every "
               f"{spec.hop}: T = {spec.T} tokens of {spec.db.shape[1]} frequency bins (dB)"
               + (f", projected to d = {d}" if d else "") + f".** Frame {query} (t = {spec.times[query]:.3f} s"
               + (f", in {here}" if here else "") + ") spreads its weight over the parts below. "
               + _cost(spec.T, result.tokens.d, "frames"))
    chart = spectrogram_with_frames(spec, query, weights, sound.segments)
    return (plot(chart), table(notes, ["part", "total weight"]), table(frames, ["frame", "time (s)", "weight"]),
            (sound.sample_rate, sound.samples.astype(np.float32)), summary)


def residue_attention_tab(sequence: str, d: float, seed: float, residue: float):
    """A protein read residue by residue (one-hot letter, hydrophobicity, charge, volume), then the same
    attention: every residue's weights, and the strongest partners of one."""
    seed = whole(seed, 0, 10_000, "seed")
    d = whole(d, 0, limits.MAX_PROJECTION_DIM, "projection width d")
    result = engine_call(residue_attention, sequence or "", d or None, seed)
    labels = result.source.labels
    L = len(labels)
    residue = whole(residue, 0, L - 1, "residue")
    rows = [{"residue": labels[j], "weight": round(w, 4)} for j, w in result.strongest_others(residue, 5)]
    chart = heatmap_spec(result.attention.weights, labels, labels, title="α: row = residue attending",
                         cell=28 if L <= 30 else max(6, 840 // L), digits=2, x_title="residue attended to",
                         y_title="residue attending")
    summary = (f"**L = {L} residues, each {result.tokens.features.shape[1]} numbers (20 one-hot letters, "
               f"hydrophobicity, charge, volume)" + (f", projected to d = {d}" if d else "") + ".** "
               f"{labels[residue]}'s strongest partner: {rows[0]['residue'] if rows else 'itself'}. Untrained, a "
               "residue can only find residues of the same letter or similar properties. "
               + _cost(L, result.tokens.d, "residues"))
    return plot(chart), table(rows, ["residue", "weight"]), summary


def beyond_words_tab(demo: gr.Blocks) -> None:
    question("Can attention compare image patches, sound frames and amino acids the way it compares words?",
             "Any list of vectors worth comparing will do: each kind of data becomes one token per row, and the "
             "same softmax(x xᵀ / √d) x runs on it. Nothing is trained: tokens attend to tokens that look alike.")
    with gr.Row():
        d = gr.Slider(0, limits.MAX_PROJECTION_DIM, value=64, step=16,
                      label="Projection to d numbers per token (0: keep every raw number)")
        seed = gr.Number(0, label="Seed of the projection", precision=0, minimum=0, maximum=10_000)

    gr.Markdown("#### Image patches")
    with gr.Row():
        picture = gr.Dropdown(list(BUNDLED_PICTURES), value="astronaut", label="Picture (scikit-image's, CC0)")
        upload = gr.File(label="... or your own PNG or JPEG", file_types=[".png", ".jpg", ".jpeg"],
                         type="filepath")
        side = gr.Slider(0, limits.MAX_IMAGE_SIDE, value=224, step=16,
                         label="Resize to a square of this side, as ViT (the Vision Transformer) does (0: as it is)")
    with gr.Row():
        patch = gr.Slider(limits.MIN_PATCH_SIZE, limits.MAX_PATCH_SIZE, value=16, step=1, label="Patch size p (pixels)")
        fit = gr.Radio(list(FITS), value="crop", label="When p does not divide the picture")
        overlay = gr.Radio(list(OVERLAY_STYLES), value="spotlight", label="Overlay")
    with gr.Row():
        row = gr.Number(4, label="Query patch: row", precision=0, minimum=0)
        col = gr.Number(6, label="column", precision=0, minimum=0)
    look = gr.Button("Attend from this patch", variant="primary")
    image_summary = gr.Markdown(label="summary")
    with gr.Row():
        overlay_chart = chart(label="Where the query patch looks")
        partners = gr.Dataframe(label="Its strongest partners", scale=0, min_width=360)
    inputs = [picture, upload, side, patch, fit, d, seed, row, col, overlay]
    look.click(image_attention_tab, inputs, [overlay_chart, partners, image_summary], api_name="image_attention")
    demo.load(image_attention_tab, inputs, [overlay_chart, partners, image_summary], api_visibility="private")

    gr.Markdown("#### Audio frames")
    with gr.Row():
        signal = gr.Dropdown([(f"{name}: {what}", name) for name, what in SIGNALS.items()], value="melody",
                             label="Sound")
        wav = gr.File(label="... or your own mono WAV", file_types=[".wav"], type="filepath")
    with gr.Row():
        frame = gr.Slider(limits.MIN_FRAME, limits.MAX_FRAME, value=512, step=64, label="Frame length N (samples)")
        hop = gr.Slider(limits.MIN_HOP, 512, value=128, step=16, label="Hop between frames (samples)")
        query = gr.Number(-1, label="Query frame (-1: the middle of the last note)", precision=0, minimum=-1)
    listen = gr.Button("Attend from this frame", variant="primary")
    audio_summary = gr.Markdown(label="summary")
    sound = gr.Audio(label="The sound", type="numpy", format="wav", interactive=False)
    spectrogram = chart(label="Spectrogram and the query frame's weights")
    with gr.Row():
        notes = gr.Dataframe(label="Weight on each part")
        frames = gr.Dataframe(label="Its strongest frames")
    inputs = [signal, wav, frame, hop, d, seed, query]
    outputs = [spectrogram, notes, frames, sound, audio_summary]
    listen.click(audio_attention_tab, inputs, outputs, api_name="audio_attention")
    demo.load(audio_attention_tab, inputs, outputs, api_visibility="private")

    gr.Markdown("#### Protein residues")
    with gr.Row():
        sequence = gr.Dropdown([(name, text) for name, text in PROTEIN_PRESETS.items()], allow_custom_value=True,
                               value=PROTEIN_PRESETS["Human insulin, A chain"], scale=3,
                               label="Sequence (one-letter amino-acid codes; paste your own)")
        residue = gr.Number(5, label="Residue (position, from 0)", precision=0, minimum=0)
    read = gr.Button("Attend from this residue", variant="primary")
    residue_summary = gr.Markdown(label="summary")
    residue_chart = chart(label="Every residue's weights")
    residue_partners = gr.Dataframe(label="Its strongest partners")
    inputs = [sequence, d, seed, residue]
    read.click(residue_attention_tab, inputs, [residue_chart, residue_partners, residue_summary],
               api_name="residue_attention")
    demo.load(residue_attention_tab, inputs, [residue_chart, residue_partners, residue_summary],
              api_visibility="private")
