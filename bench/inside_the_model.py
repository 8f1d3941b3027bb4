"""The Inside-the-model page's server time, section by section: first use of an input, then a cached rerun.

    python -m bench.inside_the_model

In one process, on one torch thread (as the server runs), through AppTest: the page's first run (every
section computed: SmolLM2's and the shipped model's loading included), then for each section an input
it has not seen yet (what a student waits for the first time anyone asks for it) and the same input
again after another one (the cached rerun every later student gets). The time is the rerun the change
causes: the whole page (drawing every other section from its cache), or only the sections it changes
where its widget reruns them alone (ui.page.section; then the page is run whole again, untimed, as a
browser would still show it).
"""
from __future__ import annotations

import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[1] / "views" / "inside_the_model.py")

# section -> (widget kind, key, a value not seen at the start, the default to go back to)
CHANGES = {
    "1. logit lens (text)": ("text_input", "inside.text", "The Eiffel Tower is in the city of", "Mary had a little"),
    "2. knock out (another prompt: 270 heads)": ("selectbox", "inside.ko_preset", "Mary had a little (5 tokens)",
                                                 "Who gets the drink? (names, 15 tokens)"),
    "2. knock out (mean ablation: 270 heads)": ("radio", "inside.mode", "mean", "zero"),
    "2. knock out (another group of heads)": ("multiselect", "inside.heads", ["all induction heads"],
                                              ["the 5 heads with the largest effect"]),
    "3. patching (another pair)": ("selectbox", "inside.patch_preset", "Capital of France -> Italy (6 tokens)",
                                   "Eiffel Tower -> Colosseum (10 tokens)"),
    "4. copying (4 heads knocked out)": ("slider", "inside.k", 4, 5),
    "5. your own model (another prompt)": ("selectbox", "inside.own_preset", "And the king and the ki -> n (copying)",
                                           "To be, or not to b -> e"),
}


def timed(at: AppTest, kind: str, key: str, value) -> float:
    widget = getattr(at, kind)(key=key)
    start = time.perf_counter()
    widget.set_value(value).run()
    seconds = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    if not at.title:   # only its sections ran: AppTest now holds just them
        at.run()
    return seconds


def main() -> None:
    import torch

    torch.set_num_threads(1)
    at = AppTest.from_file(PAGE, default_timeout=600)
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    assert not at.exception and not at.error
    start = time.perf_counter()
    at.run()
    print(f"first view (every section computed, models loaded): {first:.2f} s; the same page again: "
          f"{(time.perf_counter() - start) * 1e3:.0f} ms\n")
    print(f"{'section (input)':<45}{'first use (s)':>14}{'cached rerun (ms)':>19}")
    for name, (kind, key, new, default) in CHANGES.items():
        cold = timed(at, kind, key, new)
        timed(at, kind, key, default)
        warm = statistics.median(timed(at, kind, key, value) for value in (new, default, new))
        timed(at, kind, key, default)
        print(f"{name:<45}{cold:>14.2f}{warm * 1e3:>19.0f}")


if __name__ == "__main__":
    main()
