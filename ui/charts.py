"""Drawing the engine's Altair charts.

Streamlit's st.altair_chart validates the whole Vega-Lite spec against its JSON schema on
every rerun (tens of ms per chart on this machine). The builders in engine/charts.py are
validated once in the tests instead, so here the spec is serialised without validation.
"""
from __future__ import annotations

import altair as alt
import streamlit as st


def show(chart: alt.TopLevelMixin, *, width: str = "content", key: str | None = None) -> None:
    """Draw an engine chart: width 'content' keeps its own size, 'stretch' fills the column."""
    st.vega_lite_chart(chart.to_dict(validate=False), width=width, key=key)
