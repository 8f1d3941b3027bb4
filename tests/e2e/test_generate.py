"""The Generate page in real Chromium: samples side by side, the ladder, greedy decoding, an empty prompt."""
from __future__ import annotations

from tests.e2e.helpers import error_texts, main_text, open_page, screenshot


def test_samples_distributions_and_ladder(app_url, browser_page):
    open_page(browser_page, app_url, "generate?gen_length=60", timeout_ms=240_000)
    text = main_text(browser_page)
    assert "Samples from the same prompt and seed" in text and "The model ladder" in text
    assert "needs minutes of training to beat a Kneser-Ney 4-gram" in text
    assert not error_texts(browser_page)
    assert browser_page.locator("[data-testid='stVegaLiteChart']").count() >= 2
    screenshot(browser_page, "generate-default")


def test_greedy_and_empty_prompt(app_url, browser_page):
    open_page(browser_page, app_url,
              "generate?gen_length=60&gen_temperature=0.0&gen_models=shipped%20transformer,5-gram",
              timeout_ms=240_000)
    assert "Done." in main_text(browser_page)
    screenshot(browser_page, "generate-greedy")
    open_page(browser_page, app_url, "generate?gen_prompt=&gen_length=20", timeout_ms=240_000)
    assert any("prompt is empty" in e for e in error_texts(browser_page))
    assert "The model ladder" in main_text(browser_page)
    screenshot(browser_page, "generate-empty-prompt")
