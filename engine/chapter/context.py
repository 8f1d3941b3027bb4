"""Context: window vs attention: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="context", url="context", view="context_window",
    title="Context: window vs attention",
    question="Which words should *crane* borrow meaning from?",
    one_line="Average a fixed window around 'crane', then let relevance choose: which one reaches 'lake'?",
    icon=":material/filter_center_focus:",
)
