"""bench.classroom --level browser: the class in real Streamlit sessions (the app's websocket protocol).

P server processes behind HAProxy (deploy.serve's Farm) share the store under test. One teacher session
starts a class with the sidebar's button, reads its code from the page, changes page (everyone follows),
asks a question of its own through the "Ask the class" widgets, watches the answers on its live view
(its own timer), reveals, votes again. N student sessions, spread over two client processes, open the
join link (`/?class=CODE`) and either poll with the timers their pages register (as the browser does: a fragment
rerun every run_every seconds), answer each new round through the page's radio (a fragment rerun, as a click in the
browser sends) and follow the teacher (--transport poll), or do what the page's listener does (--transport push,
ui.class_events): park a request on the class's events route and, when told, fetch the question from its route,
answer by the vote route, fetch the reveal and a follower's view, with no rerun; the class's end reruns the
fragment by the listener's trigger.
"""
from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
import re
import tempfile
import time

from bench.class_common import CHANGE_SHARE, QUESTION_CAP_S, THINK_S, Result, StoreSetup, Vote, cpu_seconds
from bench.load import Meter, warm_up_all
from engine import limits
from bench.wsclient import ProtocolError, Session, widget_state
from websockets.exceptions import ConnectionClosed
from deploy.serve import Farm
from ui.class_events import TRANSPORT_ENV
from engine.classroom.view import SWITCH_ENV

HOST = "127.0.0.1"
JOIN_PAGE = ""                       # the join link opens the home page
PAGES = ("attention", "context", "attention")   # where the teacher takes the class, one per question
OPTIONS = ("crane", "by", "the", "lake")
ANSWER_KEY = "class.answer."
ANSWERED = re.compile(r"\*\*(\d+)\*\* of (\d+) answered")
CODE = re.compile(r"Class code \*\*([A-Z0-9]{8})\*\*")
TIMEOUT_S = 180.0
LISTENER = "playground_class_listener"   # the student's listener (ui.class_events): push parks where it would
PARK_WAIT_S = limits.CLASS_EVENTS_PARK_S + 15
BASELINE_S = 10.0                    # the idle server with nobody connected, measured first


# --- students (in client processes) ------------------------------------------------------------------
def fragment_of(s: Session, widget_id: str) -> str:
    for fragment, element in s.shown.values():
        kind = element.WhichOneof("type")
        if kind and getattr(getattr(element, kind), "id", None) == widget_id:
            return fragment
    return ""


async def student(index: int, port: int, code: str, seed: int, arrive_s: float, stop_at: float,
                  out: dict) -> None:
    """A polling student (--transport poll): its fragment reruns on the timer its page registers, and it answers
    through the page's radio (a fragment rerun, as a click in the browser sends)."""
    rng = random.Random(seed * 100_003 + index)
    await asyncio.sleep(rng.uniform(0, arrive_s))
    votes: list[Vote] = []
    pages: list[tuple[float, str]] = []
    answered: set[str] = set()
    due: list[tuple[float, str, int]] = []             # (when, widget key, option)
    in_flight: Vote | None = None                       # a vote sent whose page has not come back yet
    try:
        async with Session(HOST, port, timeout=TIMEOUT_S) as s:
            run = await s.open(JOIN_PAGE, f"class={code}")
            out["joined"] += 1
            last_page, last_view = s.page, None
            next_poll = {f: time.time() + interval for f, interval in s.auto_reruns.items()}
            while time.time() < stop_at:
                for key in [w.key for w in run.widgets.values()
                            if w.key.startswith(ANSWER_KEY) and not w.proto.disabled and w.key not in answered]:
                    answered.add(key)
                    out["seen"].append((time.time(), key))      # the question (this round) is on the page
                    when = time.time() + rng.uniform(*THINK_S)
                    option = rng.randrange(len(OPTIONS))
                    due.append((when, key, option))
                    if rng.random() < CHANGE_SHARE:
                        due.append((when + rng.uniform(0.5, 2.0), key, (option + 1) % len(OPTIONS)))
                if any("has ended" in t for t in run.infos):
                    break
                next_poll = {f: next_poll.get(f, time.time() + i) for f, i in s.auto_reruns.items()}
                soonest = min([*next_poll.values(), *(d[0] for d in due), stop_at])
                await asyncio.sleep(max(0.0, soonest - time.time()))
                now = time.time()
                ready = [d for d in due if d[0] <= now]
                if ready:
                    when, key, option = ready[0]
                    due.remove(ready[0])
                    widget = s.find(key, kind="radio")
                    if widget is None or widget.proto.disabled:
                        continue                        # not on this page now (or locked): not sent, not counted
                    _, _, qid, round_ = key.rsplit(".", 3)
                    s.states[widget.id] = widget_state(widget, option)
                    before = set(run.errors + run.exceptions)
                    in_flight = Vote(time.time(), int(qid), int(round_), f"student {index}", None)
                    run = await s.rerun(fragment_of(s, widget.id))
                    problems = [e for e in run.errors + run.exceptions if e not in before]
                    # counted only when the page says so: "Answer received: <this option>"
                    received = any(t.startswith(f"Answer received: {OPTIONS[option]}.") for t in run.successes)
                    in_flight.ok = received and not problems
                    in_flight.error = "" if in_flight.ok else ("; ".join(problems) or "no 'Answer received' shown")
                    votes.append(in_flight)
                    in_flight = None
                else:
                    fragment = min(next_poll, key=next_poll.get) if next_poll else None
                    if fragment is None:
                        continue
                    next_poll[fragment] += s.auto_reruns.get(fragment, 1.0)
                    run = await s.rerun(fragment, auto=True)
                shown = _view_page(run)         # a follower by the class view stays on its page: the view names it
                if shown is not None and shown != last_view:
                    last_view = shown
                    pages.append((time.time(), shown))
                if s.page != last_page:
                    last_page = s.page
                    pages.append((time.time(), s.page))
    except (ProtocolError, OSError, ConnectionClosed) as error:
        out["errors"].append(f"student {index}: {error}")
        if in_flight is not None:
            votes.append(in_flight)                     # ok None: it may or may not have been counted
    out["votes"].extend(votes)
    out["pages"].extend(pages)


