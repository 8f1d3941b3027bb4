"""Slots shared by every process on one machine: at most `count` holders at once.

Slot i is an exclusive lock (`flock`, or its Windows equivalent: engine.machinery.file_lock) on the file
`slot-<i>.lock` in one shared folder (environment variable PLAYGROUND_LOCKS, else
`transformer-playground-locks` under the system's temp folder).
The kernel keeps the lock with the open file, so a holder that dies, even by SIGKILL, frees
its slot with no clean-up; a lock taken through a second open of the same file conflicts
with the first, so two threads of one process count as two holders, as two processes do.

    slots = MachineSlots(2)
    slot = slots.try_acquire()      # an index, or None when all are held (never blocks)
    ...
    slots.release(slot)

Standard library only (the training gate's tests start processes that import just this).
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator

from engine.i18n import _
from engine.machinery import file_lock

LOCKS_ENV = "PLAYGROUND_LOCKS"
DEFAULT_FOLDER = "transformer-playground-locks"


def lock_folder() -> Path:
    """The folder whose slot files every process of this machine shares."""
    return Path(os.environ.get(LOCKS_ENV) or Path(tempfile.gettempdir()) / DEFAULT_FOLDER)


class MachineSlots:
    """`count` slots shared across processes through flock on `folder`/slot-<i>.lock."""

    def __init__(self, count: int, folder: str | Path | None = None):
        if count < 1:
            raise ValueError(_("A machine needs at least one slot; {n} were asked for.", n=count))
        self.count = count
        self.folder = Path(folder) if folder is not None else lock_folder()
        self._held: dict[int, int] = {}     # slot -> file descriptor holding its lock
        self._lock = threading.Lock()

    def path(self, slot: int) -> Path:
        return self.folder / f"slot-{slot}.lock"

    def try_acquire(self) -> int | None:
        """Take a free slot and return its index, or None when every slot is held."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            for slot in range(self.count):
                if slot in self._held:
                    continue
                # read-only is enough for flock, and lets another user's process share the file
                fd = os.open(self.path(slot), os.O_RDONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
                try:
                    file_lock.lock(fd, wait=False)
                except BlockingIOError:
                    os.close(fd)
                    continue
                except BaseException:
                    os.close(fd)
                    raise
                self._held[slot] = fd
                return slot
        return None

    def release(self, slot: int) -> None:
        """Give the slot back (closing the file drops the lock); releasing twice does nothing."""
        with self._lock:
            fd = self._held.pop(slot, None)
        if fd is not None:
            os.close(fd)

    @property
    def held(self) -> int:
        """Slots this object holds now (not those of other processes)."""
        with self._lock:
            return len(self._held)


class MachineLine:
    """A line for one kind of heavy call (a model pass per head, say): `count` run at once on the machine (slots in
    `folder`, as trainings hold theirs), at most `max_waiting` of this process's calls wait for one, and a call past
    that is refused with a sentence a student understands, naming `what` it is.

        with LINE.turn():       # waits in line (polling every POLL_S), or raises ValueError when the line is full
            ...                 # the heavy call
    """

    POLL_S = 0.05

    def __init__(self, count: int, max_waiting: int, what: str, folder: str | Path | None = None):
        self.slots = MachineSlots(count, folder)
        self.max_waiting, self.what = max_waiting, what
        self._waiting = 0
        self._lock = threading.Lock()

    @property
    def waiting(self) -> int:
        with self._lock:
            return self._waiting

    @contextlib.contextmanager
    def turn(self) -> Iterator[int]:
        """Hold one of the machine's slots for this line while the block runs; yields the caller's place in line
        when it joined (0: it ran at once)."""
        slot = self.slots.try_acquire()
        place = 0
        if slot is None:
            with self._lock:
                if self._waiting >= self.max_waiting:
                    raise ValueError(_("The server is busy: {n} {what} are being computed and {waiting} more are "
                                       "waiting, the most it allows. Try again in a moment.", n=self.slots.count,
                                       what=_(self.what), waiting=self._waiting))
                self._waiting += 1
                place = self._waiting
            try:
                while slot is None:
                    time.sleep(self.POLL_S)
                    slot = self.slots.try_acquire()
            finally:
                with self._lock:
                    self._waiting -= 1
        try:
            yield place
        finally:
            self.slots.release(slot)
