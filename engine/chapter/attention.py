"""Attention calculator: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="attention", url="attention", view="attention_calculator",
    title="Attention calculator",
    question="How does one token decide how much every other token matters?",
    one_line="Edit every number of X, W_Q, W_K, W_V and follow scores, softmax and context step by step.",
    icon=":material/calculate:",
)
