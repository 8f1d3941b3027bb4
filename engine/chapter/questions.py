"""The class questions of every page, asked about the state of its link (engine.chapter.spec.PageSpec.questions).

A teacher clicks "Ask the class" on a page; the page's link values go to `questions_for(page, values, sources)`,
which builds each of the page's questions from them and computes its answer with the engine functions the page
calls, never a hand-typed one. `sources` gives the heavy objects (engine.classroom.questions: the app passes its
cached loaders).
"""
from __future__ import annotations

from typing import Callable, Mapping
from urllib.parse import urlencode

from engine import limits
from engine.chapter import pages
from engine.classroom import questions as legacy
from engine.classroom.store import Question

Values = Mapping[str, str]


def builders() -> dict[str, tuple[Callable[[Values, object], Question], ...]]:
    """Every page's question builders, by its link path, in the chapter's order."""
    return {spec.url: spec.questions or legacy.BUILDERS.get(spec.url, ()) for spec in pages()}


BUILDERS = builders()


def questions_for(page: str, values: Values, sources=None) -> list[Question]:
    """The page's questions about the state in `values` (its link's values), each answered by the engine.
    A builder that cannot ask about this state (a text of one's own, a sentence of one word) is left out;
    when none can, the first one's sentence is raised as a ValueError."""
    if page not in BUILDERS:
        raise ValueError(f"There is no page called {page!r} to ask about.")
    sources = sources if sources is not None else legacy.EngineSources()
    link = urlencode(dict(values))
    asked: list[Question] = []
    refusals: list[str] = []
    for build in BUILDERS[page]:
        try:
            question = build(values, sources)
        except ValueError as error:
            refusals.append(str(error))
            continue
        asked.append(Question(question.page, question.prompt[:limits.CLASS_MAX_PROMPT_CHARS],
                              tuple(o[:limits.CLASS_MAX_ANSWER_CHARS] for o in question.options), question.answer,
                              question.explanation[:limits.CLASS_MAX_EXPLANATION_CHARS], link, question.veils))
    if not asked:
        raise ValueError(refusals[0] if refusals else "This page has no question about this state.")
    return asked
