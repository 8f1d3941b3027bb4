"""Vega-Lite specs (plain dicts) for the multi-head page: every head's weights side by side, and
what heads cost. Plain specs, like engine.charts.heatmap_spec: fast to build on every rerun;
validated against the Vega-Lite schema in the tests."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.charts import PAIR_COLOURS, heatmap_spec, panel, rows_are_weights, styled, value_scale

if TYPE_CHECKING:  # annotations only: the charts read a cost's fields, nothing more
    from engine.attention import AttentionCost

HEADS_PER_ROW = 4
COST_WIDTH = 380   # px of one cost chart's bars
COST_LABEL = 110   # px kept right of the longest bar for its printed amount ("96.7 G  (12 x)")


@styled
def head_grid(weights: list[np.ndarray], tokens: list[str], *, titles: list[str] | None = None,
              cell: int = 38, color_by: str | None = None) -> dict:
    """One weights heatmap per head (alpha_m, query rows, key columns), four to a row, one shared
    colour scale (each row from its lowest to its highest weight, see heatmap_spec)."""
    titles = titles or [f"head {m + 1}" for m in range(len(weights))]
    return heatmap_panels({t: (w, tokens, tokens) for t, w in zip(titles, weights)}, domain=(0.0, 1.0), cell=cell,
                          color_by=color_by)


@styled
def heatmap_panels(panels: dict[str, tuple[np.ndarray, list[str], list[str]]], *, value_name: str = "weight",
                   scheme: str = "blues", domain: tuple[float, float] | None = None, digits: int = 2,
                   cell: int = 38, columns: int = HEADS_PER_ROW, x_title: str = "key",
                   y_title: str = "query", numbers: bool = True, color_by: str | None = None) -> dict:
    """Several labelled heatmaps (title -> matrix, row labels, column labels), `columns` to a row,
    on one colour scale (its legend underneath, so a row of panels is no wider than the panels),
    as a Vega-Lite spec; numbers in the cells when a panel is small enough. color_by as in heatmap_spec,
    decided once for all panels: None gives "row" when every panel is attention weights (on no domain
    or 0..1), else "all".

    Concatenated plain specs (engine.charts.heatmap_spec): fast to build on every rerun, and
    Streamlit's Vega-Lite fails to draw facets of layered heatmaps with their own axes.
    """
    if color_by is None:
        weights_domain = domain is None or tuple(float(d) for d in domain) == (0.0, 1.0)
        color_by = "row" if weights_domain and all(rows_are_weights(m) for m, _, _ in panels.values()) else "all"
    if domain is None:
        every = np.concatenate([np.ravel(m) for m, _, _ in panels.values()])
        domain = (float(every.min()), float(every.max()))
    specs = [panel(heatmap_spec(matrix, rows, cols, title=title, x_title=x_title, y_title=y_title,
                                value_name=value_name, scheme=scheme, digits=digits, domain=domain, cell=cell,
                                color_by=color_by, legend_orient="bottom",
                                **({} if numbers else {"max_cells_with_numbers": 0})))
             for title, (matrix, rows, cols) in panels.items()]
    rows = [{"hconcat": specs[i:i + columns], "spacing": 24} for i in range(0, len(specs), columns)]
    return {"vconcat": rows, "resolve": {"scale": {"color": "shared"}}}


@styled
def cost_bars(costs: dict[str, AttentionCost], *, measure: str, title: str) -> dict:
    """Horizontal bars of one measure ('params' or 'flops') for each way of building the heads, each
    amount printed beside its bar, inside the chart (the axis runs on past the longest bar for it)."""
    names = list(costs)
    amounts = [float(getattr(cost, measure)) for cost in costs.values()]
    reference = amounts[0]
    values = []
    for name, amount in zip(names, amounts):
        ratio = f"{amount / reference:.3g} x"
        values.append({"layout": name, measure: amount, "text": _short(amount), "ratio": ratio,
                       "label": f"{_short(amount)}  ({ratio})"})
    return {
        "title": title, "data": {"values": values}, "width": COST_WIDTH, "height": 34 * len(names) + 20,
        "encoding": {
            "y": {"field": "layout", "type": "nominal", "sort": names, "title": None, "axis": {"labelLimit": 240}},
            "x": {"field": measure, "type": "quantitative", "title": None, "axis": {"format": "~s"},
                  "scale": value_scale(max(amounts, default=0.0), headroom=COST_WIDTH / (COST_WIDTH - COST_LABEL))}},
        "layer": [
            {"mark": {"type": "bar"}, "encoding": {
                "color": {"field": "layout", "type": "nominal", "sort": names, "legend": None,
                          "scale": {"domain": names, "range": (PAIR_COLOURS + ["#7f7f7f"])[:len(names)]}},
                "tooltip": [{"field": "layout", "type": "nominal"},
                            {"field": measure, "type": "quantitative", "format": ","},
                            {"field": "ratio", "type": "nominal"}]}},
            {"mark": {"type": "text", "align": "left", "dx": 4},
             "encoding": {"text": {"field": "label", "type": "nominal"}}},
        ],
    }


@styled
def cost_comparison(costs: dict[str, AttentionCost]) -> dict:
    """Parameters and FLOPs of each layout, one chart above the other (side by side they are wider
    than the page's column)."""
    return {"vconcat": [panel(cost_bars(costs, measure="params", title="parameters (W_Q, W_K, W_V, W_O)")),
                        panel(cost_bars(costs, measure="flops", title="floating-point operations, one forward pass"))],
            "spacing": 24}


def _short(value: float) -> str:
    """2359296 -> '2.36 M', 8.06e9 -> '8.06 G'."""
    for factor, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{suffix}"
    return f"{value:.0f}"
