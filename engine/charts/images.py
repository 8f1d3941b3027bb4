"""Pictures: pixels as data URLs (no files, no network) and the charts drawn over them: a picture's patch grid
with its attention, a spectrogram with its frames, every head's weights as a thumbnail in the model view.
Viridis for intensities, orange for the chosen token, the heatmaps' orange - white - blue for weights against
the uniform 1/T, so nothing depends on telling red from green."""
from __future__ import annotations

import base64
import io

import numpy as np

from engine.i18n import _
from engine.numbers import fixed
from engine.charts.heatmaps import causal_mask_of, uniform_colours, uniform_shades
from engine.charts.palette import BLUE, ORANGE, TYPE_COLOURS, VIRIDIS
from engine.charts.style import PROJECTOR_TEXT_SIZE, styled
from engine.interpret.heads import TYPE_NAMES, TYPES


OVERLAY_STYLES = ("spotlight", "heat")
THUMB_CELL = 28                    # pixels per head in the model view: 30 layers fit a 940 px column

NOTE_LIFT = 4   # px between a note's name and the weights' plot under it


def data_url(pixels: np.ndarray, fmt: str = "JPEG") -> str:
    """uint8 (H, W) or (H, W, 3) pixels -> 'data:image/...;base64,...' for mark_image."""
    from PIL import Image

    array = np.asarray(pixels)
    if array.dtype != np.uint8:
        array = np.round(np.clip(array, 0, 1) * 255).astype(np.uint8)
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    buffer = io.BytesIO()
    options = {"quality": 90} if fmt == "JPEG" else {}
    Image.fromarray(array).save(buffer, format=fmt, **options)
    return f"data:image/{fmt.lower()};base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def viridis(values: np.ndarray) -> np.ndarray:
    """Values in [0, 1] -> (..., 3) RGB floats along viridis."""
    v = np.clip(np.asarray(values, dtype=float), 0, 1) * (len(VIRIDIS) - 1)
    return np.stack([np.interp(v, np.arange(len(VIRIDIS)), VIRIDIS[:, c]) for c in range(3)], axis=-1)


