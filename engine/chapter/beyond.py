"""Beyond words: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="beyond", url="beyond", view="beyond_words",
    title="Beyond words",
    question="Can attention compare image patches, sound frames and amino acids the way it compares words?",
    one_line="Image patches, spectrogram frames and amino acids as tokens: the same attention on each.",
    icon=":material/category:",
)
