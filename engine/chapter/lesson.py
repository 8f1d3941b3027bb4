"""A lesson: the chapter's argument as scenes, each a page in a set state and the question to ask there.

A scene is a page link ("context?sentence=crane+by+the+lake&k=1") and the index of one of the questions
that page offers (`engine.classroom.questions`) about that state, so the answer is always the engine's.
The default lesson (`data/chapter_lesson.json`, package data) follows the chapter, from "Mary had a little" on the
Tokens page to attention beyond words. A teacher can save their own as a small JSON file and load it again:

    {"title": "My lesson", "scenes": [{"title": "Mary had a little", "link": "tokens?prompt=Mary+had+a+little",
                                       "question": 0}, ...]}

A file that does not parse, or names a page or a question that does not exist, raises ValueError with a
sentence saying which scene and why.

The default lesson's words are ours: its title and its scenes' titles are marked here (`CHAPTER_WORDS`) and `shown`
gives them in the reader's language (tests/engine/test_lesson_words.py keeps the list and the file alike); a title a
teacher typed is shown as typed. The questions are the engine's, in every language (engine.chapter.questions).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from urllib.parse import parse_qsl

from engine import limits, numbers
from engine.i18n import N_, _

CHAPTER_LESSON = Path(files("engine.chapter") / "data" / "chapter_lesson.json")
# the default lesson's title and its scenes' titles, as the file writes them: shown in the reader's language
CHAPTER_WORDS = (
    N_("Attention and transformers: the chapter in eleven predictions"),
    N_("Mary had a little: what comes next?"),
    N_("Counting n-grams: the loop"),
    N_("Word vectors: France is to Paris as Italy is to ?"),
    N_("A fixed window: how far to reach 'lake'?"),
    N_("Attention: which word does 'crane' weigh most?"),
    N_("Scaling by 1/sqrt(d_k)"),
    N_("Several heads: what do they cost?"),
    N_("The block: FFN, residuals, LayerNorm"),
    N_("Order: attention alone cannot see it"),
    N_("Generating: temperature"),
    N_("Beyond words: image patches as tokens"),
    N_("A lesson"),
)
_OURS = frozenset(CHAPTER_WORDS)


def shown(text: str) -> str:
    """A lesson's or a scene's title as the reader reads it: ours (the default lesson's) in their language, a
    teacher's own as typed."""
    return _(text) if text in _OURS else text


@dataclass(frozen=True)
class Scene:
    title: str
    link: str            # "page?query": the page's url path and its link values
    question: int = 0    # which of the page's questions (questions_for(page, values)[question])

    @property
    def page(self) -> str:
        return self.link.partition("?")[0]

    @property
    def values(self) -> dict[str, str]:
        return dict(parse_qsl(self.link.partition("?")[2], keep_blank_values=True))


@dataclass(frozen=True)
class Lesson:
    title: str
    scenes: tuple[Scene, ...]


def _pages() -> dict[str, int]:
    """Every page a scene may name, and how many questions its builders ask at most."""
    from engine.chapter.questions import BUILDERS

    return {page: len(builders) for page, builders in BUILDERS.items()}


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def nesting_depth(text: str, stop_above: int = limits.LESSON_MAX_DEPTH) -> int:
    """How deep the JSON text's brackets nest outside its strings, counted without recursion (json.loads recurses
    once per level, and a file of a few thousand brackets raised RecursionError); stops counting above
    `stop_above`."""
    depth = deepest = 0
    for bracket in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > stop_above:
                break
    return deepest


def parse_lesson(text: str | bytes) -> Lesson:
    """A lesson file's text -> Lesson; ValueError with a sentence for anything that is not one."""
    if isinstance(text, bytes):
        if len(text) > limits.LESSON_MAX_BYTES:
            raise ValueError(_("This lesson file has {n} bytes; a lesson is at most {most}.",
                               n=numbers.grouped(len(text)), most=numbers.grouped(limits.LESSON_MAX_BYTES)))
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(_("This lesson file is not text (UTF-8): save the lesson again from the app.")) from None
    if len(text) > limits.LESSON_MAX_BYTES:
        raise ValueError(_("This lesson file has {n} characters; a lesson is at most {most}.",
                           n=numbers.grouped(len(text)), most=numbers.grouped(limits.LESSON_MAX_BYTES)))
    if nesting_depth(text) > limits.LESSON_MAX_DEPTH:
        raise ValueError(_("This lesson file nests its brackets more than {most} deep, more than a lesson does (the "
                           "app saves one 3 deep): save the lesson again from the app.", most=limits.LESSON_MAX_DEPTH))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(_("This lesson file is not valid JSON (line {line}, column {column}: {error}).",
                           line=error.lineno, column=error.colno, error=error.msg)) from None
    if not isinstance(data, dict) or not isinstance(data.get("scenes"), list):
        raise ValueError(_('A lesson file is a JSON object with a "scenes" list, as the app saves it.'))
    scenes = data["scenes"]
    if not scenes:
        raise ValueError(_("This lesson has no scenes."))
    if len(scenes) > limits.LESSON_MAX_SCENES:
        raise ValueError(_("This lesson has {n} scenes; a lesson has at most {most}.", n=len(scenes),
                           most=limits.LESSON_MAX_SCENES))
    pages = _pages()
    parsed = []
    for number, scene in enumerate(scenes, start=1):
        if not isinstance(scene, dict) or not isinstance(scene.get("link"), str):
            raise ValueError(_('Scene {n} needs a "link" (a page and its settings, like "context?k=1").', n=number))
        link = scene["link"].lstrip("/")
        if len(link) > limits.CLASS_MAX_LINK_CHARS:
            raise ValueError(_("Scene {n}'s link has {chars} characters; the limit is {most}.", n=number,
                               chars=numbers.grouped(len(link)), most=numbers.grouped(limits.CLASS_MAX_LINK_CHARS)))
        page = link.partition("?")[0]
        if page not in pages:
            raise ValueError(_("Scene {n} names a page '{page}' that does not exist; the pages are: {pages}.",
                               n=number, page=page[:40], pages=", ".join(pages)))
        question = scene.get("question", 0)
        if not isinstance(question, int) or isinstance(question, bool) or not 0 <= question < pages[page]:
            raise ValueError(_("Scene {n}: the page '{page}' offers questions 0 to {last}; the file asks for "
                               "{question}.", n=number, page=page, last=pages[page] - 1, question=repr(question)))
        title = scene.get("title", page)
        if not isinstance(title, str):
            raise ValueError(_("Scene {n}'s title is not text.", n=number))
        parsed.append(Scene(title.strip()[:limits.CLASS_MAX_PROMPT_CHARS] or page, link, question))
    title = data.get("title", "A lesson")
    return Lesson(str(title)[:limits.CLASS_MAX_PROMPT_CHARS], tuple(parsed))


def dump_lesson(lesson: Lesson) -> str:
    """The lesson as the file the app saves (and parse_lesson reads back)."""
    return json.dumps({"title": lesson.title,
                       "scenes": [{"title": s.title, "link": s.link, "question": s.question} for s in lesson.scenes]},
                      indent=1, ensure_ascii=False) + "\n"


def chapter_lesson() -> Lesson:
    """The default lesson, in the chapter's order."""
    return parse_lesson(CHAPTER_LESSON.read_text(encoding="utf-8"))


def add_scene(lesson: Lesson, scene: Scene) -> Lesson:
    if len(lesson.scenes) >= limits.LESSON_MAX_SCENES:
        raise ValueError(_("A lesson has at most {most} scenes.", most=limits.LESSON_MAX_SCENES))
    return Lesson(lesson.title, lesson.scenes + (scene,))


def scene_question(scene: Scene, values: dict[str, str] | None = None, sources=None):
    """The scene's question, built by the engine from the page's state (`values`: what the page holds now,
    else the scene's own link values)."""
    from engine.chapter.questions import questions_for

    asked = questions_for(scene.page, scene.values if values is None else values, sources)
    return asked[min(scene.question, len(asked) - 1)]
