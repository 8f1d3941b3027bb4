"""Block builder: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="block", url="block", view="block_builder",
    title="Block builder",
    question="What is inside a transformer block, what does each part cost, and what does it buy?",
    one_line=("Attention, FFN, residuals and LayerNorm stacked N times: shapes, parameter counts, and a live "
              "training run."),
    icon=":material/view_agenda:",
)
