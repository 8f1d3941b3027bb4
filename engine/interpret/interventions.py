"""Causal tools of interpretability: change one thing inside the model and read what the output does.

Each tool reads the residual stream x (the running sum every block adds to), block by block:
    x_0 = embed(ids);   x_{l+1} = block_l(x_l);   logits = W_vocab norm(x_L)
and changes it (or the heads inside one block) on the way, the way TransformerLens' hooks do:
    logit lens           logits_l = W_vocab norm(x_l) for every l: what layer l would predict now
    head ablation        head j of block l outputs z_lj = alpha_lj V_lj (before W_O); zero ablation
                         sets z_lj = 0, mean ablation sets z_lj = mean_t z_lj(t) over a reference text
    head effects         for every head alone: Delta ln P(target) = ln P_ablated - ln P_clean at the last position
    head attribution     the same Delta for every head estimated from one forward and one backward pass, the
                         first-order (straight-line) guess: Delta_lj ~ sum_t dlnP/dz_lj(t) . (v_lj - z_lj(t)),
                         v_lj what the ablated head outputs instead (attribution patching, Nanda 2023)
    activation patching  run the corrupted prompt with the clean x_l at one (layer, position):
                         restored = (LD_patched - LD_corrupt) / (LD_clean - LD_corrupt),
                         LD = logit[clean target] - logit[corrupt target] at the last position
    copying probe        loss per position on a random sequence repeated twice, heads ablated or not

One interface for both transformers of the app: `model` is SmolLM2 (engine.pretrained.llama.SmolLM2), a
trained model of ours as the app holds it (engine.transformer.language_model.TransformerLanguageModel, whose
tokenizer reads texts), or the bare engine.transformer.model.TransformerLM in eval mode (ids only). A text is
encoded by the model's tokenizer, and SmolLM2 reads it as a document, after <|endoftext|>; token ids
are read as given (for SmolLM2, start them with id 0 as `SmolLM2.encode_text` does). Layers and
heads count from 0; row r of a residual-stream result is x_r, after the embedding (r = 0) and
after block r - 1, so rows run 0 .. L.

The tools reach inside through the models' own pass, one block at a time (`SmolLM2.block`,
`TransformerLM.blocks[l]`), with an `edit_heads` function handed down the call to change the heads'
outputs z; nothing is hooked onto the shared model, so other sessions' passes are never touched.
Batched where it pays: head effects run the blocks before a layer once, then h copies of the rest,
copy j without head j; patching runs one copy per patched position from the patched layer on.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from engine import limits, lm
from engine.i18n import N_, _
from engine.numbers import grouped
from engine.interpret.choices import MODES  # torch-free: the page's spec reads it at import
from engine.machinery.machine_slots import MachineLine, lock_folder


# --- one residual-stream interface over both models -----------------------------------------------

class _Runner:
    """The residual stream of one model, block by block; x is always a batch (B, T, d).

        embed(ids) -> x_0 (T, d);  block(l, x, edit_heads, past) -> x_{l+1};  logits(x) -> (..., V)
    `past`: block l's keys and values (K, V) of the positions before x's, each (heads, t, d_k), from a
    run of the same prefix (`stream_with_keys`); every copy in the batch reads them (a causal model's
    rows before t never change, so only the rows from t on are computed).
    """
    n_layers: int
    n_heads: int
    d_k: int
    vocab_size: int
    max_tokens: int            # the most tokens one pass of this model reads
    causal: bool               # a position never reads the ones after it
    tokenizer: object | None

    def embed(self, ids: list[int]) -> torch.Tensor: ...
    def block(self, layer: int, x: torch.Tensor, edit_heads: Callable | None = None, past=None) -> torch.Tensor: ...
    def logits(self, x: torch.Tensor) -> torch.Tensor: ...

    def logits_of(self, x: torch.Tensor, token_ids: list[int]) -> torch.Tensor:
        """logits(x)[..., token_ids]: the scores of a few tokens only."""
        return self.logits(x)[..., token_ids]

    def stream_with_keys(self, ids: list[int]) -> tuple[torch.Tensor, list[tuple[torch.Tensor, torch.Tensor]]]:
        """x_0 .. x_L of a plain pass, (L + 1, T, d), and each block's keys and values, (heads, T, d_k) each."""
        ...

    def encode(self, text: str) -> list[int]:
        if self.tokenizer is None:
            raise ValueError(_("This model has no tokenizer to read a text: pass token ids."))
        return list(self.tokenizer.encode(text))

    def display(self, token_id: int) -> str:
        if self.tokenizer is None:
            return str(int(token_id))
        return _display(self.tokenizer, int(token_id))


