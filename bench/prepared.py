"""What the prepared cache buys: every page's first visit after a restart, and the memory of 1-3
server processes that map the same arrays.

    python -m bench.prepared [--processes 3] [--cache DIR] [--no-preload]

1. `python -m engine.prepare` fills the cache (a no-op when it is already there).
2. A fresh `streamlit run app.py`; one browser opens the home page, which starts the background
   warm-up (ui/warmup.py); the bench waits until the server's CPU is quiet (the warm-up done).
3. Each page of ui/path.py in a fresh browser context (a new student's first visit): seconds
   from the request to the page drawn and idle, beside a trivial Streamlit page's first visit
   (bench/trivial_page.py): what any page costs a new browser tab (about 1.2 s here: the
   front end's scripts, the websocket). Goal: each page <= 1 s beyond that.
4. Processes 2..N started the same way, every page visited on each; the PSS of each process
   (/proc/PID/smaps_rollup: private pages plus shared pages divided by their sharers) after
   each one joined. Goal: each added process adds <= 300 MiB to the machine's summed PSS.
   The processes are forked from one preloaded parent as deploy.serve starts them (deploy/preload.py;
   its PSS is in the sum); --no-preload starts each with `streamlit run`, as before.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.browser import CHROMIUM, CHROMIUM_FLAGS, TIMEOUT_MS, serve

ROOT = Path(__file__).resolve().parents[1]
FIRST_VISIT_GOAL_S = 1.0
ADDED_PSS_GOAL_MIB = 300
MIB = 2 ** 20


def memory_mib(pid: int) -> dict[str, float]:
    """Pss (and its anonymous and file-backed parts) of a process, MiB."""
    found = {}
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            name, _, rest = line.partition(":")
            if name in ("Pss", "Pss_Anon", "Pss_File"):
                found[name] = int(rest.split()[0]) * 1024 / MIB
    return found


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_quiet(pid: int, quiet_s: float = 3.0, limit_s: float = 300.0) -> float:
    """Seconds until the process has used under 5% of a core for `quiet_s` seconds."""
    begin = time.monotonic()
    last, since = cpu_seconds(pid), time.monotonic()
    while time.monotonic() - begin < limit_s:
        time.sleep(0.5)
        now = cpu_seconds(pid)
        if now - last > 0.05 * 0.5:
            since = time.monotonic()
        last = now
        if time.monotonic() - since >= quiet_s:
            break
    return time.monotonic() - begin


def visit(browser, url: str, path: str) -> float:
    """Seconds from a new student's request to the page drawn and idle."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    begin = time.perf_counter()
    page.goto(f"{url}/{path}", wait_until="domcontentloaded")
    page.wait_for_function("() => document.querySelector(\"[data-testid='stMain']\")", timeout=TIMEOUT_MS)
    page.wait_for_function("""() => { const app = document.querySelector("[data-testid='stApp']");
                                      const main = document.querySelector("[data-testid='stMain']");
                                      return app && app.getAttribute('data-test-script-state') === 'notRunning'
                                        && main && main.querySelectorAll('h1').length > 0; }""",
                           timeout=TIMEOUT_MS, polling=50)
    seconds = time.perf_counter() - begin
    context.close()
    return seconds


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    from bench.browser import free_port
    from deploy.serve import Forked, stop, streamlit_command, wait_healthy
    from ui.path import ideas

    parser = argparse.ArgumentParser(prog="python -m bench.prepared", description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--cache", help="the prepared cache folder (default: $PLAYGROUND_CACHE or its default)")
    parser.add_argument("--no-preload", action="store_true", help="plain `streamlit run` processes, no fork server")
    options = parser.parse_args(argv)
    if options.cache:
        os.environ["PLAYGROUND_CACHE"] = options.cache
    begin = time.perf_counter()
    subprocess.run([sys.executable, "-m", "engine.prepare"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    print(f"python -m engine.prepare: {time.perf_counter() - begin:.1f} s (a no-op when the cache is there)")
    paths = [idea.url for idea in ideas()]
    servers, totals = [], []

    def start_server():
        if options.no_preload:
            return serve("app.py", warm_up=True)
        port = free_port()
        process = Forked(streamlit_command(port), dict(os.environ, PLAYGROUND_WARM_UP="1"))
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, process, f"the Streamlit process on port {port}")
        return process, url

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            for n in range(1, options.processes + 1):
                started = time.perf_counter()
                process, url = start_server()
                servers.append(process)
                visit(browser, url, "")                                # the first session starts the warm-up
                quiet = wait_quiet(process.pid)
                print(f"process {n}: started and warmed in {time.perf_counter() - started:.1f} s "
                      f"(warm-up quiet after {quiet:.1f} s)")
                firsts = {path: visit(browser, url, path) for path in paths}
                if n == 1:
                    trivial, trivial_url = serve("bench/trivial_page.py")
                    floor = statistics.median(visit(browser, trivial_url, "") for _ in range(3))
                    stop([trivial])
                    print(f"\nfirst visit to each page after a restart, a new browser context each (goal <= "
                          f"{FIRST_VISIT_GOAL_S:.0f} s); a trivial Streamlit page's first visit: {floor:.2f} s")
                    print(f"  {'page':<12} {'seconds':>7}  {'beyond the trivial page':>24}")
                    for path, seconds in firsts.items():   # what the page adds to what any Streamlit page costs
                        verdict = "met" if seconds - floor <= FIRST_VISIT_GOAL_S else "MISSED"
                        print(f"  {path:<12} {seconds:7.2f}  {seconds - floor:24.2f}  {verdict}")
                    print(f"  worst        {max(firsts.values()):7.2f}\n")
                wait_quiet(process.pid, quiet_s=2.0)
                shared = Forked.server_pid()
                memory = [memory_mib(pid) for pid in ([shared] if shared else []) + [s.pid for s in servers]]
                each = [m["Pss"] for m in memory]
                print(f"{n} process(es), every page visited on each: PSS "
                      + ("(fork server first) " if shared else "")
                      + " + ".join(f"{mib:.0f}" for mib in each) + f" = {sum(each):.0f} MiB  (anonymous "
                      + " + ".join(f"{m['Pss_Anon']:.0f}" for m in memory) + ", file-backed "
                      + " + ".join(f"{m['Pss_File']:.0f}" for m in memory) + ")")
                totals.append(sum(each))
                if n > 1:
                    added = totals[-1] - totals[-2]
                    verdict = "met" if added <= ADDED_PSS_GOAL_MIB else "MISSED"
                    print(f"  process {n} added {added:.0f} MiB (goal <= {ADDED_PSS_GOAL_MIB}): {verdict}")
            browser.close()
    finally:
        stop(servers)
        Forked.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
