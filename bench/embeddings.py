"""Embedding explorer: load time, query time per vocabulary size, accuracy on classic analogies.

Run: python -m bench.embeddings
Prints figures, and ratios against references run in the same process: a full argsort
of every score (the obvious way), and gensim's KeyedVectors.most_similar on the same vectors.
The analogy set is engine/embeddings/data/analogies.tsv: 61 questions written for this app in the style of
Mikolov et al. 2013's question set (arXiv:1301.3781), same categories.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from engine.embeddings import glove as E
from engine import limits
from bench.timing import median_ms

QUERIES = 50


def main() -> None:
    import pyarrow.parquet  # noqa: F401  (streamlit imports it anyway; keep it out of the load time)

    loads = []
    for _ in range(5):
        start = time.perf_counter()
        E.load_glove.__wrapped__()
        loads.append(time.perf_counter() - start)
    wv = E.load_glove()
    print(f"load: median {statistics.median(loads) * 1000:.0f} ms over 5 loads "
          f"(min {min(loads) * 1000:.0f} ms); {len(wv):,} words x {wv.dim}")

    rng = np.random.default_rng(0)
    typable = [w for w in wv.words[:10_000] if E._WORD.match(w)]
    words = [typable[i] for i in rng.choice(len(typable), QUERIES, replace=False)]

    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=wv.dim, count=len(wv), dtype="float32")
    kv.vectors[:] = wv.vectors
    kv.index_to_key, kv.key_to_index = list(wv.words), dict(wv.index)
    kv.fill_norms()

    print("\nquery time, median over 50 random words (ms)")
    print(f"{'vocabulary':>11} {'nearest':>8} {'analogy':>8} {'3cosmul':>8} {'argsort ref':>12} "
          f"{'gensim':>8} {'ref/ours':>9} {'gensim/ours':>12}")
    for size in limits.VOCAB_SIZE_CHOICES:
        cycle = iter(words * 10)
        ours = median_ms(lambda: E.nearest(wv, next(cycle), k=10, vocab_size=size), QUERIES)
        add = median_ms(lambda: E.analogy(wv, [next(cycle), next(cycle)], [next(cycle)], k=5, vocab_size=size), QUERIES)
        mul = median_ms(lambda: E.analogy(wv, [next(cycle), next(cycle)], [next(cycle)], k=5, method="3cosmul",
                                          vocab_size=size), QUERIES)

        def full_sort():
            q = wv.unit[wv.index[next(cycle)]]
            scores = wv.unit[:size] @ q
            return np.argsort(-scores)[:11]

        reference = median_ms(full_sort, QUERIES)
        theirs = median_ms(lambda: kv.most_similar(next(cycle), topn=10, restrict_vocab=size), QUERIES)
        print(f"{size:>11,} {ours:>8.2f} {add:>8.2f} {mul:>8.2f} {reference:>12.2f} {theirs:>8.2f} "
              f"{reference / ours:>9.2f} {theirs / ours:>12.2f}")

    questions = E.read_analogy_set()
    print(f"\nclassic analogies: {len(questions)} questions (engine/embeddings/data/analogies.tsv, in the style of "
          "Mikolov et al. 2013); answers searched among the most frequent words")
    print(f"{'method':>8} {'vocabulary':>11} {'top-1':>6} {'top-5':>6} {'time (s)':>9}")
    for method in E.METHODS:
        for size in limits.VOCAB_SIZE_CHOICES:
            start = time.perf_counter()
            scores = E.score_analogies(wv, questions, method=method, vocab_size=size)
            elapsed = time.perf_counter() - start
            print(f"{method:>8} {size:>11,} {scores.accuracy(1):>6.1%} {scores.accuracy(5):>6.1%} {elapsed:>9.2f}")
    scores = E.score_analogies(wv, questions)
    missed = [f"{q.a}:{q.b}::{q.c}:{q.d} -> {g} (rank {r})"
              for q, r, g in zip(scores.questions, scores.ranks, scores.guesses) if r == 2]
    print("\nlanding second with 3CosAdd over all 400k words:\n  " + "\n  ".join(missed))


if __name__ == "__main__":
    main()
