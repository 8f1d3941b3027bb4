"""Checking plain Vega-Lite specs: against the schema Altair ships (pages skip that check), and their data."""
from __future__ import annotations

import functools

from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema.core import load_schema


@functools.cache
def _schema() -> dict:
    return load_schema()


def assert_valid(spec: dict) -> dict:
    """Raise jsonschema's ValidationError unless `spec` is a valid top-level Vega-Lite spec; return it."""
    validate_jsonschema(spec, _schema())
    return spec


def data_rows(spec: dict) -> list[dict]:
    """Every inline data row of a spec, in order: top-level, named datasets, then layers and concatenations."""
    found = []
    if isinstance(spec.get("data"), dict):
        found += spec["data"].get("values", [])
    for values in spec.get("datasets", {}).values():
        found += values
    for part in ("layer", "hconcat", "vconcat", "concat"):
        for child in spec.get(part, []):
            found += data_rows(child)
    if "spec" in spec:
        found += data_rows(spec["spec"])
    return found


# The sizes Streamlit's chart theme (its frontend's CustomTheme) adds round every chart in the browser: 16 px
# between an axis and its labels and between labels and title, a legend's padding, the title's offset. Our specs'
# own config wins over it, as in Streamlit (its font sizes are all ours).
STREAMLIT_CHART_THEME = {
    "title": {"align": "left", "anchor": "start", "fontWeight": 700, "orient": "top", "offset": 26},
    "axis": {"ticks": False, "domain": False, "labelFlush": True, "labelFlushOffset": 1, "labelBound": False,
             "labelLimit": 100, "titlePadding": 16, "labelPadding": 16, "labelSeparation": 2, "labelOverlap": True},
    "legend": {"titlePadding": 8, "labelPadding": 16, "columnPadding": 8, "rowPadding": 2, "padding": 8,
               "symbolStrokeWidth": 2},
    "view": {"strokeWidth": 0, "continuousHeight": 350, "continuousWidth": 300},
    "concat": {"columns": 1}, "facet": {"columns": 1},
    "bar": {"binSpacing": 2, "discreteBandSize": {"band": 0.85}},
}


def _merged(under: dict, over: dict) -> dict:
    out = dict(under)
    for key, value in over.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def drawn_size(spec: dict, width: float | None = None) -> tuple[float, float]:
    """(width, height) in px of the chart as Vega draws it (vl-convert: no browser) under Streamlit's theme, in a
    column `width` px wide where the chart fits its width to its column (autosize fit), as Streamlit gives it.
    Vega's text is measured in Liberation Sans here, wider than the Source Sans Streamlit draws charts in: a chart
    that fits here fits in the browser."""
    import re

    import vl_convert

    drawn = dict(spec)
    drawn["config"] = _merged(STREAMLIT_CHART_THEME, spec.get("config") or {})
    if width is not None and str((drawn.get("autosize") or {}).get("type", "")).startswith("fit") \
            and "width" not in drawn:
        drawn["width"] = width
    svg = vl_convert.vegalite_to_svg(drawn, allowed_base_urls=[])
    match = re.search(r'<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"', svg)
    return float(match.group(1)), float(match.group(2))
