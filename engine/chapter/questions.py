"""The class questions of every page, asked about the state of its link (engine.chapter.spec.PageSpec.questions).

A teacher clicks "Ask the class" on a page; the page's link values go to `questions_for(page, values, sources)`,
which builds each of the page's questions from them and computes its answer with the engine functions the page
calls, never a hand-typed one. `sources` gives the heavy objects (engine.classroom.questions: the app passes its
cached loaders).

In every language. A question is built in the language of the running context (the teacher's, who picks it) and
once more in every language the app speaks (`renderings`): a builder's words are messages marked where they are made,
`_("Query {token}: which key gets the largest weight?", token=...)`, its numbers formatted by engine.numbers, its
import-time words (an option list, TIE) marked `N_` and shown as `_(WORD)`; the builder is called again inside
`engine.i18n.use(code)`, so marking is all a page's questions need. The store keeps every rendering with the question
and `Question.read()` gives each reader (a student in Seoul, the teacher in Madrid, the summary CSV) the one in their
own language; a question the teacher typed has none and reads as typed. Options keep their order and the answer its
index in every language (a vote is for the same option whoever reads it): a rendering whose options do not line up
with the teacher's, or that breaks the store's rules, is left out, and its readers read the teacher's words.
"""
from __future__ import annotations

from typing import Callable, Mapping
from urllib.parse import urlencode

from engine import i18n, limits
from engine.chapter import pages
from engine.classroom import questions as legacy
from engine.classroom.store import Question, check_text
from engine.i18n import _

Values = Mapping[str, str]


def builders() -> dict[str, tuple[Callable[[Values, object], Question], ...]]:
    """Every page's question builders, by its link path, in the chapter's order."""
    return {spec.url: spec.questions or () for spec in pages()}


BUILDERS = builders()


class _Once:
    """`sources` for the renderings of one page's questions: each of its calls computed once and read again by every
    language (a generation only a question asks for is not drawn five times); a call with arguments that cannot be
    kept (an array) goes through every time."""

    def __init__(self, sources) -> None:
        self._sources, self._kept = sources, {}

    def __getattr__(self, name: str):
        found = getattr(self._sources, name)
        if not callable(found):
            return found

        def call(*args, **kwargs):
            key = (name, args, tuple(sorted(kwargs.items())))
            try:
                if key in self._kept:
                    return self._kept[key]
            except TypeError:                     # an argument that cannot be a key
                return found(*args, **kwargs)
            self._kept[key] = result = found(*args, **kwargs)
            return result
        return call


def _clipped(question: Question, link: str, renderings: tuple = ()) -> Question:
    """The question cut to the store's limits (a prompt, an option, an explanation), each rendering alike."""
    return Question(question.page, question.prompt[:limits.CLASS_MAX_PROMPT_CHARS],
                    tuple(o[:limits.CLASS_MAX_ANSWER_CHARS] for o in question.options), question.answer,
                    question.explanation[:limits.CLASS_MAX_EXPLANATION_CHARS], link, question.veils,
                    tuple((code, q.prompt, q.options, q.explanation) for code, q in renderings))


def _renderings(build: Callable[[Values, object], Question], values: Values, sources,
                asked: Question) -> list[tuple[str, Question]]:
    """`build`'s question in every language the app speaks (and the pseudo language where it is the one running),
    each with the options of `asked` in the same order and the same answer; one that fails or does not line up is
    left out (its readers read `asked`). The engine's numbers are cached by `sources`: a rendering costs the words."""
    codes = [code for code in i18n.LANGUAGES]
    if i18n.current().code not in codes:
        codes.append(i18n.current().code)
    out = []
    for code in codes:
        if code == i18n.current().code:
            rendered = asked
        else:
            try:
                with i18n.use(code):
                    rendered = build(values, sources)
            except ValueError:
                continue
        rendered = _clipped(rendered, "")
        if len(rendered.options) != len(asked.options) or rendered.answer != asked.answer:
            continue
        try:
            check_text(rendered.prompt, rendered.options, rendered.explanation)
        except ValueError:
            continue
        out.append((code, rendered))
    return out


def questions_for(page: str, values: Values, sources=None) -> list[Question]:
    """The page's questions about the state in `values` (its link's values), each answered by the engine and
    rendered in every language (`Question.renderings`; `Question.read()` picks the reader's). A builder that cannot
    ask about this state (a text of one's own, a sentence of one word) is left out; when none can, the first one's
    sentence is raised as a ValueError."""
    if page not in BUILDERS:
        raise ValueError(_("There is no page called {page} to ask about.", page=repr(page)))
    sources = _Once(sources if sources is not None else legacy.EngineSources())
    link = urlencode(dict(values))
    asked: list[Question] = []
    refusals: list[str] = []
    for build in BUILDERS[page]:
        try:
            question = build(values, sources)
        except ValueError as error:
            refusals.append(str(error))
            continue
        asked.append(_clipped(question, link, tuple(_renderings(build, values, sources, question))))
    if not asked:
        raise ValueError(refusals[0] if refusals else _("This page has no question about this state."))
    return asked
