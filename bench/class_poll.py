"""What one idle poll of a class costs the server, ours against Streamlit's own floor.

    python -m bench.class_poll [--students 40] [--seconds 30] [--profile FOLDER]

A student's page in a class reruns its class fragment every CLASS_POLL_S (st.fragment(run_every=...)), also
when nothing changed. This bench starts one `streamlit run` per case on a free loopback port, holds N student
sessions on it (bench/wsclient.py, the app's websocket protocol) that poll on their pages' own timers, and reads
the server process's CPU over a window of idle polling:

- floor, empty: a page whose fragment draws nothing (bench/poll_floor_page.py?draw=0): Streamlit's floor;
- floor, one line: the same fragment drawing one line of text;
- class, waiting: the app, N students joined to a class with no question yet;
- class, question: the same with a question open that every student has answered (the radio and
  "answer received" on screen), the state a class idles in while the rest of the room answers;
- follow: the teacher moves the class to another page three times; each student's delay until their page is
  there, and the server's CPU per student per move beyond the polling (each move is a run of the whole page).

It prints, per case, the server's CPU per poll (ms) and per student per minute, and each case against the
empty floor. `--profile FOLDER` samples each case's server with py-spy (when installed): FOLDER/<case>.txt.
Timings on a shared machine are noisy: read the ratios, taken in one run.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time

from bench.browser import free_port
from bench.class_common import cpu_seconds, percentile
from bench.wsclient import Session, widget_state
from engine import limits
from engine.classroom.store import Question

HOST = "127.0.0.1"
SETTLE_S = 3.0


def serve(script: str, env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    from deploy.serve import start, wait_healthy

    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
               "--server.address", HOST, "--server.headless", "true", "--server.fileWatcherType", "none",
               "--browser.gatherUsageStats", "false"]
    process = start(command, env=dict(os.environ) | env | {"PLAYGROUND_WARM_UP": "0"})
    wait_healthy(f"http://{HOST}:{port}", process, script)
    return process, port


async def poll(s: Session, until, counter: list[int], moves: list | None = None, phase: float = 1.0) -> None:
    """Rerun the page's timed fragments on their own periods until `until` (a time, or a function that says when
    to stop: what the browser's timer does), the first after `phase` of a period (browsers' timers started when
    each page loaded, so a room's polls are spread); `moves` gets (time, page) whenever a rerun moved the page."""
    if not callable(until):
        until = (lambda at: lambda: time.time() >= at)(until)
    page = s.page
    async for _ in s.timed_reruns(until, phase):
        counter[0] += 1
        if moves is not None and s.page != page:
            moves.append((time.time(), s.page))
        page = s.page


