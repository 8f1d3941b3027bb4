"""Which class store a server process opens, and where it keeps its files: the one place that names both stores.

SQLite in WAL mode in the data folder (the default: every process of one machine shares the file), or Redis when
PLAYGROUND_REDIS_URL is set (several machines). The contract both keep is engine.classroom.store; this module
stands above it and both backends, so none of them imports another.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Mapping

from engine.classroom import identity
from engine.classroom.store import ClassStore

REDIS_URL_ENV = "PLAYGROUND_REDIS_URL"
DATA_ENV = "PLAYGROUND_DATA"


def data_folder(env: Mapping[str, str] | None = None) -> Path:
    """Where the app keeps what it writes (the SQLite class store): PLAYGROUND_DATA, else the XDG data folder
    (read from `env`, default this process's environment)."""
    env = os.environ if env is None else env
    if env.get(DATA_ENV):
        return Path(env[DATA_ENV])
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "transformer-playground"


def open_store() -> ClassStore:
    """Redis when PLAYGROUND_REDIS_URL is set, else SQLite in WAL mode in the data folder."""
    url = os.environ.get(REDIS_URL_ENV, "").strip()
    if url:
        from engine.classroom.redis_store import RedisStore
        return RedisStore(url)
    from engine.classroom.sqlite_store import SqliteStore
    return SqliteStore(data_folder() / "classes.sqlite3")


@functools.cache
def identity_secret() -> bytes:
    """The identity cookies' signing secret (identity.load_secret in the data folder), read once per process."""
    return identity.load_secret(data_folder())
