"""A class's events: what a student's page is told when the class changes, and the one watcher per server process
that follows the store and wakes the requests parked on it (ui.class_events serves them).

A page asks "anything after version V?" and its request parks here until the class's version moves past V (a
teacher action: a question asked, locked, revealed, asked again, a page to follow, the class ended), or, when it
also names the tallies it saw (`seen`: joined, answered), until those move (the teacher's live view), or until
`timeout` (None: no change, ask again). Every parked request of a process shares one read of the store:

- SQLite: the watcher reads the pulse (engine.classroom.store.Pulse: version and tallies, one small read) of every
  class somebody asked about in the last CLASS_EVENTS_WATCH_KEEP_S, every CLASS_EVENTS_READ_S, whatever the number
  of students parked on it;
- Redis: the store publishes every change (`tells_changes`, RedisStore.listen): a thread listens, and the watcher
  reads the classes it was told about (changes within CLASS_EVENTS_COALESCE_S read once), and every watched class
  every CLASS_EVENTS_RECHECK_S all the same (a message lost while the connection was down).

The whole state is read once per version per process, never per student. An event carries what a page needs to
know whether to draw anew: the version, the question's number, round and status, the follow link and its version,
the tallies, and what changed since the last event. Never the teacher key, never an answer of anyone.

Store reads run on a worker thread (asyncio.to_thread): the event loop that serves the pages never waits on a file
lock or on Redis. Pure Python and asyncio: no streamlit, no web framework here.
"""
from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from dataclasses import dataclass, field

from engine import limits
from engine.classroom.store import ClassState, ClassStore, Pulse, StoreUnavailable, normalise_code

STATUS_NONE, STATUS_OPEN, STATUS_LOCKED, STATUS_REVEALED, STATUS_ENDED = "none", "open", "locked", "revealed", "ended"


class ClassGone(ValueError):
    """The code names no class now: unknown (status 404) or ended and its record gone (410). Its sentence says which."""

    def __init__(self, sentence: str, ended: bool):
        super().__init__(sentence)
        self.ended = ended


class TooManyParked(RuntimeError):
    """This process already holds CLASS_EVENTS_MAX_PARKED parked requests."""


def status_of(state: ClassState) -> str:
    if state.ended:
        return STATUS_ENDED
    if state.question_id is None:
        return STATUS_NONE
    return STATUS_REVEALED if state.revealed else STATUS_LOCKED if state.locked else STATUS_OPEN


def event_of(state: ClassState, pulse: Pulse, before: dict | None) -> dict:
    """The event pages are told: what a page needs to decide to draw anew (no answer, no key); `changed` names what
    differs from the event `before` (None: the first this process made for the class)."""
    event = {"version": pulse.version, "status": status_of(state), "question": state.question_id,
             "round": state.round, "options": len(state.question.options) if state.question else 0,
             "live": state.live, "link": state.link, "link_version": state.link_version,
             "students": pulse.students, "answered": pulse.answered}
    if before is None:
        event["changed"] = []
    else:
        names = {"question": ("question",), "round": ("round",), "status": ("status",), "follow": ("link_version",),
                 "live": ("live",), "joined": ("students",), "answered": ("answered",)}
        event["changed"] = [name for name, fields in names.items() if any(event[f] != before.get(f) for f in fields)]
    return event


def with_tallies(event: dict, pulse: Pulse) -> dict:
    """The last event with the tallies of a newer pulse of the same version (a join, a vote)."""
    changed = [name for name, f in (("joined", "students"), ("answered", "answered"))
               if event[f] != getattr(pulse, f)]
    return dict(event, students=pulse.students, answered=pulse.answered, changed=changed)


def moved(event: dict, since: int, seen: tuple[int, int] | None) -> bool:
    """Whether `event` is news to a page that drew version `since` (and, when it names them, the tallies `seen`)."""
    return event["version"] != since or (seen is not None and (event["students"], event["answered"]) != seen)


@dataclass
class _Watch:
    event: dict | None = None
    pulse: Pulse | None = None
    gone: ClassGone | None = None
    wanted: float = 0.0                                   # when a page last asked (time.monotonic)
    parked: list = field(default_factory=list)            # [(future, since, seen)]


