"""A real pretrained transformer: SmolLM2-135M (or any Llama-architecture GGUF file), read and run here.

- gguf_file: the weights file: sizes, vocabulary, every matrix dequantized to float32.
- gguf_tokenizer: its tokenizer, built from the file's vocabulary and merges.
- llama: the Llama forward pass in readable torch (RMSNorm, rotary, grouped K/V, SwiGLU).
- smollm2: the models loaded once per process, and the questions the pages ask them.
"""
