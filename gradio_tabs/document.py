"""The Space's page in one language, and in Arabic right to left: `?lang=` in the link, else the browser's language,
else English (the Streamlit app's order, ui/language.py), for the static text the browser translates (gr.I18n) as
for the texts each event writes (gradio_tabs.common.language_of).

Gradio's frontend picks gr.I18n's locale from `navigator.language` alone, as it starts (svelte-i18n, in
gradio/templates/frontend), before any `head` or `js` of the app's runs; so the page itself is rewritten as it is
served (ASGI middleware, `DocumentLanguage`): its <html> gets the language's `lang` and `dir`, and a script at the
top of its <head>, which runs before the frontend's modules, makes `navigator.language` the chosen language. In a
right-to-left language a style sheet turns the page's prose right to left and keeps what reads left to right in
every language so: formulas, code, tables of numbers, charts and sliders. Nothing is fetched.
"""
from __future__ import annotations

import html
import json
import re

from engine import i18n
from gradio_tabs.common import LANG_PARAM, browser_locales, chosen

# Gradio's Markdown marks its box dir="ltr" unless built with rtl=True (once, for every visitor): the style turns the
# prose right to left under a right-to-left page, and keeps left to right what reads so in every language
RTL_STYLE = """
html[dir=rtl] .prose, html[dir=rtl] .prose[dir] { direction: rtl; text-align: start; }
html[dir=rtl] .katex, html[dir=rtl] .katex-display, html[dir=rtl] pre, html[dir=rtl] code,
html[dir=rtl] .table-wrap, html[dir=rtl] .prose table, html[dir=rtl] [data-testid=altair],
html[dir=rtl] input[type=range], html[dir=rtl] input[type=number], html[dir=rtl] textarea, html[dir=rtl] .cm-editor
  { direction: ltr; unicode-bidi: isolate; }
/* a table's block is marked dir="ltr" by Gradio: its label reads right to left, its cells (numbers, formulas) left
   to right, a formula's cell too */
html[dir=rtl] .table-container .header-row { direction: rtl; }
html[dir=rtl] .table-wrap .prose { direction: ltr; text-align: left; }
html[dir=rtl] .katex-display { text-align: center; }
/* a chart's own words (an Arabic axis title with its brackets) read in the direction of their first letter: drawn
   as SVG in a right-to-left language (gradio_tabs.common.plot), each text element by itself */
html[dir=rtl] [data-testid=altair] svg text { unicode-bidi: plaintext; }
"""

_HTML_TAG = re.compile(rb"<html\b[^>]*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(rb"""\s(?:lang|dir)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)
_HEAD_TAG = re.compile(rb"<head\b[^>]*>", re.IGNORECASE)


def page_language(query_string: bytes | str, accept_language: str | None) -> i18n.Language:
    """The language a page request reads: its ?lang=, else the browser's (Accept-Language), else English."""
    from urllib.parse import parse_qs

    query = query_string.decode("latin-1") if isinstance(query_string, bytes) else query_string
    code = chosen([(parse_qs(query).get(LANG_PARAM) or [None])[0]], accept_language)
    return i18n.language(code) or i18n.LANGUAGES[i18n.SOURCE]


def head_of(language: i18n.Language) -> bytes:
    """What the page's <head> starts with for `language`: the script that makes the frontend read it (and sets the
    document's lang and dir again, should anything have reset them), and in a right-to-left language its style."""
    locale = browser_locales(language.code)[0]
    script = ("(() => { const locale = %s; const root = document.documentElement;"
              " Object.defineProperty(navigator, 'language', { get: () => locale, configurable: true });"
              " Object.defineProperty(navigator, 'languages', { get: () => [locale], configurable: true });"
              " root.lang = %s; root.dir = %s; })();") % (
        json.dumps(locale), json.dumps(language.code), json.dumps(language.direction))
    style = f"<style id=\"playground-direction\">{RTL_STYLE}</style>" if language.direction == "rtl" else ""
    return f"<script id=\"playground-language\">{script}</script>{style}".encode()


def in_language(page: bytes, language: i18n.Language) -> bytes:
    """The served page (Gradio's index.html) with its <html lang dir> set and `head_of` at the top of its <head>."""
    attributes = f' lang="{html.escape(language.code)}" dir="{language.direction}"'.encode()

    def marked(found: re.Match) -> bytes:
        tag = _ATTRIBUTE.sub(b"", found.group(0))     # "<html ...>", its own lang and dir taken out
        return tag[:5] + attributes + tag[5:]
    page = _HTML_TAG.sub(marked, page, count=1)
    return _HEAD_TAG.sub(lambda found: found.group(0) + head_of(language), page, count=1)


class DocumentLanguage:
    """ASGI middleware: the Space's page (GET of its root) served in its reader's language (`in_language`); every
    other answer (the API, files, the frontend's assets) passes as it is."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        # the page is the root, whether the server writes a root_path (a proxy's prefix) into the path or not
        root = (scope.get("root_path") or "").rstrip("/")
        if scope["type"] != "http" or scope.get("method") != "GET" \
                or scope.get("path", "").rstrip("/") not in ("", root):
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        language = page_language(scope.get("query_string", b""),
                                 headers.get(b"accept-language", b"").decode("latin-1"))
        start: dict | None = None
        body: list[bytes] = []

        async def rewritten(message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                response_headers = dict(message.get("headers") or [])
                if response_headers.get(b"content-type", b"").startswith(b"text/html") \
                        and b"content-encoding" not in response_headers:
                    start = message             # held until the whole page is here
                    return
            elif message["type"] == "http.response.body" and start is not None:
                body.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                page = in_language(b"".join(body), language)
                kept = [(name, value) for name, value in start.get("headers") or [] if name != b"content-length"]
                await send(start | {"headers": [*kept, (b"content-length", str(len(page)).encode())]})
                await send({"type": "http.response.body", "body": page})
                return
            await send(message)

        await self.app(scope, receive, rewritten)


def middleware() -> list:
    """launch(app_kwargs={"middleware": ...}): the page in its reader's language."""
    from starlette.middleware import Middleware

    return [Middleware(DocumentLanguage)]
