"""The transformer: blocks stacked, trained, and read off at the last position.

- config: a transformer's sizes and switches, presets, parameter counts (no torch).
- model: the decoder-only transformer in torch (positions, attention with its cache, FFN, block, stack).
- language_model: a trained model behind the app's language-model interface (engine.lm).
- training: next-token training and checkpoints.
- training_jobs: trainings started from a page, each in a worker thread behind the machine-wide gate.
- positional: permutation checks, sinusoidal and rotary encodings.
- generation: one token at a time from any language model; the ladder's rungs.
- ladder: the sentences under the ladder, computed from its bars.
- shipped_model: the small character model we ship, and every one of its heads on a text.
- code: "show the code" for the Position page.
"""