class _SmolLM2Runner(_Runner):
    causal = True

    def __init__(self, model):
        config = model.config
        self.model, self.tokenizer = model, model.tokenizer
        self.n_layers, self.n_heads, self.d_k = config.n_layer, config.n_head, config.d_k
        self.vocab_size, self.max_tokens = config.vocab_size, limits.PRETRAINED_MAX_TOKENS

    def encode(self, text: str) -> list[int]:
        return [self.model.start_id] + super().encode(text)

    def embed(self, ids):
        return self.model.token_embedding[torch.as_tensor(ids, dtype=torch.long)]       # (T, d)

    def block(self, layer, x, edit_heads=None, past=None):
        from engine.pretrained.llama import KVCache, rotary_angles

        config, start, cache = self.model.config, 0, None
        if past is not None:                     # attention_block reads (and extends) entry `layer` of a cache
            start = past[0].shape[-2]
            K, V = (kv.expand(x.shape[0], -1, -1, -1) for kv in past)                   # (B, h_kv, t, d_k)
            cache = KVCache(K=[None] * layer + [K], V=[None] * layer + [V])
        cos, sin = rotary_angles(torch.arange(start, start + x.shape[-2]), config.d_k, config.rope_base)
        return self.model.block(layer, x, cos, sin, cache=cache, edit_heads=edit_heads)[0]

    def logits(self, x):
        from engine.pretrained.llama import rms_norm

        # Llama.logits without its inference mode: head_attribution differentiates through this
        model = self.model
        return rms_norm(x, model.final_norm, model.config.norm_eps) @ model.output.T

    def logits_of(self, x, token_ids):
        from engine.pretrained.llama import rms_norm

        # only the rows of W_vocab asked for: two tokens' scores need 2 of its 49,152 rows
        model = self.model
        return rms_norm(x, model.final_norm, model.config.norm_eps) @ model.output[token_ids].T

    def stream_with_keys(self, ids):
        from engine.pretrained.llama import KVCache

        cache = KVCache()
        _, hidden, _ = self.model._run(ids, cache=cache, keep_weights=False)
        return hidden, list(zip(cache.K, cache.V))


class _TransformerLMRunner(_Runner):
    def __init__(self, model, tokenizer=None):
        if model.training:
            raise ValueError("The model is in training mode (dropout on): call model.train(False) before reading it.")
        config = model.config
        self.model, self.tokenizer, self.causal = model, tokenizer, config.causal
        self.n_layers, self.n_heads, self.d_k = config.n_layers, config.n_heads, config.d_k
        self.vocab_size, self.max_tokens = config.vocab_size, config.context_length

    def embed(self, ids):
        return self.model.embed(torch.as_tensor([ids], dtype=torch.long))[0]            # (T, d)

    def block(self, layer, x, edit_heads=None, past=None):
        from engine.transformer.model import LayerCache

        cache = None
        if past is not None:
            K, V = (kv.expand(x.shape[0], -1, -1, -1) for kv in past)                   # (B, h, t, d_k)
            cache = LayerCache(K=K, V=V, seen=K.shape[-2])
        return self.model.blocks[layer](x, cache=cache, edit_heads=edit_heads).output

    def logits(self, x):
        return self.model.head(x)

    def stream_with_keys(self, ids):
        cache = self.model.empty_cache()
        x = self.embed(ids)[None]
        rows = [x[0]]
        for block, layer_cache in zip(self.model.blocks, cache):
            x = block(x, cache=layer_cache).output
            rows.append(x[0])
        return torch.stack(rows), [(c.K[0], c.V[0]) for c in cache]


def _runner(model) -> _Runner:
    from engine.pretrained.llama import SmolLM2
    from engine.transformer.model import TransformerLM
    from engine.transformer.language_model import TransformerLanguageModel

    if isinstance(model, SmolLM2):
        return _SmolLM2Runner(model)
    if isinstance(model, TransformerLanguageModel):
        return _TransformerLMRunner(model.model, model.tokenizer)
    if isinstance(model, TransformerLM):
        return _TransformerLMRunner(model)
    raise ValueError("The interventions read SmolLM2 (engine.pretrained.llama.SmolLM2), a TransformerLanguageModel "
                     f"or a TransformerLM; got {type(model).__name__}.")


def _display(tokenizer, token_id: int) -> str:
    """One token as a student reads it."""
    if hasattr(tokenizer, "display"):
        return tokenizer.display(token_id)
    from engine.language.tokenizers import token_text

    return token_text(tokenizer, token_id)


# --- checks: every failure is a sentence ---------------------------------------------------------------

def _ids(runner: _Runner, ids, limit: int = limits.INTERVENTION_MAX_TOKENS) -> list[int]:
    """Token ids, or a text the model's tokenizer encodes: 1 to `limit` of them (and what the model reads)."""
    if isinstance(ids, str):
        if not ids.strip():
            raise ValueError(_("Type some text first: the model needs at least one token to read."))
        if len(ids) > limits.PRETRAINED_MAX_TEXT_CHARS:
            raise ValueError(_("The text has {chars} characters; the limit here is {most}. Use a shorter text.",
                               chars=grouped(len(ids)), most=grouped(limits.PRETRAINED_MAX_TEXT_CHARS)))
        ids = runner.encode(ids)
    return lm.check_ids(ids, runner.vocab_size, limit=min(limit, runner.max_tokens), reader="the model",
                        at_least=1).tolist()


def _target(runner: _Runner, target) -> int:
    """A target token: an id, or a text that must be exactly one token (`single_token`)."""
    if isinstance(target, str):
        if runner.tokenizer is None:
            raise ValueError(_("This model has no tokenizer to read a target text: pass the target's token id."))
        return single_token(runner.tokenizer, target)
    return int(lm.check_ids([target], runner.vocab_size, reader="the target")[0])


def single_token(tokenizer, text: str) -> int:
    """The id of `text` if the tokenizer makes it one token; else a sentence naming the tokens it became.

    " Paris" is one token of SmolLM2; "Parisian" becomes 2 tokens: 'Paris', 'ian'; "lamb" becomes 2,
    and the sentence says that " lamb", with its space, is one.
    """
    characters = getattr(tokenizer, "name", "") == "characters"   # a model that reads one character a token
    if not isinstance(text, str) or not text:
        raise ValueError(_("Type the target character (one character, for example 'e', or a space).") if characters
                         else _("Type the target token (for example ' Paris', with the space a word has after "
                                "another)."))
    if len(text) > limits.TARGET_MAX_CHARS:
        raise ValueError(_("The target must be one token, a few characters long; this one has {chars} characters "
                           "(the limit is {most}).", chars=grouped(len(text)), most=limits.TARGET_MAX_CHARS))
    ids = tokenizer.encode(text)
    if len(ids) == 1:
        return int(ids[0])
    pieces = ", ".join(repr(_display(tokenizer, i)) for i in ids)
    if not text.startswith(" ") and len(tokenizer.encode(" " + text)) == 1:
        raise ValueError(_("The target must be one token: {text} becomes {n} tokens: {pieces}. {spaced}, with the "
                           "space it has after another word, is one token.", text=repr(text), n=len(ids),
                           pieces=pieces, spaced=repr(" " + text)))
    raise ValueError(_("The target must be one token: {text} becomes {n} tokens: {pieces}.", text=repr(text),
                       n=len(ids), pieces=pieces))


