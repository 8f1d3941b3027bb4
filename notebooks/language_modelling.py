# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Language modelling
#
# The pages "Tokens & next-token prediction" and "N-gram sampler", redone with the app's engine. Run it
# from the repository (the folder above this one), with its data prepared (`python -m engine.machinery.prepare`).

# %%
import sys
from pathlib import Path

# the repository's engine: the folder above this one that holds engine/
sys.path.insert(0, str(next(p for p in [Path.cwd(), *Path.cwd().parents] if (p / "engine").is_dir())))

from engine.machinery import prepare  # noqa: E402
from engine.pretrained import smollm2 as pretrained  # noqa: E402
from engine.language.ngram import NGramModel, find_loop  # noqa: E402

# %% [markdown]
# ## P(next token | "Mary had a little") from SmolLM2
# The logits at the last token, through a softmax: the top five candidates.

# %%
smollm2 = pretrained.load()
dist = pretrained.next_token_distribution("Mary had a little", 5, model=smollm2)
print("context tokens:", dist.context_tokens)
for token, p in zip(dist.tokens, dist.probabilities):
    print(f"{token!r}: {p:.3f}")

# %% [markdown]
# ## A 3-gram model of the 38 plays, and the loop it falls into
# Word tokens, Kneser-Ney smoothing; a low temperature (0.2) keeps to the likeliest words, and a
# context of two words cannot notice it is repeating itself.

# %%
tokenizer, train_ids, validation_ids = prepare.corpus_tokens("words")
counts = prepare.corpus_counts("words")
model = NGramModel.from_counts(counts, 3, "kneser-ney", 1.0, tokenizer)
ids = model.sample(100, seed=0, temperature=0.2, prompt=[])
print(tokenizer.decode(ids))
loop = find_loop(ids, min_length=8)
print(f"a loop of {loop.period} tokens repeated {loop.repeats:.1f} times:",
      tokenizer.decode(ids[loop.start:loop.start + loop.period]))
