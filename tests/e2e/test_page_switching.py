"""Real sidebar clicks in one browser session: the pairs a student hit first (issue: pages that
shared session keys showed "The X is empty" or "Type some text first" after a switch)."""
from __future__ import annotations

import pytest

from tests.e2e.helpers import error_texts, open_page, screenshot, wait_for_app
from ui.path import ideas

TITLES = {idea.url: idea.title for idea in ideas()}
ROUTE = ["attention", "context", "attention", "embeddings", "ngram", "tokens", "position", "multi-head"]


def click_in_sidebar(page, url: str) -> None:
    page.locator(".st-key-nav").get_by_text(TITLES[url], exact=True).click()
    page.wait_for_url(f"**/{url}**")
    wait_for_app(page, timeout_ms=180_000, after_input=True)


@pytest.mark.parametrize("route", [ROUTE])
def test_sidebar_clicks_show_each_page_as_it_opens_alone(app_url, browser, tour, route):
    alone = {}                          # each page opened alone, by its link, at this width (the session's tour)
    for url in set(route):
        visit = tour.visits[("desktop", url)]
        assert not visit.broke, (url, visit.broke)
        alone[url] = visit.errors

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    open_page(page, app_url, route[0], timeout_ms=180_000)
    differences = []
    for before, after in zip(route, route[1:]):
        click_in_sidebar(page, after)
        now = sorted(error_texts(page))
        if now != alone[after]:
            screenshot(page, f"switch-{before}-to-{after}")
            differences.append(f"{before} -> {after}: {now} (alone: {alone[after]})")
    context.close()
    assert not differences, "\n".join(differences)
