"""A Streamlit browser session without the browser: the app's own websocket protocol.

The browser and the server talk over `/_stcore/stream` in protobufs: the browser sends a
`BackMsg` whose `rerun_script` carries the page, the query string and the widget values;
the server runs the real page script in that session and streams `ForwardMsg`s (deltas
with elements, navigation, query-string changes) until `script_finished`. This client
does the same, so one Python process can hold dozens of real sessions on the server.
Like the browser, a session first loads the page over HTTP and sends the cookies it got back
with the websocket: behind a load balancer (deploy/) that cookie picks the session's process, and the
app's own (ui/app_server.py) is the browser's identity: each Session is a new browser, a new student of a
class, unless it is given another's cookies (`Session(..., cookies=old.cookies)`: a reload or a new tab of
the same browser).

    async with Session("127.0.0.1", 8501) as s:
        run = await s.open("attention")                 # the page script ran in full
        run = await s.set("x", "a: 1, 0\\nb: 0, 1")      # a widget change, by key or label
        run.seconds, run.exceptions, run.errors         # what the student would have seen

A change that reruns only a section of the page (a fragment: ui.page.section) sends only that
section's elements; like the browser, the session keeps the rest of the page as it was, so a
Run's texts, sentences and widgets are always the whole page as shown.
"""
from __future__ import annotations

import asyncio
import gzip
import json
import re
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import websockets
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState

WIDGET_TYPES = {"button", "checkbox", "number_input", "radio", "selectbox", "slider", "text_area",
                "text_input", "multiselect", "file_uploader", "color_picker", "date_input",
                "time_input", "button_group", "chat_input", "download_button"}
FINISHED = {ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY,
            ForwardMsg.ScriptFinishedStatus.FINISHED_WITH_COMPILE_ERROR,
            ForwardMsg.ScriptFinishedStatus.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


class ProtocolError(RuntimeError):
    """The server closed the stream or never finished the script in time."""


@dataclass
class Widget:
    kind: str          # the Element field: "slider", "selectbox", ...
    id: str
    label: str
    proto: Any         # the widget's protobuf as the server last sent it

    @property
    def key(self) -> str:
        """The user key (ids of keyed widgets end in '-<key>'); '' when unkeyed."""
        match = re.match(r"^\$\$ID-[0-9a-f]+-(.*)$", self.id)
        return match.group(1) if match else ""


@dataclass
class Run:
    """The page as shown after one rerun (a section's rerun: the rest of the page as before), and the
    exceptions this rerun raised."""
    seconds: float
    status: str
    exceptions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)     # st.error sentences
    warnings: list[str] = field(default_factory=list)   # st.warning sentences
    infos: list[str] = field(default_factory=list)      # st.info sentences
    successes: list[str] = field(default_factory=list)  # st.success sentences
    texts: list[str] = field(default_factory=list)      # markdown bodies
    htmls: list[str] = field(default_factory=list)      # st.html bodies (a follower's class view)
    widgets: dict[str, Widget] = field(default_factory=dict)
    components: dict[str, Any] = field(default_factory=dict)   # components v2 shown (their protobufs), by id
    elements: int = 0                                   # elements this rerun sent


