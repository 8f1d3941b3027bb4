"""A browser's anonymous identity: a random id the server signs, kept by the browser in a cookie.

The id is what makes a student one student (several tabs of one browser, a reload, another server process)
and what keeps a teacher the teacher of their class; it is never a link parameter, so a link can never act as
someone else. The server signs it (HMAC-SHA256 with a secret every process of a deployment shares), so an id
the server did not issue is refused, and the browser keeps it in an HttpOnly cookie that page scripts cannot
read. Pure: the secret and the cookie's text in, an id or None out.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from pathlib import Path

COOKIE_NAME = "playground_browser"
ID_BYTES = 16                          # 128 random bits: an id is a secret of the browser
COOKIE_MAX_AGE_S = 180 * 24 * 3600     # the browser keeps its id for a term
SECRET_ENV = "PLAYGROUND_SECRET"       # the signing secret every process of a deployment shares
SECRET_FILE = "browser-id.secret"      # else one made once in the data folder (kept across restarts)
_SEPARATOR = "."


def new_id() -> str:
    """A fresh random id (URL-safe text)."""
    return secrets.token_urlsafe(ID_BYTES)


def _derived(role: str, browser_id: str) -> str:
    return hashlib.sha256(f"{role}:{browser_id}".encode()).hexdigest()[:40]


def student_id(browser_id: str) -> str:
    """The id a class store keeps for this browser as a student: derived, so the store never holds the cookie's
    secret itself, and one browser (all its tabs) is one student."""
    return _derived("student", browser_id)


def teacher_credential(browser_id: str) -> str:
    """What this browser shows a class store to act as the teacher of the classes it started or claimed (the store
    keeps only its hash). Derived apart from the student id: one never gives the other away."""
    return _derived("teacher", browser_id)


def _signature(browser_id: str, secret: bytes) -> str:
    return hmac.new(secret, browser_id.encode(), hashlib.sha256).hexdigest()[:32]


def sign(browser_id: str, secret: bytes) -> str:
    """The cookie's value: the id and its signature."""
    return f"{browser_id}{_SEPARATOR}{_signature(browser_id, secret)}"


def verify(cookie: str | None, secret: bytes) -> str | None:
    """The id a cookie carries if this server signed it, else None (compared in constant time)."""
    if not cookie or len(cookie) > 200 or _SEPARATOR not in cookie:
        return None
    browser_id, _, signature = cookie.rpartition(_SEPARATOR)
    if not browser_id or not hmac.compare_digest(signature, _signature(browser_id, secret)):
        return None
    return browser_id


def load_secret(data_folder: Path, env: dict[str, str] | None = None) -> bytes:
    """The signing secret: PLAYGROUND_SECRET from the environment (a deployment's processes share it), else
    a random one made once in the data folder (readable by its owner only), so a restart keeps every id."""
    env = os.environ if env is None else env
    if env.get(SECRET_ENV):
        return env[SECRET_ENV].encode()
    path = data_folder / SECRET_FILE
    try:
        return path.read_bytes().strip() or _read_when_written(path)
    except FileNotFoundError:
        return _write_secret(path)


def _write_secret(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32).encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:                     # another process is making it: use theirs once written
        return _read_when_written(path)
    with os.fdopen(fd, "wb") as out:
        out.write(secret)
    return secret


def _read_when_written(path: Path, tries: int = 50) -> bytes:
    for _ in range(tries):
        secret = path.read_bytes().strip()
        if secret:
            return secret
        time.sleep(0.02)
    raise OSError(f"The secret file {path} stays empty: remove it and start the server again.")
