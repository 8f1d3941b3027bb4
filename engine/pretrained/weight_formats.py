"""SmolLM2's matrices in a cheaper number format, measured for sampling on a CPU (issue 30).

Writing one token reads every matrix of the model once (about 540 MB of float32 for SmolLM2-135M)
and multiplies it by a single row: the time goes into reading memory, not into arithmetic. A
format with fewer bytes per weight reads less:
    float32    4 bytes   the weights as dequantized from the file; every number a page shows
    bfloat16   2 bytes   the same exponent, 8 bits of mantissa: x W computed as bf16(x) bf16(W)
    int8       1 byte    torch's dynamic quantization of each Linear (torch.ao.quantization.quantize_dynamic,
                         weights per output channel, each input row quantized to 8 bits as it comes)
    int4       0.75 byte the file's own numbers, never dequantized: SmolLM2's GGUF file stores each matrix as
                         Q4_1 blocks (32 weights, w = d q + m, q 4 bits) and the output layer as Q8_0 (w = d q,
                         q 8 bits); torch's 4-bit and 8-bit kernels multiply float32 rows by them directly
`formatted(model, "int4")` is the same model (tokenizer, embedding, norms shared, not copied) whose
matrices, the output layer included, are kept in that format; `Llama._generate(..., sampler=...)` draws
with it and still prints float32's probabilities. Measured here (`python -m bench.smollm2_formats`,
tests/engine/pretrained/test_weight_formats.py): bfloat16 keeps the logits within about 0.85 of float32 on the
pages' prompts but is no quicker on one thread; int8 is quicker, but SmolLM2's activations have a few channels
20-30 times their typical size, so 8 bits per input row lose the small ones (3-8 % error per product) and the
logits end up 10-40 away from float32's: its samples are gibberish (8-bit weights alone, per output channel, with
float32 rows: still 1.5 away). int4 is the float32 model itself (the float32 weights are these numbers
dequantized, so only the order of the sums differs: logits within 0.001, the same tokens drawn), but torch
2.13's 4-bit kernel takes a slow path for float32 rows (0.7 GFLOP/s measured, against 37-45 for a float32
product at the same load): 20 tokens take about 4 times float32's time. No format is both within
FORMAT_LOGIT_TOLERANCE and quicker, so the pages sample in float32 (SAMPLING_FORMAT); the loader
(ui.loaders.smollm2_sampler) and `sampler=` are ready for one that is.
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import torch

from engine.pretrained.llama import Llama, rms_norm

FORMATS = ("float32", "bfloat16", "int8", "int4")
SAMPLING_FORMAT = "float32"              # what the pages sample with: no cheaper format is both close and quicker
FORMAT_LOGIT_TOLERANCE = 0.01            # largest |logit - float32 logit| a sampling format may have on PAGE_PROMPTS:
                                         # every probability it draws from then within e^(2 x 0.01) - 1, about 2 %
PAGE_PROMPTS = (                         # the prompts the pages give SmolLM2 by default
    "Once upon a time",                                               # Generate: the sampling panel
    "Mary had a little",                                              # Tokens, Inside the model
    "The Eiffel Tower is in the city of",                             # Inside the model
    "When Mary and John went to the store, John gave a drink to",     # Inside the model
)
MATRICES = ("W_q", "W_k", "W_v", "W_o", "W_gate", "W_up", "W_down")
FILE_NAMES = {"W_q": "attn_q", "W_k": "attn_k", "W_v": "attn_v", "W_o": "attn_output", "W_gate": "ffn_gate",
              "W_up": "ffn_up", "W_down": "ffn_down"}
GROUP = 32                               # numbers per block of a Q4_1 or Q8_0 file, sharing one scale


def _halves(stored: np.ndarray, at: int) -> torch.Tensor:
    """The float16 at byte `at` of every block (rows, blocks, bytes) as float32 (rows, blocks)."""
    return torch.from_numpy(np.ascontiguousarray(stored[..., at:at + 2]).view(np.float16)[..., 0].astype(np.float32))


class FileMatrix:
    """W (in, out) in the file's own 4-bit numbers: one Q4_1 block per 32 inputs of an output, w = d q + m with
    q in 0..15 and d, m float16. torch's 4-bit kernel computes x W as float32 with w = (q - 8) d + (m + 8 d): the
    file's numbers exactly (only the order of the sums differs from float32's product)."""

    def __init__(self, stored: np.ndarray):
        rows = stored.shape[0]                                          # outputs
        blocks = stored.reshape(rows, -1, 20)                           # d, m (float16 each), 16 bytes of 32 q
        d, m = _halves(blocks, 0), _halves(blocks, 2)                   # (out, in / 32)
        packed = blocks[..., 4:]
        q = np.concatenate((packed & 0x0F, packed >> 4), axis=-1)       # the low halves are q_0..15, the high q_16..31
        self.shape = (q.shape[1] * GROUP, rows)
        self.weight = torch.ops.aten._convert_weight_to_int4pack_for_cpu(
            torch.from_numpy(q.reshape(rows, -1).astype(np.int32)), 2)
        self.scales = torch.stack((d, m + 8 * d), dim=-1).transpose(0, 1).contiguous()   # (in / 32, out, 2)

    def __rmatmul__(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.ops.aten._weight_int4pack_mm_for_cpu(rows, self.weight, GROUP, self.scales)
        return out.reshape(*x.shape[:-1], self.shape[1])


class FileOutputMatrix:
    """W_vocab^T (d, V) in the file's own 8-bit numbers: one Q8_0 block per 32 inputs, w = d q, q in -127..127.
    Each block of inputs is one product with torch's 8-bit kernel (an 8-bit matrix, a float32 scale per output);
    their sum is x W_vocab^T with the file's numbers exactly."""

    def __init__(self, stored: np.ndarray):
        rows = stored.shape[0]
        blocks = stored.reshape(rows, -1, 34)                           # d (float16), 32 q (int8)
        self.shape = (blocks.shape[1] * GROUP, rows)
        self.scales = _halves(blocks, 0).T.contiguous()                 # (in / 32, V)
        q = np.ascontiguousarray(blocks[..., 2:]).view(np.int8)         # (V, in / 32, 32)
        self.weight = torch.from_numpy(np.ascontiguousarray(q.transpose(1, 0, 2)))   # (in / 32, V, 32)

    def __rmatmul__(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1])
        out = None
        for block, (weight, scales) in enumerate(zip(self.weight, self.scales)):
            part = torch.ops.aten._weight_int8pack_mm(rows[:, block * GROUP:(block + 1) * GROUP].contiguous(), weight,
                                                      scales)
            out = part if out is None else out.add_(part)
        return out.reshape(*x.shape[:-1], self.shape[1])


