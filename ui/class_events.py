"""Students are told, not polling: the class's events route and the listener a student's page holds.

- The route, `GET /api/class/{code}/events?since=V` (mounted beside Streamlit's by app.py's `st.App`, ui.app_server):
  a long poll. The request parks until the class's version moves past V, then answers 200 with the class's event
  (engine.classroom.events: version, what changed, the question's number, round and status, the follow link, the
  tallies), or after CLASS_EVENTS_PARK_S with 204 (no change: ask again). `&seen=S.A` (joined, answered) also wakes
  on the tallies (a live view); `&counts=1` adds the current round's answers per option, for the class's teacher
  alone (their browser's signed cookie, never a key in a link). A code that cannot be one is 400, an unknown code
  404, an ended class 410, a server holding CLASS_EVENTS_MAX_PARKED requests 503 with Retry-After: each with its
  sentence as JSON ({"error": ...}). A request whose browser went away is dropped at once (its slot freed).
- One watcher per server process (engine.classroom.events.Watcher) follows the store for every parked request:
  SQLite read a few times a second, Redis told by pub/sub. Started with the first request, stopped by the lifespan.
- The listener (`listen`): a Streamlit components v2 component (no iframe) inside the student's class fragment. Its
  script parks a request on the route and calls `setTriggerValue("moved", version)` only when the version moved, so
  the fragment reruns only when there is something to draw (a page at rest costs the server one parked request,
  answered every CLASS_EVENTS_PARK_S). After CLASS_EVENTS_FAILURES failed requests in a row (a proxy that blocks the
  route, a server that refuses it) it tells the page once (`unreachable`): the fragment then polls on its timer
  every CLASS_FALLBACK_POLL_S, and the page says so once; the listener keeps trying, slowly, and says `reachable`
  when the route answers again (the timer stops).

Why a long poll and not server-sent events: every answer is a whole, short HTTP response, so no proxy in front
(HAProxy in deploy.serve, an nginx Ingress, a Space's own) can hold an event in a buffer, and a reply cut by a
proxy's timeout costs one retry, never a lost event (the next request names the version it drew). A parked request
costs the server one asyncio future; a rest of the class costs one response per student per CLASS_EVENTS_PARK_S.

PLAYGROUND_CLASS_TRANSPORT=poll turns the listener off (every student's fragment polls every CLASS_POLL_S, the
design before): bench.classroom --transport poll measures it beside push in one run.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os

from engine import limits
from engine.classroom import identity
from engine.classroom.events import STATUS_LOCKED, STATUS_OPEN, ClassGone, TooManyParked, Watcher
from engine.classroom.store import StoreUnavailable, normalise_code

EVENTS_PATH = "/api/class/{code}/events"
TRANSPORT_ENV = "PLAYGROUND_CLASS_TRANSPORT"   # "push" (the default) or "poll"
NO_STORE = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
RETRY_AFTER_S = 5

_watcher: Watcher | None = None
_watcher_loop = None
store_factory = None       # the store the watcher reads (None: engine.classroom.stores.open_store); tests set it


def pushing() -> bool:
    """Whether students are told (the default) or poll (PLAYGROUND_CLASS_TRANSPORT=poll)."""
    return os.environ.get(TRANSPORT_ENV, "push").strip().lower() != "poll"


def events_url(code: str) -> str:
    return EVENTS_PATH.format(code=code)


def watcher() -> Watcher:
    """This process's watcher, on the running event loop (made and started by the first request)."""
    global _watcher, _watcher_loop
    loop = asyncio.get_running_loop()
    if _watcher is None or _watcher_loop is not loop:
        if store_factory is not None:
            store = store_factory()
        else:
            from engine.classroom.stores import open_store
            store = open_store()
        _watcher, _watcher_loop = Watcher(store), loop
        _watcher.start()
    return _watcher


async def stop_watcher() -> None:
    global _watcher, _watcher_loop
    if _watcher is not None:
        await _watcher.stop()
    _watcher, _watcher_loop = None, None


# --- the route ----------------------------------------------------------------------------------------
def _said(status: int, sentence: str, headers: dict | None = None):
    from starlette.responses import JSONResponse

    return JSONResponse({"error": sentence}, status_code=status, headers=NO_STORE | (headers or {}))


def _whole(text: str | None, what: str, default: int) -> int:
    if text is None or text == "":
        return default
    if not text.lstrip("-").isdigit() or len(text) > 12:
        raise ValueError(f"'{text[:20]}' is not a {what}: a whole number.")
    return int(text)


