"""How long a teacher waits for "Questions about this example": every page's questions, built from its default link.

    python -m bench.class_questions [--runs 3] [--pages inside generate ...]

For each page of engine.chapter.questions.BUILDERS (each page spec's questions), two figures:

- "after the page": what a teacher waits for once the page has drawn its first view. The app builds a page's
  questions with the page's own caches (ui.loaders): the models, corpora and vectors it loaded and what it computed
  for its first view (the Inside page's logit lens and its heads' estimated effects, the Generate page's ladder, the
  N-gram page's held-out scores) are there already; what only a question asks for (another generation, the exact
  knock-out scan of every head) is computed when the teacher asks. Here: one EngineSources warmed by a first build
  holds the shared part, and every timed build computes the rest anew. The median of --runs builds.
- "cold": the first build in this process with nothing loaded (the models and the prepared cache opened): what
  the first question on a freshly started server would cost if no page had run yet. For scale, not the goal.

Goal (issue 39): at most 2 s after the page, every page. The Inside page's questions took 49 s when its knock-out
question read the exact scan (270 passes of SmolLM2), which the page itself only runs on request; it now reads the
estimate the page draws. Timings on a shared machine are noisy: read the figures of one run side by side.
"""
from __future__ import annotations

import argparse
import functools
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # as the server runs (ui/server.py), before numpy loads

GOAL_S = 2.0
PAGE_TEMPERATURE = 0.8     # the Generate page's default: its first view draws its samples at this temperature
# what only a question asks for, never drawn by a page's first view (so never in the app's caches beforehand): the
# exact knock-out scan, and generations at a temperature the page does not show
QUESTION_ONLY = {"pretrained_head_effects": lambda *args: True,
                 "generation": lambda name, prompt, temperature, *rest: temperature != PAGE_TEMPERATURE}


class AfterThePage:
    """The sources as the app holds them once a page has drawn its first view: everything shared with `warmed`,
    except what only a question computes (QUESTION_ONLY), which each call computes anew."""

    def __init__(self, warmed):
        self.warmed = warmed

    def __getattr__(self, name: str):
        shared = getattr(self.warmed, name)
        if name not in QUESTION_ONLY:
            return shared
        from engine.classroom.questions import EngineSources

        anew = functools.partial(getattr(EngineSources, name).__wrapped__, self.warmed)   # the same, uncached
        return lambda *args: anew(*args) if QUESTION_ONLY[name](*args) else shared(*args)


def measure(page: str, runs: int) -> dict:
    from engine import prepare
    from engine.chapter.questions import questions_for
    from engine.classroom.questions import EngineSources

    prepare.serve_on_one_thread()                  # the server's torch (ui/loaders.py, gradio_tabs/loaders.py)
    sources = EngineSources()
    start = time.perf_counter()
    asked = questions_for(page, {}, sources)
    cold = time.perf_counter() - start
    builds = []
    for _ in range(runs):
        start = time.perf_counter()
        questions_for(page, {}, AfterThePage(sources))
        builds.append(time.perf_counter() - start)
    builds.sort()
    return {"page": page, "questions": len(asked), "cold_s": cold, "after_s": builds[len(builds) // 2]}


def main(argv: list[str] | None = None) -> None:
    from engine.chapter.questions import BUILDERS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", nargs="*", default=list(BUILDERS), choices=list(BUILDERS))
    args = parser.parse_args(argv)
    rows = [measure(page, args.runs) for page in args.pages]
    print(f"{'page':<12} {'questions':>9} {'after the page (s)':>19} {'cold (s)':>9}   goal <= {GOAL_S:g} s")
    for row in rows:
        verdict = "ok" if row["after_s"] <= GOAL_S else "OVER"
        print(f"{row['page']:<12} {row['questions']:>9} {row['after_s']:>19.3f} {row['cold_s']:>9.2f}   {verdict}")
    slowest = max(rows, key=lambda row: row["after_s"])
    print(f"slowest after the page: {slowest['page']}, {slowest['after_s']:.3f} s "
          f"({slowest['after_s'] / GOAL_S:.2f} x the goal)")


if __name__ == "__main__":
    main()
