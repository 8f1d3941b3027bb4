"""Small random Llama-architecture GGUF files, written with gguf's own GGUFWriter (engine and page tests).

Each holds what a real file holds: the `llama.*` sizes, a tokenizer in the metadata (a tiny byte-level
BPE learned on a few sentences, 'gpt2' as SmolLM2's, or a tiny sentencepiece BPE, 'llama'), and every
tensor under llama.cpp's names, in float32, float16 or a quantized type. The weights are random.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TEXT = ("The animal didn't cross the street because it was too tired. Mary had a little lamb, its fleece "
        "was white as snow. The cat sat on the mat, and the dog sat on the log. 12345 then 678.")


@dataclass(frozen=True)
class Shape:
    n_layer: int = 2
    d_model: int = 64
    n_head: int = 4
    n_kv_head: int = 2
    d_ff: int = 96
    vocab_size: int = 300
    rope_base: float = 10_000.0
    norm_eps: float = 1e-5


def _learned(tokenizer) -> tuple[list[str], list[str]]:
    """(tokens in id order, merges as 'left right') of a trained `tokenizers` BPE."""
    model = json.loads(tokenizer.to_str())["model"]
    return sorted(model["vocab"], key=model["vocab"].get), [" ".join(pair) for pair in model["merges"]]


def byte_level_vocabulary(size: int) -> dict:
    """<|endoftext|>, GPT-2's 256 byte characters, then BPE merges learned on TEXT until `size` tokens."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.train_from_iterator([TEXT], trainers.BpeTrainer(
        vocab_size=size, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False))
    tokens, merges = _learned(tokenizer)
    return {"model": "gpt2", "tokens": tokens, "merges": merges, "token_type": [3] + [1] * (len(tokens) - 1)}


def sentencepiece_vocabulary(size: int) -> dict:
    """<unk>, <s>, </s>, the 256 byte pieces <0xNN>, then sentencepiece BPE pieces learned on TEXT (about
    `size` tokens in all), each scored by its rank (no merges: a reader derives them from the scores)."""
    from tokenizers.implementations import SentencePieceBPETokenizer

    tokenizer = SentencePieceBPETokenizer(add_prefix_space=True)
    tokenizer.train_from_iterator([TEXT], vocab_size=size - 256, special_tokens=["<unk>", "<s>", "</s>"],
                                  show_progress=False)
    learned, _ = _learned(tokenizer)
    pieces = learned[3:]
    tokens = learned[:3] + [f"<0x{b:02X}>" for b in range(256)] + pieces
    return {"model": "llama", "tokens": tokens, "scores": [0.0] * (3 + 256) + [-float(i) for i in range(len(pieces))],
            "token_type": [2, 3, 3] + [6] * 256 + [1] * len(pieces)}


def write_llama(path: Path, shape: Shape = Shape(), *, tied: bool = True, kind: str = "F32", seed: int = 0,
                tokenizer: str = "gpt2", architecture: str = "llama", name: str = "tiny random llama",
                pre: str = "gpt2", extra: dict | None = None) -> Path:
    """A random Llama model of `shape` as a GGUF file; matrices stored as `kind` (F32, F16, Q8_0, Q4_0, Q4_1),
    norms in F32 as llama.cpp stores them. `extra` adds metadata (key: value) or, for a numpy value, a tensor."""
    import gguf

    rng = np.random.default_rng(seed)
    d, d_kv = shape.d_model, shape.n_kv_head * shape.d_model // shape.n_head
    vocabulary = (byte_level_vocabulary if tokenizer == "gpt2" else sentencepiece_vocabulary)(shape.vocab_size)
    vocab = len(vocabulary["tokens"])
    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_name(name)
    if architecture == "llama":
        writer.add_block_count(shape.n_layer)
        writer.add_context_length(256)
        writer.add_embedding_length(d)
        writer.add_feed_forward_length(shape.d_ff)
        writer.add_head_count(shape.n_head)
        writer.add_head_count_kv(shape.n_kv_head)
        writer.add_rope_freq_base(shape.rope_base)
        writer.add_rope_dimension_count(d // shape.n_head)
        writer.add_layer_norm_rms_eps(shape.norm_eps)
        writer.add_vocab_size(vocab)
    writer.add_tokenizer_model(vocabulary["model"])
    if vocabulary["model"] == "gpt2":
        writer.add_tokenizer_pre(pre)
        writer.add_token_merges(vocabulary["merges"])
        writer.add_add_bos_token(False)
    else:
        writer.add_token_scores(vocabulary["scores"])
        writer.add_bos_token_id(1)
        writer.add_eos_token_id(2)
    writer.add_token_list(vocabulary["tokens"])
    writer.add_token_types(vocabulary["token_type"])
    for key, value in (extra or {}).items():
        if not isinstance(value, np.ndarray):
            writer.add_key_value(key, value, gguf.GGUFValueType.STRING if isinstance(value, str)
                                 else gguf.GGUFValueType.UINT32)

    def matrix(name: str, rows: int, columns: int, scale: float = 1.0) -> None:
        values = (rng.standard_normal((rows, columns)) * scale / np.sqrt(columns)).astype(np.float32)
        if kind == "F32":
            writer.add_tensor(name, values)
        elif kind == "F16":
            writer.add_tensor(name, values.astype(np.float16))
        else:
            quantized = gguf.GGMLQuantizationType[kind]
            writer.add_tensor(name, gguf.quants.quantize(values, quantized), raw_dtype=quantized)

    def norm(name: str) -> None:
        writer.add_tensor(name, (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32))

    matrix("token_embd.weight", vocab, d, scale=np.sqrt(d))
    for i in range(shape.n_layer):
        norm(f"blk.{i}.attn_norm.weight")
        matrix(f"blk.{i}.attn_q.weight", d, d, scale=3.0)
        matrix(f"blk.{i}.attn_k.weight", d_kv, d, scale=3.0)
        matrix(f"blk.{i}.attn_v.weight", d_kv, d)
        matrix(f"blk.{i}.attn_output.weight", d, d)
        norm(f"blk.{i}.ffn_norm.weight")
        matrix(f"blk.{i}.ffn_gate.weight", shape.d_ff, d)
        matrix(f"blk.{i}.ffn_up.weight", shape.d_ff, d)
        matrix(f"blk.{i}.ffn_down.weight", d, shape.d_ff)
    norm("output_norm.weight")
    if not tied:
        matrix("output.weight", vocab, d)
    for key, value in (extra or {}).items():
        if isinstance(value, np.ndarray):
            writer.add_tensor(key, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
