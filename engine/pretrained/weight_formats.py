"""SmolLM2's matrices in a cheaper number format, measured for sampling on a CPU (issue 30).

Writing one token reads every matrix of the model once (about 540 MB of float32 for SmolLM2-135M)
and multiplies it by a single row: the time goes into reading memory, not into arithmetic. A
format with fewer bytes per weight reads less:
    float32    4 bytes   the weights as dequantized from the file; every number a page shows
    float16    2 bytes   W rounded to half precision (11 significant bits), x and the sums stay float32 (fbgemm's
                         product, torch.ops.quantized.linear_dynamic_fp16: nothing about x is rounded)
    bfloat16   2 bytes   the same exponent, 8 bits of mantissa: x W computed as bf16(x) bf16(W)
    int8       1 byte    torch's dynamic quantization of each Linear (torch.ao.quantization.quantize_dynamic,
                         weights per output channel, each input row quantized to 8 bits as it comes)
    int4       0.75 byte the file's own numbers, never dequantized: SmolLM2's GGUF file stores each matrix as
                         Q4_1 blocks (32 weights, w = d q + m, q 4 bits) and the output layer as Q8_0 (w = d q,
                         q 8 bits); torch's 4-bit and 8-bit kernels multiply float32 rows by them directly
`formatted(model, "float16")` is the same model (tokenizer, embedding, norms shared, not copied) whose
matrices, the output layer included, are kept in that format; `Llama._generate(..., sampler=...)` draws
with it and still prints float32's probabilities (one float32 pass over the sample).

A format may draw the pages' samples when it is close where sampling looks (`closeness`): at every position of
the pages' prompts its next-token distribution at T = 1 lies within limits.SAMPLING_FORMAT_MAX_TVD of float32's in
total variation distance (half the summed |P - P_float32|: the most probability any set of tokens gains or loses) and
its most likely token is float32's. Measured here (`python -m bench.smollm2_formats`,
tests/engine/pretrained/test_weight_formats.py): float16 moves at most 0.3 % of the probability (logits within
0.07) and draws the Generate page's default sample token for token; bfloat16 moves 3 % and changes a most likely
token; int8 is quicker, but SmolLM2's activations have a few channels 20-30 times their typical size, so 8 bits
per input row lose the small ones and its samples are gibberish (8-bit weights alone, per output channel, with
float32 or bfloat16 rows: still 7-12 % of the probability moved, a top token changed). int4 is the float32
model itself (only the order of the sums differs: logits within 0.001), but torch 2.13's 4-bit kernel takes a
slow path for float32 rows (0.7 GFLOP/s measured, against 37-45 for a float32 product at the same load): 20
tokens take about 4 times float32's time. Its path for bfloat16 rows is quick (the blocks' products 3.6x quicker
than float32's, one thread), but rows and products rounded to 8 bits move 3.4 % of the probability, as bfloat16
does, and 20 tokens still took 1.20-1.35 s against float32's 1.53-1.65 s in the same run (the float32 output layer
and the float32 pass over the sample stay). float16 is close but no quicker where it counts: fbgemm's product
streams half the bytes yet runs at about float32's speed for one row (0.8-1.3x per matrix, 0.78x per token, load
3-7), and a sample drawn with it still needs the float32 pass over the sample for the probabilities a page prints
(0.22 s for 20 tokens): 20 tokens took 1.07x float32's time in one run at load 1.3 (`python -m
bench.smollm2_formats`), 1.35x in one at load 3.7. No format is both close and quicker, so the pages sample in float32
(SAMPLING_FORMAT); the loader (ui.loaders.smollm2_sampler) and `sampler=` are ready for one that is.
"""
from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import numpy as np
import torch

from engine import limits
from engine.i18n import _
from engine.pretrained.llama import Llama, rms_norm

FORMATS = ("float32", "float16", "bfloat16", "int8", "int4")
SAMPLING_FORMAT = "float32"              # what the pages sample with: no cheaper format is both close and quicker
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
        if number_format == "float16":
            # fbgemm's half-precision product: W kept as float16, each row of x stays float32, the sums float32
            self.weight = torch.ops.quantized.linear_prepack_fp16(W.T.contiguous(), None)
            self.apply = lambda x: torch.ops.quantized.linear_dynamic_fp16(x, self.weight)
        elif number_format == "bfloat16":
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
            raise ValueError(_("A matrix format is one of {formats}, not {value}.", formats=", ".join(FORMATS[1:]),
                               value=repr(number_format)))

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
            raise ValueError(_("The int4 format runs the file's own numbers: it needs a GGUF file with Q4_1 matrices "
                               "and a Q8_0 output layer, as SmolLM2's; {model} is stored otherwise.", model=model.name))
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
        raise ValueError(_("The weights' format is one of {formats}, not {value}.", formats=", ".join(FORMATS),
                           value=repr(number_format)))
    if number_format == "float32":
        return model
    return FormattedLlama(model, number_format)


@dataclass(frozen=True)
class Closeness:
    """How far a format's next-token predictions are from float32's, over every position of some prompts."""
    largest_distance: float          # max total variation distance, 1/2 sum_w |P(w) - P_float32(w)|, at T = 1
    same_top_tokens: bool            # the most likely token is float32's at every position
    largest_logit_error: float       # max |logit - float32 logit| over every token and position

    @property
    def may_sample(self) -> bool:
        """Whether the pages may draw their samples with this format (limits.SAMPLING_FORMAT_MAX_TVD)."""
        return self.same_top_tokens and self.largest_distance <= limits.SAMPLING_FORMAT_MAX_TVD


def closeness(model: Llama, other: Llama, prompts=PAGE_PROMPTS) -> Closeness:
    """`other`'s next-token distributions against `model`'s at every position of `prompts` (each read as a
    document)."""
    distance, same, logit_error = 0.0, True, 0.0
    for prompt in prompts:
        ids = model.encode_text(prompt)[0]
        reference, changed = (m.logits(m._run(ids, keep_weights=False, keep_hidden=False)[0]) for m in (model, other))
        P, Q = (torch.softmax(z.double(), dim=-1) for z in (reference, changed))
        distance = max(distance, float(0.5 * (P - Q).abs().sum(dim=-1).max()))
        same = same and bool((reference.argmax(dim=-1) == changed.argmax(dim=-1)).all())
        logit_error = max(logit_error, float((changed - reference).abs().max()))
    return Closeness(largest_distance=distance, same_top_tokens=same, largest_logit_error=logit_error)
