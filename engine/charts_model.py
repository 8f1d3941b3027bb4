"""Drawings for the Block builder and Generate pages: the data-flow diagram (Graphviz DOT)
and Altair charts of parameters, loss curves, next-token distributions and the model ladder.
"""
from __future__ import annotations

import altair as alt
import pandas as pd

from engine.model import Stage

RUN_COLOURS = ["#1f6fb4", "#e08214", "#2ca25f", "#7b3294", "#d7191c", "#4d4d4d"]  # distinguishable without red/green alone
BASELINE_COLOUR = "#7f7f7f"


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(f"{n:,}" for n in shape) + ")"


def block_diagram(stages: list[Stage], n_layers: int, residual: bool) -> str:
    """DOT source: one box per stage, the shape on each arrow, the block drawn once inside 'x N'."""
    lines = ['digraph G {', 'rankdir=TB; nodesep=0.25; ranksep=0.3;',
             'node [shape=box, style="rounded,filled", fillcolor="#eef4fb", color="#1f6fb4", fontname="Helvetica", fontsize=11];',
             'edge [fontname="Helvetica", fontsize=10, color="#555555"];']
    inside = [i for i, s in enumerate(stages) if s.in_block]
    for i, stage in enumerate(stages):
        params = f"\\n{stage.parameters:,} parameters" if stage.parameters else ""
        label = f"{stage.name}\\n{stage.formula}{params}".replace('"', "'")
        if i in inside:
            continue
        lines.append(f'n{i} [label="{label}"];')
    if inside:
        lines.append(f'subgraph cluster_block {{ label="block, repeated N = {n_layers} times"; style="rounded,dashed"; '
                     'color="#e08214"; fontname="Helvetica"; fontsize=11;')
        for i in inside:
            stage = stages[i]
            params = f"\\n{stage.parameters:,} parameters" if stage.parameters else ""
            lines.append(f'n{i} [label="{stage.name}\\n{stage.formula}{params}", fillcolor="#fdf0e1", color="#e08214"];')
        lines.append("}")
    for i in range(len(stages) - 1):
        lines.append(f'n{i} -> n{i + 1} [label=" {_shape(stages[i].shape)}"];')
    if residual and inside:
        first = inside[0]
        lines.append(f'n{first - 1} -> n{inside[3]} [style=dashed, color="#e08214", label=" residual", constraint=false];')
        lines.append(f'n{inside[3]} -> n{inside[5]} [style=dashed, color="#e08214", label=" residual", constraint=false];')
    lines.append("}")
    return "\n".join(lines)


def parameter_bars(parts: dict[str, int], *, title: str = "") -> alt.Chart:
    """Horizontal bars: parameters per part of the model, the number printed at each bar."""
    frame = pd.DataFrame([(name, count, f"{count:,}", count / max(sum(parts.values()), 1))
                          for name, count in parts.items()], columns=["part", "parameters", "text", "share"])
    base = alt.Chart(frame).encode(
        y=alt.Y("part:N", sort=list(parts), title=None, axis=alt.Axis(labelLimit=220, labelOverlap=False)),
        x=alt.X("parameters:Q", title="parameters"),
        tooltip=["part", alt.Tooltip("parameters:Q", format=","), alt.Tooltip("share:Q", format=".1%")],
    )
    bars = base.mark_bar(color=RUN_COLOURS[0])
    text = base.mark_text(align="left", dx=4, fontSize=11).encode(text="text:N")
    return (bars + text).properties(title=title, width=380, height=alt.Step(26))


