"""Prepare every heavy array once per machine: `python -m engine.prepare` (the Dockerfile runs it).

    python -m engine.prepare [--cache DIR] [--only NAME ...] [--list]

Each function below returns what a page's first visit used to compute for seconds, through the
prepared cache (engine.machinery.cache): read memory-mapped when it is there, built and written when it is
not. The pages' loaders (ui/loaders.py) call these for the corpus the pages open on; a student's
own text or a single play is still computed in memory. Besides these, three engine loaders use
the cache themselves: engine.language.corpus.load_corpus (the cleaned plays), engine.embeddings.glove.load_glove
(GloVe's unit vectors) and engine.pretrained.smollm2.load (SmolLM2's float32 weights).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from engine import limits
from engine.machinery import cache
from engine.language import corpus, ngram, tokenizers


def _modules(*names: str) -> list:
    """The engine modules an entry's numbers come from (their source is part of its key), by their path under
    engine ("language.corpus")."""
    import importlib

    return [importlib.import_module(f"engine.{name}") for name in names]


# --- the corpus at each token level ----------------------------------------------------------------

def corpus_tokens(level: str):
    """(tokenizer, training ids, held-out ids) of all 38 plays at a token level (read-only arrays)."""
    def build() -> cache.Built:
        train, validation = corpus.source_split(corpus.ALL_PLAYS)
        tokenizer = tokenizers.tokenizer_for(level, train, validation)
        arrays, meta = tokenizers.tokenizer_arrays(tokenizer)
        return ({**{f"tokenizer.{name}": array for name, array in arrays.items()},
                 "train": tokenizers.id_array(tokenizer.encode(train), tokenizer.vocab_size),
                 "validation": tokenizers.id_array(tokenizer.encode(validation), tokenizer.vocab_size)}, meta)

    if level not in tokenizers.LEVELS:
        raise ValueError(f"The token level must be one of {', '.join(tokenizers.LEVELS)}; not {level!r}.")
    arrays, meta = cache.cached(f"tokens-{level}", build, params={"level": level}, inputs=corpus.play_files(),
                                code=_modules("language.corpus", "language.tokenizers"))
    tokenizer = tokenizers.tokenizer_from_arrays(
        {name.removeprefix("tokenizer."): array for name, array in arrays.items() if name.startswith("tokenizer.")},
        meta)
    return tokenizer, arrays["train"], arrays["validation"]


def corpus_counts(level: str) -> ngram.NGramCounts:
    """Counts of every k-gram, k = 1..MAX_NGRAM_ORDER, of the plays' training ids at a level."""
    def build() -> cache.Built:
        tokenizer, train, _ = corpus_tokens(level)
        return ngram.count_ngrams(train, limits.MAX_NGRAM_ORDER, tokenizer.vocab_size).to_arrays()

    arrays, meta = cache.cached(f"counts-{level}", build, params={"level": level, "order": limits.MAX_NGRAM_ORDER},
                                inputs=corpus.play_files(),
                                code=_modules("language.corpus", "language.tokenizers", "language.ngram", "limits"))
    return ngram.NGramCounts.from_arrays(arrays, meta)


def corpus_held_out(level: str) -> list[ngram.HeldOutRow]:
    """The held-out table (engine.language.ngram.held_out_rows) of the plays at a level, every n and smoothing."""
    def build() -> cache.Built:
        counts = corpus_counts(level)
        rows = ngram.held_out_rows(counts, corpus_tokens(level)[2], range(1, counts.max_order + 1))
        return {}, {"rows": [list(row.__dict__.values()) for row in rows]}

    _, meta = cache.cached(f"held-out-{level}", build, params={"level": level}, inputs=corpus.play_files(),
                           code=_modules("language.corpus", "language.tokenizers", "language.ngram", "limits"))
    return [ngram.HeldOutRow(*row) for row in meta["rows"]]


# --- the model ladder --------------------------------------------------------------------------------

