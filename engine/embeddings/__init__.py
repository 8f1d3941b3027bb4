"""Embeddings: words as vectors.

- glove: the 400,000-word, 50-d GloVe vectors: neighbours, analogies, 2-D maps.
- hand_vectors: tiny hand-picked vectors for the sentences typed on the Context page.
- tiny_vocabulary: a hand-made vocabulary of 8 named features per word (multi-head and Position pages).
"""
