"""SmolLM2 sampling 20 tokens on one thread, per weight format (engine.pretrained.weight_formats), against float32.

    python -m bench.smollm2_formats [--runs 5]

Each format samples 20 tokens after the Generate page's default prompt (T = 0.8, top-k 40, seed 0,
with the key/value cache), on 1 torch thread as the server runs it, as the page asks for it
(engine.pretrained.smollm2.sample_text: a cheaper format draws, then one float32 pass over the sample gives
the probabilities the page prints); the formats take turns within
each run (load slows all alike) and the median of --runs is printed with its ratio to float32 in the
same run. Beside it: the largest |logit - float32 logit| over every position of the pages' SmolLM2
prompts (engine.pretrained.weight_formats.PAGE_PROMPTS), and whether the 20 tokens drawn are float32's.
Goal (issue 30): 20 tokens within 0.5 s on one thread.

    python -m bench.smollm2_formats --parts

prints instead where a float32 token's time goes (what bounds it): one thread's memory read rate, the block
products and the output layer for one row, a token's pass through the blocks, the draw, and the float32 pass.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch

from engine import limits, lm
from engine.pretrained import smollm2 as pretrained, weight_formats
from bench.timing import median_seconds

PROMPT = "Once upon a time"          # ui.pretrained_views.SAMPLE_DEFAULTS["prompt"]
TOKENS = 20
GOAL_S = 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--parts", action="store_true", help="where a float32 token's time goes, instead")
    args = parser.parse_args()
    torch.set_num_threads(1)
    model = pretrained.load()
    if args.parts:
        parts(model)
        return
    models = {}
    for name in weight_formats.FORMATS:
        start = time.perf_counter()
        models[name] = weight_formats.formatted(model, name)
        print(f"{name}: converted in {time.perf_counter() - start:.2f} s")

    def sample(fmt_model):
        generation = pretrained.sample_text(PROMPT, max_new_tokens=TOKENS, temperature=0.8, top_k=40, seed=0,
                                            model=model, sampler=None if fmt_model is model else fmt_model)
        return [step.token_id for step in generation.steps]

    drawn = {name: sample(m) for name, m in models.items()}           # warm-up, and the tokens each draws
    prompt_ids = model.encode_text(PROMPT, keep="end")[0]
    times = {name: [] for name in models}
    reread = []                                                        # the float32 pass after a cheaper format
    for _ in range(args.runs):
        for name, m in models.items():
            start = time.perf_counter()
            sample(m)
            times[name].append(time.perf_counter() - start)
        start = time.perf_counter()
        model._reread(model.document(prompt_ids), drawn["float32"], 0.8, 40)
        reread.append(time.perf_counter() - start)
    reference = statistics.median(times["float32"])
    print(f"\nSmolLM2, {TOKENS} tokens after {PROMPT!r}, 1 torch thread, median of {args.runs} "
          f"(goal {GOAL_S} s), load average {os.getloadavg()[0]:.1f}:")
    for name, m in models.items():
        seconds = statistics.median(times[name])
        same = "yes" if drawn[name] == drawn["float32"] else "no"
        line = (f"SmolLM2 20 tokens, {name:<8} {seconds:6.2f} s  {seconds / reference:5.2f}x float32  "
                f"{seconds / TOKENS * 1e3:5.0f} ms/token")
        if name != "float32":
            close = weight_formats.closeness(model, m)
            line += (f"  (float32 pass {statistics.median(reread):.2f} s)  max TVD {close.largest_distance:.4f}  "
                     f"same top tokens: {'yes' if close.same_top_tokens else 'no'}  "
                     f"max |logit error| {close.largest_logit_error:6.3f}  "
                     f"may sample: {'yes' if close.may_sample else 'no'}")
        print(f"{line}  same 20 tokens as float32: {same}{'  (goal met)' if seconds <= GOAL_S else ''}")
    print(f"sampling format used by the pages: {weight_formats.SAMPLING_FORMAT} "
          f"(TVD limit {limits.SAMPLING_FORMAT_MAX_TVD})")


def parts(model) -> None:
    """Where one float32 token's time goes on one thread, each part the median of 7."""
    from engine.pretrained.llama import KVCache

    big = torch.rand(256 * 1024 * 1024)                                            # 1 GiB
    seconds = median_seconds(big.sum, 5, warm=True)
    print(f"memory read by one thread (a sum over 1 GiB): {big.numel() * 4 / seconds / 1e9:.1f} GB/s")
    del big
    matrices = [getattr(block, name) for block in model.blocks for name in weight_formats.MATRICES]
    size = sum(W.numel() * 4 for W in matrices)
    products = median_seconds(lambda: [torch.ones(1, W.shape[0]) @ W for W in matrices], 7, warm=True)
    print(f"the {len(matrices)} block products for one row: {products * 1e3:.1f} ms ({size / 1e6:.0f} MB, "
          f"{size / products / 1e9:.1f} GB/s)")
    head = median_seconds(lambda: model.logits(torch.ones(1, model.config.d_model)), 7, warm=True)
    print(f"the output layer for one row: {head * 1e3:.1f} ms ({model.output.numel() * 4 / head / 1e9:.1f} GB/s)")
    ids = model.encode_text(PROMPT, keep="end")[0]
    cache = KVCache()
    model._run(ids, cache=cache, keep_weights=False, keep_hidden=False)
    step = median_seconds(lambda: model._run([42], cache=KVCache(K=list(cache.K), V=list(cache.V)), keep_weights=False,
                                             keep_hidden=False), 7, warm=True)
    print(f"one token through the blocks: {step * 1e3:.1f} ms ({products / step:.0%} of it the products)")
    probs = torch.softmax(model.logits(torch.ones(1, model.config.d_model))[0].double(), dim=-1).numpy()
    rng = np.random.default_rng(0)
    draw = median_seconds(lambda: rng.choice(probs.size, p=lm.apply_temperature_top_k(probs, 0.8, 40)), 7, warm=True)
    print(f"temperature, top-k and a draw over {probs.size} tokens: {draw * 1e3:.1f} ms")
    tokens = model.sample(TOKENS, seed=0, temperature=0.8, top_k=40, prompt=ids)
    whole = median_seconds(lambda: model.sample(TOKENS, seed=0, temperature=0.8, top_k=40, prompt=ids), 3, warm=True)
    print(f"{TOKENS} float32 tokens: {whole:.2f} s ({whole / TOKENS * 1e3:.0f} ms a token)")
    reread = median_seconds(lambda: model._reread(model.document(ids), tokens, 0.8, 40), 3, warm=True)
    print(f"the float32 pass after a cheaper format: {reread:.2f} s; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