def held_out_passages(validation: str) -> str:
    """limits.LADDER_PASSAGES stretches of the validation split, evenly spaced, each starting at a line."""
    length = limits.LADDER_HELD_OUT_CHARS // limits.LADDER_PASSAGES
    passages = []
    for k in range(limits.LADDER_PASSAGES):
        start = validation.find("\n", k * (len(validation) - length) // limits.LADDER_PASSAGES) + 1
        passages.append(validation[start:start + length])
    return "".join(passages)


def shipped_model():
    """The shipped character transformer (engine/transformer/data/shakespeare_char) as an engine.lm.LanguageModel,
    and its notes."""
    from engine.transformer.shipped_model import SHIPPED_CHECKPOINT
    from engine.language.tokenizers import CharTokenizer
    from engine.transformer.training import load_checkpoint
    from engine.transformer.language_model import TransformerLanguageModel

    model, notes = load_checkpoint(SHIPPED_CHECKPOINT)
    # rotary positions: a generation past the window keeps its key/value cache (sliding-window attention,
    # one token a step) instead of a full pass over the window per step (engine.transformer.language_model.CachedReader)
    rolling = model.config.positional == "rotary"
    return TransformerLanguageModel(model, CharTokenizer(tuple(notes["vocabulary"])), name="shipped transformer",
                                    rolling_cache=rolling), notes


def model_ladder(shipped: Callable[[], object] | None = None):
    """Every Kneser-Ney character n-gram, n = 1..LADDER_MAX_NGRAM_ORDER, and the shipped transformer,
    scored on the ladder's held-out passages (engine.transformer.generation.Rung each, best last). The counts up to
    8-grams (about 55 MB) live only while scoring: the scores are kept, the counts are not.
    `shipped` gives the transformer (a server passes its loaded one); it is called only to build the entry."""
    from engine.transformer.generation import Rung, ladder
    from engine.transformer.shipped_model import SHIPPED_CHECKPOINT

    def build() -> cache.Built:
        tokenizer, train_ids, _ = corpus_tokens("characters")
        text = held_out_passages(corpus.load_corpus().validation)
        top = limits.LADDER_MAX_NGRAM_ORDER
        counts = ngram.count_ngrams(train_ids, top, tokenizer.vocab_size, limit=top)
        grams = [ngram.NGramModel.from_counts(counts, n, "kneser-ney", tokenizer=tokenizer) for n in range(1, top + 1)]
        rungs = ladder([*grams, shipped() if shipped is not None else shipped_model()[0]], text)
        return {}, {"rungs": [list(rung.__dict__.values()) for rung in rungs]}

    inputs = [*corpus.play_files(), SHIPPED_CHECKPOINT.with_suffix(".safetensors"),
              SHIPPED_CHECKPOINT.with_suffix(".json")]
    _, meta = cache.cached("ladder", build, params={"top": limits.LADDER_MAX_NGRAM_ORDER,
                                                    "chars": limits.LADDER_HELD_OUT_CHARS,
                                                    "passages": limits.LADDER_PASSAGES},
                           inputs=inputs, code=_modules("language.corpus", "language.tokenizers", "language.ngram",
                                                        "limits", "transformer.generation", "lm", "transformer.model",
                                                        "transformer.language_model", "transformer.config",
                                                        "transformer.training"))
    return [Rung(*rung) for rung in meta["rungs"]]


# --- word vectors and SmolLM2 --------------------------------------------------------------------------

def analogy_accuracy(method: str) -> list[dict]:
    """Top-1 and top-5 accuracy on the analogy set at each vocabulary size, as chart rows."""
    from engine.embeddings import glove as embeddings

    def build() -> cache.Built:
        questions, rows = embeddings.read_analogy_set(), []
        for size in limits.VOCAB_SIZE_CHOICES:
            scores = embeddings.score_analogies(embeddings.load_glove(), questions, method=method, vocab_size=size)
            rows += [{"vocabulary": f"{size:,}", "measure": "top-1", "accuracy": scores.accuracy(1)},
                     {"vocabulary": f"{size:,}", "measure": "top-5", "accuracy": scores.accuracy(5)}]
        return {}, {"rows": rows}

    if method not in embeddings.METHODS:
        raise ValueError(f"The analogy method must be one of {', '.join(embeddings.METHODS)}; not {method!r}.")
    folder = embeddings.data_folder()
    _, meta = cache.cached(f"analogies-{method}", build, params={"method": method, "sizes": limits.VOCAB_SIZE_CHOICES},
                           inputs=[folder / embeddings.WORDS_FILE, folder / embeddings.VECTORS_FILE,
                                   embeddings.ANALOGY_SET], code=_modules("embeddings.glove", "limits"))
    return meta["rows"]


def induction_scores(path: Path | str | None = None) -> np.ndarray:
    """The induction score per head, (layers, heads), on the fixed repeated random sequence: SmolLM2's, or
    those of the model in the GGUF file `path` (engine.pretrained.smollm2.load)."""
    from engine.interpret import heads
    from engine.pretrained import smollm2 as pretrained

    path = Path(path) if path is not None else pretrained.model_path()

    def build() -> cache.Built:
        return {"scores": np.asarray(heads.induction_probe(pretrained.load(path)), dtype=np.float64)}, {}

    arrays, _ = cache.cached("induction", build, inputs=[path], code=_modules("interpret.heads", "pretrained.smollm2"))
    return np.array(arrays["scores"])


def smollm2():
    """SmolLM2 with its weights in the cache (engine.pretrained.smollm2.load)."""
    from engine.pretrained import smollm2 as pretrained

    return pretrained.load()


def glove():
    """GloVe with its unit vectors in the cache (engine.embeddings.glove.load_glove)."""
    from engine.embeddings import glove as embeddings

    return embeddings.load_glove()


# --- the command -----------------------------------------------------------------------------------------

def tasks() -> dict[str, Callable[[], object]]:
    """name -> what prepares it (every entry the pages open on)."""
    from engine.embeddings.glove import METHODS

    found: dict[str, Callable[[], object]] = {"corpus": corpus.load_corpus, "glove": glove, "smollm2": smollm2}
    for level in tokenizers.LEVELS:
        found[f"tokens-{level}"] = lambda level=level: corpus_tokens(level)
        found[f"counts-{level}"] = lambda level=level: corpus_counts(level)
        found[f"held-out-{level}"] = lambda level=level: corpus_held_out(level)
    for method in METHODS:
        found[f"analogies-{method}"] = lambda method=method: analogy_accuracy(method)
    found["induction"] = induction_scores
    found["ladder"] = model_ladder
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.prepare", description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help=f"the cache folder (default: ${cache.ENVIRONMENT_VARIABLE} or "
                                         "~/.cache/transformer-playground)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="prepare only these entries")
    parser.add_argument("--list", action="store_true", help="list the entries in the cache and stop")
    options = parser.parse_args(argv)
    if options.cache:
        os.environ[cache.ENVIRONMENT_VARIABLE] = options.cache
    folder = cache.root()
    if folder is None:
        print(f"The cache is off or its folder cannot be written (${cache.ENVIRONMENT_VARIABLE}).", file=sys.stderr)
        return 2
    if not options.list:
        chosen = tasks()
        unknown = sorted(set(options.only or ()) - set(chosen))
        if unknown:
            print(f"No entry called {', '.join(unknown)}; the entries are {', '.join(chosen)}.", file=sys.stderr)
            return 2
        for name, task in chosen.items():
            if options.only and name not in options.only:
                continue
            begin = time.perf_counter()
            try:
                task()
            except ValueError as error:          # a data package missing: say so, prepare the rest
                print(f"{name:<22} skipped: {error}")
                continue
            print(f"{name:<22} {time.perf_counter() - begin:7.2f} s", flush=True)
    total = 0
    print(f"\n{folder}")
    for name, key, size in cache.entries(folder):
        total += size
        print(f"  {name:<22} {key}  {size / 2**20:8.1f} MiB")
    print(f"  {'total':<22} {'':24}  {total / 2**20:8.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
