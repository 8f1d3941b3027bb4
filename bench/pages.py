"""Server time of one rerun of every page (median of 20), against an empty page in the same process.

    python -m bench.pages [--runs 20] [--pages attention context ...] [--compiled]

Each page is run once to warm caches, then rerun N times through Streamlit's AppTest
script runner; the figures are the median wall time of a rerun and its median CPU time
(the process's, every thread: on a busy machine wall time mostly measures the others,
CPU time what one rerun costs the server). The reference is a page that only writes a
title, so the ratio shows what the page itself costs. AppTest compiles the page script
again on every rerun (5-20 ms here), which a running server does once: both figures include
it, unless --compiled keeps one compiled copy of each script, as the server's script cache does.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.path import ideas

ROOT = Path(__file__).resolve().parents[1]


def median_rerun_ms(file: str, runs: int) -> tuple[float, float]:
    """(median wall ms, median CPU ms) of a rerun."""
    at = AppTest.from_file(file, default_timeout=300).run()
    if at.exception:
        raise RuntimeError(f"{file}: {at.exception[0].value}")
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        at.run()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def compile_once() -> None:
    """Give every AppTest run one shared script cache, as a server's runtime holds one."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    shared = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--pages", nargs="*", help="url paths to measure (default: all)")
    parser.add_argument("--compiled", action="store_true",
                        help="compile each page script once, as a running server does")
    args = parser.parse_args()
    if args.compiled:
        compile_once()
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder) / "empty.py"
        empty.write_text("import streamlit as st\nst.title('empty')\n")
        reference, reference_cpu = median_rerun_ms(str(empty), args.runs)
    print(f"{'page':<34} {'median rerun (ms)':>18} {'x empty page':>13} {'CPU (ms)':>9}")
    print(f"{'(empty page: the floor)':<34} {reference:>18.1f} {1.0:>13.1f} {reference_cpu:>9.1f}")
    for idea in ideas():
        if args.pages and idea.url not in args.pages:
            continue
        ms, cpu = median_rerun_ms(str(ROOT / idea.file), args.runs)
        print(f"{idea.title:<34} {ms:>18.1f} {ms / reference:>13.1f} {cpu:>9.1f}")

if __name__ == "__main__":
    main()
