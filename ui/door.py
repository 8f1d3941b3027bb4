"""What the app's server refuses at the door, before Streamlit reads it, and what it gives back when a session ends
(ASGI middleware beside ui.app_server's identity; app.py mounts both with `st.App`).

- A request body over `limits.MAX_REQUEST_BODY_BYTES` is refused (413) from its Content-Length, or as soon as a
  body sent without one grows past it; an upload (`/_stcore/upload_file/...`) has Streamlit's own per-file limit
  (`server.maxUploadSize`) and, here, a budget per session: `limits.MAX_SESSION_UPLOAD_BYTES` held at once and
  `limits.MAX_SESSION_UPLOADS` files (60 uploads of 7 MB into one session were all kept: +402 MB). Past it the
  upload is refused before its body is read, and the page says why on a run it is asked for at once.
- What a browser sends over the websocket (a BackMsg) is read before Streamlit reads it: a number that is not one
  (NaN, infinity: no browser sends them, a raw client can) is dropped, so the widget keeps its value (Streamlit
  1.67 turned NaN into a traceback on every later run of that tab, valid numbers included); a link longer than
  `limits.LINK_MAX_CHARS` or with more than `limits.LINK_MAX_VALUES` values is ignored whole, as Streamlit does, but
  here the page says so. A message larger than the server's `server.maxMessageSize` never gets this far: uvicorn
  refuses it from its frame header (tests/test_server_settings.py holds the figure and why).
- A session that closed keeps its uploads in Streamlit's upload manager, its media, and its AppSession in the
  reconnect storage until some later write to that storage, if ever (+393 MB 6 minutes after a session closed with a
  timeout of 120 s). `reap_closed_sessions` shuts down sessions whose reconnect time is over, drops files no live
  session owns and hands the freed memory back to the system; `lifespan` runs it every `REAP_EVERY_S` seconds.

What the door refused is said on the page it concerns (`said_at_the_door`, drawn by app.py): an upload's refusal to
the session named in its path, a websocket's to the tab of that connection (a token the door adds to its headers,
which the script reads in st.context.headers). Streamlit 1.67's runtime internals read here (the session manager and
its storage, the upload manager's files) are pinned by tests/test_door.py, so an upgrade that changes them fails
there, not in a class.
"""
from __future__ import annotations

import asyncio
import contextlib
import math
import re
import secrets
import threading
from collections import defaultdict

from engine import limits, numbers
from engine.i18n import ngettext

REAP_EVERY_S = 10.0   # how often closed sessions are looked for: their memory is back within its timeout + this
_UPLOAD = re.compile(r"/_stcore/upload_file/([^/]+)/([^/]+)/?$")
_STREAM = "/_stcore/stream"
_BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

CONNECTION_HEADER = "x-playground-connection"   # a websocket's token, written by the door (a client's is dropped)
_said: dict[str, list[str]] = defaultdict(list)   # session id or connection token -> sentences for its next run
_said_lock = threading.Lock()
_connections: set[str] = set()                    # the tokens of open websockets
_PENDING = "_door_said"   # session key: what the door said that no finished run has shown yet


def _say(session_id: str, sentence: str) -> None:
    with _said_lock:
        if sentence not in _said[session_id]:
            _said[session_id].append(sentence)


def _take(*keys: str | None) -> list[str]:
    with _said_lock:
        return [sentence for key in keys if key for sentence in _said.pop(key, [])]


def said_at_the_door() -> list[str]:
    """What the door refused for the session running this script and no finished run has shown yet (each sentence
    once): its uploads, and what its websocket sent. A run cut short by a newer one (the door's own rerun, then the
    browser's) leaves them for the next; `said_and_shown` clears them once a run got to its end."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    try:
        token = st.context.headers.get(CONNECTION_HEADER)
    except Exception:    # no browser (a bare script, AppTest)
        token = None
    pending = st.session_state.setdefault(_PENDING, [])
    for sentence in _take(ctx.session_id if ctx else None, token):   # in this session's language
        said = sentence.again() if isinstance(sentence, Sentence) else sentence
        if said not in pending:
            pending.append(said)
    return list(pending)


def said_and_shown() -> None:
    """The run that drew what the door said got to its end: those sentences have been read."""
    import streamlit as st

    with contextlib.suppress(Exception):
        st.session_state.pop(_PENDING, None)


# --- sentences -----------------------------------------------------------------------------------------------------
class Sentence(str):
    """A sentence the door says: made in English where the door makes it (outside any session: the HTTP answer
    carries it so), and made again in the session's language where the session shows it (`again`)."""

    def __new__(cls, make, *args):
        made = super().__new__(cls, make(*args))
        made.make, made.args = make, args
        return made

    def again(self) -> str:
        return str(self.make(*self.args))


