"""Driving the real app in headless Chromium: open a page, wait for Streamlit to finish, screenshot."""
from __future__ import annotations

from pathlib import Path

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def wait_for_app(page, timeout_ms: int = 60_000) -> None:
    """Wait until the script run is over: the app is mounted and no 'running' status shows."""
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout_ms)
    page.wait_for_function(
        """() => {
            const app = document.querySelector("[data-testid='stApp']");
            const running = document.querySelector("[data-testid='stStatusWidget']");
            return app && app.getAttribute('data-test-script-state') !== 'running' && !running;
        }""",
        timeout=timeout_ms,
    )
    page.wait_for_timeout(300)  # let charts (vega) finish drawing after the run ends


def open_page(page, app_url: str, url_path: str = "", timeout_ms: int = 60_000) -> None:
    """Open /url_path and wait for the page to finish its first run."""
    page.goto(f"{app_url}/{url_path}", wait_until="domcontentloaded")
    wait_for_app(page, timeout_ms)


def screenshot(page, name: str, full_page: bool = True) -> Path:
    """Save artifacts/screenshots/<name>.png and return its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def error_texts(page) -> list[str]:
    """Texts of every st.error and every exception box on the page."""
    errors = page.locator("[data-testid='stAlertContentError']").all_inner_texts()
    exceptions = page.locator("[data-testid='stException']").all_inner_texts()
    return errors + exceptions
