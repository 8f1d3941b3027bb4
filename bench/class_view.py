"""What following costs with the class view (issue 42), page by page, against today's rerun per follower.

    python -m bench.class_view [--runs 7] [--pages attention context ...] [--followers 300]

For every page: a teacher's AppTest session opens it; its record becomes the class view (engine.classroom.view):
made cold (every chart drawn by vl-convert) and warm (a move that changed nothing: drawings kept per spec). Then,
in the same process, two students' sessions: one follows by the view (a whole run of the app that draws the view
instead of the page: what each follower's server pays when the teacher moves) and one follows as before issue 42
(PLAYGROUND_CLASS_VIEW=0: a whole run of the app with the page: the reference). Both are AppTest runs with the
scripts compiled once (as a server's script cache does), so AppTest's own overhead sits in both. Figures: medians
of `--runs` runs, wall and CPU (the process's, all threads) in ms; the route's answer (GET /api/class/{code}/view,
ui.class_view_route, without the HTTP) too. "draw" is the CPU the follower's view itself costs inside its class
fragment (the view read, shared per process, and st.html): on a server a move costs each follower one run of that
fragment (Streamlit's floor for a timed fragment is 4.6-5.0 ms, issue 42) plus "draw"; "view run" is a whole run
of the app that shows the view (an upper bound: what a follower's first view or a reload costs). The last columns
put N followers of one process side by side: one view made plus N view runs (the upper bound) against N page runs
(CPU seconds).
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(work, runs: int) -> tuple[float, float]:
    """(median wall ms, median CPU ms) of `runs` calls."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        work()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--pages", nargs="*", help="url paths to measure (default: every page)")
    parser.add_argument("--followers", type=int, default=300, help="followers of one process in the last columns")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="class-view-bench-")
    os.environ["PLAYGROUND_DATA"] = folder
    os.environ["PLAYGROUND_WARM_UP"] = "0"
    os.environ.pop("PLAYGROUND_REDIS_URL", None)

    from streamlit.testing.v1 import AppTest

    from bench.pages import compile_once
    from engine.classroom import view as view_module
    from ui import class_view_route, classroom
    from ui.handout import for_paper
    from ui.path import ideas
    from ui.recording import RECORD

    compile_once()
    app = str(ROOT / "app.py")
    drawing = []                                       # CPU ms of each follower's view drawing (in its fragment)
    followed_view = classroom._followed_view

    def timed_view(*args, **kwargs):
        start = time.process_time()
        try:
            return followed_view(*args, **kwargs)
        finally:
            drawing.append((time.process_time() - start) * 1000)

    classroom._followed_view = timed_view

    def session(query=None, page=None):
        at = AppTest.from_file(app, default_timeout=600)
        for name, value in (query or {}).items():
            at.query_params[name] = value
        at.run()
        if page:
            at.switch_page(page).run()
        if at.exception:
            raise RuntimeError(at.exception[0].value)
        return at

    view_module.chart_svg({"mark": "point", "data": {"values": [{"a": 1}]},
                           "encoding": {"x": {"field": "a", "type": "quantitative"}}})   # vl-convert's first start
    store = classroom.class_store()
    print(f"{'page':<30} {'charts':>6} {'view kB':>8} {'make cold':>10} {'per chart':>10} {'make warm':>10} "
          f"{'draw':>6} {'view run':>9} {'page run':>9} {'x':>5} {'route':>6}   "
          f"{args.followers} followers, CPU s: view / rerun")
    print(f"{'':<30} {'':>6} {'':>8} {'ms':>10} {'ms':>10} {'ms':>10} {'CPU ms':>6} {'CPU ms':>9} {'CPU ms':>9} "
          f"{'':>5} "
          f"{'ms':>6}")
    totals = []
    for idea in ideas():
        if args.pages and idea.url not in args.pages:
            continue
        T = session(page=idea.file)
        T.button(key="class_start").click().run()
        code, key = T.session_state["class.teacher"]
        T.run()
        record = T.session_state[RECORD]
        blocks = [(sections, for_paper(block)) for sections, block in record.tagged()]
        link = classroom.class_store().state(code).link or idea.url

        def make(cold: bool):
            if cold:
                view_module.SVG_CACHE.clear()
            return view_module.make_view(link, record.title, record.question, blocks)

        cold_ms, _ = timed(lambda: make(True), max(1, args.runs // 2))
        warm_ms, _ = timed(lambda: make(False), args.runs)
        view = make(False)
        store.put_view(code, key, view.to_json())
        classroom.view_maker().drain(600)
        store.put_view(code, key, view.to_json())            # the teacher's own (same page) is now the stored one

        follower = session({"class": code})                   # follows by the view: the page does not run
        if follower.title:
            raise RuntimeError(f"{idea.title}: the follower ran the page")
        os.environ[view_module.SWITCH_ENV] = "0"
        try:
            reference = session({"class": code}, page=idea.file)   # follows as before: the page runs
            reference.run()
            if not reference.title:
                raise RuntimeError(f"{idea.title}: the reference follower did not run the page")
            _, page_cpu = timed(reference.run, args.runs)
        finally:
            os.environ.pop(view_module.SWITCH_ENV, None)
        drawing.clear()
        _, view_cpu = timed(follower.run, args.runs)
        draw_cpu = statistics.median(drawing) if drawing else float("nan")
        route_ms, _ = timed(lambda: class_view_route.view_document(store, code), args.runs)
        charts = view.charts
        n = args.followers
        with_view = (cold_ms + n * view_cpu) / 1000
        rerun = n * page_cpu / 1000
        totals.append((idea.title, cold_ms, view_cpu, page_cpu))
        per_chart = f"{cold_ms / charts:>10.0f}" if charts else f"{'-':>10}"
        print(f"{idea.title[:30]:<30} {charts:>6} {len(view.to_json().encode()) / 1000:>8.0f} {cold_ms:>10.0f} "
              f"{per_chart} {warm_ms:>10.1f} {draw_cpu:>6.2f} {view_cpu:>9.1f} {page_cpu:>9.1f} "
              f"{page_cpu / view_cpu:>5.1f} "
              f"{route_ms:>6.2f}   {with_view:>6.1f} / {rerun:>6.1f}")
        store.end(code, key)
    if totals:
        worst = max(totals, key=lambda row: row[1])
        print(f"\nheaviest view to make: {worst[0]} ({worst[1]:.0f} ms, once per move, beside the teacher's run); "
              f"view run median over pages {statistics.median(r[2] for r in totals):.1f} ms CPU against the page "
              f"run's {statistics.median(r[3] for r in totals):.1f} ms")


if __name__ == "__main__":
    main()
