"""Driving the real app in headless Chromium: open a page, wait for Streamlit to finish, screenshot."""
from __future__ import annotations

from pathlib import Path

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


# Counts the script runs the page has started (each time Streamlit marks the app 'running'), from the first
# wait_for_app on a document on; window.__runsSeen is the count when the last wait ended.
_WATCH_RUNS = """() => {
    const app = document.querySelector("[data-testid='stApp']");
    if (app && window.__runsWatched !== app) {
        window.__runsWatched = app;
        window.__runs = window.__runs || 0;
        new MutationObserver((records) => {     // each record holds the value before it; the last, the current one
            const values = records.slice(1).map((record) => record.oldValue)
                .concat([app.getAttribute('data-test-script-state')]);
            window.__runs += values.filter((value) => value === 'running').length;
        }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state'], attributeOldValue: true});
    }
    window.__runsSeen = window.__runs;
}"""
_RUN_STARTED = """() => {
    const app = document.querySelector("[data-testid='stApp']");
    return (window.__runsSeen !== undefined && window.__runs > window.__runsSeen)
        || (app && app.getAttribute('data-test-script-state') === 'running');
}"""


def wait_for_app(page, timeout_ms: int = 60_000, after_input: bool = False) -> None:
    """Wait until the script run is over and the page has stopped changing.

    After an input, first wait (up to 2 s) for the rerun it causes to have started, so we do not mistake
    the state before it for the state after it. A run that started, and even finished, since the last
    wait counts at once (_WATCH_RUNS): the 2 s go by only where no run shows at all (the old check
    saw only a run still going, so every input whose rerun was over before the check waited 2 s).
    """
    if after_input:
        try:
            page.wait_for_function(_RUN_STARTED, timeout=2_000)
        except Exception:  # no run seen: one that finished before the watch, or an input that reruns nothing
            pass
    page.wait_for_function(
        """() => {
            const app = document.querySelector("[data-testid='stApp']");
            return app && app.getAttribute('data-test-script-state') === 'notRunning'
                && app.getAttribute('data-test-connection-state') === 'CONNECTED';
        }""",
        timeout=timeout_ms,
    )
    # Then the page must stop changing: element code (charts, inputs) loads lazily in the browser
    # after the run ends, so compare the main area's text and its count of Streamlit elements
    # across half a second, with no loading skeleton left.
    page.evaluate("() => { window.__pageSignature = null; }")
    page.wait_for_function(
        """() => {
            const main = document.querySelector("[data-testid='stMain']");
            const signature = main ? main.innerText.length + ":" + main.querySelectorAll("[data-testid]").length : "";
            if (signature !== window.__pageSignature) {
                window.__pageSignature = signature;
                window.__pageSince = Date.now();
                return false;
            }
            return signature !== "" && !signature.startsWith("0:") && Date.now() - window.__pageSince >= 500
                && !document.querySelector("[data-testid='stSkeleton']");
        }""",
        timeout=timeout_ms, polling=100,
    )
    page.evaluate(_WATCH_RUNS)


def open_page(page, app_url: str, url_path: str = "", timeout_ms: int = 60_000) -> None:
    """Open /url_path and wait for the page to finish its first run, and the run its width report asks for where
    it sends one (ui.screen: a phone's first page runs twice, the second time with its charts fitted)."""
    page.goto(f"{app_url}/{url_path}", wait_until="domcontentloaded")
    wait_for_app(page, timeout_ms)
    wait_for_screen(page, timeout_ms)


SCREEN_SETTLED = "() => !window.__playgroundScreen || window.__playgroundScreen.settled"


def wait_for_screen(page, timeout_ms: int = 60_000) -> None:
    """Wait until the page's width report (ui.screen) has nothing more to send and the run it asked for is over (at
    once on a page without ui.screen's element)."""
    try:   # a page that never stands still (a live training's progress) reports later: not waited for past 20 s
        page.wait_for_function(SCREEN_SETTLED, timeout=min(timeout_ms, 20_000), polling=100)
    except Exception:
        return
    wait_for_app(page, timeout_ms)


def screenshot(page, name: str, full_page: bool = True) -> Path:
    """Save artifacts/screenshots/<name>.png and return its path.

    Streamlit scrolls inside its main container, so a full-page shot first grows the
    viewport to the content's height, then puts it back.
    """
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    size = page.viewport_size
    if full_page and size:
        height = page.evaluate("""() => Math.max(...[...document.querySelectorAll(
            "[data-testid='stMain'], [data-testid='stMainBlockContainer']")].map(e => e.scrollHeight), 0)""")
        page.set_viewport_size({"width": size["width"], "height": min(max(height + 80, size["height"]), 12_000)})
        page.wait_for_timeout(400)
    page.screenshot(path=str(path))
    if full_page and size:
        page.set_viewport_size(size)
    return path


def error_texts(page) -> list[str]:
    """Texts of every st.error and every exception box on the page."""
    errors = page.locator("[data-testid='stAlertContentError']").all_inner_texts()
    exceptions = page.locator("[data-testid='stException']").all_inner_texts()
    return errors + exceptions


def main_text(page) -> str:
    """All visible text of the page's main area (not the sidebar)."""
    return page.locator("[data-testid='stMain']").inner_text()


_DRAWN = """() => [...document.querySelectorAll("[data-testid='stVegaLiteChart']")]
    .map(e => !!e.querySelector('canvas, svg'))"""


def charts_drawn(page) -> list[bool]:
    """For each chart on the page, whether Vega drew it (a spec Vega rejects leaves an empty box).

    Drawing a few thousand cells takes seconds on a busy machine: wait up to a minute for all.
    """
    try:
        page.wait_for_function(f"() => ({_DRAWN})().every(Boolean)", timeout=60_000)
    except Exception:  # the caller's assertion on the list reports it
        pass
    return page.evaluate(_DRAWN)



def teacher_page(browser, width: int, height: int):
    """A teacher's browser: a context of its own at width x height (its page's context is `page.context`)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(120_000)
    return context.new_page()


def start_class(page, url: str) -> str:
    """`page` opens `url` and presses Start a class: the class's code."""
    page.goto(url)
    wait_for_app(page, 120_000)
    page.get_by_role("button", name="Start a class (teacher)").click()
    wait_for_app(page, after_input=True)
    return page.locator(".st-key-class_teacher strong").first.inner_text().strip()
