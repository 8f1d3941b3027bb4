"""The one text style every chart wears, and the small helpers builders share: the padding round a
chart, value axes that fit their data, distinct and visible labels, and charts set side by side."""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np


TEXT_SIZE = 13             # px: the smallest text any chart draws (read from the back of a classroom)
PROJECTOR_TEXT_SIZE = 16   # the same charts on a projector
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
    for part in ("axisX", "axisY"):   # a label size that depends on the label (one_character_labels): its default
        label_size = (config.get(part) or {}).get("labelFontSize")
        if isinstance(label_size, dict) and "condition" in label_size:
            config[part] = config[part] | {"labelFontSize": label_size | {"value": size}}
    return spec | {"config": config, "padding": spec.get("padding", CHART_PADDING)}


def one_character_labels(size: int, *, font: str | None = None) -> dict:
    """An axis config (config.axisX or axisY) drawing each one-character label (',', '.', '↵') at `size` px in
    bold, every other label at the text size (with_text fills it in): at 13 px a comma is a speck of 2-3 px.
    `font` (say "monospace") for the one-character labels too."""
    test = "length(datum.label) == 1"
    config = {"labelFontSize": {"condition": {"test": test, "value": size}, "value": TEXT_SIZE},
              "labelFontWeight": {"condition": {"test": test, "value": "bold"}, "value": "normal"}}
    if font is not None:
        config["labelFont"] = font
    return config


def styled(builder: Callable[..., dict]) -> Callable[..., dict]:
    """Decorate a chart builder: its spec leaves with text_config() as its config (every builder in
    engine/charts/ wears this, so the sizes are decided here once)."""
    @functools.wraps(builder)
    def build(*args, **kwargs) -> dict:
        return with_text(builder(*args, **kwargs))

    build.styled = True
    return build


def panel(spec: dict) -> dict:
    """A chart to place inside a concatenation: without its config and padding (Vega-Lite takes them
    only at the top level; the concatenation carries them)."""
    return {key: value for key, value in spec.items() if key not in ("config", "padding")}


@styled
def side_by_side(*charts: dict, shared_colour: bool = False) -> dict:
    """Charts in one row drawn at the sizes they ask for; one colour scale for all when they compare like with like.

    Each chart's rows move to the top level as a named dataset (panel_0, panel_1, ...): Streamlit
    ships top-level data as Arrow, which for thousands of cells is cheaper than rows inside the spec.
    """
    datasets, panels = {}, []
    for number, chart in enumerate(charts):
        part = panel(chart)
        data = part.get("data")
        if isinstance(data, dict) and "values" in data:
            datasets[f"panel_{number}"] = data["values"]
            part["data"] = {"name": f"panel_{number}"}
        panels.append(part)
    return {"hconcat": panels, "spacing": 40, "datasets": datasets,
            "resolve": {"scale": {"color": "shared" if shared_colour else "independent"}}}


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


def visible(token: str) -> str:
    """A token as a label: spaces as '␣', line breaks as '↵', tabs as '⇥'."""
    return token.replace(" ", "\u2423").replace("\n", "\u21b5").replace("\t", "\u21e5") or "(empty)"
