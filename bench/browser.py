"""Every click quick: from a widget change to the app idle again, in real Chromium, per page.

    python -m bench.browser [--repeats 7] [--pages attention ngram ...]
    python -m bench.browser --floor      # Streamlit's own floor (bench/floor_page.py), no page of ours
    python -m bench.browser --pages attention --against /tmp/before   # a lever's before and after, one run
    python -m bench.browser --downloads  # each page also without its Download boxes: what they cost a change

Starts `streamlit run app.py` and, on the same machine, a trivial three-widget Streamlit page
(bench/trivial_page.py) as the reference. On each page it makes one typical change (CHANGES: the
widget a student moves most there); on the trivial page, its switch. Each change is timed in
the page itself (performance.now()): from the input event to the last change of the page's DOM
(a MutationObserver on the whole `stApp`: the run's state attribute, new elements, redrawn
charts), once `data-test-script-state` is `notRunning` and nothing has changed for QUIET_MS.
(The state attribute alone misses a rerun faster than a frame: React never shows `running`.)
The median of `--repeats` changes per page is printed beside the trivial page's, measured
interleaved, and their ratio, against the goal of 1.5 x the trivial page. Both servers run with
PLAYGROUND_WARM_UP=0 after a first visit to every page, so the figures are reruns, not first loads.

Each page is also measured against Streamlit's floor for its own anatomy (issue 30): what Streamlit sent
for the first change (bench/anatomy.py: elements kept, redrawn as they were, redrawn changed, by kind) is
rebuilt on bench/floor_page.py, a page with nothing of ours, whose same change is timed right after the
page's; each page's line ends with the ratio, `1.18x floor`, against the goal of GOAL_FLOOR_RATIO.
"""
from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.anatomy import SIDEBAR, Anatomy, of_change

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
GOAL_RATIO = 1.5
GOAL_FLOOR_RATIO = 1.25   # issue 30: each page within 1.25 x Streamlit's floor for the same anatomy
TIMEOUT_MS = 120_000

WATCH = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  window.__rt = {start: null, ran: false, last: null};
  const mark = () => { if (window.__rt.start === null) window.__rt.start = performance.now(); };
  document.addEventListener("pointerdown", mark, {capture: true, once: true});
  document.addEventListener("keydown", mark, {capture: true, once: true});
  if (window.__rtObserver) window.__rtObserver.disconnect();
  window.__rtObserver = new MutationObserver((records) => {   // the page changing in any way after the input
    if (window.__rt.start === null) return;
    window.__rt.last = performance.now();
    if (records.some((r) => r.attributeName === "data-test-script-state")) window.__rt.ran = true;
  });
  window.__rtObserver.observe(app, {attributes: true, childList: true, subtree: true, characterData: true});
}"""
# done: the page has changed since the input, the script is not running, and nothing has changed for QUIET_MS
QUIET_MS = 400
SETTLED = f"""() => {{
  const rt = window.__rt, app = document.querySelector("[data-testid='stApp']");
  return rt.last !== null && app.getAttribute('data-test-script-state') === 'notRunning'
    && performance.now() - rt.last > {QUIET_MS};
}}"""
IDLE = "() => document.querySelector(\"[data-testid='stApp']\").getAttribute('data-test-script-state') === 'notRunning'"


# the optional Debian packages a reader's figures may depend on: (name, the program that shows it is installed)
OPTIONAL_PACKAGES = [("Graphviz", "dot"), ("HAProxy", "haproxy"), ("Redis", "redis-server")]


def optional_packages() -> str:
    """Which optional Debian packages this machine has, on the PATH the servers inherit."""
    return "; ".join(f"{name} ({program}) {'found' if shutil.which(program) else 'not found'}"
                     for name, program in OPTIONAL_PACKAGES)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(script: str, warm_up: bool = False, **environment: str):
    """(process, url) of `streamlit run script` on a free loopback port, once it answers (the background
    warm-up of ui/warmup.py off unless asked for; `environment`: more variables for the server)."""
    import os

    from deploy.serve import start, wait_healthy

    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
               "--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none",
               "--browser.gatherUsageStats", "false"]
    process = start(command, env=dict(os.environ, PLAYGROUND_WARM_UP="1" if warm_up else "0", **environment))
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, process, script)
    return process, url


# url -> (kind, the start of its label): one typical change per page, the one a student makes most
CHANGES = {
    "tokens": ("slider", "n (the model sees"), "ngram": ("slider", "n (the model sees"),
    "embeddings": ("radio", "Vocabulary searched"), "context": ("slider", "Window half-width"),
    "attention": ("toggle", "Causal mask"), "multi-head": ("slider", "Gain"),
    "heads": ("slider", "Layers shown"), "inside": ("slider", "Induction heads knocked out"),
    "position": ("slider", "Strength s"), "block": ("toggle", "Residual connections"),
    "generate": ("slider", "Temperature"), "beyond": ("radio", "Overlay"),
    "": ("toggle", "A switch"),   # the trivial page
}
TEST_IDS = {"toggle": "stCheckbox", "radio": "stRadio", "slider": "stSlider"}


def target(page, path: str):
    """The widget of the page's typical change, and its kind; None for a page not in CHANGES."""
    if path not in CHANGES:
        return None, None
    kind, label = CHANGES[path]
    box = page.locator(f"[data-testid='{TEST_IDS[kind]}']").filter(has_text=label).first
    if kind == "toggle":
        return box.locator("label").first, kind
    if kind == "radio":
        return box.locator("[data-testid='stRadioOption']"), kind
    return box.locator("input[type='range'], [role='slider']").first, kind   # Streamlit 1.67: a range input


