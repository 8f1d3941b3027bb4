"""Beyond words: the same attention on image patches, audio frames and amino-acid residues (views/beyond_words.py)."""
from __future__ import annotations

import warnings
from typing import Any, Mapping

import gradio as gr
import numpy as np

from engine import limits
from engine.chapter.beyond import (
    FIT_NAMES, LEAD, MAX_SEED, OVERLAY_NAMES, PAGE, PICTURE_NAMES, SOUND_NAMES, UNTRAINED_RESIDUES, audio, image,
    NOTE_NAMES, protein, shown_name,
)
from engine.charts.heatmaps import heatmap_spec
from engine.i18n import N_, _, pgettext
from engine.charts.images import OVERLAY_STYLES, data_url, patch_overlay, spectrogram_with_frames
from engine.beyond.modalities import (
    BUNDLED_PICTURES, FITS, PROTEIN_PRESETS, SIGNALS, load_image, patch_grid_position, read_wav, weight_by_segment,
)
from gradio_tabs.common import (
    chart, engine_call, heading, label_of, plot, question, say, static, table, upload_bytes, whole,
)

P = PAGE.by_name


# The engine's samples are floats in [-1, 1]; Gradio writes them as a 16-bit WAV, as meant, and says so each time.
warnings.filterwarnings("ignore", message="Trying to convert audio automatically", category=UserWarning)


def image_from_link(values: Mapping[str, Any], pixels=None, result=None):
    """The overlay, the strongest partners and the sentences for the page's typed link values (`pixels`: an upload;
    engine.chapter.beyond.image): what the Streamlit page shows for the same link."""
    shown = engine_call(image, values, pixels, result)
    patches, query, weights = shown.result.source, shown.query, shown.weights
    rows = [(j, *patch_grid_position(j, patches.cols), round(w, 4)) for j, w in shown.result.strongest_others(query, 5)]
    height, width = patches.image.shape[:2]
    overlay = patch_overlay(data_url(patches.image), height, width, patches.rows, patches.cols, shown.patch, weights,
                            query, style=values["overlay"], display_width=min(500, max(320, 4 * width)))
    return (plot(overlay), table(rows, [pgettext("chart field", "patch"), _("row"), _("column"), _("weight")]),
            f"{shown.sizes} {shown.itself} {shown.cost}")


def image_attention_tab(picture: str, upload: str | None, side: float, patch: float, fit: str, d: float,
                        seed: float, row: float, col: float, overlay: str):
    """A picture cut into p x p patches, each patch a token (centred, a seeded projection to d numbers,
    LayerNorm); softmax(x x^T / sqrt(d)) from the patch at (row, col) to every patch."""
    values = PAGE.defaults() | {
        "picture": picture, "side": whole(side, 0, limits.MAX_IMAGE_SIDE, _("square side")),
        "patch": whole(patch, limits.MIN_PATCH_SIZE, limits.MAX_PATCH_SIZE, _("patch size")), "fit": fit,
        "d": whole(d, 0, limits.MAX_PROJECTION_DIM, _("projection width d")),
        "seed": whole(seed, 0, MAX_SEED, _("seed")),
        "overlay": overlay}
    # the upload's size is checked on disk, its pixel count in its header (engine.beyond.modalities.load_image),
    # before any decoding: a big file is never read, a small file of many pixels never decoded
    pixels = (engine_call(load_image, upload_bytes(upload, limits.MAX_IMAGE_UPLOAD_BYTES, "The picture")).pixels
              if upload else None)
    cut = engine_call(image, values, pixels)          # the grid first: the query must fall inside it
    grid = cut.result.source
    values |= {"qrow": whole(row, 0, grid.rows - 1, _("patch row")),
               "qcol": whole(col, 0, grid.cols - 1, _("patch column"))}
    return image_from_link(values, cut.pixels, cut.result)


def audio_from_link(values: Mapping[str, Any], signal=None, result=None):
    """The spectrogram, the weight on each part, the strongest frames, the sound and the sentences for the page's
    typed link values (`signal`: an upload; engine.chapter.beyond.audio)."""
    heard = engine_call(audio, values, signal, result)
    spec, signal, query, weights = heard.result.source, heard.signal, heard.query, heard.weights
    notes = [{_("part"): shown_name(NOTE_NAMES, label), _("total weight"): round(w, 4)}
             for label, w in weight_by_segment(spec.times, signal.segments, weights)]
    frames = [{_("frame"): j, _("time (s)"): round(float(spec.times[j]), 3), _("weight"): round(w, 4)}
              for j, w in heard.result.strongest_others(query, 5)]
    parts = tuple((shown_name(NOTE_NAMES, part), start, end) for part, start, end in signal.segments)   # as read
    chart = spectrogram_with_frames(spec, query, weights, parts)
    return (plot(chart), table(notes, [_("part"), _("total weight")]),
            table(frames, [_("frame"), _("time (s)"), _("weight")]),
            (signal.sample_rate, signal.samples.astype(np.float32)), f"{heard.sizes} {heard.spread} {heard.cost}")


