"""Every page: a changed view survives its link, and the page reads at a phone and a projector width.

URL round trip, for each page in ui/path.py: a first session opens the page and changes a
widget whose value the page mirrors into its URL; the link it would share is the query
string the server set (what the browser's address bar shows); a second, fresh session
opens that link and must show the same view: the same widget values and the same text.
Sessions speak Streamlit's own protocol (bench/wsclient.py) to the real server, so this
covers every page in seconds; one page is also checked in Chromium, address bar and all.

Widths: every page is opened in Chromium at 390 px (a phone) and 1920 px (a projector),
screenshots saved under artifacts/screenshots/, and the page must not scroll sideways at
390 px beyond its own wide charts (the page body itself fits).
"""
from __future__ import annotations

import asyncio
import random
from urllib.parse import parse_qsl, urlparse

import pytest

from bench.wsclient import Session, another_value
from tests.e2e.helpers import open_page, screenshot, wait_for_app
from ui.path import ideas

PAGES = ideas()


def view(s: Session, run) -> dict:
    """What a student sees: widget values (as the server drew them) and every text."""
    values = {}
    for widget in s.widgets.values():
        proto = widget.proto
        if widget.kind == "button":
            continue
        value = getattr(proto, "value", None) if getattr(proto, "set_value", False) else getattr(proto, "default", None)
        if widget.kind in ("selectbox", "radio") and getattr(proto, "set_value", False):
            value = proto.raw_value
        values[widget.key or widget.label] = repr(list(value) if hasattr(value, "__len__") and
                                                  not isinstance(value, str) else value)
    return {"widgets": values, "texts": run.texts, "errors": run.errors}


async def round_trip(port: int, url: str, seed: int) -> tuple[dict, dict, str, str]:
    async with Session("127.0.0.1", port, timeout=180) as first:
        run = await first.open(url)
        mirrored = dict(parse_qsl(first.query_string, keep_blank_values=True))
        candidates = [w for w in first.widgets.values() if w.key in mirrored and another_value(w) is not None]
        if not candidates:
            return {}, {}, "", ""
        widget = random.Random(seed).choice(sorted(candidates, key=lambda w: w.key))
        run = await first.set(widget, another_value(widget))
        link = first.query_string
        after = view(first, run)
    async with Session("127.0.0.1", port, timeout=180) as second:
        fresh = await second.open(url, link)
        return after, view(second, fresh), link, widget.key


@pytest.mark.parametrize("idea", PAGES, ids=lambda idea: idea.url)
def test_a_changed_view_survives_its_link(app_url, idea):
    port = urlparse(app_url).port
    after, reopened, link, key = asyncio.run(round_trip(port, idea.url, seed=len(idea.url)))
    if not link:
        pytest.skip(f"{idea.title} mirrors no widget into its URL")
    assert reopened["widgets"] == after["widgets"], f"changed {key!r}; link ?{link[:200]}"
    assert reopened["texts"] == after["texts"], f"changed {key!r}; link ?{link[:200]}"
    assert reopened["errors"] == after["errors"]


def test_the_address_bar_link_opens_the_same_view_in_a_fresh_browser(app_url, browser):
    first = browser.new_context(viewport={"width": 1400, "height": 1000})
    second = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = first.new_page()
        open_page(page, app_url, "attention")
        page.get_by_text("Causal mask (a token sees only itself and earlier ones)").click()
        wait_for_app(page, after_input=True)
        page.wait_for_function("() => location.search.includes('causal=1')", timeout=30_000)
        link = page.url
        seen = page.locator("[data-testid='stMain']").inner_text()
        other = second.new_page()
        other.goto(link, wait_until="domcontentloaded")
        wait_for_app(other)
        assert "causal=1" in link
        assert other.locator("[data-testid='stMain']").inner_text() == seen
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("idea", PAGES, ids=lambda idea: idea.url)
def test_every_page_at_phone_and_projector_width(app_url, browser, idea):
    for width, height in ((390, 844), (1920, 1080)):
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(120_000)
        try:
            page = context.new_page()
            open_page(page, app_url, idea.url, timeout_ms=180_000)
            assert page.locator("[data-testid='stException']").count() == 0
            assert page.locator("h1").first.is_visible()
            body_overflow = page.evaluate(
                "() => document.querySelector(\"[data-testid='stMain']\").scrollWidth - window.innerWidth")
            assert body_overflow <= 2, f"{idea.url} at {width} px scrolls sideways by {body_overflow} px"
            screenshot(page, f"width-{width}-{idea.url}")
        finally:
            context.close()
