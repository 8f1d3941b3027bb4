"""No vote lost when a server process dies in the middle of a class.

`python -m deploy.serve --processes 2` (two Streamlit processes behind HAProxy) with the class store
in a private data folder (SQLite, shared by both processes). Students are real Streamlit sessions
spoken in the app's websocket protocol (bench/wsclient.py): they join by the class link and answer
through the page's radio. One process is killed with SIGKILL; its students reload (a new session on
the live process, the same URL): they see the same question with their own answer kept, and the final
counts equal the votes sent, each student counted once.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal

import pytest

from deploy import haproxy
from engine.classroom.sqlite_store import SqliteStore
from engine.classroom.store import Question

STUDENTS = 6
QUESTION = Question("attention", "Which key gets the largest weight from 'crane'?", ("crane", "by", "the", "lake"),
                    answer=0, explanation="Its dot product with the query is largest.")


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    try:
        haproxy.binary()
    except haproxy.HAProxyMissing as missing:
        pytest.skip(str(missing))
    from tests.e2e.test_lecture_hall import Hall
    folder = tmp_path_factory.mktemp("class-hall")
    saved = os.environ.get("PLAYGROUND_DATA")
    os.environ["PLAYGROUND_DATA"] = str(folder / "data")
    try:
        running = Hall(folder)
    finally:
        if saved is None:
            os.environ.pop("PLAYGROUND_DATA")
        else:
            os.environ["PLAYGROUND_DATA"] = saved
    running.data = folder / "data"
    yield running
    running.stop()


def radio(session):
    found = [w for w in session.widgets.values() if w.kind == "radio" and w.key.startswith("class.answer.")]
    return found[0] if found else None


def shown_answer(widget) -> str | None:
    """The option the radio shows as chosen (its label), or None."""
    proto = widget.proto
    if proto.set_value:
        return proto.raw_value or None
    try:
        return proto.options[proto.default] if proto.HasField("default") else None
    except ValueError:                                   # not an optional field in this Streamlit
        return None


def alerts(session) -> list[str]:
    """Every alert's text on the page as shown (success included, which Run leaves out)."""
    return [element.alert.body for _, element in session.shown.values() if element.WhichOneof("type") == "alert"]


def fragment_of(session, widget_id: str) -> str:
    for fragment, element in session.shown.values():
        kind = element.WhichOneof("type")
        if kind and getattr(getattr(element, kind), "id", None) == widget_id:
            return fragment
    return ""


async def answer(session, option: int):
    from bench.wsclient import widget_state
    widget = radio(session)
    assert widget is not None, f"no answer radio on the page: {session.widgets}"
    session.states[widget.id] = widget_state(widget, option)
    run = await session.rerun(fragment_of(session, widget.id))     # a click in the section: its fragment reruns
    assert not run.errors and not run.exceptions, (run.errors, run.exceptions)
    return run


async def poll_until_question(session, tries: int = 20):
    """Run the page's timers (as the browser does) until the question's radio is there."""
    for _ in range(tries):
        if radio(session) is not None:
            return
        for fragment, interval in list(session.auto_reruns.items()):
            await asyncio.sleep(interval)
            await session.rerun(fragment, auto=True)
    raise AssertionError("the question never appeared above the page")


async def reload(port: int, page: str, query: str, within_s: float = 90.0):
    """A reload after the crash: until HAProxy's health check has taken the dead process out, a request
    may still go to it (502); the browser's page retries as Streamlit's does."""
    import time
    import urllib.error

    from bench.wsclient import ProtocolError, Session
    deadline = time.monotonic() + within_s
    while True:
        s = Session("127.0.0.1", port, timeout=120)
        try:
            await s.__aenter__()
            await s.open(page, query)
            return s
        except (urllib.error.HTTPError, OSError, ProtocolError) as error:
            if time.monotonic() > deadline:
                raise AssertionError(f"no live process took the reload within {within_s:.0f} s: {error}")
            await asyncio.sleep(1.0)


def test_students_of_a_killed_process_reload_onto_another_with_their_answers_kept(hall):
    from bench.wsclient import Session

    store = SqliteStore(hall.data / "classes.sqlite3")
    code, key = store.create_class("the-teacher")
    store.ask(code, key, QUESTION)

    async def lesson():
        sessions = []
        for _ in range(STUDENTS):
            s = Session("127.0.0.1", hall.port, timeout=120)
            await s.__aenter__()
            await s.open("", f"class={code}")
            sessions.append(s)
        assert store.state(code).students == STUDENTS
        servers = {s.cookies.get(haproxy.COOKIE) for s in sessions}
        assert len(servers) == 2, f"leastconn spreads the students over both processes: {servers}"
        sent = {}
        for i, s in enumerate(sessions):
            await poll_until_question(s)
            await answer(s, i % 4)
            sent[i] = i % 4
            assert f"Answer received: {QUESTION.options[i % 4]}." in " ".join(alerts(s))
        assert sum(store.counts(code, 1, 1, key)) == STUDENTS

        crashed = sessions[0].cookies[haproxy.COOKIE]
        os.kill(hall.pid_on(hall.backend_port(crashed)), signal.SIGKILL)
        moved = [i for i, s in enumerate(sessions) if s.cookies.get(haproxy.COOKIE) == crashed]
        for i in moved:                                  # a reload: a new session, the same URL
            old = sessions[i]
            try:
                await old.__aexit__(None, None, None)
            except Exception:
                pass
            s = await reload(hall.port, old.page, old.query_string)
            assert s.cookies.get(haproxy.COOKIE) != crashed
            await poll_until_question(s)
            mine = radio(s)
            said = alerts(s)
            assert f"Answer received: {QUESTION.options[sent[i]]}." in " ".join(said), \
                f"the reloaded page shows the student's own answer: {said}, radio shows {shown_answer(mine)!r}"
            sessions[i] = s
        # everyone changes their mind once: each still counts once
        for i, s in enumerate(sessions):
            await answer(s, (sent[i] + 1) % 4)
            sent[i] = (sent[i] + 1) % 4
        for s in sessions:
            await s.__aexit__(None, None, None)
        return moved, sent

    # in a thread of its own: the session's Chromium (playwright's sync API) keeps an event loop running in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        moved, sent = pool.submit(asyncio.run, lesson()).result()
    assert moved, "the killed process held at least one student"
    state = store.state(code)
    assert state.students == STUDENTS, "a reloaded student is the same student, not a new one"
    expected = tuple(sum(1 for v in sent.values() if v == o) for o in range(4))
    assert store.counts(code, 1, 1, key) == expected
