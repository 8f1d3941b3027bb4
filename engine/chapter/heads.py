"""Head viewer (SmolLM2): the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="heads", url="heads", view="head_viewer",
    title="Head viewer (SmolLM2)",
    question="What do the heads of a real trained model look at?",
    one_line="All 270 heads of a real trained model on your sentence: which look back one token, which copy?",
    icon=":material/grid_view:",
    beyond=("The chapter says trained heads are often interpretable; this page reads the heads of a real "
            "model, SmolLM2, and names their patterns."),
)
