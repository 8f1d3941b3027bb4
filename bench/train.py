"""Training speed and what a few minutes of training buys, on 1 thread.

    python -m bench.train                 # about 8 minutes
    python -m bench.train --quick         # speed only, about 1 minute
(from the repository root, as every bench.)

1. tokens/s of engine.transformer.training's Trainer against a plain nanoGPT-style loop (its GPT class,
   default AdamW, get_batch by slicing and stacking, float32 as nanoGPT runs on a CPU) on
   nanoGPT's CPU baby GPT (4 layers, 4 heads, 128 wide, context 64, batch 12), measured in
   the same process, interleaved in short segments so that other processes slow both alike.
   Wall-clock and CPU time. The Trainer is timed in float32 (the same arithmetic as the
   plain loop) and, on a CPU with AMX, also with bfloat16 mixed precision, what live runs
   use there.
2. Held-out loss (nats/char, the first HELD_OUT_CHARS of the validation split) after
   60 s and 180 s of training with the live recipe (engine.transformer.training.LIVE_RECIPE, the Block
   builder's defaults) on the baby GPT, against the character n-grams.
3. Peak resident memory of a training run.
The machine is shared: read the figures as taken under contention.
"""
from __future__ import annotations

import argparse
import math
import os
import threading
import time
from dataclasses import replace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from engine.language.corpus import load_corpus
from engine.transformer.config import PRESETS, with_vocab
from engine.transformer.model import TransformerLM
from engine.transformer.language_model import TransformerLanguageModel
from engine.language.tokenizers import CharTokenizer
from engine.transformer.training import LIVE_RECIPE, TrainConfig, Trainer, mixed_precision, train

HELD_OUT_CHARS = 100_000
BATCH, T = 12, 64


# --- the reference: a plain nanoGPT-style model and loop -----------------------------------------

class PlainAttention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.c_attn = nn.Linear(d, 3 * d, bias=False)
        self.c_proj = nn.Linear(d, d, bias=False)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class PlainBlock(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(d, bias=False), nn.LayerNorm(d, bias=False)
        self.attn = PlainAttention(d, h)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d, bias=False), nn.GELU(), nn.Linear(4 * d, d, bias=False))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class PlainGPT(nn.Module):
    def __init__(self, vocab, d=128, h=4, layers=4, context=T):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(context, d)
        self.h = nn.ModuleList(PlainBlock(d, h) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d, bias=False)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.wte.weight = self.lm_head.weight
        for p in self.parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, idx, targets):
        x = self.wte(idx) + self.wpe(torch.arange(idx.size(1)))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


class PlainLoop:
    """nanoGPT's train.py on a CPU: get_batch by slicing, AdamW as configured there, clip 1.0."""

    def __init__(self, vocab, data: np.ndarray):
        torch.manual_seed(0)
        self.model, self.data = PlainGPT(vocab), data
        decay = [p for p in self.model.parameters() if p.dim() >= 2]
        rest = [p for p in self.model.parameters() if p.dim() < 2]
        self.optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                            {"params": rest, "weight_decay": 0.0}], lr=1e-3, betas=(0.9, 0.99))

    def step(self):
        ix = torch.randint(len(self.data) - T, (BATCH,))
        x = torch.stack([torch.from_numpy(self.data[i:i + T].astype(np.int64)) for i in ix])
        y = torch.stack([torch.from_numpy(self.data[i + 1:i + 1 + T].astype(np.int64)) for i in ix])
        _, loss = self.model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss.item()


# --- measurements --------------------------------------------------------------------------------

