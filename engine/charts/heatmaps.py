"""Heatmaps: a matrix as coloured cells, numbers in them where there are few (attention weights and
scores, several heads at once, the bigram table, positional encodings and their dot products, a model's
depth against positions or heads)."""
from __future__ import annotations

import numpy as np

from engine import limits
from engine.i18n import N_, _
from engine.numbers import fixed, grouped
from engine.charts.palette import CHANGE_SCALE, DARK_LOW_SCHEMES, MASKED, UNIFORM_SCALE, ink, rgb
from engine.charts.style import panel, styled, unique_labels, visible

MAX_CELLS_WITH_NUMBERS = 400
UNIFORM_LEGEND = [N_("weight: above / below"), N_("the uniform 1/T")]   # two lines, each shown with _()
UNIFORM_LABELS = "datum.value < -0.5 ? '0' : datum.value > 0.5 ? '1' : '1/T'"
HEADS_PER_ROW = 4


def rows_are_weights(values: np.ndarray) -> bool:
    """Every row a distribution (no negative value, the finite values summing to 1): attention weights."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or not values.size:
        return False
    finite = np.where(np.isfinite(values), values, 0.0)
    return bool((finite >= -1e-9).all() and np.allclose(finite.sum(axis=1), 1.0, atol=1e-3))


def keys_seen(weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """T_i: how many keys row i can see. With a mask (True where the key is visible, as in
    engine.attention.mechanism) its count per row, so with a causal mask row i sees i + 1; without one, every
    key with a number."""
    weights = np.asarray(weights, dtype=float)
    seen = np.isfinite(weights) if mask is None else np.asarray(mask, dtype=bool) & np.isfinite(weights)
    return seen.sum(axis=1)


def causal_mask_of(shape: tuple[int, int]) -> np.ndarray:
    """True where query i may see key j: j <= i (the last rows of a longer past see all the keys before)."""
    rows, cols = shape
    return np.arange(cols)[None, :] <= np.arange(rows)[:, None] + (cols - rows)


def uniform_shades(weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Each weight's place on a diverging scale centred on its row's uniform weight 1/T_i (keys_seen):
    0 at 1/T_i, +1 at weight 1 (all of the row on this key), -1 at weight 0, linear on each side. A row of
    equal weights is all 0 (it prefers no key), a near-uniform row stays near 0, a one-hot row reaches
    both ends; a row that sees one key only is 0 (its weight 1 was no choice). NaN where there is no
    number or the key is masked."""
    w = np.asarray(weights, dtype=float)
    T = np.maximum(keys_seen(w, mask), 1)[:, None]
    uniform = 1.0 / T
    with np.errstate(invalid="ignore", divide="ignore"):
        above = (w - uniform) / np.where(T > 1, 1.0 - uniform, 1.0)
        below = (w - uniform) / uniform
        shades = np.clip(np.where(w >= uniform, above, below), -1.0, 1.0)
    hidden = ~np.isfinite(w) if mask is None else ~(np.asarray(mask, dtype=bool) & np.isfinite(w))
    return np.where(hidden, np.nan, shades)


def uniform_colours(shades: np.ndarray) -> np.ndarray:
    """Shades from uniform_shades -> (..., 3) RGB 0..255 along palette.UNIFORM_SCALE (pale orange at -1, white
    at 0, blue at +1), interpolated in RGB as the specs ask Vega to; masked grey where a shade is NaN."""
    shades = np.asarray(shades, dtype=float)
    stops = np.array([rgb(colour) for colour in UNIFORM_SCALE])
    where = np.nan_to_num(shades, nan=0.0)
    colours = np.stack([np.interp(where, [-1.0, 0.0, 1.0], stops[:, c]) for c in range(3)], axis=-1)
    return np.where(np.isnan(shades)[..., None], rgb(MASKED), colours)


CHANGE = "change"   # the scheme of a signed change: palette.CHANGE_SCALE, orange below 0, white at 0, blue above


