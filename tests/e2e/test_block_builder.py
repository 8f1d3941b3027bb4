"""The Block builder in real Chromium: the chapter's block, a preset by link, a live run, a bad width; the
diagram on a machine without Graphviz."""
from __future__ import annotations

import base64
import shutil

import pytest

from tests.e2e.conftest import running_app
from tests.e2e.helpers import error_texts, main_text, open_page, screenshot, wait_for_app


def drawn_svg(page) -> str:
    """The block diagram's SVG, as the image on the page carries it."""
    source = page.locator("img.diagram").get_attribute("src")
    return base64.b64decode(source.removeprefix("data:image/svg+xml;base64,")).decode()


def test_default_block_and_diagram(app_url, browser_page):
    open_page(browser_page, app_url, "block", timeout_ms=180_000)
    text = main_text(browser_page)
    assert "27,808 parameters" in text and "Data flow, with shapes at each arrow" in text
    # laid out by the engine (engine.charts.diagrams) on every machine, named for a screen reader
    diagram = browser_page.locator("img.diagram")
    assert diagram.count() == 1 and "residual connections" in diagram.get_attribute("alt")
    assert diagram.evaluate("(img) => img.complete && img.naturalWidth > 100")
    assert ">feed-forward sublayer</text>" in drawn_svg(browser_page)
    assert not error_texts(browser_page)
    screenshot(browser_page, "block-default")


def test_without_graphviz_the_same_diagram_and_its_switch(browser, tmp_path):
    """A machine with only the Python packages: the server's PATH holds no `dot`. The page draws the engine's
    SVG (no diagram laid out in the browser), and the residual switch redraws it without the residual arrows."""
    bare = tmp_path / "bin"
    bare.mkdir()
    assert shutil.which("dot", path=str(bare)) is None
    with running_app(PATH=str(bare)) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(180_000)
        page = context.new_page()
        try:
            open_page(page, url, "block", timeout_ms=180_000)
            diagram = page.locator("img.diagram")
            assert diagram.count() == 1 and page.locator("[data-testid='stGraphVizChart']").count() == 0
            assert "; residual connections around attention" in diagram.get_attribute("alt")
            assert drawn_svg(page).count(">residual</text>") == 2
            page.locator("[data-testid='stCheckbox']").filter(has_text="Residual connections").locator(
                "label").first.click()
            wait_for_app(page, after_input=True)
            assert diagram.get_attribute("alt").endswith("; no residual connections.")
            assert ">residual</text>" not in drawn_svg(page)
            assert diagram.evaluate("(img) => img.complete && img.naturalWidth > 100")
            assert not error_texts(page) and page.locator("[data-testid='stGraphVizChart']").count() == 0
            screenshot(page, "block-without-dot")
        finally:
            context.close()


def test_gpt2_preset_by_link(app_url, browser_page):
    open_page(browser_page, app_url, "block?bb_preset=GPT-2%20small", timeout_ms=180_000)
    text = main_text(browser_page)
    assert "124,439,808 parameters" in text and "exactly the count of OpenAI's released checkpoint" in text
    screenshot(browser_page, "block-gpt2")


def test_a_live_run_draws_its_curve(app_url, browser_page):
    open_page(browser_page, app_url, "block?bb_steps=40&bb_batch=4", timeout_ms=180_000)
    browser_page.get_by_role("button", name="Train").click()
    browser_page.wait_for_function(
        "() => (document.querySelector(\"[data-testid='stMain']\") || {}).innerText.includes('Held-out figures')",
        timeout=180_000)
    wait_for_app(browser_page)
    text = main_text(browser_page)
    assert "#1: d=32 h=4 N=2" in text and not error_texts(browser_page)
    assert browser_page.locator("[data-testid='stVegaLiteChart']").count() >= 3   # the block, the curves, heads forming
    assert "Watch heads form" in text and "the strongest induction head is L" in text
    screenshot(browser_page, "block-trained")


def test_width_that_does_not_split_into_heads(app_url, browser_page):
    open_page(browser_page, app_url, "block?bb_d_model=30", timeout_ms=180_000)
    assert any("must split evenly into h = 4 heads" in e for e in error_texts(browser_page))
    assert "Train it live on Shakespeare" in main_text(browser_page)
    screenshot(browser_page, "block-bad-width")


@pytest.mark.parametrize("lang", ["es", "ar"])
def test_on_a_phone_the_diagram_reads_in_the_language_at_a_readable_size(app_url, browser, lang):
    """At 390 px the diagram is laid out for the phone's column (engine.charts.diagrams.fitted_layout): scaled to
    the column, its smallest text (13 px labels) is drawn at 11 px or more (Arabic's was under 8); its words are the
    reader's (the frame's title, 'residual', the parameter counts)."""
    from engine import i18n
    from engine.charts.diagrams import LABEL_FONT_PX
    from engine.charts.style import MIN_TEXT_SIZE

    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(180_000)
    try:
        page = context.new_page()
        open_page(page, app_url, f"block?lang={lang}", timeout_ms=180_000)
        diagram = page.locator("img.diagram")
        drawn, natural = diagram.evaluate("(img) => [img.getBoundingClientRect().width, img.naturalWidth]")
        svg = drawn_svg(page)
        assert not error_texts(page)
    finally:
        context.close()
    assert LABEL_FONT_PX * drawn / natural >= MIN_TEXT_SIZE, (drawn, natural)
    with i18n.use(lang):
        said = [i18n.ngettext("block, repeated N = {n} time", "block, repeated N = {n} times", 2),
                i18n._("residual"), i18n._("token ids")]
    for words in said:
        assert f">{words}</text>" in svg
    assert "block, repeated N" not in svg and ">token ids</text>" not in svg