@styled
def patch_overlay(picture_url: str, height: int, width: int, rows: int, cols: int, patch: int,
                  weights: np.ndarray, query: int, *, style: str = "spotlight", display_width: int = 480,
                  selection: str | None = None) -> dict:
    """The picture, its patch grid, and alpha_query,j over every patch j as an overlay (a Vega-Lite spec).

    spotlight: patches darken as their weight falls (the attended ones stay lit);
    heat: each patch tinted with viridis by its weight. Colours run from 0 to the largest
    weight on any other patch (the query's weight on itself is usually the largest and
    would wash the rest out); the query patch is outlined in orange. `selection` names a
    click selection on the patches (field "patch").

    Written as a plain Vega-Lite dict rather than through Altair: a click redraws up to 1024
    patches, and Altair's per-encoding schema work cost more than the attention itself.
    The tests check the spec against the Vega-Lite schema.
    """
    weights = np.asarray(weights, dtype=float)
    others = np.delete(weights, query)
    top = float(others.max()) if others.size else float(weights.max())
    shade = np.clip(weights / top, 0, 1) if top > 0 else np.zeros_like(weights)
    r, c = np.divmod(np.arange(rows * cols), cols)
    # one short record per patch; Vega computes the pixel box and the darkness from it
    values = [{"patch": n, "row": int(r[n]), "col": int(c[n]), "weight": round(float(weights[n]), 5),
               "shade": round(float(shade[n]), 3)} for n in range(rows * cols)]
    boxes = [{"calculate": f"datum.col * {patch}", "as": "x0"},
             {"calculate": f"datum.col * {patch} + {patch}", "as": "x1"},
             {"calculate": f"datum.row * {patch}", "as": "y0"},
             {"calculate": f"datum.row * {patch} + {patch}", "as": "y1"},
             {"calculate": "0.85 * (1 - datum.shade)", "as": "darkness"}]
    scale = display_width / width
    x = {"field": "x0", "type": "quantitative", "axis": None,
         "scale": {"domain": [0, width], "nice": False, "zero": False}}
    y = {"field": "y0", "type": "quantitative", "axis": None,
         "scale": {"domain": [0, height], "nice": False, "zero": False, "reverse": True}}
    box = {"x": x, "x2": {"field": "x1"}, "y": y, "y2": {"field": "y1"}}
    tooltip = [{"field": "patch", "type": "quantitative"}, {"field": "row", "type": "quantitative"},
               {"field": "col", "type": "quantitative"}, {"field": "weight", "type": "quantitative", "format": ".4f"}]
    grid_lines = {"stroke": "white", "strokeOpacity": 0.25, "strokeWidth": 0.5}
    if style == "heat":
        cells = {"mark": {"type": "rect", "opacity": 0.6, **grid_lines},
                 "encoding": {**box, "tooltip": tooltip,
                              "color": {"field": "shade", "type": "quantitative",
                                        "scale": {"scheme": "viridis", "domain": [0, 1]},
                                        "legend": {"title": _("weight / largest other"), "orient": "bottom",
                                                   "direction": "horizontal"}}}}
    else:
        cells = {"mark": {"type": "rect", "fill": "black", **grid_lines},
                 "encoding": {**box, "tooltip": tooltip,
                              "opacity": {"field": "darkness", "type": "quantitative", "scale": None}}}
    if selection:
        cells["params"] = [{"name": selection, "select": {"type": "point", "fields": ["patch"], "on": "click",
                                                          "clear": False}}]
    picture = {"data": {"values": [{"url": picture_url, "x": 0, "y": 0}]},
               # the picture fills the plot, whatever size the page finally gives it
               "mark": {"type": "image", "width": {"expr": "width"}, "height": {"expr": "height"},
                        "align": "left", "baseline": "top", "aspect": False},
               "encoding": {"x": {**x, "field": "x"}, "y": {**y, "field": "y"},
                            "url": {"field": "url", "type": "nominal"}}}
    outline = {"transform": [{"filter": {"field": "patch", "equal": int(query)}}],
               "mark": {"type": "rect", "fill": None, "stroke": ORANGE, "strokeWidth": 3},
               "encoding": box}
    favourite = int(np.argmax(np.where(np.arange(weights.size) == query, -np.inf, weights))) if others.size else query
    said = dict(rows=rows, cols=cols, patches=rows * cols, patch=patch, query=query, query_row=query // cols,
                query_column=query % cols, own=fixed(weights[query], 4), favourite=favourite,
                favourite_row=favourite // cols, favourite_column=favourite % cols,
                most=fixed(weights[favourite], 4))
    sentence = (_("Picture cut into {rows} x {cols} = {patches} patches of {patch} x {patch} pixels; the query patch "
                  "{query} (row {query_row}, column {query_column}) is outlined, every patch tinted by the weight the "
                  "query gives it: {own} on itself, most on another to patch {favourite} (row {favourite_row}, "
                  "column {favourite_column}), {most}.", **said) if style == "heat" else
                _("Picture cut into {rows} x {cols} = {patches} patches of {patch} x {patch} pixels; the query patch "
                  "{query} (row {query_row}, column {query_column}) is outlined, every patch lit by the weight the "
                  "query gives it: {own} on itself, most on another to patch {favourite} (row {favourite_row}, "
                  "column {favourite_column}), {most}.", **said))
    return {"$schema": "https://vega.github.io/schema/vega-lite/v6.json", "description": sentence,
            "width": display_width, "height": round(height * scale),
            # "pad": keep the plot exactly this size (Streamlit's default "fit" squeezes the height)
            "autosize": {"type": "pad"}, "config": {"view": {"stroke": None}},
            "layer": [picture, {"data": {"values": values}, "transform": boxes, "layer": [cells, outline]}]}


def spectrogram_picture(spec) -> str:
    """The spectrogram as a viridis PNG data URL: time across, high frequencies on top, -80..0 dB."""
    return data_url(viridis((spec.db.T[::-1] + 80.0) / 80.0), "PNG")    # (bins, T, 3)


