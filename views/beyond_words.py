"""Beyond words: image patches, spectrogram frames and amino-acid residues as tokens, one attention."""
from __future__ import annotations

from typing import Callable

import numpy as np
import streamlit as st

from engine import limits, numbers
from engine.beyond.code import audio_code, image_code, protein_code
from engine.chapter.beyond import (
    CUSTOM, FIT_NAMES, FRAMES, HOPS, KINDS, MAX_SEED, NOTE_NAMES, OVERLAY_NAMES, PAGE, PATCH_SIZES_FOR_COST,
    PICTURE_NAMES, PROJECTIONS, SAMPLE_RATE, SIDES, SOUND_NAMES, UNTRAINED_RESIDUES, UPLOAD, audio, image, protein,
    shown_name,
)
from engine.charts.heatmaps import heatmap_spec
from engine.i18n import _
from engine.charts.images import OVERLAY_STYLES, data_url, patch_overlay, spectrogram_picture, spectrogram_with_frames
from engine.charts.lines import cost_chart
from engine.beyond.modalities import (
    FITS, PROTEIN_PRESETS, SIGNALS, frame_attention, image_attention, load_image, patch_costs, patch_grid_position,
    read_wav, residue_attention, resize_square, segment_of, synth_signal, weight_by_segment
)
from ui import challenges, charts, code, formula, page, tables, url_state
from ui.loaders import BUNDLED_PICTURES, bundled_picture

P = PAGE.by_name


# ---- cached engine calls: a click only picks a row of weights already computed --------------

@st.cache_resource(max_entries=3, show_spinner=False)
def cached_image_attention(name: str, upload: bytes | None, side: int, patch: int, fit: str, d: int | None,
                           seed: int):
    pixels = load_image(upload).pixels if upload is not None else bundled_picture(name)
    if side:
        pixels = resize_square(pixels, side)
    result = image_attention(pixels, patch, fit, d, seed)
    picture = data_url(np.round(result.source.image * 255).astype(np.uint8))   # the picture as cut
    return pixels, result, picture


@st.cache_resource(max_entries=3, show_spinner=False)
def cached_frame_attention(name: str, upload: bytes | None, frame: int, hop: int, d: int | None, seed: int):
    signal = read_wav(upload, "your recording") if upload is not None else synth_signal(name, SAMPLE_RATE)
    result = frame_attention(signal, frame, hop, d, seed)
    return signal, result, spectrogram_picture(result.source)


@st.cache_resource(max_entries=8, show_spinner=False)
def cached_residue_attention(sequence: str, d: int | None, seed: int):
    return residue_attention(sequence, d, seed)


