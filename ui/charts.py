"""Drawing the engine's charts (plain Vega-Lite specs, or Altair objects).

Streamlit's st.altair_chart validates the whole Vega-Lite spec against its JSON schema on
every rerun (tens of ms per chart on this machine). The builders in engine/charts/ are
validated once in the tests instead, so here the spec is drawn without validation.

Streamlit moves a spec's top-level data (data.values, datasets) into Arrow. Given rows
(a list of dicts) it builds a pandas DataFrame first, about a millisecond per chart even
for a few rows; an Arrow table built here from the columns costs a tenth of that.

Text: every builder sets engine.charts.style.text_config() (13 px and up); `show` applies this session's
size again, so a projector setting (set_text_size(PROJECTOR_TEXT_SIZE), 16 px) enlarges every chart.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pyarrow as pa
import streamlit as st
from streamlit import dataframe_util

from engine.charts.style import PROJECTOR_TEXT_SIZE, TEXT_SIZE, with_text

if TYPE_CHECKING:  # the app's charts are plain specs: importing Altair (half a second, 27 MB) is not needed
    import altair as alt


def arrow_rows(rows):
    """Rows (a list of dicts) as an Arrow table with every key any row has; anything else, or rows
    whose columns Arrow cannot type (a column mixing text and numbers), unchanged."""
    if not isinstance(rows, list) or not rows or not all(isinstance(row, dict) for row in rows):
        return rows
    columns = dict.fromkeys(key for row in rows for key in row)
    try:
        return pa.table({str(key): [row.get(key) for row in rows] for key in columns})
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return rows


def as_arrow(spec: dict) -> dict:
    """The spec with its top-level data rows as Arrow tables (a shallow copy; the spec is not changed)."""
    spec = dict(spec)
    data = spec.get("data")
    if isinstance(data, dict) and "values" in data:
        spec["data"] = data | {"values": arrow_rows(data["values"])}
    if isinstance(spec.get("datasets"), dict):
        spec["datasets"] = {name: arrow_rows(rows) for name, rows in spec["datasets"].items()}
    return spec


def prepared(chart: alt.TopLevelMixin | dict) -> dict:
    """The spec with its top-level rows already serialised to Arrow IPC bytes (moved into named
    datasets, which Streamlit passes on as they are): for a spec cached with st.cache_resource and
    drawn on every rerun, thousands of cells then cost nothing to convert again. Read-only: share it."""
    spec = as_arrow(chart if isinstance(chart, dict) else chart.to_dict(validate=False))
    datasets = dict(spec.get("datasets", {}))
    data = spec.get("data")
    if isinstance(data, dict) and "values" in data:
        datasets["values"] = data["values"]
        spec["data"] = {key: value for key, value in data.items() if key != "values"} | {"name": "values"}
    spec["datasets"] = {name: dataframe_util.convert_arrow_table_to_arrow_bytes(rows) if isinstance(rows, pa.Table)
                        else rows for name, rows in datasets.items()}
    return spec


TEXT_SIZE_KEY = "chart_text_size"
PROJECTOR_KEY = "app.projector"  # the switch app.py draws at the top of every page's sidebar
# "svg" or "canvas": the renderer Vega draws with (the browser tests measure SVG text); unset, Streamlit's
# choice: SVG, or canvas for a chart of more than 2,000 data rows
RENDERER_VARIABLE = "PLAYGROUND_CHART_RENDERER"


def text_size() -> int:
    """The chart text size of this session: PROJECTOR_TEXT_SIZE while the projector switch is on, else
    TEXT_SIZE (13 px) unless set_text_size chose another."""
    try:
        if st.session_state.get(PROJECTOR_KEY):
            return PROJECTOR_TEXT_SIZE
        return int(st.session_state.get(TEXT_SIZE_KEY, TEXT_SIZE))
    except Exception:  # no session (a bare script, a test): the default
        return TEXT_SIZE


def set_text_size(size: int) -> None:
    """Draw this session's charts with text of `size` px (at least TEXT_SIZE): PROJECTOR_TEXT_SIZE for a projector."""
    size = int(size)
    if size < TEXT_SIZE:
        raise ValueError(f"Chart text is at least {TEXT_SIZE} px; got {size}.")
    st.session_state[TEXT_SIZE_KEY] = size


def set_projector(on: bool) -> None:
    """Projector text (16 px) on or off for this session's charts."""
    set_text_size(PROJECTOR_TEXT_SIZE if on else TEXT_SIZE)


def renderer_options(spec: dict) -> dict:
    """The spec asking Vega for the renderer named by $PLAYGROUND_CHART_RENDERER, if it names one."""
    renderer = os.environ.get(RENDERER_VARIABLE, "")
    if renderer not in ("svg", "canvas"):
        return spec
    usermeta = dict(spec.get("usermeta") or {})
    usermeta["embedOptions"] = {**(usermeta.get("embedOptions") or {}), "renderer": renderer}
    return spec | {"usermeta": usermeta}


def single_view(spec: dict) -> bool:
    """One view (a mark or a layer of marks), not a facet, concatenation or repeat."""
    return not any(key in spec for key in ("facet", "hconcat", "vconcat", "concat", "repeat", "spec")) \
        and not any(channel in spec.get("encoding", {}) for channel in ("row", "column", "facet"))


def show(chart: alt.TopLevelMixin | dict, *, width: str = "content", key: str | None = None,
         font_size: int | None = None, **selection) -> None:
    """Draw an engine chart (Altair object or plain Vega-Lite spec): width 'content' keeps its own
    size, 'stretch' fills the column; its text at `font_size` px (None: this session's text_size()).
    `selection` (on_select=, selection_mode=) goes to st.vega_lite_chart."""
    spec = chart if isinstance(chart, dict) else chart.to_dict(validate=False)
    spec = renderer_options(with_text(spec, font_size or text_size()))
    if "autosize" not in spec and single_view(spec):
        # Streamlit's default for one view, "fit", squeezes a chart with a legend or title into its
        # height and pushed titles out of view: fit the width only, keep the height the builder asked for.
        # Vega-Lite cannot fit a width counted in steps (one per bar or cell): it squeezed such a chart
        # into its plot's height, title above the top edge; that one keeps its own size.
        fits = width == "stretch" or isinstance(spec.get("width"), (int, float))
        spec = spec | {"autosize": {"type": "fit-x", "contains": "padding"} if fits else {"type": "pad"}}
    st.vega_lite_chart(as_arrow(spec), width=width, key=key, **selection)