def _heads(runner: _Runner, heads) -> dict[int, list[int]]:
    """(layer, head) pairs -> {layer: [heads]}, each pair checked against the model's sizes."""
    by_layer: dict[int, list[int]] = {}
    for pair in heads:
        try:
            layer, head = (int(v) for v in pair)
        except (TypeError, ValueError):
            raise ValueError(_("Name each head as a (layer, head) pair of whole numbers, e.g. (5, 3).")) from None
        if not 0 <= layer < runner.n_layers:
            raise ValueError(_("Layer {layer} does not exist: layers run from 0 to {last}.", layer=layer,
                               last=runner.n_layers - 1))
        if not 0 <= head < runner.n_heads:
            raise ValueError(_("Head {head} does not exist: each layer has heads 0 to {last}.", head=head,
                               last=runner.n_heads - 1))
        if head not in by_layer.setdefault(layer, []):
            by_layer[layer].append(head)
    return by_layer


def _mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(_("Ablate a head by 'zero' (its output set to 0) or 'mean' (its mean output on a reference "
                           "text), not {mode}.", mode=repr(mode)))
    return mode


# --- the pieces every tool is made of -------------------------------------------------------------------

def _stream(runner: _Runner, ids: list[int], edits: dict[int, Callable] | None = None) -> torch.Tensor:
    """The residual stream x_0 .. x_L of one pass, (L + 1, T, d); edits: {layer: edit_heads}."""
    x = runner.embed(ids)[None]                                     # (1, T, d)
    rows = [x[0]]
    for layer in range(runner.n_layers):
        x = runner.block(layer, x, (edits or {}).get(layer))
        rows.append(x[0])
    return torch.stack(rows)


def _replacements(runner: _Runner, mode: str, reference_ids: list[int] | None) -> torch.Tensor:
    """What an ablated head outputs instead of z, per layer and head, (L, h, d_k).

    zero: 0;  mean: mean_t z_lj(t) over every position t of the reference text.
    """
    if mode == "zero":
        return torch.zeros(runner.n_layers, runner.n_heads, runner.d_k)
    means = []

    def record(z):                                                  # z (1, T, h, d_k), left as it is
        means.append(z[0].mean(dim=0))                              # (h, d_k)
        return z

    _stream(runner, reference_ids, {layer: record for layer in range(runner.n_layers)})
    return torch.stack(means)                                       # (L, h, d_k)


def _replace_heads(heads: list[int], values: torch.Tensor) -> Callable:
    """edit_heads that gives each listed head j the output values[j] (d_k,) at every position."""
    def edit(z):                                                    # (B, T, h, d_k)
        z = z.clone()
        z[..., heads, :] = values[heads]
        return z
    return edit


def _one_head_per_copy(values: torch.Tensor) -> Callable:
    """edit_heads for a batch of h copies: copy j gets values[j] as head j's output, the others are kept."""
    def edit(z):                                                    # (h copies, T, h, d_k)
        z = z.clone()
        copy = torch.arange(z.shape[0])
        z[copy, :, copy] = values[:, None, :]                        # z[j, :, j] = values[j] at every t
        return z
    return edit


def stream_labels(n_layers: int) -> list[str]:
    """The name of each row x_0 .. x_L of a residual-stream result."""
    return ["embedding"] + [f"after block {layer}" for layer in range(n_layers)]


# --- logit lens -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LogitLens:
    """What the model would predict if it stopped after each block: softmax(W_vocab norm(x_r)), r = 0 .. L."""
    ids: list[int]
    tokens: list[str]                    # the input, one entry per position (T,)
    layers: list[str]                    # the rows: "embedding", "after block 0", ... (L + 1,)
    top_ids: np.ndarray                  # (L + 1, T, k) the k most likely next tokens, best first
    top_tokens: np.ndarray               # (L + 1, T, k) of str
    top_log_probs: np.ndarray            # (L + 1, T, k) ln P of each
    target: int | None = None            # a token followed through the layers, when one was asked for
    target_log_probs: np.ndarray | None = None   # (L + 1, T) ln P(target)
    target_ranks: np.ndarray | None = None       # (L + 1, T) its rank, 0 = most likely

    @property
    def top_probabilities(self) -> np.ndarray:
        return np.exp(self.top_log_probs)

    def first_top_layer(self, token_id: int, position: int = -1) -> int | None:
        """The first row r from which `token_id` is the top-1 prediction at `position` in every later row."""
        top = self.top_ids[:, position, 0] == int(token_id)                 # (L + 1,)
        if not top[-1]:
            return None
        later_all_top = np.logical_and.accumulate(top[::-1])[::-1]
        return int(np.argmax(later_all_top))


