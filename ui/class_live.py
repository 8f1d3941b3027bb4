"""What a student's listener fetches and sends without a Streamlit rerun (mounted beside the events route by
ui.app_server.routes):

- `GET /api/class/{code}/question?lang=xx&v=V`: the class's current round as the listener draws it
  (engine.classroom.live: the prompt, the options and the sentences around them as escaped HTML in that language,
  made once per process per class, question, round and language), its status, and this browser's own answer to it
  (from its signed cookie, as ui.classroom.student_id finds it; never anyone else's). `"card": null` while none was
  asked. Once the round is revealed, `"reveal"` too: the answer, the room's share of it, the class's answers chart
  (engine.classroom.live.reveal_card, its counts read once per process: they no longer change).
- `POST /api/class/{code}/vote?lang=xx`, JSON `{"question": Q, "round": R, "option": O}`: this browser's answer, by
  the store's own call and rules (one vote per student and round, changeable until locked, every limit the store
  enforces). The student is the cookie's, never the body's. Same origin only (Sec-Fetch-Site, else Origin against
  Host): a page of another site cannot vote for a student.
- `GET /api/class/{code}/view.json?lang=xx&v=V&have=D`: a follower's class view (engine.classroom.view) with its veils
  applied and the sentences around it, made and serialized once per process per class version and language; without
  its body where the page already holds that body (`have`: its digest), as when the teacher moved and the new view is
  still being made (the page shows "moved on", and is sent the new body once, when it is stored).

Each answers a refusal with its sentence as JSON ({"error": ...}, in the request's language): 400 for a code that
cannot be one or a malformed vote, 403 for another site or a browser without its cookie, 404 an unknown code, 409 a
vote the store refused (locked, not the current round, not joined), 410 an ended class. Store reads run on a worker
thread; the class's state is read once per version per process (SharedVersions, at the version the events watcher
last read, and at least `v`, the version the page was told).
"""
from __future__ import annotations

import asyncio
import functools
import gzip
import hashlib
import json
from urllib.parse import urlsplit

from engine import i18n, limits
from engine.classroom import identity
from engine.classroom.events import STATUS_ENDED, STATUS_LOCKED, STATUS_OPEN, STATUS_REVEALED, status_of
from engine.classroom.live import Cards, question_card, reveal_card, view_card
from engine.classroom.store import SharedVersions, StoreUnavailable, normalise_code, unknown_code
from engine.i18n import _

QUESTION_PATH = "/api/class/{code}/question"
VOTE_PATH = "/api/class/{code}/vote"
VIEW_PATH = "/api/class/{code}/view.json"
NO_STORE = {"Cache-Control": "no-store"}

cards = Cards()                        # this process's question and view cards (ui.classroom draws the same)
_shared: dict[int, SharedVersions] = {}


def shared(store) -> SharedVersions:
    """The state reads this process's routes share, for `store`."""
    found = _shared.get(id(store))
    if found is None or found.store is not store:
        _shared.clear()
        found = _shared[id(store)] = SharedVersions(store)
    return found


def _said(status: int, sentence: str):
    from starlette.responses import JSONResponse

    return JSONResponse({"error": sentence}, status_code=status, headers=NO_STORE)


def _student(request) -> str | None:
    from engine.classroom.stores import identity_secret

    browser = identity.verify(request.cookies.get(identity.COOKIE_NAME), identity_secret())
    return identity.student_id(browser) if browser is not None else None


def _lang(request) -> str:
    found = i18n.language(request.query_params.get("lang"))
    return found.code if found is not None else i18n.SOURCE


