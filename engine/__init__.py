"""The Transformer Playground's engine: the chapter "Attention and transformers" in numpy and torch.

Pure Python, numpy and torch; never Streamlit or Gradio. Both front ends (the Streamlit pages in views/,
the Gradio tabs) and the notebooks call it. Grouped by the chapter's parts, in its order:

- language: tokens and n-gram language models, and the corpus they learn from.
- embeddings: word vectors (GloVe) and the small hand-made vectors the attention pages type sentences with.
- attention: attention by hand (scores, softmax, context, Q/K/V, multi-head), what the pages say about a
  row of weights, learning W_Q and W_K, matrices typed as text, the calculator's code.
- transformer: the block and the stack in torch, its sizes, positions, training, generation, the ladder.
- pretrained: SmolLM2 (and any Llama-architecture GGUF file) read and run in readable torch.
- interpret: what heads do: their patterns, and the causal tools of the Inside page with their readings.
- beyond: images, audio and proteins as tokens.
- charts: results as Vega-Lite specs, pictures and diagrams.
- classroom: class mode's store, questions and lessons.
- machinery: the prepared cache, the command that fills it, slots shared by a machine's processes.

The top level holds only what every part shares: `limits` (every input limit), `lm` (the one
language-model interface), `markup` (typed text shown back as typed, inside Markdown, LaTeX or HTML)
and `numbers` (numbers as printed, and worked from printed ones).
"""
