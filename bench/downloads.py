"""Time to make each kind of chart download (SVG, PNG at 2x, CSV), made on the server when a reader clicks
(engine/charts/export.py), against what the page pays on every rerun for the same chart as text (its summary
and Data table, ui.charts.chart_text), in the same process; and the time to make the attention calculator's
handout (engine/charts/handout.py: its default view as the page records it, run once with AppTest), A4 and Letter,
with the share of it spent drawing its charts.

    python -m bench.downloads [--repeats 5]

The first SVG includes loading vl-convert (once per process). Figures carry the machine's load.
"""
from __future__ import annotations

import argparse
import re
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


def calculator_handout():
    """The attention calculator's default view as its page records it for the handout (ui.handout)."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from ui import handout

    page = Path(__file__).resolve().parents[1] / "views" / "attention_calculator.py"
    at = AppTest.from_file(str(page), default_timeout=120).run()
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return handout.description(at.session_state[handout.RECORD], "http://localhost:8501/attention")


def handout_times(repeats: int) -> None:
    """Median ms to make the calculator's handout per paper, and how much of it drawing its charts took."""
    from engine.charts import handout

    description = calculator_handout()
    for paper in handout.PAPERS:
        drawing: list[float] = []

        def draw(spec: dict) -> bytes:
            start = time.perf_counter()
            try:
                return handout.chart_png(spec)
            finally:
                drawing.append((time.perf_counter() - start) * 1000)

        made: list[bytes] = []
        ms = median_ms(lambda: made.append(handout.handout_pdf(description, paper, draw_chart=draw)), repeats)
        pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", made[-1]))
        charts = sum(isinstance(block, handout.Chart) for block in description.blocks)
        print(f"handout (attention calculator, {paper}): {ms:.0f} ms, {pages} pages, {len(made[-1]) / 1024:.0f} kB; "
              f"drawing its {charts} charts {sum(drawing) / repeats:.0f} ms of it")


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
    handout_times(args.repeats)


if __name__ == "__main__":
    main()
