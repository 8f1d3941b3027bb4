"""bench/summary.py reads each benchmark's printed figures into the budget table (no benchmark runs here)."""
from __future__ import annotations

import json

from bench.summary import Outcome, benchmarks, load_rows, pages_rows, startup_rows, train_rows


def test_it_finds_the_benchmarks_and_skips_helpers():
    names = benchmarks()
    assert {"pages", "startup", "load"} <= set(names)
    assert not {"summary", "wsclient", "__init__"} & set(names)


def test_page_medians_against_100_ms():
    out = Outcome("pages", "ok", 1.0, "page  median rerun (ms)  x empty page\n(empty page: the floor)   5.0   1.0\n"
                  "Attention calculator               42.0          8.4\nHead viewer (SmolLM2)   130.5   26.1\n")
    row, = pages_rows(out)
    assert row.met == "NO" and "Head viewer (SmolLM2) 130" in row.figure
    row, = pages_rows(Outcome("pages", "ok", 1.0, "Attention calculator               42.0          8.4\n"))
    assert row.met == "yes"
    row, = pages_rows(Outcome("pages", "ok", 1.0, "Context: window vs attention     51.4     8.0      23.4\n"
                                                  "Tokens & next-token prediction  120.0    24.0      60.0\n"))
    assert row.met == "NO" and "Tokens & next-token prediction 120" in row.figure   # the wall column, not CPU


def test_startup_and_torch():
    text = ("cold start to health check          1.20 s\ncold start to home page drawn        2.50 s   (Chromium)\n"
            "torch imported by start or numpy pages: no\n")
    start, torch = startup_rows(Outcome("startup", "ok", 1.0, text))
    assert start.met == "yes" and torch.met == "yes"
    assert startup_rows(None)[0].met == "?"


def test_load_levels_memory_and_per_session():
    levels = [{"n": 1, "p95": 0.2, "errors": 0, "peak_mib": 900.0, "budget_mib": 1586},
              {"n": 30, "p95": 1.4, "errors": 0, "peak_mib": 1200.0, "budget_mib": 3036}]
    rows = load_rows(Outcome("load", "ok", 1.0, "...\nsummary-json: " + json.dumps(levels) + "\n"))
    by_budget = {r.budget.split(":")[0]: r for r in rows}
    assert rows[0].met == "yes" and "900 MiB" in rows[0].figure
    assert "10.3 MiB per session" in rows[1].figure and rows[1].met == "yes"
    assert by_budget["N = 30"].met == "NO"   # p95 over 1 s


def test_training_ratio():
    text = ("plain PyTorch loop           wall    8,000 tok/s ( 90.0 ms/step)  ratio 1.00   "
            "CPU 9,000 tok/s  ratio 1.00\n"
            "engine.transformer.training Trainer         wall    8,400 tok/s ( 86.0 ms/step)  ratio 1.05   "
            "CPU 9,100 tok/s  ratio 1.01\n")
    row, = train_rows(Outcome("train", "ok", 1.0, text))
    assert row.met == "yes" and "1.05" in row.figure


def test_download_times_by_kind_against_two_seconds():
    from bench.summary import downloads_rows

    row, = downloads_rows(Outcome("downloads", "ok", 1.0, "heatmap 48x48  png  2628.6  185\n"
                                  "slowest download by kind: svg 1008 ms, png 2629 ms, csv 28 ms\n"))
    assert row.met == "NO" and row.figure == "slowest: svg 1008 ms, png 2629 ms, csv 28 ms"
    row, = downloads_rows(Outcome("downloads", "ok", 1.0, "slowest download by kind: svg 90 ms, png 500 ms, csv 0 ms"))
    assert row.met == "yes"
    row, = downloads_rows(None)
    assert row.met == "?"


def test_the_calculators_handout_time_and_pages_against_the_budget():
    from bench.summary import handout_rows

    text = ("handout (attention calculator, A4): 1234 ms, 2 pages, 190 kB; drawing its 4 charts 800 ms of it\n"
            "handout (attention calculator, Letter): 1100 ms, 2 pages, 190 kB; drawing its 4 charts 700 ms of it\n")
    row, = handout_rows(Outcome("downloads", "ok", 1.0, text))
    assert row.met == "yes" and row.figure == "A4 1.2 s (2 pages), Letter 1.1 s (2 pages)"
    row, = handout_rows(Outcome("downloads", "ok", 1.0, text.replace("2 pages, 190", "3 pages, 190", 1)))
    assert row.met == "NO"
    row, = handout_rows(None)
    assert row.met == "?"


def test_each_page_against_its_floor():
    from bench.summary import floor_rows

    from bench.summary import browser_rows

    text = ("page          change     ms  trivial ms   ratio  floor ms  goals\n"
            "attention     toggle: Causal mask   330   32   10.18   208  MISSED MISSED 1.58x floor\n"
            "context       slider: Window half-width   45   32   1.41   110  met    met    1.09x floor\n"
            "worst ratio to the trivial page: 10.18 (goal 1.5)\n"
            "worst ratio to the floor: 1.58x floor (attention; goal 1.25x)\n")
    row, = floor_rows(Outcome("browser", "ok", 1.0, text))
    assert row.met == "NO" and row.figure == "worst 1.58x floor; over: attention 1.58x"
    row, = floor_rows(Outcome("browser", "ok", 1.0, text.replace("1.58x floor\n", "1.20x floor\n", 1)))
    assert row.met == "yes" and row.figure == "worst 1.20x floor"
    assert floor_rows(None)[0].met == "?"
    trivial, = browser_rows(Outcome("browser", "ok", 1.0, text))
    assert trivial.met == "NO" and trivial.figure == "worst ratio 10.18; over: attention"


def test_results_say_when_where_and_what_ran():
    from bench.summary import Row, machine, results_markdown

    about = machine()
    assert about["commit"] and "CPUs" in about["machine"] and "UTC" in about["date"]
    outcomes = {"pages": Outcome("pages", "ok", 12.0, "Attention calculator   42.0   8.4\n")}
    rows = [Row("a | budget", "42 ms", "yes", "bench.pages")]
    text = results_markdown(about, outcomes, rows, full=False)
    assert f"- commit: {about['commit']}" in text and f"- date: {about['date']}" in text
    assert "| bench.pages | ok | 12 |" in text and "| a \\| budget | yes | 42 ms | bench.pages |" in text
    assert "not run: " in text and "Attention calculator   42.0   8.4" in text   # the others are named, not hidden
