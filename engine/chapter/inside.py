"""Inside the model: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="inside", url="inside", view="inside_the_model",
    title="Inside the model",
    question="What does a head *do*, not only where does it look?",
    one_line=("Read every layer, knock heads out, patch one run into another: what a head does, not only where "
              "it looks."),
    icon=":material/science:",
    beyond=("The chapter stops at where heads look; this page tests what they do, with the tools of "
            "interpretability research (logit lens, ablation, activation patching)."),
)
