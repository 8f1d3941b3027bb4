"""The class store in one SQLite file, in WAL mode: every process of one machine shares it.

WAL lets readers (students polling `state`) run while one writer commits; every write is one
`BEGIN IMMEDIATE` transaction that reads what it checks and writes in the same transaction, so
two processes can never both pass a check (the student limit, a locked round) and then both
write. A busy file is waited for (`timeout`), never reported as an error. `synchronous=NORMAL`
keeps every committed vote when a server process is killed (only a power cut may lose the last
commits). Connections are pooled per process (a forked child opens its own): Streamlit runs each rerun
on a new thread, so a connection per thread would be opened again on every poll.

Before any call touches SQLite, the store looks at its files (`_check_files`, a stat and two access checks, about
10 µs). A file deleted or replaced while classes ran (another inode at the path) is not written on any further:
the process leaves its connections to the old file, takes the one now at the path (creating it where it is gone, as
a new process would; `_adopt`, in turn with the machine's other processes) and writes there the codes of the classes
it knew (`lost_classes`), so every process, one started afterwards too, ends those classes with a sentence that says
why; nothing goes on in the old file beside a new one (a class split in two). SQLite finds a file's -wal and -shm by
its name and would replay a dead file's -wal into a new one: `<path>.generation` names the file they belong to.

A -shm or -wal file that cannot be written (made immutable, a read-only mount) is refused with a sentence before
SQLite maps it: SQLite reads the WAL index through a memory map of -shm, and a -shm it cannot grow killed the process
with SIGBUS. The checks never open the files themselves: closing any descriptor of a file drops
every POSIX lock the process holds on it, SQLite's included.
"""
from __future__ import annotations

import functools
import os
import sqlite3
import stat
import threading
import time
from pathlib import Path
from typing import Callable

from engine import limits
from engine.i18n import N_, _
from engine.machinery import file_lock
from engine.classroom import store as s
from engine.classroom.store import ClassState, ClassStore, Question, QuestionSummary

BUSY_TIMEOUT_S = 30.0
POOL_SIZE = 32          # idle connections kept per process: a class following its teacher makes dozens of
                        # store calls at once in one process, and each connection opened anew costs ~0.5 ms

SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    ended INTEGER NOT NULL DEFAULT 0,
    link TEXT,
    link_version INTEGER NOT NULL DEFAULT 0,
    question_id INTEGER,
    round INTEGER NOT NULL DEFAULT 0,
    locked INTEGER NOT NULL DEFAULT 0,
    revealed INTEGER NOT NULL DEFAULT 0,
    live INTEGER NOT NULL DEFAULT 0,
    students INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 0,
    active_until REAL NOT NULL DEFAULT 0,
    started_by TEXT NOT NULL DEFAULT '',
    address TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS classes_expiry ON classes (expires_at);
