"""What the attention pages open with and offer, the same in both front ends (views/ and gradio_tabs/).

The Context page: its example sentences (their words have vectors in engine.embeddings.hand_vectors), the
range of its window slider, and how many window rows its table and heatmap set beside attention.
"""
from __future__ import annotations

CONTEXT_SENTENCES = ("crane by the lake", "the crane by the lake", "the pitcher threw a fastball",
                     "she sat by the river bank", "the crane lifted the steel")
CONTEXT_MAX_K = 6            # the window half-width slider: k = 0 .. 6 (the engine computes up to limits.MAX_WINDOW)
CONTEXT_WINDOWS_SHOWN = 3    # window rows k = 0 .. 3 beside attention in the weights table and heatmap
