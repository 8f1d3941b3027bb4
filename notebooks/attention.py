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
# # Attention
#
# The pages "Context: window vs attention", "Attention calculator" and "Multi-head attention", redone with
# the app's engine. It needs the engine installed (`pip install -e ".[model]"`).

# %%
# the engine, installed once: `pip install -e ".[model]"` in the repository (or its wheel)
import numpy as np

from engine.attention.mechanism import (
    CHAPTER_TOKENS, CHAPTER_X, compare_head_costs, identity_projections, multi_head_attention, self_attention,
    window_weights
)

np.set_printoptions(precision=3, suppress=True)

# %% [markdown]
# ## The worked example: "crane by the lake"
# Scores Q K^T / sqrt(d_k), a softmax on each row, then the weighted sum of the values. With identity
# projections Q = K = V = X. The row of "crane" is the one the calculator follows step by step.

# %%
result = self_attention(CHAPTER_X)
crane = CHAPTER_TOKENS.index("crane")
print("scores of crane:", result.scaled[crane])
print("weights of crane:", result.weights[crane])
print("context of crane:", result.context[crane])
print("every row sums to one:", np.allclose(result.weights.sum(axis=1), 1))

# %% [markdown]
# ## A fixed window, for comparison
# A window of 1 token either side gives "crane" no weight on "lake", whatever the words mean.

# %%
print(window_weights(len(CHAPTER_TOKENS), 1)[crane])

# %% [markdown]
# ## Multi-head attention: the shapes and what it costs
# h heads of width d/h cost the same parameters as one head of width d.

# %%
words = "the owl saw the cat by the lake".split()
rng = np.random.default_rng(0)
d, h = 4, 2
x = rng.normal(size=(len(words), d))
projections = identity_projections(d, gain=2.0)
heads = multi_head_attention(x, projections["W_q"], projections["W_k"], projections["W_v"], projections["W_o"], h)
print("output shape:", heads.output.shape)

for name, cost in compare_head_costs(1024, 768, 12).items():
    print(f"{name}: {cost.params:,} parameters, {cost.flops:,} FLOPs")
