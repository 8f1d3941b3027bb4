"""Switching pages in one session shows each page as it shows when opened on its own.

A student clicks through the sidebar in one browser session, so every page runs after some
other page in the same `st.session_state`. Pages keep their state under keys prefixed by the
page (ui.url_state.PageState); this walk checks that no page reads another's state: one
session follows a route through every ordered pair of pages (an Euler circuit of the complete
directed graph: 110 switches for 11 pages) and, after each switch, the page must show exactly
the error boxes it shows when opened directly, and no exception.
"""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.path import ideas

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 300


def every_ordered_pair(nodes: list[str]) -> list[str]:
    """A walk that takes every edge a -> b (a != b) exactly once (Hierholzer's algorithm)."""
    unused = {a: [b for b in reversed(nodes) if b != a] for a in nodes}
    stack, walk = [nodes[0]], []
    while stack:
        here = stack[-1]
        if unused[here]:
            stack.append(unused[here].pop())
        else:
            walk.append(stack.pop())
    return walk[::-1]


def test_the_walk_covers_every_ordered_pair_once():
    nodes = ["a", "b", "c", "d"]
    walk = every_ordered_pair(nodes)
    pairs = list(zip(walk, walk[1:]))
    assert len(pairs) == len(set(pairs)) == len(nodes) * (len(nodes) - 1)


def shown(at: AppTest) -> tuple[list[str], list[str]]:
    """(error boxes, exceptions) of the last run."""
    return sorted(e.value for e in at.error), [str(e.value)[:300] for e in at.exception]


def app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    return at.run()


def visit(at: AppTest, file: str) -> AppTest:
    """A sidebar click: the browser drops the old page's query parameters, then the new page runs."""
    for name in list(at.query_params):
        del at.query_params[name]
    at.switch_page(file)
    return at.run()


def test_every_page_after_every_other_page_shows_what_it_shows_alone():
    files = [idea.file for idea in ideas()]
    alone = {file: shown(visit(app(), file)) for file in files}
    for file, (errors, exceptions) in alone.items():
        assert not exceptions, f"{file} opened directly raised: {exceptions}"

    at = app()
    walk = every_ordered_pair(files)
    visit(at, walk[0])
    differences = []
    for before, after in zip(walk, walk[1:]):
        now = shown(visit(at, after))
        if now != alone[after]:
            differences.append(f"{before} -> {after}: {now} (alone: {alone[after]})")
    assert not differences, f"{len(differences)} of {len(walk) - 1} switches differ:\n" + "\n".join(differences)


def test_a_page_keeps_the_students_work_when_they_come_back():
    """Leave the calculator with an edited X, visit another page, come back: the X is still there."""
    at = visit(app(), "views/attention_calculator.py")
    edited = "a: 1, 0\nb: 0, 1"
    at.text_area(key="attention.x").input(edited).run()
    visit(at, "views/context_window.py")
    at = visit(at, "views/attention_calculator.py")
    assert at.text_area(key="attention.x").value == edited
    assert not at.error and not at.exception
