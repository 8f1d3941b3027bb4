"""The Streamlit server's door (ui/door.py): request sizes, a session's upload budget and what a websocket sends,
checked before Streamlit reads them; and the Streamlit 1.67 internals the door reads, pinned here so that an upgrade
that changes them fails in this file. The door on a live server (memory, raw clients): tests/e2e/test_door.py."""
from __future__ import annotations

import inspect
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

starlette_testclient = pytest.importorskip("starlette.testclient")

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse, Response  # noqa: E402
from starlette.routing import Route, WebSocketRoute  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402

from engine import limits  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
from ui import app_server, door  # noqa: E402


def back_message(*, doubles=(), arrays=(), ints=(), query="") -> BackMsg:
    message = BackMsg()
    client = message.rerun_script
    client.query_string = query
    for i, value in enumerate(doubles):
        state = client.widget_states.widgets.add(id=f"d{i}")
        state.double_value = value
    for i, values in enumerate(arrays):
        state = client.widget_states.widgets.add(id=f"a{i}")
        state.double_array_value.data.extend(values)
    for i, value in enumerate(ints):
        client.widget_states.widgets.add(id=f"i{i}").int_value = value
    return message


# --- what a websocket sends ---------------------------------------------------------------------------------------
def test_numbers_that_are_not_numbers_are_dropped_with_a_sentence():
    data, said = door.clean_back_message(back_message(doubles=[math.nan, 0.5, math.inf], arrays=[[1.0, -math.inf]],
                                                      ints=[7]).SerializeToString())
    kept = BackMsg()
    kept.ParseFromString(data)
    assert [w.id for w in kept.rerun_script.widget_states.widgets] == ["d1", "i0"]
    assert said == ["3 values your browser sent were not numbers (NaN or infinity) and were ignored: each box keeps "
                    "its last value."]


def test_one_refused_number_reads_singular_and_three_plural():
    assert str(door.number_refused(1)) == ("1 value your browser sent was not a number (NaN or infinity) and was "
                                           "ignored: each box keeps its last value.")
    assert str(door.number_refused(3)).startswith("3 values your browser sent were not numbers")
    assert "already holds 1 upload, 4.0 MB," in str(door.upload_refused(4_000_000, 1, 30_000_000))
    assert "already holds 3 uploads, 4.0 MB," in str(door.upload_refused(4_000_000, 3, None))


def test_a_message_with_nothing_to_refuse_passes_as_it_was_sent():
    data = back_message(doubles=[0.25], ints=[3], query="n=3&k=1").SerializeToString()
    assert door.clean_back_message(data) == (data, [])
    assert door.clean_back_message(b"\xff\x00 not a protobuf") == (b"\xff\x00 not a protobuf", [])


@pytest.mark.parametrize("query, numbers", [
    ("x=" + "a" * (limits.LINK_MAX_CHARS + 1), "524,291 characters in 1 value,"),
    ("&".join(f"k{i}=1" for i in range(1001)), "in 1,001 values"),
])
def test_a_link_over_the_limits_is_ignored_with_a_sentence(query, numbers):
    data, said = door.clean_back_message(back_message(query=query).SerializeToString())
    kept = BackMsg()
    kept.ParseFromString(data)
    assert kept.rerun_script.query_string == ""
    assert len(said) == 1 and said[0].startswith("This link was ignored") and numbers in said[0]


def test_the_link_limits_are_streamlits_own():
    """Streamlit ignores a longer query string itself; the door only says so, at the same limits."""
    from streamlit.runtime.state import query_params

    assert limits.LINK_MAX_CHARS == query_params.CLIENT_STATE_QUERY_STRING_MAX_LENGTH
    assert limits.LINK_MAX_VALUES == query_params.CLIENT_STATE_QUERY_STRING_MAX_FIELDS


def _websocket_app():
    async def echo(websocket):
        await websocket.accept()
        data = await websocket.receive_bytes()
        await websocket.send_json({"bytes": len(data), "token": websocket.headers.get(door.CONNECTION_HEADER)})
        await websocket.close()

    return Starlette(routes=[WebSocketRoute("/_stcore/stream", echo)], middleware=app_server.middleware())


def test_the_websocket_is_cleaned_before_the_app_reads_it_and_named_by_the_door():
    client = starlette_testclient.TestClient(_websocket_app())
    nan = back_message(doubles=[math.nan], ints=[1]).SerializeToString()
    clean = back_message(ints=[1]).SerializeToString()
    with client.websocket_connect("/_stcore/stream", headers={door.CONNECTION_HEADER: "made-up"}) as socket:
        socket.send_bytes(nan)
        reply = socket.receive_json()
    assert reply["bytes"] == len(clean)                          # the app got the message without the NaN
    assert reply["token"] not in (None, "made-up")               # a client's own token is replaced
    assert door._take(reply["token"]) == []                      # the sentence was the connection's; it is gone


# --- request bodies and uploads ------------------------------------------------------------------------------------
def _http_app(seen: list):
    async def post(request: Request) -> JSONResponse:
        body = await request.body()
        seen.append(len(body))
        return JSONResponse({"read": len(body)})

    async def upload(request: Request) -> Response:
        seen.append(len(await request.body()))
        return Response(status_code=204)

    return Starlette(routes=[Route("/_stcore/anything", post, methods=["POST"]),
                             Route("/_stcore/upload_file/{session}/{file}", upload, methods=["PUT"])],
                     middleware=app_server.middleware())


