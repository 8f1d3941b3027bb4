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
# # The transformer
#
# The pages "Position", "Block builder" and "Generate", redone with the app's engine: attention alone
# ignores word order, until a positional encoding is added.

# %%
# the engine, installed once: `pip install -e ".[model]"` in the repository (or its wheel)
import numpy as np

from engine.transformer.positional import permutation_check

words = "the owl saw the cat".split()
x = np.random.default_rng(0).normal(size=(len(words), 8))
swap = [0, 4, 2, 3, 1]   # "the cat saw the owl"

# %% [markdown]
# ## Shuffle the words: without positions, the outputs are shuffled the same way, unchanged

# %%
for encoding in ("none", "sinusoidal"):
    check = permutation_check(x, swap, encoding)
    print(f"{encoding}: largest change {check.max_difference:.3g}")