class Watcher:
    """One per server process (and event loop): follows the store for every class pages ask about, and wakes the
    requests parked on it. `wait` from any number of requests; `start` once, `stop` at the end."""

    def __init__(self, store: ClassStore, *, read_s: float | None = None, recheck_s: float | None = None,
                 max_parked: int | None = None, clock=time.monotonic):
        self.store, self.clock = store, clock
        self.read_s = limits.CLASS_EVENTS_READ_S if read_s is None else read_s
        self.recheck_s = limits.CLASS_EVENTS_RECHECK_S if recheck_s is None else recheck_s
        self.max_parked = limits.CLASS_EVENTS_MAX_PARKED if max_parked is None else max_parked
        self.told = bool(getattr(store, "tells_changes", False))
        self._watches: dict[str, _Watch] = {}
        self._dirty: set[str] = set()
        self._poked: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._listener: threading.Thread | None = None
        self._stop_listening = threading.Event()
        self.reads = 0                                    # store reads made (the tests and the bench count them)

    def known_version(self, code: str) -> int | None:
        """The class's version as this watcher last read it (None where it does not watch the class): the routes a
        told page fetches from next read the class at least this new (ui.class_live)."""
        watch = self._watches.get(code)
        return None if watch is None or watch.event is None else watch.event["version"]

    @property
    def parked(self) -> int:
        return sum(len(w.parked) for w in self._watches.values())

    # --- the loop -------------------------------------------------------------------------------
    def start(self) -> None:
        """Start following the store on the running event loop (a second call does nothing)."""
        if self._task is not None:
            return
        loop = asyncio.get_running_loop()
        self._poked = asyncio.Event()
        self._task = loop.create_task(self._run(), name="class-events-watcher")
        if self.told:
            def on_change(code: str) -> None:
                loop.call_soon_threadsafe(self._poke, code)
            self._listener = threading.Thread(target=self.store.listen, args=(on_change, self._stop_listening),
                                              name="class-events-listener", daemon=True)
            self._listener.start()

    async def stop(self) -> None:
        self._stop_listening.set()
        if self._listener is not None:                   # it looks at the stop every second
            await asyncio.to_thread(self._listener.join, 5.0)
            self._listener = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for watch in self._watches.values():
            for future, _, _ in watch.parked:
                if not future.done():
                    future.set_result(None)

    def _poke(self, code: str) -> None:
        if code in self._watches:
            self._dirty.add(code)
            self._poked.set()

    async def _run(self) -> None:
        last_all = self.clock()
        while True:
            if self.told:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._poked.wait(), max(0.0, last_all + self.recheck_s - self.clock()))
                await asyncio.sleep(limits.CLASS_EVENTS_COALESCE_S)   # the rest of a room's votes, read once
                self._poked.clear()
                if self.clock() - last_all >= self.recheck_s:
                    codes, last_all = set(self._watches), self.clock()
                else:
                    codes = set(self._dirty)
                self._dirty.clear()
            else:
                await asyncio.sleep(self.read_s)
                codes = set(self._watches)
            now = self.clock()
            for code in [c for c, w in self._watches.items() if not w.parked
                         and now - w.wanted > limits.CLASS_EVENTS_WATCH_KEEP_S]:
                del self._watches[code]
                codes.discard(code)
            if codes:
                with contextlib.suppress(Exception):     # a store that does not answer: the next turn asks again
                    await self._refresh(sorted(codes))

    # --- reading the store ----------------------------------------------------------------------
    def _read(self, code: str, watch: _Watch) -> tuple[dict | None, Pulse | None, ClassGone | None]:
        """On a worker thread: the class's pulse, and its whole state when the version moved."""
        self.reads += 1
        try:
            pulse = self.store.pulse(code)
        except StoreUnavailable:
            raise
        except ValueError as error:
            return None, None, ClassGone(str(error), ended=f"Class {code} has ended" in str(error))
        if watch.pulse is not None and watch.event is not None and pulse.version == watch.pulse.version:
            if pulse == watch.pulse:
                return watch.event, pulse, None
            return with_tallies(watch.event, pulse), pulse, None
        self.reads += 1
        state = self.store.state(code)
        return event_of(state, pulse, watch.event), pulse, None

    async def _refresh(self, codes: list[str]) -> None:
        watches = {code: self._watches.get(code) or _Watch() for code in codes}
        found = await asyncio.to_thread(lambda: {code: self._read(code, watch) for code, watch in watches.items()})
        for code, (event, pulse, gone) in found.items():
            watch = self._watches.setdefault(code, watches[code])
            watch.event, watch.pulse, watch.gone = event, pulse, gone
            for parked in list(watch.parked):
                future, since, seen = parked
                if future.done():
                    continue
                if gone is not None:
                    future.set_exception(gone)
                elif moved(event, since, seen):
                    future.set_result(event)

    # --- what a request does --------------------------------------------------------------------
    async def wait(self, code: str, since: int, seen: tuple[int, int] | None = None,
                   timeout: float | None = None) -> dict | None:
        """The class's event as soon as it is news to a page that drew version `since` (and tallies `seen`), or None
        after `timeout` (default CLASS_EVENTS_PARK_S) without news. Raises ValueError for a code that cannot be one,
        ClassGone for a code with no class, TooManyParked when this process holds its most."""
        code = normalise_code(code)
        timeout = limits.CLASS_EVENTS_PARK_S if timeout is None else timeout
        if self._task is None:
            self.start()
        watch = self._watches.get(code)
        if watch is None or (watch.event is None and watch.gone is None):
            await self._refresh([code])
            watch = self._watches[code]
        watch.wanted = self.clock()
        if watch.gone is not None:
            raise watch.gone
        event = watch.event
        if moved(event, since, seen):
            return event
        if event["status"] == STATUS_ENDED:
            raise ClassGone(f"Class {code} has ended: ask your teacher for the code of the class running now.",
                            ended=True)
        if self.parked >= self.max_parked:
            raise TooManyParked(f"This server already holds {self.max_parked:,} waiting pages, the most it keeps.")
        future = asyncio.get_running_loop().create_future()
        parked = (future, since, seen)
        watch.parked.append(parked)
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            return None
        finally:
            watch.parked.remove(parked)
            watch.wanted = self.clock()
