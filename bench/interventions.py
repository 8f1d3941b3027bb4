"""SmolLM2's causal tools (engine.interpret.interventions): first use and median, against a plain forward pass.

    python -m bench.interventions [--runs 3]

On one torch thread, as the server runs them: the logit lens, one ablated pass, the per-head
effect scan (30 layers x 9 heads, one exact ablated pass each, batched by layer), its estimate by
attribution patching (one forward and one backward pass: what the Inside page shows first) and the
patching heatmap ((30 + 1) x T cells, every position's copies packed into one pass per block), on
prompts of 5 to 15 tokens. "first" is the
first call in this process (nothing of the tool cached: what a student waits for on first use),
"median" the median of --runs calls after it. The reference, in the same process and at the same
token count, is a plain pass (`SmolLM2._run` without weights or hidden states, then the last
logits): "x pass" = median / the plain pass's median, i.e. how many plain passes the tool costs.
Goals (issue 30): every head ranked by attribution within 0.5 s, the patching heatmap within 1 s; the
last lines give the slowest of each ("attribution ranking of 270 heads: ... s") and, on the page's
default prompt, how the estimate ranks the heads against the exact scan. The slowest heatmap's
arithmetic follows: its float32 operations (counted by torch's FlopCounterMode), the rate its median
reached, and one float32 product of the heatmap's typical shape timed in the same run (what the core
gives now): the heatmap can go no quicker than its operations at that rate.
`--threads 2` runs the same on two torch threads (the server keeps one).

    python -m bench.interventions --threads-under-load

times instead the page's default patching heatmap on one and on two torch threads, first on the machine as it is
and then with one other process busy on a core (a plain Python loop, as another student's page run would be):
why the server keeps one thread although two are quicker on an idle machine.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import torch

from engine.interpret import interventions
from engine.pretrained import smollm2 as pretrained
from engine.interpret.readings import BARS_TOP_K, PATCHING_EXAMPLES, compare_rankings
from bench.timing import median_seconds

MARY = "Mary had a little"
CLEAN_10, CORRUPT_10 = "The Eiffel Tower is in the city of", "The Colosseum is in the city of"
CLEAN_12 = "The famous Eiffel Tower is located in the city of"
CORRUPT_12 = "The famous Colosseum is located in the city of"
TWELVE = "The capital of the country that borders Spain and Italy is"
NAMES, MARY_TARGET = "When Mary and John went to the store, John gave a drink to", " Mary"   # the page's default


def timed(call, runs: int) -> tuple[float, float]:
    """(seconds of the first call, median seconds of the next `runs` calls)."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start, median_seconds(call, runs)