@styled
def spectrogram_with_frames(spec, query: int, weights: np.ndarray, segments=(), *, width: int = 640,
                            picture_url: str | None = None, selection: str | None = None) -> dict:
    """Top: the spectrogram (time across, frequency up, dB in viridis), the chosen frame outlined.
    Bottom: alpha_query,t for every frame t on the same time axis, notes labelled.

    A plain Vega-Lite dict (Altair's schema work took half a second per click); the tests
    check it against the schema. `selection` names a click selection on frames (field "frame").
    """
    half = spec.hop / spec.sample_rate / 2
    t_start, t_end = float(spec.times[0] - half), float(spec.times[-1] + half)
    f_top = float(spec.freqs[-1])
    weights = np.asarray(weights, dtype=float)
    frames = [{"frame": t, "t0": round(float(spec.times[t] - half), 5), "t1": round(float(spec.times[t] + half), 5),
               "time": round(float(spec.times[t]), 4), "weight": round(float(weights[t]), 6),
               "ink": ORANGE if t == query else BLUE} for t in range(spec.T)]
    x_scale = {"domain": [t_start, t_end], "nice": False, "zero": False}
    x = {"field": "t0", "type": "quantitative", "scale": x_scale, "title": None}
    column = {"x": x, "x2": {"field": "t1"}, "y": {"datum": 0.0, "type": "quantitative"}, "y2": {"datum": f_top}}
    height = 220
    picture = {"data": {"values": [{"url": picture_url or spectrogram_picture(spec), "x": t_start, "y": f_top}]},
               # fixed pixels: inside a vconcat the "width" signal belongs to the child view, not this mark
               "mark": {"type": "image", "width": width, "height": height,
                        "align": "left", "baseline": "top", "aspect": False},
               "encoding": {"x": {"field": "x", "type": "quantitative", "scale": x_scale, "title": None},
                            "y": {"field": "y", "type": "quantitative", "title": _("frequency (Hz)"),
                                  "scale": {"domain": [0, f_top], "nice": False}},
                            "url": {"field": "url", "type": "nominal"}}}
    columns = {"mark": {"type": "rect", "opacity": 0.0},
               "encoding": {**column, "tooltip": [{"field": "frame", "type": "quantitative"},
                                                  {"field": "time", "type": "quantitative", "title": _("centre (s)")}]}}
    if selection:
        columns["params"] = [{"name": selection, "select": {"type": "point", "fields": ["frame"], "on": "click",
                                                            "clear": False}}]
    chosen = {"transform": [{"filter": {"field": "frame", "equal": int(query)}}],
              "mark": {"type": "rect", "fill": None, "stroke": ORANGE, "strokeWidth": 2.5}, "encoding": column}
    top = {"width": width, "height": height, "title": _("Spectrogram: each column is one frame, one token"),
           "layer": [picture, {"data": {"values": frames}, "layer": [columns, chosen]}]}
    bars = {"data": {"values": frames}, "mark": {"type": "rect"},
            "encoding": {"x": {**x, "title": _("time (s)")}, "x2": {"field": "t1"},
                         "y": {"field": "weight", "type": "quantitative", "title": _("weight of frame {query}",
                             query=query)},
                         "y2": {"datum": 0.0}, "color": {"field": "ink", "type": "nominal", "scale": None},
                         "tooltip": [{"field": "frame", "type": "quantitative"},
                                     {"field": "time", "type": "quantitative", "format": ".3f"},
                                     {"field": "weight", "type": "quantitative", "format": ".4f"}]}}
    layers = [bars]
    if segments:
        notes = [{"label": label, "start": start, "mid": (start + end) / 2} for label, start, end in segments]
        layers.append({"data": {"values": notes}, "mark": {"type": "rule", "strokeDash": [3, 3], "color": "gray"},
                       "encoding": {"x": {"field": "start", "type": "quantitative", "scale": x_scale}}})
        # the names above the weights' plot, in the gap below the spectrogram's time axis: inside the plot they
        # lay over the tallest bars and the axis's numbers
        layers.append({"data": {"values": notes}, "mark": {"type": "text", "dy": -NOTE_LIFT, "baseline": "bottom"},
                       "encoding": {"x": {"field": "mid", "type": "quantitative", "scale": x_scale},
                                    "y": {"value": 0}, "text": {"field": "label", "type": "nominal"}}})
    bottom = {"width": width, "height": 150, "layer": layers}
    others = np.where(np.arange(weights.size) == query, -np.inf, weights)
    favourite = int(np.argmax(others)) if weights.size > 1 else query
    sentence = _("Spectrogram of {frames} frames (time across, frequency up), frame {query} at {time} s outlined; "
                 "under it the weight frame {query} gives every frame: {own} on itself, most on another to frame "
                 "{favourite} at {favourite_time} s, {most}.", frames=spec.T, query=query,
                 time=fixed(spec.times[query]), own=fixed(weights[query], 4), favourite=favourite,
                 favourite_time=fixed(spec.times[favourite]), most=fixed(weights[favourite], 4))
    return {"$schema": "https://vega.github.io/schema/vega-lite/v6.json", "description": sentence,
            "spacing": PROJECTOR_TEXT_SIZE + NOTE_LIFT + 2 if segments else 4,   # room for the names at any size
            "vconcat": [top, bottom]}


