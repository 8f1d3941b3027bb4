"""Tokens and N-gram sampler pages in real Chromium: defaults, one change each, bad input."""
from __future__ import annotations

from tests.e2e.helpers import error_texts, main_text, open_page, screenshot, wait_for_app

FIRST_LOAD_MS = 180_000  # the first visit reads the corpus and counts n-grams (cached afterwards)


def settle(page) -> None:
    """Scroll to the foot and back so that every chart below the fold has drawn before a screenshot."""
    scroll = """(to) => { const main = document.querySelector("[data-testid='stMain']") || document.scrollingElement;
                          main.scrollTo(0, to === 'end' ? main.scrollHeight : 0); }"""
    page.evaluate(scroll, "end")
    page.wait_for_timeout(800)
    page.evaluate(scroll, "top")
    page.wait_for_timeout(300)


def test_tokens_page(app_url, browser_page):
    open_page(browser_page, app_url, "tokens", timeout_ms=FIRST_LOAD_MS)
    text = main_text(browser_page)
    assert "GPT-2 BPE" in text and "Watch BPE learn" in text and "Next-token prediction" in text
    assert not error_texts(browser_page)
    assert browser_page.locator("[data-testid='stVegaLiteChart']").count() >= 2
    settle(browser_page)
    screenshot(browser_page, "tokens-default")

    box = browser_page.get_by_role("textbox", name="Context (the text so far)", exact=True)
    box.fill("To be or not to")
    box.press("Enter")
    wait_for_app(browser_page, after_input=True)
    assert "the context 'not to' was followed" in main_text(browser_page)
    settle(browser_page)
    screenshot(browser_page, "tokens-to-be")


def test_tokens_page_bad_text(app_url, browser_page):
    open_page(browser_page, app_url, "tokens?text=caf%C3%A9%20%E2%98%83", timeout_ms=FIRST_LOAD_MS)
    errors = error_texts(browser_page)
    assert any("never saw" in e for e in errors)
    assert "GPT-2 BPE" in main_text(browser_page)
    settle(browser_page)
    screenshot(browser_page, "tokens-unknown-characters")


def test_ngram_page(app_url, browser_page):
    open_page(browser_page, app_url, "ngram", timeout_ms=FIRST_LOAD_MS)
    text = main_text(browser_page)
    assert "A sample, and the second failure" in text and "First failure" in text
    assert "Highlighted: a loop of" in text  # the chapter's loop, by default
    assert not error_texts(browser_page)
    assert browser_page.locator("[data-testid='stVegaLiteChart']").count() >= 3
    settle(browser_page)
    screenshot(browser_page, "ngram-default")

    open_page(browser_page, app_url, "ngram?temperature=0.0&seed=3", timeout_ms=FIRST_LOAD_MS)
    assert "Highlighted: a loop of" in main_text(browser_page)
    settle(browser_page)
    screenshot(browser_page, "ngram-greedy-loop")


def test_ngram_page_characters_and_bad_temperature(app_url, browser_page):
    open_page(browser_page, app_url, "ngram?level=characters&n=5&source=Hamlet", timeout_ms=FIRST_LOAD_MS)
    assert not error_texts(browser_page)
    assert "For n = 5 the table has one row per context of 4 tokens" in main_text(browser_page)
    settle(browser_page)
    screenshot(browser_page, "ngram-hamlet-characters")

    # a link's temperature past the limit: the page opens as usual at the default, and says so (a warning)
    open_page(browser_page, app_url, "ngram?temperature=1000000", timeout_ms=FIRST_LOAD_MS)
    assert not error_texts(browser_page)
    warnings = browser_page.locator("[data-testid='stAlertContentWarning']").all_inner_texts()
    assert any("The link's value for 'temperature' ('1000000')" in w for w in warnings), warnings
    assert "Held-out cross-entropy: what a longer context buys" in main_text(browser_page)
    settle(browser_page)
    screenshot(browser_page, "ngram-bad-temperature")
