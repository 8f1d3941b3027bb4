"""Drawing the engine's Altair charts.

Streamlit's st.altair_chart validates the whole Vega-Lite spec against its JSON schema on
every rerun (tens of ms per chart on this machine). The builders in engine/charts.py are
validated once in the tests instead, so here the spec is serialised without validation.
"""
from __future__ import annotations

import altair as alt
import streamlit as st


def show(chart: alt.TopLevelMixin | dict, *, width: str = "content", key: str | None = None) -> None:
    """Draw an engine chart (Altair object or plain Vega-Lite spec): width 'content' keeps its own
    size, 'stretch' fills the column."""
    spec = chart if isinstance(chart, dict) else chart.to_dict(validate=False)
    st.vega_lite_chart(spec, width=width, key=key)
