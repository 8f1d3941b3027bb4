"""Every page at 1400 px: no chart's text runs out of its chart's box, none is cut short with "…",
and none is drawn under 13 px (readable from the back of a room).

The app is started with PLAYGROUND_CHART_RENDERER=svg, so ui.charts.show asks Vega for SVG and every
text a chart draws is an <svg text> element the browser can measure (Streamlit draws SVG too, except
for a chart of more than 2,000 data rows: on canvas, nothing to measure). Each text's box must lie
within the chart element's box (1 px of slack either side), across and also up and down (a title
pushed above the chart is cut off just the same); a text ending in "…" is one Vega shortened to a
label or title limit. A large chart drawn with st.vega_lite_chart directly (not through
ui.charts.show) would stay on canvas: counted, not measured.
"""
from __future__ import annotations

import pytest

from tests.e2e.conftest import running_app
from tests.e2e.helpers import charts_drawn, open_page
from tests.e2e.tour import VIEWS
from ui.charts import RENDERER_VARIABLE
from ui.path import ideas

PAGES = ideas()
SLACK = 1  # px

MEASURE = """(slack) => [...document.querySelectorAll("[data-testid='stVegaLiteChart']")].map((chart, index) => {
    const box = chart.getBoundingClientRect();
    const svg = chart.querySelector('svg.marks') || chart.querySelector('svg');
    const title = svg ? [...svg.querySelectorAll('.role-title-text text, .role-title text')]
        .map(t => t.textContent).join(' ') : '';
    const texts = svg ? [...svg.querySelectorAll('text')].map(t => {
        const r = t.getBoundingClientRect();
        return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width,
                size: parseFloat(getComputedStyle(t).fontSize)};
    }).filter(t => t.text.trim() && t.width > 0) : [];
    return {
        index, title, width: box.width, svg: !!svg,
        outside: texts.filter(t => t.right > box.right + slack || t.left < box.left - slack)
            .map(t => ({text: t.text, by: Math.round(Math.max(t.right - box.right, box.left - t.left))})),
        above_below: texts.filter(t => t.top < box.top - slack || t.bottom > box.bottom + slack)
            .map(t => ({text: t.text, by: Math.round(Math.max(box.top - t.top, t.bottom - box.bottom))})),
        shortened: texts.filter(t => t.text.endsWith('\u2026')).map(t => t.text),
        small: texts.filter(t => t.size < 13).map(t => ({text: t.text, size: t.size})),
    };
})"""


