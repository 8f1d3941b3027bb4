"""The class view as a page of its own: GET /api/class/{code}/view (mounted by ui.app_server.routes).

What a following student's screen shows (engine.classroom.view), served as one HTML document: the teacher's page
made once per move, the parts a class's open question veils left out until the reveal. It carries no key and no
answer; anyone with the class code may read it, as anyone with the code may join. Nothing in it runs or fetches:
the response forbids scripts and every outside address (Content-Security-Policy), and it is never cached.
"""
from __future__ import annotations

import functools
from urllib.parse import urlencode

from engine.classroom.view import ClassView

HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
           "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                                      "frame-ancestors 'self'; base-uri 'none'; form-action 'none'"}


@functools.cache
def _store():
    from engine.classroom.stores import open_store

    return open_store()


def view_document(store, code: str) -> tuple[int, str]:
    """(HTTP status, HTML) of class `code`'s view: 404 with the store's sentence for an unknown or ended class, or
    one with no view yet."""
    from html import escape

    from engine.classroom.store import normalise_code

    try:
        code = normalise_code(code)
        state = store.state(code)
        text = store.view(code)
    except ValueError as error:
        return 404, f"<!doctype html><meta charset='utf-8'><p>{escape(str(error))}</p>"
    if text is None or state.ended:
        return 404, ("<!doctype html><meta charset='utf-8'><p>"
                     + ("This class has ended." if state.ended else "The teacher has not shown a page yet.") + "</p>")
    view = ClassView.from_json(text)
    path, _, query = view.link.partition("?")
    question = state.question
    veiled = (frozenset(question.veils) if question is not None and not state.revealed and question.page == path
              else frozenset())
    explore = "/" + path + "?" + "&".join(part for part in (query, urlencode({"class": code})) if part)
    return 200, view.document(veiled, explore=explore)


async def class_view(request):
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse

    status, body = await run_in_threadpool(view_document, _store(), request.path_params["code"])
    return HTMLResponse(body, status_code=status, headers=HEADERS)


def routes() -> list:
    from starlette.routing import Route

    return [Route("/api/class/{code}/view", class_view, methods=["GET"])]