def same_origin(request) -> bool:
    """Whether the request comes from a page of this site: the browser's Sec-Fetch-Site where it sends one, else its
    Origin against the Host it asked (a request with neither is refused: a browser's POST carries one)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    origin = request.headers.get("origin")
    return bool(origin) and urlsplit(origin).netloc.lower() == request.headers.get("host", "").lower()


def _state(watch, code: str, told: int = -1):
    """The class's state at (at least) the version the events watcher last read, and at least `told` (the version the
    page was told); one read per version per process. Where the watcher does not follow the class, or is behind what
    the page was told (another process told it), the version is read now."""
    versions = shared(watch.store)
    version = watch.known_version(code)
    if version is None or version < told:
        version = versions.version(code, fresh=True)
    return versions.state(code, version), version


def _told(request) -> int:
    text = request.query_params.get("v", "")
    return int(text) if text.isdigit() and len(text) <= 12 else -1


def _gone(state) -> bool:
    return status_of(state) == STATUS_ENDED


def ended(code: str) -> str:
    """What a student reads once the class has ended (the listener and the class box alike)."""
    return _("Class {code} has ended. Thank you for taking part.", code=code)


def question_of(state, lang: str) -> dict | None:
    """The current round's question card (cached per class, question, round and language), or None."""
    if state.question_id is None:
        return None
    return cards.get(("question", state.code, state.question_id, state.round, lang), lambda: question_card(state, lang))


def reveal_of(state, lang: str, read_counts) -> dict | None:
    """The revealed round's card (cached per class, question, round and language; `read_counts(round)` reads one
    round's answers per option), or None."""
    if state.question_id is None or not state.revealed:
        return None
    return cards.get(("reveal", state.code, state.question_id, state.round, lang),
                     lambda: reveal_card(state, [read_counts(r) for r in range(1, state.round + 1)], lang))


def _question_body(watch, code: str, lang: str, student: str | None, told: int) -> tuple[int, dict]:
    with i18n.use(lang):
        try:
            state, version = _state(watch, code, told)
        except ValueError as error:
            return (503 if isinstance(error, StoreUnavailable) else 404), {"error": str(error)}
        if _gone(state):
            return 410, {"error": ended(code)}
        status = status_of(state)
        card = question_of(state, lang)
        body = {"version": version, "status": status, "question": state.question_id, "round": state.round,
                "link_version": state.link_version, "card": card, "mine": None, "reveal": None}
        if status == STATUS_REVEALED:
            try:
                body["reveal"] = reveal_of(state, lang, lambda r: watch.store.counts(code, state.question_id, r))
            except ValueError as error:
                return (503 if isinstance(error, StoreUnavailable) else 404), {"error": str(error)}
        if card is not None and student is not None and status in (STATUS_OPEN, STATUS_LOCKED, STATUS_REVEALED):
            try:
                body["mine"] = watch.store.my_vote(code, student, state.question_id, state.round)
            except ValueError:
                body["mine"] = None
        return 200, body


def _asked(request):
    """(the reader's language, the class code, None), or a refusal to send back: 400 with the code's sentence in the
    reader's language where the link names no code that can be one."""
    lang = _lang(request)
    try:
        return lang, normalise_code(request.path_params.get("code", "")), None
    except ValueError as error:
        with i18n.use(lang):
            return lang, "", _said(400, str(error))


async def class_question(request):
    """GET /api/class/{code}/question?lang=xx: see the module's docstring."""
    from starlette.responses import JSONResponse

    from ui import class_events

    lang, code, refused = _asked(request)
    if refused is not None:
        return refused
    status, body = await asyncio.to_thread(_question_body, class_events.watcher(), code, lang, _student(request),
                                         _told(request))
    return JSONResponse(body, status_code=status, headers=NO_STORE)


def _vote(store, code: str, student: str, question: int, round_: int, option: int, lang: str) -> tuple[int, dict]:
    with i18n.use(lang):
        try:
            store.vote(code, student, question, round_, option)
        except StoreUnavailable as error:
            return 503, {"error": str(error)}
        except ValueError as error:
            return (404 if str(error) == str(unknown_code(code)) else 409), {"error": str(error)}
        return 200, {"question": question, "round": round_, "option": option}


