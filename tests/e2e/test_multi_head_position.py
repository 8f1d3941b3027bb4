"""Multi-head attention and Position in real Chromium: open, change one value, bad input."""
from __future__ import annotations

from engine.transformer.shipped_model import shipped_available
from tests.e2e.helpers import charts_drawn, error_texts, main_text, open_page, screenshot, wait_for_app


def type_into(page, label: str, text: str) -> None:
    box = page.get_by_role("textbox", name=label, exact=True)
    box.fill(text)
    box.press("Enter")
    wait_for_app(page, after_input=True)


def test_position_same_bag_then_sinusoidal_then_a_different_bag(app_url, browser_page):
    open_page(browser_page, app_url, "position")
    assert "under the rounding tolerance" in main_text(browser_page)
    assert not error_texts(browser_page)
    drawn = charts_drawn(browser_page)
    assert len(drawn) >= 6 and all(drawn)
    screenshot(browser_page, "position-default")
    browser_page.get_by_text("sinusoidal (Vaswani et al.)").click()
    wait_for_app(browser_page, after_input=True)
    text = main_text(browser_page)
    assert "0.749" in text and "now order matters" in text
    assert browser_page.locator("[data-testid='stVegaLiteChart']").count() >= 6
    screenshot(browser_page, "position-sinusoidal")
    type_into(browser_page, "Sentence B: the same words in another order", "the dog saw the owl")
    assert any("same bag" in e for e in error_texts(browser_page))
    assert "The encodings themselves" in main_text(browser_page)
    screenshot(browser_page, "position-bad-input")


def test_multi_head_heads_costs_and_an_unknown_word(app_url, browser_page):
    open_page(browser_page, app_url, "multi-head")
    text = main_text(browser_page)
    assert "2 heads of width d/h = 4" in text and "2,359,296" in text
    assert not error_texts(browser_page)
    drawn = charts_drawn(browser_page)
    assert len(drawn) >= 2 and all(drawn)
    screenshot(browser_page, "multi-head-default")
    browser_page.get_by_text("seeded random (untrained)").click()
    wait_for_app(browser_page, after_input=True)
    assert "Untrained heads" in main_text(browser_page)
    screenshot(browser_page, "multi-head-random")
    type_into(browser_page, "Sentence", "the zebra saw the owl")
    assert any("no vector for: zebra" in e for e in error_texts(browser_page))
    assert "What it costs" in main_text(browser_page)
    screenshot(browser_page, "multi-head-bad-input")
    if shipped_available():
        browser_page.get_by_text("Read a line with the shipped model").click()
        wait_for_app(browser_page, after_input=True)
        assert "character model trained on Shakespeare" in main_text(browser_page)
        drawn = charts_drawn(browser_page)
        assert len(drawn) >= 3 and all(drawn)
        screenshot(browser_page, "multi-head-trained")
