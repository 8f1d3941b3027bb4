"""The chapter as a path of pages, one spec each (engine.chapter.spec.PageSpec), in the chapter's order.

Every front end reads this one list: the Streamlit app's navigation, home page and "next idea" links, the Gradio
Space's tabs, the class (its questions and lessons) and the handouts. Grouped as the chapter tells it: the block
(FFN, residuals, LayerNorm) before order and positional encoding. The head viewer and Inside the model follow
multi-head attention but go beyond the chapter (their `beyond` says how).

    from engine.chapter import PARTS, page
    page("attention").title        # 'Attention calculator'
"""
from __future__ import annotations

from engine.chapter import (
    attention, beyond, block, context, embeddings, generate, heads, inside, multi_head, ngram, position, tokens,
)
from engine.chapter.spec import PageSpec
from engine.i18n import N_

# the parts' names are English keys (a notebook's file name is made from one), shown with _(part)
PARTS: dict[str, tuple[PageSpec, ...]] = {
    N_("Language modelling"): (tokens.PAGE, ngram.PAGE),
    N_("Embeddings"): (embeddings.PAGE,),
    N_("Attention"): (context.PAGE, attention.PAGE, multi_head.PAGE, heads.PAGE, inside.PAGE),
    N_("The transformer"): (block.PAGE, position.PAGE, generate.PAGE),
    N_("Beyond words"): (beyond.PAGE,),
}


def pages() -> list[PageSpec]:
    """Every page in the chapter's order."""
    return [spec for part in PARTS.values() for spec in part]


def page(url: str) -> PageSpec:
    """The page whose link path is `url` ('attention'); KeyError for none."""
    for spec in pages():
        if spec.url == url:
            return spec
    raise KeyError(url)


def following(url: str) -> PageSpec | None:
    """The page after `url` along the path, or None at its end."""
    order = pages()
    index = [spec.url for spec in order].index(url)
    return order[index + 1] if index + 1 < len(order) else None


def part_of(spec: PageSpec) -> str:
    """The part of the chapter a page belongs to."""
    return next(part for part, specs in PARTS.items() if spec in specs)


def notebook(spec: PageSpec) -> str:
    """The notebook (a jupytext file under notebooks/) that redoes the numbers of the page's part."""
    return "_".join(word for word in part_of(spec).lower().replace("the ", "").split()) + ".py"
