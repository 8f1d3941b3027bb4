"""The class store's contract, run against both stores: SQLite (always) and Redis (when Debian's
redis-server is installed: the test starts its own on a free loopback port in a temp folder).

Every rule the store enforces and every bad input it refuses (with a sentence, never counted),
several processes voting at once, expiry with an injected clock, the summary and its CSV.
"""
from __future__ import annotations

import csv
import io
import itertools
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from engine import limits
from engine.classroom import store as store_module
from engine.classroom import stores
from engine.classroom.sqlite_store import SqliteStore
from engine.classroom.store import CODE_ALPHABET, Question, summary_csv
from tests import redis_server
from tests.redis_server import REDIS_SERVER, free_port

redis_url = redis_server.redis_url      # the fixture: a private redis-server for this test session


class Clock:
    """An injectable time.time: starts now, moves only when told."""

    def __init__(self):
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make_store(kind: str, spec: str, clock=time.time):
    if kind == "sqlite":
        return SqliteStore(spec, clock=clock)
    from engine.classroom.redis_store import RedisStore
    return RedisStore(spec, clock=clock)


@pytest.fixture(params=["sqlite", "redis"])
def kind_spec(request, tmp_path):
    if request.param == "sqlite":
        return "sqlite", str(tmp_path / "classes.sqlite3")
    url = request.getfixturevalue("redis_url")
    import redis
    redis.Redis.from_url(url).flushdb()
    return "redis", url


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(kind_spec, clock):
    st = make_store(*kind_spec, clock=clock)
    yield st
    st.close()


Q3 = Question("attention", "Which key gets the largest weight from 'crane'?", ("a", "b", "crane"), answer=2,
              explanation="Its dot product with the query is largest.", link="x=1&n=3")


_TEACHERS = itertools.count()


def start(store, teacher: str | None = None, address: str = "") -> tuple[str, str]:
    """A class started by `teacher` (a browser's credential; a new browser each time unless given)."""
    return store.create_class(teacher or f"teacher-{next(_TEACHERS)}", address)


def refused(match: str):
    return pytest.raises(ValueError, match=match)


def with_question(store, students=("s1", "s2", "s3"), question=Q3):
    code, key = start(store)
    for sid in students:
        store.join(code, sid)
    store.ask(code, key, question)
    return code, key


# --- codes and keys ----------------------------------------------------------------------

def test_codes_are_8_characters_of_32_from_secrets_and_differ(store):
    assert len(CODE_ALPHABET) == 32 and len(set(CODE_ALPHABET)) == 32
    assert not set("01IO") & set(CODE_ALPHABET)
    assert len(CODE_ALPHABET) ** limits.CLASS_CODE_CHARS >= 2 ** 40 and limits.CLASS_CODE_CHARS <= 8
    made = [start(store) for _ in range(20)]
    codes = [c for c, _ in made]
    assert all(len(c) == 8 and set(c) <= set(CODE_ALPHABET) for c in codes)
    assert len(set(codes)) == 20 and len({k for _, k in made}) == 20
    state = store.state(codes[0])
    assert (state.code, state.question_id, state.round, state.students, state.ended) == (codes[0], None, 0, 0, False)


def test_the_teacher_key_is_stored_only_hashed(store, kind_spec):
    code, key = start(store)
    if kind_spec[0] == "sqlite":
        raw = Path(kind_spec[1]).read_bytes() + Path(kind_spec[1] + "-wal").read_bytes()
    else:
        import redis
        r = redis.Redis.from_url(kind_spec[1])
        raw = b"".join(k + str(r.hgetall(k)).encode() for k in r.keys("*") if r.type(k) == b"hash")
    assert code.encode() in raw
    assert key.encode() not in raw
    assert store_module.hash_key(key).encode() in raw


def test_codes_are_read_in_lower_case_with_spaces_and_dashes(store):
    code, _ = start(store)
    typed = f" {code[:4].lower()}-{code[4:].lower()} "
    assert store.join(typed, "s1").code == code
    assert store.state(code).students == 1


@pytest.mark.parametrize("bad", ["", "ABC", "ABCDEFGHJ", "ABCD0EFG", "ABCDIEFG", None, 12345678])
def test_a_malformed_code_gets_a_sentence(store, bad):
    with refused("class code"):
        store.join(bad, "s1")
    with refused("class code"):
        store.state(bad)


def test_an_unknown_code_gets_a_sentence(store):
    start(store)
    with refused("No open class has the code ABCDEFGH"):
        store.join("ABCDEFGH", "s1")
    with refused("No open class has the code ABCDEFGH"):
        store.state("ABCDEFGH")
    with refused("No open class"):
        store.vote("ABCDEFGH", "s1", 1, 1, 0)


