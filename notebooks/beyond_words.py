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
# # Beyond words
#
# The page "Beyond words", redone with the app's engine: a picture cut into 16 x 16 patches, each patch a
# token, and the same attention on them.

# %%
# the engine, installed once: `pip install -e ".[model]"` in the repository (or its wheel)
from engine.beyond import modalities as patches

picture = patches.resize_square(patches.bundled_picture("astronaut"), 224)
result = patches.image_attention(picture, 16, fit="crop", d=64, seed=0)
print("tokens:", result.attention.weights.shape[0], "patches of", 16 * 16 * 3, "numbers")
print("attention weights:", result.attention.weights.shape)
print("rows sum to one:", bool(abs(result.attention.weights.sum(axis=1) - 1).max() < 1e-9))
for j, weight in result.strongest_others(0, k=3):
    print(f"patch 0 attends to patch {j}: {weight:.3f}")
