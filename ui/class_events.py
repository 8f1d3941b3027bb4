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
  script parks a request on the route, and when the version moved it draws what only displays itself, with no
  rerun (the open question and its reveal fetched from ui.class_live's route, the answer sent by its vote route,
  "locked", a follower's class view), and calls `setTriggerValue("moved", version)` only for what it cannot draw
  (the class's end, a page's own veils): a page at rest costs the server one parked request, answered every
  CLASS_EVENTS_PARK_S, and a question asked costs one small fetch per student, not a rerun. After
  CLASS_EVENTS_FAILURES failed requests in a row (a proxy that blocks the route, a server that refuses it) it tells
  the page once (`unreachable`): the fragment then polls on its timer every CLASS_FALLBACK_POLL_S, draws everything
  with Streamlit's widgets, and the page says so once; the listener keeps trying, slowly, and says `reachable` when
  the route answers again (the timer stops).

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
# What it draws without a rerun (ui.class_live's routes, engine.classroom.live's cards): the open question (its
# options as buttons; a press votes by the vote route), "locked", the reveal, and a follower's class view. What it
# cannot draw (the class's end, a page's veils on the student's own page, a move for a page-running follower) it
# asks of the fragment: `moved`. Its element takes no room while it draws nothing.
LISTENER_CSS = """
.tp-live{font-size:1rem;line-height:1.5;max-width:100%;overflow-wrap:anywhere}
.tp-live .tp-q-title{margin:0 0 .5rem}
.tp-live fieldset{border:0;margin:0;padding:0;min-width:0}
.tp-live legend{font-size:.875rem;margin-bottom:.35rem;padding:0}
.tp-live .tp-q-options{display:flex;flex-direction:column;gap:.5rem}
.tp-live button{font:inherit;font-size:1rem;color:inherit;background:transparent;min-height:44px;cursor:pointer;
  border:1px solid rgba(128,128,128,.65);border-radius:.5rem;padding:.5rem .85rem;text-align:start;width:100%}
.tp-live button:focus-visible{outline:3px solid #1c6ee8;outline-offset:2px}
.tp-live button[aria-pressed="true"]{border:2px solid #1c6ee8;background:rgba(28,110,232,.12);font-weight:600}
.tp-live button[aria-pressed="true"]::before{content:"\\2713\\00a0"}
.tp-live fieldset:disabled button{cursor:not-allowed;opacity:.6}
.tp-live .tp-q-status:not(:empty){margin:.6rem 0 0;padding:.5rem .75rem;border-radius:.5rem;
  background:rgba(33,195,84,.12)}
.tp-live .tp-q-status.tp-locked{background:rgba(128,128,128,.12)}
.tp-live .tp-q-error:not(:empty){margin:.6rem 0 0;padding:.5rem .75rem;border-radius:.5rem;
  background:rgba(255,43,43,.1)}
.tp-live .tp-q-note,.tp-live .tp-v-caption,.tp-live .tp-v-note{font-size:.875rem;opacity:.85;margin:.4rem 0}
.tp-live .tp-q + .tp-v{margin-top:1rem}
.tp-live .tp-r-answer,.tp-live .tp-r-yours{margin:.4rem 0}
.tp-live .tp-r-chart{margin:.5rem 0;max-width:100%;overflow-x:auto}
.tp-live .tp-r-chart img{display:block}
.tp-live .tp-r-open{margin:.5rem 0;width:auto}
.tp-live .tp-v-explore{margin:.75rem 0 .25rem;width:auto;background:#1c6ee8;color:#fff;border-color:#1c6ee8}
"""

LISTENER_JS = """
const loops = (globalThis.__playgroundClassListeners ||= new Map());

function box(host) {
  return host.closest && host.closest('[data-testid="stElementContainer"]');
}

function esc(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
}

async function getJSON(url, init) {
  const request = new AbortController();
  const timer = setTimeout(() => request.abort(), 20000);
  try {
    const reply = await fetch(url, Object.assign({signal: request.signal, cache: 'no-store',
                                                  credentials: 'same-origin'}, init || {}));
    let body = null;
    try { body = await reply.json(); } catch (error) { body = null; }
    return {status: reply.status, body};
  } catch (error) {
    return {status: 0, body: null};
  } finally {
    clearTimeout(timer);
  }
}

function adopt(loop, data) {
  // what the page's run drew: the listener draws the same
  loop.data = data;
  loop.known = Object.assign({}, data.known);
  loop.card = data.card;
  loop.mine = data.mine;
  loop.view = data.view;
  loop.reveal = data.reveal;
  loop.error = '';
}

function drawReveal(loop) {
  // the revealed round, while the teacher is on its page (the reveal leaves with it, as a run of the page leaves it)
  const r = loop.reveal, known = loop.known;
  if (!r || r.question !== known.question || r.round !== known.round) return '';
  if (known.link && path(known.link) !== r.page) return '';
  const id = `tp-r-${r.question}-${r.round}`;
  const mine = loop.mine !== null && loop.mine !== undefined && r.yours.length ? r.yours[loop.mine] : '';
  return `<section class="tp-q tp-r" id="${id}" lang="${esc(r.lang)}" dir="${esc(r.dir)}" aria-labelledby="${id}-t">` +
    `<p class="tp-q-title" id="${id}-t">${r.title}</p>` +
    (r.answer ? `<p class="tp-r-answer">${r.answer}</p>` : '') + (mine ? `<p class="tp-r-yours">${mine}</p>` : '') +
    (r.chart ? `<figure class="tp-r-chart">${r.chart}</figure>` : '') +
    (r.explanation ? `<p class="tp-r-explanation">${r.explanation}</p>` : '') +
    (loop.data.page !== r.page ? `<button type="button" class="tp-r-open">${r.open}</button>` : '') + '</section>';
}

function drawQuestion(loop) {
  const c = loop.card, status = loop.known.status;
  if (loop.data.draws && status === 'revealed') return drawReveal(loop);
  if (!c || !loop.data.draws || (status !== 'open' && status !== 'locked')) return '';
  const locked = status === 'locked';
  const id = `tp-q-${c.question}-${c.round}`;
  const options = c.options.map((option, i) =>
    `<button type="button" class="tp-q-option" data-option="${i}" aria-pressed="${loop.mine === i}">` +
    `<bdi>${option}</bdi></button>`
  ).join('');
  const said = locked ? c.locked : (loop.mine !== null && loop.mine !== undefined ? c.received[loop.mine] : '');
  return `<section class="tp-q" id="${id}" lang="${esc(c.lang)}" dir="${esc(c.dir)}" aria-labelledby="${id}-t">` +
    `<p class="tp-q-title" id="${id}-t">${c.title}</p>` +
    `<fieldset${locked ? ' disabled' : ''}><legend>${c.legend}</legend><div class="tp-q-options">${options}</div>` +
    `</fieldset><p class="tp-q-status${locked ? ' tp-locked' : ''}" role="status" aria-live="polite">${said}</p>` +
    (c.again ? `<p class="tp-q-note">${c.again}</p>` : '') +
    `<p class="tp-q-error" role="alert">${esc(loop.error || '')}</p></section>`;
}

function drawView(loop) {
  const v = loop.view;
  if (!v || !loop.data.draws || !loop.data.follow_view) return '';
  const notes = v.notes.map((note) => `<p class="tp-v-note">${note}</p>`).join('');
  const explore = v.explore ? `<button type="button" class="tp-v-explore" title="${v.explore_help}">` +
                              `${v.explore}</button>` : '';
  return `<section class="tp-v" lang="${esc(v.lang)}" dir="${esc(v.dir)}">${notes}${v.body}${explore}` +
         `<p class="tp-v-caption">${v.caption}</p></section>`;
}

function draw(loop) {
  const host = loop.host;
  let root = host.querySelector(':scope > .tp-live');
  if (!root) {
    root = document.createElement('div');
    root.className = 'tp-live';
    root.innerHTML = '<div class="tp-live-q"></div><div class="tp-live-v"></div>';
    host.appendChild(root);
    root.addEventListener('click', (event) => {
      const button = event.target.closest && event.target.closest('button');
      if (!button || !root.contains(button)) return;
      const current = loops.get(root.dataset.key);
      if (!current) return;
      if (button.dataset.option !== undefined) vote(current, Number(button.dataset.option));
      else if (button.classList.contains('tp-v-explore')) current.trigger('explore', Date.now());
      else if (button.classList.contains('tp-r-open')) current.trigger('open', Date.now());
    });
  }
  root.dataset.key = loop.key;
  const question = drawQuestion(loop), view = drawView(loop);
  const q = root.querySelector('.tp-live-q'), v = root.querySelector('.tp-live-v');
  if (q.dataset.drawn !== question) { q.innerHTML = question; q.dataset.drawn = question; }
  if (v.dataset.drawn !== view) { v.innerHTML = view; v.dataset.drawn = view; }
  const element = box(host);
  if (element) element.style.display = (question || view) ? '' : 'none';
}

async function vote(loop, option) {
  const c = loop.card;
  if (!c || loop.known.status !== 'open' || loop.sending) return;
  loop.sending = true;
  const got = await getJSON(`${loop.data.base}/vote?lang=${encodeURIComponent(loop.data.lang)}`, {
    method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({question: c.question, round: c.round, option})});
  loop.sending = false;
  if (loop.card !== c) return;                      // the class moved on meanwhile
  if (got.status === 200) {
    loop.mine = option;
    loop.error = '';
  } else {
    loop.error = (got.body && got.body.error) || c.unsent;
  }
  draw(loop);
}

function path(link) {
  return (link || '').split('?')[0];
}

async function told(loop, event) {
  // the class moved to event.version: draw what only displays; ask the fragment for the rest
  const data = loop.data, known = loop.known;
  const rerun = () => { loop.trigger('moved', event.version); };
  if (!data.draws || event.status === 'ended' || event.status === 'none' && known.status !== 'none') return rerun();
  const newRound = event.question !== known.question || event.round !== known.round;
  const newStatus = event.status !== known.status;
  const newLink = event.link_version !== known.link_version;
  if (newLink && data.follows && !data.follow_view) return rerun();               // a page-running follower moves
  const next = {question: event.question, round: event.round, status: event.status,
                link_version: event.link_version, link: event.link};
  const revealing = event.status === 'revealed' && (newRound || newStatus);
  if ((newRound || revealing) && event.question !== null) {
    const got = await getJSON(`${data.base}/question?lang=${encodeURIComponent(data.lang)}&v=${event.version}`);
    const b = got.body;
    if (got.status !== 200 || !b || !b.card || b.status === 'ended') return rerun();
    if (b.status === 'revealed' && !b.reveal) return rerun();
    if (!data.follow_view && b.card.page === data.page && b.card.veiled) return rerun();   // this page's veils
    loop.card = b.card;
    loop.mine = b.mine;
    loop.reveal = b.reveal;
    loop.error = '';
    Object.assign(next, {question: b.question, round: b.round, status: b.status});
  }
  if (data.follow_view && (newLink || newRound || newStatus || !loop.view || loop.view.view_link !== event.link)) {
    const have = loop.view && loop.view.digest ? loop.view.digest : '';
    const got = await getJSON(`${data.base}/view.json?lang=${encodeURIComponent(data.lang)}&v=${event.version}` +
                              `&have=${have}`);
    if (got.status === 200 && got.body) loop.view = got.body.same ? Object.assign({}, loop.view, got.body) : got.body;
    else if (got.status === 404 || got.status === 410) return rerun();
  }
  loop.known = next;
  draw(loop);
}

function start(data, trigger, host, key) {
  const loop = {url: data.url, since: data.since, trigger, host, key, stopped: false, failures: 0,
                told: Boolean(data.fallback), current: null, sending: false};
  adopt(loop, data);
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
          try { await told(loop, event); } catch (error) { loop.trigger('moved', event.version); }
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
  let loop = loops.get(key);
  if (loop && !loop.stopped && loop.url === data.url && loop.since >= data.since) {
    loop.trigger = setTriggerValue;     // the request already parked carries on, for the newest mount
    loop.host = host;
    if (data.since >= loop.since) adopt(loop, data);    // the page's run is as new as what the listener drew
    else {
      // a run that began before the listener drew newer news: the listener keeps drawing what it knows
      loop.data = Object.assign({}, data, {known: loop.known});
    }
  } else {
    if (loop) loop.stop();
    loop = start(data, setTriggerValue, host, key);
    loops.set(key, loop);
  }
  draw(loop);
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

    return st.components.v2.component("playground_class_listener", js=LISTENER_JS, css=LISTENER_CSS,
                                      isolate_styles=False)


_listener = None


def listen(code: str, version: int, *, fallback: bool, on_moved, on_unreachable, on_reachable, on_explore=None,
           on_open=None, drawn: dict | None = None):
    """Mount the listener in the running fragment: it parks on the class's events from `version` on, and its
    triggers (`moved`, `unreachable`, `reachable`, `explore`, `open`) call the callbacks before the fragment's rerun
    they cause. `drawn`: what it draws until the class moves (ui.classroom: the question card, the student's vote, the
    reveal card, the view card: see LISTENER_JS's `adopt`); None: it draws nothing and asks for every move."""
    global _listener
    if _listener is None:
        _listener = _component()
    data = {"url": events_url(code), "since": int(version), "fallback": bool(fallback),
            "timeout_ms": int(1000 * (limits.CLASS_EVENTS_PARK_S + 10)), "failures": limits.CLASS_EVENTS_FAILURES,
            "base": f"/api/class/{code}", "draws": False, "known": {}, "card": None, "mine": None, "view": None,
            "reveal": None, "follows": False, "follow_view": False, "page": "", "lang": "en"}
    data |= drawn or {}
    return _listener(key=LISTENER_KEY, data=json.loads(json.dumps(data)), on_moved_change=on_moved,
                     on_unreachable_change=on_unreachable, on_reachable_change=on_reachable,
                     on_explore_change=on_explore or (lambda: None), on_open_change=on_open or (lambda: None))