@pytest.fixture(scope="module")
def svg_app_url():
    """The app with every ui.charts.show chart drawn as SVG."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(RENDERER_VARIABLE, "svg")
        with running_app() as url:
            yield url


def describe(chart: dict) -> str:
    return f"chart {chart['index'] + 1}" + (f" ({chart['title'][:70]!r})" if chart["title"] else "")


@pytest.mark.parametrize("idea", PAGES, ids=lambda idea: idea.url)
def test_chart_text_stays_inside_its_chart(svg_app_url, browser, idea):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(120_000)   # a shared 2-core machine: a busy moment is not a failure
    try:
        page = context.new_page()
        open_page(page, svg_app_url, idea.url, timeout_ms=180_000)
        assert all(charts_drawn(page)), f"{idea.url}: a chart was not drawn"
        page.wait_for_timeout(300)         # Vega's last resize to the column
        charts = [chart for chart in page.evaluate(MEASURE, SLACK) if chart["width"] > 0]
    finally:
        context.close()
    problems = []
    for chart in charts:
        for text in chart["outside"]:
            problems.append(f"{describe(chart)}: {text['text']!r} runs {text['by']} px outside the chart")
        for text in chart["above_below"]:
            problems.append(f"{describe(chart)}: {text['text']!r} runs {text['by']} px above or below the chart")
        for text in chart["shortened"]:
            problems.append(f"{describe(chart)}: {text!r} is cut short")
        for text in chart["small"]:  # readable from the back of a room
            problems.append(f"{describe(chart)}: {text['text']!r} is drawn at {text['size']} px, under 13")
    on_canvas = sum(not chart["svg"] for chart in charts)
    assert not problems, f"/{idea.url} ({len(charts)} charts, {on_canvas} on canvas, not measured):\n  " + \
        "\n  ".join(problems)



NAMED_BARS = """() => [...document.querySelectorAll("[data-testid='stVegaLiteChart']")].map(chart => {
    const svg = chart.querySelector('svg');
    const axes = svg ? [...svg.querySelectorAll('g.role-axis')]
        .filter(axis => (axis.getAttribute('aria-label') || '').startsWith('Y-axis')) : [];
    return {next_token: !!svg && svg.textContent.includes('P(next token'), axes: axes.map(axis => {
        const labels = [...axis.querySelectorAll('.role-axis-label text')];
        return {labels: labels.length,
                shown: labels.filter(t => t.getAttribute('opacity') !== '0' && getComputedStyle(t).opacity !== '0')
                    .map(t => t.textContent)};
    })};
})"""


@pytest.mark.parametrize("url", ["generate", "tokens?prompt=Mary%20had%20a%20little%20lamb%2C"])
@pytest.mark.parametrize("width", [390, 1400, 1920])
def test_every_bar_of_a_next_token_chart_is_named(svg_app_url, browser, url, width):
    """Vega hid every second token of Generate's bars as overlapping at every width (the second likeliest
    character 's', 0.136, unnamed): each bar's token is drawn, one-character tokens among words too."""
    context = browser.new_context(viewport={"width": width, "height": 1400})
    context.set_default_timeout(120_000)
    try:
        page = context.new_page()
        open_page(page, svg_app_url, url, timeout_ms=240_000)
        assert all(charts_drawn(page)), f"{url}: a chart was not drawn"
        found = [chart for chart in page.evaluate(NAMED_BARS) if chart["next_token"]]
    finally:
        context.close()
    assert found, f"{url}: no next-token chart"
    for chart in found:
        for axis in chart["axes"]:
            assert axis["labels"] >= 2 and len(axis["shown"]) == axis["labels"], axis


# --- formulas and text boxes at a phone's, a desktop's and a projector's width ----------------------------------
ROWS_SHOWN = 12                               # a typed matrix shows up to this many rows without scrolling (ui.matrix)
KATEX_SLACK = 3   # px: KaTeX's own box overflows its content by about 2 px at any width (a glyph's italic correction)


@pytest.mark.parametrize("view", list(VIEWS))
def test_formulas_and_text_boxes_fit_their_column(tour, view):
    """At 390, 1400 and 1920 px (projector mode; the session's tour of every page, tests/e2e/tour.py): no formula
    is cut (wider than its box, so it would scroll: ui.shell shrinks a wide one to fit), no text box or data editor
    reaches out of the main column, a typed matrix of up to ROWS_SHOWN rows shows every row (the X box used to show
    3.5 of its 4 in projector mode), the sidebar's links neither overlap nor are cut, and a slider's value sits
    above its track."""
    problems = []
    visits = [visit for visit in tour.at(view) if visit.path]          # the pages of ui/path.py
    assert len(visits) == len(PAGES)
    for visit in visits:
        found, url = visit.boxes, visit.path
        if visit.broke or found is None:
            problems.append(f"/{url}: not measured ({visit.broke})")
            continue
        for formula in found["formulas"]:
            if formula["cut"] > KATEX_SLACK:
                problems.append(f"/{url}: formula {formula['text']!r} is cut by {formula['cut']} px")
            if formula["outside"]:
                problems.append(f"/{url}: formula {formula['text']!r} reaches out of the main column")
        for box in found["boxes"]:
            if box["outside"]:
                problems.append(f"/{url}: the box {box['label']!r} reaches out of the main column")
            if box["lines"] <= ROWS_SHOWN and box["hidden"] > 1:
                problems.append(f"/{url}: the box {box['label']!r} hides {box['hidden']} px of its "
                                f"{box['lines']} lines")
        if found["nav"]["overlaps"] or found["nav"]["cut"]:
            problems.append(f"/{url}: the sidebar's links overlap ({found['nav']['overlaps']}) or are cut "
                            f"{found['nav']['cut']}")
        if found["sliders"]:
            problems.append(f"/{url}: {found['sliders']} slider value(s) drawn over their track")
    assert not problems, f"at {VIEWS[view][0]} px:\n  " + "\n  ".join(problems)
