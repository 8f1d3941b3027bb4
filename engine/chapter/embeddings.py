"""Embedding explorer: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="embeddings", url="embeddings", view="embeddings",
    title="Embedding explorer",
    question="Do word vectors know that Paris is to France as Rome is to Italy?",
    one_line="400,000 real word vectors: nearest words, king - man + woman, offsets on a map, and homonyms.",
    icon=":material/scatter_plot:",
)