def logit_lens(model, ids, *, k: int = 5, target=None) -> LogitLens:
    """Each row x_r of the residual stream read by the model's own output: ln softmax(W_vocab norm(x_r)).

    Row L (after the last block) is the model's own prediction. `target` (an id, or a text of
    one token) is followed at every row and position: its ln P and rank.
    """
    runner = _runner(model)
    ids = _ids(runner, ids)
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= limits.LOGIT_LENS_MAX_TOP_K:
        raise ValueError(_("Show between 1 and {most} tokens per cell.", most=limits.LOGIT_LENS_MAX_TOP_K))
    target = None if target is None else _target(runner, target)
    top_ids, top_log_probs, target_log_probs, target_ranks = [], [], [], []
    with torch.inference_mode():
        for x in _stream(runner, ids):                                  # x_r, (T, d)
            log_probs = torch.log_softmax(runner.logits(x).float(), dim=-1)   # (T, V)
            best = torch.topk(log_probs, k, dim=-1)
            top_ids.append(best.indices)
            top_log_probs.append(best.values)
            if target is not None:
                chosen = log_probs[:, target]                           # (T,)
                target_log_probs.append(chosen)
                target_ranks.append((log_probs > chosen[:, None]).sum(dim=-1))
    top_ids = torch.stack(top_ids).numpy()
    names = {int(i): runner.display(int(i)) for i in np.unique(top_ids)}
    return LogitLens(
        ids=ids, tokens=[runner.display(i) for i in ids], layers=stream_labels(runner.n_layers), top_ids=top_ids,
        top_tokens=np.vectorize(names.__getitem__, otypes=[object])(top_ids),
        top_log_probs=torch.stack(top_log_probs).numpy(), target=target,
        target_log_probs=torch.stack(target_log_probs).numpy() if target is not None else None,
        target_ranks=torch.stack(target_ranks).numpy() if target is not None else None)


# --- ablating heads --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ablation:
    """One pass with some heads knocked out."""
    ids: list[int]
    tokens: list[str]
    heads: tuple[tuple[int, int], ...]   # (layer, head) pairs knocked out
    mode: str                            # "zero" or "mean"
    logits: np.ndarray                   # (T, V)

    @property
    def next_token_log_probs(self) -> np.ndarray:
        """ln P(next token) at the last position, (V,)."""
        last = self.logits[-1].astype(np.float64)
        return last - np.logaddexp.reduce(last)


def ablate_heads(model, ids, heads=(), mode: str = "zero", reference_ids=None) -> Ablation:
    """A pass with each (layer, head) in `heads` knocked out at every position.

    zero: z_lj = 0 (the same as zeroing head j's d_k rows of W_O in block l);
    mean: z_lj = its mean output over the positions of `reference_ids` (default: `ids` themselves).
    """
    runner = _runner(model)
    ids = _ids(runner, ids)
    return _ablate(runner, ids, heads, mode, reference_ids)


def _ablate(runner: _Runner, ids: list[int], heads, mode: str, reference_ids) -> Ablation:
    by_layer = _heads(runner, heads)
    mode = _mode(mode)
    with torch.inference_mode():
        reference = ids if reference_ids is None else _ids(runner, reference_ids)
        edits = {}
        if by_layer:
            values = _replacements(runner, mode, reference)                 # (L, h, d_k)
            edits = {layer: _replace_heads(chosen, values[layer]) for layer, chosen in by_layer.items()}
        logits = runner.logits(_stream(runner, ids, edits)[-1])       # (T, V)
    pairs = tuple((layer, head) for layer, chosen in sorted(by_layer.items()) for head in sorted(chosen))
    return Ablation(ids=ids, tokens=[runner.display(i) for i in ids], heads=pairs, mode=mode,
                    logits=logits.float().numpy())


