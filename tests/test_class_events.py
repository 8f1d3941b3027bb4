"""The class events route (ui.class_events, mounted by app.py's st.App) on both stores, spoken to in raw ASGI as
Streamlit's server would: a parked request wakes when the class's version moves (200, the event as JSON), answers 204
after CLASS_EVENTS_PARK_S without news, refuses a code that cannot be one (400), an unknown code (404) and an ended
class (410) with a sentence, frees its slot when the browser goes away, never carries the teacher key or an answer,
and gives the round's counts to the class's teacher browser alone (its signed cookie)."""
from __future__ import annotations

import asyncio
import json
import time

import pytest

from engine import limits
from engine.classroom import identity
from engine.classroom.store import Question
from tests import fresh_loop
from tests.engine.classroom.test_store import kind_spec, make_store, redis_url  # noqa: F401 (fixtures)

Q = Question("attention", "Which key?", ("a", "b", "c"), answer=1)


@pytest.fixture
def events(kind_spec, tmp_path, monkeypatch):  # noqa: F811
    """(the ASGI app with our routes, the store its watcher reads)."""
    from starlette.applications import Starlette

    from ui import app_server, class_events

    monkeypatch.setenv("PLAYGROUND_DATA", str(tmp_path / "data"))   # the cookies' signing secret lives there
    app_server.secret.cache_clear()
    store = make_store(*kind_spec)
    monkeypatch.setattr(class_events, "store_factory", lambda: store)
    yield Starlette(routes=app_server.routes()), store
    store.close()
    app_server.secret.cache_clear()


async def get(app, path: str, query: str = "", cookie: str | None = None, leave_after: float | None = None):
    """GET path?query as a browser would: (status, JSON body or None, seconds). `leave_after`: the browser goes away
    (http.disconnect) after that long."""
    headers = [(b"host", b"testserver")] + ([(b"cookie", cookie.encode())] if cookie else [])
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
             "headers": headers, "scheme": "http", "server": ("testserver", 80), "client": ("127.0.0.1", 5000),
             "root_path": "", "http_version": "1.1", "asgi": {"version": "3.0"}}
    sent: list[dict] = []
    asked = False

    async def receive():
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        if leave_after is None:
            await asyncio.Event().wait()                 # the browser stays
        await asyncio.sleep(leave_after)
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    start = time.monotonic()
    await app(scope, receive, send)
    took = time.monotonic() - start
    status = sent[0]["status"]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return status, (json.loads(body) if body else None), took


def served(coro):
    """Run one test's requests on a fresh event loop, as one server process: its watcher stops at the end (the
    lifespan's work)."""
    from ui import class_events

    async def whole():
        try:
            return await coro
        finally:
            await class_events.stop_watcher()
    return fresh_loop.run(whole())


async def later(seconds: float, action):
    await asyncio.sleep(seconds)
    return await asyncio.to_thread(action)


def url(code: str) -> str:
    return f"/api/class/{code}/events"


def test_a_parked_request_wakes_when_the_version_moves(events):
    app, store = events
    code, key = store.create_class("teacher-browser")
    store.join(code, "student-1")

    async def run():
        first = await get(app, url(code), "since=-1")
        (status, event, took), _ = await asyncio.gather(get(app, url(code), f"since={first[1]['version']}"),
                                                        later(0.3, lambda: store.ask(code, key, Q)))
        return first, status, event, took
    first, status, event, took = served(run())
    assert first[0] == 200 and first[1]["status"] == "none"
    assert status == 200 and event["status"] == "open" and event["question"] == 1 and event["version"] > 0
    assert 0.25 < took < 3.0
    assert key not in json.dumps(event) and "counts" not in event


def test_a_request_without_news_answers_204_after_the_park_limit(events, monkeypatch):
    app, store = events
    code, _ = store.create_class("teacher-browser")
    monkeypatch.setattr(limits, "CLASS_EVENTS_PARK_S", 0.5)

    async def run():
        version = (await get(app, url(code), "since=-1"))[1]["version"]
        return await get(app, url(code), f"since={version}")
    status, body, took = served(run())
    assert status == 204 and body is None and 0.45 < took < 3.0


def test_bad_unknown_and_ended_codes_are_refused_with_a_sentence(events):
    app, store = events
    code, key = store.create_class("teacher-browser")

    async def run():
        bad = await get(app, url("not-a-code!!"), "since=0")
        bad_since = await get(app, url(code), "since=soon")
        unknown = await get(app, url("ABCDEFGH"), "since=0")
        store.end(code, key)
        ended_event = await get(app, url(code), "since=0")       # the news that it ended, once
        ended = await get(app, url(code), f"since={ended_event[1]['version']}")
        return bad, bad_since, unknown, ended_event, ended
    bad, bad_since, unknown, ended_event, ended = served(run())
    assert bad[0] == 400 and "is not a class code" in bad[1]["error"]
    assert bad_since[0] == 400 and "'soon' is not a version" in bad_since[1]["error"]
    assert unknown[0] == 404 and "No open class has the code ABCDEFGH" in unknown[1]["error"]
    assert ended_event[0] == 200 and ended_event[1]["status"] == "ended"
    assert ended[0] == 410 and "has ended" in ended[1]["error"]


def test_a_browser_that_goes_away_frees_its_parked_slot_at_once(events):
    app, store = events
    code, _ = store.create_class("teacher-browser")

    async def run():
        from ui import class_events

        version = (await get(app, url(code), "since=-1"))[1]["version"]
        status, _, took = await get(app, url(code), f"since={version}", leave_after=0.3)
        return status, took, class_events.watcher().parked
    status, took, parked = served(run())
    assert status == 204 and took < 3.0 and parked == 0


def test_counts_go_to_the_classs_teacher_browser_alone(events):
    from ui import app_server

    app, store = events
    teacher, student = identity.new_id(), identity.new_id()
    code, key = store.create_class(identity.teacher_credential(teacher))
    for i in range(3):
        store.join(code, f"student-{i}")
    store.ask(code, key, Q)
    for i, option in enumerate((1, 1, 2)):
        store.vote(code, f"student-{i}", 1, 1, option)

    def cookie(browser: str) -> str:
        return f"{identity.COOKIE_NAME}={identity.sign(browser, app_server.secret())}"

    async def run():
        as_teacher = await get(app, url(code), "since=-1&counts=1", cookie=cookie(teacher))
        as_student = await get(app, url(code), "since=-1&counts=1", cookie=cookie(student))
        forged = await get(app, url(code), "since=-1&counts=1", cookie=f"{identity.COOKIE_NAME}={teacher}")
        return as_teacher, as_student, forged
    as_teacher, as_student, forged = served(run())
    assert as_teacher[1]["counts"] == [0, 2, 1] and as_teacher[1]["answered"] == 3
    assert "counts" not in as_student[1] and "counts" not in forged[1]     # an unsigned id is nobody
    for reply in (as_teacher, as_student):
        text = json.dumps(reply[1])
        assert key not in text and "student-" not in text and teacher not in text