CREATE TABLE IF NOT EXISTS teachers (
    code TEXT NOT NULL,
    teacher_hash TEXT NOT NULL,
    PRIMARY KEY (code, teacher_hash)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS teachers_by_hash ON teachers (teacher_hash);
CREATE TABLE IF NOT EXISTS ended_codes (
    code TEXT PRIMARY KEY,
    until REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS questions (
    code TEXT NOT NULL,
    question_id INTEGER NOT NULL,
    body TEXT NOT NULL,
    rounds INTEGER NOT NULL DEFAULT 1,
    revealed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (code, question_id)
);
CREATE TABLE IF NOT EXISTS students (
    code TEXT NOT NULL,
    student_id TEXT NOT NULL,
    PRIMARY KEY (code, student_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS votes (
    code TEXT NOT NULL,
    question_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    student_id TEXT NOT NULL,
    option INTEGER NOT NULL,
    PRIMARY KEY (code, question_id, round, student_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS attempts (
    what TEXT NOT NULL,
    who TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_who ON attempts (what, who, at);
CREATE INDEX IF NOT EXISTS attempts_at ON attempts (at);
"""
VIEW_SCHEMA = """
CREATE TABLE IF NOT EXISTS class_views (
    code TEXT PRIMARY KEY,
    body TEXT NOT NULL
) WITHOUT ROWID;
"""
# attempts counted over FAILURE_WINDOW_S: wrong codes per browser and per address, new students per address
WRONG_BY_BROWSER, WRONG_BY_ADDRESS, JOINED_FROM = "wrong-browser", "wrong-address", "joined-from"

CLASS_COLUMNS = ("code, key_hash, expires_at, ended, link, link_version, question_id, round, locked, revealed, "
                 "live, students, active_until")
ADDED_COLUMNS = {"version": "INTEGER NOT NULL DEFAULT 0", "active_until": "REAL NOT NULL DEFAULT 0",
                 "started_by": "TEXT NOT NULL DEFAULT ''", "address": "TEXT NOT NULL DEFAULT ''"}


LOST_SCHEMA = """
CREATE TABLE IF NOT EXISTS lost_classes (
    code TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    until REAL NOT NULL
);
"""


def _identity_of(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`, None where there is none."""
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


# why a class ended with its record (kept with its code, shown in the reader's language)
DELETED = N_("the server's class record was lost (its file was deleted while the class ran), so its questions and "
             "votes are gone.")
REPLACED = N_("the server's class record was lost (its file was replaced while the class ran), so its questions and "
              "votes are gone.")


def lost(code: str, reason: str) -> ValueError:
    return ValueError(_("Class {code} has ended: {reason} Start or join a new class.", code=code, reason=_(reason)))


def _file_changes(method):
    """A public method, after `_check_files` (the file replaced or removed, its -shm or -wal unusable); a class the
    file lost, asked about by its code, is a sentence saying so, not an unknown code."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        self._check_files()
        try:
            result = method(self, *args, **kwargs)
        except s.StoreUnavailable:
            raise
        except ValueError:
            code = _code_of(args, kwargs)
            reason = self._lost_reason(code) if code else None
            if reason is not None:
                raise lost(code, reason) from None
            raise
        code = _code_of(args, kwargs)
        if code:
            self._seen.add(code)
        return result
    return call


def _code_of(args: tuple, kwargs: dict) -> str | None:
    """The class code a call names (its `code`, or its first argument when that can be one)."""
    raw = kwargs.get("code", args[0] if args else None)
    try:
        return s.normalise_code(raw)
    except ValueError:
        return None


def _watch_the_file(cls):
    """Class decorator: every public method of the store runs after the file checks (`_file_changes`)."""
    for name, member in list(vars(cls).items()):
        if callable(member) and not name.startswith("_") and name != "close":
            setattr(cls, name, _file_changes(member))
    return cls


@s.guard_store_errors((sqlite3.Error, OSError), "SQLite")
@_watch_the_file
class SqliteStore(ClassStore):
    """The class store in the SQLite file `path` (created with its folder)."""
    _identity: tuple[int, int] | None = None   # (device, inode) of the file this store's connections are on

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time):
        self.path = Path(path)
        self.clock = clock
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._pool: list[sqlite3.Connection] = []
        self._pool_pid = os.getpid()
        self._pool_lock = threading.Lock()
        self._questions: dict[tuple[str, int], Question] = {}   # questions never change once asked
        conn = self._take()
        _add_columns(conn)
        conn.executescript(SCHEMA)
        conn.executescript(VIEW_SCHEMA)
        self._give(conn)

    # --- connections and transactions -----------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._identity is None:       # the store's first connection, or the first since its file changed
            return self._adopt()
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        return conn

    def _take(self) -> sqlite3.Connection:
        """A connection of this process's pool (a new one when all are in use)."""
        with self._pool_lock:
            if self._pool_pid != os.getpid():          # forked: the parent's connections are not ours
                self._pool, self._pool_pid = [], os.getpid()
            if self._pool:
                return self._pool.pop()
        return self._connect()

    def _give(self, conn: sqlite3.Connection) -> None:
        with self._pool_lock:
            if self._pool_pid == os.getpid() and len(self._pool) < POOL_SIZE:
                self._pool.append(conn)
                return
        conn.close()

    def _write(self):
        return _Transaction(self, "BEGIN IMMEDIATE")

    def _read(self):
        return _Transaction(self, "BEGIN")

    def close(self) -> None:
        with self._pool_lock:
            pool, self._pool = self._pool, []
        for conn in pool:
            conn.close()

    # --- the files themselves ---------------------------------------------------------------

    @property
    def _seen(self) -> set[str]:
        """The class codes this process has served (the classes to say 'ended' for if the file goes)."""
        if "_seen_codes" not in self.__dict__:
            self.__dict__["_seen_codes"] = set()
        return self.__dict__["_seen_codes"]

    def _check_files(self) -> None:
        """Before SQLite touches anything: -shm and -wal writable regular files, and the file the one this store is
        on (see the module's docstring). Raises StoreUnavailable for files SQLite must not map."""
        for suffix in ("-shm", "-wal"):
            side = Path(f"{self.path}{suffix}")
            try:
                kind = side.lstat().st_mode
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(kind) or not os.access(side, os.R_OK | os.W_OK):
                raise s.StoreUnavailable(_(
                    "The class store's file {name} cannot be written (it is read-only, locked against changes or not "
                    "a file), so class mode is paused on this server: nothing was saved. Tell whoever runs it; "
                    "classes go on once the file can be written again.", name=side.name))
        identity = _identity_of(self.path)
        if identity is None or (self._identity is not None and identity != self._identity):
            self._move_to_the_new_file(DELETED if identity is None else REPLACED)

    def _move_to_the_new_file(self, reason: str) -> None:
        """The file at the path is not the one this store's connections are on: leave the old one, open (or create)
        the one at the path, and write there the classes the old one held, as lost."""
        with self._pool_lock:
            old, self._pool = self._pool, []
        codes = set(self._seen)
        for conn in old:
            try:
                codes.update(row[0] for row in conn.execute("SELECT code FROM classes WHERE ended = 0"))
            except sqlite3.Error:
                pass
        # never closed: the last connection to a file checkpoints it and deletes "<path>-wal" and "-shm" by name,
        # which are the new file's now
        self.__dict__.setdefault("_abandoned", []).extend(old)
        self._identity = None
        self._questions = {}
        self._give(self._adopt(codes, reason))

    def _adopt(self, lost: set[str] | frozenset = frozenset(), reason: str = "") -> sqlite3.Connection:
        """A connection to the file now at the path, taken as this store's, with the machine's processes in turn (a
        lock file beside it). SQLite finds "-wal" and "-shm" by the file's name, and replays a -wal into whatever file
        has that name: where the file is gone, or is not the one `<path>.generation` names (another was moved onto
        the path), the -wal and -shm there are a dead file's and are deleted before anything opens it. The lost
        classes' codes are written into the file (`lost_classes`); the file's identity into `<path>.generation`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            file_lock.lock(fd)
            generation = Path(f"{self.path}.generation")
            found = _identity_of(self.path)
            try:
                named = tuple(int(part) for part in generation.read_text().split(":"))
            except (OSError, ValueError):
                named = None
            if found is None or (named is not None and named != found):
                for suffix in ("-wal", "-shm"):
                    Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
                conn.executescript((SCHEMA if found is None else "") + LOST_SCHEMA)   # a new file: all of it
                if lost:
                    until = self.clock() + limits.CLASS_LIFETIME_S
                    conn.executemany("INSERT OR IGNORE INTO lost_classes (code, reason, until) VALUES (?, ?, ?)",
                                     [(code, reason, until) for code in sorted(lost)])
                identity = _identity_of(self.path)
                if identity != named:
                    written = Path(f"{generation}.{os.getpid()}")
                    written.write_text(f"{identity[0]}:{identity[1]}")
                    os.replace(written, generation)
            except BaseException:
                conn.close()
                raise
            self._identity = identity
            return conn
        finally:
            os.close(fd)

    def _lost_reason(self, code: str) -> str | None:
        """Why the class `code` ended with the file it was in, if it did."""
        conn = self._take()
        try:
            row = conn.execute("SELECT reason FROM lost_classes WHERE code = ? AND until > ?",
                               (code, self.clock())).fetchone()
        except sqlite3.OperationalError:          # no such table: this file never lost a class
            row = None
        except BaseException:
            conn.close()
            raise
        self._give(conn)
        return None if row is None else row[0]

    # --- helpers (inside a transaction) ----------------------------------------------------

    def _row(self, db: _Transaction, code: str) -> tuple:
        row = db.execute(f"SELECT {CLASS_COLUMNS} FROM classes WHERE code = ?", (code,)).fetchone()
        if row is None or row[2] <= self.clock():
            raise self._gone(db, code)
        return row

    def _ended_long_ago(self, db: _Transaction, code: str) -> bool:
        """Whether the code is one of a class whose record is gone (remembered for CLASS_ENDED_KEPT_S)."""
        now = self.clock()
        return db.execute("SELECT 1 FROM ended_codes WHERE code = ? AND until > ? UNION ALL "
                          "SELECT 1 FROM classes WHERE code = ? AND expires_at > ?",   # gone, not purged yet
                          (code, now, code, now - limits.CLASS_ENDED_KEPT_S)).fetchone() is not None

    def _gone(self, db: _Transaction, code: str) -> ValueError:
        """A code with no class: one that ended says so; any other is unknown."""
        return s.ended(code) if self._ended_long_ago(db, code) else s.unknown_code(code)

    def _open(self, row: tuple) -> bool:
        return not row[3] and row[12] > self.clock()

    def _is_teacher(self, db: _Transaction, code: str, key: str, key_hash: str) -> bool:
        """The class key, or the credential of one of the class's teacher browsers."""
        if s.key_matches(key, key_hash):
            return True
        if not isinstance(key, str) or not key:
            return False
        return db.execute("SELECT 1 FROM teachers WHERE code = ? AND teacher_hash = ?",
                          (code, s.hash_key(key))).fetchone() is not None

    def _teacher(self, db: _Transaction, code: str, key: str, open_only: bool = True) -> tuple:
        """The class's row for a teacher action; an action on an open class keeps it open CLASS_IDLE_S longer."""
        row = self._row(db, code)
        if not self._is_teacher(db, code, key, row[1]):
            raise s.not_teacher(code)
        if open_only:               # (every such action is a write)
            if not self._open(row):
                raise s.ended(code)
            db.execute("UPDATE classes SET active_until = ? WHERE code = ?",
                       (s.active_until(self.clock(), row[2]), code))
        return row

    def _question(self, db: _Transaction, code: str, question_id: int) -> Question:
        cached = self._questions.get((code, question_id))
        if cached is None:
            row = db.execute("SELECT body FROM questions WHERE code = ? AND question_id = ?",
                             (code, question_id)).fetchone()
            if row is None:
                raise s.unknown_question(question_id)
            cached = self._questions[(code, question_id)] = Question.from_json(row[0])
        return cached

    def _state(self, db: _Transaction, row: tuple) -> ClassState:
        code, _, _, ended, link, link_version, qid, round_, locked, revealed, live, students, until = row
        answered = 0
        question = None
        if qid is not None:
            question = self._question(db, code, qid)
            answered = db.execute("SELECT COUNT(*) FROM votes WHERE code = ? AND question_id = ? AND round = ?",
                                  (code, qid, round_)).fetchone()[0]
        return ClassState(code, link, link_version, qid, question, round_, bool(locked), bool(revealed),
                          bool(live), students, answered, not self._open(row), until)

    def _counts(self, db: _Transaction, code: str, question_id: int, round_: int, n: int) -> tuple[int, ...]:
        counts = [0] * n
        for option, count in db.execute("SELECT option, COUNT(*) FROM votes WHERE code = ? AND question_id = ? "
                                        "AND round = ? GROUP BY option", (code, question_id, round_)):
            counts[option] += count
        return tuple(counts)

    def _summary(self, db: _Transaction, code: str, last_question: int | None) -> list[QuestionSummary]:
        out = []
        for qid, rounds in db.execute("SELECT question_id, rounds FROM questions WHERE code = ? ORDER BY question_id",
                                      (code,)).fetchall():
            question = self._question(db, code, qid)
            counts = [self._counts(db, code, qid, r, len(question.options)) for r in range(1, rounds + 1)]
            out.append(s.make_summary(qid, question, counts))
        return out

    # --- the interface --------------------------------------------------------------------

    def create_class(self, teacher: str, address: str = "") -> tuple[str, str]:
        teacher, address = s.check_teacher(teacher), s.check_address(address)
        now = self.clock()
        key, teacher_hash = s.new_key(), s.hash_key(teacher)
        with self._write() as db:
            self._purge(db, now)
            open_now = "ended = 0 AND active_until > ? AND expires_at > ?"
            if db.execute(f"SELECT COUNT(*) FROM classes WHERE {open_now}",
                          (now, now)).fetchone()[0] >= limits.CLASS_MAX_OPEN_PER_SERVER:
                raise s.too_many_classes()
            if db.execute(f"SELECT COUNT(*) FROM classes WHERE started_by = ? AND {open_now}",
                          (teacher_hash, now, now)).fetchone()[0] >= limits.CLASS_OPEN_PER_TEACHER:
                raise s.too_many_classes_here("browser")
            if db.execute(f"SELECT COUNT(*) FROM classes WHERE address = ? AND {open_now}",
                          (address, now, now)).fetchone()[0] >= limits.CLASS_OPEN_PER_ADDRESS:
                raise s.too_many_classes_here("network")
            while True:
                code = s.new_code()
                if db.execute("SELECT 1 FROM classes WHERE code = ? UNION ALL SELECT 1 FROM ended_codes WHERE code = ?",
                              (code, code)).fetchone() is None:
                    break
            expires_at = now + limits.CLASS_LIFETIME_S
            db.execute("INSERT INTO classes (code, key_hash, created_at, expires_at, active_until, started_by, "
                       "address) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (code, s.hash_key(key), now, expires_at, s.active_until(now, expires_at), teacher_hash, address))
            db.execute("INSERT INTO teachers (code, teacher_hash) VALUES (?, ?)", (code, teacher_hash))
        return code, key

    def _purge(self, db: _Transaction, now: float) -> None:
        """Forget classes past their lifetime, with their students and votes (their codes alone are remembered for
        CLASS_ENDED_KEPT_S), and attempts older than the window."""
        gone = db.execute("SELECT code, expires_at FROM classes WHERE expires_at <= ?", (now,)).fetchall()
        for code, expired_at in gone:
            for table in ("votes", "students", "questions", "teachers", "classes"):
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
            db.execute("INSERT OR REPLACE INTO ended_codes (code, until) VALUES (?, ?)",
                       (code, expired_at + limits.CLASS_ENDED_KEPT_S))
            self._questions = {k: v for k, v in self._questions.items() if k[0] != code}
        db.execute("DELETE FROM ended_codes WHERE until <= ?", (now,))
        db.execute("DELETE FROM attempts WHERE at <= ?", (now - s.FAILURE_WINDOW_S,))

    def teacher_class(self, teacher: str) -> str | None:
        teacher = s.check_teacher(teacher)
        with self._read() as db:
            row = db.execute("SELECT c.code FROM teachers t JOIN classes c ON c.code = t.code WHERE t.teacher_hash = ? "
                             "AND c.expires_at > ? ORDER BY c.created_at DESC, c.rowid DESC LIMIT 1",
                             (s.hash_key(teacher), self.clock())).fetchone()
        return None if row is None else row[0]

    def claim(self, code: str, key: str, teacher: str) -> ClassState:
        code, teacher = s.normalise_code(code), s.check_teacher(teacher)
        with self._write() as db:
            row = self._row(db, code)
            if not s.key_matches(key, row[1]):
                raise s.not_teacher(code)
            teacher_hash = s.hash_key(teacher)
            known = db.execute("SELECT teacher_hash FROM teachers WHERE code = ?", (code,)).fetchall()
            if (teacher_hash,) not in known:
                if len(known) >= limits.CLASS_MAX_TEACHER_DEVICES:
                    raise s.too_many_devices(code)
                db.execute("INSERT INTO teachers (code, teacher_hash) VALUES (?, ?)", (code, teacher_hash))
            return self._state(db, row)

    def new_teacher_key(self, code: str, teacher: str) -> str:
        code = s.normalise_code(code)
        key = s.new_key()
        with self._write() as db:
            self._teacher(db, code, teacher)
            db.execute("UPDATE classes SET key_hash = ? WHERE code = ?", (s.hash_key(key), code))
        return key

    def touch(self, code: str, key: str) -> None:
        code = s.normalise_code(code)
        with self._write() as db:
            self._teacher(db, code, key)

    def state(self, code: str) -> ClassState:
        code = s.normalise_code(code)
        with self._read() as db:
            return self._state(db, self._row(db, code))

    def version(self, code: str) -> int:
        code = s.normalise_code(code)
        conn = self._take()
        try:
            row = conn.execute("SELECT version, expires_at, ended, active_until FROM classes WHERE code = ?",
                               (code,)).fetchone()
        except BaseException:
            conn.close()
            raise
        self._give(conn)
        now = self.clock()
        if row is None or row[1] <= now:
            with self._read() as db:
                raise self._gone(db, code)
        # a class that ended by itself changed without a teacher action: its readers must see it did
        return row[0] + (1 if not row[2] and row[3] <= now else 0)

    def pulse(self, code: str) -> s.Pulse:
        code = s.normalise_code(code)
        with self._read() as db:
            row = db.execute("SELECT version, expires_at, ended, active_until, students, question_id, round "
                             "FROM classes WHERE code = ?", (code,)).fetchone()
            now = self.clock()
            if row is None or row[1] <= now:
                raise self._gone(db, code)
            answered = 0 if row[5] is None else db.execute(
                "SELECT COUNT(*) FROM votes WHERE code = ? AND question_id = ? AND round = ?",
                (code, row[5], row[6])).fetchone()[0]
        return s.Pulse(row[0] + (1 if not row[2] and row[3] <= now else 0), row[4], answered)

    def _attempts(self, db: _Transaction, what: str, who: str, now: float) -> int:
        return db.execute("SELECT COUNT(*) FROM attempts WHERE what = ? AND who = ? AND at > ?",
                          (what, who, now - s.FAILURE_WINDOW_S)).fetchone()[0]

    def join(self, code: str, student_id: str, address: str = "") -> ClassState:
        address = s.check_address(address)
        student_id = s.check_student(student_id)
        code = s.normalise_code(code)
        now = self.clock()
        with self._write() as db:
            if self._attempts(db, WRONG_BY_BROWSER, student_id, now) >= limits.CLASS_JOIN_FAILURES_PER_MINUTE:
                raise s.too_many_failures("browser")
            if (self._attempts(db, WRONG_BY_ADDRESS, address, now)
                    >= limits.CLASS_JOIN_FAILURES_PER_ADDRESS_PER_MINUTE):
                raise s.too_many_failures("network")
            row = db.execute(f"SELECT {CLASS_COLUMNS} FROM classes WHERE code = ?", (code,)).fetchone()
            if row is None or row[2] <= now:
                if self._ended_long_ago(db, code):
                    raise s.ended(code)         # not a wrong code
                db.execute("DELETE FROM attempts WHERE at <= ?", (now - s.FAILURE_WINDOW_S,))
                db.execute("INSERT INTO attempts (what, who, at) VALUES (?, ?, ?), (?, ?, ?)",
                           (WRONG_BY_BROWSER, student_id, now, WRONG_BY_ADDRESS, address, now))
                db.commit_anyway = True
                raise s.unknown_code(code)
            if not self._open(row):
                raise s.ended(code)
            known = db.execute("SELECT 1 FROM students WHERE code = ? AND student_id = ?",
                               (code, student_id)).fetchone()
            if known is None:
                if self._attempts(db, JOINED_FROM, address, now) >= limits.CLASS_JOINS_PER_ADDRESS_PER_MINUTE:
                    raise s.too_many_joins()
                if row[11] >= limits.CLASS_MAX_STUDENTS:
                    raise s.class_full(code)
                db.execute("INSERT INTO students (code, student_id) VALUES (?, ?)", (code, student_id))
                db.execute("UPDATE classes SET students = students + 1 WHERE code = ?", (code,))
                db.execute("INSERT INTO attempts (what, who, at) VALUES (?, ?, ?)", (JOINED_FROM, address, now))
                row = row[:11] + (row[11] + 1,) + row[12:]
            return self._state(db, row)

    def follow(self, code: str, key: str, link: str) -> ClassState:
        code, link = s.normalise_code(code), s.check_link(link)
        with self._write() as db:
            self._teacher(db, code, key)
            db.execute("UPDATE classes SET link = ?, link_version = link_version + 1, version = version + 1 "
                       "WHERE code = ?", (link, code))
            return self._state(db, self._row(db, code))

    def ask(self, code: str, key: str, question: Question) -> ClassState:
        code, question = s.normalise_code(code), s.check_question(question)
        with self._write() as db:
            row = self._teacher(db, code, key)
            qid = (row[6] or 0) + 1
            if qid > limits.CLASS_MAX_QUESTIONS:
                raise s.too_many_questions()
            db.execute("INSERT INTO questions (code, question_id, body) VALUES (?, ?, ?)",
                       (code, qid, question.to_json()))
            db.execute("UPDATE classes SET question_id = ?, round = 1, locked = 0, revealed = 0, version = version + 1 "
                       "WHERE code = ?",
                       (qid, code))
            return self._state(db, self._row(db, code))

    def _current(self, row: tuple, question_id: int, round_: int) -> None:
        if row[6] is None:
            raise s.no_question()
        if question_id != row[6] or round_ != row[7]:
            raise s.not_current(question_id, round_)

    def vote(self, code: str, student_id: str, question_id: int, round: int, option: int) -> None:
        code, student_id = s.normalise_code(code), s.check_student(student_id)
        question_id, round_ = s.check_int(question_id, "question number"), s.check_int(round, "round")
        with self._write() as db:
            row = self._row(db, code)
            if not self._open(row):
                raise s.ended(code)
            if db.execute("SELECT 1 FROM students WHERE code = ? AND student_id = ?",
                          (code, student_id)).fetchone() is None:
                raise s.not_joined(code)
            self._current(row, question_id, round_)
            if row[8]:
                raise s.locked()
            s.check_option(question_id, self._question(db, code, question_id), option)
            db.execute("INSERT INTO votes (code, question_id, round, student_id, option) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT (code, question_id, round, student_id) DO UPDATE SET option = excluded.option",
                       (code, question_id, round_, student_id, option))

    def my_vote(self, code: str, student_id: str, question_id: int, round: int) -> int | None:
        code, student_id = s.normalise_code(code), s.check_student(student_id)
        question_id, round_ = s.check_int(question_id, "question number"), s.check_int(round, "round")
        with self._read() as db:
            self._row(db, code)
            found = db.execute("SELECT option FROM votes WHERE code = ? AND question_id = ? AND round = ? "
                               "AND student_id = ?", (code, question_id, round_, student_id)).fetchone()
            return None if found is None else found[0]

    def lock(self, code: str, key: str, locked: bool = True) -> ClassState:
        code = s.normalise_code(code)
        with self._write() as db:
            row = self._teacher(db, code, key)
            if row[6] is None:
                raise s.no_question()
            if not locked and row[9]:
                raise ValueError(_("This round is revealed; it cannot open again. Use vote again for a new round."))
            db.execute("UPDATE classes SET locked = ?, version = version + 1 WHERE code = ?", (int(bool(locked)), code))
            return self._state(db, self._row(db, code))

    def reveal(self, code: str, key: str) -> ClassState:
        code = s.normalise_code(code)
        with self._write() as db:
            row = self._teacher(db, code, key)
            if row[6] is None:
                raise s.no_question()
            db.execute("UPDATE classes SET locked = 1, revealed = 1, version = version + 1 WHERE code = ?", (code,))
            db.execute("UPDATE questions SET revealed = 1 WHERE code = ? AND question_id = ?", (code, row[6]))
            return self._state(db, self._row(db, code))

    def vote_again(self, code: str, key: str) -> ClassState:
        code = s.normalise_code(code)
        with self._write() as db:
            row = self._teacher(db, code, key)
            if row[6] is None:
                raise s.no_question()
            if row[7] >= limits.CLASS_MAX_ROUNDS:
                raise s.too_many_rounds()
            db.execute("UPDATE classes SET round = round + 1, locked = 0, revealed = 0, version = version + 1 "
                       "WHERE code = ?", (code,))
            db.execute("UPDATE questions SET rounds = ?, revealed = 0 WHERE code = ? AND question_id = ?",
                       (row[7] + 1, code, row[6]))
            return self._state(db, self._row(db, code))

    def show_live(self, code: str, key: str, on: bool) -> ClassState:
        code = s.normalise_code(code)
        with self._write() as db:
            self._teacher(db, code, key)
            db.execute("UPDATE classes SET live = ?, version = version + 1 WHERE code = ?", (int(bool(on)), code))
            return self._state(db, self._row(db, code))

    def counts(self, code: str, question_id: int, round: int, key: str | None = None) -> tuple[int, ...]:
        code = s.normalise_code(code)
        question_id, round_ = s.check_int(question_id, "question number"), s.check_int(round, "round")
        with self._read() as db:
            row = self._row(db, code)
            found = db.execute("SELECT rounds, revealed FROM questions WHERE code = ? AND question_id = ?",
                               (code, question_id)).fetchone()
            if key is not None:
                if not self._is_teacher(db, code, key, row[1]):
                    raise s.not_teacher(code)
            elif found is None or not found[1]:
                raise s.hidden_counts()
            if found is None:
                raise s.unknown_question(question_id)
            if not 1 <= round_ <= found[0]:
                raise s.unknown_round(question_id, round_)
            question = self._question(db, code, question_id)
            return self._counts(db, code, question_id, round_, len(question.options))

    def summary(self, code: str, key: str) -> list[QuestionSummary]:
        code = s.normalise_code(code)
        with self._read() as db:
            row = self._teacher(db, code, key, open_only=False)
            return self._summary(db, code, row[6])

    def end(self, code: str, key: str) -> list[QuestionSummary]:
        code = s.normalise_code(code)
        with self._write() as db:
            row = self._teacher(db, code, key, open_only=False)
            db.execute("UPDATE classes SET ended = 1, locked = 1, version = version + 1 WHERE code = ?", (code,))
            return self._summary(db, code, row[6])


    # --- the class view (engine.classroom.view) ------------------------------------------------------

    def put_view(self, code: str, key: str, view: str) -> None:
        code, view = s.normalise_code(code), s.check_view(view)
        with self._write() as db:
            self._teacher(db, code, key)
            db.execute("INSERT OR REPLACE INTO class_views (code, body) VALUES (?, ?)", (code, view))
            db.execute("DELETE FROM class_views WHERE code NOT IN (SELECT code FROM classes)")   # classes gone
            db.execute("UPDATE classes SET version = version + 1 WHERE code = ?", (code,))

    def view(self, code: str) -> str | None:
        code = s.normalise_code(code)
        with self._read() as db:
            self._row(db, code)
            found = db.execute("SELECT body FROM class_views WHERE code = ?", (code,)).fetchone()
        return found[0] if found else None


def _add_columns(conn: sqlite3.Connection) -> None:
    """A file written by an older app gets the columns added since (two processes may race: one adds each); its
    classes stay open until their old expiry."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(classes)")}
    if not have:                      # a new file: the schema makes the table whole
        return
    for name, declaration in ADDED_COLUMNS.items():
        if name in have:
            continue
        try:
            conn.execute(f"ALTER TABLE classes ADD COLUMN {name} {declaration}")
        except sqlite3.OperationalError as error:
            if "duplicate column" not in str(error):
                raise
        if name == "active_until":
            conn.execute("UPDATE classes SET active_until = expires_at WHERE active_until = 0")


class _Transaction:
    """`with` block around one transaction on a pooled connection: commit on success, roll back on an
    exception, except a refusal that must still be written (a wrong code counted against its client)."""

    def __init__(self, store: SqliteStore, begin: str):
        self.store, self.begin = store, begin
        self.commit_anyway = False

    def __enter__(self) -> _Transaction:
        self.conn = self.store._take()
        try:
            self.conn.execute(self.begin)
        except BaseException:
            self.conn.close()
            raise
        return self

    def execute(self, sql: str, params: tuple = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def __exit__(self, kind, value, tb) -> None:
        try:
            self.conn.execute("COMMIT" if kind is None or self.commit_anyway else "ROLLBACK")
        except BaseException:
            self.conn.close()
            raise
        self.store._give(self.conn)
