"""A classroom at once: N students running a scripted lesson against `streamlit run app.py`.

    python -m bench.load [--sessions 1 10 30] [--processes 1 2] [--pace lesson|stress] [--actions K]
                         [--port 8671] [--trainers 3] [--seed 0]

For each N (and each count of server processes P) the script starts a fresh server on 127.0.0.1
(P > 1: P Streamlit processes behind HAProxy, started by deploy.serve's Farm, each student kept
on one process by HAProxy's cookie), warms every process's shared caches with one visit to every
page, waits for the server's background prefetch (ui/warmup.py) to finish, as
a teacher's server would have before the class, then opens N sessions that speak Streamlit's own websocket protocol
(`bench/wsclient.py`): each session is a real server session that runs the real page
scripts, exactly as a browser tab would, without the browser's rendering cost. Every
session follows the lesson below (pages not yet in `ui/path.py` are skipped), pausing
before each action (--pace lesson: 2-8 s, a student reading the result before the next
change; --pace stress: 0.3-1.5 s, clicking without reading; --actions K: each student stops
after K actions, a short smoke run); a few sessions also train on the block
page. It prints, per page, the p50/p95/max time from sending a change to the script
finishing, the throughput (interactions per second), the errors (exceptions, dropped streams,
timeouts), the server's memory (resident, and PSS: shared pages split between the processes
that share them, from /proc/PID/smaps_rollup, summed over every Streamlit process and its
children) and CPU seconds, against the issue's goals: at 30 sessions p95 <= 1 s on
non-training pages, no errors, memory <= 1.5 GiB per process + 50 MiB per session. Given
several process counts (--processes 1 2), it prints their figures side by side.

Loopback only; every loop is bounded; the server is stopped at the end of each level.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench.timing import percentile
from bench.wsclient import ProtocolError, Run, Session, another_value
from deploy import haproxy
from deploy.serve import Farm

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
MIB = 1024 * 1024
BASE_BUDGET_MIB = 1536
PER_SESSION_BUDGET_MIB = 50
P95_GOAL_S = 1.0
ACTION_TIMEOUT_S = 120.0
TRAIN_TIMEOUT_S = 240.0
TRAIN_BUDGET_S = 15      # seconds of training each trainer asks for
LEVEL_CAP_S = 900.0
GENERIC_KINDS = ("checkbox", "selectbox", "slider", "radio", "number_input")
NOT_GENERIC = re.compile(r"train|stop|reset|clear|upload|delete", re.IGNORECASE)
TRAINING = "training"


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)   # st.error shown to a student during the lesson
    trainings: list[tuple[float, bool]] = field(default_factory=list)   # (wall s, waited in line)
    skipped: set[str] = field(default_factory=set)
    servers: Counter = field(default_factory=Counter)    # students per process (HAProxy's cookie)


class LessonOver(Exception):
    """The student has made the --actions they were given."""


class Student(Session):
    """A session that stops after `actions` interactions (None: the whole lesson)."""

    def __init__(self, host: str, port: int, timeout: float, actions: int | None = None):
        super().__init__(host, port, timeout=timeout)
        self.actions_left = actions


# --- the lesson ---------------------------------------------------------------------------
def attention_matrix(rng: random.Random) -> str:
    """The chapter's crane-by-the-lake X with one student's edits."""
    rows = {"crane": [0.8, 0.1, 0.4], "by": [0.0, 1.0, 0.1], "the": [0.1, 0.9, 0.0], "lake": [0.7, 0.2, 0.5]}
    word = rng.choice(list(rows))
    rows[word][rng.randrange(3)] = round(rng.uniform(-1, 1), 2)
    return "\n".join(f"{name}: " + ", ".join(str(v) for v in values) for name, values in rows.items())


async def generic_change(s: Session, rng: random.Random, stats: Stats, page: str, count: int = 1) -> None:
    """Change `count` ordinary widgets of the page (toggle, select, slider) to another value."""
    for _ in range(count):
        choices = [w for w in s.widgets.values() if w.kind in GENERIC_KINDS and not NOT_GENERIC.search(w.label)]
        if not choices:
            return
        widget = rng.choice(sorted(choices, key=lambda w: w.id))
        value = another_value(widget)
        if value is None:
            continue
        await act(s, stats, page, s.set(widget, value))


async def click(s: Session, rng: random.Random, stats: Stats, page: str, label: str) -> bool:
    """Press the first button whose label matches; False when the page has none."""
    button = s.find(label, kind="button")
    if button is None:
        return False
    await act(s, stats, page, s.set(button, True))
    return True


async def act(s: Student, stats: Stats, page: str, interaction) -> Run | None:
    """Await one interaction, recording its latency and anything that went wrong."""
    if s.actions_left is not None:
        if s.actions_left <= 0:
            interaction.close()
            raise LessonOver
        s.actions_left -= 1
    try:
        run = await interaction
    except (ProtocolError, KeyError, ValueError, OSError) as error:
        stats.errors.append(f"{page}: {type(error).__name__}: {error}")
        return None
    stats.latencies[page].append(run.seconds)
    stats.errors.extend(f"{page}: {e}" for e in run.exceptions)
    stats.sentences.extend(f"{page}: {e}" for e in run.errors)
    return run


async def train(s: Session, stats: Stats) -> None:
    """Set a short time budget and press Train on the block page; follow the page's live
    progress (a fragment the browser reruns every second) until the run is recorded."""
    button = s.find(r"^train$", kind="button")
    if button is None:
        stats.skipped.add("block: no Train button")
        return
    budget = s.find("bb_seconds")
    if budget is not None:
        await act(s, stats, "block", s.set(budget, TRAIN_BUDGET_S))
        button = s.find(r"^train$", kind="button")
    start = time.perf_counter()
    s.timeout = TRAIN_TIMEOUT_S
    waited = False
    try:
        run = await act(s, stats, TRAINING, s.set(button, True))
        while run is not None and s.auto_reruns and time.perf_counter() - start < TRAIN_TIMEOUT_S:
            fragment, interval = next(iter(s.auto_reruns.items()))
            await asyncio.sleep(interval)
            run = await act(s, stats, TRAINING, s.rerun(fragment_id=fragment, auto=True))
            waited = waited or (run is not None and any("Waiting for a free slot" in t for t in run.infos))
    finally:
        s.timeout = ACTION_TIMEOUT_S
    stats.trainings.append((time.perf_counter() - start, waited))


@dataclass(frozen=True)
class Pace:
    """How long a student pauses before each action, and how quickly the class opens the link (s)."""
    name: str
    think: tuple[float, float]
    arrive: float


PACES = {
    # a lesson: the teacher asks for a change, each student makes it, then reads the page
    "lesson": Pace("lesson", (2.0, 8.0), 10.0),
    # no reading at all: every student clicks about once a second (finds the breaking point)
    "stress": Pace("stress", (0.3, 1.5), 3.0),
}


async def lesson(index: int, port: int, seed: int, trainer: bool, stats: Stats, pages: set[str],
                 pace: Pace = PACES["lesson"], actions: int | None = None) -> None:
    rng = random.Random(seed * 1000 + index)

    async def think() -> None:
        await asyncio.sleep(rng.uniform(*pace.think))

    await asyncio.sleep(rng.uniform(0, pace.arrive))   # students open the link within a few seconds
    try:
        async with Student(HOST, port, ACTION_TIMEOUT_S, actions) as s:
            stats.servers[s.cookies.get(haproxy.COOKIE, "one process")] += 1

            async def visit(url: str) -> bool:
                if url not in pages:
                    stats.skipped.add(url)
                    return False
                await think()
                run = await act(s, stats, url or "home", s.open(url))
                return run is not None

            await visit("")
            if await visit("tokens"):
                await think()
                await generic_change(s, rng, stats, "tokens")
            if await visit("ngram"):
                await think()
                if not await click(s, rng, stats, "ngram", r"sample|generate"):
                    await generic_change(s, rng, stats, "ngram")
                await think()
                await generic_change(s, rng, stats, "ngram")
            if await visit("embeddings"):
                await think()
                if not await click(s, rng, stats, "embeddings", r"analog|solve|compute"):
                    await generic_change(s, rng, stats, "embeddings")
                await think()
                await generic_change(s, rng, stats, "embeddings")
            if await visit("context"):
                await think()
                await act(s, stats, "context", s.set("context.k", [rng.randint(0, 3)]))
            if await visit("attention"):
                await think()
                await act(s, stats, "attention", s.set("attention.x", attention_matrix(rng)))
                await think()
                await act(s, stats, "attention", s.set("attention.causal", True))
                await think()
                await act(s, stats, "attention", s.set("attention.scaled", False))
            if await visit("multi-head"):
                await think()
                await generic_change(s, rng, stats, "multi-head")
            if await visit("heads"):
                await think()
                await generic_change(s, rng, stats, "heads", count=2)
            if await visit("position"):
                await think()
                await generic_change(s, rng, stats, "position")
            if await visit("block"):
                await think()
                if trainer:
                    await train(s, stats)
                else:
                    await generic_change(s, rng, stats, "block")
            if await visit("generate"):
                await think()
                if not await click(s, rng, stats, "generate", r"sample|generate"):
                    await generic_change(s, rng, stats, "generate")
            if await visit("beyond"):
                await think()
                await generic_change(s, rng, stats, "beyond", count=2)
    except LessonOver:
        pass
    except (OSError, ProtocolError, asyncio.TimeoutError) as error:
        stats.errors.append(f"session {index}: {type(error).__name__}: {error}")


# --- the server -----------------------------------------------------------------------------
def descendants(pid: int) -> list[int]:
    """pid and every process below it."""
    found, stack = [], [pid]
    while stack:
        current = stack.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                stack.extend(int(c) for c in (task / "children").read_text().split())
            except OSError:
                pass
    return found


def status_bytes(pid: int, field: str = "VmRSS") -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    raise ValueError(f"no {field} for {pid}")


def pss_bytes(pid: int) -> int:
    """Proportional set size: private pages plus each shared page divided by its sharers."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    raise ValueError(f"no Pss for {pid}")