def _seen(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    students, _, answered = text.partition(".")
    return _whole(students, "count of students", 0), _whole(answered, "count of answers", 0)


async def _gone_away(request) -> None:
    """Returns when the browser closed the request (a reload, a page left): its parked slot is freed at once."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


def _teacher_counts(request, code: str, event: dict, store) -> list[int] | None:
    """The current round's answers per option, when the request comes from a teacher browser of the class."""
    from engine.classroom.stores import identity_secret

    browser = identity.verify(request.cookies.get(identity.COOKIE_NAME), identity_secret())
    if browser is None or not event.get("question"):
        return None
    try:
        return list(store.counts(code, event["question"], event["round"], key=identity.teacher_credential(browser)))
    except ValueError:                 # not this class's teacher (or the class moved on): no counts
        return None


async def class_events(request):
    """GET /api/class/{code}/events?since=V[&seen=S.A][&counts=1]: see the module's docstring."""
    from starlette.responses import JSONResponse, Response

    try:
        code = normalise_code(request.path_params.get("code", ""))
        since = _whole(request.query_params.get("since"), "version", -1)
        seen = _seen(request.query_params.get("seen"))
    except ValueError as error:
        return _said(400, str(error))
    watch = watcher()
    waiting = asyncio.ensure_future(watch.wait(code, since, seen))
    leaving = asyncio.ensure_future(_gone_away(request))
    try:
        await asyncio.wait({waiting, leaving}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        leaving.cancel()
        if not waiting.done():
            waiting.cancel()
    await asyncio.gather(leaving, waiting, return_exceptions=True)    # the cancelled one has let go of its slot
    if waiting.cancelled():
        return Response(status_code=204, headers=NO_STORE)   # nobody is there to read it
    try:
        event = waiting.result()
    except ClassGone as gone:
        return _said(410 if gone.ended else 404, str(gone))
    except TooManyParked as busy:
        return _said(503, f"{busy} Try again in a few seconds.", {"Retry-After": str(RETRY_AFTER_S)})
    except StoreUnavailable as error:
        return _said(503, str(error), {"Retry-After": str(RETRY_AFTER_S)})
    except ValueError as error:
        return _said(400, str(error))
    if event is None:
        return Response(status_code=204, headers=NO_STORE)
    body = dict(event)
    if request.query_params.get("counts") == "1" and event["status"] in (STATUS_OPEN, STATUS_LOCKED):
        counts = await asyncio.to_thread(_teacher_counts, request, code, event, watch.store)
        if counts is not None:
            body["counts"] = counts
    return JSONResponse(body, headers=NO_STORE)


def routes() -> list:
    from starlette.routing import Route

    return [Route(EVENTS_PATH, class_events, methods=["GET"])]


@contextlib.asynccontextmanager
async def lifespan(app):
    """The watcher starts with the first request; the server's end stops it (its parked requests answer 204)."""
    try:
        yield
    finally:
        await stop_watcher()


# --- the listener (in the student's page) -----------------------------------------------------------------
LISTENER_JS = """
const loops = (globalThis.__playgroundClassListeners ||= new Map());

function hide(host) {
  // the listener draws nothing: its element takes no room in the class box
  const box = host.closest && host.closest('[data-testid="stElementContainer"]');
  if (box) box.style.display = 'none';
}

function start(data, trigger, host) {
  const loop = {url: data.url, since: data.since, trigger, host, stopped: false, failures: 0,
                told: Boolean(data.fallback), current: null};
  loop.stop = () => { loop.stopped = true; if (loop.current) loop.current.abort(); };
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));
  (async () => {
    while (!loop.stopped) {
      if (!loop.host.isConnected) { loop.stop(); break; }
      const request = new AbortController();
      loop.current = request;
      const timer = setTimeout(() => request.abort(), data.timeout_ms);
      let reply = null, event = null;
      try {
        reply = await fetch(`${loop.url}?since=${loop.since}`, {signal: request.signal, cache: 'no-store',
                                                               credentials: 'same-origin'});
        if (reply.status === 200) event = await reply.json();
      } catch (error) {
        reply = null;
      } finally {
        clearTimeout(timer);
      }
      if (loop.stopped) break;
      if (reply && (reply.status === 200 || reply.status === 204)) {
        loop.failures = 0;
        if (loop.told) { loop.told = false; loop.trigger('reachable', Date.now()); }
        if (event && event.version !== loop.since) {
          loop.since = event.version;
          loop.trigger('moved', event.version);
        }
        continue;
      }
      if (reply && (reply.status === 404 || reply.status === 410 || reply.status === 400)) {
        loop.trigger('moved', -1);   // the page reads the class and says what became of it
        loop.stop();
        break;
      }
      loop.failures += 1;
      if (loop.failures >= data.failures && !loop.told) {
        loop.told = true;
        loop.trigger('unreachable', Date.now());
      }
      const backoff = Math.min(30000, 1000 * 2 ** Math.min(loop.failures, 5));
      await pause(backoff * (0.5 + Math.random()));
    }
  })();
  return loop;
}

export default function (component) {
  const {data, key, setTriggerValue, parentElement} = component;
  const host = parentElement.host || parentElement;
  hide(host);
  let loop = loops.get(key);
  if (loop && !loop.stopped && loop.url === data.url && loop.since >= data.since) {
    loop.trigger = setTriggerValue;     // the request already parked carries on, for the newest mount
    loop.host = host;
  } else {
    if (loop) loop.stop();
    loop = start(data, setTriggerValue, host);
    loops.set(key, loop);
  }
  const owner = {};
  loop.owner = owner;
  return () => {
    if (loop.owner === owner) { loop.stop(); loops.delete(key); }
  };
}
"""

LISTENER_KEY = "class_listener"


def _component():
    import streamlit as st

    return st.components.v2.component("playground_class_listener", js=LISTENER_JS, isolate_styles=False)


_listener = None


def listen(code: str, version: int, *, fallback: bool, on_moved, on_unreachable, on_reachable):
    """Mount the listener in the running fragment: it parks on the class's events from `version` on, and its
    triggers (`moved`, `unreachable`, `reachable`) call the callbacks before the fragment's rerun they cause."""
    global _listener
    if _listener is None:
        _listener = _component()
    data = {"url": events_url(code), "since": int(version), "fallback": bool(fallback),
            "timeout_ms": int(1000 * (limits.CLASS_EVENTS_PARK_S + 10)), "failures": limits.CLASS_EVENTS_FAILURES}
    return _listener(key=LISTENER_KEY, data=json.loads(json.dumps(data)), on_moved_change=on_moved,
                     on_unreachable_change=on_unreachable, on_reachable_change=on_reachable)
