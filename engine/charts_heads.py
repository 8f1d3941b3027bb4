"""Altair builders for the multi-head page: every head's weights side by side, and what heads cost."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from engine.charts import PAIR_COLOURS, _unique

HEADS_PER_ROW = 4


def head_grid(weights: list[np.ndarray], tokens: list[str], *, titles: list[str] | None = None,
              cell: int = 38) -> alt.FacetChart:
    """One weights heatmap per head (alpha_m, query rows, key columns), four to a row, one shared 0..1 scale."""
    titles = titles or [f"head {m + 1}" for m in range(len(weights))]
    return heatmap_panels({t: (w, tokens, tokens) for t, w in zip(titles, weights)}, domain=(0.0, 1.0), cell=cell)

def heatmap_panels(panels: dict[str, tuple[np.ndarray, list[str], list[str]]], *, value_name: str = "weight",
                   scheme: str = "blues", domain: tuple[float, float] | None = None, digits: int = 2,
                   cell: int = 38, columns: int = HEADS_PER_ROW, x_title: str = "key",
                   y_title: str = "query") -> alt.FacetChart:
    """Several labelled heatmaps, one panel each, on one colour scale, numbers printed in the cells.

    One faceted chart rather than many layered ones: Altair copies every chart it combines,
    so h separate heatmaps cost h times the building; a facet is built once.
    """
    frames = []
    for title, (matrix, row_labels, col_labels) in panels.items():
        values = np.asarray(matrix, dtype=float)
        rows, cols = _unique(list(row_labels)), _unique(list(col_labels))
        i, j = np.meshgrid(np.arange(len(rows)), np.arange(len(cols)), indexing="ij")
        frames.append(pd.DataFrame({"panel": title, "row": np.array(rows)[i.ravel()],
                                    "col": np.array(cols)[j.ravel()], value_name: values.ravel(),
                                    "i": i.ravel(), "j": j.ravel()}))
    frame = pd.concat(frames, ignore_index=True)
    low, high = domain if domain else (float(frame[value_name].min()), float(frame[value_name].max()))
    frame["text"] = [f"{v:.{digits}f}" for v in frame[value_name]]
    frame["ink"] = np.where(frame[value_name] > (low + high) / 2, "white", "black")  # data, not alt.condition
    base = alt.Chart().encode(
        x=alt.X("col:N", sort=alt.EncodingSortField("j"), title=x_title, axis=alt.Axis(labelAngle=-40, orient="top")),
        y=alt.Y("row:N", sort=alt.EncodingSortField("i"), title=y_title),
    )
    rects = base.mark_rect(stroke="white").encode(
        color=alt.Color(f"{value_name}:Q", scale=alt.Scale(scheme=scheme, domain=[low, high]),
                        legend=alt.Legend(title=value_name)),
        tooltip=["panel:N", alt.Tooltip("row:N", title=y_title), alt.Tooltip("col:N", title=x_title),
                 alt.Tooltip(f"{value_name}:Q", format=f".{digits}f")])
    text = base.mark_text(fontSize=11).encode(text="text:N", color=alt.Color("ink:N", scale=None))
    layers = alt.layer(rects, text).properties(width=alt.Step(cell), height=alt.Step(cell))
    titles = list(panels)
    return alt.FacetChart(data=frame, spec=layers, facet=alt.Facet(
        "panel:N", sort=titles, title=None, header=alt.Header(labelFontSize=13, labelFontWeight="bold")),
        columns=columns).resolve_scale(x="independent", y="independent")


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