def one_change(page, widget, how: str, trial: int) -> float:
    """ms from the user's change to the app idle again."""
    page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    time.sleep(0.3)
    page.evaluate(WATCH)
    if how == "toggle":
        widget.click()
    elif how == "radio":
        widget.nth(trial % 2).click()
    else:
        widget.focus()
        page.keyboard.press("ArrowRight" if trial % 2 == 0 else "ArrowLeft")
    page.wait_for_function(SETTLED, timeout=TIMEOUT_MS, polling=50)
    result = page.evaluate("() => window.__rt")
    return result["last"] - result["start"]


def listen(page) -> tuple[list, list[float]]:
    """Every ForwardMsg the page's server sends from now on, decoded, in order, and when this process got
    each (perf_counter seconds): two lists that grow."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    received: list = []
    arrived: list[float] = []

    def decode(payload) -> None:
        if isinstance(payload, (bytes, bytearray)):
            message = ForwardMsg()
            message.ParseFromString(bytes(payload))
            received.append(message)
            arrived.append(time.perf_counter())

    page.on("websocket", lambda socket: socket.on("framereceived", decode))
    return received, arrived


def server_ms(received: list, arrived: list[float], start: int) -> float | None:
    """ms from the first script run's start to the last one's end among the messages from index `start`
    (the server's share of a change, seen from here: both ends cross the same socket); None if no run."""
    began = [arrived[i] for i in range(start, len(received)) if received[i].WhichOneof("type") == "new_session"]
    ended = [arrived[i] for i in range(start, len(received)) if received[i].WhichOneof("type") == "script_finished"]
    return 1000 * (ended[-1] - began[0]) if began and ended else None


WIDGET_KINDS = {"toggle": "checkbox", "radio": "radio", "slider": "slider"}   # the protocol's name of each


@dataclass
class Measured:
    """One page's typical change, made repeats + 1 times (the first warms up and gives the anatomy)."""
    change: str
    times: list[float]                          # ms, input to idle again, in the browser
    anatomy: Anatomy | None = None
    server: list[float] = field(default_factory=list)   # ms of each change's script runs (server_ms)


def measure(browser, url: str, path: str, repeats: int, query: str = "") -> Measured:
    """The typical change made repeats + 1 times; what Streamlit sent for the first gives the anatomy
    (bench/anatomy.py)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    received, arrived = listen(page)
    page.goto(f"{url}/{path}{query}")
    page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    time.sleep(1.0)
    widget, how = target(page, path)
    if widget is None:
        context.close()
        return Measured("(no typical change listed)", [])
    if how == "radio":
        widget.nth(1).click()       # start from the second choice, so trial 0 clicks a new one
        page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    name = f"{how}: {CHANGES[path][1]}"
    in_sidebar = widget.first.evaluate("(e) => e.closest(\"[data-testid='stSidebar']\") !== null")
    before = len(received)
    one_change(page, widget, how, 0)
    anatomy = of_change(received[:before], received[before:])
    anatomy.widget = (SIDEBAR if in_sidebar else "") + WIDGET_KINDS[how]
    measured = Measured(name, [], anatomy)
    for trial in range(1, repeats + 1):
        start = len(received)
        measured.times.append(one_change(page, widget, how, trial))
        server = server_ms(received, arrived, start)
        if server is not None:
            measured.server.append(server)
    context.close()
    return measured


def against_trivial(browser, trivial_url: str, url: str, path: str, repeats: int,
                    query: str = "") -> tuple[Measured, float]:
    """(the page's change, the trivial page's median): the trivial page first, then the page, interleaved
    so that both see the same load."""
    reference = measure(browser, trivial_url, "", repeats)
    measured = measure(browser, url, path, repeats, query=query)
    shown = f"{statistics.median(measured.times):.0f} ms" if measured.times else "no typical change listed"
    print(f"  measured {path}{query}: {shown}", file=sys.stderr, flush=True)
    return measured, statistics.median(reference.times)


def on_the_floor(browser, floor_url: str, anatomy: Anatomy, repeats: int) -> Measured:
    """The change on bench/floor_page.py built with the anatomy (its switch, a toggle, stands for the page's
    widget)."""
    measured = measure(browser, floor_url, "", repeats, query=anatomy.query())
    print(f"  measured its floor: {statistics.median(measured.times):.0f} ms", file=sys.stderr, flush=True)
    return measured


def median_or_nan(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    from deploy.serve import stop
    from ui.path import ideas

    parser = argparse.ArgumentParser(prog="python -m bench.browser", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--pages", nargs="+", default=[idea.url for idea in ideas()])
    parser.add_argument("--against", metavar="CHECKOUT",
                        help="also measure every page of another checkout's app.py (a before), interleaved")
    parser.add_argument("--downloads", action="store_true",
                        help="also measure every page served without its Download boxes and handout "
                             "(PLAYGROUND_DOWNLOADS=0), interleaved: what they cost a change")
    parser.add_argument("--floor", action="store_true",
                        help="only Streamlit's own floor: bench/floor_page.py's sections against the trivial page")
    options = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print("bench.browser needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium).")
        return 2
    if options.floor:
        return floor(options.repeats)
    app, app_url = serve("app.py")
    trivial, trivial_url = serve("bench/trivial_page.py")
    floor_app, floor_url = serve("bench/floor_page.py")
    apps = {"": (app, app_url)}
    if options.against:   # its own folder comes first on the server's sys.path, so its ui/, views/ and engine/
        apps[" (against)"] = serve(str(Path(options.against).resolve() / "app.py"))
    if options.downloads:
        from ui.charts import DOWNLOADS_SWITCH

        apps[" (no downloads)"] = serve("app.py", **{DOWNLOADS_SWITCH: "0"})
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            warm = browser.new_page()
            for _, url in apps.values():
                for path in options.pages:         # every shared cache filled once, as after a class's first minute
                    warm.goto(f"{url}/{path}")
                    warm.wait_for_function(IDLE, timeout=TIMEOUT_MS)
            warm.close()
            rows = []
            for path in options.pages:
                for which, (_, url) in apps.items():
                    measured, reference = against_trivial(browser, trivial_url, url, path, options.repeats)
                    if measured.times:
                        rows.append((path + which, measured, reference,
                                     on_the_floor(browser, floor_url, measured.anatomy, options.repeats)))
            browser.close()
    finally:
        stop([process for process, _ in apps.values()] + [trivial, floor_app])
    print(f"Browser round trip, widget change -> app idle (median of {options.repeats}, Chromium, this machine)")
    print(f"Optional packages: {optional_packages()}")
    print("Each page's change, as Streamlit sent it (kept elements, redrawn ones by kind; bench/anatomy.py):")
    for path, measured, _, _ in rows:
        print(f"  {path:<27}{measured.anatomy.describe()}")
    print("(server ms: from a change's first script run starting to its last one ending, as the socket shows them)")
    print(f"{'page':<26}{'change':<42}{'ms':>7}{'server':>8}{'trivial ms':>12}{'ratio':>8}{'floor ms':>10}"
          f"{'server':>8}  goals <= {GOAL_RATIO} trivial, <= {GOAL_FLOOR_RATIO}x floor")
    worst, worst_floor = (0.0, ""), (0.0, "")
    for path, measured, reference, on_floor in rows:
        ms, floor_ms = statistics.median(measured.times), statistics.median(on_floor.times)
        ratio = ms / reference
        verdict = "met" if ratio <= GOAL_RATIO else "MISSED"
        print(f"{path:<26}{measured.change:<42}{ms:>7.0f}{median_or_nan(measured.server):>8.0f}{reference:>12.0f}"
              f"{ratio:>8.2f}{floor_ms:>10.0f}{median_or_nan(on_floor.server):>8.0f}  {verdict:<7}"
              f"{'met' if ms / floor_ms <= GOAL_FLOOR_RATIO else 'MISSED':<7}{ms / floor_ms:.2f}x floor")
        if path in options.pages:   # this checkout's own pages, not a before or a variant
            worst, worst_floor = max(worst, (ratio, path)), max(worst_floor, (ms / floor_ms, path))
    medians = {path: statistics.median(measured.times) for path, measured, _, _ in rows}
    for path in options.pages:
        without = medians.get(path + " (no downloads)")
        if without and path in medians:
            print(f"{path}: {medians[path]:.0f} ms with its Download boxes and handout, {without:.0f} ms without: "
                  f"{medians[path] / without:.2f}x")
    print(f"worst ratio to the trivial page: {worst[0]:.2f} (goal {GOAL_RATIO})")
    print(f"worst ratio to the floor: {worst_floor[0]:.2f}x floor ({worst_floor[1]}; goal {GOAL_FLOOR_RATIO}x)")
    return 0


# label -> the link of bench/floor_page.py: the smallest results a page of ours redraws, on a page with
# nothing of ours (no shell, no sidebar), alone and under 40 unchanging elements
FLOOR = {
    "a one-line section (as the trivial page)": "",
    "one Vega-Lite heatmap": "?chart=1",
    "two formulas": "?formulas=1",
    "a three-row table": "?table=1",
    "heatmap + two formulas + table": "?chart=1&formulas=1&table=1",
    "the same, heatmap as an SVG image": "?image=1&formulas=1&table=1",
    "40 unchanging elements + a one-line section": "?static=10",
    "40 unchanging elements + heatmap, formulas, table": "?static=10&chart=1&formulas=1&table=1",
    "the same, heatmap as an SVG image ": "?static=10&image=1&formulas=1&table=1",
}


def floor(repeats: int) -> int:
    """Streamlit's own floor: each FLOOR section against the trivial page, interleaved, as for our pages."""
    from playwright.sync_api import sync_playwright

    from deploy.serve import stop

    floor_app, floor_url = serve("bench/floor_page.py")
    trivial, trivial_url = serve("bench/trivial_page.py")
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            for label, query in FLOOR.items():
                measured, reference = against_trivial(browser, trivial_url, floor_url, "", repeats, query)
                rows.append((label.strip(), statistics.median(measured.times), reference))
            browser.close()
    finally:
        stop([floor_app, trivial])
    print(f"Streamlit's floor: a section redrawn on a page with nothing of ours (bench/floor_page.py, "
          f"median of {repeats})")
    print(f"{'section':<52}{'ms':>7}{'trivial ms':>12}{'ratio':>8}  goal <= {GOAL_RATIO}")
    for label, ms, reference in rows:
        print(f"{label:<52}{ms:>7.0f}{reference:>12.0f}{ms / reference:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
