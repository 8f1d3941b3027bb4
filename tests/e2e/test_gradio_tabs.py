"""The Gradio Space in headless Chromium: every tab opened in the chapter's order, each of its buttons
pressed, no error shown and every chart drawn; a bad input shows the engine's sentence. Screenshots land
in artifacts/screenshots/gradio-<page>.png."""
from __future__ import annotations

import os
import sys
import time

import pytest

from tests.e2e.conftest import ROOT, _free_port, serving
from ui.path import PATH

pytest.importorskip("gradio", reason="requirements-test.txt installs gradio")
SHOTS = ROOT / "artifacts" / "screenshots"
WITHOUT_CHARTS = {"ngram"}      # the sampler's tab answers in text and a table


@pytest.fixture(scope="module")
def gradio_url():
    """`python gradio_app.py` on a free loopback port (no analytics, nothing fetched)."""
    port = _free_port()
    env = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port),
               GRADIO_ANALYTICS_ENABLED="False", PYTHONUNBUFFERED="1")
    url = f"http://127.0.0.1:{port}/"
    with serving([sys.executable, "gradio_app.py"], url, url, env, seconds=90) as served:
        yield served


def settle(page, timeout_s: float = 120) -> None:
    """Wait until no output is pending (Gradio marks running events' outputs), then a moment for Vega."""
    page.wait_for_timeout(300)
    deadline = time.time() + timeout_s
    while page.locator(".pending, .generating").count() and time.time() < deadline:
        page.wait_for_timeout(250)
    page.wait_for_timeout(300)


def open_tab(page, part: str, title: str) -> None:
    page.get_by_role("tab", name=part, exact=True).first.click()
    page.get_by_role("tab", name=title, exact=True).last.click()        # "Beyond words" names both
    settle(page)


def test_every_tab_runs_its_buttons_without_an_error(gradio_url, browser_page):
    page = browser_page
    page.goto(gradio_url)
    page.wait_for_selector("button[role=tab]")
    settle(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for part, group in PATH.items():
        for idea in group:
            open_tab(page, part, idea.title)
            panel = page.locator("[role=tabpanel]:visible").last
            buttons = panel.locator("button.primary:visible")
            for number in range(buttons.count()):
                buttons.nth(number).click()
                settle(page)
            errors = page.locator(".toast-body").all_inner_texts()
            assert not errors, (idea.url, errors)
            if idea.url not in WITHOUT_CHARTS:
                assert panel.locator("canvas, svg.marks").count() >= 1, f"{idea.url}: no chart drawn"
            page.screenshot(path=str(SHOTS / f"gradio-{idea.url}.png"), full_page=True)


def test_a_bad_input_shows_the_engines_sentence(gradio_url, browser_page):
    page = browser_page
    page.goto(gradio_url)
    page.wait_for_selector("button[role=tab]")
    open_tab(page, "Attention", "Attention calculator")
    page.get_by_role("textbox", name="X (token embeddings)").fill("crane: 0.8, oops, 0.4")
    page.get_by_role("button", name="Compute attention").click()
    toast = page.locator(".toast-body").first
    toast.wait_for()
    assert "'oops' is not a number" in toast.inner_text()
    page.wait_for_timeout(800)                      # the toast slides in
    page.screenshot(path=str(SHOTS / "gradio-attention-bad-input.png"))


def test_the_take_home_box_gives_the_tabs_handout_and_its_charts(gradio_url, browser_page, tmp_path):
    """The Attention calculator tab's "Take this tab home" box: the handout downloads as a PDF with the worked example's
    numbers, and the heatmap as SVG, PNG and CSV, with no error shown (gradio_tabs/take_home.py)."""
    from tests.engine.charts.test_handout import pdf_text

    page = browser_page
    page.goto(gradio_url)
    page.wait_for_selector("button[role=tab]")
    open_tab(page, "Attention", "Attention calculator")
    panel = page.locator("[role=tabpanel]:visible").last
    panel.get_by_text("Take this tab home").click()
    panel.get_by_role("button", name="Make the handout (PDF)").click()
    # each file's link is what to wait for: on a loaded machine an event can be queued before it is marked pending
    panel.locator("a[download='attention-calculator-handout-a4.pdf']").wait_for(timeout=180_000)
    panel.get_by_role("button", name="Download the charts (SVG, PNG, CSV)").click()
    panel.locator("a[download='alpha-each-row-sums-to-1.csv']").wait_for(timeout=180_000)
    settle(page)
    assert not page.locator(".toast-body").all_inner_texts()
    names = panel.locator("a[download]").evaluate_all("links => links.map(link => link.getAttribute('download'))")
    assert "attention-calculator-handout-a4.pdf" in names
    assert {f"alpha-each-row-sums-to-1.{kind}" for kind in ("svg", "png", "csv")} <= set(names)
    with page.expect_download() as download:
        panel.locator("a[download='attention-calculator-handout-a4.pdf']").click()
    path = tmp_path / "handout.pdf"
    download.value.save_as(path)
    assert "0.298 0.203 0.206 0.293" in pdf_text(path.read_bytes())
    page.screenshot(path=str(SHOTS / "gradio-attention-take-home.png"))


@pytest.mark.parametrize("locale, code", [("ko-KR", "ko"), ("ar-EG", "ar")])
def test_a_browser_in_another_language_reads_the_spaces_labels_in_it(gradio_url, browser, locale, code):
    """The static text (tabs, labels, buttons) is translated by the browser from the Space's gr.I18n: a Korean or
    Arabic browser reads its tabs and the first tab's button in its language (tests/test_gradio_static_language.py
    checks every text; this, that the frontend picks the language and finds the keys)."""
    from engine import i18n

    context = browser.new_context(locale=locale, viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(gradio_url)
        page.wait_for_selector("button[role=tab]")
        with i18n.use(code):
            part, button = i18n._("Language modelling"), i18n._("Predict the next token")
        assert part != "Language modelling"
        page.get_by_role("tab", name=part, exact=True).first.wait_for(timeout=30_000)
        page.get_by_role("button", name=button, exact=True).first.wait_for(timeout=30_000)
        assert "__i18n__" not in page.locator("body").inner_text()
        assert page.evaluate("document.documentElement.dir") == ("rtl" if code == "ar" else "ltr")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"gradio-{code}.png"))
    finally:
        context.close()


