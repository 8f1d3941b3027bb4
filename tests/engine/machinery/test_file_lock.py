"""engine.machinery.file_lock: flock where there is fcntl, msvcrt's byte lock on Windows, nothing elsewhere;
and the engine imports where there is no fcntl (a notebook on Windows)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from engine.machinery import file_lock

ROOT = Path(__file__).resolve().parents[3]


def test_flock_refuses_a_second_open_of_the_same_file(tmp_path):
    if file_lock.kind() != "flock":
        pytest.skip("this machine has no fcntl")
    path = tmp_path / "slot.lock"
    first, second = os.open(path, os.O_RDONLY | os.O_CREAT), os.open(path, os.O_RDONLY)
    try:
        file_lock.lock(first, wait=False)
        with pytest.raises(BlockingIOError):
            file_lock.lock(second, wait=False)
        file_lock.unlock(first)
        file_lock.lock(second, wait=False)
    finally:
        os.close(first)
        os.close(second)


def test_without_fcntl_the_engine_imports_and_its_slots_and_cache_work(tmp_path):
    """Where `import fcntl` fails (Windows), the machinery falls back and the cache still builds an entry."""
    script = textwrap.dedent("""
        import sys
        sys.modules["fcntl"] = None      # import fcntl now raises ImportError, as on Windows
        sys.modules["msvcrt"] = None     # and no msvcrt either: the no-op lock
        import numpy as np
        import engine
        from engine import limits
        from engine.machinery import cache, file_lock, machine_slots
        from engine.attention.mechanism import CHAPTER_X, self_attention

        assert file_lock.kind() == "none", file_lock.kind()
        slots = machine_slots.MachineSlots(1, folder=sys.argv[1])
        assert slots.try_acquire() == 0
        arrays, _ = cache.cached("windows-test", lambda: ({"x": np.arange(3.0)}, {}), params={"n": 3})
        print(arrays["x"].tolist(), self_attention(CHAPTER_X).weights[0].round(3).tolist())
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PLAYGROUND_CACHE": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "locks")], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("] [")[0] == "[0.0, 1.0, 2.0"
    assert "0.298, 0.203, 0.206, 0.293" in result.stdout


class FakeMsvcrt(types.SimpleNamespace):
    """msvcrt.locking's rules: a byte range locked through one descriptor refuses every other descriptor."""

    LK_NBLCK, LK_UNLCK = 2, 0

    def __init__(self):
        super().__init__(held={})

    def locking(self, fd, mode, nbytes):
        key = (os.fstat(fd).st_ino, os.lseek(fd, 0, os.SEEK_CUR), nbytes)
        if mode == self.LK_NBLCK:
            if self.held.get(key, fd) != fd:
                raise OSError(36, "Resource deadlock avoided")
            self.held[key] = fd
        elif mode == self.LK_UNLCK:
            self.held.pop(key, None)


def test_on_windows_msvcrt_locks_the_first_byte(tmp_path, monkeypatch):
    fake = FakeMsvcrt()
    monkeypatch.setattr(file_lock, "fcntl", None)
    monkeypatch.setattr(file_lock, "msvcrt", fake)
    monkeypatch.setattr(file_lock, "POLL_S", 0.001)
    assert file_lock.kind() == "msvcrt"
    path = tmp_path / "slot.lock"
    first, second = os.open(path, os.O_RDWR | os.O_CREAT), os.open(path, os.O_RDWR)
    try:
        os.lseek(first, 5, os.SEEK_SET)          # wherever the file's position is, the lock is on byte 0
        file_lock.lock(first, wait=False)
        with pytest.raises(BlockingIOError):
            file_lock.lock(second, wait=False)
        file_lock.unlock(first)
        file_lock.lock(second)
        assert list(fake.held.values()) == [second]
    finally:
        os.close(first)
        os.close(second)
