"""Position: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="position", url="position", view="position",
    title="Position",
    question="Shuffle the words: does attention notice?",
    one_line="Shuffle the words and attention shuffles its outputs, unchanged, until a positional encoding is added.",
    icon=":material/format_list_numbered:",
)