async def push_student(index: int, port: int, code: str, seed: int, arrive_s: float, stop_at: float,
                       out: dict) -> None:
    """A student told by the events route, as the page's listener (ui.class_events) behaves: it parks on the route
    and, when told, draws what only displays with no rerun: the question fetched from the question route ("question
    seen" when its content arrives), the answer sent by the vote route ("Answer received" when it answers 200), the
    reveal by the question route, a follower's view fetched from view.json ("follow" when the view of the teacher's
    page arrives). What it cannot draw (the class's end) it asks of the fragment: a trigger and a rerun, as the
    listener does."""
    rng = random.Random(seed * 100_003 + index)
    await asyncio.sleep(rng.uniform(0, arrive_s))
    votes: list[Vote] = []
    pages: list[tuple[float, str]] = []
    in_flight: Vote | None = None
    last_view = None
    try:
        async with Session(HOST, port, timeout=TIMEOUT_S) as s:
            run = await s.open(JOIN_PAGE, f"class={code}")
            out["joined"] += 1
            found = s.component(LISTENER, run)
            for _ in range(20):                             # the first run may not have read the class yet
                if found is not None:
                    break
                await asyncio.sleep(0.5)
                found = s.component(LISTENER, run)
            if found is None:
                raise ProtocolError("no listener in the student's class box")
            listener, data = found
            since = int(data["since"])
            live: dict = {}                                 # what the listener draws: known, card, mine, view
            due: list[tuple[float, int, int, int]] = []     # (when, question, round, option)
            answered: set[tuple[int, int]] = set()

            def adopt(data: dict) -> None:
                live.update(data=data, known=dict(data.get("known") or {}), card=data.get("card"),
                            view=data.get("view"))
                shown(live["card"], live["known"].get("status"))

            def shown(card, status) -> None:
                """A question card drawn: seen, and its answer planned (once per round)."""
                if not card or status != "open" or (card["question"], card["round"]) in answered:
                    return
                slot = (card["question"], card["round"])
                answered.add(slot)
                out["seen"].append((time.time(), f"{ANSWER_KEY}{code}.{slot[0]}.{slot[1]}"))
                when = time.time() + rng.uniform(*THINK_S)
                option = rng.randrange(len(card["options"]))
                due.append((when, *slot, option))
                if rng.random() < CHANGE_SHARE:
                    due.append((when + rng.uniform(0.5, 2.0), *slot, (option + 1) % len(card["options"])))

            def view_arrived(view) -> None:
                nonlocal last_view
                page = (view or {}).get("view_link", "").partition("?")[0] if view and view.get("body") else None
                if page is not None and page != last_view:
                    last_view = page
                    pages.append((time.time(), page))

            adopt(data)
            view_arrived(live["view"])
            base = data["base"]
            lang = data.get("lang", "en")
            told = asyncio.ensure_future(s.get(f"{data['url']}?since={since}", PARK_WAIT_S))
            while time.time() < stop_at:
                soonest = min([d[0] for d in due] + [stop_at])
                await asyncio.wait({told}, timeout=max(0.0, soonest - time.time()))
                ready = [d for d in due if d[0] <= time.time()]
                if ready:
                    _, qid, round_, option = ready[0]
                    due.remove(ready[0])
                    card, known = live["card"], live["known"]
                    if not card or (card["question"], card["round"]) != (qid, round_) or known.get("status") != "open":
                        continue                            # moved on or locked: not sent, not counted
                    in_flight = Vote(time.time(), qid, round_, f"student {index}", None)
                    status, body = await s.post(f"{base}/vote?lang={lang}",
                                                {"question": qid, "round": round_, "option": option}, TIMEOUT_S)
                    in_flight.ok = status == 200
                    in_flight.error = "" if in_flight.ok else f"the vote route answered {status}: {body[:120]!r}"
                    votes.append(in_flight)
                    in_flight = None
                    continue
                if not told.done():
                    continue
                try:
                    status, body = told.result()
                except (OSError, asyncio.TimeoutError) as error:
                    status, body = 0, str(error).encode()
                if status == 200:
                    event = json.loads(body)
                    if event["version"] != since:
                        since = event["version"]
                        out["told"] += 1
                        run = await _told(s, listener, live, event, base, lang, shown, view_arrived)
                        if run is not None:
                            if any("has ended" in t for t in run.infos):
                                break
                            found = s.component(LISTENER, run)
                            if found is not None:
                                listener = found[0]
                                adopt(found[1])
                                view_arrived(live["view"])
                                since = max(since, int(found[1]["since"]))
                elif status in (404, 410):
                    break
                elif status != 204:
                    out["errors"].append(f"student {index}: the events route answered {status}: {body[:120]!r}")
                    await asyncio.sleep(1.0)
                told = asyncio.ensure_future(s.get(f"{data['url']}?since={since}", PARK_WAIT_S))
            told.cancel()
    except (ProtocolError, OSError, ConnectionClosed) as error:
        out["errors"].append(f"student {index}: {error}")
        if in_flight is not None:
            votes.append(in_flight)
    out["votes"].extend(votes)
    out["pages"].extend(pages)


