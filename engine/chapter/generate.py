"""Generate: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="generate", url="generate", view="generate",
    title="Generate",
    question="How does a stack of blocks become text, and which model predicts Shakespeare best?",
    one_line="Last position -> linear -> softmax: sample from n-grams and transformers side by side, and rank them.",
    icon=":material/edit_note:",
)