def _opened(browser, url: str, locale: str = "en-US", width: int = 1400):
    """A fresh browser context reading `locale`, at `url`, once the Space's tabs are drawn."""
    context = browser.new_context(locale=locale, viewport={"width": width, "height": 1200})
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("button[role=tab]")
    return context, page


def test_the_links_language_wins_over_the_browsers_for_the_static_text_too(gradio_url, browser):
    """?lang=ko in an English browser: the tabs and buttons (gr.I18n, translated in the browser) read Korean, as the
    texts the events write do; one link, one language (gradio_tabs.document)."""
    from engine import i18n

    context, page = _opened(browser, gradio_url + "?lang=ko")
    try:
        with i18n.use("ko"):
            part, button = i18n._("Language modelling"), i18n._("Predict the next token")
        page.get_by_role("tab", name=part, exact=True).first.wait_for(timeout=30_000)
        page.get_by_role("button", name=button, exact=True).first.wait_for(timeout=30_000)
        assert page.get_by_role("tab", name="Language modelling", exact=True).count() == 0
        assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ko", "ltr"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "gradio-ko-link-en-browser.png"))
    finally:
        context.close()


def test_arabic_runs_right_to_left_with_its_numbers_and_charts_left_to_right(gradio_url, browser):
    """?lang=ar in an English browser: the document is Arabic and right to left, a translated tab name, the prose
    right to left; the attention weights' table and the heatmap left to right, the chart's Arabic titles each in
    their own direction."""
    from engine import i18n

    context, page = _opened(browser, gradio_url + "?lang=ar")
    try:
        with i18n.use("ar"):
            part, title = i18n._("Attention"), i18n._("Attention calculator")
        assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
        page.get_by_role("tab", name=part, exact=True).first.click()
        page.get_by_role("tab", name=title, exact=True).last.click()
        settle(page)
        panel = page.locator("[role=tabpanel]:visible").last
        panel.locator(".table-wrap [role=gridcell]").first.wait_for()
        panel.locator("svg.marks").first.wait_for()
        direction = "element => getComputedStyle(element).direction"
        assert panel.locator(".prose").first.evaluate(direction) == "rtl"
        assert panel.locator(".table-wrap").first.evaluate(direction) == "ltr"
        assert panel.locator("[data-testid=altair]").first.evaluate(direction) == "ltr"
        assert panel.locator("svg.marks text").first.evaluate(
            "element => getComputedStyle(element).unicodeBidi") == "plaintext"
        assert "0.190" in panel.locator(".table-wrap").first.inner_text()
        page.screenshot(path=str(SHOTS / "gradio-ar-attention.png"), full_page=True)
    finally:
        context.close()


def test_a_table_shows_its_numbers_as_the_heatmap_beside_it_does(gradio_url, browser):
    """The attention weights' table in Spanish: 0,190 with its trailing zero and decimal comma, as the heatmap and
    the sentence write it (Gradio's own table wrote 0.19)."""
    from engine import i18n

    context, page = _opened(browser, gradio_url + "?lang=es")
    try:
        with i18n.use("es"):
            part, title = i18n._("Attention"), i18n._("Attention calculator")
        page.get_by_role("tab", name=part, exact=True).first.click()
        page.get_by_role("tab", name=title, exact=True).last.click()
        settle(page)
        table = page.locator("[role=tabpanel]:visible").last.locator(".table-wrap").first
        table.locator("[role=gridcell]").first.wait_for()
        cells = table.locator("[role=gridcell]").all_inner_texts()
        assert "0,190" in [cell.strip() for cell in cells] and "0,19" not in [cell.strip() for cell in cells]
    finally:
        context.close()
