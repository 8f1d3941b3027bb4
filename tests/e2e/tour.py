"""One walk through every page at a phone's, a desktop's and a projector's width, shared by the tests that
look at every page (the `tour` fixture of tests/e2e/conftest.py).

Those tests used to open every page again each: the accessibility audit at two widths, the console check in a
fresh browser per page, the formula check at three widths, the width check at two, the sidebar test once more:
about 115 first runs of a page, each seconds on a shared 2-core machine. Here each page is opened once per view
(39 visits) and everything those tests read is taken on that visit: the axe-core audit, the console's errors,
every URL the browser asks for, the formulas' and text boxes' sizes, sideways scrolling, every chart's drawing
against its place, exceptions and error boxes, and the screenshot. Each test keeps its own assertions on what was
recorded.

Every visit is a fresh document (a new Streamlit session), opened by the page's link as a student opens it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tests.e2e.helpers import charts_drawn, error_texts, open_page, screenshot
from ui.path import ideas

PAGES = [""] + [idea.url for idea in ideas()]                     # the home page first
# name -> (width, height, query): a phone, a desktop, a projector (which opens in projector mode)
VIEWS = {"phone": (390, 844, ""), "desktop": (1400, 1000, ""), "projector": (1920, 1080, "?present=1")}
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AUDITED = {"phone": PAGES, "desktop": PAGES, "projector": ["", "attention", "generate"]}   # axe-core's visits
SCREENSHOTS = ("phone", "projector")                               # artifacts/screenshots/width-<px>-<page>.png

MEASURE_BOXES = """() => {
    const main = document.querySelector("[data-testid='stMainBlockContainer']").getBoundingClientRect();
    const inside = (r) => r.left >= main.left - 1 && r.right <= main.right + 1;
    const formulas = [...document.querySelectorAll("[data-testid='stMain'] .katex-display")]
        .filter(box => box.clientWidth > 0).map(box => ({
            text: (box.querySelector('annotation') || box).textContent.slice(0, 70),
            cut: box.scrollWidth - box.clientWidth, outside: !inside(box.getBoundingClientRect())}));
    const boxes = [...document.querySelectorAll(
            "[data-testid='stMain'] textarea, [data-testid='stMain'] input[type='text'], "
            + "[data-testid='stMain'] input[type='number'], [data-testid='stMain'] [data-testid='stDataFrame']")]
        .filter(box => box.getBoundingClientRect().width > 0).map(box => {
            const holder = box.closest("[data-testid='stElementContainer']") || box;
            const label = holder.querySelector("label");
            const lines = box.tagName === 'TEXTAREA' ? box.value.split('\\n').length : 1;
            return {label: (label ? label.textContent : box.getAttribute('aria-label') || box.tagName).slice(0, 60),
                    lines, hidden: box.tagName === 'TEXTAREA' ? box.scrollHeight - box.clientHeight : 0,
                    outside: !inside(box.getBoundingClientRect())};
        });
    const nav = [...document.querySelectorAll(".st-key-nav p")]   // the texts: group names, captions, titles
        .map(e => e.getBoundingClientRect()).filter(r => r.height > 0);
    const overlaps = nav.slice(1).filter((r, i) => r.top < nav[i].bottom - 1).length;
    const cut = [...document.querySelectorAll(".st-key-nav [data-testid='stPageLink'] p")]
        .filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent);
    const sliders = [...document.querySelectorAll("[data-testid='stSliderThumbValue']")].filter(value => {
        const thumb = value.parentElement.getBoundingClientRect();
        return value.getBoundingClientRect().bottom > thumb.top + 1;
    }).length;
    return {formulas, boxes, nav: {overlaps, cut}, sliders};
}"""

OVERFLOW = "() => document.querySelector(\"[data-testid='stMain']\").scrollWidth - window.innerWidth"

# Every chart's drawing (Vega's svg or canvas) against its place (the element Streamlit gives it), the main column's
# width, the smallest text a chart or a formula draws, the home page's links cut short, and what every widget shows
MEASURE_PLACES = """() => {
    const main = document.querySelector("[data-testid='stMainBlockContainer']");
    const style = getComputedStyle(main);
    const column = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const charts = [...document.querySelectorAll("[data-testid='stMain'] [data-testid='stVegaLiteChart']")]
        .filter((box) => box.getBoundingClientRect().width > 0).map((box) => {
            const drawing = box.querySelector("svg.marks, canvas") || box.querySelector("svg");
            const place = (box.closest("[data-testid='stElementContainer']") || box).getBoundingClientRect().width;
            const drawn = drawing ? drawing.getBoundingClientRect().width : 0;
            const declared = drawing ? (parseFloat(drawing.getAttribute("width")) || drawn) : 0;
            const texts = drawing && drawing.tagName === "svg" ? [...drawing.querySelectorAll("text")]
                .filter((t) => t.textContent.trim() && t.getBoundingClientRect().width > 0) : [];
            const shrunk = declared ? drawn / declared : 1;   // a drawing the browser scaled down scales its text
            const sizes = texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * shrunk);
            const numbers = texts.filter((t) => t.closest(".mark-text"))
                .map((t) => parseFloat(getComputedStyle(t).fontSize));
            const title = [...box.querySelectorAll(".role-title-text text, .role-title text")]
                .map((t) => t.textContent).join(" ");
            return {title: title || (texts[0] ? texts[0].textContent : ""), drawn, place,
                    scrolls: box.scrollWidth - box.clientWidth, smallest: sizes.length ? Math.min(...sizes) : null,
                    numbers: numbers.length ? Math.min(...numbers) : null};
        });
    const formulas = [...document.querySelectorAll("[data-testid='stMain'] .katex-display > .katex")]
        .filter((k) => k.getBoundingClientRect().width > 0).map((k) => parseFloat(getComputedStyle(k).fontSize));
    const links = [...document.querySelectorAll("[data-testid='stMain'] [data-testid='stPageLink'] p")]
        .filter((p) => p.scrollWidth > p.clientWidth + 1).map((p) => p.textContent);
    const widgets = [...document.querySelectorAll("[data-testid='stMain'] textarea, [data-testid='stMain'] input, "
            + "[data-testid='stMain'] [role='slider']")]
        .map((w) => w.getAttribute("role") === "slider" ? "slider " + w.getAttribute("aria-valuenow")
             : w.type === "checkbox" ? "checked " + w.checked : (w.value || "").slice(0, 80));
    return {column, charts, formula: formulas.length ? Math.min(...formulas) : null, links_cut: links, widgets};
}"""


@dataclass
class Visit:
    """What one page showed at one view."""
    view: str
    path: str
    address: str
    broke: str = ""                                   # the page never settled, or a measurement raised
    console: list[tuple[str, str]] = field(default_factory=list)   # (text, url) of console errors, uncaught
    axe: list | None = None                           # serious or critical findings (None: not audited here)
    boxes: dict | None = None                         # MEASURE_BOXES
    overflow: int | None = None                       # px the main area is wider than the window
    places: dict | None = None                        # MEASURE_PLACES
    exceptions: int = 0                               # st.exception boxes
    title_visible: bool = False
    errors: list[str] = field(default_factory=list)   # st.error and exception texts, sorted


@dataclass
class Tour:
    app_url: str
    visits: dict[tuple[str, str], Visit] = field(default_factory=dict)   # (view, path) -> Visit
    requested: set[str] = field(default_factory=set)                    # every URL the browser asked for

    def at(self, view: str) -> list[Visit]:
        return [visit for (name, _), visit in self.visits.items() if name == view]

    def of(self, path: str) -> list[Visit]:
        return [visit for (_, page), visit in self.visits.items() if page == path]


def take_tour(app_url: str, browser, axe=None) -> Tour:
    """Every page at every view, in one browser context per view; `axe` (an axe_playwright_python Axe) audits
    the AUDITED visits when given."""
    tour = Tour(app_url)
    for name, (width, height, query) in VIEWS.items():
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(180_000)
        context.on("request", lambda request: tour.requested.add(request.url))
        page = context.new_page()
        current: list[Visit] = []
        page.on("console", lambda message: current[-1].console.append((message.text, message.location.get("url", "")))
                if message.type == "error" and current else None)
        page.on("pageerror", lambda error: current[-1].console.append((f"uncaught: {error}", "")) if current else None)
        try:
            for path in PAGES:
                visit = Visit(name, path, path + query)
                current.append(visit)
                tour.visits[(name, path)] = visit
                try:
                    _look(page, app_url, visit, axe if axe is not None and path in AUDITED[name] else None)
                except Exception as error:                 # recorded: the tests that read this visit fail on it
                    visit.broke = f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
        finally:
            context.close()
    return tour


def _look(page, app_url: str, visit: Visit, axe) -> None:
    try:
        open_page(page, app_url, visit.address, timeout_ms=180_000)
    except Exception:                       # a page's first run on a cold, shared machine: once more
        open_page(page, app_url, visit.address, timeout_ms=180_000)
    page.wait_for_timeout(500)              # ui.shell's script fits the formulas on the next frame; late messages
    visit.boxes = page.evaluate(MEASURE_BOXES)
    visit.overflow = page.evaluate(OVERFLOW)
    charts_drawn(page)                      # Vega draws after the run: every chart drawn before it is measured
    visit.places = page.evaluate(MEASURE_PLACES)
    visit.exceptions = page.locator("[data-testid='stException']").count()
    visit.title_visible = page.locator("h1").first.is_visible()
    visit.errors = sorted(error_texts(page))
    if axe is not None:
        result = axe.run(page, options={"runOnly": {"type": "tag", "values": WCAG}})
        visit.axe = [(violation["id"], violation["impact"], [node["target"] for node in violation["nodes"]][:3])
                     for violation in result.response["violations"] if violation["impact"] in ("serious", "critical")]
    if visit.view in SCREENSHOTS:
        width = page.viewport_size["width"]
        screenshot(page, f"width-{width}-{visit.path or 'home'}")

