"""The class events watcher (engine.classroom.events) on both stores: a parked wait wakes when the class's version
moves, times out with None, refuses a code with no class, shares one store read among all the waits of a class,
wakes a live view on a vote only when it names the tallies, and never carries the key or an answer. On Redis the
watcher is told by pub/sub: a watcher that reads the store only once a minute still wakes within a second."""
from __future__ import annotations

import asyncio
import time

import pytest

from engine.classroom.events import ClassGone, TooManyParked, Watcher
from engine.classroom.store import Question
from tests import fresh_loop
from tests.engine.classroom.test_store import kind_spec, make_store, redis_url  # noqa: F401 (fixtures)

Q = Question("attention", "Which key?", ("a", "b", "c"), answer=1)
FIELDS = {"version", "status", "question", "round", "options", "live", "link", "link_version", "students", "answered",
          "changed"}


@pytest.fixture
def store(kind_spec):  # noqa: F811
    st = make_store(*kind_spec)
    yield st
    st.close()


def watcher_for(store, **kw) -> Watcher:
    # Redis: told by pub/sub, so the timer that reads every watched class is set to a minute (it cannot be what woke
    # the waits); SQLite: read every 0.05 s
    kw.setdefault("read_s", 0.05)
    kw.setdefault("recheck_s", 60.0)
    return Watcher(store, **kw)


async def later(seconds: float, action):
    await asyncio.sleep(seconds)
    return await asyncio.to_thread(action)


def test_a_parked_wait_wakes_when_the_version_moves(store):
    code, key = store.create_class("teacher-1")
    store.join(code, "student-1")

    async def run():
        w = watcher_for(store)
        first = await w.wait(code, since=-1)                     # news at once: the page drew nothing yet
        assert first["status"] == "none" and first["students"] == 1
        start = time.monotonic()
        woken, _ = await asyncio.gather(w.wait(code, since=first["version"], timeout=10),
                                        later(0.3, lambda: store.ask(code, key, Q)))
        took = time.monotonic() - start
        await w.stop()
        return first, woken, took
    first, woken, took = fresh_loop.run(run())
    assert woken["version"] > first["version"] and woken["status"] == "open" and woken["question"] == 1
    assert woken["options"] == 3 and "question" in woken["changed"] and "status" in woken["changed"]
    assert took < 3.0        # the store changed 0.3 s in; the watcher reads (or is told) within a fraction of that
    assert set(woken) == FIELDS


def test_a_wait_without_news_times_out_with_none(store):
    code, _ = store.create_class("teacher-1")

    async def run():
        w = watcher_for(store)
        version = (await w.wait(code, since=-1))["version"]
        start = time.monotonic()
        got = await w.wait(code, since=version, timeout=0.4)
        took = time.monotonic() - start
        parked = w.parked
        await w.stop()
        return got, took, parked
    got, took, parked = fresh_loop.run(run())
    assert got is None and 0.35 < took < 3.0 and parked == 0


def test_a_code_with_no_class_is_refused_and_an_ended_class_says_so(store):
    code, key = store.create_class("teacher-1")

    async def run():
        w = watcher_for(store)
        with pytest.raises(ClassGone) as unknown:
            await w.wait("ABCDEFGH", since=0)
        with pytest.raises(ValueError):
            await w.wait("not a code!", since=0)
        version = (await w.wait(code, since=-1))["version"]
        ended, _ = await asyncio.gather(w.wait(code, since=version, timeout=10),
                                        later(0.2, lambda: store.end(code, key)))
        with pytest.raises(ClassGone) as gone:                  # nothing more will come: not parked
            await w.wait(code, since=ended["version"], timeout=10)
        await w.stop()
        return unknown.value, ended, gone.value
    unknown, ended, gone = fresh_loop.run(run())
    assert not unknown.ended and "No open class has the code ABCDEFGH" in str(unknown)
    assert ended["status"] == "ended"
    assert gone.ended and "has ended" in str(gone)


def test_all_the_waits_of_a_class_share_the_watchers_reads(store):
    code, key = store.create_class("teacher-1")
    for i in range(5):
        store.join(code, f"student-{i}")

    async def run():
        w = watcher_for(store)
        version = (await w.wait(code, since=-1))["version"]
        reads0 = w.reads
        waits = [w.wait(code, since=version, timeout=10) for _ in range(200)]
        start = time.monotonic()
        results = await asyncio.gather(*waits, later(0.5, lambda: store.ask(code, key, Q)))
        took = time.monotonic() - start
        await w.stop()
        return results[:-1], w.reads - reads0, took
    woken, reads, took = fresh_loop.run(run())
    assert all(e is not None and e["status"] == "open" for e in woken)
    # SQLite: one pulse per read period (0.05 s) whatever the number of waits, and the state once per version;
    # Redis: a read when told, and none on the timer. Never one per wait.
    assert reads <= 2 * (took / 0.05 + 2) and reads < 200


def test_a_vote_wakes_a_live_view_that_names_the_tallies_and_no_student_page(store):
    code, key = store.create_class("teacher-1")
    store.join(code, "student-1")
    store.ask(code, key, Q)

    async def run():
        w = watcher_for(store)
        event = await w.wait(code, since=-1)
        tallies = (event["students"], event["answered"])
        live, student, _ = await asyncio.gather(
            w.wait(code, since=event["version"], seen=tallies, timeout=10),
            w.wait(code, since=event["version"], timeout=1.5),
            later(0.2, lambda: store.vote(code, "student-1", 1, 1, 2)))
        await w.stop()
        return event, live, student
    event, live, student = fresh_loop.run(run())
    assert live is not None and live["answered"] == 1 and live["version"] == event["version"]
    assert live["changed"] == ["answered"]
    assert student is None                 # a vote is no news to a student's page: it stays parked
    text = repr(live)
    assert "student-1" not in text and "teacher-1" not in text


def test_the_events_never_carry_the_key_or_an_answer(store):
    code, key = store.create_class("teacher-1")
    store.join(code, "student-1")
    store.ask(code, key, Q)
    store.vote(code, "student-1", 1, 1, 2)
    store.follow(code, key, "attention?n=3")
    store.reveal(code, key)

    async def run():
        w = watcher_for(store)
        event = await w.wait(code, since=-1)
        await w.stop()
        return event
    event = fresh_loop.run(run())
    assert set(event) == FIELDS and event["status"] == "revealed" and event["link"] == "attention?n=3"
    text = repr(event)
    assert key not in text and "student-1" not in text and "teacher-1" not in text


def test_a_process_holds_at_most_its_parked_requests(store):
    code, _ = store.create_class("teacher-1")

    async def run():
        w = watcher_for(store, max_parked=2)
        version = (await w.wait(code, since=-1))["version"]
        parked = [asyncio.ensure_future(w.wait(code, since=version, timeout=5)) for _ in range(2)]
        await asyncio.sleep(0.1)
        with pytest.raises(TooManyParked):
            await w.wait(code, since=version, timeout=5)
        for task in parked:
            task.cancel()
        await asyncio.gather(*parked, return_exceptions=True)
        left = w.parked
        await w.stop()
        return left
    assert fresh_loop.run(run()) == 0          # a cancelled wait (its browser went away) frees its slot
