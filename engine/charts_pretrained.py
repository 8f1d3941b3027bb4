"""Altair builders for what SmolLM2 says: next-token bars and per-layer similarities."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from engine.charts import PAIR_COLOURS, _unique


def next_token_bars(tokens: list[str], probabilities, *, title: str = "", colour: str = PAIR_COLOURS[0]) -> alt.LayerChart:
    """Horizontal bars of P(next token), most likely on top, the probability printed beside each bar."""
    labels = _unique([repr(token)[1:-1] for token in tokens])
    frame = pd.DataFrame({"token": labels, "probability": np.asarray(probabilities, dtype=float)})
    frame["text"] = [f"{p:.3f}" for p in frame["probability"]]
    base = alt.Chart(frame).encode(
        y=alt.Y("token:N", sort=labels, title="next token", axis=alt.Axis(labelFontSize=13)),
        x=alt.X("probability:Q", title="P(next token | text)", scale=alt.Scale(domain=[0, 1])))
    bars = base.mark_bar(color=colour).encode(tooltip=["token:N", alt.Tooltip("probability:Q", format=".4f")])
    text = base.mark_text(align="left", dx=4, fontSize=12).encode(text="text:N")
    return (bars + text).properties(title=title, width=320, height=alt.Step(22))


def cosine_by_layer(cosines: dict[str, np.ndarray], *, title: str = "") -> alt.Chart:
    """cos(h_l(a), h_l(b)) against the layer l, one line per pair of sentences; layer 0 is the static vector."""
    frame = pd.DataFrame([{"pair": name, "layer": layer, "cosine": float(value)}
                          for name, values in cosines.items() for layer, value in enumerate(values)])
    names = list(cosines)
    return alt.Chart(frame).mark_line(point=True).encode(
        x=alt.X("layer:Q", title="layer (0 = the static token embedding)", scale=alt.Scale(domain=[0, len(frame) and
                                                                                                   int(frame.layer.max())])),
        y=alt.Y("cosine:Q", title="cosine between the two contexts", scale=alt.Scale(domain=[-0.2, 1.05])),
        color=alt.Color("pair:N", scale=alt.Scale(domain=names, range=(PAIR_COLOURS * 3)[:len(names)]),
                        legend=alt.Legend(orient="bottom", title=None)),
        tooltip=["pair:N", "layer:Q", alt.Tooltip("cosine:Q", format=".3f")],
    ).properties(title=title, width=520, height=260)


def grouped_probabilities(probabilities: dict[str, np.ndarray], labels: list[str], *, title: str = "") -> alt.LayerChart:
    """P(label | prompt) for two or more prompts side by side, on an axis that fits the largest value."""
    prompts = list(probabilities)
    frame = pd.DataFrame([{"prompt": prompt, "token": labels[j], "probability": float(values[j]),
                           "text": f"{values[j]:.3f}"}
                          for prompt, values in probabilities.items() for j in range(len(labels))])
    colour = alt.Color("prompt:N", scale=alt.Scale(domain=prompts, range=(PAIR_COLOURS * 3)[:len(prompts)]),
                       legend=alt.Legend(orient="bottom", title=None, columns=1))
    base = alt.Chart(frame).encode(
        x=alt.X("token:N", sort=labels, title=None, axis=alt.Axis(labelAngle=0, labelFontSize=13)),
        xOffset=alt.XOffset("prompt:N", sort=prompts),
        y=alt.Y("probability:Q", title="P(next token | prompt)"))
    bars = base.mark_bar().encode(color=colour, tooltip=["prompt:N", "token:N",
                                                         alt.Tooltip("probability:Q", format=".4f")])
    text = base.mark_text(dy=-7, fontSize=11).encode(text="text:N", color=colour)
    return (bars + text).properties(title=title, height=240, width=alt.Step(60))