class Session:
    """One student's browser tab, spoken in Streamlit's protocol."""

    def __init__(self, host: str, port: int, timeout: float = 120.0, cookies: dict[str, str] | None = None):
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("The load client only talks to a server on this machine.")
        self.url = f"ws://{host}:{port}/_stcore/stream"
        self.timeout = timeout
        self.ws = None
        self.pages: dict[str, str] = {}      # url path -> page_script_hash
        self.page = ""                       # url path of the current page
        self.page_hash = ""
        self.query_string = ""
        self.states: dict[str, WidgetState] = {}   # widget id -> the value we set
        self.widgets: dict[str, Widget] = {}       # widget id -> widget from the last run
        self.auto_reruns: dict[str, float] = {}    # fragment id -> interval (s)
        self.cookies: dict[str, str] = dict(cookies or {})   # the browser's: a balancer's, the app's identity
        self.shown: dict[tuple[int, ...], tuple[str, Any]] = {}   # delta path -> (fragment id, element)
        self.session_id = ""                       # the server's id of this session (its new_session message)

    async def __aenter__(self) -> "Session":
        self.cookies |= await asyncio.to_thread(self._load_page)
        cookie = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        self.ws = await websockets.connect(self.url, subprotocols=["streamlit"], max_size=None,
                                           open_timeout=self.timeout, ping_interval=None,
                                           additional_headers={"Cookie": cookie} if cookie else None)
        return self

    def _load_page(self) -> dict[str, str]:
        """GET / as the browser does before it opens the websocket, with the cookies it holds; those set in reply."""
        page = self.url.replace("ws://", "http://", 1).removesuffix("/_stcore/stream") + "/"
        request = urllib.request.Request(page)
        if self.cookies:
            request.add_header("Cookie", "; ".join(f"{name}={value}" for name, value in self.cookies.items()))
        with urllib.request.urlopen(request, timeout=self.timeout) as reply:
            reply.read()
            pairs = (header.split(";", 1)[0].partition("=") for header in reply.headers.get_all("Set-Cookie") or [])
            return {name.strip(): value.strip() for name, _, value in pairs if name.strip()}

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    # --- navigation -------------------------------------------------------------------
    async def open(self, url_path: str = "", query_string: str = "") -> Run:
        """Open a page the way a typed URL does: `/<url_path>?<query_string>`."""
        if url_path != self.page:
            self.states.clear()
        self.page = url_path
        self.page_hash = self.pages.get(url_path, "")
        self.query_string = query_string
        return await self.rerun()

    def upload(self, data: bytes, name: str = "upload.bin", file_id: str | None = None) -> tuple[int, str]:
        """PUT a file into this session's uploads as the browser's uploader does (its XSRF cookie and header): the
        status and the reply's text (0, "closed" where the server refused it without reading it and hung up).
        Nothing picks it in a widget: it is only held by the server for the session."""
        import uuid

        boundary = "wsclient" + uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        base = self.url.replace("ws://", "http://", 1).removesuffix("/_stcore/stream")
        if "_streamlit_xsrf" not in self.cookies:   # the browser's health check sets it, as here
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=self.timeout) as reply:
                for header in reply.headers.get_all("Set-Cookie") or []:
                    name, _, value = header.split(";", 1)[0].partition("=")
                    self.cookies[name.strip()] = value.strip()
        xsrf = self.cookies.get("_streamlit_xsrf", "")
        request = urllib.request.Request(f"{base}/_stcore/upload_file/{self.session_id}/{file_id or uuid.uuid4()}",
                                         data=body, method="PUT", headers={
                                             "Content-Type": f"multipart/form-data; boundary={boundary}",
                                             "X-Xsrftoken": xsrf,
                                             "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                return reply.status, reply.read().decode(errors="replace")
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode(errors="replace")
        except (urllib.error.URLError, ConnectionError):   # refused before its body was read: the server hung up
            return 0, "closed"

    # --- components v2 and the app's own routes ----------------------------------------------
    def component(self, name: str, run: Run) -> tuple[Any, dict] | None:
        """A components v2 element of `run` by its component's name, with the data it was given (JSON), or None."""
        for proto in run.components.values():
            if proto.component_name == name:
                return proto, (json.loads(proto.json) if proto.json else {})
        return None

    def trigger(self, component_id: str, event: str, value: Any) -> None:
        """What a component's `setTriggerValue(event, value)` sends with the next rerun (once, as a trigger)."""
        trigger_id = f"$$STREAMLIT_INTERNAL_KEY_{component_id}__events"
        self.states[trigger_id] = WidgetState(id=trigger_id,
                                              json_trigger_value=json.dumps([{"event": event, "value": value}]))

    async def get(self, path: str, timeout: float) -> tuple[int, bytes]:
        """GET one of the app's own routes (a long poll may park) with this browser's cookies: (status, body)."""
        return await self.request("GET", path, timeout)

    async def post(self, path: str, payload: Any, timeout: float) -> tuple[int, bytes]:
        """POST JSON to one of the app's own routes from this browser's page (same origin, its cookies), as the
        listener's fetch does: (status, body)."""
        return await self.request("POST", path, timeout, json.dumps(payload).encode())

    async def request(self, method: str, path: str, timeout: float, body: bytes | None = None) -> tuple[int, bytes]:
        host, port = self.url.removeprefix("ws://").split("/", 1)[0].rsplit(":", 1)
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)), timeout)
        try:
            cookie = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
            head = (f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
                    "Accept-Encoding: gzip\r\n")
            if cookie:
                head += f"Cookie: {cookie}\r\n"
            if body is not None:
                head += (f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                         f"Origin: http://{host}:{port}\r\nSec-Fetch-Site: same-origin\r\n")
            writer.write(head.encode("latin-1") + b"\r\n" + (body or b""))
            await writer.drain()
            reply = await asyncio.wait_for(reader.read(), timeout)
        finally:
            writer.close()
        head, _, body = reply.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
        if b"transfer-encoding: chunked" in head.lower():
            body = _unchunk(body)
        if b"content-encoding: gzip" in head.lower():      # as the browser does, on this client's cores
            body = gzip.decompress(body)
        return status, body

    # --- widgets ----------------------------------------------------------------------
    def find(self, what: str, kind: str | None = None) -> Widget | None:
        """A widget of the last run by key, else by a case-insensitive label regex."""
        candidates = [w for w in self.widgets.values() if kind is None or w.kind == kind]
        for widget in candidates:
            if widget.key == what:
                return widget
        pattern = re.compile(what, re.IGNORECASE)
        for widget in candidates:
            if pattern.search(widget.label):
                return widget
        return None

    async def set(self, what: str | Widget, value: Any, kind: str | None = None) -> Run:
        """Give a widget a value (a click for buttons) and rerun, as the browser does."""
        widget = what if isinstance(what, Widget) else self.find(what, kind)
        if widget is None:
            raise KeyError(f"no widget {what!r} on page {self.page!r}")
        self.states[widget.id] = widget_state(widget, value)
        try:
            return await self.rerun()
        finally:
            if widget.kind == "button":
                self.states.pop(widget.id, None)   # a trigger fires once

    async def timed_reruns(self, until, phase: float = 1.0):
        """What the browser's timers do: rerun each timed fragment (st.fragment(run_every=...)) on its own period
        until `until()` says stop, the first after `phase` of a period; yields each run."""
        next_at = {f: time.time() + phase * i for f, i in self.auto_reruns.items()}
        while not until():
            next_at = {f: next_at.get(f, time.time() + i) for f, i in self.auto_reruns.items()}
            if not next_at:
                await asyncio.sleep(0.2)
                continue
            fragment = min(next_at, key=next_at.get)
            await asyncio.sleep(max(0.0, next_at[fragment] - time.time()))
            if until():
                break
            next_at[fragment] += self.auto_reruns.get(fragment, 1.0)
            yield await self.rerun(fragment, auto=True)

    async def rerun(self, fragment_id: str = "", auto: bool = False) -> Run:
        message = BackMsg()
        client = message.rerun_script
        client.query_string = self.query_string
        client.page_script_hash = self.page_hash
        client.page_name = self.page
        client.widget_states.widgets.extend(self.states.values())
        if fragment_id:
            client.fragment_id = fragment_id
            client.is_auto_rerun = auto
        start = time.perf_counter()
        await self.ws.send(message.SerializeToString())
        return await self._until_finished(start)

    async def _until_finished(self, start: float) -> Run:
        run = Run(seconds=0.0, status="")
        written: dict[tuple[int, ...], tuple[str, Any]] = {}   # this run's elements, by delta path
        registered: dict[str, float] = {}   # fragments that asked to rerun on a timer during this run
        deadline = start + self.timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise ProtocolError(f"page {self.page!r} did not finish within {self.timeout:.0f} s")
            try:
                data = await asyncio.wait_for(self.ws.recv(), remaining)
            except asyncio.TimeoutError:
                raise ProtocolError(f"page {self.page!r} did not finish within {self.timeout:.0f} s") from None
            except websockets.ConnectionClosed as closed:
                raise ProtocolError(f"the server closed the stream: {closed}") from None
            msg = ForwardMsg()
            msg.ParseFromString(data)
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                run.elements += 1
                element = msg.delta.new_element
                if element.WhichOneof("type") == "exception":
                    run.exceptions.append(f"{element.exception.type}: {element.exception.message}")
                written[tuple(msg.metadata.delta_path)] = (msg.delta.fragment_id, element)
            elif kind == "navigation":
                self.pages.update({p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages})
                self.page_hash = msg.navigation.page_script_hash
                self.page = next((p.url_pathname for p in msg.navigation.app_pages
                                  if p.page_script_hash == self.page_hash), self.page)
            elif kind == "new_session":
                self.pages.update({p.url_pathname: p.page_script_hash for p in msg.new_session.app_pages})
                self.session_id = msg.new_session.initialize.session_id or self.session_id
            elif kind == "page_info_changed":
                self.query_string = msg.page_info_changed.query_string
            elif kind == "auto_rerun":
                registered[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
                self.auto_reruns[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
            elif kind == "stop_auto_rerun":
                self.auto_reruns.clear()
            elif kind == "page_not_found":
                run.exceptions.append(f"page not found: {self.page!r}")
            elif kind == "script_finished" and msg.script_finished in FINISHED:
                run.seconds = time.perf_counter() - start
                run.status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
                if run.status == "FINISHED_WITH_COMPILE_ERROR":
                    run.exceptions.append("the page script did not compile")
                whole = run.status == "FINISHED_SUCCESSFULLY"
                if whole:
                    # a full run (also one a fragment asked for with st.rerun): like the browser, keep
                    # only the timers its fragments registered
                    self.auto_reruns = registered
                    self.shown = written
                else:   # only sections ran: theirs are replaced (and their leftovers dropped), the rest stays
                    ran = {fragment for fragment, _ in written.values() if fragment}
                    self.shown = {path: kept for path, kept in self.shown.items() if kept[0] not in ran} | written
                for _, element in sorted(self.shown.items()):
                    self._element(element[1], run)
                self.widgets = run.widgets
                # as the browser does after every run (a section's too): values of widgets no longer shown are
                # dropped, never sent again (a class's radio of an old round would vote in it once more)
                self.states = {i: s for i, s in self.states.items() if i in run.widgets}
                return run

    @staticmethod
    def _element(element, run: Run) -> None:
        """Sort one shown element into the run's texts, sentences and widgets."""
        kind = element.WhichOneof("type")
        if kind == "alert":
            buckets = {Alert.ERROR: run.errors, Alert.WARNING: run.warnings, Alert.INFO: run.infos,
                       Alert.SUCCESS: run.successes}
            bucket = buckets.get(element.alert.format)
            if bucket is not None:
                bucket.append(element.alert.body)
        elif kind == "markdown":
            run.texts.append(element.markdown.body)
        elif kind == "html":
            run.htmls.append(element.html.body)
        elif kind in WIDGET_TYPES:
            proto = getattr(element, kind)
            run.widgets[proto.id] = Widget(kind, proto.id, proto.label, proto)
        elif kind == "bidi_component":
            run.components[element.bidi_component.id] = element.bidi_component


def _unchunk(body: bytes) -> bytes:
    out, rest = b"", body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2:]
    return out


def widget_state(widget: Widget, value: Any) -> WidgetState:
    """The WidgetState the browser would send for this widget and value."""
    state = WidgetState(id=widget.id)
    kind, proto = widget.kind, widget.proto
    if kind == "button":
        state.trigger_value = True
    elif kind in ("checkbox",):
        state.bool_value = bool(value)
    elif kind == "number_input":
        if proto.data_type == NumberInput.INT:
            state.int_value = int(value)
        else:
            state.double_value = float(value)
    elif kind == "slider" and len(proto.options):
        # st.select_slider: the browser sends the chosen options' labels
        values = value if isinstance(value, (list, tuple)) else [value]
        state.string_array_value.data.extend(proto.options[v] if isinstance(v, int) else str(v) for v in values)
    elif kind == "slider":
        values = value if isinstance(value, (list, tuple)) else [value]
        state.double_array_value.data.extend(float(v) for v in values)
    elif kind in ("selectbox", "radio"):
        # The browser sends the option's label as shown; an int picks the option by position.
        state.string_value = proto.options[value] if isinstance(value, int) else str(value)
    elif kind == "multiselect":
        state.string_array_value.data.extend(str(v) for v in value)
    elif kind in ("text_area", "text_input", "color_picker"):
        state.string_value = str(value)
    else:
        raise ValueError(f"setting a {kind} is not supported by this client")
    return state


def another_value(widget: Widget) -> Any:
    """A value different from the widget's current one, for a generic interaction: one a browser could send
    (within the widget's bounds); None where the widget has no other value."""
    proto = widget.proto
    if widget.kind == "checkbox":
        return not (proto.value if proto.set_value else proto.default)
    if widget.kind in ("selectbox", "radio"):
        if not proto.options:
            return None
        default = proto.default
        current = (default[0] if len(default) else 0) if hasattr(default, "__len__") else int(default)
        if proto.set_value and proto.raw_value in proto.options:
            current = list(proto.options).index(proto.raw_value)
        return (current + 1) % len(proto.options)
    if widget.kind == "slider" and len(proto.options):
        current = [int(v) for v in (proto.value if proto.set_value and len(proto.value) else proto.default)]
        return [(v + 1) % len(proto.options) for v in current]
    if widget.kind == "slider":
        current = list(proto.value) if proto.set_value and len(proto.value) else list(proto.default)
        step = proto.step or 1
        if not current:
            return None
        if len(current) == 2:   # a range: one end moves (as a drag does), never past the other
            low, high = current
            if (moved := _stepped(low, step, proto.min, high)) is not None:
                return [moved, high]
            up = _stepped(high, step, low, proto.max)
            return None if up is None else [low, up]
        moved = _stepped(current[0], step, proto.min, proto.max)
        return None if moved is None else [moved]
    if widget.kind == "number_input":
        current = proto.value if proto.set_value else proto.default
        return _stepped(current, proto.step or 1, proto.min if proto.has_min else None,
                        proto.max if proto.has_max else None)
    return None


def _stepped(value: float, step: float, low: float | None, high: float | None) -> float | None:
    """One step up, else one step down, staying within [low, high] (None: unbounded); None where neither fits
    (a widget whose bounds are one value, as a number input of 0..0 for a one-patch picture)."""
    if high is None or value + step <= high:
        return value + step
    if low is None or value - step >= low:
        return value - step
    return None