def _upload_refused(held: int, files: int, incoming: int | None) -> str:
    said = dict(held=numbers.fixed(held / 1e6, 1), most_files=limits.MAX_SESSION_UPLOADS,
                most=numbers.fixed(limits.MAX_SESSION_UPLOAD_BYTES / 1e6, 0))
    if incoming is None:
        # TRANSLATORS: {n}, the tab's uploads so far, picks the form; {most_files} is limits.MAX_SESSION_UPLOADS (12)
        return ngettext("This upload (of unknown size) was refused: this tab already holds {n} upload, {held} MB, "
                        "and one tab may hold at most {most_files} files or {most} MB. Reload the page to start "
                        "afresh (your settings are in its link).",
                        "This upload (of unknown size) was refused: this tab already holds {n} uploads, {held} MB, "
                        "and one tab may hold at most {most_files} files or {most} MB. Reload the page to start "
                        "afresh (your settings are in its link).", files, **said)
    # TRANSLATORS: {n}, the tab's uploads so far, picks the form; {most_files} is limits.MAX_SESSION_UPLOADS (12)
    return ngettext("This upload ({size} MB) was refused: this tab already holds {n} upload, {held} MB, and one tab "
                    "may hold at most {most_files} files or {most} MB. Reload the page to start afresh (your settings "
                    "are in its link).",
                    "This upload ({size} MB) was refused: this tab already holds {n} uploads, {held} MB, and one tab "
                    "may hold at most {most_files} files or {most} MB. Reload the page to start afresh (your settings "
                    "are in its link).", files, size=numbers.fixed(incoming / 1e6, 1), **said)


def upload_refused(held: int, files: int, incoming: int | None) -> Sentence:
    return Sentence(_upload_refused, held, files, incoming)


def _number_refused(count: int) -> str:
    return ngettext("{n} value your browser sent was not a number (NaN or infinity) and was ignored: each box keeps "
                    "its last value.",
                    "{n} values your browser sent were not numbers (NaN or infinity) and were ignored: each box "
                    "keeps its last value.", count)


def number_refused(count: int) -> Sentence:
    return Sentence(_number_refused, count)


def _link_refused(characters: int, values: int) -> str:
    return ngettext("This link was ignored: it holds {characters} characters in {n} value, and a link may hold at "
                    "most {most_characters} characters and {most_values} values. The page opened with its own "
                    "settings.",
                    "This link was ignored: it holds {characters} characters in {n} values, and a link may hold at "
                    "most {most_characters} characters and {most_values} values. The page opened with its own "
                    "settings.", values, characters=numbers.grouped(characters), n=numbers.grouped(values),
                    most_characters=numbers.grouped(limits.LINK_MAX_CHARS),
                    most_values=numbers.grouped(limits.LINK_MAX_VALUES))


def link_refused(characters: int, values: int) -> Sentence:
    return Sentence(_link_refused, characters, values)


def body_refused(size: int | None) -> str:
    return limits.body_refused(size, limits.MAX_REQUEST_BODY_BYTES)