@dataclass(frozen=True)
class HeadEffects:
    """Delta ln P(target) at the last position when each head alone is knocked out."""
    ids: list[int]
    tokens: list[str]
    target: int
    target_token: str
    mode: str
    clean_log_prob: float                # ln P(target), nothing ablated
    ablated_log_probs: np.ndarray        # (L, h) ln P(target) with head (l, j) ablated
    effects: np.ndarray                  # (L, h) ablated - clean: negative where the head helped the target
    estimated: bool = False              # True: attribution's first-order estimate (head_attribution), not 270 passes

    def ranking(self, k: int | None = None) -> list[tuple[int, int, float]]:
        """(layer, head, effect) of the heads whose removal costs the target most, largest drop first."""
        order = np.argsort(self.effects, axis=None, kind="stable")
        n_head = self.effects.shape[1]
        ranked = [(int(i // n_head), int(i % n_head), float(self.effects.flat[i])) for i in order]
        return ranked[:k] if k is not None else ranked


# the heavy questions (a pass per head, a pass per patched cell) take turns on the machine, as trainings do
HEAVY_LINE = MachineLine(limits.MAX_HEAVY_CALLS_PER_MACHINE, limits.MAX_WAITING_HEAVY_CALLS,
                         N_("runs of the model per head or per patched cell"), lock_folder() / "heavy")


def head_effects(model, ids, target, *, mode: str = "zero", reference_ids=None) -> HeadEffects:
    """For every head (l, j) alone: ln P_ablated(target) - ln P(target) at the last position, (L, h).

    Exact, one ablated pass per head, batched by layer: the clean stream x_0 .. x_L is computed
    once; for block l, h copies of x_l go through it, copy j without head j, then the blocks
    after it on the batch. ablate_heads(model, ids, [(l, j)]) gives the same numbers one by one.
    Takes its turn in HEAVY_LINE (limits.MAX_HEAVY_CALLS_PER_MACHINE at once).
    """
    with HEAVY_LINE.turn():
        return _head_effects(model, ids, target, mode=mode, reference_ids=reference_ids)


def _head_effects(model, ids, target, *, mode: str, reference_ids) -> HeadEffects:
    runner = _runner(model)
    ids = _ids(runner, ids, limits.HEAD_EFFECTS_MAX_TOKENS)
    target = _target(runner, target)
    mode = _mode(mode)
    L, h = runner.n_layers, runner.n_heads

    def log_p_target(x):                                             # x (B, T, d) -> (B,)
        return torch.log_softmax(runner.logits(x[:, -1]).double(), dim=-1)[:, target]

    with torch.inference_mode():
        reference = ids if reference_ids is None else _ids(runner, reference_ids)
        values = _replacements(runner, mode, reference)            # (L, h, d_k)
        stream = _stream(runner, ids)                               # (L + 1, T, d)
        clean = float(log_p_target(stream[-1:])[0])
        ablated = np.empty((L, h))
        for layer in range(L):
            x = stream[layer].expand(h, -1, -1)                     # (h, T, d): h copies of x_l
            x = runner.block(layer, x, _one_head_per_copy(values[layer]))
            for later in range(layer + 1, L):
                x = runner.block(later, x)
            ablated[layer] = log_p_target(x).numpy()
    return HeadEffects(ids=ids, tokens=[runner.display(i) for i in ids], target=target,
                       target_token=runner.display(target), mode=mode, clean_log_prob=clean,
                       ablated_log_probs=ablated, effects=ablated - clean)


def head_attribution(model, ids, target, *, mode: str = "zero", reference_ids=None) -> HeadEffects:
    """Every head's effect estimated from one forward and one backward pass (attribution patching), (L, h).

        Delta_lj ~ sum_t  d ln P(target) / d z_lj(t)  .  (v_lj - z_lj(t))
    z_lj(t) is head j of block l's output at position t in the clean pass, v_lj what it outputs when ablated
    (0, or its mean over the reference text, as in head_effects): the change a straight line through the clean
    pass predicts. Exact where ln P is linear in the heads' outputs; elsewhere a guess whose quality the page
    measures against head_effects. `ablated_log_probs` is the clean ln P plus the estimate (`estimated` is True).
    """
    runner = _runner(model)
    ids = _ids(runner, ids, limits.HEAD_EFFECTS_MAX_TOKENS)
    target = _target(runner, target)
    mode = _mode(mode)
    clean, estimate = _attribution(runner, ids, lambda last: torch.log_softmax(last.double(), dim=-1)[target],
                                   mode, reference_ids)
    return HeadEffects(ids=ids, tokens=[runner.display(i) for i in ids], target=target,
                       target_token=runner.display(target), mode=mode, clean_log_prob=clean,
                       ablated_log_probs=clean + estimate, effects=estimate, estimated=True)


def _attribution(runner: _Runner, ids: list[int], metric: Callable, mode: str,
                 reference_ids) -> tuple[float, np.ndarray]:
    """(m of the clean pass, the first-order estimate of m_ablated - m for every head alone, (L, h)).

    m = metric(logits at the last position); one forward pass keeps every block's z_l in the graph, one
    backward pass gives dm/dz_l for all of them at once.
    """
    outputs: list[torch.Tensor] = []                                # z_l, (1, T, h, d_k) per block, in the graph

    def keep(z):
        outputs.append(z)
        return z

    with torch.inference_mode(False), torch.enable_grad():
        x = runner.embed(ids)[None].detach().requires_grad_(True)   # a leaf, so that every z_l has a gradient
        for layer in range(runner.n_layers):
            x = runner.block(layer, x, keep)
        m = metric(runner.logits(x[0, -1]))
        gradients = torch.autograd.grad(m, outputs)
    z = torch.stack([output.detach()[0] for output in outputs]).double()              # (L, T, h, d_k)
    g = torch.stack([gradient[0] for gradient in gradients]).double()                 # (L, T, h, d_k)
    if mode == "mean" and reference_ids is None:                    # the mean over this very pass
        values = z.mean(dim=1)                                                         # (L, h, d_k)
    else:
        with torch.inference_mode():
            reference = _ids(runner, reference_ids) if mode == "mean" else ids
            values = _replacements(runner, mode, reference).double()
    return float(m.detach()), (g * (values[:, None] - z)).sum(dim=(1, 3)).numpy()


# --- activation patching ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Patching:
    """How much of the clean answer each (layer, position) of the clean residual stream brings back."""
    clean_tokens: list[str]
    corrupt_tokens: list[str]
    layers: list[str]                    # the rows x_0 .. x_L: "embedding", "after block 0", ...
    clean_target: int
    corrupt_target: int
    clean_target_token: str
    corrupt_target_token: str
    clean_logit_diff: float              # LD = logit[clean target] - logit[corrupt target], clean prompt
    corrupt_logit_diff: float            # ... on the corrupted prompt
    patched_logit_diff: np.ndarray       # (L + 1, T) LD of the corrupted run with clean x_r at position t
    restored: np.ndarray                 # (L + 1, T) (LD_patched - LD_corrupt) / (LD_clean - LD_corrupt)


def patch_residual(model, clean_ids, corrupt_ids, layer: int, positions: Sequence[int]) -> np.ndarray:
    """Logits (T, V) of the corrupted prompt with the clean x_layer put in at `positions` (row 0: the embedding)."""
    runner = _runner(model)
    clean_ids, corrupt_ids = _same_length(runner, clean_ids, corrupt_ids)
    if not 0 <= layer <= runner.n_layers:
        raise ValueError(_("Residual-stream layer {layer} does not exist: rows run from 0 (the embedding) to {last} "
                           "(after the last block).", layer=layer, last=runner.n_layers))
    with torch.inference_mode():
        x = _stream(runner, corrupt_ids)[layer].clone()
        positions = list(positions)
        x[positions] = _stream(runner, clean_ids)[layer][positions]
        x = x[None]
        for later in range(layer, runner.n_layers):
            x = runner.block(later, x)
        return runner.logits(x[0]).float().numpy()


def _same_length(runner: _Runner, clean_ids, corrupt_ids) -> tuple[list[int], list[int]]:
    clean_ids, corrupt_ids = _ids(runner, clean_ids), _ids(runner, corrupt_ids)
    if len(clean_ids) != len(corrupt_ids):
        raise ValueError(_("Patching compares the two prompts position by position, so they need the same number of "
                           "tokens: the clean one has {clean}, the corrupted one {corrupt}.", clean=len(clean_ids),
                           corrupt=len(corrupt_ids)))
    return clean_ids, corrupt_ids


def activation_patching(model, clean_ids, corrupt_ids, clean_target, corrupt_target) -> Patching:
    """For each row x_r (r = 0 .. L) and position t: the corrupted run with the clean x_r(t) patched in.

    restored[r, t] = (LD_patched - LD_corrupt) / (LD_clean - LD_corrupt), LD the logit difference
    logit[clean target] - logit[corrupt target] at the last position: 1 = the clean answer is back,
    0 = nothing changed. Batched per position t: copy r holds the corrupted x_r with the clean row t
    and goes through blocks r .. L-1; only rows t .. T-1 are computed (the rows before t read as in the
    corrupted run). Positions where both prompts' streams agree are skipped: the patch changes nothing.
    Takes its turn in HEAVY_LINE.
    """
    with HEAVY_LINE.turn():
        return _activation_patching(model, clean_ids, corrupt_ids, clean_target, corrupt_target)


def _activation_patching(model, clean_ids, corrupt_ids, clean_target, corrupt_target) -> Patching:
    runner = _runner(model)
    clean_ids, corrupt_ids = _same_length(runner, clean_ids, corrupt_ids)
    T, L = len(clean_ids), runner.n_layers
    if (L + 1) * T > limits.PATCHING_MAX_CELLS:
        raise ValueError(_("Patching {layers} layers x {T} positions is {runs} runs; the limit here is {most}. Use a "
                           "shorter prompt.", layers=L + 1, T=T, runs=grouped((L + 1) * T),
                           most=grouped(limits.PATCHING_MAX_CELLS)))
    good, bad = _target(runner, clean_target), _target(runner, corrupt_target)
    if good == bad:
        raise ValueError(_("The clean and corrupted targets are the same token: their logit difference is always 0."))

    def logit_diff(x):                                               # x (..., T, d) -> LD at the last position
        scores = runner.logits_of(x[..., -1, :], [good, bad]).double()
        return scores[..., 0] - scores[..., 1]

    with torch.inference_mode():
        clean = _stream(runner, clean_ids)                                     # (L + 1, T, d)
        corrupt, keys = runner.stream_with_keys(corrupt_ids)                  # ... and each block's K, V
        ld_clean, ld_corrupt = float(logit_diff(clean[-1])), float(logit_diff(corrupt[-1]))
        if abs(ld_clean - ld_corrupt) < 1e-6:
            raise ValueError(_("The model gives both prompts the same logit difference between the two targets, so "
                               "there is nothing to restore: choose prompts or targets it tells apart."))
        differs = (clean != corrupt).any(dim=-1)                               # (L + 1, T)
        positions = torch.nonzero(differs.any(dim=0))[:, 0].tolist()
        patched = np.full((L + 1, T), ld_corrupt)
        if positions:
            if isinstance(runner, _SmolLM2Runner):
                patched[:, positions] = _patched_packed(runner, clean, corrupt, keys, positions, logit_diff, differs)
            else:
                patched[:, positions] = _patched_by_position(runner, clean, corrupt, keys, positions, logit_diff)
        patched[~differs.numpy()] = ld_corrupt               # the same row in both runs: patching changes nothing
    return Patching(
        clean_tokens=[runner.display(i) for i in clean_ids], corrupt_tokens=[runner.display(i) for i in corrupt_ids],
        layers=stream_labels(L), clean_target=good, corrupt_target=bad, clean_target_token=runner.display(good),
        corrupt_target_token=runner.display(bad), clean_logit_diff=ld_clean, corrupt_logit_diff=ld_corrupt,
        patched_logit_diff=patched, restored=(patched - ld_corrupt) / (ld_clean - ld_corrupt))


def _patched_by_position(runner: _Runner, clean, corrupt, keys, positions: list[int], logit_diff) -> np.ndarray:
    """LD of every patched run, (L + 1, len(positions)): one batch per position t, one copy per row r.

    Copy r holds the corrupted x_r with the clean row t and joins the batch before block r. A causal
    model's rows before t stay the corrupted run's: only rows t.. are computed, reading their K, V.
    """
    L, T = runner.n_layers, corrupt.shape[1]
    out = np.empty((L + 1, len(positions)))
    for column, t in enumerate(positions):
        first = t if runner.causal else 0
        x = corrupt.new_empty(0, T - first, corrupt.shape[-1])                 # (copies, T - first, d)
        for layer in range(L + 1):
            copy = corrupt[layer, first:].clone()
            copy[t - first] = clean[layer, t]                                  # x_layer with the clean row t
            x = torch.cat((x, copy[None]))
            if layer < L:
                past = [kv[..., :first, :] for kv in keys[layer]] if first else None
                x = runner.block(layer, x, past=past)
        out[:, column] = logit_diff(x).numpy()                                 # copy r: patched at x_r
    return out


def _patched_packed(runner: _SmolLM2Runner, clean, corrupt, keys, positions: list[int], logit_diff,
                    differs: torch.Tensor) -> np.ndarray:
    """The same numbers as _patched_by_position for SmolLM2, every position in one pass per block.

    One copy of the corrupted run per cell (row r, position t) joins before block r: the clean row t, then the
    corrupted rows after it (its rows before t are the corrupted run's, read through that run's keys and
    values). Every copy's rows are packed into one matrix x (rows, d), grouped by position (group t: its
    copies in the order they joined, T - t rows each), so each of a block's weight matrices is one product over
    all copies; attention, the one step that mixes rows, runs per group: the copies read the corrupted run's
    keys and values before t, then their own. Block L-1 computes the last row only (all the logit difference
    reads) and the keys and values of the others. A cell where both runs' rows are the same (`differs` False)
    is not run: its patch changes nothing, and the caller writes the corrupted LD there.
    """
    from engine.pretrained.llama import rms_norm, rotary_angles

    model, config = runner.model, runner.model.config
    L, T = runner.n_layers, corrupt.shape[1]
    h, h_kv, g, d_k, eps = config.n_head, config.n_kv_head, config.group_size, config.d_k, config.norm_eps
    # e^(i t theta_j) per position t and pair j, (T, d_k/2)
    turn_all = torch.complex(*rotary_angles(torch.arange(T), d_k, config.rope_base))

    def rotate(M, heads, turn):     # llama.rotate_pairs, each pair (x_2i, x_2i+1) read as x_2i + i x_2i+1
        pairs = torch.view_as_complex(M.unflatten(-1, (heads, d_k // 2, 2)))
        return torch.view_as_real(pairs * turn[:, None]).flatten(-2)                   # (rows, heads, d_k)

    key_position = torch.arange(T)
    # per position t: the positions of a copy's rows, and which keys each of its g x (T - t) queries may not read
    rows_at = {t: key_position[t:] for t in positions}
    future = {t: (key_position > key_position[t:, None]).repeat(g, 1) for t in positions}
    runs = differs.tolist()                                   # runs[r][t]: the cell (r, t) changes something
    joined: dict[int, list[int]] = {t: [] for t in positions}   # group t: the row r of each of its copies
    x = corrupt.new_empty(0, corrupt.shape[-1])
    for layer in range(L):
        pieces, start = [], 0
        for t in positions:                                   # the copies patched at x_layer join their group
            rows = len(joined[t]) * (T - t)
            pieces.append(x[start:start + rows])
            start += rows
            if runs[layer][t]:
                joined[t].append(layer)
                pieces += [clean[layer, t:t + 1], corrupt[layer, t + 1:]]
        if any(runs[layer][t] for t in positions):
            x = torch.cat(pieces)                             # a new matrix, which the block then changes in place
        groups = [(t, len(joined[t])) for t in positions if joined[t]]
        if not groups:
            continue
        position = torch.cat([rows_at[t].repeat(copies) for t, copies in groups])              # each row's
        block, last = model.blocks[layer], layer == L - 1
        normed = rms_norm(x, block.attn_norm, eps)
        turn = turn_all[position]
        K = rotate(normed @ block.W_k, h_kv, turn)                                             # (rows, h_kv, d_k)
        V = (normed @ block.W_v).unflatten(-1, (h_kv, d_k))
        if last:                                              # the last row of each copy is all LD reads
            queries = torch.nonzero(position == T - 1)[:, 0]
            x, normed, turn = x[queries], normed[queries], turn[queries]
        Q = rotate(normed @ block.W_q, h, turn)                                                # (queries, h, d_k)
        z = torch.empty_like(Q)
        K_past, V_past = keys[layer]                                                           # (h_kv, T, d_k)
        row = query = 0
        for t, copies in groups:
            rows, asked = copies * (T - t), copies * (1 if last else T - t)
            own_K, own_V = (M[row:row + rows].view(copies, T - t, h_kv, d_k).transpose(1, 2) for M in (K, V))
            K_g = torch.cat((K_past[:, :t].expand(copies, -1, -1, -1), own_K), dim=2)         # (copies, h_kv, T, d_k)
            V_g = torch.cat((V_past[:, :t].expand(copies, -1, -1, -1), own_V), dim=2)
            # query head j reads key/value head j // g: the g heads of a group side by side as g x q queries
            Q_g = Q[query:query + asked].view(copies, -1, h_kv, g, d_k).permute(0, 2, 3, 1, 4).flatten(2, 3)
            scores = Q_g @ K_g.transpose(-2, -1) / math.sqrt(d_k)                              # (copies, h_kv, g q, T)
            if not last:
                scores.masked_fill_(future[t], float("-inf"))
            z_g = (torch.softmax(scores, dim=-1) @ V_g).unflatten(2, (g, -1))        # (copies, h_kv, g, q, d_k)
            z[query:query + asked].view(copies, -1, h_kv, g, d_k).copy_(z_g.permute(0, 3, 1, 2, 4))
            row, query = row + rows, query + asked
        x += z.flatten(1) @ block.W_o                                                          # attention
        hidden = rms_norm(x, block.ffn_norm, eps)
        gate = torch.nn.functional.silu(hidden @ block.W_gate, inplace=True)
        x += gate.mul_(hidden @ block.W_up) @ block.W_down                                     # SwiGLU FFN
    out = np.full((L + 1, len(positions)), np.nan)
    cells = [(r, column) for column, t in enumerate(positions) for r in joined[t]]             # x's rows' order
    if cells:
        rows, columns = zip(*cells)
        out[list(rows), list(columns)] = logit_diff(x[:, None, :]).numpy()
    # patched after the last block: only the last position is read, and there the clean run's row is the clean LD
    out[L] = [float(logit_diff(clean[L, T - 1][None])) if t == T - 1 else float(logit_diff(corrupt[L][None]))
              for t in positions]
    return out


# --- the copying probe --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CopyingProbe:
    """The loss at each position of [start] + r + r, r random tokens: copying makes the second r predictable."""
    ids: list[int]
    length: int                          # n, the length of r
    heads_ablated: tuple[tuple[int, int], ...]
    losses: np.ndarray                   # (len(ids) - 1,) -ln P(ids[t + 1] | ids[:t + 1]), nats

    @property
    def first_copy(self) -> slice:
        """The losses that predict the first r's tokens 2 .. n (its first token follows nothing at all)."""
        start = len(self.ids) - 2 * self.length
        return slice(start, start + self.length - 1)

    @property
    def second_copy(self) -> slice:
        """The losses that predict the second r's tokens 2 .. n (its first token follows r's last, seen once)."""
        start = len(self.ids) - self.length
        return slice(start, start + self.length - 1)

    @property
    def first_copy_loss(self) -> float:
        """Mean loss on the first r: nothing there can be predicted."""
        return float(self.losses[self.first_copy].mean())

    @property
    def second_copy_loss(self) -> float:
        """Mean loss on the second r: what copying (induction heads) buys."""
        return float(self.losses[self.second_copy].mean())


def copying_probe(model, length: int, seed: int, heads_to_ablate=(), *, mode: str = "zero") -> CopyingProbe:
    """Loss per position on a random sequence repeated twice (engine.interpret.heads.repeated_random_tokens).

    Nothing in r can be predicted the first time; the second time a model that copies (induction
    heads: find the earlier copy of my token, read what came next) predicts it almost surely.
    SmolLM2 reads it after <|endoftext|>, with ids of ordinary tokens.
    """
    from engine.interpret.heads import repeated_random_tokens

    runner = _runner(model)
    if isinstance(runner, _SmolLM2Runner):
        low, high = model.ordinary_tokens
        ids = repeated_random_tokens(length, seed=seed, low=low, high=high, start=model.start_id)
    else:
        ids = repeated_random_tokens(length, seed=seed, low=0, high=runner.vocab_size)
    ids = _ids(runner, ids.tolist(), limit=runner.max_tokens)
    ablation = _ablate(runner, ids, heads_to_ablate, mode, None)
    log_probs = torch.log_softmax(torch.from_numpy(ablation.logits[:-1]).double(), dim=-1)   # (T - 1, V)
    losses = -log_probs.gather(1, torch.as_tensor(ids[1:])[:, None])[:, 0]
    return CopyingProbe(ids=ids, length=length, heads_ablated=ablation.heads, losses=losses.numpy())


# --- watching heads form while a model trains ----------------------------------------------------------

@dataclass(frozen=True)
class HeadFormation:
    """One look at a training model on a fixed probe r + r (r random tokens): how much each head behaves
    as a previous-token head and as an induction head, and how much the second r is easier than the first."""
    step: int
    previous_token: np.ndarray      # (L, h) mean weight on the previous token (engine.interpret.heads.pattern_scores)
    induction: np.ndarray           # (L, h) mean weight on the token after the earlier copy of the current one
    first_copy_loss: float          # nats per token on the first r: nothing there is predictable
    second_copy_loss: float         # ... on the second r: copying makes it predictable

    @property
    def loss_gap(self) -> float:
        """In-context learning on the probe: first-copy loss minus second-copy loss (nats per token)."""
        return self.first_copy_loss - self.second_copy_loss

    def strongest(self, kind: str) -> tuple[int, int, float]:
        """(layer, head, score) of the head with the highest 'previous-token' or 'induction' score."""
        scores = {"previous-token": self.previous_token, "induction": self.induction}[kind]
        layer, head = np.unravel_index(int(np.nanargmax(scores)), scores.shape)
        return int(layer), int(head), float(scores[layer, head])


def head_formation(model, step: int, *, length: int | None = None, seed: int = 0) -> HeadFormation:
    """Score a TransformerLM (mid-training is fine: it is read in eval mode and put back as it was) on
    r + r, r = `length` distinct random tokens (default: as long as half its context allows, at most
    limits.FORMATION_PROBE_LENGTH). The same seed gives the same probe at every step."""
    from engine.interpret.heads import pattern_scores, repeated_random_tokens

    config = model.config
    longest = min(limits.FORMATION_PROBE_LENGTH, config.context_length // 2, config.vocab_size)
    length = longest if length is None else int(length)
    if not 2 <= length <= longest:
        raise ValueError(_("The probe's random sequence must have 2 to {longest} tokens for this model (context {T}, "
                           "vocabulary {V}).", longest=longest, T=config.context_length, V=config.vocab_size))
    ids = repeated_random_tokens(length, seed=seed, low=0, high=config.vocab_size)
    was_training = model.training
    model.train(False)
    try:
        with torch.no_grad():
            trace = model.trace(torch.as_tensor(ids[None], dtype=torch.long))
    finally:
        model.train(was_training)
    weights = torch.stack([w[0] for w in trace.attention_weights]).double().numpy()       # (L, h, T, T)
    scores = pattern_scores(weights, ids)
    log_probs = torch.log_softmax(trace.logits[0, :-1].double(), dim=-1)                  # (T - 1, V)
    losses = -log_probs.gather(1, torch.as_tensor(ids[1:])[:, None])[:, 0].numpy()
    # loss t predicts token t + 1: the first r's tokens 2..n, then the second r's tokens 2..n
    first, second = losses[0:length - 1], losses[length:2 * length - 1]
    return HeadFormation(step=int(step), previous_token=scores["previous-token"], induction=scores["induction"],
                         first_copy_loss=float(first.mean()), second_copy_loss=float(second.mean()))