async def _told(s: Session, listener, live: dict, event: dict, base: str, lang: str, shown, view_arrived):
    """What the listener does when told `event` (LISTENER_JS's `told`): draws it (None) or reruns the fragment (the
    run)."""
    data, known = live["data"], live["known"]
    new_round = event["question"] != known.get("question") or event["round"] != known.get("round")
    new_status = event["status"] != known.get("status")
    new_link = event["link_version"] != known.get("link_version")

    async def rerun():
        s.trigger(listener.id, "moved", event["version"])
        return await s.rerun(fragment_of(s, listener.id))
    if (not data.get("draws") or event["status"] == "ended"
            or (event["status"] == "none" and known.get("status") != "none")
            or (new_link and data.get("follows") and not data.get("follow_view"))):
        return await rerun()
    following = {"question": event["question"], "round": event["round"], "status": event["status"],
                 "link_version": event["link_version"], "link": event["link"]}
    revealing = event["status"] == "revealed" and (new_round or new_status)
    if (new_round or revealing) and event["question"] is not None:
        status, body = await s.get(f"{base}/question?lang={lang}&v={event['version']}", TIMEOUT_S)
        got = json.loads(body) if status == 200 else None
        if (not got or not got.get("card") or got["status"] == "ended"
                or (got["status"] == "revealed" and not got.get("reveal"))):
            return await rerun()
        if not data.get("follow_view") and got["card"]["page"] == data.get("page") and got["card"]["veiled"]:
            return await rerun()
        live["card"] = got["card"]
        live["reveal"] = got.get("reveal")
        following.update(question=got["question"], round=got["round"], status=got["status"])
        shown(got["card"], got["status"])
    view = live.get("view")
    if data.get("follow_view") and (new_link or new_round or new_status or not view
                                    or view.get("view_link") != event["link"]):
        have = (view or {}).get("digest", "")
        status, body = await s.get(f"{base}/view.json?lang={lang}&v={event['version']}&have={have}", TIMEOUT_S)
        if status == 200:
            got = json.loads(body)
            live["view"] = (view or {}) | got if got.get("same") else got
            view_arrived(live["view"])
        elif status in (404, 410):
            return await rerun()
    live["known"] = following
    return None


