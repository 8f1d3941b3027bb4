"""Time to make each kind of chart download (SVG, PNG at 2x, CSV), made on the server when a reader clicks
(engine/charts/export.py), against what the page pays on every rerun for the same chart as text (its summary
and Data table, ui.charts.chart_text), in the same process.

    python -m bench.downloads [--repeats 5]

The first SVG includes loading vl-convert (once per process). Figures carry the machine's load.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def charts() -> dict[str, dict]:
    from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X, self_attention
    from engine.charts.bars import next_token_bars
    from engine.charts.heatmaps import heatmap_spec

    weights = self_attention(CHAPTER_X).weights
    big = np.random.default_rng(0).dirichlet(np.ones(48), size=48)
    names = [f"t{i}" for i in range(48)]
    return {
        "worked example 4x4": heatmap_spec(weights, CHAPTER_TOKENS, CHAPTER_TOKENS, title="alpha"),
        "heatmap 48x48": heatmap_spec(big, names, names, title="alpha"),
        "next-token bars 20": next_token_bars({"model": [(f" w{i}", 1 / 20) for i in range(20)]}, title="P"),
    }


def median_ms(make, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        make()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    from engine.charts import export
    from ui.charts import chart_text

    specs = charts()
    start = time.perf_counter()
    export.svg(specs["worked example 4x4"])
    print(f"first SVG (loads vl-convert): {(time.perf_counter() - start) * 1000:.0f} ms")
    print(f"{'chart':<22} {'kind':<5} {'median ms':>10} {'x as text':>10}")
    worst = {}
    for name, spec in specs.items():
        reference = median_ms(lambda: chart_text(spec), args.repeats)
        for kind, make in (("svg", export.svg), ("png", export.png), ("csv", export.csv_text)):
            ms = median_ms(lambda: make(spec), args.repeats)
            worst[kind] = max(worst.get(kind, 0.0), ms)
            print(f"{name:<22} {kind:<5} {ms:>10.1f} {ms / max(reference, 1e-6):>10.0f}")
    print("slowest download by kind: " + ", ".join(f"{kind} {ms:.0f} ms" for kind, ms in worst.items()))


if __name__ == "__main__":
    main()
