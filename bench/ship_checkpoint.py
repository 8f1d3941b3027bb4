"""Recipe for the shipped small model: assets/shakespeare_char.{safetensors,json}.

    python bench/ship_checkpoint.py [steps] [seconds]   # default 4000 steps or 30 minutes on 1 thread

A character-level TransformerLM (nanoGPT's baby GPT shape, context 128) trained with
engine.train on the corpus's training split, scored on the whole validation split.
The Trainer's default precision is "auto": bfloat16 mixed precision on a CPU with AMX,
float32 elsewhere (the JSON records which). Seeded; on a crowded machine the time budget
may end the run before the step budget, and the cosine schedule follows whichever budget
runs out first. The JSON records the steps actually taken. The shipped file came from
`python bench/ship_checkpoint.py 6000 1800` (see its JSON).
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from engine.corpus import load_corpus  # noqa: E402
from engine.model import TransformerConfig, TransformerLanguageModel, TransformerLM  # noqa: E402
from engine.tokenizers import CharTokenizer  # noqa: E402
from engine.train import TrainConfig, mixed_precision, save_checkpoint, train  # noqa: E402

OUT = ROOT / "assets" / "shakespeare_char"


def main(steps: int = 4000, seconds: float = 1800.0) -> None:
    corpus = load_corpus()
    tokenizer = CharTokenizer.from_text(corpus.text)
    config = TransformerConfig(vocab_size=tokenizer.vocab_size, context_length=128, d_model=128, n_heads=4,
                               d_ff=512, n_layers=4, activation="gelu", layer_norm="pre", positional="learned",
                               final_norm=True, bias=False, tied_head=True)
    schedule = TrainConfig(batch_size=16, max_steps=steps, max_seconds=seconds, learning_rate=2e-3, min_learning_rate=1e-4,
                           warmup_steps=200, eval_every=250, eval_batches=16, seed=1337, threads=1)
    train_ids = tokenizer.encode(corpus.train)
    held_out_ids = tokenizer.encode(corpus.validation)
    torch.manual_seed(schedule.seed)
    model = TransformerLM(config)
    started = time.time()

    def report(progress):
        if progress.held_out_loss is not None:
            print(f"step {progress.step:5d}  {progress.seconds:7.1f} s  train {progress.train_loss:.3f}  "
                  f"held-out {progress.held_out_loss:.3f} nats/char  {progress.tokens_per_second:,.0f} tokens/s",
                  flush=True)

    result = train(model, train_ids, held_out_ids, schedule, on_progress=report)
    lm = TransformerLanguageModel(model, tokenizer, name="shipped transformer")
    nats = lm.cross_entropy(held_out_ids)
    print(f"whole validation split: {nats:.4f} nats/char = {nats / math.log(2):.4f} bits/char "
          f"({len(held_out_ids):,} characters), {time.time() - started:.0f} s in all", flush=True)
    save_checkpoint(model, OUT, {
        "name": "shipped transformer",
        "tokenizer": "characters",
        "vocabulary": "".join(tokenizer.vocabulary),
        "held_out_nats_per_char": round(nats, 4),
        "held_out_characters": len(held_out_ids),
        "train": schedule.to_dict(),
        "arithmetic": "bfloat16 mixed precision" if mixed_precision(schedule.precision) else "float32",
        "steps": result.steps[-1],
        "train_seconds": round(result.seconds, 1),
        "recipe": "python bench/ship_checkpoint.py",
    })
    print(f"saved {OUT}.safetensors and {OUT}.json")


if __name__ == "__main__":
    main(*(float(a) if i else int(a) for i, a in enumerate(sys.argv[1:3])))
