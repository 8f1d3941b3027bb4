"""Chart builders: data in, a Vega-Lite spec (a plain dict) out. Pages draw them; nothing here touches Streamlit.

Palettes are colour-blind safe (blues, viridis; orange/blue when two things are compared),
and small matrices carry their numbers in the cells so colour is never the only cue.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:
    import altair as alt

PAIR_COLOURS = ["#1f6fb4", "#e08214"]  # blue / orange: safe for the common colour blindnesses
MAX_CELLS_WITH_NUMBERS = 400
TEXT_SIZE = 13             # px: the smallest text any chart draws (read from the back of a classroom)
PROJECTOR_TEXT_SIZE = 16   # the same charts on a projector
# Colour schemes that are dark at their low end: cell numbers there are printed in white.
DARK_LOW_SCHEMES = {"viridis", "magma", "inferno", "plasma", "cividis", "darkblue", "darkgreen", "darkgold", "darkred"}
ROW_LEGEND = "weight, per row"
# px left, top and right of each chart (Streamlit sets the bottom: 20 px, when the chart leaves it unset)
CHART_PADDING = {"left": 5, "top": 5, "right": 5}
AXIS_LABEL_LIMIT = 180     # px an axis label may take before Vega shortens it with "…"
LEGEND_LABEL_LIMIT = 400   # ... a legend label (a model's or a prompt's name)


def text_config(size: int = TEXT_SIZE) -> dict:
    """Vega-Lite config for every text a chart draws: axis and legend labels `size` px, their titles
    one more, chart titles three more, facet headers, and text marks (cell numbers, bar labels).
    The builders set no font sizes of their own, so this block decides them all. Labels may run
    longer than Streamlit's theme allows (100 px on an axis, Vega's 160 in a legend) before Vega
    cuts them short with an ellipsis."""
    return {"axis": {"labelFontSize": size, "titleFontSize": size + 1, "labelLimit": AXIS_LABEL_LIMIT},
            "legend": {"labelFontSize": size, "titleFontSize": size + 1, "labelLimit": LEGEND_LABEL_LIMIT},
            "header": {"labelFontSize": size, "titleFontSize": size + 1},
            "title": {"fontSize": size + 3, "subtitleFontSize": size},
            "text": {"fontSize": size}}


def with_text(spec: dict, size: int = TEXT_SIZE) -> dict:
    """The spec (a shallow copy) with text_config(size) merged into its top-level config; the
    spec's other config entries are kept, its font sizes replaced. CHART_PADDING round the chart
    unless it sets its own: Vega measures a rotated axis title by its font size, the browser draws
    the glyphs' ascent beyond that, and with Streamlit's padding (none but the bottom) past the
    chart's left edge."""
    config = dict(spec.get("config") or {})
    for part, sizes in text_config(size).items():
        config[part] = {**(config.get(part) or {}), **sizes}
    return spec | {"config": config, "padding": spec.get("padding", CHART_PADDING)}


def styled(builder: Callable[..., dict]) -> Callable[..., dict]:
    """Decorate a chart builder: its spec leaves with text_config() as its config (every builder in
    engine/charts*.py wears this, so the sizes are decided here once)."""
    @functools.wraps(builder)
    def build(*args, **kwargs) -> dict:
        return with_text(builder(*args, **kwargs))

    build.styled = True
    return build


def panel(spec: dict) -> dict:
    """A chart to place inside a concatenation: without its config and padding (Vega-Lite takes them
    only at the top level; the concatenation carries them)."""
    return {key: value for key, value in spec.items() if key not in ("config", "padding")}


