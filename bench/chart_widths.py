"""Every chart against its place, in Chromium: at a phone's width, how wide each chart's drawing is beside the box it
sits in (a chart wider than its box scrolls sideways inside it, hiding part of its point), and in projector mode
at 1920 px how much of the main column each page's main chart takes and how large its numbers are drawn.

    python -m bench.chart_widths                       # every page at 390 px, and the projector at 1920
    python -m bench.chart_widths --widths 390 1400 --pages attention tokens
    python -m bench.chart_widths --url http://127.0.0.1:8501   # a server already running

Prints one line per chart: page, chart number, its title (or first text), drawing px, box px, and the smallest
text it draws (px as seen: a drawing scaled down by the browser scales its text too). A chart wider than its box
is marked OVER. Then per page in projector mode: each chart's share of the main column and the size of its
numbers (its text marks: cell numbers, bar labels). Not a test: tests/e2e/test_chart_widths.py asserts the goals
on the session's tour.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]

# Each chart: its box (the place Streamlit gives it), its drawing (Vega's svg or canvas), the texts it draws.
# The smallest text is measured as drawn (a font-size times the drawing's scale on screen).
MEASURE_CHARTS = """() => {
    const main = document.querySelector("[data-testid='stMainBlockContainer']");
    const style = getComputedStyle(main);
    const column = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const charts = [...document.querySelectorAll("[data-testid='stMain'] [data-testid='stVegaLiteChart']")]
        .filter((box) => box.getBoundingClientRect().width > 0).map((box, index) => {
        const drawing = box.querySelector("svg.marks") || box.querySelector("canvas") || box.querySelector("svg");
        const holder = box.closest("[data-testid='stElementContainer']") || box;
        const drawn = drawing ? drawing.getBoundingClientRect().width : 0;
        const declared = drawing ? (parseFloat(drawing.getAttribute("width")) || drawn) : 0;
        const scale = declared ? drawn / declared : 1;
        const texts = drawing && drawing.tagName === "svg" ? [...drawing.querySelectorAll("text")]
            .filter((t) => t.textContent.trim() && t.getBoundingClientRect().width > 0) : [];
        const sizes = texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
        const marks = texts.filter((t) => t.closest(".mark-text"))
            .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
        const title = drawing && drawing.tagName === "svg"
            ? [...drawing.querySelectorAll(".role-title-text text, .role-title text")]
                .map((t) => t.textContent).join(" ")
            : "";
        return {index, title: title || (texts[0] ? texts[0].textContent : ""), drawn: Math.round(drawn),
                box: Math.round(box.clientWidth), place: Math.round(holder.getBoundingClientRect().width),
                scrolls: box.scrollWidth - box.clientWidth, canvas: !!drawing && drawing.tagName === "CANVAS",
                smallest: sizes.length ? Math.min(...sizes) : null,
                numbers: marks.length ? Math.min(...marks) : null};
    });
    const others = [...document.querySelectorAll(
            "[data-testid='stMain'] [data-testid='stTable'] > div, [data-testid='stMain'] .katex-display, "
            + "[data-testid='stMain'] [data-testid='stImage'] img, [data-testid='stMain'] img.diagram")]
        .filter((box) => box.getBoundingClientRect().width > 0)
        .map((box) => ({kind: box.matches(".katex-display") ? "formula" : box.tagName === "IMG" ? "image" : "table",
                        text: box.textContent.slice(0, 50) || box.getAttribute("alt") || "",
                        drawn: box.tagName === "IMG" ? box.getBoundingClientRect().width : box.scrollWidth,
                        box: box.tagName === "IMG" ? column : box.clientWidth}))
        .filter((box) => box.drawn > box.box + 3);
    const katex = [...document.querySelectorAll("[data-testid='stMain'] .katex-display > .katex")]
        .filter((k) => k.getBoundingClientRect().width > 0).map((k) => parseFloat(getComputedStyle(k).fontSize));
    return {column: Math.round(column), charts, others, smallest_formula: katex.length ? Math.min(...katex) : null};
}"""


def measure(browser, url: str, path: str, width: int, query: str = "", shots: Path | None = None) -> dict:
    """One page at one width: MEASURE_CHARTS, after the page settled and Vega's last resize; a full-page
    screenshot into `shots` when given (<width>[-projector]-<page>.png)."""
    from tests.e2e.helpers import charts_drawn, open_page

    context = browser.new_context(viewport={"width": width, "height": 1000})
    context.set_default_timeout(180_000)
    try:
        page = context.new_page()
        open_page(page, url, path + query, timeout_ms=180_000)
        charts_drawn(page)
        page.wait_for_timeout(500)
        found = page.evaluate(MEASURE_CHARTS)
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)
            height = page.evaluate(TALL)
            page.set_viewport_size({"width": width, "height": min(max(height + 80, 1000), 16_000)})
            page.wait_for_timeout(600)
            name = f"{width}{'-projector' if query else ''}-{path or 'home'}.png"
            page.screenshot(path=str(shots / name))
        return found
    finally:
        context.close()


TALL = """() => Math.max(...[...document.querySelectorAll(
    "[data-testid='stMain'], [data-testid='stMainBlockContainer']")].map(e => e.scrollHeight), 0)"""


def report_width(found: dict, path: str, width: int) -> int:
    """Print every chart of one page at one width; return how many are wider than their place."""
    over = 0
    print(f"\n/{path or 'home'} at {width} px (main column {found['column']} px)")
    for chart in found["charts"]:
        wide = chart["drawn"] > chart["place"] + 1 or chart["scrolls"] > 1
        over += wide
        smallest = "canvas" if chart["canvas"] else (f"{chart['smallest']:.1f}" if chart["smallest"] else "-")
        print(f"  {'OVER' if wide else '    '} chart {chart['index'] + 1:2d} {chart['drawn']:5d} px in "
              f"{chart['place']:4d}  text >= {smallest:>6} px  {chart['title'][:60]!r}")
    for other in found["others"]:
        over += 1
        print(f"  OVER {other['kind']:8s} {other['drawn']:5.0f} px in {other['box']:4.0f}  {other['text']!r}")
    if found["smallest_formula"]:
        print(f"       smallest formula {found['smallest_formula']:.1f} px")
    return over


def report_projector(found: dict, path: str) -> None:
    """Every chart's share of the main column in projector mode, and the size of its numbers (text marks)."""
    print(f"\n/{path or 'home'} in projector mode at 1920 px (main column {found['column']} px)")
    for chart in found["charts"]:
        numbers = f"{chart['numbers']:.1f} px" if chart["numbers"] else "-"
        print(f"  chart {chart['index'] + 1:2d} {chart['drawn'] / found['column']:5.0%} of the column, "
              f"{chart['drawn']:5d} px in {chart['place']:4d}, numbers {numbers:>8}  {chart['title'][:60]!r}")


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    from ui.charts import RENDERER_VARIABLE
    from ui.path import ideas

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", type=int, nargs="+", default=[390])
    parser.add_argument("--pages", nargs="+", default=[""] + [idea.url for idea in ideas()],
                        help="url paths ('' is the home page); default: every page")
    parser.add_argument("--url", help="a running server (else one is started, charts drawn as SVG)")
    parser.add_argument("--screenshots", type=Path, help="a folder for a full-page screenshot of every visit")
    parser.add_argument("--no-projector", action="store_true", help="skip the projector mode at 1920 px")
    options = parser.parse_args(argv)

    server = None
    url = options.url
    if url is None:
        from bench.browser import serve

        server, url = serve("app.py", **{RENDERER_VARIABLE: "svg"})
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            over = 0
            for width in options.widths:
                for path in options.pages:
                    over += report_width(measure(browser, url, path, width, shots=options.screenshots), path, width)
            if not options.no_projector:
                for path in options.pages:
                    report_projector(measure(browser, url, path, 1920, "?present=1", options.screenshots), path)
            browser.close()
        print(f"\n{over} charts or boxes wider than their place")
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
