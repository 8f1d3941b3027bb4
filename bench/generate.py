"""Generation speed on the Generate page: the shipped transformer with and without its key/value cache.

    python -m bench.generate [--repeats 5] [--checkpoint engine/transformer/data/shakespeare_char]

(from the repository root, as every bench.)

Each row samples the page's default prompt at T = 0.8, on 1 torch thread as the server
runs, for 100, 160 (the page's default) and 400 (the limit) characters:
- "cached": engine.transformer.generation.generate, which reads the transformer through its
  CachedReader (each step runs only the new token until the model's window is full,
  then a full pass per step as the window slides);
- "full passes": the same loop calling next_token_probs, one forward over the whole window
  per step (the reference, run in the same process, interleaved with the cached runs).
- "rolling" (rotary models only): CachedReader(rolling=True), which keeps the cache as the
  window slides (drop the oldest key and value, read one token): one token per step throughout.
  This is what the Generate page runs for a rotary model (engine.prepare.shipped_transformer).
Cached and full passes draw the same characters (checked). A rolling reader is sliding-window
attention beyond the window, not a full pass over it (engine.transformer.language_model.CachedReader), so its
draws may part from the full passes' after the window fills: the table gives the largest
|p_rolling - p_full| over the rolling run's own contexts and whether the draws agreed.
The Kneser-Ney 2- and 4-grams the page puts beside the transformer are timed too. Best of
--repeats, in ms.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from engine.language.corpus import load_corpus
from engine.transformer.generation import generate
from engine.transformer.language_model import TransformerLanguageModel
from engine.language.ngram import NGramModel, count_ngrams
from engine.language.tokenizers import CharTokenizer
from engine.transformer.training import load_checkpoint
from engine.transformer.shipped_model import SHIPPED_CHECKPOINT

PROMPT = "ROMEO:\nBut soft, what light"     # views/generate.py's DEFAULT_PROMPT
LENGTHS = (100, 160, 400)


class FullPasses:
    """The transformer behind next_token_probs only: one forward over the window per step."""

    def __init__(self, lm: TransformerLanguageModel):
        self.lm, self.name, self.tokenizer = lm, lm.name, lm.tokenizer

    def next_token_probs(self, context):
        return self.lm.next_token_probs(context)


def best_ms(run, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--checkpoint", type=Path, default=SHIPPED_CHECKPOINT)
    args = parser.parse_args()
    torch.set_num_threads(1)
    model, notes = load_checkpoint(args.checkpoint)
    tokenizer = CharTokenizer(tuple(notes["vocabulary"]))
    lm = TransformerLanguageModel(model, tokenizer, name="shipped transformer")
    rotary = model.config.positional == "rotary"
    rolling_lm = (TransformerLanguageModel(model, tokenizer, name="shipped transformer", rolling_cache=True)
                  if rotary else None)
    window = model.config.context_length
    prompt_tokens = len(tokenizer.encode(PROMPT))
    print(f"{args.checkpoint.name}: {model.config.n_layers} layers, d = {model.config.d_model}, "
          f"{model.config.positional} positions, window {window}; prompt {prompt_tokens} characters, T = 0.8, 1 thread")
    print(f"{'characters':>10}  {'cached ms':>9}  {'rolling ms':>10}  {'full passes ms':>14}  {'full/cached':>11}  "
          f"{'full/rolling':>12}  {'steps in window':>15}  {'rolling max |dp|, same draws':>28}")
    generate(lm, PROMPT, 20, seed=0, temperature=0.8)                # warm-up
    for length in LENGTHS:
        cached_ms, rolling_ms, full_ms, largest, same = float("inf"), float("inf"), float("inf"), 0.0, True
        for seed in range(args.repeats):                              # interleaved: load slows all alike
            c, cached = best_ms(lambda: generate(lm, PROMPT, length, seed=seed, temperature=0.8), 1)
            f, full = best_ms(lambda: generate(FullPasses(lm), PROMPT, length, seed=seed, temperature=0.8), 1)
            if cached.ids != full.ids:
                raise SystemExit(f"The cached and full-pass generations differ at seed {seed}, length {length}.")
            cached_ms, full_ms = min(cached_ms, c), min(full_ms, f)
            if rotary:
                r, rolled = best_ms(lambda: generate(rolling_lm, PROMPT, length, seed=seed, temperature=0.8), 1)
                rolling_ms, same = min(rolling_ms, r), same and rolled.ids == full.ids
                if seed == 0:                                         # the rolling run's contexts, read in full
                    context = list(rolled.prompt)
                    for step in rolled.steps:
                        largest = max(largest, float(np.abs(step.probs - lm.next_token_probs(context)).max()))
                        context.append(step.token)
        inside = max(0, min(length, window - prompt_tokens + 1))
        rolling = (f"{rolling_ms:>10.0f}  {full_ms:>14.0f}  {full_ms / cached_ms:>11.2f}  {full_ms / rolling_ms:>12.2f}"
                   if rotary else f"{'-':>10}  {full_ms:>14.0f}  {full_ms / cached_ms:>11.2f}  {'-':>12}")
        agreement = f"{largest:.1e}, {'yes' if same else 'no'}" if rotary else "-"
        print(f"{length:>10}  {cached_ms:>9.0f}  {rolling}  {inside:>15}  {agreement:>28}")

    start = time.perf_counter()
    counts = count_ngrams(np.array(tokenizer.encode(load_corpus().train), dtype=np.int64), 4, tokenizer.vocab_size)
    print(f"\nKneser-Ney character n-grams (counted in {time.perf_counter() - start:.1f} s), the same loop:")
    for n in (2, 4):
        ngram = NGramModel.from_counts(counts, n, "kneser-ney", tokenizer=tokenizer)
        row = [f"{best_ms(lambda: generate(ngram, PROMPT, length, seed=0, temperature=0.8), args.repeats)[0]:.0f}"
               for length in LENGTHS]
        print(f"{n}-gram: " + ", ".join(f"{length} chars {ms} ms" for length, ms in zip(LENGTHS, row)))


if __name__ == "__main__":
    main()
