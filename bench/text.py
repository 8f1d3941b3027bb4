"""Text benchmarks (issue 3): corpus load, n-gram build per n, sampling, BPE training, held-out table.

Run from the repository root: python -m bench.text. Prints figures and ratios against reference runs in the same
process (a pure-Python Counter for n-gram counting, tiktoken for GPT-2 encoding). Timings
are best of a few repeats, wall clock, on whatever the machine is doing at the time.
"""
from __future__ import annotations

import math
import time
from collections import Counter

import numpy as np

from engine.language.corpus import load_corpus
from engine.language.ngram import SMOOTHINGS, NGramModel, count_ngrams, held_out_table
from engine.language.tokenizers import (
    GPT2_PATTERN, CharTokenizer, WordTokenizer, gpt2_files, gpt2_tokenizer, train_bpe
)


def best_of(fn, repeats: int = 3) -> tuple[float, object]:
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    start = time.perf_counter()
    corpus = load_corpus()
    print(f"corpus: 38 plays cleaned in {time.perf_counter() - start:.2f} s "
          f"({len(corpus.text):,} chars; train {len(corpus.train):,}, validation {len(corpus.validation):,})")

    chars = CharTokenizer.from_text(corpus.text)
    words = WordTokenizer.from_text(corpus.train)
    levels = {"char": (chars, np.array(chars.encode(corpus.train)), np.array(chars.encode(corpus.validation))),
              "word": (words, np.array(words.encode(corpus.train)), np.array(words.encode(corpus.validation)))}

    print("\nn-gram build (counts of orders 1..n over the training split), seconds:")
    print("level  tokens     V      " + "  ".join(f"n={n}" for n in range(1, 7)))
    for level, (tok, train, _) in levels.items():
        times = [best_of(lambda n=n: count_ngrams(train, n, tok.vocab_size), 2)[0] for n in range(1, 7)]
        print(f"{level:5}  {train.size:9,} {tok.vocab_size:6,}  " + "  ".join(f"{t:.2f}" for t in times))

    piece = levels["char"][1][:500_000]
    ours, _ = best_of(lambda: count_ngrams(piece, 6, chars.vocab_size), 2)
    ref, _ = best_of(lambda: [Counter(zip(*(piece.tolist()[j:] for j in range(k)))) for k in range(1, 7)], 1)
    print(f"reference: orders 1..6 of 500k chars, ours {ours:.3f} s vs Counter {ref:.3f} s: {ref / ours:.1f}x faster")

    print("\nsampling 1,000 tokens (Kneser-Ney, T=1 / T=0.8), milliseconds:")
    for level, (tok, train, _) in levels.items():
        counts = count_ngrams(train, 6, tok.vocab_size)
        cells = []
        for n in range(1, 7):
            model = NGramModel.from_counts(counts, n, "kneser-ney")
            t1, _ = best_of(lambda: model.sample(1000, seed=1))
            t08, _ = best_of(lambda: model.sample(1000, seed=1, temperature=0.8))
            cells.append(f"n={n} {t1 * 1e3:5.0f}/{t08 * 1e3:4.0f}")
        print(f"{level:5} " + "  ".join(cells))

    print("\nBPE training (merges recorded), seconds:")
    for size, merges in [(100_000, 300), (100_000, 500), (300_000, 500)]:
        t, tok = best_of(lambda: train_bpe(corpus.train[:size], merges), 1)
        print(f"  {merges} merges on {size:,} chars: {t:.2f} s  (first: {tok.merge_text(tok.merges[0])})")

    gpt2 = gpt2_tokenizer()
    text = corpus.validation[:200_000]
    import tiktoken
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    encoder_json, vocab_bpe = gpt2_files()
    reference = tiktoken.Encoding(name="gpt2-offline", pat_str=GPT2_PATTERN.pattern, special_tokens={},
                                  mergeable_ranks=data_gym_to_mergeable_bpe_ranks(str(vocab_bpe), str(encoder_json)))
    ours, ids = best_of(lambda: gpt2_tokenizer().encode(text) if not gpt2._cache.clear() else None, 2)
    ref, ref_ids = best_of(lambda: reference.encode_ordinary(text), 3)
    print(f"GPT-2 encode of 200k chars (cold cache): ours {ours:.3f} s, tiktoken {ref:.3f} s "
          f"(tiktoken {ours / ref:.0f}x faster); same ids: {ids == ref_ids}")

    for level, (tok, train, validation) in levels.items():
        start = time.perf_counter()
        rows = held_out_table(train, validation, tok.vocab_size)
        elapsed = time.perf_counter() - start
        print(f"\nheld-out cross-entropy, {level} level (nats per token; add-k with k=1), {elapsed:.1f} s:")
        print("n  " + "".join(f"{s:>14}" for s in SMOOTHINGS))
        for n in range(1, 7):
            cells = [r for r in rows if r.n == n]
            print(f"{n}  " + "".join(f"{r.nats:>14.3f}" if math.isfinite(r.nats)
                                     else f"{'inf (' + str(r.n_zero) + ' zeros)':>14}"
                                     for r in cells))


if __name__ == "__main__":
    main()