VIEW_LINK = re.compile(r'class="tp-view" data-link="([^"?]*)')


def _view_page(run) -> str | None:
    """The teacher's page a follower's class view shows in this run (engine.classroom.view), if any."""
    for body in run.htmls:
        found = VIEW_LINK.search(body)
        if found:
            return found.group(1)
    return None


def client_process(port: int, code: str, first: int, count: int, seed: int, arrive_s: float, stop_at: float,
                   idle: tuple[float, float], queue, push: bool = False) -> None:
    out = {"joined": 0, "votes": [], "pages": [], "errors": [], "seen": [], "told": 0}

    async def main():
        cpu = {}

        async def meter():
            for j, edge in enumerate(idle):
                await asyncio.sleep(max(0.0, edge - time.time()))
                cpu[j] = time.process_time()
        tasks = [(push_student(first + i, port, code, seed, arrive_s, stop_at, out) if push else
                  student(first + i, port, code, seed, arrive_s, stop_at, out)) for i in range(count)]
        await asyncio.gather(meter(), *tasks)
        out["client_idle_cpu_s"] = cpu.get(1, 0) - cpu.get(0, 0)
    asyncio.run(main())
    queue.put(out)


# --- the teacher (this process) -----------------------------------------------------------------------
async def teacher_poll(t: Session, until, record=None) -> None:
    """The teacher's live view on its own timers until `until()`; `record(answered)` after each."""
    async for run in t.timed_reruns(until):
        if record is not None:
            found = [ANSWERED.search(text) for text in run.texts]
            numbers = [int(m.group(1)) for m in found if m]
            if numbers:
                record(numbers[0])


