"""A transformer's sizes and switches, and what they cost: no torch needed.

`TransformerConfig` names every size and switch once; `count_parameters` gives the size of any
configuration from the formula (GPT-3's 175 billion included) without building it; `dataflow`
lists the stages from token ids to next-token probabilities, with shapes, for the Block
builder's diagram. `engine.transformer.model` builds the torch model from the same config.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from engine import limits, numbers
from engine.i18n import N_, _, pgettext

ACTIVATIONS = ("relu", "gelu")


LAYER_NORMS = ("post", "pre", "none")


POSITIONALS = ("none", "sinusoidal", "learned", "rotary")


ROTARY_BASE = 10_000.0


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
                raise ValueError(_("{name} must be a whole number of at least 1; it is {value}.", name=name,
                                   value=repr(value)))
        if self.d_model % self.n_heads:
            raise ValueError(_("The width d_model = {d} must split evenly into h = {h} heads (d_k = d_model / h); try "
                               "{nearest} heads.", d=self.d_model, h=self.n_heads, nearest=self._nearest_heads()))
        if self.activation not in ACTIVATIONS:
            raise ValueError(_("The activation must be one of {choices}; it is {value}.",
                               choices=", ".join(ACTIVATIONS), value=repr(self.activation)))
        if self.layer_norm not in LAYER_NORMS:
            raise ValueError(_("LayerNorm placement must be one of {choices}; it is {value}.",
                               choices=", ".join(LAYER_NORMS), value=repr(self.layer_norm)))
        if self.positional not in POSITIONALS:
            raise ValueError(_("The positional encoding must be one of {choices}; it is {value}.",
                               choices=", ".join(POSITIONALS), value=repr(self.positional)))
        if not 0.0 <= float(self.dropout) < 1.0:
            raise ValueError(_("Dropout is a probability below 1; it is {value}.", value=repr(self.dropout)))
        if self.positional == "rotary" and self.d_k % 2:
            raise ValueError(_("Rotary positions turn the coordinates of each head in pairs, so d_k = d_model / h must "
                               "be even; it is {d_k}.", d_k=self.d_k))

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
            raise ValueError(_("The configuration has unknown fields: {fields}.", fields=", ".join(sorted(unknown))))
        return cls(**values)


# a preset's name is its key in a link; a page shows it as _(name)
PRESETS: dict[str, TransformerConfig] = {
    # The chapter's sizes: small enough to see every number, post-norm and ReLU as written.
    N_("tiny (the chapter's block)"): TransformerConfig(
        vocab_size=75, context_length=32, d_model=32, n_heads=4, d_ff=128, n_layers=2,
        activation="relu", layer_norm="post", positional="sinusoidal", final_norm=False),
    # nanoGPT's "baby GPT" for a CPU (README: 4 layers, 4 heads, 128 wide, context 64), bias off as in its train.py.
    N_("baby GPT (nanoGPT on a CPU)"): TransformerConfig(
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
        """Totals by part, summing to `total`, named in the reader's language."""
        return {
            _("token embedding"): self.token_embedding,
            _("position embedding"): self.position_embedding,
            _("attention (all blocks)"): self.attention_per_block * self.n_layers,
            _("feed-forward (all blocks)"): self.feed_forward_per_block * self.n_layers,
            _("LayerNorms (all blocks)"): self.layer_norms_per_block * self.n_layers,
            _("final LayerNorm"): self.final_norm,
            # a tied head reuses the embedding (W_vocab = E^T): no numbers of its own
            (_("LM head W_vocab") if self.lm_head else _("LM head W_vocab (tied to E: none extra)")): self.lm_head,
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


# the sentence under the presets' table: how its columns give its last one
COUNT_RULE = N_("parameters = V·d (token embedding) + T·d if the positions are learned + N × (4d² + 2·d·d_ff, plus "
                 "4d + d_ff + d with biases on, plus 2d for each LayerNorm with biases, d without) + the final "
                 "LayerNorm + V·d if W_vocab is not tied to the embedding.")   # shown as _(COUNT_RULE)


def scale_row(name: str, config: TransformerConfig) -> dict:
    """One row of the Block builder's table for scale: every size and switch the parameter count depends on
    (COUNT_RULE), so that a student can recompute the count from the row alone. Headers and words in the reader's
    language, `name` as given."""
    if config.layer_norm == "none":
        norms = _("final only") if config.final_norm else pgettext("LayerNorms", "none")
    else:
        norms = _("2 per block + final") if config.final_norm else _("2 per block")
    positions = _("learned (T·d)") if config.positional == "learned" else _("{positions} (none)",
                                                                             positions=position_name(config.positional))
    return {_("model"): name, "d": config.d_model, "d_ff": config.d_ff, _("heads h"): config.n_heads,
            _("blocks N"): config.n_layers, _("vocabulary V"): config.vocab_size, _("context T"): config.context_length,
            _("positions"): positions, _("biases"): _("on") if config.bias else _("off"), _("LayerNorms"): norms,
            "W_vocab": _("tied to E") if config.tied_head else _("own (V·d)"),
            _("parameters"): count_parameters(config).total}


def position_name(positional: str) -> str:
    """A kind of positions (POSITIONALS) as a page shows it, in the reader's language."""
    return {"none": pgettext("positions", "none"), "sinusoidal": pgettext("positions", "sinusoidal"),
            "learned": pgettext("positions", "learned"), "rotary": pgettext("positions", "rotary")}[positional]


def block_formula(config: TransformerConfig) -> list[tuple[str, str, int]]:
    """One block's parameters as (part, LaTeX formula in d and d_ff, count), following the bias and
    LayerNorm switches, so the formula on screen is always the one that gives the count beside it."""
    count, bias = count_parameters(config), config.bias
    parts = [("W_q, W_k, W_v, W_O", "4d^2 + 4d" if bias else "4d^2", count.attention_per_block),
             (r"\mathrm{FFN}", r"2\,d\,d_{ff} + d_{ff} + d" if bias else r"2\,d\,d_{ff}", count.feed_forward_per_block)]
    if config.layer_norm != "none":
        parts.append((r"\mathrm{LayerNorms}", r"2 \cdot 2d" if bias else r"2 \cdot d", count.layer_norms_per_block))
    return parts


def check_buildable(config: TransformerConfig) -> None:
    """Refuse, with a sentence, a model too large to build in this app's memory."""
    total = count_parameters(config).total
    if total > limits.MAX_BUILD_PARAMETERS:
        raise ValueError(_("This configuration has {total} parameters; the app builds models of at most {most}. Its "
                           "size is counted from the formula instead.", total=numbers.grouped(total),
                           most=numbers.grouped(limits.MAX_BUILD_PARAMETERS)))
    if config.context_length > limits.MAX_CONTEXT_LENGTH:
        raise ValueError(_("A context of {T} tokens is beyond the limit of {most} for a model built here.",
                           T=config.context_length, most=limits.MAX_CONTEXT_LENGTH))


def with_vocab(config: TransformerConfig, vocab_size: int) -> TransformerConfig:
    """The same configuration for another tokenizer's vocabulary."""
    return replace(config, vocab_size=vocab_size)


@dataclass(frozen=True)
class Stage:
    """One box of the block diagram: what it computes, the shape leaving it, its parameters. `name` is the stage's
    English name (the diagram finds its boxes by it), `title` the same in the reader's language."""
    name: str
    formula: str
    shape: tuple[int, ...]
    parameters: int
    in_block: bool = False
    title: str = ""


def dataflow(config: TransformerConfig, T: int | None = None) -> list[Stage]:
    """The stack from token ids to next-token probabilities, one stage per box, shapes for one sequence."""
    T = T or config.context_length
    d, V, count = config.d_model, config.vocab_size, count_parameters(config)
    norm = d * (1 + int(config.bias))
    stages = [Stage("token ids", "w_1 .. w_T", (T,), 0, title=_("token ids")),
              Stage("token embedding", "x_t = E[w_t]", (T, d), count.token_embedding, title=_("token embedding"))]
    if config.positional in ("sinusoidal", "learned"):
        stages.append(Stage(f"+ {config.positional} positions", "x_t + p_t", (T, d), count.position_embedding,
                            title=_("+ sinusoidal positions") if config.positional == "sinusoidal" else
                            _("+ learned positions")))
    add = "x + " if config.residual else ""
    pre = "LN(x)" if config.layer_norm == "pre" else "x"
    stages += [
        Stage("Q, K, V", _("Q, K, V = {x} W_q, W_k, W_v, split in h = {h} heads", x=pre, h=config.n_heads),
              (config.n_heads, T, config.d_k), 3 * d * d + 3 * d * int(config.bias), True, title="Q, K, V"),
    ]
    if config.positional == "rotary":
        stages.append(Stage("rotary positions", _("q_t, k_t turned pair by pair by angles t theta_i, "
                                                  "theta_i = 10000^(-2i/d_k) (V unturned)"),
                            (config.n_heads, T, config.d_k), 0, True, title=_("rotary positions")))
    stages += [
        Stage("attention weights", _("masked softmax(Q_i K_i^T / sqrt(d_k))") if config.causal else
              "softmax(Q_i K_i^T / sqrt(d_k))", (config.n_heads, T, T), 0, True, title=_("attention weights")),
        Stage("heads, concatenated", "concat(alpha_i V_i) W_O", (T, d), d * d + d * int(config.bias), True,
              title=_("heads, concatenated")),
        Stage("attention sublayer", {"post": f"z = LN({add}MultiHead(x))", "pre": f"z = {add}MultiHead(LN(x))",
                                     "none": f"z = {add}MultiHead(x)"}[config.layer_norm],
              (T, d), norm if config.layer_norm != "none" else 0, True, title=_("attention sublayer")),
        Stage("feed-forward, inside", f"{config.activation}(z W_1 + b_1)", (T, config.d_ff),
              d * config.d_ff + config.d_ff * int(config.bias), True, title=_("feed-forward, inside")),
        Stage("feed-forward sublayer", {"post": f"y = LN({add.replace('x', 'z')}FFN(z))",
                                        "pre": f"y = {add.replace('x', 'z')}FFN(LN(z))",
                                        "none": f"y = {add.replace('x', 'z')}FFN(z)"}[config.layer_norm],
              (T, d), d * config.d_ff + d * int(config.bias) + (norm if config.layer_norm != "none" else 0), True,
              title=_("feed-forward sublayer")),
    ]
    if config.final_norm:
        stages.append(Stage("final LayerNorm", "LN(y)", (T, d), count.final_norm, title=_("final LayerNorm")))
    head = _("logits = y W_vocab (tied: W_vocab = E^T)") if config.tied_head else "logits = y W_vocab"
    stages += [Stage("LM head", head, (T, V), count.lm_head, title=_("LM head")),
               Stage("softmax", "P(w_{t+1} | w_<=t)", (T, V), 0, title="softmax")]
    return stages
