"""One exclusive lock on an open file, shared by every process of a machine.

The prepared cache locks an entry while one process builds it (engine.machinery.cache), and the
machine's slots are locks on one file each (engine.machinery.machine_slots); both take them here.

- Linux and macOS: `flock`. The kernel keeps the lock with the open file and frees it when the holder
  dies, even by SIGKILL; a second open of the same file, in the same process or another, conflicts.
- Windows has no `fcntl`: `msvcrt.locking` on the file's first byte does the same (a lock held through
  one handle refuses every other handle; the system frees it when the process ends).
- Where neither exists, nothing is locked. One process at a time is then safe, and that is what a
  notebook runs; a server of several processes runs on Linux.

Standard library only: the training gate's tests start processes that import just engine.machinery.
"""
from __future__ import annotations

import os
import time

try:
    import fcntl
except ImportError:          # Windows
    fcntl = None
try:
    import msvcrt
except ImportError:          # everywhere but Windows
    msvcrt = None

POLL_S = 0.05   # how often a waiting msvcrt lock tries again (msvcrt's own blocking mode gives up after 10 s)


def kind() -> str:
    """Which lock this machine has: "flock", "msvcrt" or "none"."""
    return "flock" if fcntl is not None else "msvcrt" if msvcrt is not None else "none"


def lock(fd: int, *, wait: bool = True) -> None:
    """Take the exclusive lock on the open file `fd`: wait for it, or raise BlockingIOError when another
    holder has it and `wait` is False."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    elif msvcrt is not None:
        while True:
            os.lseek(fd, 0, os.SEEK_SET)      # msvcrt locks bytes from the file's position
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return
            except OSError as error:
                if not wait:
                    raise BlockingIOError(f"another holder has the lock on file {fd}") from error
            time.sleep(POLL_S)


def unlock(fd: int) -> None:
    """Give the lock on `fd` back (closing the file gives it back too)."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    elif msvcrt is not None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
