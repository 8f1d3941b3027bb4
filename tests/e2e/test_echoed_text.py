"""In Chromium: no text a student types or a link carries makes the browser fetch anything from outside the app, or
typeset a formula out of it (issue 43: `/tokens?level=![a](http://x.invalid/t.png)` made the browser request the
picture; `$\\frac{a}{$` in echoed text drew KaTeX's red error).

Every page of ui.path is opened with the hostile texts of tests/markdown_leaks.py (all four in one value) as the
value of every parameter its link carries, then every text box of the page (main area and sidebar) gets them (all
four at once where the box takes that many characters, else each that fits; a typed matrix also with each as its
first row's label). Every request
the browser makes is recorded: none may leave the app's own address (data: and blob: addresses are the page's own);
no picture or link may point at the hostile host, and no KaTeX error may show. AppTest reads the same pages' Markdown
in tests/pages/test_echoed_text.py (cheaper, and it reaches the boxes behind switches).
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from tests.e2e.helpers import open_page, wait_for_app
from tests.markdown_leaks import HOST, HOSTILE, TOGETHER
from ui.path import ideas
from ui.url_state import APP_PARAMS

TIMEOUT_MS = 180_000
BOXES = ("[data-testid='stMain'] input[type='text'], [data-testid='stMain'] textarea, "
         "[data-testid='stSidebar'] input[type='text'], [data-testid='stSidebar'] textarea")
MATRIX_ROW = re.compile(r"^[^\n:]*:\s*-?\d")


def _values(limit: int | None) -> list[str]:
    if not limit or limit >= len(TOGETHER):
        return [TOGETHER]
    return [value for value in HOSTILE.values() if len(value) <= limit] or [TOGETHER[:limit]]


def _labelled(matrix: str, label: str) -> str:
    lines = matrix.splitlines()
    return "\n".join([f"{label}: {lines[0].rpartition(':')[2].strip()}", *lines[1:]])


class Watch:
    """What the browser asked for and drew, since the last look."""

    def __init__(self, page, app_url: str) -> None:
        self.page, self.origin = page, urlparse(app_url).netloc
        self.requests: list[str] = []
        self.problems: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url))

    def look(self, what: str) -> None:
        outside = [url for url in self.requests
                   if urlparse(url).scheme not in ("data", "blob", "about") and urlparse(url).netloc != self.origin]
        self.requests.clear()
        if outside:
            self.problems.append(f"{what}: the browser requested {outside[:3]}")
        for selector, found in ((".katex-error", "KaTeX's error"), (f"img[src*='{HOST}']", "a picture from it"),
                                (f"a[href*='{HOST}']", "a link to it")):
            count = self.page.locator(selector).count()
            if count:
                self.problems.append(f"{what}: {count} x {found}")


@pytest.mark.parametrize("idea", ideas(), ids=lambda idea: idea.url)
def test_nothing_typed_or_linked_makes_the_browser_fetch_or_typeset(idea, app_url, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    watch = Watch(page, app_url)
    try:
        open_page(page, app_url, idea.url, TIMEOUT_MS)
        watch.look("first view")
        names = [name for name in parse_qs(urlparse(page.url).query, keep_blank_values=True) if name not in APP_PARAMS]
        if names:   # all four texts in one value: each parameter echoes it whole or falls back quoting it
            open_page(page, app_url, f"{idea.url}?{urlencode({name: TOGETHER for name in names})}", TIMEOUT_MS)
            watch.look(f"link ?*={TOGETHER}")
        open_page(page, app_url, idea.url, TIMEOUT_MS)
        typed = 0
        for index in range(page.locator(BOXES).count()):
            box = page.locator(BOXES).nth(index)
            if not box.count() or not box.is_editable():
                continue
            limit = box.get_attribute("maxlength")
            values = _values(int(limit) if limit else None)
            current = box.input_value()
            if box.evaluate("e => e.tagName") == "TEXTAREA" and MATRIX_ROW.match(current):
                values += [_labelled(current, label) for label in HOSTILE.values()]
            for value in values:
                box = page.locator(BOXES).nth(index)
                if not box.count():
                    break
                box.fill(value)
                box.press("Control+Enter" if box.evaluate("e => e.tagName") == "TEXTAREA" else "Enter")
                wait_for_app(page, TIMEOUT_MS, after_input=True)
                watch.look(f"box {index} <- {value[:50]!r}")
                typed += 1
            open_page(page, app_url, idea.url, TIMEOUT_MS)     # the next box starts from the page as it opens
        print(f"{idea.url}: {len(names)} link values and {typed} typed values")
    finally:
        context.close()
    assert not watch.problems, f"{idea.title}:\n" + "\n".join(watch.problems[:30])
