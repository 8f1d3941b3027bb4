"""Time to make each kind of chart download (SVG, PNG at 2x, CSV), made on the server when a reader clicks
(engine/charts/export.py), against what the page pays on every rerun for the same chart as text (its summary
and Data table, ui.charts.chart_text), in the same process, Beyond words' charts over a picture included; and the
time to make a handout (engine/charts/handout.py), A4 and Letter, with the share of it spent drawing its charts: the
attention calculator's and Beyond words' (audio) default views as the pages record them (AppTest), and the Gradio
Space's Attention calculator tab as its take-home box describes it (gradio_tabs.take_home).

    python -m bench.downloads [--repeats 5]

The first SVG includes loading vl-convert (once per process). Figures carry the machine's load.
"""
from __future__ import annotations

import argparse
import re
import time

import numpy as np
from bench.timing import median_ms


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
        **pictures(),
    }


def pictures() -> dict[str, dict]:
    """Beyond words' two charts over a picture (an inlined JPEG or PNG under the marks), at the page's defaults."""
    from engine.beyond.modalities import (bundled_picture, frame_attention, image_attention, resize_square,
                                          synth_signal)
    from engine.charts.images import data_url, patch_overlay, spectrogram_with_frames

    result = image_attention(resize_square(bundled_picture("astronaut"), 224), 16, "crop", 64, 0)
    cut = result.source
    url = data_url(np.round(cut.image * 255).astype(np.uint8))
    overlay = patch_overlay(url, *cut.image.shape[:2], cut.rows, cut.cols, 16, result.attention.weights[62], 62,
                            display_width=500)
    sound = synth_signal("melody", 8000)
    frames = frame_attention(sound, 512, 128, 64, 0)
    return {"patch overlay 14x14": overlay,
            "spectrogram 94 frames": spectrogram_with_frames(frames.source, 6, frames.attention.weights[6],
                                                             sound.segments)}


def page_handout(view: str, link: str, query: dict[str, str] | None = None):
    """A page's default view (or the view `query` opens) as the page records it for the handout (ui.handout)."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from ui import handout

    page = Path(__file__).resolve().parents[1] / "views" / f"{view}.py"
    at = AppTest.from_file(str(page), default_timeout=120)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return handout.description(at.session_state[handout.RECORD], link)


def gradio_handout():
    """The Gradio Space's Attention calculator tab, as its take-home box describes it (gradio_tabs.take_home)."""
    from engine.chapter.attention import PAGE
    from gradio_tabs import take_home
    from gradio_tabs.attention_calculator import from_link
    from ui.path import ideas

    weights, context, summary, heatmap = from_link(PAGE.values({}))   # the page's defaults: the chapter's X
    idea = next(idea for idea in ideas() if idea.url == "attention")
    return take_home.description(idea, "http://127.0.0.1:7860/", [f"### {PAGE.question}", heatmap, summary,
                                                                   weights, context])


def handouts() -> dict[str, object]:
    return {"attention calculator": page_handout("attention_calculator", "http://localhost:8501/attention"),
            "beyond words, audio": page_handout("beyond_words", "http://localhost:8501/beyond?kind=audio",
                                                {"kind": "audio"}),
            "Gradio attention tab": gradio_handout()}


def handout_times(repeats: int) -> None:
    """Median ms to make each handout per paper, and how much of it drawing its charts took."""
    from engine.charts import handout

    for name, description in handouts().items():
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
            print(f"handout ({name}, {paper}): {ms:.0f} ms, {pages} pages, {len(made[-1]) / 1024:.0f} kB; "
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