def test_a_body_over_the_limit_is_refused_before_it_is_read():
    seen = []
    client = starlette_testclient.TestClient(_http_app(seen))
    small = client.post("/_stcore/anything", content=b"x" * 1000)
    assert small.status_code == 200 and seen == [1000]
    big = client.post("/_stcore/anything", content=b"x" * (limits.MAX_REQUEST_BODY_BYTES + 1))
    assert big.status_code == 413 and "may be at most 64,000 bytes" in big.text
    assert seen == [1000]                                        # the app never saw it

    def streamed():                                              # no Content-Length: cut as it grows
        for _ in range(100):
            yield b"x" * 10_000
    cut = client.post("/_stcore/anything", content=streamed())
    assert cut.status_code == 413 and "grew past that" in cut.text
    assert all(n <= limits.MAX_REQUEST_BODY_BYTES for n in seen)


def test_an_upload_past_the_sessions_budget_is_refused_before_it_is_read_and_the_tab_is_told(monkeypatch):
    seen = []
    client = starlette_testclient.TestClient(_http_app(seen))
    held = {"tab-1": (limits.MAX_SESSION_UPLOAD_BYTES - 5_000_000, 3), "tab-2": (0, limits.MAX_SESSION_UPLOADS)}
    monkeypatch.setattr(door, "held_uploads", lambda session, replacing="": held.get(session, (0, 0)))
    reruns = []
    monkeypatch.setattr(door, "_rerun", reruns.append)
    ok = client.put("/_stcore/upload_file/tab-1/f1", content=b"x" * 4_000_000)
    assert ok.status_code == 204 and seen == [4_000_000]
    over = client.put("/_stcore/upload_file/tab-1/f2", content=b"x" * 6_000_000)
    assert over.status_code == 413 and seen == [4_000_000]
    assert over.text.startswith("This upload (6.0 MB) was refused: this tab already holds 3 uploads, 27.0 MB")
    assert reruns == ["tab-1"] and door._take("tab-1") == [over.text]
    many = client.put("/_stcore/upload_file/tab-2/f1", content=b"x")       # a count of empty files is bounded too
    assert many.status_code == 413 and f"at most {limits.MAX_SESSION_UPLOADS} files" in many.text
    door._take("tab-2")


def test_a_session_holds_what_streamlits_upload_manager_holds(monkeypatch):
    """held_uploads reads the manager's own record (the file being replaced left out)."""
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    for file_id, size in (("a", 10), ("b", 20)):
        manager.add_file("tab", UploadedFileRec(file_id=file_id, name=file_id, type="x", data=b"x" * size))

    class Runtime:
        uploaded_file_mgr = manager
    monkeypatch.setattr(door, "_runtime", lambda: Runtime)
    assert door.held_uploads("tab") == (30, 2)
    assert door.held_uploads("tab", replacing="b") == (10, 1)
    assert door.held_uploads("nobody") == (0, 0)


# --- the Streamlit internals the door reads (an upgrade that changes them fails here) --------------------------------
def test_the_streamlit_internals_the_reaper_reads_are_there():
    from streamlit.runtime import runtime as runtime_module
    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    cache = MemorySessionStorage(ttl_seconds=5)._cache
    assert all(hasattr(cache, name) for name in ("_expirations", "_data", "expire", "timer"))
    assert "self._session_mgr" in inspect.getsource(runtime_module.Runtime.__init__)
    assert "self._session_storage" in inspect.getsource(WebsocketSessionManager.__init__)
    assert hasattr(WebsocketSessionManager, "list_sessions")
    manager = MemoryUploadedFileManager("/x")
    assert hasattr(manager, "file_storage") and hasattr(manager, "remove_session_files")
    import streamlit as st
    assert "lifespan" in inspect.signature(st.App).parameters


def test_app_py_mounts_the_door_and_its_reaper():
    from pathlib import Path

    app = (Path(__file__).resolve().parents[1] / "app.py").read_text()
    assert "lifespan=app_server.lifespan()" in app and "door.said_at_the_door()" in app
    assert any(m.cls is door.Door for m in app_server.middleware())


def test_what_the_door_said_stays_until_a_run_gets_to_its_end(monkeypatch):
    """The door asks for a run to say a refusal; the browser's own rerun may cut that run short. The sentence is
    then said again by the next run, and cleared only once a run got to its end (app.py)."""
    import streamlit as st
    import streamlit.runtime.scriptrunner as scriptrunner

    monkeypatch.setattr(st, "session_state", {})
    monkeypatch.setattr(scriptrunner, "get_script_run_ctx", lambda: SimpleNamespace(session_id="tab-9"))
    door._say("tab-9", "This upload was refused.")
    assert door.said_at_the_door() == ["This upload was refused."]   # the door's run draws it, and is cut short
    assert door.said_at_the_door() == ["This upload was refused."]   # the browser's run says it again
    door.said_and_shown()
    assert door.said_at_the_door() == []
    app = (ROOT / "app.py").read_text()
    assert "except RerunException:" in app and app.count("door.said_and_shown()") == 2
