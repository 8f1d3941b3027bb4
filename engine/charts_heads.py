"""Altair builders for the multi-head page: every head's weights side by side, and what heads cost."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from engine.charts import PAIR_COLOURS, heatmap_spec

HEADS_PER_ROW = 4


def head_grid(weights: list[np.ndarray], tokens: list[str], *, titles: list[str] | None = None,
              cell: int = 38) -> dict:
    """One weights heatmap per head (alpha_m, query rows, key columns), four to a row, one shared 0..1 scale."""
    titles = titles or [f"head {m + 1}" for m in range(len(weights))]
    return heatmap_panels({t: (w, tokens, tokens) for t, w in zip(titles, weights)}, domain=(0.0, 1.0), cell=cell)


def heatmap_panels(panels: dict[str, tuple[np.ndarray, list[str], list[str]]], *, value_name: str = "weight",
                   scheme: str = "blues", domain: tuple[float, float] | None = None, digits: int = 2,
                   cell: int = 38, columns: int = HEADS_PER_ROW, x_title: str = "key",
                   y_title: str = "query", numbers: bool = True) -> dict:
    """Several labelled heatmaps (title -> matrix, row labels, column labels), `columns` to a row,
    on one colour scale, as a Vega-Lite spec; numbers in the cells when a panel is small enough.

    Concatenated plain specs (engine.charts.heatmap_spec): fast to build on every rerun, and
    Streamlit's Vega-Lite fails to draw facets of layered heatmaps with their own axes.
    """
    if domain is None:
        every = np.concatenate([np.ravel(m) for m, _, _ in panels.values()])
        domain = (float(every.min()), float(every.max()))
    specs = [heatmap_spec(matrix, rows, cols, title=title, x_title=x_title, y_title=y_title, value_name=value_name,
                          scheme=scheme, digits=digits, domain=domain, cell=cell,
                          **({} if numbers else {"max_cells_with_numbers": 0}))
             for title, (matrix, rows, cols) in panels.items()]
    rows = [{"hconcat": specs[i:i + columns], "spacing": 24} for i in range(0, len(specs), columns)]
    return {"vconcat": rows, "resolve": {"scale": {"color": "shared"}}}


def cost_bars(costs: dict[str, "AttentionCost"], *, measure: str, title: str) -> alt.Chart:  # noqa: F821
    """Horizontal bars of one measure ('params' or 'flops') for each way of building the heads."""
    frame = pd.DataFrame([(name, float(getattr(cost, measure))) for name, cost in costs.items()],
                         columns=["layout", measure])
    frame["text"] = [_short(v) for v in frame[measure]]
    reference = frame[measure].iloc[0]
    frame["ratio"] = [f"{v / reference:.3g} x" for v in frame[measure]]
    names = list(costs)
    base = alt.Chart(frame).encode(
        y=alt.Y("layout:N", sort=names, title=None, axis=alt.Axis(labelLimit=240)),
        x=alt.X(f"{measure}:Q", title=None, axis=alt.Axis(format="~s")),
    )
    colours = (PAIR_COLOURS + ["#7f7f7f"])[:len(names)]
    bars = base.mark_bar().encode(
        color=alt.Color("layout:N", sort=names, scale=alt.Scale(domain=names, range=colours), legend=None),
        tooltip=["layout", alt.Tooltip(f"{measure}:Q", format=","), "ratio"])
    text = base.mark_text(align="left", dx=4, fontSize=12).encode(text=alt.Text("label:N")).transform_calculate(
        label="datum.text + '  (' + datum.ratio + ')'")
    return (bars + text).properties(title=title, height=34 * len(names) + 20, width=260)


def cost_comparison(costs: dict[str, "AttentionCost"]) -> alt.HConcatChart:  # noqa: F821
    """Parameters and FLOPs of each layout, side by side."""
    return alt.hconcat(cost_bars(costs, measure="params", title="parameters (W_Q, W_K, W_V, W_O)"),
                       cost_bars(costs, measure="flops", title="floating-point operations, one forward pass"),
                       spacing=30)


def _short(value: float) -> str:
    """2359296 -> '2.36 M', 8.06e9 -> '8.06 G'."""
    for factor, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{suffix}"
    return f"{value:.0f}"
