"""The Embedding explorer in real Chromium: the default analogy, a preset that lands second, bad input."""
from __future__ import annotations

from tests.e2e.helpers import error_texts, main_text, open_page, screenshot, wait_for_app


def type_into(page, label: str, text: str) -> None:
    box = page.get_by_role("textbox", name=label, exact=True)
    box.fill(text)
    box.press("Enter")
    wait_for_app(page, after_input=True)


def test_default_analogy_and_map(app_url, browser_page):
    open_page(browser_page, app_url)  # from the home page, through the app's navigation
    browser_page.get_by_role("link", name="Embedding explorer").first.click()
    wait_for_app(browser_page, after_input=True)
    text = main_text(browser_page)
    assert "france : paris :: italy : ?" in text and "rome" in text  # the page's own question
    assert "A 2-D map of the offsets" in text and "crane in two sentences" in text
    assert not error_texts(browser_page)
    assert browser_page.locator("[data-testid='stVegaLiteChart']").count() >= 5
    screenshot(browser_page, "embeddings-default")


def test_expected_answer_that_lands_second(app_url, browser_page):
    open_page(browser_page, app_url, "embeddings?a=go&b=went&c=see&d=saw&preset=(your%20own)")
    text = main_text(browser_page)
    assert "saw lands at rank 2" in text and "the top answer is came" in text
    assert "Find an analogy the vectors get wrong" in text and "Done." in text
    screenshot(browser_page, "embeddings-lands-second")


def test_unknown_word_shows_a_sentence_and_keeps_the_page(app_url, browser_page):
    open_page(browser_page, app_url, "embeddings")
    type_into(browser_page, "c", "womn")
    errors = error_texts(browser_page)
    assert any("'womn' is not among the 400,000 words" in e and "'woman'" in e for e in errors)
    text = main_text(browser_page)
    assert "Nearest words to a word or to a sum you compose" in text and "One vector per word form" in text
    screenshot(browser_page, "embeddings-bad-word")


def test_homonym_and_sum(app_url, browser_page):
    open_page(browser_page, app_url, "embeddings?homonym=pitcher&leave_out=0&query=king%20-%20man%20%2B%20woman")
    text = main_text(browser_page)
    assert "closer to jug (jug)" in text.replace("*", "")
    assert "The nearest word is king" in text
    screenshot(browser_page, "embeddings-pitcher-and-sum")
