"""The home page and the two attention pages in real Chromium: open, change one value, rerender."""
from __future__ import annotations

from tests.e2e.helpers import error_texts, main_text, open_page, screenshot, wait_for_app


def test_home_lists_the_path(app_url, browser_page):
    open_page(browser_page, app_url)
    assert browser_page.get_by_text("Transformer Playground").first.is_visible()
    assert browser_page.get_by_text("Attention calculator").first.is_visible()
    screenshot(browser_page, "home")


def test_attention_calculator_edit_a_number(app_url, browser_page):
    open_page(browser_page, app_url, "attention")
    assert "0.298" in main_text(browser_page)
    screenshot(browser_page, "attention-default")
    box = browser_page.get_by_role("textbox", name="X (token embeddings)")
    box.fill("crane: 0.8, 0.1, 0.4\nby: 0.9, 0.2, 0.4\nthe: 0.1, 0.9, 0\nlake: 0.7, 0.2, 0.5")
    box.press("Control+Enter")
    wait_for_app(browser_page, after_input=True)
    assert "Done." in main_text(browser_page)  # crane now attends most to by
    assert not error_texts(browser_page)
    screenshot(browser_page, "attention-edited")


def test_attention_calculator_bad_cell_keeps_the_page(app_url, browser_page):
    open_page(browser_page, app_url, "attention")
    box = browser_page.get_by_role("textbox", name="X (token embeddings)")
    box.fill("crane: 0.8, oops, 0.4\nby: 0 1 0.1")
    box.press("Control+Enter")
    wait_for_app(browser_page, after_input=True)
    errors = error_texts(browser_page)
    assert any("'oops' is not a number" in e for e in errors)
    assert "0.298" in main_text(browser_page)  # last good matrix still drawn
    screenshot(browser_page, "attention-bad-input")


def test_context_window_slider(app_url, browser_page):
    open_page(browser_page, app_url, "context?k=3")
    assert "favourite neighbour of" in main_text(browser_page)
    screenshot(browser_page, "context-k3")
    assert not error_texts(browser_page)


def test_a_fresh_servers_first_request_can_be_a_deep_link(browser_page):
    """A teacher's link may be the first thing a restarted Space serves: the app's own navigation
    (not Streamlit's file list) and no 'Page not found' dialog."""
    from tests.e2e.conftest import running_app

    with running_app() as url:
        open_page(browser_page, url, "position")
        nav = browser_page.locator(".st-key-nav").inner_text()
        assert "Tokens & next-token prediction" in nav and "app" not in nav.split()
        assert browser_page.get_by_text("Page not found").count() == 0
        assert "Position" in main_text(browser_page)
