"""From a click on a patch to the overlay, at 196 and at 1024 patches (Beyond words).

    python -m bench.beyond [--runs 15] [--browser] [--port 8661]     # from the repository root

In-process figures (median of --runs):
  engine      cut the picture, project the tokens, attention over every pair (what a new
              picture or patch size costs; a click reuses it from the cache)
  chart       build the overlay for one query row and serialise it as Streamlit sends it
  page rerun  the whole page rerun after a click (AppTest, engine cached), against an
              empty page in the same process (the ratio)
With --browser: Chromium clicks a patch in the real app and waits until the new query's
numbers and overlay are on screen (median of a few clicks).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

from engine.charts.images import data_url, patch_overlay
from engine.beyond.modalities import image_attention, resize_square
from bench.timing import median_ms

ROOT = Path(__file__).resolve().parents[1]
CASES = {196: {"side": 224, "patch": 16}, 1024: {"side": 0, "patch": 16}}   # astronaut: 224 / 16, 512 / 16


def in_process(runs: int) -> None:
    from skimage import data
    from streamlit.testing.v1 import AppTest

    picture = data.astronaut()
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder) / "empty.py"
        empty.write_text("import streamlit as st\nst.title('empty')\n")
        at = AppTest.from_file(str(empty), default_timeout=300).run()
        reference = median_ms(at.run, runs)
    print(f"{'patches':>8} {'engine (ms)':>12} {'chart (ms)':>11} {'chart KB':>9} {'page rerun (ms)':>16} "
          f"{'x empty page':>13}")
    for T, case in CASES.items():
        pixels = resize_square(picture, case["side"]) if case["side"] else picture
        engine_ms = median_ms(lambda: image_attention(pixels, case["patch"], "crop", 64, 0), runs)
        result = image_attention(pixels, case["patch"], "crop", 64, 0)
        patches = result.source
        assert patches.N == T, patches.N
        url = data_url(np.round(patches.image * 255).astype(np.uint8))
        queries = iter(np.random.default_rng(0).integers(0, T, size=10 * runs))

        def chart_for_a_click():
            q = int(next(queries))
            spec = patch_overlay(url, *patches.image.shape[:2], patches.rows, patches.cols, patches.patch,
                                 result.attention.weights[q], q, selection="token")
            return json.dumps(spec)

        chart_ms = median_ms(chart_for_a_click, runs)
        size_kb = len(chart_for_a_click()) / 1000

        at = AppTest.from_file(str(ROOT / "views" / "beyond_words.py"), default_timeout=300)
        at.query_params.update({"side": str(case["side"]), "patch": str(case["patch"])})
        at.run()
        if at.exception:
            raise RuntimeError(at.exception[0].value)
        rows = iter(np.random.default_rng(1).integers(0, patches.rows, size=10 * runs))

        def click():
            at.number_input(key="qrow").set_value(int(next(rows))).run()

        page_ms = median_ms(click, runs)
        print(f"{T:>8} {engine_ms:>12.1f} {chart_ms:>11.1f} {size_kb:>9.0f} {page_ms:>16.1f} "
              f"{page_ms / reference:>13.1f}")
    print(f"(empty page rerun: {reference:.1f} ms)")


def in_browser(port: int, clicks: int) -> None:
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM, CHROMIUM_FLAGS
    from tests.e2e.helpers import wait_for_app

    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                               "--server.headless", "true", "--server.fileWatcherType", "none",
                               "--browser.gatherUsageStats", "false"],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            page = browser.new_context(viewport={"width": 1400, "height": 1200}).new_page()
            print(f"{'patches':>8} {'click -> overlay (ms), median':>30} {'min':>7} {'max':>7}")
            for T, case in CASES.items():
                page.goto(f"http://127.0.0.1:{port}/beyond?side={case['side']}&patch={case['patch']}",
                          wait_until="domcontentloaded")
                wait_for_app(page)
                chart = page.locator("[data-testid='stVegaLiteChart']").first
                chart.locator(".marks").first.wait_for(timeout=60_000)
                side = int(np.sqrt(T))
                times = []
                for n in np.random.default_rng(2).integers(0, T, size=clicks):
                    row, col = divmod(int(n), side)
                    target = chart.locator(f"path[aria-label*='patch: {int(n)};']").first
                    target.scroll_into_view_if_needed()
                    start = time.perf_counter()
                    target.click()
                    # done when the numbers name the new patch and the overlay lights it fully (it is the query)
                    page.get_by_text(f"Patch ({row}, {col}) keeps").first.wait_for(timeout=60_000)
                    page.wait_for_function(
                        """([n]) => [...document.querySelectorAll("[data-testid='stVegaLiteChart'] path")]
                               .some(p => { const label = p.getAttribute('aria-label') || '';
                                            return label.includes('patch: ' + n + ';')
                                                && label.includes('darkness: 0;'); })""",
                        arg=[int(n)], timeout=60_000, polling="raf")
                    times.append((time.perf_counter() - start) * 1000)
                    page.mouse.move(0, 0)
                print(f"{T:>8} {statistics.median(times):>30.0f} {min(times):>7.0f} {max(times):>7.0f}")
            browser.close()
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--browser", action="store_true", help="also click in Chromium (needs /usr/bin/chromium)")
    parser.add_argument("--clicks", type=int, default=7)
    parser.add_argument("--port", type=int, default=8661)
    args = parser.parse_args()
    in_process(args.runs)
    if args.browser:
        in_browser(args.port, args.clicks)


if __name__ == "__main__":
    main()
