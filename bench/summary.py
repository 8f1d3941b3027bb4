"""Every benchmark in bench/, one table against the budgets in docs/ARCHITECTURE.md.

    python -m bench.summary [--full] [--only pages startup ...] [--limit 600]

Runs each `bench/<name>.py` as its own process (`python -m bench.<name>`) with a time
limit, saves its whole output to artifacts/bench/<name>.txt, then prints:
1. each benchmark's status and wall time;
2. the budgets (docs/ARCHITECTURE.md "Budgets", and the classroom goals of issue 8) with the figure
   measured for each and whether it was met;
3. the last lines of every benchmark that no budget reads, so no figure goes unseen.
4. and writes the same to bench/RESULTS.md (`--results` elsewhere, `--results ""` not at all), headed by the date,
   the commit and the machine, so the figures a reader finds in the repository say when and where they were taken.
Quick settings by default (fewer repeats, load at N = 1 and 10); --full runs each
benchmark with its own defaults (load at N = 1, 10, 30; training for minutes).
Figures are taken on whatever machine runs this; on a shared machine they carry its load.
Trials that chose between designs, and their figures, are in docs/decisions/.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "artifacts" / "bench"
RESULTS = ROOT / "bench" / "RESULTS.md"
OPTIONAL_TOOLS = ("chromium", "haproxy", "redis-server")   # what some benchmarks need (the README's optional packages)
NOT_BENCHMARKS = {"__init__", "summary", "wsclient", "ship_checkpoint", "trivial_page", "floor_page",
                  "anatomy", "two_pages", "class_common", "timing", "poll_floor_page"}   # helpers, a recipe, pages
QUICK_ARGS = {"pages": ["--runs", "5"], "startup": ["--repeats", "3"], "train": ["--quick"],
              "browser": ["--repeats", "3"], "downloads": ["--repeats", "3"], "load": ["--sessions", "1", "10"]}
LIMITS_S = {"load": 1500, "train": 900, "browser": 900}   # browser: each page, the trivial page and its floor
DEFAULT_LIMIT_S = 600


@dataclass
class Outcome:
    name: str
    status: str          # ok, failed (rc), timed out
    seconds: float
    output: str


def benchmarks() -> list[str]:
    return sorted(p.stem for p in (ROOT / "bench").glob("*.py") if p.stem not in NOT_BENCHMARKS)


def run(name: str, full: bool, limit: float) -> Outcome:
    args = [] if full else QUICK_ARGS.get(name, [])
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", f"bench.{name}", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=limit)
        status = "ok" if done.returncode == 0 else f"failed (exit {done.returncode})"
        output = done.stdout + ("\n" + done.stderr[-3000:] if done.returncode else "")
    except subprocess.TimeoutExpired as expired:
        status = f"timed out ({limit:.0f} s)"
        output = (expired.stdout or b"").decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.txt").write_text(output)
    return Outcome(name, status, time.perf_counter() - start, output)


# --- reading figures out of each benchmark's output --------------------------------------------
@dataclass
class Row:
    budget: str
    figure: str
    met: str             # yes / NO / ?  (? = not measured in this run)
    source: str


def pages_rows(out: Outcome | None) -> list[Row]:
    budget = "server time of one interaction, non-training page: median < 100 ms"
    if out is None or not out.output:
        return [Row(budget, "not measured", "?", "bench.pages")]
    medians = {}
    for line in out.output.splitlines():
        # title, median wall ms, x empty page, then (newer bench.pages) median CPU ms
        match = re.match(r"^(?!page\b|\(empty)(.+?)\s{2,}([\d.]+)\s+([\d.]+)(?:\s+[\d.]+)?\s*$", line)
        if match:
            medians[match.group(1).strip()] = float(match.group(2))
    if not medians:
        return [Row(budget, f"no figures ({out.status})", "?", "bench.pages")]
    worst = max(medians, key=medians.get)
    over = [f"{k} {v:.0f}" for k, v in medians.items() if v >= 100]
    figure = f"worst {worst}: {medians[worst]:.0f} ms; {len(medians)} pages"
    if over:
        figure += f"; over: {', '.join(over)}"
    return [Row(budget, figure, "yes" if not over else "NO", "bench.pages")]


def startup_rows(out: Outcome | None) -> list[Row]:
    rows = []
    text = out.output if out else ""
    health = re.search(r"cold start to health check\s+([\d.]+) s", text)
    home = re.search(r"cold start to home page drawn\s+([\d.]+) s", text)
    seconds = float(home.group(1)) if home else float(health.group(1)) if health else None
    rows.append(Row("`streamlit run app.py` serves the home page within 3 s",
                    (f"home drawn {home.group(1)} s (Chromium launch included), health {health.group(1)} s"
                     if home and health else "not measured"),
                    "?" if seconds is None else "yes" if seconds < 3 else "NO", "bench.startup"))
    torch = re.search(r"torch imported by start or numpy pages: (\w+)", text)
    rows.append(Row("start and numpy pages never import torch", torch.group(1) if torch else "not measured",
                    "?" if not torch else "yes" if torch.group(1) == "no" else "NO", "bench.startup"))
    return rows


def load_rows(out: Outcome | None) -> list[Row]:
    match = re.search(r"^summary-json: (.*)$", out.output if out else "", re.MULTILINE)
    if not match:
        status = out.status if out else "not run"
        return [Row("classroom load (issue 8)", f"not measured ({status})", "?", "bench.load")]
    levels = json.loads(match.group(1))
    rows = []
    one = next((lv for lv in levels if lv["n"] == 1), None)
    if one:
        rows.append(Row("whole app, all pages visited: resident memory < 1.5 GiB",
                        f"{one['peak_mib']:.0f} MiB (one session, every page)",
                        "yes" if one["peak_mib"] < 1536 else "NO", "bench.load"))
    many = [lv for lv in levels if lv["n"] > 1]
    if one and many:
        top = max(many, key=lambda lv: lv["n"])
        per = (top["peak_mib"] - one["peak_mib"]) / (top["n"] - 1)
        rows.append(Row("each extra session < 50 MiB (training excluded)",
                        f"{per:.1f} MiB per session ({top['n']} sessions vs 1)", "yes" if per < 50 else "NO",
                        "bench.load"))
    for level in levels:
        rows.append(Row(f"N = {level['n']}: non-training p95 <= 1 s, no errors, RSS <= 1.5 GiB + 50 MiB x N",
                        f"p95 {1000 * level['p95']:.0f} ms, {level['errors']} errors, "
                        f"{level['peak_mib']:.0f} / {level['budget_mib']} MiB",
                        "yes" if level["p95"] <= 1 and not level["errors"] and level["peak_mib"] <= level["budget_mib"]
                        else "NO", "bench.load"))
    return rows


def browser_rows(out: Outcome | None) -> list[Row]:
    budget = "in the browser: a widget change to idle within 1.5 x a trivial Streamlit page's"
    match = re.search(r"worst ratio to the trivial page: ([\d.]+)", out.output if out else "")
    if not match:
        return [Row(budget, f"not measured ({out.status if out else 'not run'})", "?", "bench.browser")]
    missed = [line.split()[0] for line in out.output.splitlines()   # the trivial verdict, before the floor's
              if re.search(r"\sMISSED\s+(met|MISSED)\s*[\d.]+x floor$", line.rstrip())]
    figure = f"worst ratio {match.group(1)}" + (f"; over: {', '.join(missed)}" if missed else "")
    return [Row(budget, figure, "yes" if float(match.group(1)) <= 1.5 else "NO", "bench.browser")]


def floor_rows(out: Outcome | None) -> list[Row]:
    """Each page's change against Streamlit's floor for the same anatomy (bench.browser, issue 30)."""
    budget = "in the browser: each page's change within 1.25 x Streamlit's floor for its anatomy"
    pages = re.findall(r"^(\S+)\s.*\s([\d.]+)x floor$", out.output if out else "", re.MULTILINE)
    if not pages:
        return [Row(budget, f"not measured ({out.status if out else 'not run'})", "?", "bench.browser")]
    over = [f"{page} {ratio}x" for page, ratio in pages if float(ratio) > 1.25]
    worst = max(float(ratio) for _, ratio in pages)
    figure = f"worst {worst:.2f}x floor" + (f"; over: {', '.join(over)}" if over else "")
    return [Row(budget, figure, "yes" if not over else "NO", "bench.browser")]


def downloads_rows(out: Outcome | None) -> list[Row]:
    """The time to make each kind of chart download (bench.downloads), against 2 s from click to file."""
    budget = "a chart's download (SVG, PNG 2x, CSV) made within 2 s of the click"
    match = re.search(r"slowest download by kind: (.+)", out.output if out else "")
    if not match:
        return [Row(budget, f"not measured ({out.status if out else 'not run'})", "?", "bench.downloads")]
    times = {kind: float(ms) for kind, ms in re.findall(r"(\w+) ([\d.]+) ms", match.group(1))}
    figure = "slowest: " + ", ".join(f"{kind} {ms:.0f} ms" for kind, ms in times.items())
    return [Row(budget, figure, "yes" if times and max(times.values()) <= 2000 else "NO", "bench.downloads")]


HANDOUT_BUDGET_S = 5.0   # a page's handout from click to file (it draws every chart of the page: ~0.1-0.5 s each)


def handout_rows(out: Outcome | None) -> list[Row]:
    """The time to make the attention calculator's handout (bench.downloads), A4 and Letter, and its pages."""
    budget = f"the calculator's handout (PDF) made within {HANDOUT_BUDGET_S:g} s of the click, on 2 pages"
    found = re.findall(r"handout \(attention calculator, (\w+)\): (\d+) ms, (\d+) pages", out.output if out else "")
    if not found:
        return [Row(budget, f"not measured ({out.status if out else 'not run'})", "?", "bench.downloads")]
    figure = ", ".join(f"{paper} {float(ms) / 1000:.1f} s ({pages} pages)" for paper, ms, pages in found)
    met = all(float(ms) <= HANDOUT_BUDGET_S * 1000 and int(pages) <= 2 for _, ms, pages in found)
    return [Row(budget, figure, "yes" if met else "NO", "bench.downloads")]


