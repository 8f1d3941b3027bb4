"""The SQLite class store and its files (issue 43): a file deleted or replaced mid-class ends the class with a sentence
in every process, old and new, and is never written on beside the new one (a class split in two); a -shm or -wal
file SQLite cannot write is a sentence, never a SIGBUS; a file that is not a database is a sentence."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.classroom.sqlite_store import SqliteStore
from engine.classroom.store import StoreUnavailable

ROOT = Path(__file__).resolve().parents[3]
ENDED = r"Class {code} has ended: the server's class record was lost \(its file was {how} while the class ran\)"


def _class(path: Path) -> tuple[SqliteStore, str, str]:
    store = SqliteStore(path)
    code, key = store.create_class("teacher-browser")
    store.join(code, "student-1")
    store.state(code)
    return store, code, key


def _other_process(path: Path, code: str) -> str:
    """What a process started afterwards (a server restarted) says about the class."""
    done = subprocess.run([sys.executable, "-c", f"""
from engine.classroom.sqlite_store import SqliteStore
try:
    print(SqliteStore({str(path)!r}).state({code!r}))
except ValueError as error:
    print(error)
"""], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("how", ["deleted", "deleted with its -wal and -shm", "replaced"])
def test_a_file_gone_mid_class_ends_the_class_with_a_sentence_in_every_process(tmp_path, how):
    """A class never splits: the process that ran it, a second store, and a process started afterwards all say it
    ended and why, and all go on with the one file now at the path (a class made there is seen by every one)."""
    path = tmp_path / "classes.sqlite3"
    store, code, key = _class(path)
    if how.startswith("deleted"):
        path.unlink()
        if how.endswith("-shm"):
            for suffix in ("-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
    else:                                   # another file moved onto the path (a restore, a copy from elsewhere)
        other = tmp_path / "elsewhere" / "classes.sqlite3"
        made = SqliteStore(other)
        made.create_class("teacher-browser")
        made.close()
        os.replace(other, path)
    ended = ENDED.format(code=code, how=how.split(" with")[0])
    with pytest.raises(ValueError, match=ended):      # the process that ran the class
        store.state(code)
    with pytest.raises(ValueError, match=ended):
        store.vote(code, "student-1", 1, 1, 0)
    assert path.exists()
    assert "has ended: the server's class record was lost" in _other_process(path, code)   # a restarted one
    again = SqliteStore(path)                       # and a second store of this process
    with pytest.raises(ValueError, match=ended):
        again.join(code, "student-2")
    new_code, _ = store.create_class("teacher-browser")   # the store goes on, on the file now at the path
    assert _other_process(path, new_code).startswith("ClassState(")
    assert again.state(new_code).students == 0


def test_a_shm_file_that_is_not_a_file_is_a_sentence(tmp_path):
    path = tmp_path / "classes.sqlite3"
    store, code, _ = _class(path)
    store.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    Path(f"{path}-shm").mkdir()
    with pytest.raises(StoreUnavailable, match=r"classes.sqlite3-shm cannot be written .* class mode is paused"):
        store.state(code)


CHATTR = shutil.which("chattr")


@pytest.mark.skipif(CHATTR is None or os.geteuid() != 0, reason="an immutable file needs chattr and root")
@pytest.mark.parametrize("truncated", [False, True], ids=["as-it-was", "truncated"])
def test_an_immutable_shm_file_is_a_sentence_not_a_sigbus(tmp_path, truncated):
    """The probe: a -shm made immutable while a server had it mapped killed that server with SIGBUS."""
    path = tmp_path / "classes.sqlite3"
    shm = Path(f"{path}-shm")
    script = f"""
import os, subprocess, sys
from engine.classroom.sqlite_store import SqliteStore
store = SqliteStore({str(path)!r})
code, key = store.create_class("teacher-browser")
held = store._take()                       # a connection in use keeps -shm mapped, as a serving process does
held.execute("SELECT 1").fetchall()
if {truncated}:
    os.truncate({str(shm)!r}, 0)
subprocess.run(["chattr", "+i", {str(shm)!r}], check=True)
try:
    store.state(code)
except ValueError as error:
    print(error)
os._exit(0)                                 # the connections are left as they are: closing one would map -shm
"""
    try:
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    finally:
        if shm.exists():
            subprocess.run([CHATTR, "-i", str(shm)], check=False)
    assert done.returncode == 0, f"the process died (signal {-done.returncode}): {done.stderr[-300:]}"
    assert "classes.sqlite3-shm cannot be written" in done.stdout


def test_a_file_that_is_not_a_database_is_a_sentence(tmp_path):
    path = tmp_path / "classes.sqlite3"
    store, code, _ = _class(path)
    store.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"this is not a database " * 100)
    with pytest.raises(StoreUnavailable, match=r"The class store \(SQLite\) is not answering"):
        store.state(code)                      # the same file (its inode), overwritten
