"""What the app's server does beside Streamlit's own (app.py mounts it with `st.App`):

- Every browser gets an anonymous identity (engine.classroom.identity): a random id, signed by the server, in
  an HttpOnly cookie set on the first response the browser gets (the page itself), so the websocket that
  follows already carries it and a script reads it with `browser_id()`. It survives a reload, another tab
  and another server process of the same deployment (they share the signing secret); a link never carries it.
- The class's events route, `/api/class/{code}/events` (ui.class_events): students' pages are told when their class
  changes instead of polling.
- The client's address, as the front proxy saw it: a request from a loopback peer (HAProxy, `deploy.serve`)
  may name the client in X-Forwarded-For (its last entry, the one our proxy wrote); anyone else's header is
  ignored. The middleware writes the result into CLIENT_HEADER, replacing whatever a client sent in it, and
  `client_address()` reads it back.

`streamlit run app.py` finds the `st.App` in app.py and serves it; AppTest runs app.py as a plain script,
where there is no cookie and `browser_id()` is None.
"""
from __future__ import annotations

import ipaddress

from engine.classroom import identity
from engine.classroom.stores import identity_secret

CLIENT_HEADER = "x-playground-client"      # the client's address as our server resolved it
_LOOPBACK_PEERS = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


secret = identity_secret   # the cookies' signing secret, read once per process (ui.class_events too)


def _cookie_value(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name == b"cookie":
            for part in value.decode("latin-1").split(";"):
                key, _, text = part.strip().partition("=")
                if key == identity.COOKIE_NAME:
                    return text
    return None


def _forwarded_client(peer: str | None, headers: list[tuple[bytes, bytes]]) -> str:
    """The client's address: the proxy's last X-Forwarded-For entry when the peer is a loopback proxy."""
    peer = peer or ""
    if peer in _LOOPBACK_PEERS:
        forwarded = [value for name, value in headers if name == b"x-forwarded-for"]
        if forwarded:
            last = forwarded[-1].decode("latin-1").split(",")[-1].strip()
            try:
                return str(ipaddress.ip_address(last))
            except ValueError:
                pass
    return peer


def _set_cookie(browser_id: str, https: bool) -> bytes:
    """Set-Cookie for a new id. Over HTTPS (a Space embeds the app in a page of another site) the cookie must be
    SameSite=None and Secure to reach the app inside that frame, and Partitioned so it is kept for that frame."""
    cross_site = "; SameSite=None; Secure; Partitioned" if https else "; SameSite=Lax"
    return (f"{identity.COOKIE_NAME}={identity.sign(browser_id, secret())}; Path=/; HttpOnly"
            f"; Max-Age={identity.COOKIE_MAX_AGE_S}{cross_site}").encode()


class BrowserIdentity:
    """ASGI middleware: gives a browser without a valid id one, and names each request's client."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = [(name, value) for name, value in scope.get("headers", []) if name != CLIENT_HEADER.encode()]
        peer = (scope.get("client") or (None, None))[0]
        headers.append((CLIENT_HEADER.encode(), _forwarded_client(peer, headers).encode()))
        scope = dict(scope, headers=headers)
        if scope["type"] == "websocket" or identity.verify(_cookie_value(headers), secret()) is not None:
            return await self.app(scope, receive, send)
        proto = dict(headers).get(b"x-forwarded-proto", b"").decode("latin-1")
        cookie = _set_cookie(identity.new_id(), https=scope.get("scheme") == "https" or proto == "https")

        async def send_with_cookie(message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message, headers=[*message.get("headers", []), (b"set-cookie", cookie)])
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def middleware() -> list:
    """Our middleware, outermost first: the browser's identity, then the door (ui.door: sizes, a session's uploads,
    what a websocket sends), then Streamlit."""
    from starlette.middleware import Middleware

    from ui.door import Door

    return [Middleware(BrowserIdentity), Middleware(Door)]


def lifespan():
    """st.App's lifespan: what runs beside the server while it serves (ui.door's closed-session reaper; the class
    events' watcher, stopped at the end)."""
    import contextlib

    from ui import class_events, door

    @contextlib.asynccontextmanager
    async def both(app):
        async with door.lifespan(app), class_events.lifespan(app):
            yield

    return both


def routes() -> list:
    """Our routes beside Streamlit's: the class's events (ui.class_events, a long poll students park on) and the
    class view (ui.class_view_route, the teacher's page as its followers see it), and what a student's listener fetches
    and sends without a rerun (ui.class_live: the question, the vote, the view as JSON)."""
    from ui import class_events, class_live, class_view_route

    return class_events.routes() + class_live.routes() + class_view_route.routes()


def browser_id() -> str | None:
    """This browser's id from its signed cookie (None outside a browser served by st.App, as in AppTest)."""
    import streamlit as st

    try:
        cookie = st.context.cookies.get(identity.COOKIE_NAME)
    except Exception:    # no browser (a bare script)
        return None
    return identity.verify(cookie, secret())


def client_address() -> str:
    """The client's address as our server resolved it ('' outside a browser)."""
    import streamlit as st

    try:
        return st.context.headers.get(CLIENT_HEADER, "") or ""
    except Exception:    # no browser (a bare script)
        return ""