def train_rows(out: Outcome | None) -> list[Row]:
    budget = "training tokens/s >= a plain PyTorch loop on the same model (ratio >= 1.0)"
    if out is None:
        return [Row(budget, "not measured (not run)", "?", "bench.train")]
    lines = [line for line in out.output.splitlines() if re.search(r"tok/s .*ratio", line)]
    if not lines:
        return [Row(budget, f"no figures ({out.status})", "?", "bench.train")]
    ratios = [(line.split(" wall")[0].strip(), float(re.search(r"ratio ([\d.]+)", line).group(1))) for line in lines]
    ours = [(n, r) for n, r in ratios if not re.search(r"plain|nanogpt|reference|baseline", n, re.IGNORECASE)]
    if not ours:
        return [Row(budget, "; ".join(f"{n} {r:.2f}" for n, r in ratios), "?", "bench.train")]
    name, ratio = ours[0]
    return [Row(budget, f"{name}: wall ratio {ratio:.2f}", "yes" if ratio >= 1.0 else "NO", "bench.train")]


def heavy_rows(interventions: Outcome | None, formats: Outcome | None) -> list[Row]:
    """The heavy questions' own budgets (issue 30): bench.interventions' slowest attribution ranking and patching
    heatmap, and bench.smollm2_formats' 20 tokens per weight format against float32 in the same run."""
    rows = []
    text = interventions.output if interventions else ""
    for budget, pattern, goal in (
            ("Inside page: all 270 heads ranked (attribution) within 0.5 s", r"attribution ranking of 270 heads: "
                                                                            r"([\d.]+) s(?: \(slowest median, (\d+)x)?",
             0.5),
            ("Inside page: the patching heatmap within 1 s", r"^patching heatmap: ([\d.]+) s(?: \(slowest median, "
                                                              r"(\d+)x)?", 1.0)):
        found = re.search(pattern, text, re.MULTILINE)
        ratio = f", {found.group(2)}x a plain pass" if found and found.group(2) else ""
        rows.append(Row(budget, f"{found.group(1)} s (slowest median{ratio})" if found else
                        f"not measured ({interventions.status if interventions else 'not run'})",
                        "?" if not found else "yes" if float(found.group(1)) <= goal else "NO", "bench.interventions"))
    found = re.findall(r"SmolLM2 20 tokens, (\S+)\s+([\d.]+) s\s+([\d.]+)x float32", formats.output if formats else "")
    budget = "SmolLM2 samples 20 tokens within 0.5 s on one thread"
    if not found:
        rows.append(Row(budget, f"not measured ({formats.status if formats else 'not run'})", "?",
                        "bench.smollm2_formats"))
    else:
        used = re.search(r"sampling format used by the pages: (\S+)", formats.output)
        seconds = {name: float(value) for name, value, _ in found}
        judged = seconds.get(used.group(1) if used else "float32", min(seconds.values()))
        rows.append(Row(budget, "; ".join(f"{name} {float(value):.2f} s ({ratio}x float32)"
                                          for name, value, ratio in found)
                        + (f"; the pages sample in {used.group(1)}" if used else ""),
                        "yes" if judged <= 0.5 else "NO", "bench.smollm2_formats"))
    return rows