def thumbnail(alpha: np.ndarray) -> str:
    """One causal head's weights as a small PNG (data URI) in the upper half of the weights heatmaps' scale
    (heatmaps.uniform_colours): row i against its uniform weight 1/(i + 1), white at it or below it, blue
    above it up to 1; the future it cannot see grey. A head that spreads its weight evenly is white, not a
    triangle that fades from a dark first row (row 0's weight 1 is no choice). The orange half is left
    out: at 20 px the weights a head gives less than an even share filled its triangle with orange and
    hid the few keys it favours, which is what the thumbnail is for."""
    alpha = np.asarray(alpha, dtype=float)
    T = alpha.shape[0]
    pixels = uniform_colours(np.maximum(uniform_shades(alpha, causal_mask_of(alpha.shape)), 0.0))
    scale = max(2, 48 // T)   # each weight a square of scale x scale pixels
    return data_url(pixels.round().astype(np.uint8).repeat(scale, axis=0).repeat(scale, axis=1), "PNG")


def thumbnails(weights: np.ndarray) -> list[list[str]]:
    """thumbnail(alpha[l, h]) for every layer l and head h."""
    return [[thumbnail(weights[layer, head]) for head in range(weights.shape[1])] for layer in range(weights.shape[0])]


@styled
def model_view(images: list[list[str]], types: np.ndarray, scores: dict[str, np.ndarray], *,
               layers: tuple[int, int] | None = None, shown_types: list[str] | None = None,
               selected: tuple[int, int] | None = None, param: str = "head_pick") -> dict:
    """All heads as small heatmaps: layer across, head down, framed in the colour of their type.

    Clicking a head selects it (a point selection named `param` over the fields layer, head).
    Heads outside the layer range or the chosen types are left out. A plain Vega-Lite spec:
    the page redraws it on every click, and Altair's objects cost tens of ms to build.
    """
    n_layer, n_head = types.shape
    low, high = layers if layers is not None else (0, n_layer - 1)
    shown = set(shown_types) if shown_types is not None else set(TYPES)
    named = {kind: _(TYPE_NAMES.get(kind, kind)) for kind in TYPES}   # the legend's and tooltips' words
    rows = []
    for layer in range(n_layer):
        for head in range(n_head):
            kind = str(types[layer, head])
            if low <= layer <= high and kind in shown:
                rows.append({"layer": layer, "head": head, "type": named.get(kind, kind), "url": images[layer][head],
                             **{name: round(float(values[layer, head]), 3) for name, values in scores.items()}})
    x = {"field": "layer", "type": "ordinal", "title": _("layer"), "scale": {"domain": list(range(n_layer))},
         "axis": {"orient": "top", "labelAngle": 0}}
    y = {"field": "head", "type": "ordinal", "title": _("head"), "scale": {"domain": list(range(n_head))}}
    tooltip = [{"field": "layer", "type": "ordinal"}, {"field": "head", "type": "ordinal"},
               {"field": "type", "type": "nominal"}] + \
              [{"field": name, "type": "quantitative", "format": ".2f", "title": named.get(name, name)}
               for name in scores]
    frames = {"mark": {"type": "rect", "opacity": 0.9}, "encoding": {
        "x": x, "y": y, "tooltip": tooltip,
        "color": {"field": "type", "type": "nominal",
                  "scale": {"domain": [named[t] for t in TYPES], "range": [TYPE_COLOURS[t] for t in TYPES]},
                  "legend": {"orient": "bottom", "title": _("head type"), "columns": 6}}}}
    pictures = {"mark": {"type": "image", "width": THUMB_CELL - 8, "height": THUMB_CELL - 8, "smooth": False},
                "params": [{"name": param, "select": {"type": "point", "fields": ["layer", "head"], "on": "click",
                                                      "clear": False}}],
                "encoding": {"x": x, "y": y, "url": {"field": "url", "type": "nominal"}, "tooltip": tooltip}}
    layered = [frames, pictures]
    if selected is not None:
        layered.append({"data": {"values": [{"layer": selected[0], "head": selected[1]}]},
                        "mark": {"type": "rect", "fill": None, "stroke": "black", "strokeWidth": 3},
                        "encoding": {"x": x, "y": y}})
    # on a phone the grid turns (engine.charts.fitting): 30 layers down, heads across, at full size
    return {"data": {"values": rows}, "layer": layered, "usermeta": {"transposable": True},
            "width": {"step": THUMB_CELL}, "height": {"step": THUMB_CELL}}