@st.cache_resource(max_entries=16, show_spinner=False)
def residue_heatmap_spec(sequence: str, d: int | None, seed: int) -> dict:
    """The residues' weights heatmap, its L x L cells already in Arrow (charts.prepared); shared, read-only."""
    result = cached_residue_attention(sequence, d, seed)
    labels = result.source.labels
    cell = 28 if len(labels) <= 30 else max(6, 840 // len(labels))
    return charts.prepared(heatmap_spec(result.attention.weights, labels, labels,
                                        title=_("α: row = residue attending"), cell=cell, digits=2,
                                        x_title=_("residue attended to"), y_title=_("residue attending")))


def cost_line(cost: str, shrink: str) -> None:
    st.markdown(f":material/functions: {cost} {shrink}")


def set_from_selection(chart_key: str, field: str, targets: dict[str, callable]) -> None:
    """A click on the chart `chart_key` (a name of this page's state): copy the clicked token's number
    into the widgets that choose it."""
    event = STATE.get(chart_key)
    points = (event or {}).get("selection", {}).get("token", []) if event else []
    if points and field in points[0]:
        value = int(points[0][field])
        for key, convert in targets.items():
            STATE[key] = convert(value)


page.header(PAGE)
st.markdown(_("Attention never asks what its vectors stand for: any list of vectors that are worth comparing will "
              "do. Here each kind of data becomes a matrix of tokens, one row each, and the same "
              "`softmax(x xᵀ / √d) x` runs on it. Nothing is trained: tokens attend to tokens that **look alike**, "
              "which is the starting point a trained model learns from: ViT (Vision Transformer) reads an image as "
              "patches, AST (Audio Spectrogram Transformer) a sound's spectrogram as patches, and ESM, a protein "
              "language model, a protein as its amino acids."))

STATE = url_state.PageState(PAGE)
STATE.init()

# sections that rerun alone (ui.page.section): one per kind of data, and the picture inside the image's
IMAGE, AUDIO, PROTEIN = "beyond.image", "beyond.audio", "beyond.protein"   # what one kind of data shows
SECTIONS = {"image": IMAGE, "audio": AUDIO, "protein": PROTEIN}
OVERLAY = "beyond.overlay"   # the picture with the query's weights over it: all that the overlay style changes
LINKED = {"image": ["picture", "side", "patch", "fit", "overlay", "qrow", "qcol"],   # the link's values per kind
          "audio": ["signal", "frame", "hop", "qframe"],
          "protein": ["protein", "sequence", "residue"]}


def mirror() -> None:
    """The kind's values into the link (the others stay out of it, as on a whole run)."""
    STATE.mirror(["kind", "d", "seed"] + LINKED[STATE["kind"]])


def only(*sections: str, then: Callable[[], None] | None = None) -> Callable[[], None]:
    """ui.page.only with this page's link: a widget's on_change that runs `then` (the widget's own callback),
    mirrors the kind's values, then reruns only these sections and the QR code."""
    rerun_sections = page.only(None, *sections)

    def changed() -> None:
        if then is not None:
            then()
        mirror()
        rerun_sections()
    return changed


def whole_run() -> None:
    """The kind's on_change: returning normally, it makes an interaction that also changed a widget rerunning
    only a section (a number or the sequence is sent when it loses the focus, so typing one and then clicking
    the kind is one interaction) rerun the whole page, as the kind needs; Streamlit 1.67 would otherwise rerun
    only that section and leave the kind undrawn."""


def values() -> dict:
    """The page's typed values, as the state holds them now (another kind's, whose widgets are not drawn and so not
    kept, at their defaults: only the kind's own values are read)."""
    return {param.name: STATE.get(param.name, param.default) for param in PAGE.params}


def projection() -> tuple[int | None, int]:
    """The projection's d (None: keep every raw number) and seed, read from session state (a section reruns
    alone)."""
    return STATE["d"] or None, int(STATE["seed"])


# the three kinds of data side by side at the top of the page, not hidden in the sidebar
st.radio(P["kind"].label, list(KINDS), key=STATE.key("kind"), format_func=lambda k: _(KINDS[k]), horizontal=True,
         on_change=whole_run)

with st.sidebar:
    st.header(_("Settings"))
    kind = STATE["kind"]   # the kind's settings below: changing the kind redraws the sidebar, a whole run
    st.selectbox(P["d"].label, PROJECTIONS, key=STATE.key("d"),
                 format_func=lambda d: _("none (keep every raw number)") if d == 0 else str(d), help=P["d"].help,
                 on_change=only(SECTIONS[kind]))
    st.number_input(P["seed"].label, 0, MAX_SEED, key=STATE.key("seed"), step=1,
                    on_change=only(SECTIONS[kind]))
    if kind == "image":
        st.subheader(_("Image"))
        st.selectbox(P["picture"].label, list(BUNDLED_PICTURES) + [UPLOAD], key=STATE.key("picture"),
                     format_func=lambda name: shown_name(PICTURE_NAMES, name), help=P["picture"].help,
                     on_change=only(IMAGE))
        st.selectbox(P["side"].label, list(SIDES), key=STATE.key("side"), format_func=lambda side: _(SIDES[side]),
                     help=P["side"].help, on_change=only(IMAGE))
        st.number_input(P["patch"].label, limits.MIN_PATCH_SIZE, limits.MAX_PATCH_SIZE, key=STATE.key("patch"),
                        step=1, help=P["patch"].help, on_change=only(IMAGE))
        st.radio(P["fit"].label, FITS, key=STATE.key("fit"), horizontal=True,
                 format_func=lambda fit: shown_name(FIT_NAMES, fit),
                 on_change=only(IMAGE))
        st.radio(P["overlay"].label, OVERLAY_STYLES, key=STATE.key("overlay"), horizontal=True,
                 format_func=lambda style: shown_name(OVERLAY_NAMES, style),
                 help=P["overlay"].help, on_change=only(OVERLAY))
    elif kind == "audio":
        st.subheader(_("Audio"))
        st.selectbox(P["signal"].label, list(SIGNALS) + [UPLOAD], key=STATE.key("signal"),
                     format_func=lambda s: _(s) if s == UPLOAD else f"{shown_name(SOUND_NAMES, s)}: {_(SIGNALS[s])}",
                     on_change=only(AUDIO))
        st.select_slider(P["frame"].label, FRAMES, key=STATE.key("frame"), help=P["frame"].help,
                         on_change=only(AUDIO))
        st.select_slider(P["hop"].label, HOPS, key=STATE.key("hop"), help=P["hop"].help, on_change=only(AUDIO))
    else:
        st.subheader(_("Protein"))
        st.selectbox(P["protein"].label, list(PROTEIN_PRESETS) + [CUSTOM], key=STATE.key("protein"), format_func=_,
                     on_change=only(PROTEIN, then=lambda: STATE.__setitem__(
                         "sequence", PROTEIN_PRESETS.get(STATE["protein"], STATE["sequence"]))))

st.subheader({"image": _("Tokens from an image cut into patches"),
              "audio": _("Tokens from a sound cut into spectrogram frames"),
              "protein": _("Tokens from a protein read residue by residue")}[kind])


# ==== image ====================================================================================
@page.section(OVERLAY)
def overlay_section(url: str, cut_h: int, cut_w: int, rows: int, cols: int, patch: int, weights: np.ndarray,
                    query: int) -> None:
    """The picture with the query's weights over it. The overlay style reruns only this; the rest comes from the
    image section's last run (every other setting, and a click on a patch, reruns that section)."""
    chart = patch_overlay(url, cut_h, cut_w, rows, cols, patch, weights, query, style=STATE["overlay"],
                          selection="token", display_width=min(500, max(320, 4 * cut_w)))
    charts.show(chart, key=STATE.key("overlay_chart"), on_select=only(IMAGE, then=lambda: (
        set_from_selection("overlay_chart", "patch", {"qrow": lambda n: n // cols, "qcol": lambda n: n % cols}))),
        selection_mode="token")


@page.section(IMAGE)
def image_section() -> None:
    d, seed = projection()
    upload = None
    name = STATE["picture"]
    if name == UPLOAD:
        file = st.file_uploader(_("Your picture (PNG or JPEG)"), type=["png", "jpg", "jpeg"],
                                key=STATE.key("image_file"),
                                max_upload_size=page.upload_megabytes(limits.MAX_IMAGE_UPLOAD_BYTES),
                                help=_("Up to {megabytes} MB and {png} million pixels for a PNG ({jpeg} million for a "
                                       "JPEG); larger pictures are shrunk to {side} pixels on the longer side.",
                                       megabytes=f"{limits.MAX_IMAGE_UPLOAD_BYTES / 1e6:.0f}",
                                       png=numbers.fixed(limits.MAX_IMAGE_PIXELS / 1e6, 1),
                                       jpeg=f"{limits.MAX_JPEG_PIXELS / 1e6:.0f}", side=limits.MAX_IMAGE_SIDE))
        if file is None:
            st.info(_("Upload a PNG or JPEG, or pick one of the bundled pictures in the sidebar."),
                    icon=":material/upload:")
            return
        upload = file.getvalue()
    patch, fit, side = int(STATE["patch"]), STATE["fit"], int(STATE["side"])
    computed = page.run_engine(cached_image_attention, name, upload, side, patch, fit, d, seed)
    if computed is None:
        return
    pixels, result, url = computed
    shown = image(values(), pixels, result)
    patches = result.source
    rows, cols = patches.rows, patches.cols
    STATE["qrow"], STATE["qcol"] = shown.row, shown.col
    mirror()   # the query as it now fits the grid (the widget's callback mirrored it before this ran)
    query = shown.query
    height, width = pixels.shape[:2]
    edge = ""
    if any(patches.trimmed):
        edge = " " + _("{rows} rows and {cols} columns that do not fill a patch were cropped, half from each side.",
                       rows=height % patch, cols=width % patch)
    elif any(patches.padded):
        edge = " " + _("{rows} black rows and {cols} black columns were added, half on each side, so whole patches "
                       "fit.", rows=sum(patches.padded[:2]), cols=sum(patches.padded[2:]))
    st.markdown(shown.sizes + edge)
    cut_h, cut_w = patches.image.shape[:2]
    left, right = st.columns([3, 2])
    with left:
        overlay_section(url, cut_h, cut_w, rows, cols, patch, result.attention.weights[query], query)
    with right:
        st.markdown(_("**Click a patch** (or choose it here): the orange square is the query; the picture stays "
                      "lit where it puts its attention."))
        a, b = st.columns(2)
        a.number_input(P["qrow"].label, 0, rows - 1, key=STATE.key("qrow"), step=1, on_change=only(IMAGE))
        b.number_input(P["qcol"].label, 0, cols - 1, key=STATE.key("qcol"), step=1, on_change=only(IMAGE))
        weights = result.attention.weights[query]
        strongest = result.strongest_others(query, 5)
        st.markdown(shown.itself)
        tables.table({_("patch j (row, col)"): [f"{j} {patch_grid_position(j, cols)}" for j, _w in strongest],
                      _("weight α"): [float(w) for _j, w in strongest]}, digits=4)
    if not strongest:  # a patch as large as the picture: one token, nothing else to attend to
        st.info(_("The picture is a single patch, so it can only attend to itself: choose a smaller patch size."),
                icon=":material/info:")
    else:
        j, w = strongest[0]
        formula.formula_with_numbers(
            r"\alpha_{qj} = \mathrm{softmax}_j\Big(\frac{x_q \cdot x_j}{\sqrt{d}}\Big)",
            rf"\alpha_{{{query},{j}}} = \frac{{\exp({numbers.latex(result.attention.scaled[query, j])})}}"
            rf"{{\sum_{{k=0}}^{{{patches.N - 1}}} \exp(x_{{{query}}} \cdot x_k / \sqrt{{d}})}} = {numbers.latex(w, 4)}",
            caption=_("x_j is patch j after centring, the seeded projection and LayerNorm (length √d). Q = K = V = x: "
                      "no learned W_Q or W_K, so the score says only how alike two patches look."))
    cost_line(shown.cost,
              _("Halve the patch side and T grows four times, the scores sixteen times: that is why ViT uses 16 x 16."))
    costs = patch_costs(height if not any(patches.padded) else patches.original_shape[0],
                        width if not any(patches.padded) else patches.original_shape[1], PATCH_SIZES_FOR_COST,
                        fit="pad" if fit == "pad" else "crop")
    charts.show(cost_chart(costs, patch), width="stretch")
    code.show_code({"Python": image_code(None if name == UPLOAD else name, side or None, patch, fit, d, seed, query)},
                   name="image")
    challenges.try_this([
        challenges.Challenge(_("Cut the picture into exactly 49 tokens."), patches.N == 49,
                             hint=_("Resize to 224 x 224 and set the patch size p to 32: 224 / 32 = 7, and 7 x 7 = "
                                    "49."),
                             solution={STATE.key("side"): 224, STATE.key("patch"): 32}),
        challenges.Challenge(_("Make attention need more than a million scores."), patches.N ** 2 > 1_000_000,
                             hint=_("Resize to '{as_it_is}' (the 512 x 512 astronaut) and use 16-pixel patches.",
                                    as_it_is=_(SIDES[0])),
                             solution={STATE.key("picture"): "astronaut", STATE.key("side"): 0,
                                       STATE.key("patch"): 16}),
        challenges.Challenge(_("Find a patch that keeps less than {share} of its attention for itself.",
                               share=numbers.fixed(0.1, 1)),
                             bool(weights[query] < 0.1),
                             hint=_("Plain background has many look-alikes to share its weight with: on the 224 x 224 "
                                    "astronaut, try row 0, column 7."),
                             solution={STATE.key("picture"): "astronaut", STATE.key("side"): 224,
                                       STATE.key("patch"): 16, STATE.key("qrow"): 0, STATE.key("qcol"): 7}),
    ])


# ==== audio ====================================================================================
@page.section(AUDIO)
def audio_section() -> None:
    d, seed = projection()
    upload = None
    name = STATE["signal"]
    if name == UPLOAD:
        file = st.file_uploader(_("Your recording (mono WAV)"), type=["wav"], key=STATE.key("wav_file"),
                                max_upload_size=page.upload_megabytes(limits.MAX_WAV_BYTES),
                                help=_("Uncompressed PCM, one channel, up to {seconds} s and {megabytes} MB.",
                                       seconds=f"{limits.MAX_AUDIO_SECONDS:.0f}",
                                       megabytes=f"{limits.MAX_WAV_BYTES / 1e6:.0f}"))
        if file is None:
            st.info(_("Upload a short mono WAV, or pick a synthesised sound in the sidebar."),
                    icon=":material/upload:")
            return
        upload = file.getvalue()
    computed = page.run_engine(cached_frame_attention, name, upload, int(STATE["frame"]),
                               int(STATE["hop"]), d, seed)
    if computed is None:
        return
    signal, result, picture = computed
    spec = result.source
    heard = audio(values(), signal, result)   # -1 (the page picks one), or a frame of a longer sound: the last note's
    query = heard.query
    # Written on every run, as the image's row and column are: a new T redraws the slider as a new widget (its
    # bounds are part of its identity), and that takes a value written in this run, else what the key held before
    # the slider was first drawn (-1: a traceback) or its minimum (0: the chart and the slider disagree).
    STATE["qframe"] = query
    mirror()   # the query frame as it now fits (the widget's callback mirrored it before this ran)
    st.audio(signal.samples, sample_rate=signal.sample_rate)
    st.markdown(heard.sizes)
    parts = tuple((shown_name(NOTE_NAMES, part), start, end) for part, start, end in signal.segments)   # as read
    chart = spectrogram_with_frames(spec, query, result.attention.weights[query], parts,
                                    picture_url=picture, selection="token")
    charts.show(chart, key=STATE.key("spectrogram_chart"), on_select=only(AUDIO, then=lambda: (
        set_from_selection("spectrogram_chart", "frame", {"qframe": int}))), selection_mode="token")
    st.slider(P["qframe"].label, 0, spec.T - 1, key=STATE.key("qframe"),
              on_change=only(AUDIO))
    weights = result.attention.weights[query]
    by_note = weight_by_segment(spec.times, signal.segments, weights)
    here = segment_of(float(spec.times[query]), signal.segments)
    left, right = st.columns([2, 3])
    with left:
        st.markdown(heard.spread)
        tables.table({_("part"): [shown_name(NOTE_NAMES, part) for part, _w in by_note],
                      _("total weight"): [float(w) for _part, w in by_note]}, digits=3)
    with right:
        strongest = result.strongest_others(query, 5)
        time, weight = _("time (s)"), _("weight α")
        tables.table({_("frame"): [j for j, _w in strongest], time: [float(spec.times[j]) for j, _w in strongest],
                      weight: [float(w) for _j, w in strongest]}, formats={time: "%.3f", weight: "%.4f"})
    formula.formula_with_numbers(
        r"X_t = \big|\mathrm{FFT}(w \odot s_{th\,:\,th+N})\big|",
        rf"T = 1 + \left\lfloor \frac{{{spec.signal.size} - {spec.frame}}}{{{spec.hop}}} \right\rfloor = {spec.T},"
        rf"\quad \alpha_{{{query},{strongest[0][0]}}} = {numbers.latex(strongest[0][1], 4)}",
        caption=_("w is the Hann window, h the hop; each frame's |FFT| in decibels is one token, then the same "
                  "attention as for patches."))
    cost_line(heard.cost, _("Halve the hop and T doubles, the scores four times."))
    code.show_code({"Python": audio_code(None if name == UPLOAD else name, spec.frame, spec.hop, d, seed, query,
                                         upload)}, name="audio")
    best = strongest[0][0]
    challenges.try_this([
        challenges.Challenge(_("In the melody, choose a frame of the first C and check that the repeated C (its "
                               "twin, {seconds} s later) gets more weight than the D and the E together.",
                               seconds=numbers.fixed(1.2, 1)),
                             name == "melody" and here == "C" and dict(by_note)["C again"] >
                             dict(by_note)["D"] + dict(by_note)["E"],
                             hint=_("Click a column near t = {t} s (or set the query frame to 6 at the hop of 128).",
                                    t=numbers.fixed(0.1, 1)),
                             solution={STATE.key("signal"): "melody", STATE.key("hop"): 128, STATE.key("qframe"): 6}),
        challenges.Challenge(_("Switch to the chirp: make the chosen frame's strongest partner lie within {seconds} s "
                               "of it.", seconds=numbers.fixed(0.05, 2)),
                             name == "chirp" and abs(spec.times[best] - spec.times[query]) <= 0.05,
                             hint=_("Choose the chirp as the sound: a sliding tone never repeats, so only its "
                                    "neighbours look alike."),
                             solution={STATE.key("signal"): "chirp"}),
        challenges.Challenge(_("Make the melody fewer than 40 tokens (under {scores} scores).",
                               scores=numbers.grouped(1_600)),
                             name == "melody" and spec.T < 40, hint=_("Raise the hop to 512."),
                             solution={STATE.key("signal"): "melody", STATE.key("hop"): 512}),
    ])


# ==== protein ==================================================================================
@page.section(PROTEIN)
def protein_section() -> None:
    d, seed = projection()
    st.text_area(P["sequence"].label, key=STATE.key("sequence"),
                 height=90,
                 max_chars=limits.MAX_SEQUENCE_TEXT_CHARS, on_change=only(PROTEIN))
    result = page.run_engine(cached_residue_attention, STATE["sequence"], d, seed)
    if result is None:
        return
    read = protein(values(), result)
    residues = result.source
    labels = residues.labels
    STATE["residue"] = read.query
    mirror()   # the residue as it now fits the sequence (the widget's callback mirrored it before this ran)
    query = read.query
    st.markdown(read.sizes)
    charts.show(residue_heatmap_spec(STATE["sequence"], d, seed))
    st.selectbox(P["residue"].label, range(len(labels)), key=STATE.key("residue"), format_func=lambda i: labels[i],
                 on_change=only(PROTEIN))
    strongest = result.strongest_others(query, 5)
    left, right = st.columns([2, 3])
    with left:
        tables.table({_("residue"): [labels[j] for j, _w in strongest],
                      _("weight α"): [float(w) for _j, w in strongest]}, digits=4)
    with right:
        st.latex(rf"x_i = \mathrm{{LN}}\big(([\,\mathrm{{onehot}}(a_i),\ \mathrm{{KD}}(a_i)/{numbers.latex(4.5, 1)},\ "
                 rf"q(a_i),\ V(a_i)/{numbers.latex(227.8, 1)}\,] - \bar f)\, W\big)")
        st.latex(rf"\alpha_{{{labels[query]},{labels[strongest[0][0]]}}} = {numbers.latex(strongest[0][1], 4)}")
        st.caption(_("KD: Kyte-Doolittle hydrophobicity; q: charge near pH 7; V: volume in Å³."))
    st.markdown(_(UNTRAINED_RESIDUES) + " " + _(
        "A protein language model such as ESM learns heads whose weights trace which residues touch in the folded "
        "protein. In insulin, cysteines 6 and 11 of the A chain are bonded to each other, while A7 and A20 bond to "
        "cysteines of the B chain (B7, B19), a second sequence you can load from the list."))
    cost_line(read.cost, _("A protein of {n} residues needs a million scores per head.", n=numbers.grouped(1_000)))
    code.show_code({"Python": protein_code(residues.sequence, d, seed, query)}, name="protein")
    challenges.try_this([
        challenges.Challenge(_("Choose a cysteine (C) and check that its strongest partner is another cysteine."),
                             residues.sequence[query] == "C" and residues.sequence[strongest[0][0]] == "C",
                             hint=_("Insulin's A chain has cysteines at 6, 7, 11 and 20: choose C6."),
                             solution={STATE.key("protein"): "Human insulin, A chain",
                                       STATE.key("sequence"): PROTEIN_PRESETS["Human insulin, A chain"],
                                       STATE.key("residue"): 5}),
        challenges.Challenge(_("Paste a sequence of your own (a FASTA entry works)."),
                             residues.sequence not in PROTEIN_PRESETS.values(),
                             hint=_("Type any letters of the 20 amino acids into the sequence box, such as "
                                    "MKTAYIAKQR."),
                             solution={STATE.key("sequence"): "MKTAYIAKQR"}),
    ])


{"image": image_section, "audio": audio_section, "protein": protein_section}[kind]()

mirror()

page.further_reading(PAGE.reading)
page.next_idea(__file__)
