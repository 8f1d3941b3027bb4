"""The Gradio Space's door: what a call must look like before Gradio or a tab reads it (gradio_app.build and serve
put it in place; gradio_tabs.common checks each value's type and numbers).

- Every argument is there: a call with fewer values than the endpoint takes gets a sentence naming the first box
  missing (Gradio's own answer named its internal handler and printed its component objects).
- A file input takes an upload of this app only: a FileData whose `path` is a web address (Gradio would download
  it: a DNS lookup was seen), whose `url` points anywhere but this app's own file route, or whose path lies outside
  Gradio's upload folder is refused with a sentence before Gradio moves or fetches anything.
- A request body over `limits.GRADIO_MAX_REQUEST_BYTES` is refused from its Content-Length, or as soon as a body
  sent without one grows past it (ASGI middleware, `middleware()`); Gradio's upload route has its own limit
  (launch's max_file_size, `limits.GRADIO_MAX_UPLOAD_BYTES`), which it enforces as the file streams in.
"""
from __future__ import annotations

import urllib.parse

import gradio as gr

from engine import limits
from engine.i18n import _, ngettext
from gradio_tabs.common import is_upload, read, refuse

_UPLOAD_ROUTE = "/gradio_api/upload"
_FILE_ROUTE = "/gradio_api/file="


def _is_web_address(text: str) -> bool:
    return "://" in text or text.startswith("//")


def _file_sentence(label: str, payload) -> str | None:
    """None for nothing, or for an upload of this app; else the sentence (a web address, a path of the server's)."""
    if payload is None:
        return None
    files = payload if isinstance(payload, list) else [payload]
    for item in files:
        if not isinstance(item, dict):
            continue               # a wrong type: the type check answers it
        path, url = item.get("path"), item.get("url")
        if not isinstance(path, str) or _is_web_address(path):
            return _("'{label}' takes a file uploaded to this app, not a web address: the app never fetches "
                     "anything from outside.", label=label)
        if url is not None and (not isinstance(url, str) or (_is_web_address(url) and _FILE_ROUTE not in
                                                              urllib.parse.unquote(url))):
            return _("'{label}' takes a file uploaded to this app; its 'url' may only name this app's own copy of "
                     "it.", label=label)
        if not is_upload(path):
            return _("'{label}' takes a file uploaded to this app (its {route} route), not a path on the server.",
                     label=label, route=_UPLOAD_ROUTE)
    return None


def guard_inputs(demo: gr.Blocks) -> None:
    """Every event of `demo` checks that it got all its values and that its files are this app's uploads, before
    Gradio moves, fetches or preprocesses anything (Blocks.validate_inputs runs first)."""
    validate = demo.validate_inputs

    def checked(block_fn, inputs) -> None:
        wanted = list(block_fn.inputs)
        if len(inputs) < len(wanted):
            missing = wanted[len(inputs)]
            names = ", ".join(f"'{read(c.label) or type(c).__name__}'" for c in wanted)
            refuse(ngettext("'{label}' was not given: this call takes 1 value: {names}.",
                            "'{label}' was not given: this call takes {n} values, in this order: {names}.",
                            len(wanted), label=read(missing.label) or _("An input"), names=names))
        for component, value in zip(wanted, inputs):
            if isinstance(component, (gr.File, gr.Image, gr.Audio, gr.Video, gr.UploadButton)):
                sentence = _file_sentence(read(component.label) or _("This input"), value)
                if sentence is not None:
                    refuse(sentence)
        validate(block_fn, inputs)

    demo.validate_inputs = checked


class BodyLimit:
    """ASGI middleware: a request body over limits.GRADIO_MAX_REQUEST_BYTES is refused (413) before it is read, and
    one sent without a length is cut off as soon as it grows past it; the upload route keeps Gradio's own limit."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope.get("path", "").endswith(_UPLOAD_ROUTE) \
                or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        length = next((value for name, value in scope.get("headers", []) if name == b"content-length"), None)
        if length is not None and length.isdigit() and int(length) > limits.GRADIO_MAX_REQUEST_BYTES:
            return await _refuse(send, int(length))
        received, cut, answered = 0, False, False

        async def counted():
            nonlocal received, cut
            if cut:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limits.GRADIO_MAX_REQUEST_BYTES:   # read no further: the app sees the client gone
                    cut = True
                    return {"type": "http.disconnect"}
            return message

        async def watched(message):
            nonlocal answered
            if cut:                       # whatever the app makes of a cut body, the client hears why
                if not answered:
                    answered = True
                    await _refuse(send, None)
                return
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except Exception:
            if not cut:
                raise
        if cut and not answered:
            await _refuse(send, None)


async def _refuse(send, size: int | None) -> None:
    body = limits.body_refused(size, limits.GRADIO_MAX_REQUEST_BYTES).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def middleware() -> list:
    """launch(app_kwargs={"middleware": ...}): the body limit in front of Gradio's routes."""
    from starlette.middleware import Middleware

    return [Middleware(BodyLimit)]
