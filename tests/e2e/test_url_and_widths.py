"""Every page: a changed view survives its link, and the page reads at a phone and a projector width.

URL round trip, for each page in ui/path.py: a first session opens the page and changes a
widget whose value the page mirrors into its URL; the link it would share is the query
string the server set (what the browser's address bar shows); a second, fresh session
opens that link and must show the same view: the same widget values and the same text.
The same view: the same text on the page (every sentence, number and formula) and the
same teaching state written back into the address bar.
Sessions speak Streamlit's own protocol (bench/wsclient.py) to the real server, so this
covers every page in seconds; one page is also checked in Chromium, address bar and all.

Widths: every page is opened in Chromium at 390 px (a phone) and 1920 px (a projector, in
projector mode), screenshots saved under artifacts/screenshots/, and the page must not scroll
sideways beyond its own wide charts (the page body itself fits): the session's tour of every
page (tests/e2e/tour.py) opens and measures them.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import random
from urllib.parse import parse_qsl, urlparse

import pytest

from bench.wsclient import Session, another_value
from tests.e2e.helpers import open_page, wait_for_app
from tests.e2e.tour import VIEWS
from ui.path import ideas

PAGES = ideas()


def view(s: Session, run) -> dict:
    """What a student sees and what the page would put in the address bar again."""
    return {"link": s.query_string, "texts": run.texts, "errors": run.errors, "warnings": run.warnings}


async def round_trip(port: int, url: str, seed: int) -> tuple[dict, dict, str, str]:
    async with Session("127.0.0.1", port, timeout=180) as first:
        run = await first.open(url)
        mirrored = dict(parse_qsl(first.query_string, keep_blank_values=True))
        candidates = [w for w in first.widgets.values()
                      if w.key.split(".", 1)[-1] in mirrored and another_value(w) is not None]
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
    # A thread of its own: the session's playwright browser already runs an event loop in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        after, reopened, link, key = pool.submit(asyncio.run, round_trip(port, idea.url, seed=len(idea.url))).result()
    if not link:
        pytest.skip(f"{idea.title} mirrors no widget into its URL")
    assert dict(parse_qsl(reopened["link"])) == dict(parse_qsl(after["link"])), f"changed {key!r}"
    assert reopened["texts"] == after["texts"], f"changed {key!r}; link ?{link[:200]}"
    assert reopened["errors"] == after["errors"] and reopened["warnings"] == after["warnings"]


def teaching_text(page) -> list[str]:
    """The page's text from the title to 'Further reading' (the worked numbers, formulas and
    sentences), one stripped line each."""
    text = page.locator("[data-testid='stMain']").inner_text().split("Further reading")[0]
    return [line.strip() for line in text.splitlines() if line.strip()]


def test_the_address_bar_link_opens_the_same_view_in_a_fresh_browser(app_url, browser):
    first = browser.new_context(viewport={"width": 1400, "height": 1000})
    second = browser.new_context(viewport={"width": 1400, "height": 1000})
    for context in (first, second):
        context.set_default_timeout(120_000)   # a shared 2-core machine: a busy moment is not a failure
    try:
        page = first.new_page()
        open_page(page, app_url, "attention", timeout_ms=120_000)
        page.get_by_text("Causal mask (a token sees only itself and earlier ones)").click()
        wait_for_app(page, after_input=True)
        page.wait_for_function("() => location.search.includes('causal=1')", timeout=30_000)
        link = page.url
        seen = teaching_text(page)
        other = second.new_page()
        other.goto(link, wait_until="domcontentloaded")
        other.get_by_text("Step by step for the query").first.wait_for(timeout=120_000)
        wait_for_app(other)
        assert "causal=1" in link
        assert teaching_text(other) == seen
        assert "causal=1" in other.url
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("idea", PAGES, ids=lambda idea: idea.url)
def test_every_page_at_phone_and_projector_width(tour, idea):
    """From the session's tour of every page (tests/e2e/tour.py), which saved the screenshots."""
    for view in ("phone", "projector"):
        visit = tour.visits[(view, idea.url)]
        width = VIEWS[view][0]
        assert not visit.broke, f"{idea.url} at {width} px: {visit.broke}"
        assert visit.exceptions == 0
        assert visit.title_visible
        assert visit.overflow <= 2, f"{idea.url} at {width} px scrolls sideways by {visit.overflow} px"
