"""Every student included, nothing leaves the machine, a class in the room (real Chromium).

- axe-core (the engine behind Lighthouse's accessibility audit, bundled by the
  axe-playwright-python package, no network) on every page at a desktop and a phone width and in
  projector mode (on the session's tour of every page, tests/e2e/tour.py): no critical or serious
  violation of the WCAG 2.1 A/AA rules. No exemptions: Streamlit's sidebar navigation (a list that
  fails `list`/`listitem`) is replaced by app.py's own links (ui/shell.py).
- Every request the browser makes while every page is visited goes to the app's own address
  (the favicon is assets/favicon.png, not a remote icon).
- Keyboard only: reach the attention calculator's X, change its first number, see the weights change.
- Every chart has a summary a screen reader announces (the SVG's aria-label) and its numbers in a
  "Data" table; projector mode from a link (?present=1); the page's QR code carries its settings.
"""
from __future__ import annotations

import re

import pytest

from tests.e2e.helpers import open_page, screenshot, wait_for_app
from tests.e2e.tour import AUDITED, PAGES, WCAG  # noqa: F401 (test_classroom.py audits with the same rules)


def test_no_serious_or_critical_violation_on_any_page(tour):
    """axe-core on every page at a phone's and a desktop's width and on three pages in projector mode (the
    session's tour of every page, tests/e2e/tour.py)."""
    pytest.importorskip("axe_playwright_python.sync_playwright",
                        reason="axe-playwright-python is not installed (requirements-test.txt)")
    audited = {(visit.view, visit.path or "home"): visit for visit in tour.visits.values()
               if visit.path in AUDITED[visit.view]}
    assert len(audited) == sum(len(paths) for paths in AUDITED.values())
    assert AUDITED["phone"] == AUDITED["desktop"] == PAGES and len(AUDITED["projector"]) == 3
    broke = {where: visit.broke for where, visit in audited.items() if visit.broke or visit.axe is None}
    assert not broke, broke
    failing = {where: visit.axe for where, visit in audited.items() if visit.axe}
    assert not failing, failing


def test_every_request_stays_on_the_machine(tour, app_url):
    # blob:<the app's origin>/...: a script the page made in its own memory (ui.screen's components-v2 element is
    # loaded so), nothing fetched
    outside = sorted(url for url in tour.requested if not url.startswith((app_url, f"blob:{app_url}/", "data:")))
    assert tour.requested and not outside, outside


def test_the_favicon_is_the_apps_own(browser_page, app_url):
    open_page(browser_page, app_url, "attention")
    icons = browser_page.eval_on_selector_all("link[rel~='icon']", "links => links.map(l => l.href)")
    assert icons and all(icon.startswith(app_url) for icon in icons), icons


def weights_row(page) -> list[str]:
    """The numbers printed in the first chart's cells (the attention weights)."""
    chart = page.locator("[data-testid='stVegaLiteChart']").first
    return chart.locator("svg text").evaluate_all("texts => texts.map(t => t.textContent)")


def test_keyboard_only_edit_of_the_first_number_changes_the_weights(browser_page, app_url):
    page = browser_page
    open_page(page, app_url, "attention")
    before = weights_row(page)
    assert "0.298" in before
    label = "X (token embeddings)"
    for _ in range(120):                          # Tab through the page, as a keyboard user would
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement && document.activeElement.getAttribute('aria-label')") == label:
            break
    else:
        pytest.fail(f"Tab never reached the text box '{label}'")
    assert page.evaluate("() => document.activeElement.tagName") == "TEXTAREA"
    page.keyboard.press("Control+Home")
    for _ in range(len("crane: ")):
        page.keyboard.press("ArrowRight")
    for _ in range(len("0.8")):
        page.keyboard.press("Shift+ArrowRight")
    page.keyboard.type("2.5")
    page.keyboard.press("Control+Enter")          # Streamlit's shortcut to apply a text area
    wait_for_app(page, after_input=True)
    assert page.locator("textarea").first.input_value().startswith("crane: 2.5, 0.1, 0.4")
    after = weights_row(page)
    assert after and after != before and "0.298" not in after[:4]
    screenshot(page, "keyboard-edit", full_page=False)


def test_every_chart_has_a_summary_and_its_numbers_under_data(browser_page, app_url):
    page = browser_page
    for path in ("attention", "ngram", "embeddings"):
        open_page(page, app_url, path, timeout_ms=180_000)
        charts = page.locator("[data-testid='stVegaLiteChart']")
        assert charts.count() >= 1
        for i in range(charts.count()):
            label = charts.nth(i).locator("svg, canvas").first.get_attribute("aria-label") or ""
            assert len(label) > 20, (path, i, label)
        tables = page.locator("details.chart-data")
        assert tables.count() >= 1
        tables.first.locator("summary").click()
        assert tables.first.locator("table td").count() >= 4


def test_a_link_with_present_opens_projector_mode(browser_page, app_url):
    page = browser_page
    open_page(page, app_url, "attention?present=1")
    assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "20px"
    sizes = page.locator("[data-testid='stVegaLiteChart'] svg text").evaluate_all(
        "texts => texts.map(t => parseFloat(getComputedStyle(t).fontSize))")
    assert sizes and min(sizes) >= 16
    assert page.get_by_role("switch", name="Projector mode").is_checked()
    assert "present=1" in page.url
    # the settings' help icons are hidden, but never a button: one with help= sits inside the same tooltip element
    help_icons = page.locator("[data-testid='stWidgetLabel'] [data-testid='stTooltipIcon']").evaluate_all(
        "icons => icons.map(icon => getComputedStyle(icon).display)")
    assert help_icons and set(help_icons) == {"none"}
    buttons = page.locator("[data-testid='stButton'] button").evaluate_all(
        "buttons => buttons.map(b => [b.innerText.replace(/\\s+/g, ''), b.getBoundingClientRect().height])")
    tallest = {}                        # Streamlit also keeps a 0 px copy of a button with help= (to measure it)
    for text, height in buttons:
        tallest[text] = max(height, tallest.get(text, 0))
    assert tallest and all(height > 0 for height in tallest.values()), buttons
    screenshot(page, "projector-attention", full_page=False)
    page.get_by_text("Projector mode").click()   # off again: normal type, and the link forgets it
    wait_for_app(page, after_input=True)
    assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "16px"
    assert "present=1" not in page.url