# --- the websocket: what a browser sends ----------------------------------------------------------------------------
def clean_back_message(data: bytes) -> tuple[bytes, list[str]]:
    """A BackMsg as Streamlit may read it, and what was refused in it: non-finite numbers dropped, a link over the
    limits noted (Streamlit ignores it itself). Anything that is not a BackMsg passes as it is (Streamlit closes the
    connection over it)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    message = BackMsg()
    try:
        message.ParseFromString(data)
    except Exception:   # not ours to judge: Streamlit answers a broken frame itself
        return data, []
    if message.WhichOneof("type") != "rerun_script":
        return data, []
    said = []
    client = message.rerun_script
    query = client.query_string
    if query and (len(query) > limits.LINK_MAX_CHARS or query.count("&") + 1 > limits.LINK_MAX_VALUES):
        said.append(link_refused(len(query), query.count("&") + 1))
        client.query_string = ""
    widgets = client.widget_states.widgets
    kept = [state for state in widgets if _finite(state)]
    if len(kept) < len(widgets):
        said.append(number_refused(len(widgets) - len(kept)))
        del widgets[:]
        widgets.extend(kept)
    return (message.SerializeToString() if said else data), said


def _finite(state) -> bool:
    kind = state.WhichOneof("value")
    if kind == "double_value":
        return math.isfinite(state.double_value)
    if kind == "double_array_value":
        return all(math.isfinite(v) for v in state.double_array_value.data)
    return True


# --- uploads: what one session holds ---------------------------------------------------------------------------------
def _runtime():
    from streamlit import runtime

    return runtime.get_instance() if runtime.exists() else None


def held_uploads(session_id: str, replacing: str = "") -> tuple[int, int]:
    """(bytes, files) the upload manager holds for the session, the file being replaced left out."""
    rt = _runtime()
    storage = getattr(getattr(rt, "uploaded_file_mgr", None), "file_storage", {}) if rt else {}
    files = [record for file_id, record in dict(storage.get(session_id, {})).items() if file_id != replacing]
    return sum(len(record.data) for record in files), len(files)


def _rerun(session_id: str) -> None:
    """Ask the session for a run, so the sentence the door left for it is shown now (on the event loop)."""
    rt = _runtime()
    session = rt.get_app_session(session_id) if rt else None
    if session is not None:
        with contextlib.suppress(Exception):
            session.request_rerun(None)


async def _refuse(send, status: int, sentence: str) -> None:
    body = sentence.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class Door:
    """ASGI middleware: request sizes, a session's uploads, and what a websocket sends, checked before Streamlit."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            return await self._http(scope, receive, send)
        if scope["type"] == "websocket" and scope.get("path", "").endswith(_STREAM):
            return await self._websocket(scope, receive, send)
        return await self.app(scope, receive, send)

    async def _http(self, scope, receive, send) -> None:
        length = next((value for name, value in scope.get("headers", []) if name == b"content-length"), None)
        try:
            size = int(length) if length is not None else None
        except ValueError:
            size = None
        upload = _UPLOAD.search(scope.get("path", ""))
        if upload and scope.get("method") == "PUT":
            session_id, file_id = upload.groups()
            held, files = held_uploads(session_id, replacing=file_id)
            incoming = size if size is not None else limits.MAX_UPLOAD_MEGABYTES * 2**20
            if files + 1 > limits.MAX_SESSION_UPLOADS or held + incoming > limits.MAX_SESSION_UPLOAD_BYTES:
                sentence = upload_refused(held, files, size)
                _say(session_id, sentence)
                _rerun(session_id)
                return await _refuse(send, 413, sentence)
            return await self.app(scope, receive, send)   # Streamlit caps the file itself as it streams
        if scope.get("method") not in _BODY_METHODS:
            return await self.app(scope, receive, send)
        if size is not None and size > limits.MAX_REQUEST_BODY_BYTES:
            return await _refuse(send, 413, body_refused(size))
        received, cut, answered = 0, False, False

        async def counted():
            nonlocal received, cut
            if cut:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limits.MAX_REQUEST_BODY_BYTES:   # read no further: the app sees the client gone
                    cut = True
                    return {"type": "http.disconnect"}
            return message

        async def watched(message):
            nonlocal answered
            if cut:                       # whatever the app makes of a cut body, the client hears why
                if not answered:
                    answered = True
                    await _refuse(send, 413, body_refused(None))
                return
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except Exception:
            if not cut:
                raise
        if cut and not answered:
            await _refuse(send, 413, body_refused(None))

    async def _websocket(self, scope, receive, send) -> None:
        token = secrets.token_hex(8)
        headers = [(name, value) for name, value in scope.get("headers", []) if name != CONNECTION_HEADER.encode()]
        scope = dict(scope, headers=[*headers, (CONNECTION_HEADER.encode(), token.encode())])

        async def cleaned():
            message = await receive()
            if message["type"] == "websocket.receive" and message.get("bytes"):
                data, said = clean_back_message(message["bytes"])
                if said:
                    for sentence in said:
                        _say(token, sentence)
                    message = dict(message, bytes=data)
            return message

        _connections.add(token)
        try:
            await self.app(scope, cleaned, send)
        finally:
            _connections.discard(token)
            _take(token)


# --- closed sessions -------------------------------------------------------------------------------------------------
def reap_closed_sessions() -> int:
    """Shut down sessions whose reconnect time is over and drop uploads no live session owns; then hand freed memory
    back. Returns the bytes of uploads dropped. Runs on Streamlit's event loop (AppSession.shutdown wants it)."""
    rt = _runtime()
    if rt is None:
        return 0
    manager = getattr(rt, "_session_mgr", None)
    ended: list = []
    cache = getattr(getattr(manager, "_session_storage", None), "_cache", None)
    if cache is not None and hasattr(cache, "_expirations"):
        now = cache.timer()
        ended = [key for key, expires in list(cache._expirations.items()) if expires <= now]
        closing = [cache._data[key] for key in ended if key in cache._data]
        cache.expire(now)                           # out of the reconnect storage
        for info in closing:
            with contextlib.suppress(Exception):
                info.session.shutdown()             # its uploads, media and dataframe sources
    live = {info.session.id for info in manager.list_sessions()} if manager is not None else set()
    uploads = rt.uploaded_file_mgr
    dropped = 0
    for session_id in list(getattr(uploads, "file_storage", {})):
        if session_id not in live:
            dropped += held_uploads(session_id)[0]
            uploads.remove_session_files(session_id)
    with _said_lock:               # sentences for sessions that will not run again
        for key in [key for key in _said if key not in live and key not in _connections]:
            del _said[key]
    if dropped or ended:
        from ui.server import return_freed_memory

        return_freed_memory()
    return dropped


@contextlib.asynccontextmanager
async def lifespan(app):
    """st.App's lifespan: the closed-session reaper, every REAP_EVERY_S seconds, on Streamlit's event loop."""
    async def reap() -> None:
        while True:
            await asyncio.sleep(REAP_EVERY_S)
            with contextlib.suppress(Exception):
                reap_closed_sessions()

    task = asyncio.create_task(reap())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