def speed(train_ids: np.ndarray, vocab: int, rounds: int, steps: int, compile: bool) -> None:
    config = with_vocab(PRESETS["baby GPT (nanoGPT on a CPU)"], vocab)
    contenders = {"plain nanoGPT-style loop": PlainLoop(vocab, train_ids.astype(np.uint16)).step}
    settings = [("Trainer, float32", "float32", False)]
    if mixed_precision("auto"):
        settings.append(("Trainer, bfloat16 mixed", "bfloat16", False))
    if compile:
        settings.append(("Trainer, float32 + compile", "float32", True))
    for name, precision, compiled in settings:
        torch.manual_seed(0)
        trainer = Trainer(TransformerLM(config), train_ids, TrainConfig(batch_size=BATCH, seed=0, precision=precision),
                          compile=compiled)
        contenders[name] = lambda trainer=trainer: trainer.step(1e-3)
    n_parameters = trainer.model.n_parameters()
    assert sum(p.numel() for p in PlainGPT(vocab).parameters()) == n_parameters
    for step in contenders.values():                      # warm up (and compile)
        for _ in range(5):
            step()
    wall = {name: 0.0 for name in contenders}
    cpu = dict(wall)
    names = list(contenders)
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            w, c = time.perf_counter(), time.thread_time()
            for _ in range(steps):
                contenders[name]()
            wall[name] += time.perf_counter() - w
            cpu[name] += time.thread_time() - c
    tokens = rounds * steps * BATCH * T
    base = names[0]
    print(f"\n== tokens/s, baby GPT ({n_parameters:,} parameters), batch {BATCH} x {T}, 1 thread, "
          f"{rounds} interleaved rounds of {steps} steps")
    print(f"live runs on this CPU: {'bfloat16 mixed precision (AMX)' if mixed_precision('auto') else 'float32'}")
    for name in names:
        print(f"{name:28s} wall {tokens / wall[name]:8,.0f} tok/s ({1000 * wall[name] / (rounds * steps):5.1f} ms/step)"
              f"  ratio {wall[base] / wall[name]:.2f}   CPU {tokens / cpu[name]:8,.0f} tok/s"
              f"  ratio {cpu[base] / cpu[name]:.2f}")


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def budgets(tokenizer, train_ids, held_out_ids, seconds: list[float]) -> None:
    from engine.language.ngram import NGramModel

    print(f"\n== held-out loss, first {len(held_out_ids):,} characters of the validation split (nats/char)")
    for n, smoothing in ((2, "kneser-ney"), (3, "kneser-ney"), (4, "kneser-ney"), (5, "kneser-ney")):
        started = time.perf_counter()
        ngram = NGramModel(n, smoothing, tokenizer=tokenizer).fit(train_ids, tokenizer.vocab_size)
        print(f"{n}-gram {smoothing:10s} {ngram.cross_entropy(held_out_ids):.3f}   "
              f"(counted in {time.perf_counter() - started:.1f} s)", flush=True)
    config = with_vocab(PRESETS["baby GPT (nanoGPT on a CPU)"], tokenizer.vocab_size)
    for budget in seconds:
        torch.manual_seed(0)
        model = TransformerLM(config)
        peak, before, done = [0], rss_bytes(), threading.Event()

        def watch():
            while not done.is_set():
                peak[0] = max(peak[0], rss_bytes())
                time.sleep(0.05)
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        result = train(model, train_ids, held_out_ids,
                       replace(LIVE_RECIPE, max_seconds=budget, eval_every=10_000, seed=0, threads=1))
        done.set()
        watcher.join()
        nats = TransformerLanguageModel(model, tokenizer).cross_entropy(held_out_ids)
        precision = "bfloat16" if mixed_precision("auto") else "float32"
        print(f"baby GPT ({precision}), {budget:4.0f} s budget: {result.steps[-1]:5d} steps, "
              f"{result.tokens_per_second:7,.0f} tok/s, "
              f"held-out {nats:.3f} nats/char ({nats / math.log(2):.3f} bits/char); "
              f"peak RSS {peak[0] / 2**20:.0f} MiB (+{(peak[0] - before) / 2**20:.0f} MiB for the run)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="speed only")
    parser.add_argument("--compile", action="store_true", help="also time the Trainer under torch.compile")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine)")
    corpus = load_corpus()
    tokenizer = CharTokenizer.from_text(corpus.text)
    train_ids = np.asarray(tokenizer.encode(corpus.train), dtype=np.int64)
    held_out_ids = np.asarray(tokenizer.encode(corpus.validation[:HELD_OUT_CHARS]), dtype=np.int64)
    speed(train_ids, tokenizer.vocab_size, args.rounds, args.steps, args.compile)
    if not args.quick:
        budgets(tokenizer, train_ids, held_out_ids, [60, 180])
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
