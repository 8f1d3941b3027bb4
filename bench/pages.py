"""Server time of one rerun of every page (median of 20), against an empty page in the same process.

    python -m bench.pages [--runs 20] [--pages attention context ...]

Each page is run once to warm caches, then rerun N times through Streamlit's AppTest
script runner; the figure is the median wall time of a rerun. The reference is a page
that only writes a title, so the ratio shows what the page itself costs.
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


def median_rerun_ms(file: str, runs: int) -> float:
    at = AppTest.from_file(file, default_timeout=300).run()
    if at.exception:
        raise RuntimeError(f"{file}: {at.exception[0].value}")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--pages", nargs="*", help="url paths to measure (default: all)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder) / "empty.py"
        empty.write_text("import streamlit as st\nst.title('empty')\n")
        reference = median_rerun_ms(str(empty), args.runs)
    print(f"{'page':<34} {'median rerun (ms)':>18} {'x empty page':>13}")
    print(f"{'(empty page: the floor)':<34} {reference:>18.1f} {1.0:>13.1f}")
    for idea in ideas():
        if args.pages and idea.url not in args.pages:
            continue
        ms = median_rerun_ms(str(ROOT / idea.file), args.runs)
        print(f"{idea.title:<34} {ms:>18.1f} {ms / reference:>13.1f}")


if __name__ == "__main__":
    main()
