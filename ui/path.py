"""The chapter's path of pages (engine.chapter) as the Streamlit app's page files: read by app.py (navigation,
home) and by `ui.page.next_idea` (the link at the foot of each page). The order, titles, icons and lines live in
the engine, once for every front end; this module only adds where each page's file is."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.chapter import PARTS
from engine.chapter.spec import PageSpec
from engine.i18n import _


@dataclass(frozen=True)
class Idea:
    """One page: its spec, and its file among the app's views."""
    spec: PageSpec

    @property
    def file(self) -> str:
        return f"views/{self.spec.view}.py"

    @property
    def url(self) -> str:
        return self.spec.url

    @property
    def title(self) -> str:
        """The page's title in the session's language (the spec marks it N_)."""
        return _(self.spec.title)

    @property
    def icon(self) -> str:
        return self.spec.icon

    @property
    def one_line(self) -> str:
        return _(self.spec.one_line)

    @property
    def beyond(self) -> str:
        return _(self.spec.beyond) if self.spec.beyond else ""


PATH: dict[str, list[Idea]] = {part: [Idea(spec) for spec in specs] for part, specs in PARTS.items()}


def ideas() -> list[Idea]:
    """Every page in order."""
    return [idea for group in PATH.values() for idea in group]


def following(file: str) -> Idea | None:
    """The idea after the page in `file` (a path ending in views/<name>.py), or None at the end."""
    order = ideas()
    name = Path(file).name
    for index, idea in enumerate(order):
        if Path(idea.file).name == name:
            return order[index + 1] if index + 1 < len(order) else None
    return None
