"""SmolLM2's matrices in a cheaper number format, measured for sampling on a CPU (issue 30).

Writing one token reads every matrix of the model once (about 540 MB of float32 for SmolLM2-135M)
and multiplies it by a single row: the time goes into reading memory, not into arithmetic. A
format with fewer bytes per weight reads less:
    float32    4 bytes   the weights as dequantized from the file; every number a page shows
    bfloat16   2 bytes   the same exponent, 8 bits of mantissa: x W computed as bf16(x) bf16(W)
    int8       1 byte    torch's dynamic quantization of each Linear (torch.ao.quantization.quantize_dynamic,
                         weights per output channel, each input row quantized to 8 bits as it comes)
`formatted(model, "int8")` is the same model (tokenizer, embedding, norms shared, not copied) whose
matrices, the output layer included, are kept in that format; `Llama._generate(..., sampler=...)` draws
with it and still prints float32's probabilities. Measured here (`python -m bench.smollm2_formats`,
tests/engine/pretrained/test_weight_formats.py): bfloat16 keeps the logits within about 0.85 of float32 on the
pages' prompts but multiplies one row more slowly than float32 on this CPU; int8 takes about half
float32's time, but SmolLM2's activations have a few channels 20-30 times their typical size, so 8 bits
per input row lose the small ones (3-8 % error per product) and the logits end up 10-40 away from float32's:
its samples are gibberish. Neither meets FORMAT_LOGIT_TOLERANCE and a speed-up at once, so the pages
sample in float32 (SAMPLING_FORMAT).
"""
from __future__ import annotations

import dataclasses
import warnings

import torch

from engine.pretrained.llama import Llama, rms_norm

FORMATS = ("float32", "bfloat16", "int8")
SAMPLING_FORMAT = "float32"              # what the pages sample with: no cheaper format is both close and quicker
FORMAT_LOGIT_TOLERANCE = 0.5             # largest |logit - float32 logit| a sampling format may have on PAGE_PROMPTS
PAGE_PROMPTS = (                         # the prompts the pages give SmolLM2 by default
    "Once upon a time",                                               # Generate: the sampling panel
    "Mary had a little",                                              # Tokens, Inside the model
    "The Eiffel Tower is in the city of",                             # Inside the model
    "When Mary and John went to the store, John gave a drink to",     # Inside the model
)
MATRICES = ("W_q", "W_k", "W_v", "W_o", "W_gate", "W_up", "W_down")


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
        self.blocks = [dataclasses.replace(block, **{name: Matrix(getattr(block, name), number_format)
                                                     for name in MATRICES}) for block in model.blocks]
        self.output_matrix = Matrix(model.output.T, number_format)            # W_vocab^T, (d, V)

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
