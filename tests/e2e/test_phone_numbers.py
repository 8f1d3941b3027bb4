"""A phone (390 px): a number in a table is never broken inside itself, in any language ("28,860" had gone over two
lines in a narrow Arabic cell); a table wider than the column scrolls sideways in its own box, never the page.

The n-gram and tokens pages hold short tables (st.table) and the Data tables under their charts (opened here), with
thousands grouped (28,860; 28.860 in Spanish). Each number's own text (a Range over its characters) must lie on one
line; a cell of numbers alone keeps them on one line whatever the browser's line breaking (white-space: nowrap); the
document must not be wider than the screen.
"""
from __future__ import annotations

import pytest

from tests.e2e.helpers import open_page

PHONE = {"width": 390, "height": 900}
PAGES = ("ngram", "tokens")
LANGUAGES = ("en", "es", "ar")

MEASURE = r"""() => {
    document.querySelectorAll('details.chart-data').forEach((d) => { d.open = true; });
    const number = /\d[\d.,\u066b\u066c\u00a0\u202f]*\d/g;
    const cells = [...document.querySelectorAll(
        "[data-testid='stTable'] td, [data-testid='stTable'] th, details.chart-data td, details.chart-data th")];
    const broken = [], loose = [];
    let grouped = 0;
    for (const cell of cells) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
            const node = walker.currentNode;
            for (const found of node.textContent.matchAll(number)) {
                if (/\d[,.]\d{3}(?!\d)/.test(found[0])) grouped += 1;
                const range = document.createRange();
                range.setStart(node, found.index);
                range.setEnd(node, found.index + found[0].length);
                const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
                    .map((r) => Math.round(r.top)));
                if (lines.size > 1) broken.push(found[0]);
            }
        }
        const inner = [cell, ...cell.querySelectorAll('*')].filter((e) => getComputedStyle(e).whiteSpace !== 'nowrap');
        if (cell.tagName === 'TD' && cell.classList.contains('num') && inner.length) {
            loose.push(cell.textContent.trim());
        }
    }
    const boxes = [...document.querySelectorAll("details.chart-data table")].filter(
        (t) => t.scrollWidth > t.clientWidth + 1 && !['auto', 'scroll'].includes(getComputedStyle(t).overflowX));
    return {cells: cells.length, grouped, broken, loose: loose.slice(0, 5), unscrolled: boxes.length,
            page: document.documentElement.scrollWidth};
}"""


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("url", PAGES)
def test_no_number_in_a_phones_table_breaks_and_the_page_does_not_scroll_sideways(browser, app_url, url, language):
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(90_000)
    page = context.new_page()
    try:
        open_page(page, app_url, f"{url}?lang={language}")
        found = page.evaluate(MEASURE)
        page.wait_for_timeout(300)   # the Data tables opened: measured again, drawn
        found = page.evaluate(MEASURE)
    finally:
        context.close()
    assert found["cells"] and found["grouped"], f"{url} ({language}): no table with grouped numbers to measure"
    assert not found["broken"], f"{url} ({language}): numbers broken over lines: {found['broken'][:5]}"
    assert not found["loose"], f"{url} ({language}): cells of numbers that may break: {found['loose']}"
    assert not found["unscrolled"], f"{url} ({language}): {found['unscrolled']} Data tables wider than their box"
    assert found["page"] <= PHONE["width"], f"{url} ({language}): the page is {found['page']} px wide"
