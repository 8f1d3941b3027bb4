"""Altair charts for the text pages (tokens, n-grams): data in, alt.Chart out.

Colour-blind-safe: blues / viridis for magnitudes, the blue / orange pair (and Okabe-Ito
beyond two) for categories; every colour also has a label or a tooltip.
"""
from __future__ import annotations

import math

import altair as alt
import pandas as pd

from engine.charts import PAIR_COLOURS

# Okabe & Ito's palette, blue and orange first: distinguishable with the common colour blindnesses.
CATEGORY_COLOURS = PAIR_COLOURS + ["#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000"]


def visible(token: str) -> str:
    """A token as a label: spaces as '␣', line breaks as '↵', tabs as '⇥'."""
    return token.replace(" ", "\u2423").replace("\n", "\u21b5").replace("\t", "\u21e5") or "(empty)"


def next_token_bars(distributions: dict[str, list[tuple[str, float]]], *, title: str = "") -> alt.Chart:
    """Horizontal bars of P(next token) for one or more models, the most likely token on top."""
    rows = [(model, visible(token), p, f"{p:.3f}") for model, top in distributions.items() for token, p in top]
    highest = max((p for _, _, p, _ in rows), default=1.0)
    frame = pd.DataFrame(rows, columns=["model", "token", "probability", "text"])
    models = list(distributions)
    colour = alt.Color("model:N", scale=alt.Scale(domain=models, range=CATEGORY_COLOURS[:len(models)]),
                       legend=alt.Legend(orient="bottom", title=None) if len(models) > 1 else None)
    base = alt.Chart(frame).encode(
        y=alt.Y("token:N", sort=None, title=None, axis=alt.Axis(labelFontSize=13)),
        x=alt.X("probability:Q", title="P(next token | context)", scale=alt.Scale(domain=[0, min(1.0, highest * 1.25)])),
    )
    bars = base.mark_bar().encode(color=colour, tooltip=["model", "token", alt.Tooltip("probability:Q", format=".4f")])
    text = base.mark_text(align="left", dx=3, fontSize=12).encode(text="text:N")
    layered = (bars + text).properties(height=alt.Step(22), width=360)
    if len(models) > 1:
        return layered.facet(column=alt.Column("model:N", title=None, sort=models)).properties(title=title) \
            .resolve_scale(y="independent")
    return layered.properties(title=title)


def transition_heatmap(labels: list[str], counts, probs, *, title: str = "") -> alt.Chart:
    """The bigram table: row = token a, column = next token b, colour P(b | a); hover for the count."""
    shown = [visible(label) for label in labels]
    rows = [(shown[i], shown[j], float(probs[i][j]), int(counts[i][j]))
            for i in range(len(labels)) for j in range(len(labels))]
    frame = pd.DataFrame(rows, columns=["a", "b", "P(b | a)", "C(a b)"])
    return alt.Chart(frame).mark_rect(stroke="white", strokeWidth=0.5).encode(
        x=alt.X("b:N", sort=shown, title="next token b",
                axis=alt.Axis(orient="top", labelAngle=-45, labelFontSize=12, labelOverlap=False)),
        y=alt.Y("a:N", sort=shown, title="token a", axis=alt.Axis(labelFontSize=12, labelOverlap=False)),
        color=alt.Color("P(b | a):Q", scale=alt.Scale(scheme="blues"), legend=alt.Legend(title="P(b | a)")),
        tooltip=["a", "b", alt.Tooltip("P(b | a):Q", format=".4f"), alt.Tooltip("C(a b):Q", format=",")],
    ).properties(title=title, width=alt.Step(24), height=alt.Step(24))


def table_growth(orders: list[int], seen: list[int], possible: list[float], *, title: str = "") -> alt.Chart:
    """Distinct n-grams seen vs V^n possible, log scale: the table that cannot be filled."""
    rows = [(n, "possible (V^n)", float(p)) for n, p in zip(orders, possible)] + \
           [(n, "seen in the text", float(s)) for n, s in zip(orders, seen)]
    frame = pd.DataFrame(rows, columns=["n", "kind", "entries"])
    frame["label"] = [f"{v:.2g}" if v >= 1e5 else f"{v:,.0f}" for v in frame["entries"]]
    kinds = ["possible (V^n)", "seen in the text"]
    base = alt.Chart(frame).encode(
        x=alt.X("n:O", title="n", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("entries:Q", scale=alt.Scale(type="log"), title="table entries (log scale)"),
        color=alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=PAIR_COLOURS[::-1]),
                        legend=alt.Legend(orient="bottom", title=None)),
    )
    lines = base.mark_line(point=True).encode(tooltip=["n", "kind", alt.Tooltip("entries:Q", format=",.0f")])
    text = base.mark_text(dy=-9, fontSize=11).encode(text="label:N")
    return (lines + text).properties(title=title, height=280, width=420)


def held_out_lines(rows: list[tuple[int, str, float]], *, title: str = "", unit: str = "bits per token") -> alt.Chart:
    """Held-out cross-entropy per n, one line per smoothing; infinite values drawn as 'inf' above the rest."""
    finite = [v for _, _, v in rows if math.isfinite(v)]
    top = max(finite) * 1.08 if finite else 1.0
    frame = pd.DataFrame([(n, s, v if math.isfinite(v) else None, "inf" if not math.isfinite(v) else f"{v:.2f}")
                          for n, s, v in rows], columns=["n", "smoothing", "value", "label"])
    smoothings = list(dict.fromkeys(s for _, s, _ in rows))
    colour = alt.Color("smoothing:N", scale=alt.Scale(domain=smoothings, range=CATEGORY_COLOURS[:len(smoothings)]),
                       legend=alt.Legend(orient="bottom", title=None))
    base = alt.Chart(frame).encode(x=alt.X("n:O", title="n", axis=alt.Axis(labelAngle=0)), color=colour)
    lines = base.transform_filter("datum.value != null").mark_line(point=True).encode(
        y=alt.Y("value:Q", title=f"held-out cross-entropy ({unit})", scale=alt.Scale(zero=False)),
        tooltip=["n", "smoothing", alt.Tooltip("value:Q", format=".3f")])
    infinite = base.transform_filter("datum.value == null").transform_calculate(y=str(top)).mark_text(
        fontSize=13, fontWeight="bold").encode(y="y:Q", text="label:N",
                                                tooltip=["n", "smoothing", alt.Tooltip("label:N", title="value")])
    return (lines + infinite).properties(title=title, height=300, width=500)


def tokens_vs_merges(merges: list[int], n_tokens: list[int], current: int, *, title: str = "") -> alt.Chart:
    """How many tokens the text takes as BPE learns merges; a rule marks the current step."""
    frame = pd.DataFrame({"merges": merges, "tokens": n_tokens})
    line = alt.Chart(frame).mark_line(point=True, color=PAIR_COLOURS[0]).encode(
        x=alt.X("merges:Q", title="merges learned"), y=alt.Y("tokens:Q", title="tokens for your text"),
        tooltip=["merges", "tokens"])
    rule = alt.Chart(pd.DataFrame({"merges": [current]})).mark_rule(color=PAIR_COLOURS[1], strokeWidth=2) \
        .encode(x="merges:Q")
    return (line + rule).properties(title=title, height=220, width=420)
