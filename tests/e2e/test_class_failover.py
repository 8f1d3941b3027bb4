"""No vote lost, and no teacher lost, when a server process dies in the middle of a class.

`python -m deploy.serve --processes 2` (two Streamlit processes behind HAProxy) with the class store
in a private data folder (SQLite, shared by both processes). The teacher and the students are real Streamlit
sessions spoken in the app's websocket protocol (bench/wsclient.py), each a browser with its own cookies: the
teacher starts the class and asks from the sidebar, the students join by the class link and answer through the
page's radio. The teacher's process is killed with SIGKILL; the teacher and the students on it reload (a new
session on the live process, the same URL, the same browser's cookies): the teacher still runs the class (reveals
it), the students see the same question with their own answer kept (the radio shows it), and the final counts
equal the votes sent, each student counted once.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import signal

import pytest

from deploy import haproxy
from engine.classroom import identity
from engine.classroom.sqlite_store import SqliteStore
from engine.classroom.store import Question

STUDENTS = 6
QUESTION = Question("home", "Which key gets the largest weight from 'crane'?", ("crane", "by", "the", "lake"),
                    answer=0)


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


LISTENER = "playground_class_listener"


def listener_data(session) -> dict:
    """What the page's run handed the student's listener (ui.classroom._drawn): the question card, the student's own
    answer, what the class was at."""
    for _, element in session.shown.values():
        if element.WhichOneof("type") == "bidi_component" and element.bidi_component.component_name == LISTENER:
            return json.loads(element.bidi_component.json or "{}")
    return {}


async def answer(session, code: str, option: int) -> str:
    """A click on an option: the listener's vote (same origin, the browser's cookie); the sentence it then shows."""
    status, body = await session.post(f"/api/class/{code}/vote?lang=en", {"question": 1, "round": 1, "option": option},
                                      60)
    assert status == 200, body
    card = (await the_question(session, code))["card"]
    return card["received"][option]


async def the_question(session, code: str) -> dict:
    """The question as the student's listener fetches it when told: its card and the student's own answer."""
    status, body = await session.get(f"/api/class/{code}/question?lang=en", 60)
    assert status == 200, body
    found = json.loads(body)
    assert found["card"] is not None and found["status"] == "open", found
    return found


async def reload(port: int, page: str, query: str, cookies: dict[str, str], within_s: float = 90.0):
    """A reload after the crash, by the same browser (its cookies): until HAProxy's health check has taken the dead
    process out, a request may still go to it (502); the browser's page retries as Streamlit's does."""
    import time
    import urllib.error

    from bench.wsclient import ProtocolError, Session
    deadline = time.monotonic() + within_s
    while True:
        s = Session("127.0.0.1", port, timeout=120, cookies=cookies)
        try:
            await s.__aenter__()
            await s.open(page, query)
            return s
        except (urllib.error.HTTPError, OSError, ProtocolError) as error:
            if time.monotonic() > deadline:
                raise AssertionError(f"no live process took the reload within {within_s:.0f} s: {error}")
            await asyncio.sleep(1.0)


def class_code(run) -> str | None:
    """The class code the teacher's sidebar shows ("Class code **K7QM2XPA**")."""
    import re

    found = [re.search(r"Class code \*\*([A-Z2-9]{8})\*\*", text) for text in run.texts]
    return next((match.group(1) for match in found if match), None)


def teacher_credential(session) -> str:
    """What the teacher's browser shows the store: derived from its cookie's id (the test reads the store with it)."""
    browser = session.cookies[identity.COOKIE_NAME].rpartition(".")[0]
    return identity.teacher_credential(browser)


async def start_and_ask(teacher) -> str:
    """The teacher starts a class and asks a question of their own, from the sidebar, as the buttons do."""
    await teacher.open("", "")
    run = await teacher.set("class_start", True)
    code = class_code(run)
    assert code, run.texts
    await teacher.set("class.free_prompt", QUESTION.prompt)
    await teacher.set("class.free_options", "\n".join(QUESTION.options))
    await teacher.set("class.free_answer", 1)                      # the list: none (a poll), then the options
    run = await teacher.set("class_ask_free", True)
    assert not run.errors and not run.exceptions, (run.errors, run.exceptions)
    return code


def test_the_teacher_and_students_of_a_killed_process_reload_onto_another_and_keep_the_class(hall):
    from bench.wsclient import Session

    store = SqliteStore(hall.data / "classes.sqlite3")

    async def lesson():
        teacher = Session("127.0.0.1", hall.port, timeout=120)
        await teacher.__aenter__()
        code = await start_and_ask(teacher)
        key = teacher_credential(teacher)
        assert store.state(code).question.prompt == QUESTION.prompt
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
            said = await answer(s, code, i % 4)
            sent[i] = i % 4
            assert said.startswith(f"Answer received: {QUESTION.options[i % 4]}.")
        assert sum(store.counts(code, 1, 1, key)) == STUDENTS

        crashed = teacher.cookies[haproxy.COOKIE]
        os.kill(hall.pid_on(hall.backend_port(crashed)), signal.SIGKILL)
        teacher = await reload(hall.port, "", "", teacher.cookies)     # the teacher's reload: the same browser
        assert teacher.cookies.get(haproxy.COOKIE) != crashed
        run = await teacher.rerun()
        assert class_code(run) == code, "the teacher's reload, on the other process, still runs the class"
        moved = [i for i, s in enumerate(sessions) if s.cookies.get(haproxy.COOKIE) == crashed]
        for i in moved:                                  # a reload: a new session, the same URL and browser
            old = sessions[i]
            try:
                await old.__aexit__(None, None, None)
            except Exception:
                pass
            s = await reload(hall.port, old.page, old.query_string, old.cookies)
            assert s.cookies.get(haproxy.COOKIE) != crashed
            drawn = listener_data(s)                     # the reloaded page draws the question with the answer kept
            assert drawn.get("card") and drawn["mine"] == sent[i], f"the reloaded page's listener: {drawn}"
            assert drawn["card"]["received"][drawn["mine"]].startswith(f"Answer received: {QUESTION.options[sent[i]]}.")
            assert (await the_question(s, code))["mine"] == sent[i]
            sessions[i] = s
        # everyone changes their mind once: each still counts once
        for i, s in enumerate(sessions):
            await answer(s, code, (sent[i] + 1) % 4)
            sent[i] = (sent[i] + 1) % 4
        run = await teacher.set("class_reveal", True)                  # the reloaded teacher reveals
        assert not run.errors and not run.exceptions, (run.errors, run.exceptions)
        for s in [teacher, *sessions]:
            await s.__aexit__(None, None, None)
        return code, key, moved, sent

    # in a thread of its own: the session's Chromium (playwright's sync API) keeps an event loop running in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        code, key, moved, sent = pool.submit(asyncio.run, lesson()).result()
    assert moved, "the killed process held at least one student"
    state = store.state(code)
    assert state.students == STUDENTS, "a reloaded student is the same student, not a new one"
    assert state.revealed
    expected = tuple(sum(1 for v in sent.values() if v == o) for o in range(4))
    assert store.counts(code, 1, 1, key) == expected
