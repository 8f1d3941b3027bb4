"""Cold start and browser latency of the real app, driven in headless Chromium.

    python -m bench.startup [--repeats 10]

Prints: seconds from `streamlit run app.py` to the health check answering and to the home
page drawn in Chromium; the median browser time from a widget change to a finished
rerender on the attention calculator (against a reload of the same page, the reference);
and whether the start or the numpy pages ever imported torch.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.e2e.conftest import CHROMIUM, CHROMIUM_FLAGS, _free_port
from tests.e2e.helpers import open_page, wait_for_app

ROOT = Path(__file__).resolve().parents[1]
NUMPY_PAGES = ["app.py", "views/attention_calculator.py", "views/context_window.py"]


def torch_free(files: list[str]) -> bool:
    probe = ("import sys; from streamlit.testing.v1 import AppTest\n"
             "for f in sys.argv[1:]:\n    AppTest.from_file(f, default_timeout=120).run()\n"
             "print('torch' in sys.modules)")
    # the pages themselves, without the server's background warm-up (which loads torch off the pages' path)
    env = dict(os.environ, PLAYGROUND_WARM_UP="0")
    out = subprocess.run([sys.executable, "-c", probe, *files], capture_output=True, text=True, cwd=ROOT, env=env)
    return out.stdout.strip().endswith("False")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    port = _free_port()
    start = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                               "--server.headless", "true", "--server.fileWatcherType", "none"],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        health = time.perf_counter() - start
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            open_page(page, url)
            home = time.perf_counter() - start
            open_page(page, url, "attention")
            toggles, reloads = [], []
            # The page records when its main area last changed; a toggle's latency is from the
            # click to that last change (the wait below only decides when it is over).
            page.evaluate("""() => {
                window.__lastChange = performance.now();
                new MutationObserver(() => { window.__lastChange = performance.now(); })
                    .observe(document.querySelector("[data-testid='stMain']"),
                             {subtree: true, childList: true, characterData: true, attributes: true});
            }""")
            for i in range(args.repeats):
                clicked = page.evaluate("() => performance.now()")
                page.get_by_text("Scale scores by 1/sqrt(d_k)").click()
                wait_for_app(page, after_input=True)
                toggles.append((page.evaluate("() => window.__lastChange") - clicked) / 1000)
            for i in range(max(3, args.repeats // 3)):
                t0 = time.perf_counter()
                open_page(page, url, "attention")
                reloads.append(time.perf_counter() - t0)
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
    settle = 0.5  # wait_for_app's quiet period (the page unchanged for 500 ms), inside a reload's time
    print(f"cold start to health check        {health:6.2f} s")
    print(f"cold start to home page drawn      {home:6.2f} s   (Chromium launch included)")
    print(f"toggle -> rerender drawn (median)  {1000 * statistics.median(toggles):6.0f} ms  "
          f"(of {args.repeats}; click to the main area's last change)")
    reload = statistics.median(reloads) - settle
    print(f"full page reload (reference)       {1000 * reload:6.0f} ms  "
          f"ratio toggle/reload {statistics.median(toggles) / reload:.2f}")
    free = torch_free([str(ROOT / f) for f in NUMPY_PAGES])
    print(f"torch imported by start or numpy pages: {'no' if free else 'YES'}")


if __name__ == "__main__":
    main()
