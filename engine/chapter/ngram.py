"""N-gram sampler: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="ngram", url="ngram", view="ngram",
    title="N-gram sampler",
    question="How far can counting the last n-1 tokens take a language model?",
    one_line="Count, sample and score n-grams of Shakespeare: the V^n table that cannot be filled, and the loops.",
    icon=":material/casino:",
)
