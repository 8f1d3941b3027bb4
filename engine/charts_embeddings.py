"""Altair builders for the Embedding explorer: scored word lists, the 2-D map with offset arrows,
a homonym's neighbours between two senses, and accuracy per vocabulary size.

Data in, alt.Chart out; colour-blind-safe blue/orange, and numbers printed beside bars.
"""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from engine.charts import PAIR_COLOURS

BLUE, ORANGE = PAIR_COLOURS
GREY = "#7f7f7f"


def score_bars(words: list[str], scores, *, title: str = "", value_title: str = "cosine",
               highlight: str | None = None, digits: int = 3) -> alt.Chart:
    """Horizontal bars, best on top, each score printed; `highlight` (an expected answer) in orange."""
    frame = pd.DataFrame({"word": list(words), "score": np.asarray(scores, dtype=float)})
    frame["rank"] = np.arange(1, len(frame) + 1)
    frame["label"] = [f"{s:.{digits}f}" for s in frame["score"]]
    frame["expected"] = ["expected answer" if w == highlight else "other" for w in frame["word"]]
    low = min(0.0, float(frame["score"].min()))
    high = max(1.0, float(frame["score"].max())) if value_title == "cosine" else float(frame["score"].max()) * 1.15
    base = alt.Chart(frame).encode(
        y=alt.Y("word:N", sort=list(frame["word"]), title=None, axis=alt.Axis(labelFontSize=12)),
        x=alt.X("score:Q", title=value_title, scale=alt.Scale(domain=[low, high])),
        tooltip=["rank:Q", "word:N", alt.Tooltip("score:Q", format=f".{digits}f")],
    )
    bars = base.mark_bar().encode(
        color=alt.Color("expected:N", scale=alt.Scale(domain=["other", "expected answer"], range=[BLUE, ORANGE]),
                        legend=None))
    text = base.mark_text(align="left", dx=4, fontSize=12).encode(text="label:N")
    return (bars + text).properties(title=title, height=alt.Step(24))


def embedding_map(words: list[str], coords, *, arrows: list[tuple[str, str]] = (),
                  roles: dict[str, str] | None = None, neighbours: dict[str, str] | None = None,
                  explained=None, size: int = 520) -> alt.LayerChart:
    """Words as points on their PCA plane, each offset a -> b drawn as an arrow.

    Both axes span the same range, so parallel offsets look parallel. `neighbours`
    (word -> text) shows on hover.
    """
    coords = np.asarray(coords, dtype=float)
    roles = roles or {}
    neighbours = neighbours or {}
    frame = pd.DataFrame({"word": words, "x": coords[:, 0], "y": coords[:, 1]})
    frame["role"] = [roles.get(w, "other word") for w in words]
    frame["nearest"] = [neighbours.get(w, "") for w in words]
    centre = (coords.max(axis=0) + coords.min(axis=0)) / 2
    half = max(float(np.ptp(coords, axis=0).max()) / 2, 1e-6) * 1.18
    x_domain = [centre[0] - half, centre[0] + half]
    y_domain = [centre[1] - half, centre[1] + half]
    share = explained if explained is not None else (np.nan, np.nan)
    x_axis = alt.X("x:Q", scale=alt.Scale(domain=x_domain, nice=False, zero=False),
                   title=f"first principal direction ({share[0]:.0%} of the spread)")
    y_axis = alt.Y("y:Q", scale=alt.Scale(domain=y_domain, nice=False, zero=False),
                   title=f"second principal direction ({share[1]:.0%})")
    role_names = ["analogy word", "answer", "other word"]
    colour = alt.Color("role:N", scale=alt.Scale(domain=role_names, range=[BLUE, ORANGE, GREY]),
                       legend=alt.Legend(orient="top", title=None))
    points = alt.Chart(frame).mark_circle(size=90, opacity=0.9).encode(
        x=x_axis, y=y_axis, color=colour,
        tooltip=[alt.Tooltip("word:N"), alt.Tooltip("nearest:N", title="nearest words"),
                 alt.Tooltip("x:Q", format=".3f"), alt.Tooltip("y:Q", format=".3f")])
    labels = alt.Chart(frame).mark_text(align="left", dx=7, dy=-7, fontSize=13).encode(
        x="x:Q", y="y:Q", text="word:N",
        color=alt.Color("role:N", scale=alt.Scale(domain=role_names, range=[BLUE, ORANGE, GREY]), legend=None))
    layers = [points, labels]
    place = {w: (float(x), float(y)) for w, x, y in zip(words, coords[:, 0], coords[:, 1])}
    segments = []
    barb = 0.05 * half  # arrowhead size in data units (both axes share one span)
    for number, (a, b) in enumerate(arrows):
        if a not in place or b not in place or place[a] == place[b]:
            continue
        start, end = np.array(place[a]), np.array(place[b])
        along = (end - start) / np.linalg.norm(end - start)
        across = np.array([-along[1], along[0]])
        kind = "analogy offset" if number < 2 else "other offset"
        # the shaft, then two short barbs from the tip: drawn in data units, so they follow the line
        # whatever size Streamlit gives the chart
        for tip_to in (start, end - barb * (along - 0.6 * across), end - barb * (along + 0.6 * across)):
            segments.append({"pair": f"{a} → {b}", "kind": kind, "x": float(tip_to[0]), "y": float(tip_to[1]),
                             "x2": float(end[0]), "y2": float(end[1])})
    if segments:
        arrows_frame = pd.DataFrame(segments)
        arrow_scale = alt.Scale(domain=["analogy offset", "other offset"], range=[ORANGE, BLUE])
        lines = alt.Chart(arrows_frame).mark_rule(strokeWidth=2, opacity=0.8).encode(
            x="x:Q", y="y:Q", x2="x2:Q", y2="y2:Q", tooltip=["pair:N"],
            color=alt.Color("kind:N", scale=arrow_scale, legend=alt.Legend(orient="bottom", title=None)))
        layers = [lines] + layers
    return alt.layer(*layers).resolve_scale(color="independent").properties(width=size, height=size)