def nice_bound(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (times a power of ten) at or above value;
    1 for nothing positive."""
    if not np.isfinite(value) or value <= 0:
        return 1.0
    power = 10.0 ** np.floor(np.log10(value))
    for step in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if step * power >= value * (1 - 1e-12):
            return float(round(step * power, 12))
    return float(10 * power)


def value_scale(largest: float, *, headroom: float = 1.1, cap: float | None = None) -> dict:
    """A zero-based value axis that fits the data: it ends at the nice bound just above the largest
    value (times `headroom`, room for a printed number), at most `cap` (1 for probabilities)."""
    top = nice_bound(float(largest) * headroom)
    return {"domain": [0, min(top, cap) if cap is not None else top], "nice": False}


def rows_are_weights(values: np.ndarray) -> bool:
    """Every row a distribution (no negative value, the finite values summing to 1): attention weights."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or not values.size:
        return False
    finite = np.where(np.isfinite(values), values, 0.0)
    return bool((finite >= -1e-9).all() and np.allclose(finite.sum(axis=1), 1.0, atol=1e-3))


def row_shares(values: np.ndarray) -> np.ndarray:
    """Each value's place between its row's lowest (0) and highest (1); 0 in a row of equal values, which
    prefers no token (drawn mid-scale, a uniform row looked like attention on every token)."""
    values = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore"):
        low = np.nanmin(np.where(np.isfinite(values), values, np.nan), axis=1, keepdims=True)
        high = np.nanmax(np.where(np.isfinite(values), values, np.nan), axis=1, keepdims=True)
        span = high - low
        return np.where(span > 0, (values - low) / np.where(span > 0, span, 1.0), 0.0)


def unique_labels(labels: list[str]) -> list[str]:
    """Axis labels must be distinct for Vega-Lite; repeated words get their position appended."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        label = str(label)
        if label in seen or labels.count(label) > 1:
            seen[label] = seen.get(label, 0) + 1
            out.append(f"{label} ({seen[label]})")
        else:
            seen[label] = 0
            out.append(label)
    return out


@styled
def heatmap_spec(matrix, row_labels: list[str], col_labels: list[str], *, title: str = "",
                 x_title: str = "key (attended to)", y_title: str = "query (attending)",
                 value_name: str = "weight", scheme: str = "blues", digits: int = 3,
                 domain: tuple[float, float] | None = None, cell: int = 46,
                 max_cells_with_numbers: int = MAX_CELLS_WITH_NUMBERS, color_by: str | None = None,
                 legend_orient: str = "right") -> dict:
    """A labelled heatmap as a Vega-Lite spec: rows top to bottom as in the matrix, numbers in each cell.

    color_by "all": one colour scale for every cell (`domain`, or the data's range). "row": each cell
    coloured by its place between its row's lowest and highest value, so 0.19 and 0.31 in one row of
    attention weights look different; the numbers printed and in the tooltip stay the true values,
    and the legend says the colour runs per row. None (the default): "row" for attention weights
    (every row a distribution, on no domain or 0..1), "all" for anything else (scores, cosines).
    `legend_orient` places the colour legend ("bottom" under panels set side by side).

    Written as a plain spec because pages redraw it on every edit: building the same chart
    through Altair's objects costs tens of milliseconds, this costs well under one.
    """
    values = np.asarray(matrix, dtype=float)
    rows, cols = unique_labels(list(row_labels)), unique_labels(list(col_labels))
    if color_by is None:
        weights_domain = domain is None or tuple(float(d) for d in domain) == (0.0, 1.0)
        color_by = "row" if weights_domain and rows_are_weights(values) else "all"
    if color_by not in ("row", "all"):
        raise ValueError(f"color_by is 'row' or 'all', not {color_by!r}.")
    finite = values[np.isfinite(values)]
    if color_by == "row":
        shades, middle = row_shares(values) if values.size else values, 0.5
    else:
        shades = values
        middle = sum(domain) / 2 if domain else ((finite.min() + finite.max()) / 2 if finite.size else 0.0)
    dark_low = scheme in DARK_LOW_SCHEMES
    records = []
    for i, row in enumerate(rows):
        for j, col in enumerate(cols):
            v, shade = float(values[i, j]), float(shades[i, j])
            ok = np.isfinite(v)
            dark = ok and ((shade < middle) if dark_low else (shade > middle))
            record = {"row": row, "col": col, value_name: v if ok else None, "i": i, "j": j,
                      "text": f"{v:.{digits}f}" if ok else "", "ink": "white" if dark else "black"}
            if color_by == "row":
                record["shade"] = round(shade, 4) if ok else None
            records.append(record)
    if color_by == "row":
        colour = {"field": "shade", "type": "quantitative", "scale": {"scheme": scheme, "domain": [0, 1]},
                  "legend": {"title": ROW_LEGEND if value_name == "weight" else f"{value_name}, per row",
                             "values": [0, 1], "labelExpr": "datum.value < 0.5 ? 'row lowest' : 'row highest'",
                             "orient": legend_orient}}
    else:
        colour = {"field": value_name, "type": "quantitative",
                  "scale": {"scheme": scheme} | ({"domain": list(domain)} if domain else {}),
                  "legend": {"title": value_name, "orient": legend_orient}}
    layers = [{
        "mark": {"type": "rect", "stroke": "white"},
        "encoding": {
            "color": colour,
            "tooltip": [{"field": "row", "type": "nominal", "title": y_title},
                        {"field": "col", "type": "nominal", "title": x_title},
                        {"field": value_name, "type": "quantitative", "format": f".{digits}f"}],
        },
    }]
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
            "x": {"field": "col", "type": "nominal", "sort": cols, "title": x_title,
                  "axis": {"labelAngle": -40, "orient": "top", "labelOverlap": False}},  # every token named
            "y": {"field": "row", "type": "nominal", "sort": rows, "title": y_title, "axis": {"labelOverlap": False}},
        },
        "layer": layers,
    }


def heatmap(matrix, row_labels: list[str], col_labels: list[str], **options) -> alt.LayerChart:
    """heatmap_spec as an Altair chart, for callers that compose or hand on Altair objects (Gradio)."""
    import altair as alt  # only here: the Streamlit pages draw plain specs and never load Altair

    return alt.LayerChart.from_dict(heatmap_spec(matrix, row_labels, col_labels, **options), validate=False)


@styled
def compare_bars(weights: dict[str, np.ndarray], labels: list[str], *, title: str = "",
                 value_title: str = "weight on each token") -> dict:
    """Side-by-side bars of two (or more) weight vectors over the same tokens, as a Vega-Lite spec; the
    value axis ends just above the largest weight (a 0.333 bar is not dwarfed by an axis to 1)."""
    tokens = unique_labels(list(labels))
    methods = list(weights)
    records = [{"method": method, "token": tokens[j], "weight": float(w[j]), "text": f"{w[j]:.3f}"}
               for method, w in weights.items() for j in range(len(tokens))]
    colour = {"field": "method", "type": "nominal", "legend": {"orient": "bottom", "title": None},
              "scale": {"domain": methods, "range": (PAIR_COLOURS * 3)[:len(methods)]}}
    largest = max((row["weight"] for row in records if np.isfinite(row["weight"])), default=0.0)
    return {
        "title": title, "height": 260, "data": {"values": records},
        "encoding": {
            "x": {"field": "token", "type": "nominal", "sort": tokens, "title": None, "axis": {"labelAngle": 0}},
            "xOffset": {"field": "method", "type": "nominal", "sort": methods},
            "y": {"field": "weight", "type": "quantitative", "title": value_title,
                  "scale": value_scale(largest, headroom=1.1, cap=1.0)},
        },
        "layer": [
            {"mark": "bar", "encoding": {"color": colour, "tooltip": [
                {"field": "method"}, {"field": "token"},
                {"field": "weight", "type": "quantitative", "format": ".3f"}]}},
            {"mark": {"type": "text", "dy": -7}, "encoding": {"text": {"field": "text"}, "color": colour}},
        ],
    }
