"""A decoder-only transformer language model, written to be read beside the chapter.

The chapter's block, one sublayer at a time (post-norm, as the chapter writes it):
    z = LayerNorm(x + MultiHead(x))
    y = LayerNorm(z + FFN(z)),           FFN(z) = max(0, z W_1 + b_1) W_2 + b_2
and the stack: tokens -> embeddings (+ positions) -> N blocks -> linear -> softmax over
the vocabulary. Every size and switch lives in `TransformerConfig`; `count_parameters`
gives the size of any configuration from the formula, without building it.

Classes appear in the order they are built from (as in nanoGPT's model.py): attention,
feed-forward, block, the whole model. Shapes sit beside the lines that change them:
B batch, T tokens, d model width, h heads, d_k = d / h, V vocabulary.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Sequence

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from engine import limits
from engine.lm import Tokenizer, apply_temperature_top_k
from engine.positional import sinusoid_frequencies

ACTIVATIONS = ("relu", "gelu")
LAYER_NORMS = ("post", "pre", "none")
POSITIONALS = ("none", "sinusoidal", "learned", "rotary")
ROTARY_BASE = 10_000.0


# --- configuration -----------------------------------------------------------------------

@dataclass(frozen=True)
class TransformerConfig:
    """Every size and switch of the model, named once.

    layer_norm: "post" is the chapter's z = LayerNorm(x + MultiHead(x)); "pre" is GPT-2's
    z = x + MultiHead(LayerNorm(x)); "none" drops the normalisation.
    """
    vocab_size: int = 75
    context_length: int = 64
    d_model: int = 64
    n_heads: int = 4
    d_ff: int = 256
    n_layers: int = 2
    activation: str = "relu"
    layer_norm: str = "post"
    residual: bool = True
    positional: str = "sinusoidal"
    causal: bool = True
    dropout: float = 0.0
    tied_head: bool = True
    final_norm: bool = False
    bias: bool = True

    def __post_init__(self) -> None:
        for name in ("vocab_size", "context_length", "d_model", "n_heads", "d_ff", "n_layers"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1; it is {value!r}.")
        if self.d_model % self.n_heads:
            raise ValueError(f"The width d_model = {self.d_model} must split evenly into h = {self.n_heads} heads "
                             f"(d_k = d_model / h); try {self._nearest_heads()} heads.")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"The activation must be one of {', '.join(ACTIVATIONS)}; it is {self.activation!r}.")
        if self.layer_norm not in LAYER_NORMS:
            raise ValueError(f"LayerNorm placement must be one of {', '.join(LAYER_NORMS)}; it is {self.layer_norm!r}.")
        if self.positional not in POSITIONALS:
            raise ValueError(f"The positional encoding must be one of {', '.join(POSITIONALS)}; "
                             f"it is {self.positional!r}.")
        if not 0.0 <= float(self.dropout) < 1.0:
            raise ValueError(f"Dropout is a probability below 1; it is {self.dropout!r}.")
        if self.positional == "rotary" and self.d_k % 2:
            raise ValueError(f"Rotary positions turn the coordinates of each head in pairs, so d_k = d_model / h "
                             f"must be even; it is {self.d_k}.")

    def _nearest_heads(self) -> int:
        return max(h for h in range(1, self.n_heads + 1) if self.d_model % h == 0)

    @property
    def d_k(self) -> int:
        """Width of one head: d_k = d_model / h."""
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> "TransformerConfig":
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"The configuration has unknown fields: {', '.join(sorted(unknown))}.")
        return cls(**values)


PRESETS: dict[str, TransformerConfig] = {
    # The chapter's sizes: small enough to see every number, post-norm and ReLU as written.
    "tiny (the chapter's block)": TransformerConfig(
        vocab_size=75, context_length=32, d_model=32, n_heads=4, d_ff=128, n_layers=2,
        activation="relu", layer_norm="post", positional="sinusoidal", final_norm=False),
    # nanoGPT's "baby GPT" for a CPU (README: 4 layers, 4 heads, 128 wide, context 64), bias off as in its train.py.
    "baby GPT (nanoGPT on a CPU)": TransformerConfig(
        vocab_size=75, context_length=64, d_model=128, n_heads=4, d_ff=512, n_layers=4,
        activation="gelu", layer_norm="pre", positional="learned", final_norm=True, bias=False),
    # GPT-2 small as released by OpenAI (124,439,808 parameters in the checkpoint).
    "GPT-2 small": TransformerConfig(
        vocab_size=50257, context_length=1024, d_model=768, n_heads=12, d_ff=3072, n_layers=12,
        activation="gelu", layer_norm="pre", positional="learned", final_norm=True, bias=True),
    # GPT-3 175B (Brown et al. 2020, table 2.1): counted, never built.
    "GPT-3 175B": TransformerConfig(
        vocab_size=50257, context_length=2048, d_model=12288, n_heads=96, d_ff=49152, n_layers=96,
        activation="gelu", layer_norm="pre", positional="learned", final_norm=True, bias=True),
}


@dataclass(frozen=True)
class ParameterCount:
    """How many numbers each part of the model learns. `per_block` is for one block."""
    token_embedding: int
    position_embedding: int
    attention_per_block: int
    feed_forward_per_block: int
    layer_norms_per_block: int
    final_norm: int
    lm_head: int
    n_layers: int

    @property
    def per_block(self) -> int:
        return self.attention_per_block + self.feed_forward_per_block + self.layer_norms_per_block

    @property
    def blocks(self) -> int:
        return self.per_block * self.n_layers

    @property
    def total(self) -> int:
        return (self.token_embedding + self.position_embedding + self.blocks
                + self.final_norm + self.lm_head)

    def parts(self) -> dict[str, int]:
        """Totals by part, summing to `total`."""
        return {
            "token embedding": self.token_embedding,
            "position embedding": self.position_embedding,
            "attention (all blocks)": self.attention_per_block * self.n_layers,
            "feed-forward (all blocks)": self.feed_forward_per_block * self.n_layers,
            "LayerNorms (all blocks)": self.layer_norms_per_block * self.n_layers,
            "final LayerNorm": self.final_norm,
            # a tied head reuses the embedding (W_vocab = E^T): no numbers of its own
            ("LM head W_vocab" if self.lm_head else "LM head W_vocab (tied to E: none extra)"): self.lm_head,
        }


def count_parameters(config: TransformerConfig) -> ParameterCount:
    """Parameters from the formula, never building the model.

    attention: 4 d^2 (+ 4 d biases): W_q, W_k, W_v, W_O;  FFN: 2 d d_ff (+ d_ff + d biases);
    LayerNorm: 2 d (gain and bias) or d without bias; embeddings V d (+ T d if learned).
    Sinusoidal and rotary positions are fixed formulas: no parameters.
    """
    d, bias = config.d_model, int(config.bias)
    norm = d * (1 + bias)
    norms_per_block = 2 * norm if config.layer_norm != "none" else 0
    return ParameterCount(
        token_embedding=config.vocab_size * d,
        position_embedding=config.context_length * d if config.positional == "learned" else 0,
        attention_per_block=4 * d * d + 4 * d * bias,
        feed_forward_per_block=2 * d * config.d_ff + (config.d_ff + d) * bias,
        layer_norms_per_block=norms_per_block,
        final_norm=norm if config.final_norm else 0,
        lm_head=0 if config.tied_head else config.vocab_size * d,
        n_layers=config.n_layers,
    )


def check_buildable(config: TransformerConfig) -> None:
    """Refuse, with a sentence, a model too large to build in this app's memory."""
    total = count_parameters(config).total
    if total > limits.MAX_BUILD_PARAMETERS:
        raise ValueError(f"This configuration has {total:,} parameters; the app builds models of at most "
                         f"{limits.MAX_BUILD_PARAMETERS:,}. Its size is counted from the formula instead.")
    if config.context_length > limits.MAX_CONTEXT_LENGTH:
        raise ValueError(f"A context of {config.context_length} tokens is beyond the limit of "
                         f"{limits.MAX_CONTEXT_LENGTH} for a model built here.")