class Meter:
    """Memory and CPU of a Farm's Streamlit processes and their children, sampled every 0.5 s."""

    def __init__(self, farm: Farm):
        self.farm = farm
        self.peak_rss = self.peak_pss = 0
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> "Meter":
        self._sampler.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()

    def pids(self) -> list[int]:
        """The Streamlit processes, their children, and the preloaded parent they were forked from."""
        shared = self.farm.fork_server_pid()
        return [p for pid in self.farm.server_pids() for p in descendants(pid)] + ([shared] if shared else [])

    def _sum(self, measure) -> int:
        total = 0
        for pid in self.pids():
            try:
                total += measure(pid)
            except (OSError, ValueError):   # a child that has just exited
                pass
        return total

    def rss(self) -> int:
        return self._sum(status_bytes)

    def pss(self) -> int:
        return self._sum(pss_bytes)

    def cpu_seconds(self) -> float:
        def ticks(pid: int) -> int:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])
        return self._sum(ticks) / os.sysconf("SC_CLK_TCK")

    def settle(self, quiet_s: float = 2.0, cap_s: float = 240.0) -> float:
        """Wait until the processes together have used under 5% of a CPU for quiet_s (their
        background warm-up, ui/warmup.py, done); returns the seconds waited."""
        start = time.perf_counter()
        while time.perf_counter() - start < cap_s:
            before = self.cpu_seconds()
            time.sleep(quiet_s)
            if self.cpu_seconds() - before < 0.05 * quiet_s:
                break
        return time.perf_counter() - start

    def reset_peak(self) -> None:
        self.peak_rss, self.peak_pss = self.rss(), self.pss()

    def _sample(self) -> None:
        while not self._stop.wait(0.5):
            self.peak_rss = max(self.peak_rss, self.rss())
            self.peak_pss = max(self.peak_pss, self.pss())


