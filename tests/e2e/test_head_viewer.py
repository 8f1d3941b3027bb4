"""The head viewer in real Chromium: the model view, a click on one head, hovering a query token."""
from __future__ import annotations

from tests.e2e.helpers import error_texts, open_page, screenshot, wait_for_app

SMOLLM2_TIMEOUT_MS = 240_000   # the first visit loads SmolLM2 into the server (seconds on a busy machine)


def open_heads(page, app_url):
    open_page(page, app_url, "heads", timeout_ms=SMOLLM2_TIMEOUT_MS)


def test_head_viewer_click_a_head_and_hover_a_token(app_url, browser_page):
    page = browser_page
    open_heads(page, app_url)
    assert not error_texts(page)
    assert page.get_by_text("Layer 16, head 0: previous-token").is_visible()
    screenshot(page, "heads-default")

    # the model view draws one picture per head, layer by layer: (18, 6) is number 18 * 9 + 6
    pictures = page.locator("[data-testid='stVegaLiteChart']").first.locator("g.mark-image image")
    assert pictures.count() == 270
    pictures.nth(18 * 9 + 6).click()
    wait_for_app(page, timeout_ms=SMOLLM2_TIMEOUT_MS, after_input=True)
    assert page.get_by_text("Layer 18, head 6: induction").is_visible()
    assert "layer=18" in page.url and "head=6" in page.url

    lines = page.locator("[data-testid='stVegaLiteChart']").nth(1)
    lines.scroll_into_view_if_needed()
    lines.locator("g.mark-text text").nth(9).hover()      # the query ' it' on the left
    page.wait_for_timeout(500)
    screenshot(page, "heads-layer18-head6-hover", full_page=False)
    assert not error_texts(page)


def test_head_viewer_bad_input_keeps_the_page(app_url, browser_page):
    page = browser_page
    open_heads(page, app_url)
    box = page.get_by_role("textbox", name="Sentence")
    box.fill(" ")
    box.press("Control+Enter")
    wait_for_app(page, timeout_ms=SMOLLM2_TIMEOUT_MS, after_input=True)
    assert any("Type some text" in e for e in error_texts(page))
    assert page.get_by_text("Further reading").is_visible()
    screenshot(page, "heads-empty-text", full_page=False)


def test_tokens_page_draws_smollm2_beside_the_ngram(app_url, browser_page):
    page = browser_page
    open_page(page, app_url, "tokens", timeout_ms=SMOLLM2_TIMEOUT_MS)
    assert not error_texts(page)
    chart = page.get_by_text("SmolLM2-135M, web text").first
    chart.scroll_into_view_if_needed()
    assert chart.is_visible()
    screenshot(page, "tokens-with-smollm2", full_page=False)
