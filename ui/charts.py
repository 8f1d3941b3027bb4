"""Drawing the engine's Altair charts.

Streamlit's st.altair_chart validates the whole Vega-Lite spec against its JSON schema on
every rerun (tens of ms per chart on this machine). The builders in engine/charts.py are
validated once in the tests instead, so here the spec is serialised without validation.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

import altair as alt
import streamlit as st

MAX_SPECS = 512
_specs: OrderedDict[int, tuple[alt.TopLevelMixin, dict]] = OrderedDict()
_lock = threading.Lock()


def spec(chart: alt.TopLevelMixin) -> dict:
    """chart.to_dict(validate=False), kept per chart object: a memoized builder (engine.charts.memo)
    hands back the same object for the same data, so its spec is serialised once per process."""
    with _lock:
        hit = _specs.get(id(chart))
        if hit is not None and hit[0] is chart:
            _specs.move_to_end(id(chart))
            return hit[1]
    result = chart.to_dict(validate=False)
    with _lock:
        _specs[id(chart)] = (chart, result)   # holding the chart keeps its id from being reused
        while len(_specs) > MAX_SPECS:
            _specs.popitem(last=False)
    return result


def show(chart: alt.TopLevelMixin, *, width: str = "content", key: str | None = None) -> None:
    """Draw an engine chart: width 'content' keeps its own size, 'stretch' fills the column."""
    st.vega_lite_chart(spec(chart), width=width, key=key)