def registered_pages() -> set[str]:
    from ui.path import ideas
    return {""} | {idea.url for idea in ideas()}


async def warm_up(port: int, pages: set[str]) -> dict[str, float]:
    """One visit to every page, so shared caches (corpus, vectors, model) are loaded once per process."""
    seconds = {}
    async with Session(HOST, port, timeout=TRAIN_TIMEOUT_S) as s:
        for url in sorted(pages):
            try:
                seconds[url or "home"] = (await s.open(url)).seconds
            except ProtocolError as error:
                seconds[url or "home"] = float("nan")
                print(f"  warm-up of {url!r} failed: {error}", file=sys.stderr)
    return seconds


async def warm_up_all(ports: list[int], pages: set[str]) -> dict[str, float]:
    """Every process warmed at once, each on its own port (not through the balancer); the slowest
    first visit of each page."""
    visits = await asyncio.gather(*(warm_up(port, pages) for port in ports))
    return {page: max(v[page] for v in visits) for page in visits[0]}


async def level(n: int, port: int, trainers: int, seed: int, pages: set[str], pace: Pace,
                actions: int | None = None) -> Stats:
    stats = Stats()
    tasks = [lesson(i, port, seed, i < trainers, stats, pages, pace, actions) for i in range(n)]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), LEVEL_CAP_S)
    except asyncio.TimeoutError:
        stats.errors.append(f"the level did not finish within {LEVEL_CAP_S:.0f} s")
    return stats


@dataclass
class Measured:
    """What the server processes used during one level."""
    processes: int
    wall: float
    cpu: float
    idle_rss: int
    peak_rss: int
    idle_pss: int
    peak_pss: int
    warm: dict[str, float]


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else many or word + 's'}"


