"""Slots shared by every process on one machine: at most `count` holders at once.

Slot i is an exclusive `flock` on the file `slot-<i>.lock` in one shared folder (environment
variable PLAYGROUND_LOCKS, else `transformer-playground-locks` under the system's temp folder).
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

import fcntl
import os
import tempfile
import threading
from pathlib import Path

LOCKS_ENV = "PLAYGROUND_LOCKS"
DEFAULT_FOLDER = "transformer-playground-locks"


def lock_folder() -> Path:
    """The folder whose slot files every process of this machine shares."""
    return Path(os.environ.get(LOCKS_ENV) or Path(tempfile.gettempdir()) / DEFAULT_FOLDER)


class MachineSlots:
    """`count` slots shared across processes through flock on `folder`/slot-<i>.lock."""

    def __init__(self, count: int, folder: str | Path | None = None):
        if count < 1:
            raise ValueError(f"A machine needs at least one slot; {count} were asked for.")
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
                fd = os.open(self.path(slot), os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
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