def test_the_qr_code_carries_the_pages_settings(browser_page, app_url):
    page = browser_page
    open_page(page, app_url, "attention?causal=1")
    page.get_by_text("Open this page on a phone").click()
    image = page.locator("img[alt^='QR code of this page']")
    image.wait_for()
    alt = image.get_attribute("alt")
    assert re.search(r"/attention\?.*causal=1", alt), alt
    assert image.get_attribute("src").startswith("data:image/svg+xml")
    # the mask switched off reruns only the result section (ui.page.only) and the QR code with it
    page.get_by_text("Causal mask (a token sees only itself and earlier ones)").click()
    page.wait_for_function("() => location.search.includes('causal=0')", timeout=30_000)
    wait_for_app(page, after_input=True)
    page.wait_for_function("() => /causal=0/.test(document.querySelector(\"img[alt^='QR code of this page']\").alt)",
                           timeout=30_000)
    assert page.locator("h1").first.inner_text() == "Attention calculator"   # the rest of the page stays


def test_a_short_tables_numbers_align_right_and_its_words_left(browser_page, app_url):
    """ui.tables prints numbers as text; the app's script marks a column of numbers, the style aligns it."""
    page = browser_page
    open_page(page, app_url, "attention")
    table = page.locator("[data-testid='stTable'] table").last      # softmax stability: key, score, ...
    table.wait_for()
    page.wait_for_function("() => document.querySelectorAll(\"[data-testid='stTable'] td.num\").length > 0")
    align = "(cell) => getComputedStyle(cell).textAlign"
    assert table.locator("tbody tr").first.locator("td").nth(0).evaluate(align) == "left"     # crane
    assert table.locator("tbody tr").first.locator("td").nth(1).evaluate(align) == "right"    # its score


def test_a_folded_box_draws_its_code_when_opened_and_keeps_it_through_a_change(browser_page, app_url):
    """ui.page.folded: "Show the code" holds no code while closed; opening it reruns its section and draws the
    code; a sectioned change (the mask) redraws it, still open, with the mask's line."""
    page = browser_page
    open_page(page, app_url, "attention")
    codes = page.locator("[data-testid='stCode']")
    assert codes.count() == 0
    page.get_by_text("Show the code").click()
    codes.first.wait_for()
    assert "np.tril" not in codes.first.inner_text()
    page.get_by_text("Causal mask (a token sees only itself and earlier ones)").click()
    page.wait_for_function("() => location.search.includes('causal=1')", timeout=30_000)
    wait_for_app(page, after_input=True)
    page.wait_for_function("() => [...document.querySelectorAll(\"[data-testid='stCode']\")]"
                           ".some((code) => code.innerText.includes('np.tril'))", timeout=30_000)
    screenshot(page, "attention-code-open", full_page=True)


@pytest.mark.parametrize("lang", ["zh-Hans", "es", "ko", "ar"])
def test_no_serious_or_critical_violation_in_every_language(browser, app_url, lang):
    """axe-core on the home page and the attention calculator in each language at a phone's width: the document
    says its language and direction (html lang, dir), and no WCAG 2.1 A/AA rule fails seriously."""
    pytest.importorskip("axe_playwright_python.sync_playwright",
                        reason="axe-playwright-python is not installed (requirements-test.txt)")
    from axe_playwright_python.sync_playwright import Axe

    from engine import i18n

    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        for path in ("", "attention"):
            open_page(page, app_url, f"{path}?lang={lang}")
            document = page.evaluate("() => [document.documentElement.lang, document.documentElement.dir]")
            assert document == [lang, i18n.LANGUAGES[lang].direction], (path, document)
            result = Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG}})
            serious = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
                       for v in result.response["violations"] if v["impact"] in ("serious", "critical")]
            assert not serious, (lang, path or "home", serious)
    finally:
        context.close()


# where the parts of the head viewer's score of head (16, 0) are drawn, left to right
FORMULA_ORDER = """() => {
  const spans = (root, texts) => texts.map((text) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.textContent.indexOf(text);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + text.length);
      return range.getBoundingClientRect().left;
    }
    return null;
  });
  const score = [...document.querySelectorAll('.katex-display .katex-html')].find((k) => k.textContent.includes('16'));
  return score ? spans(score, ['16', '0']) : null;
}"""


def test_arabic_keeps_a_formulas_numbers_in_their_order(browser, app_url):
    """Right to left, a formula reads left to right as it does in every language: the head viewer's score of layer 16,
    head 0 after the Arabic word for "previous" shows (16, 0), not (0, 16)."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        open_page(page, app_url, "heads?lang=ar")
        page.wait_for_function("() => document.documentElement.dir === 'rtl'", timeout=30_000)
        sixteen, zero = page.evaluate(FORMULA_ORDER)
        assert sixteen is not None and zero is not None and sixteen < zero, (sixteen, zero)
        screenshot(page, "heads-ar-formula", full_page=True)
    finally:
        context.close()
