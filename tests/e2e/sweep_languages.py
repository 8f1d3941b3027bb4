"""For a person's eyes, not a test: every page in every language at a phone's, a desktop's and a projector's width,
screenshotted, with what a reader would notice printed beside each (an error box, a traceback, sideways scrolling,
the document's lang and dir). Needs Chromium; starts its own server unless --url is given.

    python -m tests.e2e.sweep_languages [--lang zh-Hans es ko ar] [--width 390 1400 1920] [--page attention ...]
                                        [--out artifacts/sweep] [--url http://127.0.0.1:8501]

Screenshots: <out>/<lang>/<width>-<page or home>.png.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from engine import i18n
from tests.e2e.helpers import error_texts, open_page
from ui.path import ideas

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
HEIGHT = {390: 844, 1400: 1000, 1920: 1080}
TALL = """() => Math.max(...[...document.querySelectorAll(
    "[data-testid='stMain'], [data-testid='stMainBlockContainer']")].map(e => e.scrollHeight), 0)"""
LOOK = """() => {
    const main = document.querySelector("[data-testid='stMain']");
    return {lang: document.documentElement.lang, dir: document.documentElement.dir,
            sideways: main ? main.scrollWidth - main.clientWidth : 0,
            tracebacks: document.querySelectorAll("[data-testid='stException']").length};
}"""


@contextlib.contextmanager
def server(url: str | None):
    if url:
        yield url
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                                "--server.headless", "true", "--browser.gatherUsageStats", "false"],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=os.environ | {"PYTHONPATH": str(ROOT)})
    address = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(address + "/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        yield address
    finally:
        process.terminate()
        process.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", nargs="+", default=[c for c in i18n.LANGUAGES if c != i18n.SOURCE])
    parser.add_argument("--width", nargs="+", type=int, default=[390, 1400, 1920])
    parser.add_argument("--page", nargs="+", default=[""] + [idea.url for idea in ideas()])
    parser.add_argument("--out", default="artifacts/sweep")
    parser.add_argument("--url", default=None)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    noticed = 0
    with server(args.url) as address, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for lang in args.lang:
            for width in args.width:
                context = browser.new_context(viewport={"width": width, "height": HEIGHT.get(width, 1000)})
                page = context.new_page()
                for path in args.page:
                    query = f"?lang={lang}" + ("&present=1" if width >= 1920 else "")
                    started = time.perf_counter()
                    open_page(page, address, path + query, timeout_ms=180_000)
                    look = page.evaluate(LOOK)
                    errors = error_texts(page)
                    shot = Path(args.out) / lang / f"{width}-{path or 'home'}.png"
                    shot.parent.mkdir(parents=True, exist_ok=True)
                    height = page.evaluate(TALL)
                    page.set_viewport_size({"width": width, "height": min(max(height + 80, 600), 12_000)})
                    page.wait_for_timeout(400)
                    page.screenshot(path=str(shot))
                    page.set_viewport_size({"width": width, "height": HEIGHT.get(width, 1000)})
                    flags = [f"lang={look['lang']} dir={look['dir']}"]
                    if look["sideways"] > 1:
                        flags.append(f"scrolls sideways {look['sideways']} px")
                    if look["tracebacks"] or errors:
                        flags.append(f"errors: {errors[:2]} tracebacks {look['tracebacks']}")
                    noticed += len(flags) > 1
                    print(f"{lang:8} {width:5} {path or 'home':22} {time.perf_counter() - started:5.1f} s  "
                          + "; ".join(flags), flush=True)
                context.close()
        browser.close()
    print(f"{noticed} screenshots with something to look at; all under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
