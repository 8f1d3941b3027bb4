"""SmolLM2: cold load, memory at the token limit, forward pass with every head's weights at 16/64/256 tokens.

    python -m bench.pretrained [--runs 5] [--threads 1 2]

The load and the memory are measured in a fresh interpreter (cold: nothing cached but the
OS file cache), `import torch` apart from the load itself, on one torch thread as the
server runs it: the resident memory (RSS) right after the load, then the peak RSS so far
after the load and after each kind of pass at the token limit, the lighter ones first:
next-token distribution and generation, bits per character over several windows, a
forward pass with every head's weights keeping only the last logits (as the head viewer
asks), the same with all (T, V) logits. Nothing else runs in that process: its peaks are
the model's.
Each forward time is the median of --runs passes. The reference, run in the same process,
is a plain float32 matmul doing the same number of multiply-adds as the model's linear
layers (in slices of 576 x 4096) (2 N T FLOPs for N weights and T tokens): the ratio says
how close our readable pass is to the machine's matmul speed.
Targets (issue 6): load under 6 s, 64 tokens under 300 ms, peak memory under 1 GiB.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from bench.timing import median_seconds

ROOT = Path(__file__).resolve().parents[1]

COLD = """
import json, resource, time
t0 = time.perf_counter()
import torch
t1 = time.perf_counter()
from engine import limits
from engine.pretrained import smollm2 as pretrained
model = pretrained.load()
t2 = time.perf_counter()

def rss_mib():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))

def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

figures = {"import_torch_s": t1 - t0, "load_s": t2 - t1, "rss_after_load_mib": rss_mib(),
           "peaks_mib": [["load (read GGUF, dequantize, tokenizer)", peak_mib()]]}
torch.set_num_threads(1)
from bench.pretrained import TEXT as text
ids = model.encode_text(text)[0]
assert len(ids) == limits.PRETRAINED_MAX_TOKENS, len(ids)
T = len(ids)
steps = [
    (f"next-token distribution and generate {limits.PRETRAINED_MAX_NEW_TOKENS} tokens, {T}-token prompt",
     lambda: (pretrained.next_token_distribution(text, 10, model=model),
              pretrained.sample_text(text, max_new_tokens=limits.PRETRAINED_MAX_NEW_TOKENS, model=model))),
    (f"bits per character of {len(text) * 3:,} characters (windows of {T} tokens)",
     lambda: pretrained.score_text(text * 3, model=model)),
    (f"forward at {T} tokens, every weight and hidden state, last logits only",
     lambda: model.forward(ids, all_logits=False)),
    (f"forward at {T} tokens, every weight and hidden state, all ({T}, V) logits",
     lambda: model.forward(ids)),
]
for name, step in steps:
    step()
    figures["peaks_mib"].append([name, peak_mib()])
figures["rss_at_end_mib"] = rss_mib()
print(json.dumps(figures))
"""

TEXT = ("It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in "
        "want of a wife. However little known the feelings or views of such a man may be on his first entering "
        "a neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he is "
        "considered as the rightful property of some one or other of their daughters. ") * 4


def matmuls(x, W, repeats: int) -> None:
    """The reference: `repeats` products x W, each dropped at once (it measures time, not memory)."""
    for _ in range(repeats):
        x @ W


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()

    cold = json.loads(subprocess.run([sys.executable, "-c", COLD], cwd=ROOT, capture_output=True, text=True,
                                     check=True).stdout.strip().splitlines()[-1])
    print(f"cold start: import torch {cold['import_torch_s']:.2f} s, load (read GGUF, dequantize, tokenizer) "
          f"{cold['load_s']:.2f} s (target < 6 s)")
    print(f"memory of a fresh process (torch + model, 1 thread): RSS right after the load "
          f"{cold['rss_after_load_mib']:.0f} MiB; peak RSS so far after each step (target < 1024 MiB):")
    for name, peak in cold["peaks_mib"]:
        print(f"  {name:<74} {peak:5.0f} MiB")
    print(f"  RSS at the end {cold['rss_at_end_mib']:.0f} MiB")

    import torch

    from engine.pretrained import smollm2 as pretrained

    model = pretrained.load()
    ids = model.encode_text(TEXT)[0]
    n_linear = sum(int(t.numel()) for b in model.blocks for t in (b.W_q, b.W_k, b.W_v, b.W_o, b.W_gate, b.W_up,
                                                                  b.W_down)) + int(model.token_embedding.numel())
    for threads in args.threads:
        torch.set_num_threads(threads)
        for T in (16, 64, 256):
            seconds = median_seconds(lambda: model.forward(ids[:T]), args.runs, warm=True)
            x = torch.randn(T, 576)
            W = torch.randn(576, 4096)
            repeats = round(n_linear / W.numel())
            reference = median_seconds(lambda: matmuls(x, W, repeats), args.runs, warm=True)
            print(f"threads {threads}  T={T:3d}: forward with all weights {seconds * 1000:7.1f} ms"
                  f"{'  (target < 300 ms)' if T == 64 else ''};  same FLOPs as one matmul "
                  f"{reference * 1000:6.1f} ms;  ratio {seconds / reference:4.2f}")
        seconds = median_seconds(lambda: model.sample(20, seed=0, prompt=ids[:8]), max(1, args.runs // 2), warm=True)
        print(f"threads {threads}  generate 20 tokens (KV cache): {seconds:.2f} s")


if __name__ == "__main__":
    main()
