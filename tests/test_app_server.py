"""The app's own middleware (ui/app_server.py): every browser gets one signed id, and a client's address is the
one our proxy saw, never a header a client wrote."""
from __future__ import annotations

import pytest

starlette_testclient = pytest.importorskip("starlette.testclient")

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from engine.classroom import identity  # noqa: E402
from ui import app_server  # noqa: E402


async def _echo(request: Request) -> JSONResponse:
    return JSONResponse({"client": request.headers.get(app_server.CLIENT_HEADER)})


def _client(peer: str) -> starlette_testclient.TestClient:
    app = Starlette(routes=[Route("/", _echo)], middleware=app_server.middleware())
    return starlette_testclient.TestClient(app, client=(peer, 50000), base_url="http://testserver")


def test_a_browser_without_an_id_gets_one_and_keeps_it():
    client = _client("203.0.113.7")
    first = client.get("/")
    cookie = first.cookies.get(identity.COOKIE_NAME)
    assert identity.verify(cookie, app_server.secret()) is not None
    assert "httponly" in first.headers["set-cookie"].lower()
    again = client.get("/")                                  # the client sends the cookie back
    assert identity.COOKIE_NAME not in again.headers.get("set-cookie", "")


def test_an_id_the_server_did_not_sign_is_replaced():
    client = _client("203.0.113.7")
    client.cookies.set(identity.COOKIE_NAME, "made-up.0123456789abcdef0123456789abcdef")
    reply = client.get("/")
    assert identity.verify(reply.cookies.get(identity.COOKIE_NAME), app_server.secret()) is not None


def test_over_https_the_cookie_reaches_an_embedding_frame():
    reply = _client("127.0.0.1").get("/", headers={"X-Forwarded-Proto": "https"})
    header = reply.headers["set-cookie"]
    assert "SameSite=None" in header and "Secure" in header and "Partitioned" in header


def test_the_client_address_is_the_proxys_last_entry_and_only_from_a_loopback_proxy():
    behind_proxy = _client("127.0.0.1")
    assert behind_proxy.get("/", headers={"X-Forwarded-For": "10.9.9.9, 198.51.100.4"}).json() == {
        "client": "198.51.100.4"}
    direct = _client("203.0.113.7")                         # a client that names itself is not believed
    assert direct.get("/", headers={"X-Forwarded-For": "198.51.100.4"}).json() == {"client": "203.0.113.7"}
    assert direct.get("/", headers={app_server.CLIENT_HEADER: "1.2.3.4"}).json() == {"client": "203.0.113.7"}
    assert behind_proxy.get("/", headers={"X-Forwarded-For": "not an address"}).json() == {"client": "127.0.0.1"}
