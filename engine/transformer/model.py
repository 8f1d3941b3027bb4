"""A decoder-only transformer language model, written to be read beside the chapter.

The chapter's block, one sublayer at a time (post-norm, as the chapter writes it):
    z = LayerNorm(x + MultiHead(x))
    y = LayerNorm(z + FFN(z)),           FFN(z) = max(0, z W_1 + b_1) W_2 + b_2
and the stack: tokens -> embeddings (+ positions) -> N blocks -> linear -> softmax over
the vocabulary. Every size and switch lives in `engine.transformer.config.TransformerConfig`
(with the parameter counts and the data-flow stages, which need no torch); the model as one of
the app's language models is `engine.transformer.language_model.TransformerLanguageModel`.

Classes appear in the order they are built from (as in nanoGPT's model.py): attention,
feed-forward, block, the whole model. Shapes sit beside the lines that change them:
B batch, T tokens, d model width, h heads, d_k = d / h, V vocabulary.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from engine.i18n import _
from engine.numbers import grouped
from engine.transformer.positional import sinusoid_frequencies
from engine.transformer.config import ROTARY_BASE, TransformerConfig, check_buildable


# --- positions ------------------------------------------------------------------------------

def sinusoidal_encoding(T: int, d: int) -> torch.Tensor:
    """PE(pos, 2i) = sin(pos omega_i), PE(pos, 2i+1) = cos(pos omega_i), omega_i = 10000^(-2i/d); (T, d).

    The frequencies are engine.transformer.positional's, so the Position page and the model agree.
    """
    angles = np.arange(T)[:, None] * sinusoid_frequencies(d)[None, :]        # (T, ceil(d/2))
    encoding = np.empty((T, d))
    encoding[:, 0::2] = np.sin(angles)
    encoding[:, 1::2] = np.cos(angles[:, : d // 2])
    return torch.from_numpy(encoding).float()


def rotary_cos_sin(positions: torch.Tensor, d_k: int, base: float = ROTARY_BASE) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of the angles t theta_i, theta_i = base^(-2i/d_k), laid out for rotate_half; (T, d_k) each.

    Column i and column i + d_k/2 share the angle t theta_i (GPT-NeoX / Llama layout). The angles
    are taken in float64 before the float32 cast, so a position far past the context (a rolling
    cache's) turns as exactly as position 0.
    """
    theta = torch.from_numpy(1.0 / base ** (2 * np.arange(d_k // 2) / d_k))          # (d_k/2,) float64
    angles = positions.to(torch.float64)[:, None] * theta[None, :]                     # (T, d_k/2)
    angles = torch.cat((angles, angles), dim=-1)                                      # (T, d_k)
    return angles.cos().float(), angles.sin().float()


@lru_cache(maxsize=16)
def rotary_cos_sin_beyond(start: int, T: int, d_k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """rotary_cos_sin of positions start .. start + T - 1, kept for the next block: a rolling cache
    reads one new position per step past the table, the same in every block (read-only tensors)."""
    return rotary_cos_sin(torch.arange(start, start + T), d_k)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """[x_1, x_2] -> [-x_2, x_1] on the last axis: each pair (x_i, x_{i + d_k/2}) turned a quarter."""
    x_1, x_2 = x.chunk(2, dim=-1)
    return torch.cat((-x_2, x_1), dim=-1)


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """RoPE: rotate each pair (x_i, x_{i + d_k/2}) of a query or key at position t by the angle t theta_i.

    (x_i, x_{i+d_k/2}) -> (x_i cos - x_{i+d_k/2} sin, x_{i+d_k/2} cos + x_i sin), the "rotate_half"
    pairing of GPT-NeoX and Llama (not the adjacent pairs (2i, 2i+1) of the RoFormer paper; the two
    differ only by a fixed permutation of the coordinates). Then rot(q, i) . rot(k, j) depends on
    i - j only. x (..., T, d_k), cos and sin (T, d_k).
    """
    return x * cos + rotate_half(x) * sin


# --- the parts -------------------------------------------------------------------------------

@dataclass
class LayerCache:
    """One block's keys and values of the tokens read so far, (B, h, T_past, d_k) each.

    seen counts every token ever read, so the next token sits at position `seen`; it equals
    `length` until a rolling cache (rotary positions) drops its oldest entries.
    """
    K: torch.Tensor | None = None
    V: torch.Tensor | None = None
    seen: int = 0

    @property
    def length(self) -> int:
        return 0 if self.K is None else int(self.K.shape[2])

    def drop_oldest(self, n: int = 1) -> None:
        """Forget the n oldest keys and values (a rolling window); positions keep counting on."""
        if self.K is not None:
            self.K, self.V = self.K[:, :, n:], self.V[:, :, n:]


@dataclass
class AttentionOutput:
    """One multi-head attention call: output (B, T, d) and, on the explicit path, weights (B, h, T, T)."""
    output: torch.Tensor
    weights: torch.Tensor | None


class MultiHeadAttention(nn.Module):
    """head_i = softmax(Q_i K_i^T / sqrt(d_k)) V_i;  MultiHead(x) = concat(head_1..head_h) W_O.

    Q, K, V = x W_q, x W_k, x W_v are computed in one matmul with W_qkv = [W_q | W_k | W_v].
    The explicit path keeps every head's weights; the fused path
    (F.scaled_dot_product_attention) gives the same output faster without them.
    Under mixed precision (bfloat16 autocast) the projections run in bfloat16 but attention
    itself stays in the weights' float32: softmax wants the range, and a CPU's bfloat16
    attention is slow. With rotary positions each head's Q and K are rotated by position
    (apply_rotary) before Q K^T; V is not.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.h, self.d_k, self.causal = config.n_heads, config.d_k, config.causal
        self.rotary = config.positional == "rotary"
        if self.rotary:                    # angles of positions 0 .. T-1, computed once (float64 -> float32)
            cos, sin = rotary_cos_sin(torch.arange(config.context_length), config.d_k)
            self.register_buffer("rotary_cos", cos, persistent=False)
            self.register_buffer("rotary_sin", sin, persistent=False)
        self.W_qkv = nn.Linear(config.d_model, 3 * config.d_model, bias=config.bias)
        self.W_o = nn.Linear(config.d_model, config.d_model, bias=config.bias)
        self.dropout = config.dropout
        self.weights_dropout = nn.Dropout(config.dropout)
        self.output_dropout = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor, need_weights: bool = False, cache: LayerCache | None = None,
                edit_heads=None) -> AttentionOutput:
        """With a cache (generation), x holds only the new tokens: their keys and values join the
        cached ones and their queries read all of them (a causal model's past never changes).

        `edit_heads`, if given, is a function of the heads' outputs z (B, T, h, d_k) (head i's z:
        head_i above, before W_O) that returns the z to use instead, the same shape:
        engine.interpret.interventions knocks heads out with it. Passed down the call, not hung on the
        module as a hook, so other threads' passes through the same shared model never see it."""
        B, T, d = x.shape
        qkv = self.W_qkv(x)
        if qkv.dtype != self.W_o.weight.dtype:                         # bfloat16 under autocast
            qkv = qkv.to(self.W_o.weight.dtype)
        Q, K, V = qkv.split(d, dim=2)                                  # 3 x (B, T, d)
        Q = Q.view(B, T, self.h, self.d_k).transpose(1, 2)            # (B, h, T, d_k)
        K = K.view(B, T, self.h, self.d_k).transpose(1, 2)
        V = V.view(B, T, self.h, self.d_k).transpose(1, 2)
        if self.rotary:                    # rotate by absolute position; cached keys were rotated by theirs
            start = cache.seen if cache is not None else 0
            cos, sin = self.rotation(start, T)
            turned = apply_rotary(torch.cat((Q, K), dim=1), cos, sin)  # Q and K in one go: (B, 2h, T, d_k)
            Q, K = turned[:, :self.h], turned[:, self.h:]
        past = 0
        if cache is not None:
            if cache.K is not None:
                past = cache.length
                K, V = torch.cat((cache.K, K), dim=2), torch.cat((cache.V, V), dim=2)   # (B, h, past + T, d_k)
            cache.K, cache.V = K, V
            cache.seen += T
        # query i (at position past + i) may read keys 0 .. past + i; a single new query reads them all.
        # The fused path masks a fresh sequence itself (is_causal); a mask is built only where it cannot.
        mask = None
        if self.causal and T > 1 and (need_weights or past):
            mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(past)
        if torch.is_autocast_enabled(x.device.type):                   # attention itself in float32
            with torch.autocast(x.device.type, enabled=False):
                context, weights = self._attend(Q, K, V, mask, need_weights)
        else:
            context, weights = self._attend(Q, K, V, mask, need_weights)
        z = context.transpose(1, 2)                                    # (B, T, h, d_k): each head's output
        if edit_heads is not None:
            z = edit_heads(z)
        context = z.contiguous().view(B, T, d)                         # concat the heads: (B, T, d)
        output = self.W_o(context)
        return AttentionOutput(self.output_dropout(output) if self.training else output, weights)

    def _attend(self, Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, mask: torch.Tensor | None,
                need_weights: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(context (B, h, T, d_k), weights (B, h, T, T_k) on the explicit path, else None)."""
        if need_weights:
            scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_k)         # (B, h, T, past + T)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = F.softmax(scores, dim=-1)                        # each row sums to 1
            return self.weights_dropout(weights) @ V, weights           # (B, h, T, d_k)
        return F.scaled_dot_product_attention(
            Q, K, V, attn_mask=mask, is_causal=self.causal and mask is None and Q.shape[2] > 1,
            dropout_p=self.dropout if self.training else 0.0), None

    def rotation(self, start: int, T: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos, sin (T, d_k) for positions start .. start + T - 1: from the table inside the context,
        computed afresh in float64 beyond it (a rolling cache's positions grow without end)."""
        if start + T <= self.rotary_cos.shape[0]:
            return self.rotary_cos[start:start + T], self.rotary_sin[start:start + T]
        cos, sin = rotary_cos_sin_beyond(start, T, self.d_k)
        return cos.to(self.rotary_cos.device), sin.to(self.rotary_sin.device)


class FeedForward(nn.Module):
    """FFN(z) = act(z W_1 + b_1) W_2 + b_2, applied to each position on its own; d -> d_ff -> d."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.W_1 = nn.Linear(config.d_model, config.d_ff, bias=config.bias)
        self.activation = nn.ReLU() if config.activation == "relu" else nn.GELU()
        self.W_2 = nn.Linear(config.d_ff, config.d_model, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        out = self.W_2(self.activation(self.W_1(z)))                    # (B, T, d)
        return self.dropout(out) if self.training else out


@dataclass
class BlockResult:
    output: torch.Tensor                 # (B, T, d)
    attention_weights: torch.Tensor | None  # (B, h, T, T) when asked for


class Block(nn.Module):
    """post: z = LN(x + MultiHead(x)), y = LN(z + FFN(z));  pre: z = x + MultiHead(LN(x)), y = z + FFN(LN(z)).

    Without the residual the "x +" goes; without LayerNorm the LN goes.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.layer_norm, self.residual = config.layer_norm, config.residual
        self.attention = MultiHeadAttention(config)
        self.feed_forward = FeedForward(config)
        if config.layer_norm != "none":
            self.norm_1 = nn.LayerNorm(config.d_model, bias=config.bias)
            self.norm_2 = nn.LayerNorm(config.d_model, bias=config.bias)

    def forward(self, x: torch.Tensor, need_weights: bool = False, cache: LayerCache | None = None,
                edit_heads=None) -> BlockResult:
        """x (B, T, d) -> the block's output; `edit_heads` changes the heads' outputs (MultiHeadAttention)."""
        if self.layer_norm == "pre":
            attended = self.attention(self.norm_1(x), need_weights, cache, edit_heads)
            z = x + attended.output if self.residual else attended.output
            y = z + self.feed_forward(self.norm_2(z)) if self.residual else self.feed_forward(self.norm_2(z))
        else:
            attended = self.attention(x, need_weights, cache, edit_heads)
            z = x + attended.output if self.residual else attended.output
            if self.layer_norm == "post":
                z = self.norm_1(z)
            y = z + self.feed_forward(z) if self.residual else self.feed_forward(z)
            if self.layer_norm == "post":
                y = self.norm_2(y)
        return BlockResult(y, attended.weights)


@dataclass
class ModelTrace:
    """Everything one forward pass computed, for the pages that show it.

    embeddings: token (+ position) vectors (B, T, d); hidden_states[i]: output of block i;
    attention_weights[i]: block i's weights (B, h, T, T); logits (B, T, V).
    """
    embeddings: torch.Tensor
    hidden_states: list[torch.Tensor]
    attention_weights: list[torch.Tensor]
    logits: torch.Tensor


class TransformerLM(nn.Module):
    """tokens -> embeddings (+ positions) -> N blocks -> (final LN) -> linear -> logits over V.

    forward(idx, targets) -> (logits, loss), the one interface of makemore: loss is the mean
    cross-entropy -ln P(target | tokens so far) in nats per token.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        check_buildable(config)
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        if config.positional == "learned":
            self.position_embedding = nn.Embedding(config.context_length, config.d_model)
        elif config.positional == "sinusoidal":
            self.register_buffer("position_encoding",
                                 sinusoidal_encoding(config.context_length, config.d_model), persistent=False)
        self.embedding_dropout = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.final_norm = nn.LayerNorm(config.d_model, bias=config.bias) if config.final_norm else None
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        if config.tied_head:
            self.lm_head.weight = self.token_embedding.weight        # one matrix reads and writes tokens
        self.apply(self._init_weights)
        for block in self.blocks:
            # GPT-2's scaled init: each residual branch's last matrix gets std 0.02 / sqrt(2 N)
            for last in (block.attention.W_o, block.feed_forward.W_2):
                nn.init.normal_(last.weight, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layers))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def embed(self, idx: torch.Tensor, start: int = 0) -> torch.Tensor:
        """x_t = E[w_t] (+ P[t]) for positions t = start .. start + T - 1, shape (B, T, d).

        Rotary positions add nothing here: they turn Q and K inside every head instead.
        """
        B, T = idx.shape
        if start + T > self.config.context_length:
            raise ValueError(_("The model reads at most {most} tokens at once; got {n}.",
                               most=grouped(self.config.context_length), n=grouped(start + T)))
        x = self.token_embedding(idx)                                  # (B, T, d)
        if self.config.positional == "learned":
            x = x + self.position_embedding(torch.arange(start, start + T, device=idx.device))
        elif self.config.positional == "sinusoidal":
            x = x + self.position_encoding[start:start + T]
        return self.embedding_dropout(x) if self.training else x

    def head(self, x: torch.Tensor) -> torch.Tensor:
        if self.final_norm is not None:
            x = self.final_norm(x)
        return self.lm_head(x)                                         # (B, T, V)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x).output
        logits = self.head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))
        return logits, loss

    @torch.inference_mode()
    def extend(self, idx: torch.Tensor, cache: list[LayerCache]) -> torch.Tensor:
        """Logits (B, T, V) of the new tokens idx, read after the len(cache[0]) tokens the cache holds.

        Equal to forward() over the whole sequence, for a causal model: each block adds the new
        tokens' keys and values to its cache, so a step of generation costs one token, not T.
        """
        if not self.config.causal:
            raise ValueError(_("Only a causal model can be read incrementally: without the mask, "
                               "every new token changes the vectors of the tokens before it."))
        if len(cache) != len(self.blocks):
            raise ValueError(_("The cache has {layers} layers; the model has {blocks} blocks.", layers=len(cache),
                               blocks=len(self.blocks)))
        x = self.embed(idx, start=cache[0].length)
        for block, layer in zip(self.blocks, cache):
            x = block(x, cache=layer).output
        return self.head(x)

    def empty_cache(self) -> list[LayerCache]:
        return [LayerCache() for _ in self.blocks]

    @torch.no_grad()
    def trace(self, idx: torch.Tensor) -> ModelTrace:
        """The forward pass on the explicit attention path, keeping every intermediate."""
        x = self.embed(idx)
        embeddings, hidden, weights = x, [], []
        for block in self.blocks:
            result = block(x, need_weights=True)
            x = result.output
            hidden.append(x)
            weights.append(result.attention_weights)
        return ModelTrace(embeddings, hidden, weights, self.head(x))
