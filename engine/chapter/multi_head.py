"""Multi-head attention: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="multihead", url="multi-head", view="multi_head",
    title="Multi-head attention",
    question="Why run h small heads instead of one big one, and what does it cost?",
    one_line="h heads of width d/h, concatenated, times W_O: shapes at every step, and what it costs.",
    icon=":material/view_week:",
)
