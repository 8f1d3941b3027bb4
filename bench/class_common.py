"""What the class benchmarks share (bench.classroom, its browser level bench.classroom_browser, bench.class_poll):
the bench's questions and the students' pace, the store a level runs against, and the figures every level
records (votes, what the projector showed, the processes' CPU)."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.timing import percentile  # noqa: F401  (the levels' figures: one percentile for every benchmark)
from engine import limits
from engine.classroom.store import Question

HOST = "127.0.0.1"
THINK_S = (1.0, 6.0)          # a student reads the question before answering
CHANGE_SHARE = 0.2            # ... and this share changes their answer once
QUESTION_CAP_S = 60.0         # the teacher waits at most this long for every answer


def question(i: int) -> Question:
    options = ("crane", "by", "the", "lake")
    return Question("attention", f"Bench question {i + 1}: which key gets the largest weight?", options,
                    answer=i % len(options), explanation="The bench's question.", link=f"n={i}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class StoreSetup:
    """The store a level runs against: a fresh SQLite data folder, or Redis (given or started here)."""

    def __init__(self, kind: str):
        self.kind = kind
        self.folder = tempfile.TemporaryDirectory(prefix="bench-classroom-")
        self.server: subprocess.Popen | None = None
        self.env: dict[str, str] = {}
        if kind == "sqlite":
            self.env = {"PLAYGROUND_DATA": self.folder.name}
            self.spec = str(Path(self.folder.name) / "classes.sqlite3")
        else:
            url = os.environ.get("PLAYGROUND_REDIS_URL", "").strip()
            if not url:
                binary = shutil.which("redis-server")
                if binary is None:
                    raise SystemExit("--store redis needs PLAYGROUND_REDIS_URL or Debian's redis-server installed.")
                port = free_port()
                self.server = subprocess.Popen([binary, "--port", str(port), "--bind", HOST, "--dir", self.folder.name,
                                                "--save", "", "--appendonly", "no"],
                                               stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
                url = f"redis://{HOST}:{port}/0"
                wait_for_redis(url)
            self.spec = url
            self.env = {"PLAYGROUND_REDIS_URL": url}

    def open(self):
        if self.kind == "sqlite":
            from engine.classroom.sqlite_store import SqliteStore
            return SqliteStore(self.spec)
        from engine.classroom.redis_store import RedisStore
        return RedisStore(self.spec)

    def server_pids(self) -> list[int]:
        return [self.server.pid] if self.server is not None else []

    def close(self) -> None:
        if self.server is not None:
            self.server.terminate()
            self.server.wait(timeout=10)
        self.folder.cleanup()


def wait_for_redis(url: str, cap_s: float = 20.0) -> None:
    import redis
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + cap_s
    while True:
        try:
            client.ping()
            return
        except redis.exceptions.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def cpu_ticks(pid: int) -> int:
    """utime + stime of a process and its reaped children, in clock ticks (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(v) for v in fields[11:15])
    except (FileNotFoundError, ProcessLookupError):
        return 0


def cpu_seconds(pids: list[int]) -> float:
    return sum(cpu_ticks(pid) for pid in pids) / os.sysconf("SC_CLK_TCK")


@dataclass
class Vote:
    sent: float          # wall time the student sent it
    question_id: int
    round: int
    student: str         # who sent it: a student counts once per round, however often they change their mind
    ok: bool | None      # the page (or the store) confirmed it; None: the connection broke with it in flight
    error: str = ""


@dataclass
class Result:
    store: str
    level: str
    students: int
    processes: int
    joined: int = 0
    votes: list[Vote] = field(default_factory=list)
    counted: int = 0
    projector: list[tuple[float, int, int, int]] = field(default_factory=list)   # (t, qid, round, answered)
    follow_delays: list[float] = field(default_factory=list)
    follow_moves: dict[str, list[float]] = field(default_factory=dict)   # the same delays, by the move (its page)
    question_delays: list[float] = field(default_factory=list)   # teacher asks -> the student's page shows it
    idle_cpu_s: float = 0.0
    idle_wall_s: float = 0.0
    idle_store_cpu_s: float = 0.0
    baseline_cpu_s: float = 0.0        # the servers with nobody connected, over as long as the idle window
    client_idle_cpu_s: float = 0.0     # the bench's own student sessions (level browser; not counted above)
    store_pids: list[int] = field(default_factory=list)
    teacher_poll_s: float = limits.CLASS_TEACHER_POLL_S
    student_poll_s: float = limits.CLASS_POLL_S
    errors: list[str] = field(default_factory=list)
    transport: str = "poll"            # students poll on their fragment's timer, or are told (push: ui.class_events)
    told: int = 0                      # push: events the students' parked requests were answered with

    def first_votes(self) -> dict[tuple[str, int, int], float]:
        """(student, question, round) -> when that student's first confirmed vote of the round was sent. A vote
        refused with a sentence does not count, and a later change of mind replaces a vote without adding one:
        so these are the votes the store must count (the check is sent == counted), whatever the order of a
        student's refusals, changes and confirmations."""
        first: dict[tuple[str, int, int], float] = {}
        for v in sorted(self.votes, key=lambda v: v.sent):
            if v.ok:
                first.setdefault((v.student, v.question_id, v.round), v.sent)
        return first

    @property
    def sent(self) -> int:
        return len(self.first_votes())

    @property
    def in_doubt(self) -> int:
        """Votes whose connection broke in flight, by students with no confirmed vote in that round: the store may
        or may not have counted them (sent == counted is then no check, and the report says so)."""
        confirmed = self.first_votes()
        return len({(v.student, v.question_id, v.round) for v in self.votes if v.ok is None}
                   - confirmed.keys())

    def delays(self) -> list[float]:
        """For each counted vote (a student's first confirmed one in a round): its send time to the first
        projector reading that includes it."""
        out = []
        by_round: dict[tuple[int, int], list[float]] = {}
        for (_, qid, round_), sent in self.first_votes().items():
            by_round.setdefault((qid, round_), []).append(sent)
        for key, times in by_round.items():
            seen = [(t, n) for t, q, r, n in self.projector if (q, r) == key]
            for rank, sent in enumerate(sorted(times), start=1):
                shown = next((t for t, n in seen if n >= rank and t >= sent), None)
                if shown is not None:
                    out.append(shown - sent)
        return out