def threads_under_load(model, runs: int) -> None:
    """The page's default patching heatmap on 1 and 2 torch threads, idle and with one core taken by a busy loop."""
    clean, corrupt, good, bad = next(iter(PATCHING_EXAMPLES.values()))
    T = len(model.encode_text(clean)[0])

    def on(threads: int) -> float:
        torch.set_num_threads(threads)
        return median_seconds(lambda: interventions.activation_patching(model, clean, corrupt, good, bad), runs,
                              warm=True)

    for label, busy in (("the machine as it is", 0), ("one core busy", 1)):
        loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            one, two = on(1), on(2)
        finally:
            for loop in loops:
                loop.kill()
        print(f"patching heatmap, the page's example ({T} tokens), {label}: 1 thread {one:.2f} s, "
              f"2 threads {two:.2f} s ({two / one:.2f}x one)")
    print(f"load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the server runs SmolLM2 on 1)")
    parser.add_argument("--threads-under-load", action="store_true",
                        help="the page's patching heatmap on 1 and 2 threads, idle and with one core busy")
    args = parser.parse_args()
    if args.threads_under_load:
        threads_under_load(pretrained.load(), args.runs)
        return
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    model = pretrained.load()
    print(f"SmolLM2 loaded (prepared cache) in {time.perf_counter() - start:.2f} s; {args.threads} torch "
          f"thread{'s' if args.threads > 1 else ''}")

    def tokens(text: str) -> int:
        return len(model.encode_text(text)[0])

    for clean, corrupt in ((CLEAN_10, CORRUPT_10), (CLEAN_12, CORRUPT_12)):
        assert tokens(clean) == tokens(corrupt), (clean, corrupt)

    def plain_pass(text: str):
        ids = model.encode_text(text)[0]
        return lambda: model.logits(model._run(ids, keep_weights=False, keep_hidden=False)[0][-1:])

    rows = [
        ("logit lens, top 5 per cell", TWELVE, lambda: interventions.logit_lens(model, TWELVE)),
        ("ablate 3 heads (one pass)", TWELVE, lambda: interventions.ablate_heads(model, TWELVE, [(0, 0), (17, 4),
                                                                                                 (18, 6)])),
        ("head effects, 270 heads", MARY, lambda: interventions.head_effects(model, MARY, " lamb")),
        ("head effects, 270 heads", CLEAN_10, lambda: interventions.head_effects(model, CLEAN_10, " Paris")),
        ("head effects, 270 heads", CLEAN_12, lambda: interventions.head_effects(model, CLEAN_12, " Paris")),
        ("head effects, 270 heads", NAMES, lambda: interventions.head_effects(model, NAMES, MARY_TARGET)),
        ("attribution, 270 heads", MARY, lambda: interventions.head_attribution(model, MARY, " lamb")),
        ("attribution, 270 heads", CLEAN_10, lambda: interventions.head_attribution(model, CLEAN_10, " Paris")),
        ("attribution, 270 heads", CLEAN_12, lambda: interventions.head_attribution(model, CLEAN_12, " Paris")),
        ("attribution, 270 heads", NAMES, lambda: interventions.head_attribution(model, NAMES, MARY_TARGET)),
        ("patching heatmap", CLEAN_10,
         lambda: interventions.activation_patching(model, CLEAN_10, CORRUPT_10, " Paris", " Rome")),
        ("patching heatmap", CLEAN_12,
         lambda: interventions.activation_patching(model, CLEAN_12, CORRUPT_12, " Paris", " Rome")),
    ]
    print(f"\n{'tool':<30}{'tokens':>7}{'first (s)':>11}{'median (s)':>12}{'pass (ms)':>11}{'x pass':>8}")
    slowest: dict[str, tuple[float, float]] = {}            # tool -> (its slowest median, that prompt's plain pass)
    slowest_call = {}                                       # tool -> the call of its slowest median
    for name, text, call in rows:
        _, reference = timed(plain_pass(text), max(args.runs, 5))
        first, median = timed(call, args.runs)
        if (median, reference) > slowest.get(name, (0.0, 1.0)):
            slowest[name], slowest_call[name] = (median, reference), call
        print(f"{name:<30}{tokens(text):>7}{first:>11.2f}{median:>12.2f}{reference * 1e3:>11.1f}"
              f"{median / reference:>8.0f}")
    print("\npatching cells: (30 + 1) x T; head effects: 30 x 9 ablated passes; attribution: 1 forward + 1 backward")
    agreement = compare_rankings(interventions.head_attribution(model, NAMES, MARY_TARGET),
                                 interventions.head_effects(model, NAMES, MARY_TARGET), BARS_TOP_K)
    print(f"estimate against exact on {NAMES!r}: rank correlation {agreement.rank_correlation:.2f}, "
          f"{len(agreement.shared)} of the top {agreement.k} in both")
    for line, name, goal in (("exact head scan of 270 heads", "head effects, 270 heads", ""),
                             ("attribution ranking of 270 heads", "attribution, 270 heads", "; goal 0.5 s"),
                             ("patching heatmap", "patching heatmap", "; goal 1 s")):
        median, reference = slowest[name]
        print(f"{line}: {median:.2f} s (slowest median, {median / reference:.0f}x a plain pass of the same prompt in "
              f"this run{goal})")
    heatmap_arithmetic(model, slowest_call["patching heatmap"], slowest["patching heatmap"][0])
    print(f"load average {os.getloadavg()[0]:.1f}")


def heatmap_arithmetic(model, call, seconds: float) -> None:
    """The slowest heatmap's float32 operations, its rate, and one product of its typical shape in this run."""
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        call()
    flop = counter.get_total_flops()
    # a block's largest weight (W_gate, a transposed view as the model holds it) times 560 rows: a block's
    # share of a 10-token heatmap's packed rows, on average
    x, W = torch.randn(560, model.config.d_model), model.blocks[0].W_gate
    _, product = timed(lambda: x @ W, 20)
    rate = 2 * x.shape[0] * W.shape[0] * W.shape[1] / product
    print(f"patching heatmap arithmetic: {flop / 1e9:.1f} GFLOP of float32 (FlopCounterMode), "
          f"{flop / seconds / 1e9:.0f} GFLOP/s in its median; one float32 product {tuple(x.shape)} x "
          f"{tuple(W.shape)} ran at {rate / 1e9:.0f} GFLOP/s in this run: at that rate the heatmap takes at least "
          f"{flop / rate:.2f} s")


if __name__ == "__main__":
    main()
