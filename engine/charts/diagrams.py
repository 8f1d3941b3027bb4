"""Diagrams that are not Vega-Lite: the Block builder's data flow as Graphviz DOT text."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.charts.palette import BLUE, GREY_33, ORANGE, PALE_BLUE, PALE_ORANGE

if TYPE_CHECKING:  # engine.model imports torch; the diagram only reads a stage's fields
    from engine.transformer_config import Stage


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(f"{n:,}" for n in shape) + ")"


def block_diagram(stages: list[Stage], n_layers: int, residual: bool) -> str:
    """DOT source: one box per stage, the shape on each arrow, the block drawn once inside 'x N'."""
    lines = ['digraph G {', 'rankdir=TB; nodesep=0.25; ranksep=0.3;',
             f'node [shape=box, style="rounded,filled", fillcolor="{PALE_BLUE}", color="{BLUE}", '
             'fontname="Helvetica", fontsize=14];',
             f'edge [fontname="Helvetica", fontsize=13, color="{GREY_33}"];']
    inside = [i for i, s in enumerate(stages) if s.in_block]
    for i, stage in enumerate(stages):
        params = f"\\n{stage.parameters:,} parameters" if stage.parameters else ""
        label = f"{stage.name}\\n{stage.formula}{params}".replace('"', "'")
        if i in inside:
            continue
        lines.append(f'n{i} [label="{label}"];')
    if inside:
        lines.append(f'subgraph cluster_block {{ label="block, repeated N = {n_layers} times"; style="rounded,dashed"; '
                     f'color="{ORANGE}"; fontname="Helvetica"; fontsize=13;')
        for i in inside:
            stage = stages[i]
            params = f"\\n{stage.parameters:,} parameters" if stage.parameters else ""
            lines.append(f'n{i} [label="{stage.name}\\n{stage.formula}{params}", '
                         f'fillcolor="{PALE_ORANGE}", color="{ORANGE}"];')
        lines.append("}")
    for i in range(len(stages) - 1):
        lines.append(f'n{i} -> n{i + 1} [label=" {_shape(stages[i].shape)}"];')
    if residual and inside:
        first = inside[0]
        residual_edge = f'[style=dashed, color="{ORANGE}", label=" residual", constraint=false];'
        lines.append(f"n{first - 1} -> n{inside[3]} {residual_edge}")
        lines.append(f"n{inside[3]} -> n{inside[5]} {residual_edge}")
    lines.append("}")
    return "\n".join(lines)