def loss_curves(runs: list[dict], baselines: dict[str, float], *, smooth: int = 20) -> alt.Chart:
    """Training loss (thin, smoothed) and held-out loss (thick, points) per run against steps,
    with the n-gram baselines as dashed horizontal lines. runs: dicts with label, steps,
    train_loss, eval_steps, held_out_loss."""
    rows = []
    for run in runs:
        smoothed = pd.Series(run["train_loss"], dtype=float).rolling(smooth, min_periods=1).mean()
        rows += [(run["label"], "training (smoothed)", s, float(v)) for s, v in zip(run["steps"], smoothed)]
        rows += [(run["label"], "held-out", s, float(v)) for s, v in zip(run["eval_steps"], run["held_out_loss"])]
    frame = pd.DataFrame(rows, columns=["run", "loss on", "step", "nats per character"])
    labels = [run["label"] for run in runs]
    colour = alt.Color("run:N", scale=alt.Scale(domain=labels, range=RUN_COLOURS[:max(len(labels), 1)]),
                       legend=alt.Legend(orient="bottom", columns=1, title=None, labelLimit=600))
    lines = alt.Chart(frame).mark_line().encode(
        x=alt.X("step:Q", title="training step"),
        y=alt.Y("nats per character:Q", scale=alt.Scale(zero=False)),
        color=colour,
        strokeDash=alt.StrokeDash("loss on:N", sort=["held-out", "training (smoothed)"],
                                  legend=alt.Legend(orient="bottom", title=None)),
        strokeWidth=alt.condition(alt.datum["loss on"] == "held-out", alt.value(3), alt.value(1.2)),
        tooltip=["run", "loss on", "step", alt.Tooltip("nats per character:Q", format=".3f")],
    )
    points = alt.Chart(frame[frame["loss on"] == "held-out"]).mark_point(filled=True, size=40).encode(
        x="step:Q", y="nats per character:Q", color=colour)
    layers = [lines, points]
    if baselines:
        right = max([max(run["steps"], default=1) for run in runs] + [1])
        lines_frame = pd.DataFrame([(name, value, f"{name}: {value:.2f}", right) for name, value in baselines.items()],
                                   columns=["baseline", "nats per character", "text", "step"])
        rule = alt.Chart(lines_frame).mark_rule(color=BASELINE_COLOUR, strokeDash=[3, 3]).encode(
            y="nats per character:Q", tooltip=["text"])
        text = alt.Chart(lines_frame).mark_text(align="right", baseline="bottom", dy=-2, color="#404040",
                                                fontSize=11).encode(
            x="step:Q", y="nats per character:Q", text="text:N")
        layers += [rule, text]
    return alt.layer(*layers).properties(width=560, height=320)


def distribution_bars(tops: dict[str, list[tuple[str, float, float]]], *, title: str = "") -> alt.Chart:
    """Each model's most likely next tokens at one step: bar = P(w | context), tick = after temperature/top-k."""
    rows = [(model, token, p, q, rank) for model, top in tops.items()
            for rank, (token, p, q) in enumerate(top)]
    frame = pd.DataFrame(rows, columns=["model", "token", "P", "after temperature and top-k", "rank"])
    base = alt.Chart(frame).encode(y=alt.Y("token:N", sort=alt.EncodingSortField("rank"), title=None))
    bars = base.mark_bar(color=RUN_COLOURS[0]).encode(
        x=alt.X("P:Q", title="probability", scale=alt.Scale(domain=[0, 1])),
        tooltip=["token", alt.Tooltip("P:Q", format=".3f"), alt.Tooltip("after temperature and top-k:Q", format=".3f")])
    ticks = base.mark_tick(color=RUN_COLOURS[1], thickness=3, size=14).encode(x="after temperature and top-k:Q")
    text = base.mark_text(align="left", dx=3, fontSize=10).encode(x="P:Q", text=alt.Text("P:Q", format=".2f"))
    return alt.layer(bars, ticks, text, data=frame).properties(width=170, height=190).facet(
        column=alt.Column("model:N", title=title or None, sort=list(tops))).resolve_scale(y="independent")


def ladder_bars(rungs: list[tuple[str, float, str]]) -> alt.Chart:
    """The model ladder: held-out bits per character per model (fewer is better), coloured by kind."""
    frame = pd.DataFrame([(name, bits, kind, f"{bits:.3f}") for name, bits, kind in rungs],
                         columns=["model", "bits per character", "kind", "text"])
    kinds = list(dict.fromkeys(frame["kind"]))
    base = alt.Chart(frame).encode(
        y=alt.Y("model:N", sort=list(frame["model"]), title=None, axis=alt.Axis(labelLimit=260, labelOverlap=False)),
        x=alt.X("bits per character:Q", title="held-out bits per character (fewer is better)"),
    )
    bars = base.mark_bar().encode(
        color=alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=RUN_COLOURS[:len(kinds)]),
                        legend=alt.Legend(orient="bottom", title=None)),
        tooltip=["model", alt.Tooltip("bits per character:Q", format=".3f")])
    text = base.mark_text(align="left", dx=4, fontSize=11).encode(text="text:N")
    return (bars + text).properties(width=460, height=alt.Step(28))