def _whole(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 10 ** 9:
        raise ValueError
    return value


async def class_vote(request):
    """POST /api/class/{code}/vote?lang=xx: see the module's docstring."""
    from starlette.responses import JSONResponse

    from ui import class_events

    lang = _lang(request)
    with i18n.use(lang):
        if not same_origin(request):
            return _said(403, _("This answer came from a page of another site, so it was not counted: answer on the "
                                "class's own page."))
        try:
            code = normalise_code(request.path_params.get("code", ""))
        except ValueError as error:
            return _said(400, str(error))
        student = _student(request)
        if student is None:
            return _said(403, _("This browser has no class identity yet, so the answer was not counted: reload the "
                                "page and answer again."))
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > limits.CLASS_VOTE_BODY_BYTES:
                return _said(400, _("An answer is a question number, a round and an option, at most {most} bytes.",
                                    most=limits.CLASS_VOTE_BODY_BYTES))
        try:
            sent = json.loads(body)
            question, round_, option = (_whole(sent[name]) for name in ("question", "round", "option"))
        except (ValueError, TypeError, KeyError):
            return _said(400, _("An answer is a question number, a round and an option, at most {most} bytes.",
                                most=limits.CLASS_VOTE_BODY_BYTES))
    status, answer = await asyncio.to_thread(_vote, class_events.watcher().store, code, student, question, round_,
                                             option, lang)
    return JSONResponse(answer, status_code=status, headers=NO_STORE)


@functools.cache
def _pages() -> frozenset[str]:
    from ui.path import ideas

    return frozenset(idea.url for idea in ideas()) | {""}


def has_page(link: str | None) -> bool:
    """Whether the app has the page a link names (Explore from here opens it)."""
    return link is not None and link.partition("?")[0] in _pages()


def _parsed_view(store, code: str):
    from engine.classroom.view import ClassView

    text = store.view(code)
    if text is None:
        return None
    try:
        return ClassView.from_json(text)
    except (ValueError, KeyError, TypeError):
        return None


def view_of(state, version: int, lang: str, read_view) -> dict:
    """A follower's view card at the class's `version` (cached per class, version and language); `read_view()` reads
    the ClassView (or None) when it has to be made. `digest` names its body: a page that holds it is sent the rest."""
    def make():
        view = read_view()
        card = view_card(state, view, lang, explore=has_page(view.link if view is not None else state.link))
        card["version"] = version
        card["digest"] = hashlib.sha256(card["body"].encode()).hexdigest()[:20]
        return card
    return cards.get(("view", state.code, version, lang), make)


def _view_json(code: str, card: dict, have: str, gzipped: bool) -> bytes:
    """The card as the listener is sent it, serialized (and gzipped, for a browser that takes it) once per card:
    without its body where the page holds that body already (`have` its digest: the teacher moved and the new view is
    not made yet, a lock, a vote again). A view's SVG charts shrink several times in gzip, and a room fetches it at
    once: compressed once, sent to every follower."""
    same = bool(have) and have == card["digest"]
    key = ("view-same" if same else "view-json", code, card["version"], card["lang"])
    text = cards.get(key, lambda: json.dumps({name: value for name, value in card.items() if name != "body"}
                                             | {"same": True} if same else card, ensure_ascii=False).encode())
    if not gzipped:
        return text
    return cards.get((*key, "gzip"), lambda: gzip.compress(text, compresslevel=6, mtime=0))


def _view_body(watch, code: str, lang: str, told: int, have: str, gzipped: bool) -> tuple[int, bytes]:
    with i18n.use(lang):
        try:
            state, version = _state(watch, code, told)
            if _gone(state):
                return 410, json.dumps({"error": ended(code)}).encode()
            card = view_of(state, version, lang, lambda: _parsed_view(watch.store, code))
            return 200, _view_json(code, card, have, gzipped)
        except StoreUnavailable as error:
            return 503, json.dumps({"error": str(error)}).encode()
        except ValueError as error:
            return 404, json.dumps({"error": str(error)}).encode()


async def class_view_card(request):
    """GET /api/class/{code}/view.json?lang=xx&v=V[&have=DIGEST]: see the module's docstring."""
    from starlette.responses import Response

    from ui import class_events

    lang, code, refused = _asked(request)
    if refused is not None:
        return refused
    have = request.query_params.get("have", "")[:40]
    gzipped = "gzip" in request.headers.get("accept-encoding", "").lower()
    status, body = await asyncio.to_thread(_view_body, class_events.watcher(), code, lang, _told(request), have,
                                           gzipped)
    headers = dict(NO_STORE, Vary="Accept-Encoding")
    if gzipped and status == 200:       # a refusal's sentence goes as it is
        headers["Content-Encoding"] = "gzip"
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def routes() -> list:
    from starlette.routing import Route

    return [Route(QUESTION_PATH, class_question, methods=["GET"]), Route(VOTE_PATH, class_vote, methods=["POST"]),
            Route(VIEW_PATH, class_view_card, methods=["GET"])]
