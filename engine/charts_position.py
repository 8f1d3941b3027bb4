"""Altair builders for the position page: encoding tables, dot products by offset, context comparisons."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from engine import limits
from engine.charts import PAIR_COLOURS, _unique


def _check_cells(rows: int, cols: int, what: str) -> None:
    if rows * cols > limits.MAX_CHART_CELLS:
        raise ValueError(f"A {what} of {rows} x {cols} cells is too large to draw; the limit is "
                         f"{limits.MAX_CHART_CELLS:,} cells.")


def encoding_heatmap(encoding: np.ndarray, *, title: str = "", cell: int = 9) -> alt.Chart:
    """p_t as a picture: positions down, dimensions across, -1 blue to +1 orange (sin/cos live in [-1, 1])."""
    P = np.asarray(encoding, dtype=float)
    T, d = P.shape
    _check_cells(T, d, "table")
    t, i = np.meshgrid(np.arange(T), np.arange(d), indexing="ij")
    frame = pd.DataFrame({"position t": t.ravel(), "dimension": i.ravel(), "value": P.ravel()})
    limit = max(1.0, float(np.abs(P).max())) if P.size else 1.0
    return alt.Chart(frame).mark_rect().encode(
        x=alt.X("dimension:O", title="dimension (column of p_t)", axis=alt.Axis(labelAngle=0, values=_ticks(d))),
        y=alt.Y("position t:O", title="position t", axis=alt.Axis(values=_ticks(T))),
        color=alt.Color("value:Q", scale=alt.Scale(scheme="blueorange", domain=[-limit, limit]),
                        legend=alt.Legend(title="p_t")),
        tooltip=["position t", "dimension", alt.Tooltip("value:Q", format=".3f")],
    ).properties(title=title, width=max(cell * d, 200), height=max(cell * T, 120))


def gram_heatmap(gram: np.ndarray, *, title: str = "", cell: int = 9) -> alt.Chart:
    """p_i . p_j for every pair of positions."""
    G = np.asarray(gram, dtype=float)
    T = G.shape[0]
    _check_cells(T, T, "table of dot products")
    i, j = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    # Vega-Lite reads dots in a field name as nested access: the field is "dot", titled p_i . p_j
    frame = pd.DataFrame({"position i": i.ravel(), "position j": j.ravel(), "dot": G.ravel()})
    limit = float(np.abs(G).max()) or 1.0
    return alt.Chart(frame).mark_rect().encode(
        x=alt.X("position j:O", axis=alt.Axis(labelAngle=0, values=_ticks(T))),
        y=alt.Y("position i:O", axis=alt.Axis(values=_ticks(T))),
        color=alt.Color("dot:Q", scale=alt.Scale(scheme="blueorange", domain=[-limit, limit]),
                        legend=alt.Legend(title="p_i . p_j")),
        tooltip=["position i", "position j", alt.Tooltip("dot:Q", format=".3f", title="p_i . p_j")],
    ).properties(title=title, width=max(cell * T, 200), height=max(cell * T, 200))


def offset_profile(profiles: dict[str, "OffsetDotProducts"], *, title: str = "") -> alt.Chart:  # noqa: F821
    """Mean p_i . p_{i+k} against the offset k, with a band from the smallest to the largest over i."""
    rows = []
    for name, result in profiles.items():
        for k, mean, low, high in zip(result.offsets, result.mean, result.low, result.high):
            rows.append((name, int(k), float(mean), float(low), float(high)))
    frame = pd.DataFrame(rows, columns=["encoding", "offset k", "mean", "lowest", "highest"])
    names = list(profiles)
    colour = alt.Color("encoding:N", scale=alt.Scale(domain=names, range=PAIR_COLOURS[:len(names)]),
                       legend=alt.Legend(orient="bottom", title=None))
    base = alt.Chart(frame).encode(x=alt.X("offset k:Q", title="offset k = j - i"), color=colour)
    band = base.mark_area(opacity=0.25).encode(y=alt.Y("lowest:Q", title="p_i . p_(i+k)"), y2="highest:Q")
    line = base.mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        y="mean:Q", tooltip=["encoding", "offset k", alt.Tooltip("mean:Q", format=".3f"),
                             alt.Tooltip("lowest:Q", format=".3f"), alt.Tooltip("highest:Q", format=".3f")])
    return (band + line).properties(title=title, height=280)


def difference_bars(difference: np.ndarray, tokens: list[str], *, title: str = "") -> dict:
    """max |c_B(word) - c_A(word)| for each word of the shuffled sentence, as a Vega-Lite spec (redrawn on
    every edit, so written plainly rather than through Altair); printed, since zero bars are invisible."""
    labels = _unique(list(tokens))
    values = [float(v) for v in np.asarray(difference, dtype=float)]
    records = [{"word": w, "difference": v, "text": f"{v:.2g}" if v >= 1e-12 else "0"} for w, v in zip(labels, values)]
    top = max(max(values) * 1.25, 0.05)
    return {
        "title": title, "height": 240, "data": {"values": records},
        "encoding": {
            "x": {"field": "word", "type": "nominal", "sort": labels, "title": "word (in the shuffled sentence's order)",
                  "axis": {"labelAngle": 0}},
            "y": {"field": "difference", "type": "quantitative", "title": "largest change in its context vector",
                  "scale": {"domain": [0, top]}},
        },
        "layer": [
            {"mark": {"type": "bar", "color": PAIR_COLOURS[1]},
             "encoding": {"tooltip": [{"field": "word", "type": "nominal"},
                                      {"field": "difference", "type": "quantitative", "format": ".3g"}]}},
            {"mark": {"type": "text", "dy": -7, "fontSize": 12}, "encoding": {"text": {"field": "text", "type": "nominal"}}},
        ],
    }


def side_by_side(*charts: alt.Chart, shared_colour: bool = False) -> alt.HConcatChart:
    """Charts in one row drawn at the sizes they ask for; one colour scale for all when they compare like with like."""
    return alt.hconcat(*charts, spacing=40).resolve_scale(color="shared" if shared_colour else "independent")


def _ticks(n: int) -> list[int]:
    """At most about 16 tick labels on an axis of n cells."""
    step = max(1, int(np.ceil(n / 16)))
    return list(range(0, n, step))
