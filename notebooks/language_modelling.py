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
# The pages "Tokens & next-token prediction" and "N-gram sampler", redone with the app's engine. It needs
# the engine installed (`pip install -e ".[model]"`) and its data prepared once (`playground-prepare`).

# %%
# the engine, installed once: `pip install -e ".[model]"` in the repository (or its wheel)
from engine.machinery import prepare
from engine.pretrained import smollm2 as pretrained
from engine.language.ngram import NGramModel, find_loop, sample_context

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
# Word tokens, Kneser-Ney smoothing, always the likeliest next word (temperature 0), starting after a line
# break. A context of two words comes round again within a few lines, and the model cannot see that it
# has written them before: it goes the same way round. With five words of context (n = 6) it does not.

# %%
tokenizer, train_ids, validation_ids = prepare.corpus_tokens("words")
counts = prepare.corpus_counts("words")
start = sample_context(tokenizer, "")          # no prompt: after a line break
model = NGramModel.from_counts(counts, 3, "kneser-ney", 1.0, tokenizer)
ids = model.sample(100, seed=0, temperature=0.0, prompt=start)
print(tokenizer.decode(ids))
loop = find_loop(ids, min_length=8)
print(f"a loop of {loop.period} tokens repeated {loop.repeats:.1f} times:",
      repr(tokenizer.decode(ids[loop.start:loop.start + loop.period])))
longer = NGramModel.from_counts(counts, 6, "kneser-ney", 1.0, tokenizer)
print("n = 6:", find_loop(longer.sample(100, seed=0, temperature=0.0, prompt=start), min_length=8))
