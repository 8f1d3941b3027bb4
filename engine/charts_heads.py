"""Altair builders for the multi-head page: every head's weights side by side, and what heads cost."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from engine.charts import PAIR_COLOURS, heatmap

HEADS_PER_ROW = 4


def head_grid(weights: list[np.ndarray], tokens: list[str], *, titles: list[str] | None = None,
              cell: int = 38) -> alt.VConcatChart:
    """One weights heatmap per head (alpha_m, query rows, key columns), four to a row, one shared 0..1 scale."""
    titles = titles or [f"head {m + 1}" for m in range(len(weights))]
    charts = [heatmap(w, tokens, tokens, title=t, domain=(0.0, 1.0), digits=2, cell=cell,
                      x_title="key", y_title="query")
              for w, t in zip(weights, titles)]
    rows = [alt.hconcat(*charts[i:i + HEADS_PER_ROW]) for i in range(0, len(charts), HEADS_PER_ROW)]
    return alt.vconcat(*rows).resolve_scale(color="shared")


def cost_bars(costs: dict[str, "AttentionCost"], *, measure: str, title: str) -> alt.Chart:  # noqa: F821
    """Horizontal bars of one measure ('params' or 'flops') for each way of building the heads."""
    frame = pd.DataFrame([(name, float(getattr(cost, measure))) for name, cost in costs.items()],
                         columns=["layout", measure])
    frame["text"] = [_short(v) for v in frame[measure]]
    reference = frame[measure].iloc[0]
    frame["ratio"] = [f"{v / reference:.3g} x" for v in frame[measure]]
    names = list(costs)
    base = alt.Chart(frame).encode(
        y=alt.Y("layout:N", sort=names, title=None),
        x=alt.X(f"{measure}:Q", title=title, axis=alt.Axis(format="~s")),
    )
    colours = (PAIR_COLOURS + ["#7f7f7f"])[:len(names)]
    bars = base.mark_bar().encode(
        color=alt.Color("layout:N", sort=names, scale=alt.Scale(domain=names, range=colours), legend=None),
        tooltip=["layout", alt.Tooltip(f"{measure}:Q", format=","), "ratio"])
    text = base.mark_text(align="left", dx=4, fontSize=12).encode(text=alt.Text("label:N")).transform_calculate(
        label="datum.text + '  (' + datum.ratio + ')'")
    return (bars + text).properties(title=title, height=34 * len(names) + 20, width=360)


def _short(value: float) -> str:
    """2359296 -> '2.36 M', 8.06e9 -> '8.06 G'."""
    for factor, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{suffix}"
    return f"{value:.0f}"
