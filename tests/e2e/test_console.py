"""Chromium's console on every page: no error of ours.

Opened by its link (`/block`), a page of a multipage app logs two errors that are Streamlit's own: its frontend
first takes the page's path for the app's base URL and asks `/block/_stcore/health` and `/block/_stcore/host-config`
(404), then asks `/_stcore/...` (200) and goes on (Streamlit 1.67's frontend tries the link's path, then its parent;
streamlit/streamlit#7074). Only the page's `index.html` could tell it the base (`window.__streamlit.
MAIN_PAGE_BASE_URL`), and Streamlit serves that file as it is. test_streamlit_itself_logs_two_404s_on_a_deep_link
shows it on a two-page app with nothing of ours (bench/two_pages.py); every page of ours may log those two requests
and nothing else. The pages are those of the session's tour (tests/e2e/tour.py): each opened by its link at a
phone's, a desktop's and a projector's width, its console listened to while the page settles and is measured.
"""
from __future__ import annotations

import pytest

from tests.e2e.conftest import running_app
from tests.e2e.helpers import open_page
from tests.e2e.tour import PAGES

NOT_FOUND = "Failed to load resource: the server responded with a status of 404 (Not Found)"


def console_errors(browser, url: str, path: str) -> list[tuple[str, str]]:
    """(text, where) of every console error and uncaught exception while `path` opens by its link and settles."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(180_000)
    page = context.new_page()
    errors: list[tuple[str, str]] = []
    page.on("console", lambda message: errors.append((message.text, message.location.get("url", "")))
            if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append((f"uncaught: {error}", "")))
    try:
        open_page(page, url, path, timeout_ms=180_000)
        page.wait_for_timeout(1_000)      # anything late (a chart's code loading after the run)
    finally:
        context.close()
    return errors


def streamlits_own(url: str, path: str) -> set[tuple[str, str]]:
    """The two 404s Streamlit's frontend causes on a deep link to `path` (none at the app's root)."""
    if not path:
        return set()
    return {(NOT_FOUND, f"{url}/{path}/_stcore/{endpoint}") for endpoint in ("health", "host-config")}


def test_streamlit_itself_logs_two_404s_on_a_deep_link(browser):
    """The reference: a two-page app with nothing of ours logs exactly those two at /second and nothing at /.
    (When a Streamlit release stops asking, this fails: drop the allowance below.)"""
    with running_app("bench/two_pages.py") as url:
        assert console_errors(browser, url, "") == []
        assert set(console_errors(browser, url, "second")) == streamlits_own(url, "second")


@pytest.mark.parametrize("path", PAGES)
def test_no_console_error_of_ours(tour, app_url, path):
    visits = tour.of(path)
    assert len(visits) == 3 and not [visit.broke for visit in visits if visit.broke]
    ours = [(visit.view, error) for visit in visits for error in visit.console
            if error not in streamlits_own(app_url, path)]
    assert not ours, ours