async def measure(port: int, pid: int, page: str, query: str, students: int, seconds: float,
                  before_idle=None, profile: str | None = None, keep_open: bool = False) -> dict:
    """Open `students` sessions on page?query, let them poll, and read the server's CPU over `seconds`
    (`keep_open`: the sessions come back open, under "sessions")."""
    sessions = [Session(HOST, port, timeout=120) for _ in range(students)]
    for s in sessions:
        await s.__aenter__()
    try:
        for i, s in enumerate(sessions):
            await s.open(page, query)
            await asyncio.sleep(limits.CLASS_POLL_S / students)      # spread the timers over one period
        if before_idle is not None:
            await before_idle(sessions)
        counter = [0]
        settle = time.time() + SETTLE_S
        until = settle + seconds
        tasks = [asyncio.create_task(poll(s, until, counter, phase=(i + 1) / students))
                 for i, s in enumerate(sessions)]
        await asyncio.sleep(max(0.0, settle - time.time()))
        profiler = None
        if profile and shutil.which("py-spy"):
            profiler = subprocess.Popen(["py-spy", "record", "--pid", str(pid), "--format", "raw", "--output", profile,
                                         "--duration", str(int(seconds)), "--rate", "250"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        cpu0, polls0, t0 = cpu_seconds([pid]), counter[0], time.time()
        await asyncio.gather(*tasks)
        cpu, polls, wall = cpu_seconds([pid]) - cpu0, counter[0] - polls0, time.time() - t0
        if profiler is not None:
            profiler.wait(timeout=60)
    except BaseException:
        keep_open = False
        raise
    finally:
        if not keep_open:
            for s in sessions:
                await s.__aexit__()
    row = {"cpu_s": cpu, "polls": polls, "wall_s": wall, "students": students}
    return row | {"sessions": sessions} if keep_open else row


FOLLOW_LINKS = ("attention", "context?k=2", "attention")   # where the teacher takes the class, one move each
MOVE_CAP_S = 120.0


async def measure_follow(port: int, pid: int, store, students: int, profile: str | None = None) -> dict:
    """`students` sessions in a class on the home page; the teacher moves the class (store.follow, what the
    teacher's run publishes) through FOLLOW_LINKS, waiting each time until every student's page is there.
    Returns each student's delay from the teacher's move to their page there, and the server's CPU per move
    beyond the idle polling (measured just before)."""
    code, key = store.create_class("bench-teacher")
    async with Session(HOST, port, timeout=120) as warm:       # every page's first visit in this process
        for link in FOLLOW_LINKS:
            await warm.open(*link.partition("?")[::2])
    idle = await measure(port, pid, "", f"class={code}", students, 10.0, keep_open=True)
    sessions, counter = idle.pop("sessions"), [0]
    delays, cpu_moves, walls, clients = [], [], [], []
    profiler = None
    if profile and shutil.which("py-spy"):
        profiler = subprocess.Popen(["py-spy", "record", "--pid", str(pid), "--format", "raw", "--output", profile,
                                     "--rate", "250"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        for link in FOLLOW_LINKS:
            path = link.partition("?")[0]
            moves: list[tuple[float, str]] = []
            done = {"at": None}

            def stop(d=done) -> bool:
                return d["at"] is not None and time.time() > d["at"]
            tasks = [asyncio.create_task(poll(s, stop, counter, moves, phase=(i + 1) / students))
                     for i, s in enumerate(sessions)]
            cpu0, client0, t0 = cpu_seconds([pid]), time.process_time(), time.time()
            store.follow(code, key, link)
            while len({id(s) for s in sessions if s.page == path}) < students and time.time() < t0 + MOVE_CAP_S:
                await asyncio.sleep(0.05)
            wall = time.time() - t0
            cpu_moves.append(cpu_seconds([pid]) - cpu0 - idle["cpu_s"] / idle["wall_s"] * wall)
            walls.append(wall)
            clients.append(time.process_time() - client0)
            done["at"] = time.time()
            await asyncio.gather(*tasks)                # a rerun that moved a page records it once it finished
            delays.extend(t - t0 for t, page in moves if page == path)
            await asyncio.sleep(2.0)
    finally:
        if profiler is not None:
            profiler.send_signal(2)
            profiler.wait(timeout=60)
        for s in sessions:
            await s.__aexit__()
        store.end(code, key)
    return {"delays": delays, "cpu_moves": cpu_moves, "walls": walls, "clients": clients, "students": students}


def report_follow(row: dict) -> None:

    n, delays = row["students"], row["delays"]
    per_move = [1000 * c / n for c in row["cpu_moves"]]
    print(f"follow the teacher, {n} students, {len(row['cpu_moves'])} moves ({', '.join(FOLLOW_LINKS)}): "
          f"{len(delays)} page moves seen, p50 {percentile(delays, 0.5):.2f} s, p95 {percentile(delays, 0.95):.2f} s; "
          f"last student there after {', '.join(f'{w:.1f}' for w in row['walls'])} s; server CPU beyond the polling "
          f"{', '.join(f'{c:.0f}' for c in per_move)} ms per student per move (this bench's own client, which a "
          f"browser replaces, used {', '.join(f'{1000 * c / n:.0f}' for c in row['clients'])} ms per student per move)")


def report(name: str, row: dict, floor: dict | None) -> None:
    per_poll = 1000 * row["cpu_s"] / max(row["polls"], 1)
    per_minute = 1000 * row["cpu_s"] / row["students"] / (row["wall_s"] / 60)
    line = (f"{name:<28} {row['polls']:>6} polls in {row['wall_s']:.0f} s, server CPU {row['cpu_s']:.2f} s: "
            f"{per_poll:.2f} ms a poll, {per_minute:.0f} ms per student per minute")
    if floor is not None and floor["polls"]:
        floor_poll = 1000 * floor["cpu_s"] / floor["polls"]
        line += f" ({per_poll / floor_poll:.2f} x the empty floor)"
    print(line, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--profile", help="a folder for py-spy's raw stacks of each case's server over its idle window "
                                          "(py-spy must be installed; it adds its own sampling cost to the figures)")
    parser.add_argument("--cases", nargs="+", default=["floor0", "floor1", "waiting", "question", "follow"],
                        choices=["floor0", "floor1", "waiting", "question", "follow"])
    args = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; students poll every "
          f"{limits.CLASS_POLL_S:g} s; {args.students} students, {args.seconds:g} s of idle polling per case")
    data = tempfile.TemporaryDirectory(prefix="bench-class-poll-")
    env = {"PLAYGROUND_DATA": data.name}
    rows: dict[str, dict] = {}

    def profile(case: str) -> str | None:
        if not args.profile:
            return None
        os.makedirs(args.profile, exist_ok=True)
        return os.path.join(args.profile, f"{case}.txt")
    try:
        for case, draw in (("floor0", "0"), ("floor1", "1")):
            if case not in args.cases:
                continue
            process, port = serve("bench/poll_floor_page.py", env)
            try:
                rows[case] = asyncio.run(measure(port, process.pid, "", f"draw={draw}", args.students, args.seconds,
                                                    profile=profile(case)))
            finally:
                process.terminate()
                process.wait(timeout=30)
        if {"waiting", "question", "follow"} & set(args.cases):
            from engine.classroom.sqlite_store import SqliteStore

            store = SqliteStore(os.path.join(data.name, "classes.sqlite3"))
            process, port = serve("app.py", env)
            try:
                if "waiting" in args.cases:
                    code, key = store.create_class("bench-teacher")
                    rows["waiting"] = asyncio.run(measure(port, process.pid, "", f"class={code}", args.students,
                                                          args.seconds, profile=profile("waiting")))
                    store.end(code, key)
                if "question" in args.cases:
                    code, key = store.create_class("bench-teacher")
                    store.ask(code, key, Question("attention", "Which key gets the largest weight?",
                                                  ("crane", "by", "the", "lake"), answer=3))

                    async def answer(sessions):
                        """Each student answers through the page's radio (the fragment's rerun, as a click sends)."""
                        for i, s in enumerate(sessions):
                            fragment = next(iter(s.auto_reruns))
                            widget = next((w for w in s.widgets.values() if w.key.startswith("class.answer.")), None)
                            if widget is None:
                                await s.rerun(fragment, auto=True)
                                widget = next(w for w in s.widgets.values() if w.key.startswith("class.answer."))
                            s.states[widget.id] = widget_state(widget, i % 4)
                            await s.rerun(fragment)
                    rows["question"] = asyncio.run(measure(port, process.pid, "", f"class={code}", args.students,
                                                           args.seconds, before_idle=answer,
                                                           profile=profile("question")))
                    counts = store.counts(code, store.state(code).question_id, 1, key)
                    print(f"(question case: {sum(counts)} of {args.students} answers counted)")
                if "follow" in args.cases:
                    rows["follow"] = asyncio.run(measure_follow(port, process.pid, store, args.students,
                                                                profile=profile("follow")))
            finally:
                process.terminate()
                process.wait(timeout=30)
                store.close()
    finally:
        data.cleanup()
    floor = rows.get("floor0")
    names = {"floor0": "floor, fragment draws nothing", "floor1": "floor, fragment draws a line",
             "waiting": "class, no question yet", "question": "class, question answered"}
    for case, row in rows.items():
        if case == "follow":
            report_follow(row)
        else:
            report(names[case], row, floor if case != "floor0" else None)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
