"""A lesson: the chapter's argument as scenes, each a page in a set state and the question to ask there.

A scene is a page link ("context?sentence=crane+by+the+lake&k=1") and the index of one of the questions
that page offers (`engine.classroom.questions`) about that state, so the answer is always the engine's.
The default lesson (`data/chapter_lesson.json`, package data) follows the chapter, from "Mary had a little" on the
Tokens page to attention beyond words. A teacher can save their own as a small JSON file and load it again:

    {"title": "My lesson", "scenes": [{"title": "Mary had a little", "link": "tokens?prompt=Mary+had+a+little",
                                       "question": 0}, ...]}

A file that does not parse, or names a page or a question that does not exist, raises ValueError with a
sentence saying which scene and why.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from urllib.parse import parse_qsl

from engine import limits

CHAPTER_LESSON = Path(files("engine.chapter") / "data" / "chapter_lesson.json")


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
            raise ValueError(f"This lesson file has {len(text):,} bytes; a lesson is at most "
                             f"{limits.LESSON_MAX_BYTES:,}.")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("This lesson file is not text (UTF-8): save the lesson again from the app.") from None
    if len(text) > limits.LESSON_MAX_BYTES:
        raise ValueError(f"This lesson file has {len(text):,} characters; a lesson is at most "
                         f"{limits.LESSON_MAX_BYTES:,}.")
    if nesting_depth(text) > limits.LESSON_MAX_DEPTH:
        raise ValueError(f"This lesson file nests its brackets more than {limits.LESSON_MAX_DEPTH} deep, more than a "
                         "lesson does (the app saves one 3 deep): save the lesson again from the app.")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"This lesson file is not valid JSON (line {error.lineno}, column {error.colno}: "
                         f"{error.msg}).") from None
    if not isinstance(data, dict) or not isinstance(data.get("scenes"), list):
        raise ValueError('A lesson file is a JSON object with a "scenes" list, as the app saves it.')
    scenes = data["scenes"]
    if not scenes:
        raise ValueError("This lesson has no scenes.")
    if len(scenes) > limits.LESSON_MAX_SCENES:
        raise ValueError(f"This lesson has {len(scenes)} scenes; a lesson has at most {limits.LESSON_MAX_SCENES}.")
    pages = _pages()
    parsed = []
    for number, scene in enumerate(scenes, start=1):
        if not isinstance(scene, dict) or not isinstance(scene.get("link"), str):
            raise ValueError(f'Scene {number} needs a "link" (a page and its settings, like "context?k=1").')
        link = scene["link"].lstrip("/")
        if len(link) > limits.CLASS_MAX_LINK_CHARS:
            raise ValueError(f"Scene {number}'s link has {len(link):,} characters; the limit is "
                             f"{limits.CLASS_MAX_LINK_CHARS:,}.")
        page = link.partition("?")[0]
        if page not in pages:
            raise ValueError(f"Scene {number} names a page '{page[:40]}' that does not exist; the pages are: "
                             + ", ".join(pages) + ".")
        question = scene.get("question", 0)
        if not isinstance(question, int) or isinstance(question, bool) or not 0 <= question < pages[page]:
            raise ValueError(f"Scene {number}: the page '{page}' offers questions 0 to {pages[page] - 1}; "
                             f"the file asks for {question!r}.")
        title = scene.get("title", page)
        if not isinstance(title, str):
            raise ValueError(f"Scene {number}'s title is not text.")
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
        raise ValueError(f"A lesson has at most {limits.LESSON_MAX_SCENES} scenes.")
    return Lesson(lesson.title, lesson.scenes + (scene,))


def scene_question(scene: Scene, values: dict[str, str] | None = None, sources=None):
    """The scene's question, built by the engine from the page's state (`values`: what the page holds now,
    else the scene's own link values)."""
    from engine.chapter.questions import questions_for

    asked = questions_for(scene.page, scene.values if values is None else values, sources)
    return asked[min(scene.question, len(asked) - 1)]
