"""One `streamlit run app.py` per test session, driven by the system Chromium through playwright."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(command: list[str], url: str, health: str, env: dict, seconds: float = 60):
    """Run `command` in the repository until `health` answers 200 (within `seconds`); yield `url`; stop it."""
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(health, timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail(f"{' '.join(command[1:])} did not start within {seconds:.0f} s")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


@contextlib.contextmanager
def running_app(script: str = "app.py", **environment: str):
    """`streamlit run script` on a free local port, `environment` added to ours; yields its URL, stops it
    afterwards."""
    port = _free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1", PLAYGROUND_WARM_UP="0",    # no background prefetch (ui/warmup.py)
               **environment)
    url = f"http://127.0.0.1:{port}"
    with serving([sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
                  "--server.address", "127.0.0.1", "--server.headless", "true",
                  "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                 url, f"{url}/_stcore/health", env) as served:
        yield served


@pytest.fixture(scope="session")
def app_url():
    """One app for the whole test session."""
    with running_app() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")
    playwright_sync = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    with playwright_sync.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def tour(app_url, browser):
    """Every page opened once at a phone's, a desktop's and a projector's width, with what the tests that look
    at every page read (tests/e2e/tour.py); axe-core audits the visits when axe-playwright-python is there."""
    from tests.e2e.tour import take_tour

    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        return take_tour(app_url, browser)
    return take_tour(app_url, browser, Axe())


@pytest.fixture
def browser_page(browser):
    """A fresh browser context (its own Streamlit session) at a desktop size."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(60_000)  # the machine is small; a busy moment is not a failure
    page = context.new_page()
    yield page
    context.close()