async def class_run(port: int, store, students: int, questions: int, idle_s: float, seed: int,
                    result: Result, meter: Meter) -> None:
    push = result.transport == "push"
    t = Session(HOST, port, timeout=TIMEOUT_S)
    async with t:
        await t.open(JOIN_PAGE)
        run = await t.set("class_start", True, kind="button")
        codes = [m.group(1) for text in run.texts for m in [CODE.search(text)] if m]
        if not codes:
            raise RuntimeError("the teacher's page shows no class code after 'Start a class'")
        code = codes[0]
        arrive_s = max(10.0, students / 5)
        ramp_end = time.time() + arrive_s + 30
        idle = (ramp_end, ramp_end + idle_s)
        stop_at = idle[1] + questions * (QUESTION_CAP_S + 30) + 120
        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        clients = 2 if students >= 20 else 1
        share = [students // clients + (1 if c < students % clients else 0) for c in range(clients)]
        procs = [context.Process(target=client_process, args=(port, code, sum(share[:c]), share[c], seed, arrive_s,
                                                              stop_at, idle, queue, push)) for c in range(clients)]
        for p in procs:
            p.daemon = True                             # stopped with this process, even on SIGTERM
            p.start()
        # the teacher's page keeps polling while the class joins; joined = the store's count
        await teacher_poll(t, lambda: store.state(code).students >= students or time.time() > ramp_end)
        await teacher_poll(t, lambda: time.time() >= idle[0])
        cpu0 = meter.cpu_seconds()
        store_cpu0 = result_store_cpu(result)
        await teacher_poll(t, lambda: time.time() >= idle[1])
        result.idle_cpu_s = meter.cpu_seconds() - cpu0
        result.teacher_poll_s = min(t.auto_reruns.values(), default=float("nan"))
        result.student_poll_s = float("nan") if push else limits.CLASS_POLL_S
        result.idle_store_cpu_s = result_store_cpu(result) - store_cpu0
        result.idle_wall_s = idle_s
        follow_log: list[tuple[float, str]] = []
        asked: dict[tuple[int, int], float] = {}        # (question, round) -> when the teacher's click was done
        for i in range(questions):
            page = PAGES[i % len(PAGES)]
            follow_log.append((time.time(), page))      # the teacher's click: its link goes out as its run starts
            await t.open(page, f"class_bench={i}")      # everyone follow me: the teacher's link changes
            await teacher_poll(t, lambda s=time.time(): time.time() > s + 5)
            await t.set("class.free_prompt", f"Bench question {i + 1}: which key gets the largest weight?")
            await t.set("class.free_options", "\n".join(OPTIONS))
            await t.set("class.free_answer", 1 + i % len(OPTIONS))
            await t.set("class_ask_free", True, kind="button")
            state = store.state(code)
            for r in range(1, (2 if i == 1 else 1) + 1):
                if r > 1:
                    await t.set("class_again", True, kind="button")
                    state = store.state(code)
                qid, round_ = state.question_id, state.round
                asked[(qid, round_)] = time.time()      # the store holds it (the button's run has come back)
                seen = {"n": 0}
                deadline = time.time() + QUESTION_CAP_S

                def record(n, qid=qid, round_=round_, seen=seen):
                    seen["n"] = n
                    result.projector.append((time.time(), qid, round_, n))
                await teacher_poll(t, lambda: seen["n"] >= students or time.time() > deadline, record)
                late = time.time() + 3
                await teacher_poll(t, lambda: time.time() > late, record)
                await t.set("class_reveal", True, kind="button")
        await t.set("class_end", True, kind="button")
        for _ in procs:
            out = await queue_get(queue, stop_at - time.time() + 300)
            result.joined += out["joined"]
            result.votes.extend(out["votes"])
            result.errors.extend(out["errors"])
            result.client_idle_cpu_s += out["client_idle_cpu_s"]
            result.told += out["told"]
            for seen_at, key in out["seen"]:
                _, _, qid, round_ = key.rsplit(".", 3)
                if (int(qid), int(round_)) in asked:
                    result.question_delays.append(seen_at - asked[(int(qid), int(round_))])
            for seen_at, page in out["pages"]:
                asked = [at for at, p in follow_log if p == page and at <= seen_at]
                if asked:
                    result.follow_delays.append(seen_at - max(asked))
                    result.follow_moves.setdefault(page, []).append(seen_at - max(asked))
        for p in procs:
            p.join(timeout=60)
        result.counted = counted(store, code)


async def queue_get(queue, timeout_s: float):
    """queue.get without a thread the event loop would wait for on the way out (SIGTERM)."""
    import queue as queues
    deadline = time.time() + timeout_s
    while True:
        try:
            return queue.get_nowait()
        except queues.Empty:
            if time.time() > deadline:
                raise RuntimeError("the students' processes did not report back in time") from None
            await asyncio.sleep(0.5)


def counted(store, code: str) -> int:
    """Every counted answer of every revealed round (the reveal lets anyone read them)."""
    total, qid = 0, 1
    while True:
        try:
            store.counts(code, qid, 1)
        except ValueError:
            return total
        r = 1
        while True:
            try:
                total += sum(store.counts(code, qid, r))
            except ValueError:
                break
            r += 1
        qid += 1


def result_store_cpu(result: Result) -> float:
    return cpu_seconds(result.store_pids)


def run_browser_level(kind: str, students: int, processes: int, questions: int, idle_s: float, seed: int,
                      port: int, transport: str = "poll") -> Result:
    setup = StoreSetup(kind)
    result = Result(kind, "browser", students, processes, transport=transport)
    result.store_pids = setup.server_pids()
    locks = tempfile.TemporaryDirectory(prefix="bench-classroom-locks-")
    # the two designs side by side: poll is the design before issue 42 (every follower runs the teacher's page),
    # push the told one with followers shown the class view, made once per move
    env = dict(os.environ) | setup.env | {"PLAYGROUND_LOCKS": locks.name, TRANSPORT_ENV: transport,
                                          SWITCH_ENV: "1" if transport == "push" else "0"}
    try:
        with Farm(processes, port=port, first_backend_port=port + 1, address=HOST, env=env) as farm, \
                Meter(farm) as meter:
            asyncio.run(warm_up_all(farm.ports, {JOIN_PAGE, *PAGES}))
            meter.settle()
            cpu0 = meter.cpu_seconds()
            time.sleep(BASELINE_S)
            result.baseline_cpu_s = (meter.cpu_seconds() - cpu0) * idle_s / BASELINE_S
            store = setup.open()
            asyncio.run(class_run(port, store, students, questions, idle_s, seed, result, meter))
            store.close()
    finally:
        setup.close()
        locks.cleanup()
    return result