def audio_attention_tab(signal: str, upload: str | None, frame: float, hop: float, d: float, seed: float,
                        query: float):
    """A sound cut into frames of N samples every `hop`, each frame's |FFT| in dB a token; the weights from
    one frame (-1: the middle of the last note) to every frame, and to each note."""
    values = PAGE.defaults() | {
        "signal": signal, "seed": whole(seed, 0, MAX_SEED, _("seed")),
        "d": whole(d, 0, limits.MAX_PROJECTION_DIM, _("projection width d")),
        "frame": whole(frame, limits.MIN_FRAME, limits.MAX_FRAME, _("frame length")),
        "hop": whole(hop, limits.MIN_HOP, limits.MAX_FRAME, _("hop")), "qframe": -1}
    sound = (engine_call(read_wav, upload_bytes(upload, limits.MAX_WAV_BYTES, "The recording"), "your recording")
             if upload else None)
    cut = engine_call(audio, values, sound)            # the frames first: the query must fall inside them
    if query != -1:
        values["qframe"] = whole(query, 0, cut.result.source.T - 1, _("query frame"))
    return audio_from_link(values, cut.signal, cut.result)


def residue_from_link(values: Mapping[str, Any], result=None):
    """Every residue's weights, the query's strongest partners and the sentences for the page's typed link values
    (engine.chapter.beyond.protein)."""
    read = engine_call(protein, values, result)
    labels, residue = read.labels, read.query
    L = len(labels)
    rows = [{_("residue"): labels[j], _("weight"): round(w, 4)} for j, w in read.result.strongest_others(residue, 5)]
    chart = heatmap_spec(read.result.attention.weights, labels, labels, title=_("α: row = residue attending"),
                         cell=28 if L <= 30 else max(6, 840 // L), digits=2, x_title=_("residue attended to"),
                         y_title=_("residue attending"))
    partner = (_("{residue}'s strongest partner: {partner}.", residue=labels[residue], partner=rows[0][_("residue")])
               if rows else _("{residue}'s strongest partner: itself.", residue=labels[residue]))
    summary = f"{read.sizes} {partner} {_(UNTRAINED_RESIDUES)} {read.cost}"
    return plot(chart), table(rows, [_("residue"), _("weight")]), summary


def residue_attention_tab(sequence: str, d: float, seed: float, residue: float):
    """A protein read residue by residue (one-hot letter, hydrophobicity, charge, volume), then the same
    attention: every residue's weights, and the strongest partners of one."""
    values = PAGE.defaults() | {"sequence": sequence or "", "seed": whole(seed, 0, MAX_SEED, _("seed")),
                                "d": whole(d, 0, limits.MAX_PROJECTION_DIM, _("projection width d")), "residue": 0}
    cut = engine_call(protein, values)                 # the residues first: the query must fall inside them
    values["residue"] = whole(residue, 0, len(cut.labels) - 1, _("residue"))
    return residue_from_link(values, cut.result)


def from_link(values: Mapping[str, Any]):
    """The outputs of the endpoint of the link's kind of data (image, audio or protein) for its typed values."""
    return {"image": image_from_link, "audio": audio_from_link, "protein": residue_from_link}[values["kind"]](values)


def named(names, values) -> list:
    """Choices named as the page names them (engine.chapter.beyond.shown_name), in each language."""
    return [(static(lambda value=value: shown_name(names, value)), value) for value in values]


def beyond_words_tab(demo: gr.Blocks) -> None:

    question(PAGE.question, LEAD)
    with gr.Row():
        d = gr.Slider(0, limits.MAX_PROJECTION_DIM, value=P["d"].default, step=16,
                      label=say("Projection to d numbers per token (0: keep every raw number)"))
        seed = gr.Number(P["seed"].default, label=label_of(P["seed"]), precision=0, minimum=0, maximum=MAX_SEED)

    heading(N_("Image patches"))
    with gr.Row():
        picture = gr.Dropdown(named(PICTURE_NAMES, BUNDLED_PICTURES), value=P["picture"].default,
                              label=say("Picture (scikit-image's, CC0)"))
        upload = gr.File(label=say("... or your own PNG or JPEG"), file_types=[".png", ".jpg", ".jpeg"],
                         type="filepath")
        side = gr.Slider(0, limits.MAX_IMAGE_SIDE, value=P["side"].default, step=16,
                         label=say("Resize to a square of this side, as ViT (the Vision Transformer) does "
                                   "(0: as it is)"))
    with gr.Row():
        patch = gr.Slider(limits.MIN_PATCH_SIZE, limits.MAX_PATCH_SIZE, value=P["patch"].default, step=1,
                          label=label_of(P["patch"]))
        fit = gr.Radio(named(FIT_NAMES, FITS), value=P["fit"].default, label=label_of(P["fit"]))
        overlay = gr.Radio(named(OVERLAY_NAMES, OVERLAY_STYLES), value=P["overlay"].default,
                           label=label_of(P["overlay"]))
    with gr.Row():
        row = gr.Number(P["qrow"].default, label=say("Query patch: row"), precision=0, minimum=0)
        col = gr.Number(P["qcol"].default, label=say("column"), precision=0, minimum=0)
    look = gr.Button(say("Attend from this patch"), variant="primary")
    image_summary = gr.Markdown(label=say("summary"))
    with gr.Row():
        overlay_chart = chart(label=say("Where the query patch looks"))
        partners = gr.Dataframe(label=say("Its strongest partners"), scale=0, min_width=360)
    inputs = [picture, upload, side, patch, fit, d, seed, row, col, overlay]
    look.click(image_attention_tab, inputs, [overlay_chart, partners, image_summary], api_name="image_attention")
    demo.load(image_attention_tab, inputs, [overlay_chart, partners, image_summary], api_visibility="private")

    heading(N_("Audio frames"))
    with gr.Row():
        signal = gr.Dropdown([(static(lambda name=name, what=what: f"{shown_name(SOUND_NAMES, name)}: {_(what)}"), name)
                              for name, what in SIGNALS.items()],
                             value=P["signal"].default,
                             label=label_of(P["signal"]))
        wav = gr.File(label=say("... or your own mono WAV"), file_types=[".wav"], type="filepath")
    with gr.Row():
        frame = gr.Slider(limits.MIN_FRAME, limits.MAX_FRAME, value=P["frame"].default, step=64,
                          label=label_of(P["frame"]))
        hop = gr.Slider(limits.MIN_HOP, 512, value=P["hop"].default, step=16, label=label_of(P["hop"]))
        query = gr.Number(P["qframe"].default, label=say("Query frame (-1: the middle of the last note)"), precision=0,
                          minimum=-1)
    listen = gr.Button(say("Attend from this frame"), variant="primary")
    audio_summary = gr.Markdown(label=say("summary"))
    sound = gr.Audio(label=say("The sound"), type="numpy", format="wav", interactive=False)
    spectrogram = chart(label=say("Spectrogram and the query frame's weights"))
    with gr.Row():
        notes = gr.Dataframe(label=say("Weight on each part"))
        frames = gr.Dataframe(label=say("Its strongest frames"))
    inputs = [signal, wav, frame, hop, d, seed, query]
    outputs = [spectrogram, notes, frames, sound, audio_summary]
    listen.click(audio_attention_tab, inputs, outputs, api_name="audio_attention")
    demo.load(audio_attention_tab, inputs, outputs, api_visibility="private")

    heading(N_("Protein residues"))
    with gr.Row():
        sequence = gr.Dropdown([(say(name), text) for name, text in PROTEIN_PRESETS.items()], allow_custom_value=True,
                               value=P["sequence"].default, scale=3,
                               label=say("Sequence (one-letter amino-acid codes; paste your own)"))
        residue = gr.Number(5, label=say("Residue (position, from 0)"), precision=0, minimum=0)   # C6 (the page: G1)
    read = gr.Button(say("Attend from this residue"), variant="primary")
    residue_summary = gr.Markdown(label=say("summary"))
    residue_chart = chart(label=say("Every residue's weights"))
    residue_partners = gr.Dataframe(label=say("Its strongest partners"))
    inputs = [sequence, d, seed, residue]
    read.click(residue_attention_tab, inputs, [residue_chart, residue_partners, residue_summary],
               api_name="residue_attention")
    demo.load(residue_attention_tab, inputs, [residue_chart, residue_partners, residue_summary],
              api_visibility="private")
