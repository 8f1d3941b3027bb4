"""Vega-Lite specs (plain dicts) for Beyond words: a picture with its patch grid and attention overlay,
a spectrogram with its frames as tokens, and the cost of T tokens. No Streamlit here; the tests
check every spec against the Vega-Lite schema.

Pictures travel inside the chart as a data URL (no files, no network). Colour: viridis for
intensities, orange for the chosen token, so nothing depends on telling red from green.
"""
from __future__ import annotations

import base64
import io

import numpy as np

from engine.charts import styled

QUERY_COLOUR = "#e08214"   # orange: the chosen token
# Viridis at ten evenly spaced points (matplotlib's table); linear between them is close to the original.
VIRIDIS = np.array([[68, 1, 84], [72, 40, 120], [62, 73, 137], [49, 104, 142], [38, 130, 142],
                    [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]]) / 255
OVERLAY_STYLES = ("spotlight", "heat")


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
                                        "legend": {"title": "weight / largest other", "orient": "bottom",
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
               "mark": {"type": "rect", "fill": None, "stroke": QUERY_COLOUR, "strokeWidth": 3},
               "encoding": box}
    return {"$schema": "https://vega.github.io/schema/vega-lite/v6.json",
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
               "ink": QUERY_COLOUR if t == query else "#1f6fb4"} for t in range(spec.T)]
    x_scale = {"domain": [t_start, t_end], "nice": False, "zero": False}
    x = {"field": "t0", "type": "quantitative", "scale": x_scale, "title": None}
    column = {"x": x, "x2": {"field": "t1"}, "y": {"datum": 0.0, "type": "quantitative"}, "y2": {"datum": f_top}}
    height = 220
    picture = {"data": {"values": [{"url": picture_url or spectrogram_picture(spec), "x": t_start, "y": f_top}]},
               # fixed pixels: inside a vconcat the "width" signal belongs to the child view, not this mark
               "mark": {"type": "image", "width": width, "height": height,
                        "align": "left", "baseline": "top", "aspect": False},
               "encoding": {"x": {"field": "x", "type": "quantitative", "scale": x_scale, "title": None},
                            "y": {"field": "y", "type": "quantitative", "title": "frequency (Hz)",
                                  "scale": {"domain": [0, f_top], "nice": False}},
                            "url": {"field": "url", "type": "nominal"}}}
    columns = {"mark": {"type": "rect", "opacity": 0.0},
               "encoding": {**column, "tooltip": [{"field": "frame", "type": "quantitative"},
                                                  {"field": "time", "type": "quantitative", "title": "centre (s)"}]}}
    if selection:
        columns["params"] = [{"name": selection, "select": {"type": "point", "fields": ["frame"], "on": "click",
                                                            "clear": False}}]
    chosen = {"transform": [{"filter": {"field": "frame", "equal": int(query)}}],
              "mark": {"type": "rect", "fill": None, "stroke": QUERY_COLOUR, "strokeWidth": 2.5}, "encoding": column}
    top = {"width": width, "height": height, "title": "Spectrogram: each column is one frame, one token",
           "layer": [picture, {"data": {"values": frames}, "layer": [columns, chosen]}]}
    bars = {"data": {"values": frames}, "mark": {"type": "rect"},
            "encoding": {"x": {**x, "title": "time (s)"}, "x2": {"field": "t1"},
                         "y": {"field": "weight", "type": "quantitative", "title": f"weight of frame {query}"},
                         "y2": {"datum": 0.0}, "color": {"field": "ink", "type": "nominal", "scale": None},
                         "tooltip": [{"field": "frame", "type": "quantitative"},
                                     {"field": "time", "type": "quantitative", "format": ".3f"},
                                     {"field": "weight", "type": "quantitative", "format": ".4f"}]}}
    layers = [bars]
    if segments:
        notes = [{"label": label, "start": start, "mid": (start + end) / 2} for label, start, end in segments]
        layers.append({"data": {"values": notes}, "mark": {"type": "rule", "strokeDash": [3, 3], "color": "gray"},
                       "encoding": {"x": {"field": "start", "type": "quantitative", "scale": x_scale}}})
        layers.append({"data": {"values": notes}, "mark": {"type": "text", "dy": -6, "baseline": "bottom"},
                       "encoding": {"x": {"field": "mid", "type": "quantitative", "scale": x_scale},
                                    "y": {"value": 12}, "text": {"field": "label", "type": "nominal"}}})
    bottom = {"width": width, "height": 150, "layer": layers}
    return {"$schema": "https://vega.github.io/schema/vega-lite/v6.json", "spacing": 4, "vconcat": [top, bottom]}


@styled
def cost_chart(rows: list[tuple[int, int, int]], current: int, *, unit: str = "patch size (pixels)") -> dict:
    """Scores T^2 against the patch size, log scale: halving the patch multiplies the cost by 16."""
    values = [{"size": int(size), "tokens": int(tokens), "scores": int(scores), "label": f"T = {int(tokens):,}",
               "ink": QUERY_COLOUR if size == current else "#1f6fb4"} for size, tokens, scores in rows]
    return {
        "title": "Scores T² as the patch shrinks (each point labelled with its tokens T)", "data": {"values": values},
        "height": 260,
        "encoding": {
            "x": {"field": "size", "type": "ordinal", "title": unit, "sort": "descending", "axis": {"labelAngle": 0}},
            "y": {"field": "scores", "type": "quantitative", "scale": {"type": "log"}, "title": "scores T² (log scale)",
                  "axis": {"format": "~s", "values": [1, 100, 10_000, 1_000_000, 100_000_000]}}},
        "layer": [
            {"mark": {"type": "line", "color": "#1f6fb4", "point": True}},
            {"mark": {"type": "point", "size": 160, "filled": True}, "encoding": {
                "color": {"field": "ink", "type": "nominal", "scale": None},
                "tooltip": [{"field": "size", "type": "ordinal", "title": unit},
                            {"field": "tokens", "type": "quantitative", "title": "tokens T", "format": ","},
                            {"field": "scores", "type": "quantitative", "title": "scores T²", "format": ","}]}},
            {"mark": {"type": "text", "dy": -12},
             "encoding": {"text": {"field": "label", "type": "nominal"}}},  # 'T = 196': a count, not a score
        ],
    }