def wrong_code(i: int, real: str) -> str:
    """A well-formed code that is not `real` (the i-th of many)."""
    code = "".join(CODE_ALPHABET[(i // len(CODE_ALPHABET) ** k) % len(CODE_ALPHABET)] for k in range(8))
    return code if code != real else code[::-1]


def test_wrong_codes_are_counted_per_browser_so_one_student_cannot_lock_the_room_out(store, clock):
    """Issue 39: 21 wrong codes from one browser made the right QR link fail for everyone behind the same address.
    Now the guesser alone waits; another browser at the same address joins at once."""
    code, _ = start(store)
    for i in range(limits.CLASS_JOIN_FAILURES_PER_MINUTE):
        with refused("No open class"):
            store.join(wrong_code(i, code), "guesser", address="10.0.0.9")
    with refused("Too many wrong class codes from this browser"):
        store.join(wrong_code(99, code), "guesser", address="10.0.0.9")     # the 21st
    with refused("Too many wrong class codes from this browser"):
        store.join(code, "guesser", address="10.0.0.9")       # even the right code, for a minute
    assert store.join(code, "neighbour", address="10.0.0.9").students == 1   # same room, another browser
    clock.advance(61)
    assert store.join(code, "guesser", address="10.0.0.9").students == 2


def test_a_network_address_has_a_generous_ceiling_of_wrong_codes(store, clock, monkeypatch):
    """A client that throws its cookie away to look like many browsers is held by its address's ceiling."""
    assert limits.CLASS_JOIN_FAILURES_PER_ADDRESS_PER_MINUTE >= limits.CLASS_MAX_STUDENTS   # a whole room may err
    assert limits.CLASS_JOINS_PER_ADDRESS_PER_MINUTE >= limits.CLASS_MAX_STUDENTS          # and join at once
    monkeypatch.setattr(limits, "CLASS_JOIN_FAILURES_PER_ADDRESS_PER_MINUTE", 5)
    code, _ = start(store)
    for i in range(5):
        with refused("No open class"):
            store.join(wrong_code(i, code), f"fresh-{i}", address="10.0.0.9")
    with refused("Too many wrong class codes from this network"):
        store.join(code, "fresh-5", address="10.0.0.9")
    assert store.join(code, "elsewhere", address="10.0.0.7").students == 1
    clock.advance(61)
    assert store.join(code, "fresh-5", address="10.0.0.9").students == 2


def test_new_students_from_one_address_have_a_ceiling_and_returning_ones_do_not(store, clock, monkeypatch):
    monkeypatch.setattr(limits, "CLASS_JOINS_PER_ADDRESS_PER_MINUTE", 3)
    code, _ = start(store)
    for sid in ("a", "b", "c"):
        store.join(code, sid, address="10.0.0.9")
    with refused("Too many students joined from this network"):
        store.join(code, "d", address="10.0.0.9")
    assert store.join(code, "a", address="10.0.0.9").students == 3        # one already in comes back
    assert store.join(code, "e", address="10.0.0.7").students == 4
    clock.advance(61)
    assert store.join(code, "d", address="10.0.0.9").students == 5


@pytest.mark.parametrize("how", ["ended", "idle", "lifetime", "long ago"])
def test_joining_a_class_that_ended_says_so_and_is_not_a_wrong_code(store, clock, how):
    code, key = start(store)
    if how == "ended":
        store.end(code, key)
    elif how == "idle":
        clock.advance(limits.CLASS_IDLE_S + 1)
    elif how == "lifetime":
        clock.advance(limits.CLASS_LIFETIME_S + 1)
    else:
        clock.advance(limits.CLASS_LIFETIME_S + 1)
        start(store)                                      # the SQLite store forgets old classes as a class starts
    other, _ = start(store)
    for _ in range(limits.CLASS_JOIN_FAILURES_PER_MINUTE + 5):
        with refused(f"Class {code} has ended"):
            store.join(code, "late", address="10.0.0.9")
    if how in ("ended", "idle"):
        assert store.join(other, "late", address="10.0.0.9").students == 1   # never counted as wrong codes
        with refused(f"Class {code} has ended"):
            store.vote(code, "late", 1, 1, 0)
    with refused(f"Class {code} has ended"):
        store.state(code) if how in ("lifetime", "long ago") else store.ask(code, key, Q3)


def test_an_ended_code_is_forgotten_after_class_ended_kept_s(store, kind_spec, clock):
    code, _ = start(store)
    if kind_spec[0] == "redis":               # Redis forgets by its own clock: the code's key lives that long
        import redis
        ttl = redis.Redis.from_url(kind_spec[1]).ttl(f"tp:ended:{code}")
        assert limits.CLASS_LIFETIME_S + limits.CLASS_ENDED_KEPT_S - 5 < ttl <= (
            limits.CLASS_LIFETIME_S + limits.CLASS_ENDED_KEPT_S + 60)
        return
    clock.advance(limits.CLASS_LIFETIME_S + limits.CLASS_ENDED_KEPT_S + 1)
    start(store)
    with refused("No open class has the code"):
        store.join(code, "late")


# --- the teacher: a browser, limits per browser, idle classes --------------------------------

def test_200_starts_from_one_browser_are_refused_after_the_limit_and_another_teacher_still_starts(store):
    """Issue 39: a script made 200 classes from one client; every teacher then found the server full."""
    made, refusals = [], []
    for _ in range(200):
        try:
            made.append(store.create_class("one-browser", "10.0.0.9"))
        except ValueError as error:
            refusals.append(str(error))
    assert len(made) == limits.CLASS_OPEN_PER_TEACHER and len(refusals) == 200 - limits.CLASS_OPEN_PER_TEACHER
    assert f"This browser already has {limits.CLASS_OPEN_PER_TEACHER} open classes" in refusals[0]
    code, key = store.create_class("another-teacher", "10.0.0.9")          # same school network
    assert store.state(code).students == 0
    store.end(*made[0])                                    # ending one frees its place
    store.create_class("one-browser", "10.0.0.9")


def test_one_network_address_may_start_a_generous_number_of_classes(store, monkeypatch):
    monkeypatch.setattr(limits, "CLASS_OPEN_PER_ADDRESS", 4)
    for i in range(4):
        store.create_class(f"teacher-{i}", "10.0.0.9")
    with refused("This network already has 4 open classes"):
        store.create_class("teacher-5", "10.0.0.9")
    store.create_class("teacher-5", "10.0.0.7")


def test_a_class_with_no_teacher_action_ends_itself_and_frees_its_slot(store, clock, monkeypatch):
    monkeypatch.setattr(limits, "CLASS_OPEN_PER_TEACHER", 1)
    code, key = start(store, "busy")
    store.join(code, "s1")
    store.ask(code, key, Q3)
    with refused("This browser already has 1 open class"):
        start(store, "busy")
    clock.advance(limits.CLASS_IDLE_S - 10)
    store.lock(code, "busy")                              # an action: 30 more minutes
    store.lock(code, key, False)
    clock.advance(limits.CLASS_IDLE_S - 10)
    store.touch(code, "busy")                             # the teacher's screen is open: so are they
    version = store.version(code)
    clock.advance(limits.CLASS_IDLE_S - 10)
    assert not store.state(code).ended and store.version(code) == version    # touching is no change for polls
    store.vote(code, "s1", 1, 1, 2)
    clock.advance(11)
    state = store.state(code)
    assert state.ended and store.version(code) == version + 1   # polls see it ended
    with refused("has ended"):
        store.vote(code, "s1", 1, 1, 0)
    with refused("has ended"):
        store.reveal(code, key)
    with refused("has ended"):
        store.touch(code, key)
    assert store.summary(code, "busy")[0].counts == ((0, 0, 1),)   # the teacher still gets the summary
    assert store.teacher_class("busy") == code
    start(store, "busy")                                  # its slot is free
    store.end(code, key)                                  # ending it after it ended itself: fine, nothing moves
    assert store.version(code) == version + 1


def test_the_teacher_is_their_browser_across_reloads_and_processes(store, kind_spec, clock):
    code, key = start(store, "teacher-browser")
    assert store.teacher_class("teacher-browser") == code
    assert store.teacher_class("a-student-browser") is None
    other = make_store(*kind_spec, clock=clock)          # another server process
    assert other.teacher_class("teacher-browser") == code
    other.ask(code, "teacher-browser", Q3)               # the browser's credential acts as the teacher
    store.reveal(code, "teacher-browser")
    assert store.summary(code, "teacher-browser")[0].question.prompt == Q3.prompt
    with refused("Only the teacher who started class"):
        store.vote_again(code, "a-student-browser")
    clock.advance(1)
    newer, _ = start(store, "teacher-browser")
    assert other.teacher_class("teacher-browser") == newer       # the latest class it started
    other.close()


def test_a_teacher_link_makes_another_device_a_teacher_and_a_new_link_retires_the_old(store):
    code, key = start(store, "laptop")
    with refused("Only the teacher who started class"):
        store.claim(code, "a guess", "phone")
    with refused("Only the teacher who started class"):
        store.claim(code, "laptop", "phone")              # a teacher browser's credential is not a teacher link
    store.claim(code, key, "phone")
    store.claim(code, key, "phone")                       # twice is once
    assert store.teacher_class("phone") == code
    store.ask(code, "phone", Q3)
    fresh = store.new_teacher_key(code, "laptop")
    with refused("Only the teacher who started class"):
        store.claim(code, key, "tablet")                  # the old link no longer works
    store.claim(code, fresh, "tablet")
    store.claim(code, fresh, "desktop")
    with refused(f"already has {limits.CLASS_MAX_TEACHER_DEVICES} teacher devices"):
        store.claim(code, fresh, "fifth")
    with refused("Only the teacher who started class"):
        store.new_teacher_key(code, "fifth")
    assert store.state(code).question.prompt == Q3.prompt


@pytest.mark.parametrize("bad", ["", "   ", None, "x" * 201])
def test_a_class_needs_a_teacher_browser(store, bad):
    with refused("no teacher id"):
        store.create_class(bad)


# --- joining -----------------------------------------------------------------------------

def test_join_is_idempotent_per_student(store):
    code, _ = start(store)
    store.join(code, "s1")
    store.join(code, "s1")
    assert store.join(code, "s2").students == 2


@pytest.mark.parametrize("bad", ["", "   ", None, "x" * (limits.CLASS_MAX_STUDENT_ID_CHARS + 1)])
def test_a_bad_student_id_gets_a_sentence(store, bad):
    code, _ = start(store)
    with refused("student id"):
        store.join(code, bad)
    assert store.state(code).students == 0


def test_a_class_holds_at_most_class_max_students(store, monkeypatch):
    monkeypatch.setattr(limits, "CLASS_MAX_STUDENTS", 3)
    code, _ = start(store)
    for sid in ("s1", "s2", "s3"):
        store.join(code, sid)
    with refused("is full"):
        store.join(code, "s4")
    assert store.join(code, "s2").students == 3              # one already in may come back


# --- voting ------------------------------------------------------------------------------

def test_one_vote_per_student_per_round_changeable_until_locked(store):
    code, key = with_question(store)
    store.vote(code, "s1", 1, 1, 0)
    store.vote(code, "s1", 1, 1, 2)                          # changed their mind: replaces the first
    store.vote(code, "s2", 1, 1, 2)
    assert store.my_vote(code, "s1", 1, 1) == 2
    assert store.my_vote(code, "s3", 1, 1) is None
    state = store.state(code)
    assert (state.question_id, state.round, state.answered, state.students) == (1, 1, 2, 3)
    assert store.counts(code, 1, 1, key) == (0, 0, 2)
    store.lock(code, key)
    with refused("locked this round"):
        store.vote(code, "s1", 1, 1, 1)
    with refused("locked this round"):
        store.vote(code, "s3", 1, 1, 1)
    assert store.counts(code, 1, 1, key) == (0, 0, 2)
    assert store.my_vote(code, "s1", 1, 1) == 2
    store.lock(code, key, False)                              # reopened before the reveal
    store.vote(code, "s3", 1, 1, 1)
    assert store.counts(code, 1, 1, key) == (0, 1, 2)


@pytest.mark.parametrize("option", [-1, 3, 99, "1", 1.0, True, None])
def test_an_option_that_does_not_exist_is_refused_and_not_counted(store, option):
    code, key = with_question(store)
    with refused("does not exist"):
        store.vote(code, "s1", 1, 1, option)
    assert store.counts(code, 1, 1, key) == (0, 0, 0)
    assert store.state(code).answered == 0


def test_a_student_who_has_not_joined_cannot_vote(store):
    code, key = with_question(store)
    with refused("Join class"):
        store.vote(code, "stranger", 1, 1, 0)
    assert store.counts(code, 1, 1, key) == (0, 0, 0)


def test_a_vote_before_any_question_or_for_an_old_one_is_refused(store):
    code, key = start(store)
    store.join(code, "s1")
    with refused("not asked a question"):
        store.vote(code, "s1", 1, 1, 0)
    store.ask(code, key, Q3)
    with refused("no longer open"):
        store.vote(code, "s1", 1, 2, 0)                       # a round that has not started
    with refused("no longer open"):
        store.vote(code, "s1", 2, 1, 0)                       # a question not yet asked
    store.ask(code, key, Question("context", "Smallest k?", ("1", "2"), answer=0))
    with refused("no longer open"):
        store.vote(code, "s1", 1, 1, 0)                       # the teacher moved on
    with refused("whole number"):
        store.vote(code, "s1", "2", 1, 0)
    assert store.counts(code, 1, 1, key) == (0, 0, 0)
    store.vote(code, "s1", 2, 1, 1)
    assert store.counts(code, 2, 1, key) == (0, 1)


# --- the teacher's key -------------------------------------------------------------------

def teacher_actions(store, code, key):
    return {
        "follow": lambda: store.follow(code, key, "attention?n=3"),
        "ask": lambda: store.ask(code, key, Q3),
        "lock": lambda: store.lock(code, key),
        "reveal": lambda: store.reveal(code, key),
        "vote_again": lambda: store.vote_again(code, key),
        "show_live": lambda: store.show_live(code, key, True),
        "counts": lambda: store.counts(code, 1, 1, key),
        "summary": lambda: store.summary(code, key),
        "end": lambda: store.end(code, key),
    }


def test_the_version_moves_with_every_teacher_change_and_only_then(store):
    """What a polling page relies on: an unchanged version means an unchanged state, apart from the counts
    of joins and answers (which a student's page does not show)."""
    code, key = start(store)
    versions = [store.version(code)]
    store.join(code, "s1")
    store.join(code, "s2")
    assert store.version(code) == versions[-1]                 # joins leave it
    changes = {"follow": lambda: store.follow(code, key, "attention?n=3"), "ask": lambda: store.ask(code, key, Q3),
               "show_live": lambda: store.show_live(code, key, True), "lock": lambda: store.lock(code, key),
               "unlock": lambda: store.lock(code, key, False)}
    for name, change in changes.items():
        before = store.state(code)
        change()
        assert store.state(code) != before, name
        versions.append(store.version(code))
        assert versions[-1] > versions[-2], name
    store.vote(code, "s1", 1, 1, 2)
    store.vote(code, "s1", 1, 1, 1)                            # a change of mind
    assert store.version(code) == versions[-1]                 # votes leave it
    for name, change in {"reveal": lambda: store.reveal(code, key), "vote_again": lambda: store.vote_again(code, key),
                         "end": lambda: store.end(code, key)}.items():
        change()
        versions.append(store.version(code))
        assert versions[-1] > versions[-2], name
    with refused("Only the teacher who started class"):
        store.follow(code, "not-the-key", "context")
    assert store.version(code) == versions[-1]                 # a refused action changes nothing


def test_the_version_of_an_unknown_or_expired_class_gets_a_sentence(store, clock):
    code, _ = start(store)
    assert store.version(code.lower()) == store.version(code)
    with refused("No open class has the code"):
        store.version("ABCDEFGH" if code != "ABCDEFGH" else "HGFEDCBA")
    with refused("is not a class code"):
        store.version("K7Q")
    clock.advance(limits.CLASS_LIFETIME_S + 1)
    with refused("has ended"):
        store.version(code)


def test_the_polls_of_a_process_share_one_version_read_per_class_for_a_moment(store):
    """SharedVersions: within CLASS_VERSION_SHARE_S the room's polls get the version read first (one store read);
    after it, a teacher's change shows; a refusal is said every time, never kept."""
    code, key = start(store)
    other, _ = start(store)
    reads = []
    original = store.version
    store.version = lambda c: reads.append(c) or original(c)
    now = [100.0]
    shared = store_module.SharedVersions(store, ttl_s=0.2, clock=lambda: now[0])
    first = shared.version(code)
    store.follow(code, key, "attention")
    assert [shared.version(code.lower()) for _ in range(50)] == [first] * 50    # the same class, one read
    assert shared.version(other) == original(other)                           # each class its own
    now[0] += 0.2
    assert shared.version(code) == original(code) > first                     # then the change is there
    assert reads == [code, other, code]
    unknown = "ABCDEFGH" if code != "ABCDEFGH" else "HGFEDCBA"
    for _ in range(2):
        with refused("No open class has the code"):
            shared.version(unknown)
    with refused("is not a class code"):
        shared.version("K7Q")
    assert store_module.SharedVersions(store).ttl_s == limits.CLASS_VERSION_SHARE_S < limits.CLASS_POLL_S


def test_a_room_told_at_once_reads_the_state_once_per_version(store):
    """SharedVersions.state: the pages of one process told that the class moved share one state read per version
    (300 students woken together make one store read, not 300), threads included; a newer version reads again."""
    import threading

    code, key = start(store)
    reads = []
    original = store.state
    store.state = lambda c: reads.append(c) or original(c)
    shared = store_module.SharedVersions(store)
    version = shared.version(code, fresh=True)
    got = []
    pages = [threading.Thread(target=lambda: got.append(shared.state(code, version))) for _ in range(30)]
    for page in pages:
        page.start()
    for page in pages:
        page.join()
    assert len(got) == 30 and len(reads) == 1 and all(state is got[0] for state in got)
    store.follow(code, key, "attention")
    moved, before = shared.version(code, fresh=True), len(reads)      # (a store's follow may read its state)
    assert moved > version and shared.state(code, moved).link == "attention" and len(reads) == before + 1
    assert shared.state(code, version).link == "attention"          # an older page gets the newer state: as new
    with refused("No open class has the code"):
        shared.state("ABCDEFGH" if code != "ABCDEFGH" else "HGFEDCBA", 1)


def test_a_file_from_before_the_version_gets_its_column(tmp_path):
    """A data folder written by an older version of the app (classes without a version) still opens."""
    import sqlite3

    path = tmp_path / "classes.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE classes (code TEXT PRIMARY KEY, key_hash TEXT NOT NULL, created_at REAL NOT NULL, "
                 "expires_at REAL NOT NULL, ended INTEGER NOT NULL DEFAULT 0, link TEXT, "
                 "link_version INTEGER NOT NULL DEFAULT 0, question_id INTEGER, round INTEGER NOT NULL DEFAULT 0, "
                 "locked INTEGER NOT NULL DEFAULT 0, revealed INTEGER NOT NULL DEFAULT 0, "
                 "live INTEGER NOT NULL DEFAULT 0, students INTEGER NOT NULL DEFAULT 0)")
    conn.close()
    st = SqliteStore(path)
    code, key = start(st)
    assert st.version(code) == 0
    st.follow(code, key, "context")
    assert st.version(code) == 1
    SqliteStore(path).close()                                  # opened again: the column is there, nothing to add
    st.close()


@pytest.mark.parametrize("wrong", ["", "s1", "not-the-key", None])
def test_every_teacher_action_needs_the_teacher_key(store, wrong):
    code, key = with_question(store)
    other_code, other_key = start(store)
    store.vote(code, "s1", 1, 1, 2)
    before = store.state(code)
    for name, action in teacher_actions(store, code, other_key if wrong == "s1" else wrong).items():
        if name == "counts" and wrong is None:
            continue                                           # no key: the reveal rule (next test)
        with refused("Only the teacher who started class"):
            action()
    assert store.state(code) == before                         # nothing changed
    assert store.counts(code, 1, 1, key) == (0, 0, 1)


def test_students_cannot_read_answers_before_the_reveal(store):
    code, key = with_question(store)
    store.vote(code, "s1", 1, 1, 2)
    store.vote(code, "s2", 1, 1, 0)
    with refused("hidden until the teacher reveals"):
        store.counts(code, 1, 1)
    store.show_live(code, key, True)                           # the live histogram is the teacher's, still hidden
    with refused("hidden until the teacher reveals"):
        store.counts(code, 1, 1)
    state = store.reveal(code, key)
    assert state.revealed and state.locked
    assert store.counts(code, 1, 1) == (1, 0, 1)
    with refused("was not counted"):
        store.vote(code, "s3", 1, 1, 2)
    with refused("cannot open again"):
        store.lock(code, key, False)


def test_vote_again_opens_a_second_round_and_keeps_the_first(store):
    code, key = with_question(store)
    store.vote(code, "s1", 1, 1, 0)
    store.vote(code, "s2", 1, 1, 0)
    store.reveal(code, key)
    state = store.vote_again(code, key)
    assert (state.round, state.locked, state.revealed, state.answered) == (2, False, False, 0)
    with refused("hidden until"):
        store.counts(code, 1, 2)                               # round 2 hidden again
    with refused("no longer open"):
        store.vote(code, "s1", 1, 1, 2)
    store.vote(code, "s1", 1, 2, 2)
    assert store.my_vote(code, "s1", 1, 1) == 0 and store.my_vote(code, "s1", 1, 2) == 2
    store.reveal(code, key)
    assert store.counts(code, 1, 1) == (2, 0, 0) and store.counts(code, 1, 2) == (0, 0, 1)
    with refused("no round 3"):
        store.counts(code, 1, 3, key)
    for _ in range(limits.CLASS_MAX_ROUNDS - 2):
        store.vote_again(code, key)
    with refused("rounds, the most"):
        store.vote_again(code, key)


def test_follow_me_keeps_the_link_and_counts_changes(store):
    code, key = start(store)
    assert store.follow(code, key, "attention?n=3").link_version == 1
    state = store.follow(code, key, "context?k=2")
    assert (state.link, state.link_version) == ("context?k=2", 2)
    with refused("characters"):
        store.follow(code, key, "x" * (limits.CLASS_MAX_LINK_CHARS + 1))
    assert store.state(code).link == "context?k=2"


# --- questions ---------------------------------------------------------------------------

LONG = "x" * (limits.CLASS_MAX_ANSWER_CHARS + 1)


@pytest.mark.parametrize("question, sentence", [
    (Question("attention", "Q?", ("only",), answer=0), "2 to 6 options"),
    (Question("attention", "Q?", tuple("abcdefg"), answer=0), "2 to 6 options"),
    (Question("attention", "Q?", ("a", LONG), answer=0), "Option 2 has"),
    (Question("attention", "Q?", ("a", " "), answer=0), "Option 2 is empty"),
    (Question("attention", "Q?", ("a", "a"), answer=0), "same text"),
    (Question("attention", "", ("a", "b"), answer=0), "needs its text"),
    (Question("attention", "Q" * (limits.CLASS_MAX_PROMPT_CHARS + 1), ("a", "b"), answer=0), "keep it to"),
    (Question("attention", "Q?", ("a", "b"), answer=2), "one of the 2 options"),
    (Question("attention", "Q?", ("a", "b"), answer=-1), "one of the 2 options"),
    (Question("attention", "Q?", ("a", "b"), answer=True), "one of the 2 options"),
    (Question("", "Q?", ("a", "b"), answer=0), "names the page"),
    (Question("attention", "Q?", ("a", "b"), answer=0, link="y" * (limits.CLASS_MAX_LINK_CHARS + 1)), "characters"),
    ("Which?", "needs a page"),
])
def test_a_bad_question_gets_a_sentence_and_is_not_asked(store, question, sentence):
    code, key = start(store)
    with refused(sentence):
        store.ask(code, key, question)
    assert store.state(code).question_id is None


def test_a_poll_has_no_right_answer_and_lists_are_options(store):
    code, key = start(store)
    store.join(code, "s1")
    state = store.ask(code, key, Question("generate", "Which tau?", ["0.5", "1", "2"], answer=None))
    assert state.question.options == ("0.5", "1", "2") and state.question.answer is None
    store.vote(code, "s1", 1, 1, 1)
    summary = store.end(code, key)
    assert summary[0].counts == ((0, 1, 0),) and summary[0].correct_share == (None,)


def test_a_class_asks_at_most_class_max_questions(store, monkeypatch):
    monkeypatch.setattr(limits, "CLASS_MAX_QUESTIONS", 2)
    code, key = start(store)
    store.ask(code, key, Q3)
    store.ask(code, key, Q3)
    with refused("asked 2 questions"):
        store.ask(code, key, Q3)
    assert store.state(code).question_id == 2


# --- open classes, expiry, the end ------------------------------------------------------

def test_a_store_holds_at_most_class_max_open_per_server(store, monkeypatch, clock):
    monkeypatch.setattr(limits, "CLASS_MAX_OPEN_PER_SERVER", 2)
    first, key = start(store)
    start(store)
    with refused("already holds 2 open classes"):
        start(store)
    store.end(first, key)                                      # an ended class frees its place
    start(store)
    with refused("already holds 2"):
        start(store)
    clock.advance(limits.CLASS_LIFETIME_S + 1)                 # so does an expired one
    start(store)
    start(store)


def test_a_class_expires_after_its_lifetime(store, clock):
    code, key = with_question(store)
    store.vote(code, "s1", 1, 1, 0)
    clock.advance(limits.CLASS_LIFETIME_S - 1)
    assert store.state(code).answered == 1
    clock.advance(2)
    for action in (lambda: store.state(code), lambda: store.join(code, "s9"),
                   lambda: store.vote(code, "s2", 1, 1, 0), lambda: store.my_vote(code, "s1", 1, 1),
                   lambda: store.counts(code, 1, 1, key), lambda: store.reveal(code, key),
                   lambda: store.summary(code, key)):
        with refused("has ended"):
            action()


def test_an_ended_class_refuses_joins_votes_and_questions_but_keeps_its_summary(store):
    code, key = with_question(store)
    store.vote(code, "s1", 1, 1, 2)
    store.end(code, key)
    assert store.state(code).ended
    with refused("has ended"):
        store.join(code, "s9")
    with refused("has ended"):
        store.vote(code, "s2", 1, 1, 2)
    with refused("has ended"):
        store.ask(code, key, Q3)
    with refused("has ended"):
        store.follow(code, key, "attention")
    assert store.summary(code, key)[0].counts == ((0, 0, 1),)


def test_summary_and_csv_per_question_and_round(store):
    code, key = with_question(store, students=[f"s{i}" for i in range(5)])
    for i, option in enumerate([2, 2, 0, 1, 2]):
        store.vote(code, f"s{i}", 1, 1, option)
    store.reveal(code, key)
    store.vote_again(code, key)
    for i, option in enumerate([2, 2, 2, 2]):
        store.vote(code, f"s{i}", 1, 2, option)
    store.ask(code, key, Question("generate", "Which tau?", ("0.5", "2"), answer=None))
    summary = store.end(code, key)
    assert [s.question_id for s in summary] == [1, 2]
    assert summary[0].counts == ((1, 1, 3), (0, 0, 4))
    assert summary[0].correct_share == (pytest.approx(0.6), pytest.approx(1.0))
    assert summary[1].counts == ((0, 0),) and summary[1].correct_share == (None,)
    assert store.summary(code, key) == summary
    rows = list(csv.DictReader(io.StringIO(summary_csv(summary))))
    assert len(rows) == 3 + 3 + 2
    assert rows[2] == {"question": "1", "page": "attention", "prompt": Q3.prompt, "round": "1", "option": "3",
                       "answer": "crane", "answers": "3", "correct": "yes", "share": "0.600"}
    assert [r["answers"] for r in rows[3:6]] == ["0", "0", "4"]
    assert rows[6]["correct"] == "" and rows[6]["share"] == ""
    # a student's id appears nowhere in what the teacher downloads
    assert "s1" not in summary_csv(summary)


# --- several processes at once -------------------------------------------------------------

def _student_process(kind, spec, code, first, count, question_id, changes):
    """Join `count` students and vote; every `changes`-th student changes their answer once."""
    st = make_store(kind, spec)
    sent = [0, 0, 0]
    for i in range(first, first + count):
        sid = f"p{i}"
        st.join(code, sid, address=f"10.0.{i // 250}.{i % 250}")
        st.vote(code, sid, question_id, 1, i % 3)
        final = i % 3
        if changes and i % changes == 0:
            final = (i + 1) % 3
            st.vote(code, sid, question_id, 1, final)
        sent[final] += 1
    st.close()
    return sent


def test_several_processes_voting_at_once_lose_no_vote(store, kind_spec):
    code, key = start(store)
    store.ask(code, key, Q3)
    processes, per_process = 4, 40
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes) as pool:
        results = pool.starmap(_student_process, [(*kind_spec, code, p * per_process, per_process, 1, 3)
                                                  for p in range(processes)])
    sent = tuple(sum(r[i] for r in results) for i in range(3))
    assert sum(sent) == processes * per_process
    assert store.counts(code, 1, 1, key) == sent
    state = store.state(code)
    assert (state.students, state.answered) == (processes * per_process, processes * per_process)


def test_a_lock_during_voting_leaves_every_vote_counted_or_refused(store, kind_spec):
    """Votes racing a lock: each is either counted (it came first) or refused with a sentence."""
    code, key = with_question(store, students=[f"p{i}" for i in range(60)])
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        pending = pool.starmap_async(_racing_voter, [(*kind_spec, code, 0, 30), (*kind_spec, code, 30, 30)])
        deadline = time.monotonic() + 60
        while store.state(code).answered < 10 and time.monotonic() < deadline:
            time.sleep(0.005)
        store.lock(code, key)                                  # while both processes are still voting
        accepted = sum(pending.get(timeout=120))
    assert 10 <= accepted < 60
    assert sum(store.counts(code, 1, 1, key)) == accepted == store.state(code).answered


def _racing_voter(kind, spec, code, first, count):
    st = make_store(kind, spec)
    accepted = 0
    for i in range(first, first + count):
        try:
            st.vote(code, f"p{i}", 1, 1, i % 3)
            accepted += 1
        except ValueError as error:
            assert "locked" in str(error)
        time.sleep(0.01)
    st.close()
    return accepted


# --- which store ----------------------------------------------------------------------------

def test_open_store_is_sqlite_in_the_data_folder_unless_a_redis_url_is_set(tmp_path, monkeypatch):
    monkeypatch.delenv(stores.REDIS_URL_ENV, raising=False)
    monkeypatch.setenv(stores.DATA_ENV, str(tmp_path / "data"))
    st = stores.open_store()
    assert isinstance(st, SqliteStore) and st.path == tmp_path / "data" / "classes.sqlite3"
    code, _ = start(st)
    assert SqliteStore(tmp_path / "data" / "classes.sqlite3").state(code).code == code   # another process's view
    assert os.path.exists(tmp_path / "data" / "classes.sqlite3-wal")


def test_open_store_uses_redis_when_playground_redis_url_is_set(redis_url, monkeypatch):
    from engine.classroom.redis_store import RedisStore
    monkeypatch.setenv(stores.REDIS_URL_ENV, redis_url)
    st = stores.open_store()
    assert isinstance(st, RedisStore)
    code, _ = start(st)
    assert RedisStore(redis_url).state(code).code == code


def test_redis_keys_expire_with_the_class(redis_url):
    import redis
    from engine.classroom.redis_store import RedisStore
    st = RedisStore(redis_url)
    code, key = start(st)
    st.join(code, "s1")
    st.ask(code, key, Q3)
    st.vote(code, "s1", 1, 1, 0)
    r = redis.Redis.from_url(redis_url)
    keys = r.keys(f"tp:class:{code}*")
    assert len(keys) == 4
    for k in keys:
        assert limits.CLASS_LIFETIME_S - 5 < r.ttl(k) <= limits.CLASS_LIFETIME_S + 60


def test_the_store_never_imports_streamlit():
    import engine.classroom.sqlite_store
    import engine.classroom.store
    source = "".join(Path(m.__file__).read_text() for m in (engine.classroom.store, engine.classroom.sqlite_store))
    assert "import streamlit" not in source and "from streamlit" not in source and "import redis" not in source


def test_sqlite_reuses_connections_across_threads(tmp_path, monkeypatch):
    """Streamlit runs every fragment rerun (a student's poll) on a new thread: the store must not open
    a connection per thread, or every poll pays for a new connection."""
    import sqlite3
    import threading

    from engine.classroom import sqlite_store
    opened = []
    real_connect = sqlite3.connect
    monkeypatch.setattr(sqlite_store.sqlite3, "connect", lambda *a, **k: opened.append(1) or real_connect(*a, **k))
    st = SqliteStore(tmp_path / "classes.sqlite3")
    code, _ = start(st)
    for _ in range(20):
        poll = threading.Thread(target=st.state, args=(code,))
        poll.start()
        poll.join()
    assert len(opened) == 1


def test_sqlite_keeps_the_connections_of_a_burst_of_polls(tmp_path, monkeypatch):
    """A class following its teacher polls from many threads at once: the connections that burst opened are kept
    for the next one (up to POOL_SIZE), not closed and opened again."""
    import sqlite3
    import threading

    from engine.classroom import sqlite_store
    st = SqliteStore(tmp_path / "classes.sqlite3")
    code, _ = start(st)
    opened = []
    real_connect = sqlite3.connect
    monkeypatch.setattr(sqlite_store.sqlite3, "connect", lambda *a, **k: opened.append(1) or real_connect(*a, **k))
    at_once = min(20, sqlite_store.POOL_SIZE)

    def burst():
        inside = threading.Barrier(at_once)
        real_take = st._take

        def take():
            conn = real_take()
            inside.wait(timeout=10)              # every thread holds a connection at the same moment
            return conn
        monkeypatch.setattr(st, "_take", take)
        polls = [threading.Thread(target=st.version, args=(code,)) for _ in range(at_once)]
        for poll in polls:
            poll.start()
        for poll in polls:
            poll.join()
        monkeypatch.setattr(st, "_take", real_take)

    burst()
    first = len(opened)
    assert first == at_once - 1                  # the pool held one connection: the rest were opened
    burst()
    assert len(opened) == first                  # the second burst found them all kept
    st.close()


def test_a_store_that_does_not_answer_gets_a_sentence_not_a_traceback(tmp_path):
    from engine.classroom.store import StoreUnavailable
    if REDIS_SERVER is not None:
        from engine.classroom.redis_store import RedisStore
        gone = RedisStore(f"redis://127.0.0.1:{free_port()}/0")          # nothing listens there
        with refused("The class store \\(Redis\\) is not answering") as caught:
            start(gone)
        assert isinstance(caught.value, StoreUnavailable)
    st = SqliteStore(tmp_path / "classes.sqlite3")
    code, _ = start(st)
    (tmp_path / "classes.sqlite3").unlink()
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"classes.sqlite3{suffix}").unlink(missing_ok=True)
    (tmp_path / "classes.sqlite3").mkdir()                              # the file is now a folder
    fresh = SqliteStore.__new__(SqliteStore)
    fresh.__dict__.update(st.__dict__, _pool=[])
    with refused("The class store \\(SQLite\\) is not answering"):
        fresh.state(code)