def report(n: int, stats: Stats, m: Measured) -> dict:
    interactions = sum(len(v) for k, v in stats.latencies.items() if k != TRAINING)
    budget = BASE_BUDGET_MIB * m.processes + PER_SESSION_BUDGET_MIB * n
    front = "behind HAProxy" if m.processes > 1 else "no balancer"
    print(f"\n=== N = {plural(n, 'session')}, {plural(m.processes, 'server process', 'server processes')} "
          f"({front}) ===")
    print(f"wall {m.wall:.0f} s; {interactions} interactions, {interactions / m.wall:.2f} per second; server CPU "
          f"{m.cpu:.1f} s ({1000 * m.cpu / max(interactions, 1):.0f} ms per interaction)")
    if m.processes > 1:
        print("students per process (HAProxy's cookie): "
              + ", ".join(f"{server} {count}" for server, count in sorted(stats.servers.items())))
    print(f"server resident memory, summed: after warm-up {m.idle_rss / MIB:.0f} MiB, peak {m.peak_rss / MIB:.0f} MiB "
          f"(goal <= {budget} MiB: {'met' if m.peak_rss / MIB <= budget else 'MISSED'}); "
          f"per session {(m.peak_rss - m.idle_rss) / MIB / n:.1f} MiB")
    print(f"server PSS (shared pages split between processes), summed: after warm-up {m.idle_pss / MIB:.0f} MiB, "
          f"peak {m.peak_pss / MIB:.0f} MiB")
    print("first visit while warming up (cold caches): "
          + ", ".join(f"{k} {v:.1f} s" for k, v in m.warm.items()))
    print(f"{'page':<12} {'n':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    worst_p95, page_p95 = 0.0, {}
    for page, values in sorted(stats.latencies.items(), key=lambda kv: kv[0] == TRAINING):
        p95 = page_p95[page] = percentile(values, 0.95)
        if page != TRAINING:
            worst_p95 = max(worst_p95, p95)
        print(f"{page:<12} {len(values):>5} {1000 * statistics.median(values):>8.0f} {1000 * p95:>8.0f} "
              f"{1000 * max(values):>8.0f}")
    if stats.trainings:
        print(f"trainings ({TRAIN_BUDGET_S} s budget each): {len(stats.trainings)}, wall from Train to recorded (s): "
              + ", ".join(f"{t:.1f}{' (queued)' if waited else ''}" for t, waited in sorted(stats.trainings)))
    print(f"errors: {len(stats.errors)}" + "".join(f"\n  {e[:300]}" for e in stats.errors[:10]))
    if stats.sentences:
        print(f"st.error sentences during the lesson: {len(stats.sentences)}"
              + "".join(f"\n  {e[:200]}" for e in sorted(set(stats.sentences))[:5]))
    if stats.skipped:
        print("skipped (not in the app yet): " + ", ".join(sorted(stats.skipped)))
    print(f"goal at this N: non-training p95 {1000 * worst_p95:.0f} ms (<= {1000 * P95_GOAL_S:.0f}: "
          f"{'met' if worst_p95 <= P95_GOAL_S else 'MISSED'}), errors {len(stats.errors)} "
          f"({'met' if not stats.errors else 'MISSED'})")
    return {"n": n, "processes": m.processes, "p95": worst_p95, "errors": len(stats.errors),
            "interactions": interactions, "throughput": interactions / m.wall,
            "cpu_ms": 1000 * m.cpu / max(interactions, 1), "peak_mib": m.peak_rss / MIB, "budget_mib": budget,
            "idle_pss_mib": m.idle_pss / MIB, "peak_pss_mib": m.peak_pss / MIB, "page_p95": page_p95}


def side_by_side(rows: list[dict]) -> None:
    """For each N, the process counts in columns."""
    for n in sorted({row["n"] for row in rows}):
        level_rows = sorted((r for r in rows if r["n"] == n), key=lambda r: r["processes"])
        print(f"\nN = {plural(n, 'session')}: " + " vs ".join(plural(r["processes"], "process", "processes")
                                                             for r in level_rows))
        print(f"{'':<28}" + "".join(f"{plural(r['processes'], 'process', 'processes'):>14}" for r in level_rows))
        figures = [("interactions per second", "throughput", "{:.2f}"), ("worst non-training p95 ms", "p95", "ms"),
                   ("errors", "errors", "{}"), ("server CPU ms / interaction", "cpu_ms", "{:.0f}"),
                   ("PSS after warm-up MiB", "idle_pss_mib", "{:.0f}"), ("PSS peak MiB", "peak_pss_mib", "{:.0f}"),
                   ("RSS peak (summed) MiB", "peak_mib", "{:.0f}")]
        for label, key, form in figures:
            cells = [f"{1000 * r[key]:.0f}" if form == "ms" else form.format(r[key]) for r in level_rows]
            print(f"{label:<28}" + "".join(f"{c:>14}" for c in cells))
        pages = sorted({p for r in level_rows for p in r["page_p95"]}, key=lambda p: (p == TRAINING, p))
        for page in pages:
            cells = [f"{1000 * r['page_p95'][page]:.0f}" if page in r["page_p95"] else "-" for r in level_rows]
            print(f"{'p95 ms ' + page:<28}" + "".join(f"{c:>14}" for c in cells))


def run_level(n: int, processes: int, args: argparse.Namespace, pages: set[str], pace: Pace) -> dict:
    """A fresh server (P processes), warmed, then N students; the level's report."""
    with tempfile.TemporaryFile("w+") as log:
        try:
            with Farm(processes, port=args.port, first_backend_port=args.port + 1, address=HOST,
                      backend_stderr=log) as farm, Meter(farm) as meter:
                warm = asyncio.run(warm_up_all(farm.ports, pages))
                warm["background prefetch (ui/warmup.py)"] = meter.settle()
                meter.reset_peak()
                idle_rss, idle_pss = meter.peak_rss, meter.peak_pss
                cpu0, t0 = meter.cpu_seconds(), time.perf_counter()
                stats = asyncio.run(level(n, args.port, min(args.trainers, n), args.seed, pages, pace, args.actions))
                wall, cpu = time.perf_counter() - t0, meter.cpu_seconds() - cpu0
                peak_rss, peak_pss = max(meter.peak_rss, meter.rss()), max(meter.peak_pss, meter.pss())
        except RuntimeError as error:          # a process that did not start: say why, with its log
            log.seek(0)
            raise RuntimeError(f"{error}\n{log.read()[-2000:]}") from None
    measured = Measured(processes, wall, cpu, idle_rss, peak_rss, idle_pss, peak_pss, warm)
    return report(n, stats, measured) | {"pace": pace.name}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--processes", type=int, nargs="+", default=[1],
                        help="server processes (more than 1: behind HAProxy, as deploy.serve runs them); "
                             "several counts are compared side by side")
    parser.add_argument("--port", type=int, default=8671, help="the public port; processes use the ports above it")
    parser.add_argument("--trainers", type=int, default=3, help="sessions that also train on the block page")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pace", choices=sorted(PACES), default="lesson",
                        help="lesson: 2-8 s between a student's actions (default); stress: 0.3-1.5 s")
    parser.add_argument("--actions", type=int, default=None,
                        help="each student stops after this many actions (default: the whole lesson)")
    args = parser.parse_args()
    pace = PACES[args.pace]
    if any(n < 1 or n > 100 for n in args.sessions):
        parser.error("sessions must be between 1 and 100")
    if any(p < 1 or p > 16 for p in args.processes):
        parser.error("processes must be between 1 and 16")
    if args.actions is not None and args.actions < 1:
        parser.error("actions must be at least 1")
    if max(args.processes) > 1:
        try:
            haproxy.binary()
        except haproxy.HAProxyMissing as missing:
            parser.error(str(missing))
    pages = registered_pages()
    print(f"pages in the app: {', '.join(sorted(p or 'home' for p in pages))}")
    print(f"pace: {pace.name}, {pace.think[0]:g}-{pace.think[1]:g} s between a student's actions, the class "
          f"arriving over {pace.arrive:g} s" + (f"; each student stops after {args.actions} actions"
                                                if args.actions else ""))
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start "
          "(other work on a shared machine inflates every latency below)")
    summary = [run_level(n, processes, args, pages, pace) for n in args.sessions for processes in args.processes]
    print("\nsummary-json: " + json.dumps(summary))
    print("\nN     P   worst non-training p95   errors   interactions/s   PSS peak   peak RSS / goal")
    for row in summary:
        print(f"{row['n']:<5} {row['processes']:<3} {1000 * row['p95']:>15.0f} ms {row['errors']:>9} "
              f"{row['throughput']:>16.2f} {row['peak_pss_mib']:>6.0f} MiB   {row['peak_mib']:.0f} / "
              f"{row['budget_mib']} MiB")
    if len(args.processes) > 1:
        side_by_side(summary)


if __name__ == "__main__":
    main()
