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
# # Embeddings
#
# The page "Embedding explorer", redone with the app's engine: 400,000 GloVe word vectors (50 numbers each).

# %%
# the engine, installed once: `pip install -e ".[model]"` in the repository (or its wheel)
from engine.embeddings import glove as embeddings

glove = embeddings.load_glove()
print(len(glove), "words of", glove.dim, "numbers")

# %% [markdown]
# ## Nearest words by cosine similarity

# %%
neighbours = embeddings.nearest(glove, "crane", k=5)
for neighbour, score in zip(neighbours.words, neighbours.cosines):
    print(f"{neighbour}: {score:.3f}")

# %% [markdown]
# ## France : Paris :: Italy : ?
# paris - france + italy, then the nearest word that is none of the three.

# %%
answer = embeddings.solve_analogy(glove, "france", "paris", "italy")
print("France : Paris :: Italy :", answer.words[0])