class Matrix:
    """W (in, out) in another format; `x @ matrix` is x W in float32, as with the float32 tensor."""

    def __init__(self, W: torch.Tensor, number_format: str):
        self.shape = tuple(W.shape)
        if number_format == "bfloat16":
            self.weight = W.to(torch.bfloat16)
            self.apply = lambda x: (x.to(torch.bfloat16) @ self.weight).to(torch.float32)
        elif number_format == "int8":
            from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

            linear = torch.nn.Linear(W.shape[0], W.shape[1], bias=False)
            with torch.no_grad():
                linear.weight.copy_(W.T)                                   # Linear keeps (out, in)
            with warnings.catch_warnings():        # torch 2.13 announces the quantized dtypes' deprecation
                warnings.simplefilter("ignore", UserWarning)
                self.apply = quantize_dynamic(torch.nn.Sequential(linear),
                                              {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)[0]
        else:
            raise ValueError(f"A matrix format is one of {', '.join(FORMATS[1:])}, not {number_format!r}.")

    def __rmatmul__(self, x: torch.Tensor) -> torch.Tensor:
        return self.apply(x)


class FormattedLlama(Llama):
    """A Llama whose matrices (and output layer) are `Matrix` objects in one format; everything else is shared."""

    def __init__(self, model: Llama, number_format: str):   # not super().__init__: that reads a file's weights
        self.__dict__.update(model.__dict__)
        self.number_format = number_format
        if number_format == "int4":
            self._file_numbers(model)
            return
        self.blocks = [dataclasses.replace(block, **{name: Matrix(getattr(block, name), number_format)
                                                     for name in MATRICES}) for block in model.blocks]
        self.output_matrix = Matrix(model.output.T, number_format)            # W_vocab^T, (d, V)

    def _file_numbers(self, model: Llama) -> None:
        """int4: the matrices as the GGUF file stores them (Q4_1 blocks), the output layer too (Q8_0)."""
        from engine.pretrained.gguf_file import stored_blocks

        stored = stored_blocks(model.path) if model.path is not None else {}
        output = "token_embd.weight" if model.tied else "output.weight"
        kinds = {name: kind for name, (kind, _) in stored.items()}
        wanted = [f"blk.{i}.{FILE_NAMES[m]}.weight" for i in range(len(model.blocks)) for m in MATRICES]
        if not stored or any(kinds.get(name) != "Q4_1" for name in wanted) or kinds.get(output) != "Q8_0":
            raise ValueError(f"The int4 format runs the file's own numbers: it needs a GGUF file with Q4_1 matrices "
                             f"and a Q8_0 output layer, as SmolLM2's; {model.name} is stored otherwise.")
        self.blocks = [dataclasses.replace(block, **{name: FileMatrix(stored[f"blk.{i}.{FILE_NAMES[name]}.weight"][1])
                                                     for name in MATRICES}) for i, block in enumerate(model.blocks)]
        self.output_matrix = FileOutputMatrix(stored[output][1])

    def logits(self, x):
        """z = RMSNorm(x) W_vocab^T with W_vocab in this format."""
        with torch.inference_mode():
            return rms_norm(x, self.final_norm, self.config.norm_eps) @ self.output_matrix


def formatted(model: Llama, number_format: str) -> Llama:
    """`model` with its matrices in `number_format` (float32: the model itself)."""
    if number_format not in FORMATS:
        raise ValueError(f"The weights' format is one of {', '.join(FORMATS)}, not {number_format!r}.")
    if number_format == "float32":
        return model
    return FormattedLlama(model, number_format)


def largest_logit_error(model: Llama, other: Llama, prompts=PAGE_PROMPTS) -> float:
    """max |logit_other - logit_model| over every position and token of `prompts` (each read as a document)."""
    largest = 0.0
    for prompt in prompts:
        ids = model.encode_text(prompt)[0]
        reference, changed = (m.logits(m._run(ids, keep_weights=False, keep_hidden=False)[0]) for m in (model, other))
        largest = max(largest, float((changed - reference).abs().max()))
    return largest