def change_scale(low: float, high: float) -> dict:
    """The colour scale of a signed change on [low, high]: orange at low, white at 0, blue at high (a side that
    does not reach past 0 stays white to pale)."""
    low, high = min(float(low), 0.0), max(float(high), 0.0)
    return {"domain": [low or -1.0, 0, high or 1.0], "range": list(CHANGE_SCALE), "interpolate": "rgb", "clamp": True}


def change_colours(values, low: float, high: float) -> np.ndarray:
    """(..., 3) RGB 0..255 of each value on change_scale(low, high), as Vega draws it (for the ink of its number)."""
    scale = change_scale(low, high)
    stops = np.array([rgb(colour) for colour in scale["range"]])
    where = np.clip(np.nan_to_num(np.asarray(values, dtype=float)), scale["domain"][0], scale["domain"][-1])
    return np.stack([np.interp(where, scale["domain"], stops[:, c]) for c in range(3)], axis=-1)


@styled
def heatmap_spec(matrix, row_labels: list[str], col_labels: list[str], *, title: str = "",
                 x_title: str = N_("key (attended to)"), y_title: str = N_("query (attending)"),
                 value_name: str = N_("weight"), scheme: str = "blues", digits: int = 3,
                 domain: tuple[float, float] | None = None, cell: int = 46,
                 max_cells_with_numbers: int = MAX_CELLS_WITH_NUMBERS, color_by: str | None = None,
                 mask: np.ndarray | None = None, causal: bool = False, legend_orient: str | None = None) -> dict:
    """A labelled heatmap as a Vega-Lite spec: rows top to bottom as in the matrix, numbers in each cell.

    color_by "all": one colour scale for every cell (`scheme`, on `domain` or the data's range; the scheme CHANGE
    for a signed change: orange below 0, white at 0, blue above, as the pair reads on every page).
    "uniform": attention weights against their row's uniform weight 1/T (uniform_shades): white at 1/T,
    blue above it up to 1, orange below it down to a pale, quiet orange at 0, so a uniform row is white, a
    near-uniform one pale, only a decisive row reaches full blue, and a row of zeros never looks strong; the
    numbers printed and in the tooltip stay the true values.
    None (the default): "uniform" for attention weights (every row a distribution, on no domain or 0..1),
    "all" for anything else (scores, cosines). `mask` (True where a key is visible, as in
    engine.attention.mechanism) sets each row's T and draws the hidden cells grey; `causal` is the causal mask (row i
    sees keys 0..i, its centre 1/(i + 1)). Every number is printed in black
    or white, whichever contrasts more with its cell. `legend_orient` places the colour legend: by default
    under the weights (their two-line legend beside them made the chart wider than a phone), right of
    anything else.

    Written as a plain spec because pages redraw it on every edit: building the same chart
    through Altair's objects costs tens of milliseconds, this costs well under one.
    """
    values = np.asarray(matrix, dtype=float)
    rows, cols = unique_labels(list(row_labels)), unique_labels(list(col_labels))
    if color_by is None:
        weights_domain = domain is None or tuple(float(d) for d in domain) == (0.0, 1.0)
        color_by = "uniform" if weights_domain and rows_are_weights(values) else "all"
    if color_by not in ("uniform", "all"):
        raise ValueError(f"color_by is 'uniform' or 'all', not {color_by!r}.")
    if causal and mask is None:
        mask = causal_mask_of(values.shape)
    visible = np.ones(values.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    if visible.shape != values.shape:
        raise ValueError(_("The mask must have one entry per cell, shape {shape}; it has {found}.", shape=values.shape,
                           found=visible.shape))
    finite = values[np.isfinite(values)]
    if color_by == "uniform":
        shades = uniform_shades(values, visible)
        inks = [ink(colour) for colour in uniform_colours(shades).reshape(-1, 3)]
        uniform = 1.0 / np.maximum(keys_seen(values, visible), 1)
    else:
        low, high = domain if domain else ((finite.min(), finite.max()) if finite.size else (0.0, 1.0))
        middle = (low + high) / 2
        dark_low = scheme in DARK_LOW_SCHEMES
        inks = ([ink(colour) for colour in change_colours(values.ravel(), low, high)] if scheme == CHANGE else
                ["white" if ((v < middle) if dark_low else (v > middle)) else "black" for v in values.ravel()])
    records = []
    for i, row in enumerate(rows):
        for j, col in enumerate(cols):
            v = float(values[i, j])
            ok = bool(np.isfinite(v))
            record = {"row": row, "col": col, value_name: v if ok else None, "i": i, "j": j,
                      "text": fixed(v, digits) if ok else "",
                      "ink": inks[i * len(cols) + j] if ok and visible[i, j] else "black"}
            if color_by == "uniform":
                record["uniform 1/T"] = round(float(uniform[i]), 4)
                record["shade"] = round(float(shades[i, j]), 4) if np.isfinite(shades[i, j]) else None
            if mask is not None:
                record["seen"] = bool(visible[i, j])
            records.append(record)
    tooltip = [{"field": "row", "type": "nominal", "title": _(y_title)},
               {"field": "col", "type": "nominal", "title": _(x_title)},
               {"field": value_name, "type": "quantitative", "format": f".{digits}f", "title": _(value_name)}]
    legend_orient = legend_orient or ("bottom" if color_by == "uniform" else "right")
    if color_by == "uniform":
        colour = {"field": "shade", "type": "quantitative", "title": _("weight against the uniform 1/T"),
                  "scale": {"domain": [-1, 0, 1], "range": list(UNIFORM_SCALE), "interpolate": "rgb"},
                  "legend": {"title": [_(line) for line in UNIFORM_LEGEND], "values": [-1, 0, 1],
                      "labelExpr": UNIFORM_LABELS,
                             "orient": legend_orient}}
        tooltip.append({"field": "uniform 1/T", "type": "quantitative", "format": ".3f"})
    else:
        scale = (change_scale(low, high) if scheme == CHANGE else
                 {"scheme": scheme} | ({"domain": list(domain)} if domain else {}))
        colour = {"field": value_name, "type": "quantitative", "scale": scale,
                  "legend": {"title": _(value_name), "orient": legend_orient}}
    cells = {"mark": {"type": "rect", "stroke": "white"}, "encoding": {"color": colour, "tooltip": tooltip}}
    layers = [cells]
    if mask is not None and not visible.all():
        # the keys a row cannot see: grey, outside the colour scale (their 0 was not the row's choice)
        cells["transform"] = [{"filter": "datum.seen"}]
        layers.append({"transform": [{"filter": "!datum.seen"}],
                       "mark": {"type": "rect", "stroke": "white", "fill": MASKED},
                       "encoding": {"tooltip": tooltip + [{"field": "seen", "type": "nominal",
                                                           "title": _("key visible")}]}})
    if values.size <= max_cells_with_numbers:
        # an explicit black/white scale: Streamlit's frontend draws nothing at all for scale=None here
        layers.append({"mark": {"type": "text"}, "encoding": {
            "text": {"field": "text", "type": "nominal"},
            "color": {"field": "ink", "type": "nominal", "legend": None,
                      "scale": {"domain": ["black", "white"], "range": ["black", "white"]}}}})
    return {
        "title": title, "data": {"values": records},
        "width": {"step": cell}, "height": {"step": cell},
        "encoding": {
            "x": {"field": "col", "type": "nominal", "sort": cols, "title": _(x_title),
                  "axis": {"labelAngle": -40, "orient": "top", "labelOverlap": False}},  # every token named
            "y": {"field": "row", "type": "nominal", "sort": rows, "title": _(y_title),
                "axis": {"labelOverlap": False}},
        },
        "layer": layers,
    }


@styled
def heatmap_panels(panels: dict[str, tuple[np.ndarray, list[str], list[str]]], *, value_name: str = N_("weight"),
                   scheme: str = "blues", domain: tuple[float, float] | None = None, digits: int = 2,
                   cell: int = 38, columns: int = HEADS_PER_ROW, x_title: str = N_("key"),
                   y_title: str = N_("query"), numbers: bool = True, color_by: str | None = None,
                   causal: bool = False) -> dict:
    """Several labelled heatmaps (title -> matrix, row labels, column labels), `columns` to a row,
    on one colour scale (its legend underneath, so a row of panels is no wider than the panels),
    as a Vega-Lite spec; numbers in the cells when a panel is small enough. color_by as in heatmap_spec,
    decided once for all panels: None gives "uniform" when every panel is attention weights (on no domain
    or 0..1), else "all". `causal`: each panel's query i sees keys 0..i only (a causal mask; its row's
    centre is 1/(i + 1), the future grey).

    Concatenated plain specs (heatmap_spec): fast to build on every rerun, and
    Streamlit's Vega-Lite fails to draw facets of layered heatmaps with their own axes.
    """
    if color_by is None:
        weights_domain = domain is None or tuple(float(d) for d in domain) == (0.0, 1.0)
        color_by = "uniform" if weights_domain and all(rows_are_weights(m) for m, _, _ in panels.values()) else "all"
    if domain is None:
        every = np.concatenate([np.ravel(m) for m, _, _ in panels.values()])
        domain = (float(every.min()), float(every.max()))
    specs = [panel(heatmap_spec(matrix, rows, cols, title=title, x_title=x_title, y_title=y_title,
                                value_name=value_name, scheme=scheme, digits=digits, domain=domain, cell=cell,
                                color_by=color_by, legend_orient="bottom",
                                mask=causal_mask_of(np.shape(matrix)) if causal else None,
                                **({} if numbers else {"max_cells_with_numbers": 0})))
             for title, (matrix, rows, cols) in panels.items()]
    rows = [{"hconcat": specs[i:i + columns], "spacing": 24} for i in range(0, len(specs), columns)]
    return {"vconcat": rows, "resolve": {"scale": {"color": "shared"}}}


@styled
def head_grid(weights: list[np.ndarray], tokens: list[str], *, titles: list[str] | None = None,
              cell: int = 38, color_by: str | None = None, causal: bool = False) -> dict:
    """One weights heatmap per head (alpha_m, query rows, key columns), four to a row, one shared
    colour scale (each weight against its row's uniform 1/T, see heatmap_spec; `causal` as in
    heatmap_panels). Three decimals, as every weight the pages print: with two a row visibly summed to 0.97."""
    titles = titles or [_("head {n}", n=m + 1) for m in range(len(weights))]
    return heatmap_panels({t: (w, tokens, tokens) for t, w in zip(titles, weights)}, domain=(0.0, 1.0), cell=cell,
                          color_by=color_by, causal=causal, digits=3)


@styled
def transition_heatmap(labels: list[str], counts, probs, *, title: str = "") -> dict:
    """The bigram table: row = token a, column = next token b, colour P(b | a); hover for the count."""
    shown = [visible(label) for label in labels]
    values = [{"a": shown[i], "b": shown[j], "P(b | a)": float(probs[i][j]), "C(a b)": int(counts[i][j])}
              for i in range(len(labels)) for j in range(len(labels))]
    return {
        "title": title, "data": {"values": values}, "width": {"step": 24}, "height": {"step": 24},
        "mark": {"type": "rect", "stroke": "white", "strokeWidth": 0.5},
        "encoding": {
            "x": {"field": "b", "type": "nominal", "sort": shown, "title": _("next token b"),
                  "axis": {"orient": "top", "labelAngle": -45, "labelOverlap": False}},
            "y": {"field": "a", "type": "nominal", "sort": shown, "title": _("token a"),
                  "axis": {"labelOverlap": False}},
            "color": {"field": "P(b | a)", "type": "quantitative", "scale": {"scheme": "blues"},
                      "legend": {"title": "P(b | a)"}},
            "tooltip": [{"field": "a", "type": "nominal"}, {"field": "b", "type": "nominal"},
                        {"field": "P(b | a)", "type": "quantitative", "format": ".4f"},
                        {"field": "C(a b)", "type": "quantitative", "format": ","}],
        },
    }


@styled
def encoding_heatmap(encoding: np.ndarray, *, title: str = "", cell: int = 9) -> dict:
    """p_t as a picture: positions down, dimensions across, -1 blue to +1 orange (sin/cos live in [-1, 1])."""
    P = np.asarray(encoding, dtype=float)
    T, d = P.shape
    _check_cells(T, d, N_("A table of {rows} x {cols} cells is too large to draw; the limit is {most} cells."))
    values = [{"position t": t, "dimension": i, "value": v}
              for t, row in enumerate(P.tolist()) for i, v in enumerate(row)]
    limit = max(1.0, float(np.abs(P).max())) if P.size else 1.0
    return {
        "title": title, "data": {"values": values}, "width": max(cell * d, 200), "height": max(cell * T, 120),
        "mark": {"type": "rect"},
        "encoding": {
            "x": {"field": "dimension", "type": "ordinal", "title": _("dimension (column of p_t)"),
                  "axis": {"labelAngle": 0, "values": _ticks(d)}},
            "y": {"field": "position t", "type": "ordinal", "title": _("position t"), "axis": {"values": _ticks(T)}},
            "color": {"field": "value", "type": "quantitative",
                      "scale": {"scheme": "blueorange", "domain": [-limit, limit]}, "legend": {"title": "p_t"}},
            "tooltip": [{"field": "position t", "type": "quantitative"}, {"field": "dimension", "type": "quantitative"},
                        {"field": "value", "type": "quantitative", "format": ".3f"}],
        },
    }


@styled
def gram_heatmap(gram: np.ndarray, *, title: str = "", cell: int = 9) -> dict:
    """p_i . p_j for every pair of positions."""
    G = np.asarray(gram, dtype=float)
    T = G.shape[0]
    _check_cells(T, T, N_("A table of dot products of {rows} x {cols} cells is too large to draw; the limit "
                           "is {most} cells."))
    # Vega-Lite reads dots in a field name as nested access: the field is "dot", titled p_i . p_j
    values = [{"position i": i, "position j": j, "dot": v}
              for i, row in enumerate(G.tolist()) for j, v in enumerate(row)]
    limit = float(np.abs(G).max()) or 1.0
    return {
        "title": title, "data": {"values": values}, "width": max(cell * T, 200), "height": max(cell * T, 200),
        "mark": {"type": "rect"},
        "encoding": {
            "x": {"field": "position j", "type": "ordinal", "axis": {"labelAngle": 0, "values": _ticks(T)}},
            "y": {"field": "position i", "type": "ordinal", "axis": {"values": _ticks(T)}},
            "color": {"field": "dot", "type": "quantitative",
                      "scale": {"scheme": "blueorange", "domain": [-limit, limit]}, "legend": {"title": "p_i . p_j"}},
            "tooltip": [{"field": "position i", "type": "quantitative"},
                        {"field": "position j", "type": "quantitative"},
                        {"field": "dot", "type": "quantitative", "format": ".3f", "title": "p_i . p_j"}],
        },
    }


@styled
def layer_heatmap(values, row_labels: list[str], col_labels: list[str], *, cell_text=None, title: str = "",
                  value_name: str = N_("value"), x_title: str = N_("position (token)"),
                  y_title: str = N_("residual stream"),
                  scheme: str = "blues", domain: tuple[float, float] | None = None, diverging: bool = False,
                  digits: int = 2, numbers: bool = True, cell_width: int = 56, cell_height: int = 20,
                  extra: dict[str, np.ndarray] | None = None, label_angle: int = -40,
                  legend_orient: str = "right") -> dict:
    """A model's depth against positions or heads: one row per residual-stream row (or layer), top to bottom,
    rectangular cells coloured by value (clamped to `domain`; `diverging`: a signed change, centred on 0 and drawn
    orange below it and blue above it, palette.CHANGE_SCALE, whatever `scheme` says), each cell
    printing its `cell_text` (strings, e.g. the top predicted token) or else its value (`numbers`).
    `extra` adds named arrays of the same shape to each cell's tooltip (a token's probability, a rank);
    `legend_orient` "bottom" keeps a narrow heatmap's legend under it."""
    values = np.asarray(values, dtype=float)
    rows, cols = unique_labels(list(row_labels)), unique_labels(list(col_labels))
    if values.shape != (len(rows), len(cols)):
        raise ValueError(_("{rows} x {cols} values need as many row and column labels (got {row_labels} and "
                           "{col_labels}).", rows=values.shape[0], cols=values.shape[1], row_labels=len(rows),
                           col_labels=len(cols)))
    _check_cells(*values.shape, N_("A heatmap of {rows} x {cols} cells is too large to draw; the limit is {most} "
                                    "cells."))
    finite = values[np.isfinite(values)]
    if domain is None:
        if diverging:
            half = float(np.abs(finite).max()) if finite.size else 1.0
            domain = (-(half or 1.0), half or 1.0)
        else:
            domain = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    low, high = float(domain[0]), float(domain[1])
    span = (high - low) or 1.0
    dark_low = scheme in DARK_LOW_SCHEMES
    inks = [ink(colour) for colour in change_colours(values.ravel(), low, high)] if diverging else None
    texts = None if cell_text is None else np.asarray(cell_text, dtype=object)
    records = []
    for i, row in enumerate(rows):
        for j, col in enumerate(cols):
            v = float(values[i, j])
            ok = bool(np.isfinite(v))
            share = min(max((v - low) / span, 0.0), 1.0) if ok else 0.0
            dark = ok and (inks[i * len(cols) + j] == "white" if diverging else
                           (share < 0.45 if dark_low else share > 0.55))
            if texts is not None:
                text = str(texts[i, j])
            else:
                text = fixed(v, digits) if ok and numbers else ""
            record = {"row": row, "col": col, value_name: v if ok else None, "text": text,
                      "ink": "white" if dark else "black"}
            for name, array in (extra or {}).items():
                item = np.asarray(array)[i, j]
                record[name] = item.item() if hasattr(item, "item") else item
            records.append(record)
    tooltip = [{"field": "row", "type": "nominal", "title": _(y_title)},
               {"field": "col", "type": "nominal", "title": _(x_title)}]
    if texts is not None:
        tooltip.append({"field": "text", "type": "nominal", "title": _("in the cell")})
    tooltip.append({"field": value_name, "type": "quantitative", "format": f".{max(digits, 3)}f"})
    tooltip += [{"field": name, "type": "nominal" if np.asarray(array).dtype == object else "quantitative"}
                for name, array in (extra or {}).items()]
    scale = change_scale(low, high) if diverging else {"scheme": scheme, "domain": [low, high], "clamp": True}
    colour = {"field": value_name, "type": "quantitative", "scale": scale,
              "legend": {"title": _(value_name), "orient": legend_orient}}
    layers = [{"mark": {"type": "rect", "stroke": "white", "strokeWidth": 0.5},
               "encoding": {"color": colour, "tooltip": tooltip}}]
    if texts is not None or numbers:
        layers.append({"mark": {"type": "text"}, "encoding": {
            "text": {"field": "text", "type": "nominal"},
            "color": {"field": "ink", "type": "nominal", "legend": None,
                      "scale": {"domain": ["black", "white"], "range": ["black", "white"]}},
            "tooltip": tooltip}})
    return {
        "title": title, "data": {"values": records}, "usermeta": {"transposable": True},   # on a phone it may turn
        "width": {"step": cell_width}, "height": {"step": cell_height},
        "encoding": {
            "x": {"field": "col", "type": "nominal", "sort": cols, "title": _(x_title),
                  "axis": {"labelAngle": label_angle, "orient": "top", "labelOverlap": False}},
            "y": {"field": "row", "type": "nominal", "sort": rows, "title": _(y_title),
                "axis": {"labelOverlap": False}},
        },
        "layer": layers,
    }


def _check_cells(rows: int, cols: int, sentence: str) -> None:
    """Refuse a chart of more than MAX_CHART_CELLS cells with `sentence` (a marked message: {rows}, {cols}, {most})."""
    if rows * cols > limits.MAX_CHART_CELLS:
        raise ValueError(_(sentence, rows=grouped(rows), cols=grouped(cols), most=grouped(limits.MAX_CHART_CELLS)))


def _ticks(n: int) -> list[int]:
    """At most about 16 tick labels on an axis of n cells."""
    step = max(1, int(np.ceil(n / 16)))
    return list(range(0, n, step))