# --- positions ------------------------------------------------------------------------------

def sinusoidal_encoding(T: int, d: int) -> torch.Tensor:
    """PE(pos, 2i) = sin(pos omega_i), PE(pos, 2i+1) = cos(pos omega_i), omega_i = 10000^(-2i/d); (T, d).

    The frequencies are engine.positional's, so the Position page and the model agree.
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
class AttentionResult:
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

    def forward(self, x: torch.Tensor, need_weights: bool = False, cache: LayerCache | None = None) -> AttentionResult:
        """With a cache (generation), x holds only the new tokens: their keys and values join the
        cached ones and their queries read all of them (a causal model's past never changes)."""
        B, T, d = x.shape
        Q, K, V = self.W_qkv(x).to(self.W_o.weight.dtype).split(d, dim=2)   # 3 x (B, T, d)
        Q = Q.view(B, T, self.h, self.d_k).transpose(1, 2)            # (B, h, T, d_k)
        K = K.view(B, T, self.h, self.d_k).transpose(1, 2)
        V = V.view(B, T, self.h, self.d_k).transpose(1, 2)
        if self.rotary:                    # rotate by absolute position; cached keys were rotated by theirs
            start = cache.seen if cache is not None else 0
            cos, sin = self.rotation(start, T)
            Q, K = apply_rotary(Q, cos, sin), apply_rotary(K, cos, sin)
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
        with torch.autocast(x.device.type, enabled=False):
            if need_weights:
                scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_k)     # (B, h, T, past + T)
                if mask is not None:
                    scores = scores.masked_fill(~mask, float("-inf"))
                weights = F.softmax(scores, dim=-1)                    # each row sums to 1
                context = self.weights_dropout(weights) @ V            # (B, h, T, d_k)
            else:
                weights = None
                context = F.scaled_dot_product_attention(
                    Q, K, V, attn_mask=mask, is_causal=self.causal and T > 1 and mask is None,
                    dropout_p=self.dropout if self.training else 0.0)
        context = context.transpose(1, 2).contiguous().view(B, T, d)   # concat the heads: (B, T, d)
        return AttentionResult(self.output_dropout(self.W_o(context)), weights)

    def rotation(self, start: int, T: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos, sin (T, d_k) for positions start .. start + T - 1: from the table inside the context,
        computed afresh in float64 beyond it (a rolling cache's positions grow without end)."""
        if start + T <= self.rotary_cos.shape[0]:
            return self.rotary_cos[start:start + T], self.rotary_sin[start:start + T]
        cos, sin = rotary_cos_sin(torch.arange(start, start + T), self.d_k)
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
        return self.dropout(self.W_2(self.activation(self.W_1(z))))   # (B, T, d)


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

    def forward(self, x: torch.Tensor, need_weights: bool = False, cache: LayerCache | None = None) -> BlockResult:
        if self.layer_norm == "pre":
            attended = self.attention(self.norm_1(x), need_weights, cache)
            z = x + attended.output if self.residual else attended.output
            y = z + self.feed_forward(self.norm_2(z)) if self.residual else self.feed_forward(self.norm_2(z))
        else:
            attended = self.attention(x, need_weights, cache)
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
            raise ValueError(f"The model reads at most {self.config.context_length} tokens at once; "
                             f"got {start + T}.")
        x = self.token_embedding(idx)                                  # (B, T, d)
        if self.config.positional == "learned":
            x = x + self.position_embedding(torch.arange(start, start + T, device=idx.device))
        elif self.config.positional == "sinusoidal":
            x = x + self.position_encoding[start:start + T]
        return self.embedding_dropout(x)

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
            raise ValueError("Only a causal model can be read incrementally: without the mask, "
                             "every new token changes the vectors of the tokens before it.")
        if len(cache) != len(self.blocks):
            raise ValueError(f"The cache has {len(cache)} layers; the model has {len(self.blocks)} blocks.")
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


# --- the model as a language model of the app (engine.lm.LanguageModel) ---------------------

@dataclass
class TransformerLanguageModel:
    """A trained TransformerLM and its tokenizer behind the app's one LanguageModel interface."""
    model: TransformerLM
    tokenizer: Tokenizer
    name: str = "transformer"
    eval_batch: int = field(default=32, repr=False)
    rolling_cache: bool = False        # generation past the window keeps the cache (rotary only)

    def __post_init__(self) -> None:
        if self.rolling_cache and self.model.config.positional != "rotary":
            raise ValueError("Only a model with rotary positions can keep a rolling cache.")
        if self.tokenizer.vocab_size != self.model.config.vocab_size:
            raise ValueError(f"The tokenizer has {self.tokenizer.vocab_size} tokens but the model was built for "
                             f"{self.model.config.vocab_size}.")
        self.model.train(False)

    def next_token_probs(self, context: Sequence[int]) -> np.ndarray:
        """softmax(logits at the last position), reading at most context_length tokens back."""
        ids = self._window(context)
        with torch.no_grad():
            logits, _ = self.model(torch.tensor([ids], dtype=torch.long))
        return torch.softmax(logits[0, -1].double(), dim=-1).numpy()

    def _window(self, context: Sequence[int]) -> list[int]:
        ids = list(context)[-self.model.config.context_length:]
        if not ids:
            raise ValueError("The transformer needs at least one token of context (a prompt) to go on.")
        return ids

    def reader(self) -> "CachedReader":
        """next_token_probs for one growing context (a generation), with a key/value cache
        (a rolling one past the window when rolling_cache is set: see CachedReader)."""
        return CachedReader(self, rolling=self.rolling_cache)

    def cross_entropy(self, ids: Sequence[int]) -> float:
        """Mean -ln P(w_t | w_<t) over ids[1:], windows of context_length that overlap by one token."""
        ids = torch.as_tensor(list(ids), dtype=torch.long)
        if ids.numel() < 2:
            raise ValueError("Held-out text must be at least two tokens long to score a prediction.")
        T = self.model.config.context_length
        starts = list(range(0, ids.numel() - 1, T))
        total, count = 0.0, 0
        with torch.no_grad():
            for first in range(0, len(starts), self.eval_batch):
                chunk = starts[first:first + self.eval_batch]
                full = [s for s in chunk if s + T + 1 <= ids.numel()]
                if full:
                    x = torch.stack([ids[s:s + T] for s in full])
                    y = torch.stack([ids[s + 1:s + T + 1] for s in full])
                    logits, loss = self.model(x, y)
                    total += loss.item() * y.numel()
                    count += y.numel()
                for s in chunk:
                    if s + T + 1 > ids.numel():                        # the ragged last window
                        x, y = ids[s:-1][None], ids[s + 1:][None]
                        logits, loss = self.model(x, y)
                        total += loss.item() * y.numel()
                        count += y.numel()
        return total / count

    def sample(self, length: int, *, seed: int, temperature: float = 1.0, top_k: int | None = None,
               prompt: Sequence[int] = ()) -> list[int]:
        """Draw `length` ids one at a time from P(w_t | w_<t) reshaped by temperature and top-k."""
        rng = np.random.default_rng(seed)
        context = list(prompt) or [int(rng.integers(self.model.config.vocab_size))]
        read = self.reader()
        out: list[int] = []
        for _ in range(length):
            probs = apply_temperature_top_k(read(context), temperature, top_k)
            token = int(rng.choice(probs.size, p=probs))
            out.append(token)
            context.append(token)
        return out


class CachedReader:
    """P(next token | context) for a context that grows a token at a time, as in generation.

    While the context fits the window, each call runs only the tokens added since the last one
    (TransformerLM.extend). Once it is longer than context_length, the window slides: every
    token's position changes and the first one drops out, so each call is a full forward pass
    again, exactly as next_token_probs. The answers equal next_token_probs' up to float rounding.

    rolling=True (rotary positions only) keeps the cache as the window slides instead: drop the
    oldest key and value of every block, read the new token at the next position. Rotary scores
    depend on offsets i - j only, so the kept keys (turned by their absolute positions) stay
    valid and the angles are exact at any position (float64). With one block this equals a full
    pass over the last window; with more, each cached key of block 2 and up was computed when its
    token still read up to context_length tokens before it, so a rolling reader is sliding-window
    attention (every query reads the last context_length keys in every block, as in Mistral),
    which sees further back than a full pass over the window: close to next_token_probs, not equal.
    """

    def __init__(self, lm: TransformerLanguageModel, rolling: bool = False):
        if rolling and lm.model.config.positional != "rotary":
            raise ValueError("Only a model with rotary positions can keep its cache as the window slides: "
                             "with learned or sinusoidal positions every token's position changes.")
        self.lm, self.causal, self.rolling = lm, lm.model.config.causal, rolling
        self.ids: list[int] = []
        self.cache: list[LayerCache] = []

    def __call__(self, context: Sequence[int]) -> np.ndarray:
        ids = self.lm._window(context)
        if not self.causal:
            return self.lm.next_token_probs(ids)
        known = len(self.ids)
        if self.rolling and known == len(ids) == self.lm.model.config.context_length and ids[:-1] == self.ids[1:]:
            for layer in self.cache:                                   # the window slid by one token
                layer.drop_oldest(1)
            known -= 1
        elif not (known and len(ids) > known and ids[:known] == self.ids):
            self.cache, known = self.lm.model.empty_cache(), 0        # a new context, or the window slid
        logits = self.lm.model.extend(torch.tensor([ids[known:]], dtype=torch.long), self.cache)
        self.ids = ids
        return torch.softmax(logits[0, -1].double(), dim=-1).numpy()


def with_vocab(config: TransformerConfig, vocab_size: int) -> TransformerConfig:
    """The same configuration for another tokenizer's vocabulary."""
    return replace(config, vocab_size=vocab_size)


# --- the data flow, for drawing -------------------------------------------------------------

@dataclass(frozen=True)
class Stage:
    """One box of the block diagram: what it computes, the shape leaving it, its parameters."""
    name: str
    formula: str
    shape: tuple[int, ...]
    parameters: int
    in_block: bool = False


def dataflow(config: TransformerConfig, T: int | None = None) -> list[Stage]:
    """The stack from token ids to next-token probabilities, one stage per box, shapes for one sequence."""
    T = T or config.context_length
    d, V, count = config.d_model, config.vocab_size, count_parameters(config)
    norm = d * (1 + int(config.bias))
    stages = [Stage("token ids", "w_1 .. w_T", (T,), 0),
              Stage("token embedding", "x_t = E[w_t]", (T, d), count.token_embedding)]
    if config.positional in ("sinusoidal", "learned"):
        stages.append(Stage(f"+ {config.positional} positions", "x_t + p_t", (T, d), count.position_embedding))
    add = "x + " if config.residual else ""
    pre = "LN(x)" if config.layer_norm == "pre" else "x"
    stages += [
        Stage("Q, K, V", f"Q, K, V = {pre} W_q, W_k, W_v, split in h = {config.n_heads} heads",
              (config.n_heads, T, config.d_k), 3 * d * d + 3 * d * int(config.bias), True),
    ]
    if config.positional == "rotary":
        stages.append(Stage("rotary positions", "q_t, k_t turned pair by pair by angles t theta_i, "
                            "theta_i = 10000^(-2i/d_k) (V unturned)", (config.n_heads, T, config.d_k), 0, True))
    stages += [
        Stage("attention weights", ("masked " if config.causal else "") + "softmax(Q_i K_i^T / sqrt(d_k))",
              (config.n_heads, T, T), 0, True),
        Stage("heads, concatenated", "concat(alpha_i V_i) W_O", (T, d), d * d + d * int(config.bias), True),
        Stage("attention sublayer", {"post": f"z = LN({add}MultiHead(x))", "pre": f"z = {add}MultiHead(LN(x))",
                                     "none": f"z = {add}MultiHead(x)"}[config.layer_norm],
              (T, d), norm if config.layer_norm != "none" else 0, True),
        Stage("feed-forward, inside", f"{config.activation}(z W_1 + b_1)", (T, config.d_ff),
              d * config.d_ff + config.d_ff * int(config.bias), True),
        Stage("feed-forward sublayer", {"post": f"y = LN({add.replace('x', 'z')}FFN(z))",
                                        "pre": f"y = {add.replace('x', 'z')}FFN(LN(z))",
                                        "none": f"y = {add.replace('x', 'z')}FFN(z)"}[config.layer_norm],
              (T, d), d * config.d_ff + d * int(config.bias) + (norm if config.layer_norm != "none" else 0), True),
    ]
    if config.final_norm:
        stages.append(Stage("final LayerNorm", "LN(y)", (T, d), count.final_norm))
    head = "logits = y W_vocab (tied: W_vocab = E^T)" if config.tied_head else "logits = y W_vocab"
    stages += [Stage("LM head", head, (T, V), count.lm_head),
               Stage("softmax", "P(w_{t+1} | w_<=t)", (T, V), 0)]
    return stages