def sense_scatter(words: list[str], cos_a, cos_b, *, sense_a: str, sense_b: str, anchor_a: str,
                  anchor_b: str, closest: list[str]) -> alt.LayerChart:
    """A homonym's neighbours placed by their cosine to one word of each sense; the diagonal splits them."""
    frame = pd.DataFrame({"word": words, "a": np.asarray(cos_a, float), "b": np.asarray(cos_b, float),
                          "closer to": closest})
    low = float(min(frame["a"].min(), frame["b"].min(), 0.0)) - 0.05
    high = float(max(frame["a"].max(), frame["b"].max())) + 0.08
    scale = alt.Scale(domain=[low, high], nice=False)
    colour = alt.Color("closer to:N", scale=alt.Scale(domain=[sense_a, sense_b], range=[BLUE, ORANGE]),
                       legend=alt.Legend(orient="bottom", title="closer to the sense"))
    base = alt.Chart(frame).encode(
        x=alt.X("a:Q", scale=scale, title=f"cosine with '{anchor_a}' ({sense_a})"),
        y=alt.Y("b:Q", scale=scale, title=f"cosine with '{anchor_b}' ({sense_b})"))
    points = base.mark_circle(size=80).encode(
        color=colour, tooltip=["word:N", alt.Tooltip("a:Q", format=".3f", title=anchor_a),
                               alt.Tooltip("b:Q", format=".3f", title=anchor_b)])
    labels = base.mark_text(align="left", dx=6, dy=-6, fontSize=12).encode(text="word:N", color=colour)
    diagonal = alt.Chart(pd.DataFrame({"a": [low, high], "b": [low, high]})).mark_line(
        strokeDash=[4, 4], color=GREY).encode(x="a:Q", y="b:Q")
    return alt.layer(diagonal, points, labels).properties(width=400, height=400)


def accuracy_bars(rows: list[dict]) -> alt.Chart:
    """Share of classic analogies answered right (top-1 and top-5) for each vocabulary size."""
    frame = pd.DataFrame(rows)
    frame["label"] = [f"{v:.0%}" for v in frame["accuracy"]]
    sizes = list(dict.fromkeys(frame["vocabulary"]))
    base = alt.Chart(frame).encode(
        x=alt.X("vocabulary:N", sort=sizes, title="vocabulary searched (most frequent words)",
                axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("measure:N", sort=["top-1", "top-5"]),
        y=alt.Y("accuracy:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"),
                title="answered right"))
    colour = alt.Color("measure:N", scale=alt.Scale(domain=["top-1", "top-5"], range=[BLUE, ORANGE]),
                       legend=alt.Legend(orient="bottom", title=None))
    bars = base.mark_bar().encode(color=colour, tooltip=["vocabulary", "measure",
                                                         alt.Tooltip("accuracy:Q", format=".1%")])
    text = base.mark_text(dy=-7, fontSize=12).encode(text="label:N", color=colour)
    return (bars + text).properties(height=240)
