"""Language modelling: cutting text into tokens and predicting the next one from counts.

- tokenizers: characters, words, byte-level BPE (trained live or GPT-2's), behind one interface.
- ngram: n-gram counts, smoothing (none, add-k, Kneser-Ney), sampling, held-out cross-entropy.
- corpus: the 38 Shakespeare plays every model in the app learns from, cleaned and split.
"""