# --- bench/RESULTS.md ------------------------------------------------------------------------------------------
def machine() -> dict[str, str]:
    """When, at which commit and on what this run took its figures."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    cpu = ""
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "")
        memory = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal")) / 2**20
    except (OSError, StopIteration, ValueError):
        memory = 0.0
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "commit": commit,
            "machine": f"{os.cpu_count()} CPUs{f' ({cpu})' if cpu else ''}, {memory:.0f} GiB, "
                       f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
            "load": f"{os.getloadavg()[0]:.1f} at the start (a shared machine slows every figure)",
            "optional": ", ".join(f"{tool} {'yes' if shutil.which(tool) else 'no'}" for tool in OPTIONAL_TOOLS)}


def results_markdown(about: dict[str, str], outcomes: dict[str, Outcome], rows: list[Row], full: bool) -> str:
    """bench/RESULTS.md: where and when, each benchmark's status, the budgets, and the last lines of the others."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    lines = ["# Benchmark results", "",
             "Written by `python -m bench.summary` (do not edit by hand: run it again). Read the ratios against the "
             "reference each benchmark runs in the same process, not the milliseconds.", "",
             f"- date: {about['date']}", f"- commit: {about['commit']}", f"- machine: {about['machine']}",
             f"- load: {about['load']}", f"- optional packages: {about['optional']}",
             f"- settings: {'each benchmark with its own defaults (--full)' if full else 'quick'}; "
             f"{len(outcomes)} of {len(benchmarks())} benchmarks ran"
             + ("" if len(outcomes) == len(benchmarks())
                else f" (not run: {', '.join(n for n in benchmarks() if n not in outcomes)})"), "",
             "| benchmark | status | seconds |", "|---|---|---|"]
    lines += [f"| bench.{out.name} | {out.status} | {out.seconds:.0f} |" for out in outcomes.values()]
    lines += ["", "## Budgets", "", "| budget | met | figure | source |", "|---|---|---|---|"]
    lines += [f"| {cell(row.budget)} | {row.met} | {cell(row.figure)} | {row.source} |" for row in rows]
    for out in outcomes.values():
        kept = [line.rstrip() for line in out.output.splitlines() if line.strip()][-12:] or ["(no output)"]
        lines += ["", f"## bench.{out.name} ({out.status}), its last lines", "", "```", *kept, "```"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="each benchmark with its own (longer) defaults")
    parser.add_argument("--only", nargs="*", help="benchmark names to run (default: all in bench/)")
    parser.add_argument("--limit", type=float, default=None, help="seconds per benchmark (default per benchmark)")
    parser.add_argument("--results", default=str(RESULTS), help="the Markdown file to write ('' for none)")
    args = parser.parse_args()
    about = machine()
    names = [n for n in benchmarks() if not args.only or n in args.only]
    print(f"{len(names)} benchmarks: {', '.join(names)}; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} (a shared machine slows every figure)")
    outcomes: dict[str, Outcome] = {}
    for name in names:
        limit = args.limit or LIMITS_S.get(name, DEFAULT_LIMIT_S)
        print(f"  running bench.{name} (limit {limit:.0f} s) ...", flush=True)
        outcomes[name] = run(name, args.full, limit)

    print(f"\n{'benchmark':<14} {'status':<22} {'seconds':>8}  output")
    for out in outcomes.values():
        print(f"{out.name:<14} {out.status:<22} {out.seconds:>8.0f}  artifacts/bench/{out.name}.txt")

    rows = (pages_rows(outcomes.get("pages")) + startup_rows(outcomes.get("startup")) +
            load_rows(outcomes.get("load")) + train_rows(outcomes.get("train")) +
            browser_rows(outcomes.get("browser")) + floor_rows(outcomes.get("browser")) +
            downloads_rows(outcomes.get("downloads")) +
            handout_rows(outcomes.get("downloads")) +
            heavy_rows(outcomes.get("interventions"), outcomes.get("smollm2_formats")))
    width = max(len(r.budget) for r in rows)
    print(f"\n{'budget':<{width}}  {'met':<4} figure  [source]")
    for row in rows:
        print(f"{row.budget:<{width}}  {row.met:<4} {row.figure}  [{row.source}]")

    read = {"pages", "startup", "load", "train", "downloads"}
    for out in outcomes.values():
        if out.name in read:
            continue
        lines = [line for line in out.output.splitlines() if line.strip()]
        print(f"\n-- bench.{out.name} ({out.status}), last lines:")
        print("\n".join("   " + line for line in lines[-8:]) or "   (no output)")

    if args.results:
        Path(args.results).write_text(results_markdown(about, outcomes, rows, args.full))
        print(f"\nwritten: {args.results}")


if __name__ == "__main__":
    main()
